"""The properties of spec/PageStateProperties.tla as Python predicates, with the spec's names.

Invariants take ``(profile, state)``; action properties take ``(profile, before, after)``
(:mod:`refimpl.core.properties`). Like the spec's, they are stated from the state variables and
``lastOp`` only, never through the machine's decision operators (:mod:`refimpl.pagestates.rules`),
so a broken rule cannot break its own check.
"""

from __future__ import annotations

from typing import Final

from ..core.properties import PropertySet, boxed, by_name
from .profile import ADDRESSING_EXCEPTION, NO_PAGE, NO_VALUE, Profile
from .state import GUEST_OPS, GUEST_PRIMITIVES, HOST_OPS, OUTCOMES, RESIDENCIES, USAGES, State

# ruff: noqa: N802 - the spec's names


def _discarded(u: str, r: str) -> bool:
    return u in ("V", "P") and r == "z"


def TypeOK(profile: Profile, s: State) -> bool:
    values = profile.values
    lo = s.lastOp
    return (
        len(s.pages) == profile.pages
        and all(
            pg.usage in USAGES
            and pg.resid in RESIDENCIES
            and isinstance(pg.dirty, bool)
            and pg.data in values
            and (pg.intended in values or pg.intended == NO_VALUE)
            and isinstance(pg.modified, bool)
            and pg.requested in USAGES
            for pg in s.pages
        )
        and lo.op in GUEST_OPS + HOST_OPS + ("Init",)
        and (0 <= lo.page < profile.pages or lo.page == NO_PAGE)
        and (lo.arg in values or lo.arg == NO_VALUE)
        and (lo.value in values or lo.value == NO_VALUE)
        # Extract reports a two-letter state; every other step one of Outcomes.
        and (lo.op == "Extract" or lo.outcome in OUTCOMES)
    )


def StableContentKeptInv(profile: Profile, s: State) -> bool:
    """No stable (or modified P) content is ever lost or altered."""
    return all(
        pg.data == pg.intended if pg.resid != "z" else pg.intended == 0
        for pg in s.pages
        if pg.intended != NO_VALUE and (pg.usage == "S" or (pg.usage == "P" and pg.modified))
    )


def ReadResultInv(profile: Profile, s: State) -> bool:
    """A read returns what the guest is owed, and never a value from a discarded page."""
    lo = s.lastOp
    if not (lo.op == "Read" and lo.outcome == "Value"):
        return True
    pg = s.pages[lo.page]
    return not _discarded(pg.usage, pg.resid) and (
        pg.intended == NO_VALUE or lo.value == pg.intended
    )


def DiscardFaultOnlyWhenDiscardedInv(profile: Profile, s: State) -> bool:
    """A discard fault only on a discarded (Vz or Pz) page."""
    lo = s.lastOp
    if not (lo.op in ("Read", "Write") and lo.outcome == "DiscardFault"):
        return True
    pg = s.pages[lo.page]
    return _discarded(pg.usage, pg.resid)


def UnusedAccessInv(profile: Profile, s: State) -> bool:
    """An access to an unused page: the profile's exception, or zero and no store."""
    lo = s.lastOp
    if not (lo.op in ("Read", "Write") and s.pages[lo.page].usage == "U"):
        return True
    if profile.unused_access == ADDRESSING_EXCEPTION:
        return lo.outcome == "AddressingException"
    if lo.op == "Read":
        return lo.outcome == "Value" and lo.value == 0
    return lo.outcome == "Ignored"


_ALL_STATES: Final = frozenset(u + r for u in "SUVP" for r in "rpz")
#: The states of each machine, written out from the paper's sentences (section 2's
#: simplifications, section 4's z/VM machine), not from the rules' own features.
VARIANT_STATES: Final[dict[str, frozenset[str]]] = {
    "Full": _ALL_STATES,
    "OneDiscardedState": _ALL_STATES - {"Pz"},
    "NoVp": _ALL_STATES - {"Vp"},
    "NoPp": _ALL_STATES - {"Pp"},
    "NoP": _ALL_STATES - {"Pr", "Pp", "Pz"},
    "ZVMPrototype": frozenset({"Sr", "Sp", "Sz", "Ur", "Uz", "Vr", "Vz", "Pr"}),
}


def VariantStatesInv(profile: Profile, s: State) -> bool:
    """Every page is in a state its machine has."""
    return all(pg.name in VARIANT_STATES[profile.variant] for pg in s.pages)


#: The steps that are performed without a condition and answer "Done" (spec: PerformedOps).
PERFORMED_OPS: Final = (
    tuple(op for op in GUEST_PRIMITIVES if op != "SetStableIfNotDiscarded") + ("ClearDirty",) + HOST_OPS
)


