"""The actions of spec/PageStates.tla on one page, transliterated.

Every action of the spec changes one page and records ``lastOp``; here each action is a function
from (profile, the page's :class:`~refimpl.state.Page`, argument) to an :class:`Effect` (the
page's new values and what the guest observed) or a :class:`Refusal` (the action is disabled in
that state: the spec has no such step). :mod:`refimpl.pagestates.machine` adds the page number and
``lastOp`` and memoises the results, so this module is written for reading, not for speed.

The spec's decision operators (the ones its broken twins replace) keep their names and shapes:
``Discardable`` is the table :data:`DISCARDABLE`, ``SSINDSucceeds``, ``PrimitiveResult``'s residency,
``PageInDirty``, ``AccessOutcome`` and ``Normalise`` are functions below. The names of the spec
appear in the comments as ``Spec: Name``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

from .profile import ADDRESSING_EXCEPTION, NO_VALUE, ZERO, Features, Profile
from .state import STATE_NAME, Page


class Effect(NamedTuple):
    """An enabled step on one page: the page afterwards, lastOp's outcome and value."""

    page: Page
    outcome: str
    value: int = NO_VALUE


class Refusal(NamedTuple):
    """A disabled step: the spec has no step with this operation here, and why."""

    reason: str


Result = Effect | Refusal

# --------------------------------------------------------------------------- decisions

#: Spec: Discardable(u, d). U "the host may discard the page content at will"; V "can tolerate
#: the loss of the page content"; P "as long as the page has not been modified"; S never.
DISCARDABLE: Final[dict[tuple[str, bool], bool]] = {
    # (usage, dirty): may the host drop the content?
    ("S", False): False, ("S", True): False,
    ("U", False): True,  ("U", True): True,
    ("V", False): True,  ("V", True): True,
    ("P", False): True,  ("P", True): False,
}  # fmt: skip

#: The four unconditional guest primitives: the usage each asks for (ApplyPrimitive's target).
PRIMITIVE_TARGET: Final[dict[str, str]] = {
    "SetStable": "S",
    "SetUnused": "U",
    "SetVolatile": "V",
    "SetPotentialVolatile": "P",
}


def is_discarded(u: str, r: str) -> bool:
    """Spec: IsDiscarded. "The states Vz and Pz mark the special 'discarded' condition"."""
    return r == "z" and (u == "V" or u == "P")


def has_state(f: Features, u: str, r: str) -> bool:
    """Spec: HasState. Which of the twelve states this machine has."""
    return (
        (u != "P" or f.has_p)
        and (not (u == "U" and r == "p") or f.has_up)
        and (not (u == "V" and r == "p") or f.has_vp)
        and (not (u == "P" and r == "p") or f.has_pp)
        and (not (u == "P" and r == "z") or not f.collapse_discarded)
    )


def ssind_succeeds(u: str, r: str) -> bool:
    """Spec: SSINDSucceeds. Only "if it has not been discarded"."""
    return not is_discarded(u, r)


def primitive_residency(r: str, target: str) -> str:
    """Spec: the residency PrimitiveResult reads. The guest never sets residency."""
    return r


def page_in_dirty(d: bool) -> bool:
    """Spec: PageInDirty. The change bit survives paging (D6)."""
    return d


def access_outcome(profile: Profile, u: str, r: str, x: int) -> tuple[str, int]:
    """Spec: AccessOutcome, as (kind, value); kind "Wait" holds the access for the host."""
    if u == "U":  # Spec: AccessOutcome on an unused page (D9)
        if profile.unused_access == ADDRESSING_EXCEPTION:
            return ("AddressingException", NO_VALUE)
        return ("Value", ZERO)
    if is_discarded(u, r):  # Spec: AccessOutcome on a discarded page
        return ("DiscardFault", NO_VALUE)
    if r == "r":  # Spec: ResidentAccess
        return ("Value", x)
    return ("Wait", NO_VALUE)


class Target(NamedTuple):
    """Spec: the records of Discard and Keep: a state and whether content was dropped."""

    u: str
    r: str
    dropped: bool


