"""The decision operators of spec/ESSA.tla on one page, as tables where the spec has tables.

The heart is ESSA's effect per implementation (the spec's ``Paper2007Effect``, ``ClassicEffect``
and ``GmapEffect``; sources 6.2 and the tables of sources 2.2 and 3.1): :data:`EFFECT_TABLES` holds one
table per ``Impl``, each row ``(orc, condition) -> EffectEntry``, written in the order of the
spec's CASE arms. TLC evaluates a CASE by taking the first arm whose guard holds, and several
arms of these CASEs overlap (``orc = 2 /\\ v`` then ``orc = 2``), so here too the first row of
the ORC whose condition holds wins; an ORC without a matching row takes the ``OTHER`` rows. The
conditions are named predicates of the page (:data:`CONDITIONS`), worded as the spec's guards.
(TLA+ itself defines CASE by CHOOSE and leaves the value unspecified where true arms overlap;
what the equality test compares with is TLC's first-arm reading.)

"sources x.y" is section x.y of docs/sources.md; ``Spec: Name`` names the operator of spec/ESSA.tla
or of a module it EXTENDS (ESSAMachine.tla, ESSAPaper2007.tla, ESSAKVMClassic.tla, ESSAKVMGmap.tla).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

from .profile import EssaProfile
from .state import EssaPage

# ------------------------------------------------------------------- encodings (sources 1.1, 1.2)

#: Spec: ORCs. 0 .. 7 are defined; 8 stands for every higher code.
ORCS: Final = tuple(range(9))
HIGHEST_ORC: Final = 8
#: Spec: UsageBits(u), the usage field of the R1 byte.
USAGE_BITS: Final[dict[str, int]] = {"S": 0, "U": 4, "P": 8, "V": 12}
NODAT_BIT: Final = 32
#: Spec: ExceptionIndication: the new gmap's answer without a page table, or beyond guest memory
#: (D97, D103).
EXCEPTION_INDICATION: Final = 16


def essa_valid(profile: EssaProfile, pg: EssaPage) -> bool:
    """Spec: EssaValid(p). The PTE ESSA looks at is valid: the host PTE (classic, 2007), the
    gmap PTE (the new gmap, sources 3)."""
    return pg.gmapPte == "Valid" if profile.gmap else pg.valid


def content_bits(profile: EssaProfile, pg: EssaPage) -> int:
    """Spec: ContentBits(p). 0 resident, 2 preserved, 3 logically zero; for KVM the state
    __do_essa reports (sources 1.2): valid -> 0, else Z clear -> 2, Z set -> 3."""
    if essa_valid(profile, pg):
        return 0
    if profile.kvm:
        return 3 if pg.zbit else 2
    return 2 if pg.swapped else 3


def result_byte(profile: EssaProfile, pg: EssaPage) -> int:
    """Spec: ResultByte(p). The byte ESSA leaves in R1: the state before the operation."""
    return content_bits(profile, pg) + USAGE_BITS[pg.usage] + (NODAT_BIT if pg.nodat else 0)


def specification_exception(profile: EssaProfile, orc: int) -> bool:
    """Spec: SpecificationException(orc). sources 1.1: "Anything higher raises a specification
    exception"; ORC 7 needs facility 147, which the 2007 machine never had (D104)."""
    return orc > 7 or (orc == 7 and (not profile.facility147 or profile.impl == "Paper2007"))


# --------------------------------------------------------------------------- ESSA's effect


class Effect(NamedTuple):
    """Spec: Effect(u, n, z, queue, drop): the new usage, N and Z, whether the page is queued
    on the CBRL, and (Paper2007) whether its content is dropped at once."""

    u: str
    n: bool
    z: bool
    queue: bool
    drop: bool


KEEP: Final = None  # in an EffectEntry: the value is left as it was (the spec's u, n, z)


class EffectEntry(NamedTuple):
    """A row of an effect table: the new usage, N and Z (:data:`KEEP`: unchanged), queue, drop."""

    u: str | None
    n: bool | None
    z: bool | None
    queue: bool = False
    drop: bool = False


#: The orc of the rows that apply to every code without a matching row of its own (CASE's OTHER).
OTHER: Final = -1

