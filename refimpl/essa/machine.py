"""The machine of spec/ESSA.tla: the ESSA instruction under the 2007 model and two KVMs.

Pure, deterministic, no I/O. The actions have the spec's names and take a page (and, for
``GuestMakeVolatile``, the operation-request code 3 or 4)::

    from refimpl.essa import EssaProfile, init, step, enabled_steps, essa

    profile = EssaProfile("KVMClassic", storage_keys=True, facility147=True, cbrl_size=1, pages=1)
    s = init(profile)                               # Init: every page S, logically zero
    s = step(profile, s, "GuestWrite", 0)           # the successor EssaState ...
    s = step(profile, s, "HostReclaim", 0)
    s = step(profile, s, "GuestMakeVolatile", 0, 4) # GuestMakeVolatile(p, 4): ORC 4
    r = step(profile, s, "Migrate")                 # ... or Refused: the step is disabled
    s, r1 = essa(profile, s, 0, 0)                  # the bare instruction: ORC 0 on page 0

``step`` performs one action of the spec's Next, with the guest's bookkeeping (``owed``,
``belief``, ``modified``); ``enabled_steps`` yields every enabled step of Next with its
successor. ``essa`` is the instruction alone, for a harness around real hypervisor code: the
spec's ``ESSA(op, orc, p)`` with ``op = "ESSA"``, the guest's view left as it is; it returns the
successor and the R1 byte, or a :class:`SpecificationException` (nothing changed but
``lastOp``). A queued discard needs room on the CBRL: when the list is full the instruction
intercepts in the real machine and the host empties the list first, so here ``essa`` (like the
spec) refuses, and the caller runs ``HostProcessCBRL`` and tries again.

Malformed requests (an unknown action, a page out of range, an ORC where none is taken) raise
:class:`ValueError`; a disabled step returns :class:`~refimpl.core.package.Refused` and changes nothing.
The decisions of each implementation are the tables of :mod:`refimpl.essa.rules`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final, NamedTuple

from ..core.package import Refused
from . import rules
from .profile import IMPLS, NO_PAGE, NO_VALUE, EssaProfile, EssaProfileError
from .state import USAGES, WRITTEN, EssaLastOp, EssaPage, EssaState, init_state

#: A step as the spec's Next names it: (action, page, ORC); NO_PAGE / NO_VALUE where none.
Step = tuple[str, int, int]
#: What an action does: the successor, or Refused (the spec has no such step here).
Result = EssaState | Refused

GUEST_ACTIONS: Final = (
    "GuestAlloc", "GuestFree", "GuestMakeStable", "GuestMakeVolatile", "GuestExtract",
    "GuestSetStableNoDat", "GuestBadOrc", "GuestEssaProblemState", "GuestRead", "GuestWrite",
    "GuestWriteback",
)  # fmt: skip
#: Guest actions of no page: ESSA on an address beyond guest memory (D103).
PAGELESS_GUEST_ACTIONS: Final = ("GuestEssaBeyondMemory",)
HOST_ACTIONS: Final = ("HostProcessCBRL", "Migrate", "HostResetCMMA", "HostReclaim",
                       "HostUnmapGmap", "HostAge")  # fmt: skip
#: Every action of Next, in the order of the spec's GuestNext and HostNext.
ACTION_NAMES: Final = PAGELESS_GUEST_ACTIONS + GUEST_ACTIONS + HOST_ACTIONS
#: The actions of no page (the spec's HostProcessCBRL takes the CBRL's head; Migrate and the
#: reset all pages; GuestEssaBeyondMemory none).
PAGELESS: Final = frozenset({"HostProcessCBRL", "Migrate", "HostResetCMMA", "GuestEssaBeyondMemory"})
#: GuestEssaBeyondMemory(orc): the ORCs it issues.
BEYOND_MEMORY_ORCS: Final = (0, 1)
#: The actions whose step may end in more than one state: ESSA (intercepted or interpreted by
#: the machine, D101) and HostProcessCBRL (the zap's target under CBRLGuestAddress, D100).
ESSA_ACTIONS: Final = frozenset({
    "GuestAlloc", "GuestFree", "GuestMakeStable", "GuestMakeVolatile", "GuestExtract",
    "GuestSetStableNoDat", "GuestBadOrc",
})  # fmt: skip
#: GuestMakeVolatile(p, orc): ORC 3 for a clean page, 4 for a writably mapped one.
MAKE_VOLATILE_ORCS: Final = (3, 4)
#: Spec: ORCs. The codes the spec distinguishes: 0 .. 7, and 8 for every higher one.
ORC_CODES: Final = rules.ORCS
#: The M3 field of ESSA is four bits: codes 0 .. 15.
MAX_ORC_FIELD: Final = 15



class SpecificationException(NamedTuple):
    """The program interruption an undefined ORC raises (sources 1.1: code 6), instead of an R1."""

    orc: int
    code: int = 6


class ProgramInterruption(NamedTuple):
    """Another program interruption instead of an R1: the operation exception (code 1) of ESSA
    with CMMA not enabled for the VM (D103)."""

    outcome: str
    code: int


# --------------------------------------------------------------------------- helpers


def _with_page(s: EssaState, p: int, pg: EssaPage) -> tuple[EssaPage, ...]:
    return s.pages[:p] + (pg,) + s.pages[p + 1 :]


def _record(op: str, p: int, outcome: str, *, orc: int = NO_VALUE, result: int = NO_VALUE,
            value: int = NO_VALUE) -> EssaLastOp:  # fmt: skip
    """Spec: Record(op, p, orc, result, outcome, value) (with UNCHANGED migrated)."""
    return EssaLastOp(op, p, orc, result, outcome, value)


def faults(profile: EssaProfile, pg: EssaPage) -> bool:
    """Spec: Faults(p). An access faults when the PTE ESSA looks at is not valid."""
    return not rules.essa_valid(profile, pg)


def fault_in(profile: EssaProfile, s: EssaState, p: int) -> tuple[EssaPage, bool]:
    """Spec: FaultIn(p), when the access faults: the page's new values and pageTable'. The host
    page comes from swap, or is a fresh zero page, unless it is still resident; Z is cleared
    (classic: ptep_set_pte_at; the new gmap: _gmap_ptep_xchg, :func:`rules.xchg_z`); in the new
    gmap the gmap PTE is installed, allocating the page table (D97)."""
    pg = s.pages[p]
    if not faults(profile, pg):
        return pg, s.pageTable
    new = pg._replace(valid=True, swapped=pg.swapped if pg.valid else False)
    if profile.gmap:
        return new._replace(zbit=rules.xchg_z(profile, pg), gmapPte="Valid"), True
    return new._replace(zbit=False), s.pageTable


# --------------------------------------------------------------------------- ESSA


def interpreted_paths(profile: EssaProfile, s: EssaState) -> tuple[bool, ...]:
    """Spec: InterpretedPaths. Whether an ESSA may be interpreted by the machine (D101): with
    MachineInterpretsESSA, in the new gmap, once the page table exists."""
    if profile.machine_interprets_essa and profile.gmap and s.pageTable:
        return (False, True)
    return (False,)


def essa_operator(
    profile: EssaProfile, s: EssaState, op: str, orc: int, p: int, interpreted: bool = False
) -> Result:
    """Spec: ESSA(op, orc, p), on the path ``interpreted`` (one of :func:`interpreted_paths`).
    The guest's variables are left to the caller. The checks of handle_essa come first: CMMA
    enabled (PIC 1), the ORC (PIC 6); then the gmap walk (0x10, D97). A row that drops the
    content discards the page, which resets its change bit ([Z5]; D347)."""
    pg = s.pages[p]
    if not profile.cmma_enabled:
        return s._replace(lastOp=_record(op, p, "OperationException", orc=orc))
    if rules.specification_exception(profile, orc):
        return s._replace(lastOp=_record(op, p, "SpecificationException", orc=orc))
    if profile.gmap and not s.pageTable:
        return s._replace(lastOp=_record(op, p, "ExceptionIndication", orc=orc,
                                         result=rules.EXCEPTION_INDICATION))  # fmt: skip
    if interpreted and interpreted not in interpreted_paths(profile, s):
        return Refused(op, p, orc, "the machine interprets ESSA only in the new gmap, with "
                       "MachineInterpretsESSA, once the page table exists")  # fmt: skip
    e = rules.essa_effect(profile, orc, pg)
    if e.queue and len(s.cbrl) >= profile.cbrl_size:
        return Refused(op, p, orc, "the CBRL is full: the ESSA intercepts, and the host processes "
                       "the list first (HostProcessCBRL)")  # fmt: skip
    resident = not pg.valid and (profile.impl, orc) in rules.MAKES_RESIDENT
    new = pg._replace(
        usage=e.u,
        nodat=e.n,
        zbit=(e.queue or pg.zbit) if interpreted else e.z,
        swapped=False if e.drop or resident else pg.swapped,
        data=0 if e.drop else pg.data,
        valid=pg.valid or resident,
        keyDirty=False if e.drop else pg.keyDirty,  # a discard resets the change bit ([Z5])
    )
    return EssaState(
        _with_page(s, p, new),
        s.cbrl + (p,) if e.queue else s.cbrl,
        s.pageTable,
        s.migrated,
        _record(op, p, "Interpreted" if interpreted else "Done", orc=orc,
                result=rules.result_byte(profile, pg)),
    )  # fmt: skip


def _guest(
    profile: EssaProfile, s: EssaState, op: str, orc: int, p: int,
    update: Callable[[EssaPage], EssaPage] | None = None, interpreted: bool = False,
) -> Result:  # fmt: skip
    """ESSA(op, orc, p), then the guest's bookkeeping of page p (``update`` of its new values)."""
    t = essa_operator(profile, s, op, orc, p, interpreted)
    if isinstance(t, Refused) or update is None:
        return t
    return t._replace(pages=_with_page(t, p, update(t.pages[p])))