def discard(f: Features, u: str) -> Target:
    """Spec: Discard(u). A collapsed machine shows Pz as Vz."""
    return Target("V" if u == "P" and f.collapse_discarded else u, "z", True)


def normalise(f: Features, u: str, r: str, d: bool) -> Target:
    """Spec: Normalise(u, r, d). A state the machine lacks becomes the paper's replacement."""
    if has_state(f, u, r):
        return Target(u, r, False)
    if u == "P" and r == "z":  # collapsed discarded states
        return Target("V", "z", False)
    if u == "P" and r == "p" and d:  # no Pp: "set the combined target state to Sp"
        return Target("S", "p", False)
    if r == "p" and DISCARDABLE[u, d]:  # no Up / Vp / clean Pp: the host discards
        return discard(f, u)
    return Target(u, r, False)  # unreachable: u = "P" without HasP


def primitive_result(profile: Profile, pg: Page, target: str) -> Target:
    """Spec: PrimitiveResult. With a host service the implicit discard of a preserved page
    is always taken where the new usage may be discarded (D3)."""
    f = profile.features
    r = primitive_residency(pg.resid, target)
    if profile.host_service and r == "p" and DISCARDABLE[target, pg.dirty]:
        return discard(f, target)
    return normalise(f, target, r, pg.dirty)


# --------------------------------------------------------------------------- guest primitives


def offered(profile: Profile, target: str) -> bool:
    """Spec: Offered. A primitive exists only if its target usage does: no P, no
    SetPotentialVolatile."""
    return target != "P" or profile.features.has_p


def gave_up_content(pg: Page) -> bool:
    """Spec: GaveUpContent. The guest's own last request gave the content up (U, V, or P while
    its record shows no stores); it reads the ghosts only (D425)."""
    return pg.requested in ("U", "V") or (pg.requested == "P" and not pg.modified)


def apply_primitive(profile: Profile, pg: Page, target: str, outcome: str, op: str = "") -> Effect:
    """Spec: ApplyPrimitive."""
    res = primitive_result(profile, pg, target)
    if target == "U":
        intended = NO_VALUE  # "the page content is meaningless" (D10)
    elif target == "S" and op != "SetStableIfNotDiscarded" and gave_up_content(pg):
        # An unconditional SetStable of content the guest gave up: kept or discarded, the
        # guest cannot tell which, so it is owed nothing (D425); a Success of
        # SetStableIfNotDiscarded keeps what the guest is owed (D359).
        intended = NO_VALUE
    else:
        intended = pg.intended
    new = Page(
        usage=res.u,
        resid=res.r,
        dirty=False if res.dropped else pg.dirty,
        data=ZERO if res.dropped else pg.data,
        intended=intended,
        # stores to a page the guest made volatile were given up with it (D425)
        modified=False if target == "U" or pg.requested == "V" else pg.modified,
        requested=target,
    )
    return Effect(new, outcome)


def set_stable_if_not_discarded(profile: Profile, pg: Page) -> Result:
    """Spec: SetStableIfNotDiscarded. One atomic step; on failure nothing changes."""
    if ssind_succeeds(pg.usage, pg.resid):
        return apply_primitive(profile, pg, "S", "Success", "SetStableIfNotDiscarded")
    return Effect(pg, "Failure")


def extract(pg: Page) -> Result:
    """Spec: Extract. Reports the paper's two-letter state as the outcome."""
    return Effect(pg, STATE_NAME[pg.usage, pg.resid])


# --------------------------------------------------------------------------- guest accesses


def _waits(pg: Page) -> Refusal:
    return Refusal(
        f"page is {pg.name}: the access waits until the host makes it resident "
        "(HostPageIn or HostZeroFill)"
    )


def read(profile: Profile, pg: Page) -> Result:
    """Spec: Read. Disabled while the access waits for the host."""
    kind, value = access_outcome(profile, pg.usage, pg.resid, pg.data)
    if kind == "Wait":
        return _waits(pg)
    return Effect(pg, kind, value)


