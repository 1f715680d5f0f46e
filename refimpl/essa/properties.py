"""The properties of spec/ESSAProperties.tla as Python predicates, with the spec's names.

Invariants take ``(profile, state)``; action properties take ``(profile, before, after)``
(:mod:`refimpl.core.properties`). Like the spec's, they are stated from the state variables only, never through the machine's tables
(:mod:`refimpl.essa.rules`), so a broken table cannot break its own check.

What the 2006/07 Linux guest assumes of ESSA: the 2007 model (``Paper2007``) keeps every one;
the KVM implementations break some, which are the findings of docs/findings.md.
"""

from __future__ import annotations

from typing import Final

from ..core.properties import PropertySet, boxed, by_name
from .profile import NO_VALUE, EssaProfile
from .state import USAGES, WRITTEN, EssaState

# ruff: noqa: N802 - the spec's names


def EssaTypeOK(profile: EssaProfile, s: EssaState) -> bool:
    return (
        len(s.pages) == profile.pages
        and all(
            pg.usage in USAGES
            and isinstance(pg.valid, bool) and isinstance(pg.swapped, bool)
            and isinstance(pg.zbit, bool) and isinstance(pg.nodat, bool)
            and pg.data in (0, WRITTEN)
            and isinstance(pg.keyDirty, bool) and isinstance(pg.gc, bool)
            and pg.owed in (NO_VALUE, 0, WRITTEN)
            and pg.belief in USAGES
            and isinstance(pg.modified, bool)
            for pg in s.pages
        )
        and all(0 <= p < profile.pages for p in s.cbrl)
        and len(s.cbrl) <= profile.cbrl_size
        and isinstance(s.migrated, bool)
    )  # fmt: skip


def Readable(s: EssaState, p: int) -> int:
    """What a read of the page would return now (a fault-in reads the swap copy)."""
    pg = s.pages[p]
    return pg.data if pg.valid or pg.swapped else 0


def GuestStableBeliefInv(profile: EssaProfile, s: EssaState) -> bool:
    """A page the guest believes stable is stable in the host."""
    return all(pg.usage == "S" for pg in s.pages if pg.belief == "S")


def StableContentOwedInv(profile: EssaProfile, s: EssaState) -> bool:
    """What the guest is owed of a page it believes stable is what a read returns."""
    return all(
        Readable(s, p) == pg.owed
        for p, pg in enumerate(s.pages)
        if pg.owed != NO_VALUE and pg.belief == "S"
    )


def ModifiedPContentKeptInv(profile: EssaProfile, s: EssaState) -> bool:
    """A page the guest made P and then modified keeps what the guest is owed."""
    return all(
        Readable(s, p) == pg.owed
        for p, pg in enumerate(s.pages)
        if pg.owed != NO_VALUE and pg.belief == "P" and pg.modified
    )


def ReadResultInv(profile: EssaProfile, s: EssaState) -> bool:
    """A read returns what the guest is owed, or a discard fault: never a silent wrong value."""
    lo = s.lastOp
    if not (lo.op == "GuestRead" and lo.outcome == "Value"):
        return True
    return lo.value == s.pages[lo.page].owed


def ReportedZero(profile: EssaProfile, s: EssaState, p: int) -> bool:
    """The page's content state as ESSA reports it is 3, logically zero."""
    pg = s.pages[p]
    return not pg.valid and (not pg.swapped if profile.impl == "Paper2007" else pg.zbit)


def ReportedZeroReadsZeroInv(profile: EssaProfile, s: EssaState) -> bool:
    """A page whose content state ESSA reports as logically zero reads as zero."""
    return all(
        Readable(s, p) == 0 for p in range(len(s.pages)) if ReportedZero(profile, s, p)
    )


def _host_unchanged(s: EssaState, t: EssaState) -> bool:
    """UNCHANGED <<usage, valid, swapped, zbit, nodat, data, cbrl>>."""
    return s.cbrl == t.cbrl and all(
        (a.usage, a.valid, a.swapped, a.zbit, a.nodat, a.data)
        == (b.usage, b.valid, b.swapped, b.zbit, b.nodat, b.data)
        for a, b in zip(s.pages, t.pages)
    )


def SpecificationExceptionStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    orc = t.lastOp.orc
    if not (orc > 7 or (orc == 7 and not profile.facility147)):
        return True
    return t.lastOp.outcome == "SpecificationException" and _host_unchanged(s, t)


def MigrationStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    if t.lastOp.op != "Migrate":
        return True
    return all(Readable(t, p) == Readable(s, p)
               for p, pg in enumerate(s.pages) if pg.usage == "S")  # fmt: skip


def MigrationArrivalStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    if t.lastOp.op != "Migrate":
        return True
    return all(
        b.usage == a.usage and b.nodat == a.nodat
        and not b.zbit and not b.swapped
        and b.valid == (b.data != 0)
        for a, b in zip(s.pages, t.pages)
    )  # fmt: skip


SpecificationExceptionProp = boxed("SpecificationExceptionProp", SpecificationExceptionStep)
MigrationKeepsStableContentProp = boxed("MigrationKeepsStableContentProp", MigrationStep)
MigrationArrivalProp = boxed("MigrationArrivalProp", MigrationArrivalStep)

#: The invariants and action properties, by name, in the spec's order.
PROPERTIES: Final = PropertySet[EssaProfile, EssaState](
    by_name(EssaTypeOK, GuestStableBeliefInv, StableContentOwedInv, ModifiedPContentKeptInv,
            ReadResultInv, ReportedZeroReadsZeroInv),
    by_name(SpecificationExceptionProp, MigrationKeepsStableContentProp, MigrationArrivalProp),
)  # fmt: skip
INVARIANTS: Final = PROPERTIES.invariants
ACTION_PROPERTIES: Final = PROPERTIES.action_properties