def PrimitiveOutcomeInv(profile: Profile, s: State) -> bool:
    """The unconditional steps answer Done; only SetStableIfNotDiscarded answers Success or Failure;
    every step answers (None is Init's observation alone)."""
    lo = s.lastOp
    if (lo.outcome == "None") != (lo.op == "Init"):
        return False
    if lo.op == "SetStableIfNotDiscarded":
        return lo.outcome in ("Success", "Failure")
    return lo.op not in PERFORMED_OPS or lo.outcome == "Done"


def _content(resid: str, data: int) -> int:
    return 0 if resid == "z" else data


def SSINDStep(profile: Profile, s: State, t: State) -> bool:
    lo = t.lastOp
    if lo.op != "SetStableIfNotDiscarded":
        return True
    p = lo.page
    before, after = s.pages[p], t.pages[p]
    success = lo.outcome == "Success"
    return success == (not _discarded(before.usage, before.resid)) and (
        not success
        or (
            after.usage == "S"
            and _content(after.resid, after.data) == _content(before.resid, before.data)
        )
    )


def DiscardStep(profile: Profile, s: State, t: State) -> bool:
    op = t.lastOp.op
    requested = {"SetUnused": "U", "SetVolatile": "V", "SetPotentialVolatile": "P"}.get(op)
    for p, (before, after) in enumerate(zip(s.pages, t.pages)):
        if before.resid in ("r", "p") and after.resid == "z":
            u = requested if requested and p == t.lastOp.page else before.usage
            if not (u in ("U", "V") or (u == "P" and not before.dirty)):
                return False
    return True


_IMPLICIT = ("SetUnused", "SetVolatile", "SetPotentialVolatile")


def GuestResidencyStep(profile: Profile, s: State, t: State) -> bool:
    lo = t.lastOp
    if lo.op not in GUEST_OPS:
        return True
    return all(
        after.resid == before.resid
        or (
            profile.host_service
            and p == lo.page
            and before.resid == "p"
            and after.resid == "z"
            and lo.op in _IMPLICIT
        )
        for p, (before, after) in enumerate(zip(s.pages, t.pages))
    )


def PrimitiveUsageStep(profile: Profile, s: State, t: State) -> bool:
    """SetStable, SetUnused and SetVolatile leave the usage asked for; SetPotentialVolatile leaves
    P, or V or S by an implicit transition the paper names (paper 2)."""
    lo = t.lastOp
    allowed = {
        "SetStable": ("S",), "SetUnused": ("U",), "SetVolatile": ("V",),
        "SetPotentialVolatile": ("P", "V", "S"),
    }.get(lo.op)  # fmt: skip
    return allowed is None or t.pages[lo.page].usage in allowed


def HostUsageStep(profile: Profile, s: State, t: State) -> bool:
    """A host step changes no usage but the paper's implicit transitions of a P page: discarded
    as V where the discarded states are collapsed, preserved dirty as S where there is no Pp."""
    if t.lastOp.op not in HOST_OPS:
        return True
    v = profile.variant
    return all(
        after.usage == before.usage
        or (
            before.usage == "P"
            and (
                (v in ("OneDiscardedState", "ZVMPrototype") and after.resid == "z" and after.usage == "V")
                or (v in ("NoPp", "ZVMPrototype") and after.resid == "p" and before.dirty and after.usage == "S")
            )
        )
        for before, after in zip(s.pages, t.pages)
    )


def ExtractStep(profile: Profile, s: State, t: State) -> bool:
    """Extract reports the page's state by the paper's two-letter name and changes nothing. The
    name is spelled out here (usage then residency), not looked up in the machine's table."""
    lo = t.lastOp
    if lo.op != "Extract":
        return True
    before = s.pages[lo.page]
    return lo.outcome == before.usage + before.resid and t.pages == s.pages


PrimitiveSetsUsageProp = boxed("PrimitiveSetsUsageProp", PrimitiveUsageStep)
SetStableIfNotDiscardedProp = boxed("SetStableIfNotDiscardedProp", SSINDStep)
HostDiscardsOnlyDiscardableProp = boxed("HostDiscardsOnlyDiscardableProp", DiscardStep)
GuestKeepsResidencyProp = boxed("GuestKeepsResidencyProp", GuestResidencyStep)
HostKeepsUsageProp = boxed("HostKeepsUsageProp", HostUsageStep)
ExtractReportsStateProp = boxed("ExtractReportsStateProp", ExtractStep)

#: The invariants and action properties, by name, in the spec's order.
PROPERTIES: Final = PropertySet[Profile, State](
    by_name(TypeOK, VariantStatesInv, StableContentKeptInv, ReadResultInv,
            DiscardFaultOnlyWhenDiscardedInv, UnusedAccessInv, PrimitiveOutcomeInv),
    by_name(PrimitiveSetsUsageProp, SetStableIfNotDiscardedProp, HostDiscardsOnlyDiscardableProp,
            GuestKeepsResidencyProp, HostKeepsUsageProp, ExtractReportsStateProp),
)  # fmt: skip
INVARIANTS: Final = PROPERTIES.invariants
ACTION_PROPERTIES: Final = PROPERTIES.action_properties
