"""A counterexample as text a reader can follow, as the conformance tables show a run.

One row per state: the step, the action with its parameters and its outcome, and, for specs
built on the page-state machine (variables ``usage`` and ``resid`` over pages), every page in
the paper's two-letter notation (``Sr``, ``Vz`` ...; ``*`` = change bit set, as in the
conformance suite). Every other variable is shown in full under the first row, and under each
later row only where it changed (for a function, only the arguments whose value changed).

TLC names an action but not its parameters. They are taken from the spec's record of the last
operation (``lastOp``, kept by the page-state specs and ESSA.tla) only when that record changed
in the step, so it was this step that set it; otherwise the action stands alone rather than with
parameters that belong to an earlier step (specs without ``lastOp`` show only the action; what
it changed is in the rows and lines below it).
"""

from __future__ import annotations

from collections.abc import Mapping

from tlcrunner.tool_output import INITIAL_PREDICATE, TraceStep
from tlcrunner.tlavalues import ModelValue, Record, TlaValue, TlaValueError, parse_value

# lastOp fields that are parameters of the operation, in the order they are printed, and the
# values that mean "no such parameter".
_PARAMETERS = ("page", "guest", "cpu", "frame", "orc", "arg")
_ABSENT: frozenset[object] = frozenset({-1, ModelValue("NoPage"), "None", "none"})
_PAGE_VARS = ("usage", "resid", "dirty", "lastOp")


def _function(value: object) -> dict[TlaValue, TlaValue] | None:
    """``value`` if it is a TLA+ function (a dict that is not a record), else None."""
    return value if isinstance(value, dict) and not isinstance(value, Record) else None


def _one_line(value: str) -> str:
    # TLC wraps long values over indented lines; a reader wants them on one.
    return " ".join(part.strip() for part in value.splitlines())


def show(value: TlaValue) -> str:
    """A value compactly: strings without quotes, functions as ``(p1: S, p2: V)``."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return value
    if isinstance(value, ModelValue):  # a NamedTuple: before the tuple case
        return value.name
    if isinstance(value, Record):
        return "[" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "]"
    if (fun := _function(value)) is not None:
        return "(" + ", ".join(f"{show(k)}: {show(v)}" for k, v in _sorted(fun)) + ")"
    if isinstance(value, frozenset):
        return "{" + ", ".join(sorted(show(v) for v in value)) + "}"
    if isinstance(value, tuple):
        return "<<" + ", ".join(show(v) for v in value) + ">>"
    return str(value)


def _sorted(fun: Mapping[TlaValue, TlaValue]) -> list[tuple[TlaValue, TlaValue]]:
    return sorted(fun.items(), key=lambda kv: (len(show(kv[0])), show(kv[0])))


def _parsed(step: TraceStep) -> dict[str, TlaValue | str]:
    """Each variable's value, or its text on one line where the parser does not know the value
    (shown as is: strings are shown unquoted anyway)."""
    out: dict[str, TlaValue | str] = {}
    for name, text in step.state.items():
        try:
            out[name] = parse_value(text)
        except TlaValueError:
            out[name] = _one_line(text)
    return out


def _pages(states: list[dict[str, TlaValue | str]]) -> list[TlaValue] | None:
    """The pages, if every state has ``usage`` and ``resid`` as functions over the same pages."""
    keys: list[TlaValue] | None = None
    for s in states:
        usage, resid = _function(s.get("usage")), _function(s.get("resid"))
        if usage is None or resid is None:
            return None
        these = [k for k, _ in _sorted(usage)]
        if set(these) != set(resid) or (keys is not None and these != keys):
            return None
        keys = these
    return keys


def _changes(name: str, before: TlaValue | str | None, after: TlaValue | str) -> list[str]:
    """How ``name`` changed: nothing, its new value, or, for a function over the same domain,
    only the arguments whose value changed (``pc[<<c1, Proc>>] = MSWait``)."""
    if before == after:
        return []
    old, new = _function(before), _function(after)
    if old is not None and new is not None and set(old) == set(new):
        return [f"{name}[{show(k)}] = {show(v)}" for k, v in _sorted(new) if old[k] != v]
    return [f"{name} = {show(after)}"]


def _page_cell(state: Mapping[str, TlaValue | str], page: TlaValue) -> str:
    usage, resid = _function(state["usage"]), _function(state["resid"])
    dirty = _function(state.get("dirty")) or {}
    assert usage is not None and resid is not None  # _pages checked every state
    return f"{show(usage[page])}{show(resid[page])}" + ("*" if dirty.get(page) is True else "")


def _operation(
    step: TraceStep, state: Mapping[str, object], before: Mapping[str, object] | None
) -> tuple[str, str]:
    """The action with its parameters, and its outcome ("-" when the spec records none)."""
    action = "Init" if step.action == INITIAL_PREDICATE else step.action
    last = state.get("lastOp")
    if before is None or not isinstance(last, Record) or last == before.get("lastOp"):
        return action, "-"
    params = [
        (f"ORC {show(last[f])}" if f == "orc" else show(last[f]))
        for f in _PARAMETERS if f in last and last[f] not in _ABSENT
    ]  # fmt: skip
    op = show(last.get("op", action))
    # The record changed in this step, so this step set it: when the spec names the operation
    # differently from the action (GuestInstruction performing SetVolatile), both are shown.
    text = " ".join([action, *params]) if op == action else f"{action}: {' '.join([op, *params])}"
    outcome = show(last["outcome"]) if "outcome" in last else "-"
    if outcome == "Value" and "value" in last:
        outcome += f" {show(last['value'])}"
    return text, outcome


def format_trace(
    trace: list[TraceStep], back_to_state: int | None = None, stuttering: bool = False
) -> str:
    """The counterexample as a table (see the module's docstring); a liveness counterexample
    ends by saying how the behaviour goes on forever."""
    states = [_parsed(step) for step in trace]
    pages = _pages(states)
    shown_apart = set(_PAGE_VARS) if pages is not None else {"lastOp"}
    header = ["step", "operation", "outcome", *(show(p) for p in pages or [])]
    rows: list[list[str]] = []
    extra: list[list[str]] = []
    previous: dict[str, TlaValue | str] | None = None
    for step, state in zip(trace, states):
        op, outcome = _operation(step, state, previous)
        cells = [_page_cell(state, p) for p in pages] if pages is not None else []
        rows.append([str(step.index), op, outcome, *cells])
        extra.append([
            text
            for name, value in state.items()
            if name not in shown_apart
            for text in _changes(name, previous.get(name) if previous else None, value)
        ])  # fmt: skip
        previous = state
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        padded = [cells[0].rjust(widths[0]), *(c.ljust(w) for c, w in zip(cells[1:], widths[1:]))]
        return ("  " + "  ".join(padded)).rstrip()

    lines = [line(header)]
    for row, more in zip(rows, extra):
        lines.append(line(row))
        lines.extend(f"  {'':>{widths[0]}}    {text}" for text in more)
    if back_to_state is not None:
        lines.append(f"  then back to state {back_to_state}, and round that loop forever")
    elif stuttering:
        lines.append("  then nothing more happens, forever (stuttering)")
    return "\n".join(lines)