def write(profile: Profile, pg: Page, v: int) -> Result:
    """Spec: Write(p, v). A store sets the change bit; under ReadsZero a store to an unused
    page is dropped (D9)."""
    kind, _ = access_outcome(profile, pg.usage, pg.resid, pg.data)
    if kind == "Wait":
        return _waits(pg)
    if kind == "Value" and pg.usage != "U":
        return Effect(pg._replace(data=v, dirty=True, intended=v, modified=True), "Done")
    return Effect(pg, "Ignored" if kind == "Value" else kind)


def clear_dirty(pg: Page) -> Result:
    """Spec: ClearDirty. The guest wrote the page back and resets the change bit (D7)."""
    if not pg.dirty:
        return Refusal("page is not dirty")
    return Effect(pg._replace(dirty=False, modified=False), "Done")


# --------------------------------------------------------------------------- host actions


def host_preserve(profile: Profile, pg: Page) -> Result:
    """Spec: HostPreserve. Only into a preserved state this machine has."""
    if pg.resid != "r":
        return Refusal(f"page is {pg.name}: only a resident page is preserved")
    res = normalise(profile.features, pg.usage, "p", pg.dirty)
    if res.r != "p":
        return Refusal(
            f"variant {profile.variant} has no preserved state for {pg.name}"
            f"{' (dirty)' if pg.dirty else ''}: the host discards it instead"
        )
    return Effect(pg._replace(usage=res.u, resid="p"), "Done")


def host_discard(profile: Profile, pg: Page) -> Result:
    """Spec: HostDiscard. Only U, V and clean P pages; clears the change bit (D6)."""
    if pg.resid not in ("r", "p"):
        return Refusal(f"page is {pg.name}: nothing to discard")
    if not DISCARDABLE[pg.usage, pg.dirty]:
        return Refusal(f"page is {pg.name}{' and dirty' if pg.dirty else ''}: not discardable")
    u = discard(profile.features, pg.usage).u
    return Effect(pg._replace(usage=u, resid="z", dirty=False, data=ZERO), "Done")


def host_page_in(pg: Page) -> Result:
    """Spec: HostPageIn. Preserved pages that are not unused (D8)."""
    if pg.resid != "p":
        return Refusal(f"page is {pg.name}: only a preserved page is paged in")
    if pg.usage == "U":
        return Refusal("page is Up: an unused page is not paged in (D8)")
    return Effect(pg._replace(resid="r", dirty=page_in_dirty(pg.dirty)), "Done")


def host_zero_fill(pg: Page) -> Result:
    """Spec: HostZeroFill. "Fresh zero frame on first touch" of Sz only (D8)."""
    if pg.resid != "z" or pg.usage != "S":
        return Refusal(f"page is {pg.name}: only an Sz page gets a zero frame")
    return Effect(pg._replace(resid="r", data=ZERO, dirty=False), "Done")


# --------------------------------------------------------------------------- the table

Action = Callable[[Profile, Page, int], Result]


def _primitive(op: str) -> Action:
    """Spec: SetStable(p) == Offered("S") /\\ ApplyPrimitive("SetStable", p, "S", "Done"), ..."""

    def action(profile: Profile, pg: Page, _arg: int) -> Result:
        target = PRIMITIVE_TARGET[op]
        if not offered(profile, target):
            return Refusal(f"variant {profile.variant} has no potentially volatile (P) usage")
        return apply_primitive(profile, pg, target, "Done")

    return action


#: Spec: Perform(op, p, v). Every operation by name; ``arg`` is used by Write only.
ACTIONS: Final[dict[str, Action]] = {
    **{op: _primitive(op) for op in PRIMITIVE_TARGET},
    "SetStableIfNotDiscarded": lambda pf, pg, _: set_stable_if_not_discarded(pf, pg),
    "Extract": lambda pf, pg, _: extract(pg),
    "Read": lambda pf, pg, _: read(pf, pg),
    "Write": write,
    "ClearDirty": lambda pf, pg, _: clear_dirty(pg),
    "HostPreserve": lambda pf, pg, _: host_preserve(pf, pg),
    "HostDiscard": lambda pf, pg, _: host_discard(pf, pg),
    "HostPageIn": lambda pf, pg, _: host_page_in(pg),
    "HostZeroFill": lambda pf, pg, _: host_zero_fill(pg),
}