# --------------------------------------------------------------------------- the 2006/07 guest


def guest_alloc(profile: EssaProfile, s: EssaState, p: int, _orc: int,
                interpreted: bool = False) -> Result:  # fmt: skip
    """Spec: GuestAlloc(p). arch_alloc_page, ORC 1; the guest is owed nothing yet."""
    return _guest(profile, s, "GuestAlloc", 1, p,
                  lambda pg: pg._replace(owed=NO_VALUE, belief="S"), interpreted)  # fmt: skip


def guest_free(profile: EssaProfile, s: EssaState, p: int, _orc: int,
               interpreted: bool = False) -> Result:  # fmt: skip
    """Spec: GuestFree(p). arch_free_page, ORC 2."""
    return _guest(profile, s, "GuestFree", 2, p,
                  lambda pg: pg._replace(owed=NO_VALUE, belief="U", modified=False), interpreted)  # fmt: skip


def guest_make_volatile(profile: EssaProfile, s: EssaState, p: int, orc: int,
                        interpreted: bool = False) -> Result:  # fmt: skip
    """Spec: GuestMakeVolatile(p, orc). A clean page-cache page: ORC 3, or ORC 4 when it is
    writably mapped. lastOp names ORC 4 "GuestMakePotentiallyVolatile". Not today's guest."""
    pg = s.pages[p]
    if profile.modern_guest:
        return Refused("GuestMakeVolatile", p, orc, "today's Linux guest issues no ORC 3 or 4")
    if pg.belief != "S":
        return Refused("GuestMakeVolatile", p, orc,
                       f"the guest believes the page {pg.belief}, not S")  # fmt: skip
    if pg.owed == NO_VALUE:
        return Refused("GuestMakeVolatile", p, orc, "the guest holds no content in the page")
    if orc == 3 and pg.modified:
        return Refused("GuestMakeVolatile", p, orc,
                       "ORC 3 is for a page not modified since its writeback")  # fmt: skip
    op = "GuestMakeVolatile" if orc == 3 else "GuestMakePotentiallyVolatile"
    belief = "V" if orc == 3 else "P"
    return _guest(profile, s, op, orc, p, lambda new: new._replace(belief=belief), interpreted)