#: The guards of the CASE arms, as predicates of the page before the ESSA.
CONDITIONS: Final[dict[str, Callable[[EssaPage], bool]]] = {
    "any": lambda pg: True,
    "valid": lambda pg: pg.valid,
    "Z": lambda pg: pg.zbit,
    "GC clear": lambda pg: not pg.gc,
    # Paper2007's content states: preserved == ~valid /\ swapped, zero == ~valid /\ ~swapped
    "preserved": lambda pg: not pg.valid and pg.swapped,
    "preserved, dirty": lambda pg: not pg.valid and pg.swapped and pg.keyDirty,
    "zero": lambda pg: not pg.valid and not pg.swapped,
    "V, zero": lambda pg: pg.usage == "V" and not pg.valid and not pg.swapped,
}

EffectTable = dict[tuple[int, str], EffectEntry]

#: Spec: Paper2007Effect. sources 6.2 and the paper's section 2 (the Figure 3 machine): N is never
#: touched, Z is unused (always cleared), nothing is queued; Sp -> Uz and Sp -> Vz drop the swap
#: copy at once. ORC 5 also makes the page resident and drops its swap copy (:data:`MAKES_RESIDENT`,
#: D104); ORC 7 did not exist (a specification exception, D104; the OTHER row is never reached).
PAPER2007_EFFECT: Final[EffectTable] = {
    (0, "any"):              EffectEntry(KEEP, KEEP, False),
    (1, "any"):              EffectEntry("S",  KEEP, False),
    (5, "any"):              EffectEntry("S",  KEEP, False),
    (2, "preserved"):        EffectEntry("U",  KEEP, False, drop=True),   # Sp -> Uz
    (2, "any"):              EffectEntry("U",  KEEP, False),
    (3, "preserved"):        EffectEntry("V",  KEEP, False, drop=True),   # Sp -> Vz
    (3, "any"):              EffectEntry("V",  KEEP, False),
    (4, "zero"):             EffectEntry("V",  KEEP, False),              # P on zero gives Vz
    (4, "preserved, dirty"): EffectEntry("S",  KEEP, False),
    (4, "preserved"):        EffectEntry("V",  KEEP, False, drop=True),   # clean: discard
    (4, "any"):              EffectEntry("P",  KEEP, False),
    (6, "V, zero"):          EffectEntry(KEEP, KEEP, False),              # fails on Vz
    (6, "any"):              EffectEntry("S",  KEEP, False),
    (OTHER, "any"):          EffectEntry(KEEP, KEEP, False),
}  # fmt: skip

#: Spec: ClassicEffect. sources table 2.2, pgste_perform_essa: whenever it queues a CBRL entry it sets
#: Z, and it never clears Z. ORC 4 on a page that is not resident consults GC (kept only with
#: storage keys, [INFERENCE] sources 2.2). ORC 5 does not make the page resident; ORC 6 is "if
#: resident", not "if not discarded".
CLASSIC_EFFECT: Final[EffectTable] = {
    (0, "any"):      EffectEntry(KEEP, KEEP,  KEEP),
    (1, "any"):      EffectEntry("S",  False, KEEP),
    (2, "valid"):    EffectEntry("U",  KEEP,  KEEP),
    (2, "any"):      EffectEntry("U",  KEEP,  True, queue=True),
    (3, "valid"):    EffectEntry("V",  KEEP,  KEEP),
    (3, "any"):      EffectEntry("V",  KEEP,  True, queue=True),
    (4, "valid"):    EffectEntry("P",  KEEP,  KEEP),
    (4, "Z"):        EffectEntry("V",  KEEP,  True),
    (4, "GC clear"): EffectEntry("V",  KEEP,  True, queue=True),
    (4, "any"):      EffectEntry("S",  KEEP,  KEEP),
    (5, "any"):      EffectEntry("S",  KEEP,  KEEP),
    (6, "valid"):    EffectEntry("S",  KEEP,  KEEP),
    (6, "any"):      EffectEntry(KEEP, KEEP,  KEEP),
    (7, "any"):      EffectEntry("S",  True,  KEEP),
    (OTHER, "any"):  EffectEntry(KEEP, KEEP,  KEEP),
}  # fmt: skip

