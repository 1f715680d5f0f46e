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
    "GuestSetStableNoDat", "GuestBadOrc", "GuestRead", "GuestWrite", "GuestWriteback",
)  # fmt: skip
HOST_ACTIONS: Final = ("HostProcessCBRL", "Migrate", "HostReclaim")
#: Every action of Next, in the order of the spec's GuestNext and HostNext.
ACTION_NAMES: Final = GUEST_ACTIONS + HOST_ACTIONS
#: The actions of no page (the spec's HostProcessCBRL takes the CBRL's head; Migrate all pages).
PAGELESS: Final = frozenset({"HostProcessCBRL", "Migrate"})
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


# --------------------------------------------------------------------------- helpers


def _with_page(s: EssaState, p: int, pg: EssaPage) -> tuple[EssaPage, ...]:
    return s.pages[:p] + (pg,) + s.pages[p + 1 :]


def _record(op: str, p: int, outcome: str, *, orc: int = NO_VALUE, result: int = NO_VALUE,
            value: int = NO_VALUE) -> EssaLastOp:  # fmt: skip
    """Spec: Record(op, p, orc, result, outcome, value) (with UNCHANGED migrated)."""
    return EssaLastOp(op, p, orc, result, outcome, value)


def _fault_in(pg: EssaPage) -> EssaPage:
    """Spec: FaultIn(p), when the page is not valid: from swap, or a fresh zero page; clears Z."""
    if pg.valid:
        return pg
    return pg._replace(valid=True, swapped=False, zbit=False)


# --------------------------------------------------------------------------- ESSA


def essa_operator(profile: EssaProfile, s: EssaState, op: str, orc: int, p: int) -> Result:
    """Spec: ESSA(op, orc, p). The guest's variables are left to the caller."""
    pg = s.pages[p]
    if rules.specification_exception(profile, orc):
        return s._replace(lastOp=_record(op, p, "SpecificationException", orc=orc))
    e = rules.essa_effect(profile, orc, pg)
    if e.queue and len(s.cbrl) >= profile.cbrl_size:
        return Refused(op, p, orc, "the CBRL is full: the ESSA intercepts, and the host processes "
                       "the list first (HostProcessCBRL)")  # fmt: skip
    new = pg._replace(
        usage=e.u,
        nodat=e.n,
        zbit=e.z,
        swapped=False if e.drop else pg.swapped,
        data=0 if e.drop else pg.data,
        valid=pg.valid or (profile.impl, orc) in rules.MAKES_RESIDENT,
    )
    return EssaState(
        _with_page(s, p, new),
        s.cbrl + (p,) if e.queue else s.cbrl,
        s.migrated,
        _record(op, p, "Done", orc=orc, result=rules.result_byte(profile, pg)),
    )


def _guest(
    profile: EssaProfile, s: EssaState, op: str, orc: int, p: int,
    update: Callable[[EssaPage], EssaPage] | None = None,
) -> Result:  # fmt: skip
    """ESSA(op, orc, p), then the guest's bookkeeping of page p (``update`` of its new values)."""
    t = essa_operator(profile, s, op, orc, p)
    if isinstance(t, Refused) or update is None:
        return t
    return t._replace(pages=_with_page(t, p, update(t.pages[p])))


# --------------------------------------------------------------------------- the 2006/07 guest