def guest_make_stable(profile: EssaProfile, s: EssaState, p: int, _orc: int,
                      interpreted: bool = False) -> Result:  # fmt: skip
    """Spec: GuestMakeStable(p). ORC 6; the guest reads failure exactly from "old state = V +
    zero" (sources 6.4) and then drops the page. Not today's guest."""
    pg = s.pages[p]
    if profile.modern_guest:
        return Refused("GuestMakeStable", p, NO_VALUE, "today's Linux guest issues no ORC 6")
    if pg.belief not in ("V", "P"):
        return Refused("GuestMakeStable", p, NO_VALUE, f"the guest believes the page {pg.belief}")
    if pg.owed == NO_VALUE:
        return Refused("GuestMakeStable", p, NO_VALUE, "the guest holds no content in the page")
    failed = rules.make_stable_failed(rules.result_byte(profile, pg))

    def update(new: EssaPage) -> EssaPage:
        if failed:
            return new._replace(belief="U", owed=NO_VALUE, modified=False)
        return new._replace(belief="S")

    return _guest(profile, s, "GuestMakeStable", 6, p, update, interpreted)


def guest_extract(profile: EssaProfile, s: EssaState, p: int, _orc: int,
                  interpreted: bool = False) -> Result:  # fmt: skip
    """Spec: GuestExtract(p). ORC 0."""
    return _guest(profile, s, "GuestExtract", 0, p, None, interpreted)