#: Spec: GmapEffect. sources table 3.1, dat_perform_essa: Z = "this call queued a discard", so every
#: call that queues none clears Z; ORC 4 on a changed page that is not resident leaves the usage
#: as it was.
GMAP_EFFECT: Final[EffectTable] = {
    (0, "any"):      EffectEntry(KEEP, KEEP,  False),
    (1, "any"):      EffectEntry("S",  False, False),
    (2, "valid"):    EffectEntry("U",  KEEP,  False),
    (2, "any"):      EffectEntry("U",  KEEP,  True, queue=True),
    (3, "valid"):    EffectEntry("V",  KEEP,  False),
    (3, "any"):      EffectEntry("V",  KEEP,  True, queue=True),
    (4, "valid"):    EffectEntry("P",  KEEP,  False),
    (4, "Z"):        EffectEntry("V",  KEEP,  False),
    (4, "GC clear"): EffectEntry("V",  KEEP,  True, queue=True),
    (4, "any"):      EffectEntry(KEEP, KEEP,  False),
    (5, "any"):      EffectEntry("S",  KEEP,  False),
    (6, "valid"):    EffectEntry("S",  KEEP,  False),
    (6, "any"):      EffectEntry(KEEP, KEEP,  False),
    (7, "any"):      EffectEntry("S",  True,  False),
    (OTHER, "any"):  EffectEntry(KEEP, KEEP,  False),
}  # fmt: skip

#: Spec: EssaEffect: the table of each Impl.
EFFECT_TABLES: Final[dict[str, EffectTable]] = {
    "Paper2007": PAPER2007_EFFECT,
    "KVMClassic": CLASSIC_EFFECT,
    "KVMGmap": GMAP_EFFECT,
}

#: (Impl, ORC) whose ESSA makes a page that is not resident resident, dropping its swap copy
#: (Spec: Paper2007PageIn, ORC 5 "pages the page in", Sp -> Sr; its 2007 name is
#: SET_STABLE_MAKE_RESIDENT; D104).
MAKES_RESIDENT: Final[frozenset[tuple[str, int]]] = frozenset({("Paper2007", 5)})


def effect_row(profile: EssaProfile, orc: int, pg: EssaPage) -> tuple[int, str]:
    """The row of the Impl's effect table that decides ESSA ``orc`` on ``pg``: the first of
    ``orc`` whose condition holds, else of OTHER. The condition "valid" is the spec's ``v``:
    EssaValid(p) (the gmap PTE in the new gmap)."""
    table = EFFECT_TABLES[profile.impl]
    if profile.gmap:
        pg = pg._replace(valid=essa_valid(profile, pg))
    for key in (orc, OTHER):
        for row_orc, condition in table:
            if row_orc == key and CONDITIONS[condition](pg):
                return row_orc, condition
    raise LookupError(f"the {profile.impl} effect table has no row for ORC {orc} here: {pg}")


def essa_effect(profile: EssaProfile, orc: int, pg: EssaPage) -> Effect:
    """Spec: EssaEffect(orc, p): the effect of the row :func:`effect_row` finds."""
    e = EFFECT_TABLES[profile.impl][effect_row(profile, orc, pg)]
    return Effect(
        pg.usage if e.u is None else e.u,
        pg.nodat if e.n is None else e.n,
        pg.zbit if e.z is None else e.z,
        e.queue,
        e.drop,
    )


# --------------------------------------------------------------------------- the guest


def make_stable_failed(result: int) -> bool:
    """GuestMakeStable's test of the old state (sources 6.4): failure exactly on V + logically zero."""
    return result % 16 == 3 + USAGE_BITS["V"]


def discard_fault(profile: EssaProfile, pg: EssaPage) -> bool:
    """Spec: DiscardFault(p). Only the 2007 model has one, on Vz."""
    return not profile.kvm and pg.usage == "V" and not pg.valid and not pg.swapped


def addressing_exception(profile: EssaProfile, pg: EssaPage) -> bool:
    """Spec: AddressingException(p). The 2007 model, on an access to an unused page."""
    return not profile.kvm and pg.usage == "U"


# --------------------------------------------------------------------------- the host


class Reclaim(NamedTuple):
    """What HostReclaim does to a resident page: its new usage, and whether the content is kept
    on swap (else dropped: no swap copy, data 0)."""

    u: str
    keep: bool


ReclaimTable = dict[tuple[str, bool], Reclaim]

#: Spec: Paper2007Reclaim (HostReclaim for Paper2007), by (usage, keyDirty). sources 6.2:
#: Ur -> Uz, Sr -> Sp, Vr -> Vz, Pr -> Sp if dirty, Vz if clean.
RECLAIM_PAPER2007: Final[ReclaimTable] = {
    ("S", False): Reclaim("S", True),  ("S", True): Reclaim("S", True),
    ("U", False): Reclaim("U", False), ("U", True): Reclaim("U", False),
    ("V", False): Reclaim("V", False), ("V", True): Reclaim("V", False),
    ("P", False): Reclaim("V", False), ("P", True): Reclaim("S", True),
}  # fmt: skip

