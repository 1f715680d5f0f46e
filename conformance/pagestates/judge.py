"""Naming the rule an engine broke.

When an engine's reply differs from the oracle's, :func:`judge` builds the state the engine
claims to be in (its reported page state and change bit, the content it revealed, and the
oracle's ghost variables: what the guest is owed) and evaluates the spec's properties
(:mod:`refimpl.pagestates.properties`, the names of spec/PageStateProperties.tla) on the step from the state
before to that claimed state. A violated property is the rule broken. A divergence no property
sees at once (a refused host action, a wrong Extract, a lost change bit) is attributed to the
spec action whose definition it departs from, with the decision of docs/decisions.md behind it,
and :func:`consequence` searches a few steps ahead from the claimed state for the property the
departure would go on to break.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from refimpl import Machine, Profile, Refused, State
from refimpl.pagestates.profile import NO_VALUE, ZERO
from refimpl.pagestates.properties import ACTION_PROPERTIES, INVARIANTS, VARIANT_STATES
from refimpl.pagestates.state import LastOp, Page, show_last_op

from ..protocol import REFUSED, Reply, variant_has_state

#: Spec actions: what each does, in a line, with the decisions (docs/decisions.md) behind it.
ACTION_RULES: Final[dict[str, str]] = {
    "SetStable": "the page becomes stable; residency is unchanged; "
    "on Vz/Pz it becomes Sz (ApplyPrimitive, D3, D5)",
    "SetUnused": "the page becomes unused; with a host service a preserved page's backing "
    "is freed at once (Up -> Uz) (ApplyPrimitive, D3)",
    "SetVolatile": "the page becomes volatile; with a host service a preserved page is "
    "discarded at once (Vz); on a zero page Vz (ApplyPrimitive, D3, D4)",
    "SetPotentialVolatile": "the page becomes potentially volatile; with a host service a clean "
    "preserved page is discarded at once; on a zero page Pz (ApplyPrimitive, D3, D4, D7)",
    "SetStableIfNotDiscarded": "one atomic step: Failure and no change on Vz/Pz, else as "
    "SetStable with outcome Success (D5, D17)",
    "Extract": "reports the page's two-letter state as its outcome, and changes nothing (D15)",
    "Read": "a resident page returns its content; Vz/Pz raise a discard fault; an unused page "
    "gives the profile's UnusedAccess answer; any other page waits for the host: refused "
    "(AccessOutcome, D9, D12)",
    "Write": "a store to a resident page that is not unused sets the content and the change "
    "bit; Vz/Pz raise a discard fault; an unused page gives the profile's answer (Ignored "
    "under ReadsZero); any other page waits for the host: refused (D9, D12, D13)",
    "ClearDirty": "the guest wrote the page back: clears the change bit of a dirty page; "
    "refused on a clean page (D7)",
    "HostPreserve": "pages out a resident page into a preserved state this machine has; a dirty "
    "P page without Pp becomes Sp; a page with no preserved state is refused (D14)",
    "HostDiscard": "drops the content of a resident or preserved U, V or clean P page: it "
    "becomes logically zero and clean; any other page is refused (Discardable, D6)",
    "HostPageIn": "brings a preserved page that is not unused back, keeping its change bit "
    "(PageInDirty, D6, D8)",
    "HostZeroFill": "gives an Sz page a fresh zero frame: Sr, clean, content 0 (D6, D8)",
}

#: Where the change bit comes from, per action: what a wrong ``dirty`` departs from.
DIRTY_RULES: Final[dict[str, str]] = {
    "HostPageIn": "the change bit survives paging (PageInDirty, D6); without it a modified P "
    "page looks clean and may be discarded (StableContentKeptInv)",
    "HostPreserve": "the change bit survives paging (D6)",
    "HostDiscard": "a discard clears the change bit (D6)",
    "HostZeroFill": "a fresh zero frame is clean (D6)",
    "Write": "a store sets the change bit (D13)",
    "ClearDirty": "only ClearDirty clears the change bit of a page that keeps its content (D7)",
}

_DISCARDED = ("Vz", "Pz")


def _describe(pg: Page) -> str:
    return pg.name + (" (dirty)" if pg.dirty else "")


def _owed(v: int) -> str:
    return "nothing" if v == NO_VALUE else str(v)


# --------------------------------------------------------------------------- per property


def _explain_type_ok(profile: Profile, s: State, t: State) -> str:
    lo = t.lastOp
    if lo.value != NO_VALUE and lo.value not in profile.values:
        return f"{lo.op} returned {lo.value}, a value the guest never wrote (Values = {set(profile.values)})"
    pg = t.pages[lo.page]
    return f"page {lo.page} holds {pg.data}, outside Values = {set(profile.values)}"


def _explain_variant_states(profile: Profile, s: State, t: State) -> str:
    for p, pg in enumerate(t.pages):
        if pg.name not in VARIANT_STATES[profile.variant]:
            return f"page {p} is {pg.name}, a state the {profile.variant} machine does not have"
    return "a page left its machine's states"


def _explain_stable_content(profile: Profile, s: State, t: State) -> str:
    for p, pg in enumerate(t.pages):
        if pg.intended == NO_VALUE or not (pg.usage == "S" or (pg.usage == "P" and pg.modified)):
            continue
        held = ZERO if pg.resid == "z" else pg.data
        if held != pg.intended:
            what = "a stable page" if pg.usage == "S" else "a P page the guest modified"
            now = "is logically zero" if pg.resid == "z" else f"holds {held}"
            return (
                f"page {p} is {pg.name}, {what}: the guest is owed {pg.intended} but it {now}"
            )
    return "stable content lost"


def _explain_read_result(profile: Profile, s: State, t: State) -> str:
    lo = t.lastOp
    pg = t.pages[lo.page]
    if pg.name in _DISCARDED:
        return f"a Read of page {lo.page}, which is {pg.name} (discarded), returned {lo.value}, not a discard fault"
    return f"a Read of page {lo.page} ({pg.name}) returned {lo.value}; the guest is owed {_owed(pg.intended)}"


def _explain_discard_fault(profile: Profile, s: State, t: State) -> str:
    lo = t.lastOp
    return (
        f"{lo.op} of page {lo.page} raised a discard fault, but the page is "
        f"{t.pages[lo.page].name}, not discarded (Vz/Pz)"
    )


def _explain_unused(profile: Profile, s: State, t: State) -> str:
    lo = t.lastOp
    if profile.unused_access == "AddressingException":
        want = "an addressing exception"
    else:
        want = "Value 0" if lo.op == "Read" else "Ignored (the store is dropped)"
    got = f"Value {lo.value}" if lo.outcome == "Value" else lo.outcome
    leak = " (stale content leaked)" if lo.outcome == "Value" and lo.value != 0 else ""
    return (
        f"{lo.op} of unused page {lo.page} ({t.pages[lo.page].name}) gave {got}{leak}; "
        f"UnusedAccess = {profile.unused_access} requires {want}"
    )


def _explain_ssind(profile: Profile, s: State, t: State) -> str:
    lo = t.lastOp
    before, after = s.pages[lo.page], t.pages[lo.page]
    was_discarded = before.name in _DISCARDED
    if lo.outcome == "Success" and was_discarded:
        return f"SetStableIfNotDiscarded succeeded on page {lo.page}, which was {before.name} (discarded)"
    if lo.outcome != "Success" and not was_discarded:
        return f"SetStableIfNotDiscarded failed on page {lo.page}, which was {before.name}, not discarded"
    if after.usage != "S":
        return f"SetStableIfNotDiscarded succeeded but left page {lo.page} {after.name}, not stable"
    return f"SetStableIfNotDiscarded changed the content of page {lo.page}"


def _explain_discard(profile: Profile, s: State, t: State) -> str:
    lo = t.lastOp
    for p, (b, a) in enumerate(zip(s.pages, t.pages)):
        if b.resid in ("r", "p") and a.resid == "z":
            if b.usage == "P":
                what = "a dirty P page"
            elif b.usage == "S":
                what = "a stable page"
            else:
                what = f"a {b.usage} page"
            who = "the host" if lo.op.startswith("Host") else f"{lo.op} (a guest call)"
            other = "" if p == lo.page else f" while performing it on page {lo.page}"
            return f"{who} discarded {what}: page {p} went from {_describe(b)} to {a.name}{other}"
    return "content dropped"


_FIELD_NAMES: Final = {"resid": "residency", "usage": "usage"}


def _explain_page_change(s: State, t: State, attr: str, actor: str, rule: str) -> str:
    """The first page whose ``attr`` the step changed, by whom, and the rule that forbids it."""
    what = _FIELD_NAMES[attr]
    for p, (b, a) in enumerate(zip(s.pages, t.pages)):
        if getattr(b, attr) != getattr(a, attr):
            return (
                f"{actor}'s {t.lastOp.op} changed page {p}'s {what} from {getattr(b, attr)} to "
                f"{getattr(a, attr)} ({_describe(b)} -> {a.name}); {rule}"
            )
    return f"a step of {actor} changed a page's {what}"


def _explain_residency(profile: Profile, s: State, t: State) -> str:
    return _explain_page_change(s, t, "resid", "the guest", "only the host sets residency")


def _explain_primitive_usage(profile: Profile, s: State, t: State) -> str:
    lo = t.lastOp
    asked = {"SetStable": "S", "SetUnused": "U", "SetVolatile": "V", "SetPotentialVolatile": "P"}[lo.op]
    return (
        f"{lo.op} of page {lo.page} left it {t.pages[lo.page].name}: the primitive sets the usage to "
        f"{asked}" + (" (or V or S by an implicit transition)" if asked == "P" else "")
    )


def _explain_host_usage(profile: Profile, s: State, t: State) -> str:
    return _explain_page_change(
        s, t, "usage", "the host",
        f"the usage is the guest's, and the {profile.variant} machine names no implicit "
        "transition for this step",
    )  # fmt: skip


def _explain_extract(profile: Profile, s: State, t: State) -> str:
    lo = t.lastOp
    b = s.pages[lo.page]
    if lo.outcome != b.usage + b.resid:
        return f"Extract of page {lo.page} reported {lo.outcome!r}, but the page was {b.name}"
    return f"Extract of page {lo.page} changed the machine: it only reports the page's state"


def _explain_outcome(profile: Profile, s: State, t: State) -> str:
    lo = t.lastOp
    if lo.outcome == "None":
        return f"{lo.op} answered 'None': every step answers the guest ('None' is no answer)"
    if lo.op == "SetStableIfNotDiscarded":
        return f"SetStableIfNotDiscarded answered {lo.outcome!r}: it answers Success or Failure"
    return (
        f"{lo.op} answered {lo.outcome!r}, not 'Done': it is performed without a condition and "
        "cannot fail; only SetStableIfNotDiscarded answers Success or Failure"
    )


_Explain = Callable[[Profile, State, State], str]
EXPLAIN: Final[dict[str, _Explain]] = {
    "TypeOK": _explain_type_ok,
    "VariantStatesInv": _explain_variant_states,
    "StableContentKeptInv": _explain_stable_content,
    "ReadResultInv": _explain_read_result,
    "DiscardFaultOnlyWhenDiscardedInv": _explain_discard_fault,
    "UnusedAccessInv": _explain_unused,
    "PrimitiveOutcomeInv": _explain_outcome,
    "PrimitiveSetsUsageProp": _explain_primitive_usage,
    "SetStableIfNotDiscardedProp": _explain_ssind,
    "HostDiscardsOnlyDiscardableProp": _explain_discard,
    "GuestKeepsResidencyProp": _explain_residency,
    "HostKeepsUsageProp": _explain_host_usage,
    "ExtractReportsStateProp": _explain_extract,
}


def violated(profile: Profile, before: State, after: State) -> list[str]:
    """Every property of spec/PageStateProperties.tla the step ``before -> after`` breaks:
    TypeOK first, then the action properties, the invariants on the step's observation, and
    StableContentKeptInv (the state) last."""
    names = [n for n, inv in INVARIANTS.items() if not inv(profile, after)]
    names += [n for n, prop in ACTION_PROPERTIES.items() if not prop(profile, before, after)]
    # The step's own observation first (what the engine did), the state it leaves last.
    order = ["TypeOK", *ACTION_PROPERTIES, *(n for n in INVARIANTS if n not in ("TypeOK", "StableContentKeptInv")), "StableContentKeptInv"]
    return sorted(names, key=order.index)


# --------------------------------------------------------------------------- the verdict


@dataclass(frozen=True)
class Verdict:
    """Which rule a divergence breaks, and how it shows.

    ``rule`` is a property name (``kind == "property"``), a spec action (``"action"``), or
    ``HasState`` (``"variant"``: a state the engine's declared variant does not have).
    ``differences`` lists each field where the engine departs from the spec.
    """

    rule: str
    kind: str
    explanation: str
    properties: tuple[str, ...]
    differences: tuple[str, ...]
    claimed: State | None
    consequence: str = field(default="", compare=False)

    @property
    def headline(self) -> str:
        return f"{self.rule}: {self.explanation}"


def claimed_state(
    before: State, op: str, page: int, arg: int, expected: State | Refused, reply: Reply
) -> State | None:
    """The state the engine claims after the step, or None if it refused it (no step).

    Other pages are as before (every action of the spec changes one page). Content: what a Read
    revealed or a Write stored, else what the spec's page holds. Ghosts (``intended``,
    ``modified``): the oracle's, i.e. what the guest is owed after making this request, except
    that a store the engine did not perform owes nothing new.
    """
    if reply.outcome == REFUSED:
        return None
    spec_after = expected if isinstance(expected, State) else before
    b, e = before.pages[page], spec_after.pages[page]
    u, r = reply.state[0], reply.state[1]
    if r == "z":
        data = ZERO
    elif op == "Read" and reply.outcome == "Value":
        data = reply.value
    elif op == "Write" and reply.outcome == "Done":
        data = arg
    elif e.resid != "z":
        data = e.data
    else:
        data = b.data if b.resid != "z" else ZERO
    if op == "Write":
        stored = reply.outcome == "Done"
        intended = arg if stored else b.intended
        modified = True if stored else b.modified
    elif op == "ClearDirty":
        intended, modified = e.intended, False
    else:
        intended, modified = e.intended, e.modified
    pg = Page(u, r, reply.dirty, data, intended, modified, e.requested)
    pages = before.pages[:page] + (pg,) + before.pages[page + 1 :]
    return State(pages, LastOp(op, page, arg, reply.outcome, reply.value))


def _show_reply(reply: Reply) -> str:
    if reply.outcome == REFUSED:
        return "refused"
    return f"{reply.outcome} {reply.value}" if reply.outcome == "Value" else reply.outcome


def _differences(
    before: State, page: int, expected: State | Refused, reply: Reply
) -> list[str]:
    if isinstance(expected, Refused):
        if reply.outcome != REFUSED:
            return [f"the spec has no such step here ({expected.reason}); the engine performed it: {_show_reply(reply)}"]
        spec_pg = before.pages[page]
        out: list[str] = []
    else:
        spec_pg = expected.pages[page]
        lo = expected.lastOp
        if reply.outcome == REFUSED:
            return [f"the spec performs it ({show_last_op(lo)}); the engine refused it"
                    + (f" ({reply.reason})" if reply.reason else "")]
        out = []
        if reply.outcome != lo.outcome:
            out.append(f"outcome: spec {lo.outcome}, engine {reply.outcome}")
        elif reply.value != lo.value:
            out.append(f"value: spec {lo.value}, engine {reply.value}")
    if reply.state != spec_pg.name:
        out.append(f"state: spec {spec_pg.name}, engine {reply.state}")
    if reply.dirty != spec_pg.dirty:
        out.append(f"dirty: spec {str(spec_pg.dirty).lower()}, engine {str(reply.dirty).lower()}")
    return out


def judge(
    profile: Profile,
    before: State,
    op: str,
    page: int,
    arg: int,
    expected: State | Refused,
    reply: Reply,
) -> Verdict:
    """The rule an engine broke when it answered ``reply`` where the spec says ``expected``."""
    diffs = tuple(_differences(before, page, expected, reply))
    claimed = claimed_state(before, op, page, arg, expected, reply)
    b = before.pages[page]
    if claimed is not None:
        names = violated(profile, before, claimed)
        if names:
            first = names[0]
            return Verdict(first, "property", EXPLAIN[first](profile, before, claimed),
                           tuple(names), diffs, claimed)  # fmt: skip
        if not variant_has_state(profile.variant, reply.state):
            return Verdict(
                "HasState", "variant",
                f"{op} on page {page} ({_describe(b)}) gave {reply.state}, a state variant "
                f"{profile.variant} does not have", (), diffs, claimed,
            )  # fmt: skip
    if isinstance(expected, Refused):
        text = (
            f"{op} is not a step of the spec on page {page} ({_describe(b)}): {expected.reason}; "
            f"the engine performed it ({_show_reply(reply)}, now {reply.state})"
        )
    elif reply.outcome == REFUSED:
        text = (
            f"the spec allows {op} on page {page} ({_describe(b)}), the engine refused it "
            f"— {ACTION_RULES[op]}"
        )
    else:
        dirty_only = all(d.startswith("dirty:") for d in diffs)
        rule = DIRTY_RULES.get(op, ACTION_RULES[op]) if dirty_only else ACTION_RULES[op]
        text = f"{op} on page {page} ({_describe(b)}): {'; '.join(diffs)} — {rule}"
    return Verdict(op, "action", text, (), diffs, claimed)


# --------------------------------------------------------------------------- consequences


def consequence(profile: Profile, claimed: State, page: int, depth: int = 4) -> str:
    """The shortest continuation (steps the spec allows from the engine's claimed state, on the
    divergent page, at most ``depth``) that breaks a property, in words; "" if none does.

    This is how a departure no property sees at once (a lost change bit) is tied to the property
    it endangers (the modified page is then discarded: StableContentKeptInv)."""
    machine = Machine(profile)
    start = claimed
    seen = {start}
    queue: deque[tuple[State, tuple[str, ...]]] = deque([(start, ())])
    while queue:
        state, path = queue.popleft()
        if len(path) >= depth:
            continue
        for (op, p, arg), nxt in machine.enabled_steps(state):
            if p != page:
                continue
            names = violated(profile, state, nxt)
            step_text = show_last_op(nxt.lastOp)
            if names:
                steps = ", then ".join((*path, step_text))
                return (
                    f"from the engine's state, {steps} (steps the spec then allows) breaks "
                    f"{names[0]}: {EXPLAIN[names[0]](profile, state, nxt)}"
                )
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, (*path, step_text)))
    return ""