def guest_set_stable_no_dat(profile: EssaProfile, s: EssaState, p: int, _orc: int,
                            interpreted: bool = False) -> Result:  # fmt: skip
    """Spec: GuestSetStableNoDat(p). ORC 7, on a page the guest believes stable."""
    if s.pages[p].belief != "S":
        return Refused("GuestSetStableNoDat", p, NO_VALUE,
                       f"the guest believes the page {s.pages[p].belief}, not S")  # fmt: skip
    return _guest(profile, s, "GuestSetStableNoDat", 7, p, None, interpreted)


def guest_bad_orc(profile: EssaProfile, s: EssaState, p: int, _orc: int,
                  interpreted: bool = False) -> Result:  # fmt: skip
    """Spec: GuestBadOrc(p). An undefined code (8): the instruction must refuse it."""
    return _guest(profile, s, "GuestBadOrc", rules.HIGHEST_ORC, p, None, interpreted)


def guest_essa_problem_state(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestEssaProblemState(p). A user program's ESSA (ORC 1): the privileged-operation
    exception (PIC 2), after the CMMA check (PIC 1); nothing changes (D103)."""
    outcome = "PrivilegedOperation" if profile.cmma_enabled else "OperationException"
    return s._replace(lastOp=_record("GuestEssaProblemState", p, outcome, orc=1))


def guest_essa_beyond_memory(profile: EssaProfile, s: EssaState, _p: int, orc: int) -> Result:
    """Spec: GuestEssaBeyondMemory (its ORC 0 or 1 as ``orc``). Classic KVM and the 2007 model:
    an addressing exception (PIC 5); the new gmap: R1 = 0x10; CMMA off: PIC 1 (D103)."""
    op = "GuestEssaBeyondMemory"
    if not profile.cmma_enabled:
        return s._replace(lastOp=_record(op, NO_PAGE, "OperationException", orc=orc))
    if profile.gmap:
        return s._replace(lastOp=_record(op, NO_PAGE, "ExceptionIndication", orc=orc,
                                         result=rules.EXCEPTION_INDICATION))  # fmt: skip
    return s._replace(lastOp=_record(op, NO_PAGE, "AddressingException", orc=orc))


def guest_read(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestRead(p). A page that is not valid is faulted in (from swap, else zero); the 2007
    model raises the discard fault on Vz (the handler drops the page from the cache) and an
    addressing exception on U."""
    pg = s.pages[p]
    if pg.owed == NO_VALUE:
        return Refused("GuestRead", p, NO_VALUE, "the guest holds no content in the page")
    if rules.discard_fault(profile, pg):
        return s._replace(pages=_with_page(s, p, pg._replace(owed=NO_VALUE)),
                          lastOp=_record("GuestRead", p, "DiscardFault"))  # fmt: skip
    if rules.addressing_exception(profile, pg):
        return s._replace(lastOp=_record("GuestRead", p, "AddressingException"))
    new, table = fault_in(profile, s, p)
    return s._replace(pages=_with_page(s, p, new), pageTable=table,
                      lastOp=_record("GuestRead", p, "Value", value=pg.data))  # fmt: skip


def guest_write(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestWrite(p). A store to a page the guest uses (S, or a writably mapped P)."""
    pg = s.pages[p]
    if pg.belief not in ("S", "P"):
        return Refused("GuestWrite", p, NO_VALUE, f"the guest believes the page {pg.belief}")
    if rules.discard_fault(profile, pg) or rules.addressing_exception(profile, pg):
        return Refused("GuestWrite", p, NO_VALUE, "the store would fault (discard fault or "
                       "addressing exception)")  # fmt: skip
    faulted, table = fault_in(profile, s, p)
    new = faulted._replace(data=WRITTEN, keyDirty=True, owed=WRITTEN, modified=True)
    return s._replace(pages=_with_page(s, p, new), pageTable=table,
                      lastOp=_record("GuestWrite", p, "Done", value=WRITTEN))  # fmt: skip


def guest_writeback(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestWriteback(p). The guest writes the page to disk and resets the change bit;
    with storage keys that is an SSKE, which resets GC too and in the new gmap allocates the
    page table (D98)."""
    pg = s.pages[p]
    if not pg.modified:
        return Refused("GuestWriteback", p, NO_VALUE, "no store since the last writeback")
    sske = profile.kvm and profile.storage_keys
    new = pg._replace(keyDirty=False, modified=False, gc=False if sske else pg.gc)
    return s._replace(pages=_with_page(s, p, new),
                      pageTable=True if profile.gmap and profile.storage_keys else s.pageTable,
                      lastOp=_record("GuestWriteback", p, "Done"))  # fmt: skip


# --------------------------------------------------------------------------- the host


def host_reclaim(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: HostReclaim(p). Reclaim of a resident page (:data:`refimpl.essa.rules.RECLAIM`); a
    page dropped by a host of :data:`refimpl.essa.rules.DISCARD_RESETS_CHANGE_BIT` loses its change
    bit."""
    pg = s.pages[p]
    if not pg.valid:
        return Refused("HostReclaim", p, NO_VALUE, "the page is not resident")
    r = rules.RECLAIM[profile.impl][pg.usage, pg.keyDirty]
    drop = rules.reclaim_drops(profile, pg)
    keep = r.keep if drop is None else not drop
    new = pg._replace(
        valid=False,
        swapped=keep,
        data=pg.data if keep else 0,
        usage=r.u,
        gc=rules.saved_gc(profile, pg),
        keyDirty=pg.keyDirty and (keep or profile.impl not in rules.DISCARD_RESETS_CHANGE_BIT),
    )
    if profile.gmap:
        new = new._replace(
            zbit=rules.xchg_z(profile, pg) if pg.gmapPte != "Empty" else pg.zbit,
            gmapPte="Empty", pteUnused=False,
        )  # fmt: skip
    return s._replace(pages=_with_page(s, p, new), lastOp=_record("HostReclaim", p, "Done"))


def host_unmap_gmap(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: HostUnmapGmap(p). The new gmap: KVM's MMU notifier empties the gmap PTE of a resident
    page for a reason other than reclaim; a U page's host PTE gets _PAGE_UNUSED, which stays only
    before the CVE-2026-72412 fix (StaleUnusedBit, D100)."""
    pg = s.pages[p]
    if not profile.gmap:
        return Refused("HostUnmapGmap", p, NO_VALUE, "only the new gmap has gmap PTEs")
    if pg.gmapPte == "Empty":
        return Refused("HostUnmapGmap", p, NO_VALUE, "the gmap PTE is empty")
    new = pg._replace(gmapPte="Empty", zbit=rules.xchg_z(profile, pg),
                      gc=rules.saved_gc(profile, pg),
                      pteUnused=pg.pteUnused or ("StaleUnusedBit" in profile.bugs
                                                  and pg.usage == "U"))  # fmt: skip
    return s._replace(pages=_with_page(s, p, new), lastOp=_record("HostUnmapGmap", p, "Done"))


def host_age(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: HostAge(p). The new gmap: aging sets the gmap PTE's invalid bit and leaves it
    present (sources 3.4, D105)."""
    pg = s.pages[p]
    if not profile.gmap:
        return Refused("HostAge", p, NO_VALUE, "only the new gmap has gmap PTEs")
    if pg.gmapPte != "Valid":
        return Refused("HostAge", p, NO_VALUE, "the gmap PTE is not valid")
    new = pg._replace(gmapPte="Aged", zbit=rules.xchg_z(profile, pg),
                      gc=rules.saved_gc(profile, pg))  # fmt: skip
    return s._replace(pages=_with_page(s, p, new), lastOp=_record("HostAge", p, "Done"))


def host_reset_cmma(profile: EssaProfile, s: EssaState, _p: int, _orc: int) -> Result:
    """Spec: HostResetCMMA. KVM: every page S with N cleared, Z left alone; the guest starts
    again, believes every page stable and is owed nothing (D106)."""
    if not profile.kvm:
        return Refused("HostResetCMMA", NO_PAGE, NO_VALUE, "the 2007 model has no CMMA reset")
    pages = tuple(pg._replace(usage="S", nodat=False, belief="S", owed=NO_VALUE, modified=False)
                  for pg in s.pages)  # fmt: skip
    return s._replace(pages=pages, lastOp=_record("HostResetCMMA", NO_PAGE, "Done"))


def host_process_cbrl(profile: EssaProfile, s: EssaState, _p: int, _orc: int,
                      target: int | None = None) -> Result:  # fmt: skip
    """Spec: HostProcessCBRL. The first CBRL entry: if its PTE is not present and it is U or Z,
    the zap drops the host page it targets (``target``, one of :func:`rules.zap_targets`; the
    entry's own page by default) if that is a swap entry."""
    if not s.cbrl:
        return Refused("HostProcessCBRL", NO_PAGE, NO_VALUE, "the CBRL is empty")
    p = s.cbrl[0]
    targets = rules.zap_targets(profile, p)
    t = targets[0] if target is None else target
    if t not in targets:
        return Refused("HostProcessCBRL", p, NO_VALUE, f"the zap cannot land on page {t}")
    zap = (rules.cbrl_asked(profile, s.pages[p]) and t != NO_PAGE
           and rules.zappable(s.pages[t]))  # fmt: skip
    pages = _with_page(s, t, s.pages[t]._replace(swapped=False, data=0)) if zap else s.pages
    outcome = "Kept" if not zap else "Zapped" if t == p else "ZappedOtherPage"
    return EssaState(pages, s.cbrl[1:], s.pageTable, s.migrated,
                     _record("HostProcessCBRL", p, outcome))  # fmt: skip


def migrate(profile: EssaProfile, s: EssaState, _p: int, _orc: int) -> Result:
    """Spec: Migrate. Usage and N travel, the content travels with the RAM; Z, residency, GC and
    the CBRL do not (sources 5). KVM only, once."""
    if not profile.kvm:
        return Refused("Migrate", NO_PAGE, NO_VALUE, "the 2007 model has no CMMA migration")
    if s.migrated:
        return Refused("Migrate", NO_PAGE, NO_VALUE, "the VM has been migrated already")
    pages = []
    for pg in s.pages:
        moved = rules.migrated_content(pg)
        pages.append(pg._replace(data=moved, valid=moved != 0, swapped=False,
                                 zbit=rules.arrival_z(pg), gc=rules.arrival_gc(profile, pg),
                                 gmapPte="Empty", pteUnused=False))  # fmt: skip
    return EssaState(tuple(pages), (), True, True, _record("Migrate", NO_PAGE, "Done"))


Action = Callable[[EssaProfile, EssaState, int, int], Result]

#: Every action of Next by the spec's name: (profile, state, page, orc) -> successor or Refused.
ACTIONS: Final[dict[str, Action]] = {
    "GuestEssaBeyondMemory": guest_essa_beyond_memory,
    "GuestAlloc": guest_alloc,
    "GuestFree": guest_free,
    "GuestMakeStable": guest_make_stable,
    "GuestMakeVolatile": guest_make_volatile,
    "GuestExtract": guest_extract,
    "GuestSetStableNoDat": guest_set_stable_no_dat,
    "GuestBadOrc": guest_bad_orc,
    "GuestEssaProblemState": guest_essa_problem_state,
    "GuestRead": guest_read,
    "GuestWrite": guest_write,
    "GuestWriteback": guest_writeback,
    "HostProcessCBRL": host_process_cbrl,
    "Migrate": migrate,
    "HostResetCMMA": host_reset_cmma,
    "HostReclaim": host_reclaim,
    "HostUnmapGmap": host_unmap_gmap,
    "HostAge": host_age,
}
assert tuple(ACTIONS) == ACTION_NAMES

#: The ESSA actions with their path argument (intercepted or interpreted).
ESSA_STEP: Final[dict[str, Callable[[EssaProfile, EssaState, int, int, bool], Result]]] = {
    "GuestAlloc": guest_alloc, "GuestFree": guest_free, "GuestMakeStable": guest_make_stable,
    "GuestMakeVolatile": guest_make_volatile, "GuestExtract": guest_extract,
    "GuestSetStableNoDat": guest_set_stable_no_dat, "GuestBadOrc": guest_bad_orc,
}  # fmt: skip
assert frozenset(ESSA_STEP) == ESSA_ACTIONS


# --------------------------------------------------------------------------- the machine


def init(profile: EssaProfile) -> EssaState:
    """Spec: Init under ``profile``: a new gmap VM has no page table (D97)."""
    return init_state(profile.pages, not profile.gmap or profile.prebuilt_page_tables)


def requests(profile: EssaProfile) -> Iterator[Step]:
    """Every step of the spec's Next, enabled or not, in its order: GuestNext for each page,
    then HostProcessCBRL, Migrate, HostResetCMMA and the host's actions on each page. ESSA on an
    address beyond memory carries its ORC."""
    for orc in BEYOND_MEMORY_ORCS:
        yield "GuestEssaBeyondMemory", NO_PAGE, orc
    for p in range(profile.pages):
        for action in GUEST_ACTIONS:
            if action == "GuestMakeVolatile":
                for orc in MAKE_VOLATILE_ORCS:
                    yield action, p, orc
            else:
                yield action, p, NO_VALUE
    yield "HostProcessCBRL", NO_PAGE, NO_VALUE
    yield "Migrate", NO_PAGE, NO_VALUE
    yield "HostResetCMMA", NO_PAGE, NO_VALUE
    for p in range(profile.pages):
        for action in ("HostReclaim", "HostUnmapGmap", "HostAge"):
            yield action, p, NO_VALUE


def _check(profile: EssaProfile, s: EssaState, action: str, page: int, orc: int) -> None:
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}: one of {', '.join(ACTION_NAMES)}")
    n = profile.pages
    if len(s.pages) != n:
        raise ValueError(f"the state has {len(s.pages)} pages, the profile {n}")
    if action in PAGELESS:
        if page != NO_PAGE:
            raise ValueError(f"{action} takes no page (got {page!r})")
    elif not isinstance(page, int) or isinstance(page, bool) or not 0 <= page < n:
        raise ValueError(f"{action}: page {page!r} is not one of 0 .. {n - 1}")
    if action == "GuestMakeVolatile":
        if orc not in MAKE_VOLATILE_ORCS:
            raise ValueError(f"GuestMakeVolatile: ORC {orc!r} is not 3 or 4")
    elif action == "GuestEssaBeyondMemory":
        if orc not in BEYOND_MEMORY_ORCS:
            raise ValueError(f"GuestEssaBeyondMemory: ORC {orc!r} is not 0 or 1")
    elif orc != NO_VALUE:
        raise ValueError(f"{action} takes no ORC (got {orc!r})")


def step(
    profile: EssaProfile, state: EssaState, action: str, page: int = NO_PAGE, orc: int = NO_VALUE
) -> Result:
    """Spec: the action ``action`` of Next on ``page`` (with ``orc`` for GuestMakeVolatile):
    the successor, or Refused when the spec has no such step here."""
    _check(profile, state, action, page, orc)
    return ACTIONS[action](profile, state, page, orc)


def enabled_steps(profile: EssaProfile, state: EssaState) -> Iterator[tuple[Step, EssaState]]:
    """Spec: Next from ``state``: every enabled (action, page, orc) with its successor."""
    if len(state.pages) != profile.pages:
        raise ValueError(f"the state has {len(state.pages)} pages, the profile {profile.pages}")
    for request in requests(profile):
        for t in successors(profile, state, request):
            yield request, t


def successors(profile: EssaProfile, state: EssaState, request: Step) -> Iterator[EssaState]:
    """Every successor of one step of Next: an ESSA may be intercepted or interpreted (D101), and
    under CBRLGuestAddress the zap of HostProcessCBRL may land on any of its targets (D100);
    :func:`step` takes the first of each."""
    action, page, orc = request
    if action in ESSA_ACTIONS:
        for interpreted in interpreted_paths(profile, state):
            t = ESSA_STEP[action](profile, state, page, orc, interpreted)
            if not isinstance(t, Refused):
                yield t
    elif action == "HostProcessCBRL" and state.cbrl:
        for target in rules.zap_targets(profile, state.cbrl[0]):
            t = host_process_cbrl(profile, state, page, orc, target)
            if not isinstance(t, Refused):
                yield t
    else:
        t = ACTIONS[action](profile, state, page, orc)
        if not isinstance(t, Refused):
            yield t


# --------------------------------------------------------------------------- the instruction



def essa(
    profile: EssaProfile, state: EssaState, orc: int, page: int, op: str = "ESSA",
    interpreted: bool = False,
) -> tuple[EssaState, int | SpecificationException | ProgramInterruption] | Refused:
    """One ESSA instruction with operation-request code ``orc`` on ``page``: the spec's
    ESSA(op, orc, p), the guest's view unchanged. Returns the successor and the R1 byte (the
    page's state before: content 0/2/3, usage 0x0/0x4/0x8/0xC, no-DAT 0x20), or the successor
    (only ``lastOp`` changed) and a :class:`SpecificationException`; Refused when the discard
    it would queue finds the CBRL full. Codes 9 .. 15 are recorded as 8, which stands for every
    code above 7 in the spec."""
    if isinstance(orc, bool) or not isinstance(orc, int) or not 0 <= orc <= MAX_ORC_FIELD:
        raise ValueError(f"ESSA: ORC {orc!r} is not one of 0 .. {MAX_ORC_FIELD}")
    n = profile.pages
    if len(state.pages) != n:
        raise ValueError(f"the state has {len(state.pages)} pages, the profile {n}")
    if isinstance(page, bool) or not isinstance(page, int) or not 0 <= page < n:
        raise ValueError(f"ESSA: page {page!r} is not one of 0 .. {n - 1}")
    t = essa_operator(profile, state, op, min(orc, rules.HIGHEST_ORC), page, interpreted)
    if isinstance(t, Refused):
        return t
    if t.lastOp.outcome == "SpecificationException":
        return t, SpecificationException(orc)
    if t.lastOp.outcome == "OperationException":
        return t, ProgramInterruption("OperationException", 1)
    return t, t.lastOp.result