def guest_alloc(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestAlloc(p). arch_alloc_page, ORC 1; the guest is owed nothing yet."""
    return _guest(profile, s, "GuestAlloc", 1, p,
                  lambda pg: pg._replace(owed=NO_VALUE, belief="S"))  # fmt: skip


def guest_free(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestFree(p). arch_free_page, ORC 2."""
    return _guest(profile, s, "GuestFree", 2, p,
                  lambda pg: pg._replace(owed=NO_VALUE, belief="U", modified=False))  # fmt: skip


def guest_make_volatile(profile: EssaProfile, s: EssaState, p: int, orc: int) -> Result:
    """Spec: GuestMakeVolatile(p, orc). A clean page-cache page: ORC 3, or ORC 4 when it is
    writably mapped. lastOp names ORC 4 "GuestMakePotentiallyVolatile"."""
    pg = s.pages[p]
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
    return _guest(profile, s, op, orc, p, lambda new: new._replace(belief=belief))


def guest_make_stable(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestMakeStable(p). ORC 6; the guest reads failure exactly from "old state = V +
    zero" (sources 6.4) and then drops the page."""
    pg = s.pages[p]
    if pg.belief not in ("V", "P"):
        return Refused("GuestMakeStable", p, NO_VALUE, f"the guest believes the page {pg.belief}")
    if pg.owed == NO_VALUE:
        return Refused("GuestMakeStable", p, NO_VALUE, "the guest holds no content in the page")
    failed = rules.make_stable_failed(rules.result_byte(profile, pg))

    def update(new: EssaPage) -> EssaPage:
        if failed:
            return new._replace(belief="U", owed=NO_VALUE, modified=False)
        return new._replace(belief="S")

    return _guest(profile, s, "GuestMakeStable", 6, p, update)


def guest_extract(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestExtract(p). ORC 0."""
    return _guest(profile, s, "GuestExtract", 0, p)


def guest_set_stable_no_dat(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestSetStableNoDat(p). ORC 7, on a page the guest believes stable."""
    if s.pages[p].belief != "S":
        return Refused("GuestSetStableNoDat", p, NO_VALUE,
                       f"the guest believes the page {s.pages[p].belief}, not S")  # fmt: skip
    return _guest(profile, s, "GuestSetStableNoDat", 7, p)


def guest_bad_orc(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestBadOrc(p). An undefined code (8): the instruction must refuse it."""
    return _guest(profile, s, "GuestBadOrc", rules.HIGHEST_ORC, p)


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
    return s._replace(pages=_with_page(s, p, _fault_in(pg)),
                      lastOp=_record("GuestRead", p, "Value", value=pg.data))  # fmt: skip


def guest_write(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestWrite(p). A store to a page the guest uses (S, or a writably mapped P)."""
    pg = s.pages[p]
    if pg.belief not in ("S", "P"):
        return Refused("GuestWrite", p, NO_VALUE, f"the guest believes the page {pg.belief}")
    if rules.discard_fault(profile, pg) or rules.addressing_exception(profile, pg):
        return Refused("GuestWrite", p, NO_VALUE, "the store would fault (discard fault or "
                       "addressing exception)")  # fmt: skip
    new = _fault_in(pg)._replace(data=WRITTEN, keyDirty=True, owed=WRITTEN, modified=True)
    return s._replace(pages=_with_page(s, p, new),
                      lastOp=_record("GuestWrite", p, "Done", value=WRITTEN))  # fmt: skip


def guest_writeback(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: GuestWriteback(p). The guest writes the page to disk and resets the change bit."""
    pg = s.pages[p]
    if not pg.modified:
        return Refused("GuestWriteback", p, NO_VALUE, "no store since the last writeback")
    return s._replace(pages=_with_page(s, p, pg._replace(keyDirty=False, modified=False)),
                      lastOp=_record("GuestWriteback", p, "Done"))  # fmt: skip


# --------------------------------------------------------------------------- the host


def host_reclaim(profile: EssaProfile, s: EssaState, p: int, _orc: int) -> Result:
    """Spec: HostReclaim(p). Reclaim of a resident page (:data:`refimpl.essa.rules.RECLAIM`)."""
    pg = s.pages[p]
    if not pg.valid:
        return Refused("HostReclaim", p, NO_VALUE, "the page is not resident")
    r = rules.RECLAIM[profile.impl][pg.usage, pg.keyDirty]
    new = pg._replace(
        valid=False,
        swapped=r.keep,
        data=pg.data if r.keep else 0,
        usage=r.u,
        gc=rules.reclaim_gc(profile, pg),
    )
    return s._replace(pages=_with_page(s, p, new), lastOp=_record("HostReclaim", p, "Done"))


def host_process_cbrl(profile: EssaProfile, s: EssaState, _p: int, _orc: int) -> Result:
    """Spec: HostProcessCBRL. The first CBRL entry: its swap copy is freed if it is still a
    swap entry and U or Z."""
    if not s.cbrl:
        return Refused("HostProcessCBRL", NO_PAGE, NO_VALUE, "the CBRL is empty")
    p = s.cbrl[0]
    pg = s.pages[p]
    zap = rules.cbrl_zaps(pg)
    pages = _with_page(s, p, pg._replace(swapped=False, data=0)) if zap else s.pages
    return EssaState(pages, s.cbrl[1:], s.migrated,
                     _record("HostProcessCBRL", p, "Zapped" if zap else "Kept"))  # fmt: skip


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
                                 zbit=rules.arrival_z(pg), gc=False))  # fmt: skip
    return EssaState(tuple(pages), (), True, _record("Migrate", NO_PAGE, "Done"))


Action = Callable[[EssaProfile, EssaState, int, int], Result]

#: Every action of Next by the spec's name: (profile, state, page, orc) -> successor or Refused.
ACTIONS: Final[dict[str, Action]] = {
    "GuestAlloc": guest_alloc,
    "GuestFree": guest_free,
    "GuestMakeStable": guest_make_stable,
    "GuestMakeVolatile": guest_make_volatile,
    "GuestExtract": guest_extract,
    "GuestSetStableNoDat": guest_set_stable_no_dat,
    "GuestBadOrc": guest_bad_orc,
    "GuestRead": guest_read,
    "GuestWrite": guest_write,
    "GuestWriteback": guest_writeback,
    "HostProcessCBRL": host_process_cbrl,
    "Migrate": migrate,
    "HostReclaim": host_reclaim,
}
assert tuple(ACTIONS) == ACTION_NAMES


# --------------------------------------------------------------------------- the machine


def init(profile: EssaProfile) -> EssaState:
    """Spec: Init under ``profile``."""
    return init_state(profile.pages)


def requests(profile: EssaProfile) -> Iterator[Step]:
    """Every step of the spec's Next, enabled or not, in its order: GuestNext for each page,
    then HostProcessCBRL, Migrate and HostReclaim for each page."""
    for p in range(profile.pages):
        for action in GUEST_ACTIONS:
            if action == "GuestMakeVolatile":
                for orc in MAKE_VOLATILE_ORCS:
                    yield action, p, orc
            else:
                yield action, p, NO_VALUE
    yield "HostProcessCBRL", NO_PAGE, NO_VALUE
    yield "Migrate", NO_PAGE, NO_VALUE
    for p in range(profile.pages):
        yield "HostReclaim", p, NO_VALUE


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
        action, page, orc = request
        t = ACTIONS[action](profile, state, page, orc)
        if not isinstance(t, Refused):
            yield request, t


# --------------------------------------------------------------------------- the instruction



def essa(
    profile: EssaProfile, state: EssaState, orc: int, page: int, op: str = "ESSA"
) -> tuple[EssaState, int | SpecificationException] | Refused:
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
    t = essa_operator(profile, state, op, min(orc, rules.HIGHEST_ORC), page)
    if isinstance(t, Refused):
        return t
    if t.lastOp.outcome == "SpecificationException":
        return t, SpecificationException(orc)
    return t, t.lastOp.result