#: Spec: ClassicReclaim, GmapReclaim (HostReclaim for KVM), by (usage, keyDirty). sources 2.4,
#: 3.3: an unused page is dropped (no swap, Z not set); every other page is swapped out like a
#: stable one, its usage unchanged.
RECLAIM_KVM: Final[ReclaimTable] = {
    ("S", False): Reclaim("S", True),  ("S", True): Reclaim("S", True),
    ("U", False): Reclaim("U", False), ("U", True): Reclaim("U", False),
    ("V", False): Reclaim("V", True),  ("V", True): Reclaim("V", True),
    ("P", False): Reclaim("P", True),  ("P", True): Reclaim("P", True),
}  # fmt: skip

RECLAIM: Final[dict[str, ReclaimTable]] = {
    "Paper2007": RECLAIM_PAPER2007,
    "KVMClassic": RECLAIM_KVM,
    "KVMGmap": RECLAIM_KVM,
}

#: The Impls whose host resets the change bit of a page it discards (Spec: Paper2007Reclaim, and
#: ESSA on a row of the effect table that drops the content, rows only the 2007 table has): a
#: discard makes the content logically zero "and resets the reference and change bits" ([Z5];
#: D6, D347). The KVM hosts keep the storage key: only the guest's SSKE resets the bit.
DISCARD_RESETS_CHANGE_BIT: Final[frozenset[str]] = frozenset({"Paper2007"})


def saved_gc(profile: EssaProfile, pg: EssaPage) -> bool:
    """Spec: SavedGC(p). When the PTE ESSA looks at goes invalid KVM saves the storage key into the
    PGSTE, GC being the key's change bit, if the VM uses storage keys (sources 2, D98)."""
    return pg.keyDirty if profile.kvm and profile.storage_keys else pg.gc


def xchg_z(profile: EssaProfile, pg: EssaPage) -> bool:
    """Spec: XchgZ(p). Z after a gmap PTE exchange: cleared since the fix "always clear pgste.zero
    in _gmap_ptep_xchg" (S9); kept before it (Bugs StickyZero, D100)."""
    return pg.zbit if "StickyZero" in profile.bugs else False


def reclaim_drops(profile: EssaProfile, pg: EssaPage) -> bool | None:
    """HostReclaim in the new gmap: whether core mm drops the page (else it swaps it out). KVM's
    MMU notifier sets _PAGE_UNUSED when it unmaps a present gmap PTE of a U page; a bit left from
    an earlier unmap counts too (StaleUnusedBit, D100). None for the other implementations, whose
    reclaim is :data:`RECLAIM`."""
    if not profile.gmap:
        return None
    return pg.pteUnused or (pg.usage == "U" and pg.gmapPte != "Empty")


def zap_targets(profile: EssaProfile, p: int) -> tuple[int, ...]:
    """Spec: ZapTargets(p). The host page the zap of p's CBRL entry lands on: p when fixed; before
    the fix (CBRLGuestAddress, D100) another page or nothing (NO_PAGE)."""
    if "CBRLGuestAddress" in profile.bugs:
        return tuple(q for q in range(profile.pages) if q != p) + (-1,)
    return (p,)


def cbrl_asked(profile: EssaProfile, pg: EssaPage) -> bool:
    """HostProcessCBRL: the entry's PTE is not present (classic: the host PTE is not valid; the new
    gmap: its gmap PTE is empty) and the page is U or Z (sources 2, 3.2)."""
    not_present = (not pg.valid) or (profile.gmap and pg.gmapPte == "Empty")
    return not_present and (pg.usage == "U" or pg.zbit)


def zappable(pg: EssaPage) -> bool:
    """The zap drops a host PTE only if it is a swap entry (not valid, swapped)."""
    return not pg.valid and pg.swapped


def migrated_content(pg: EssaPage) -> int:
    """Spec: MigratedContent(p). RAM migration reads every page as the guest would."""
    return pg.data if pg.valid or pg.swapped else 0


def arrival_z(pg: EssaPage) -> bool:
    """Spec: ArrivalZ(p). The CMMA attributes carry no Z (sources 5.1)."""
    return False


def arrival_gc(profile: EssaProfile, pg: EssaPage) -> bool:
    """Spec: ArrivalGC(p). The change bit of the migrated storage key, set on the destination
    through set_guest_storage_key / dat_set_storage_key; no keys travel without storage keys
    (D99)."""
    return profile.storage_keys and pg.keyDirty
