"""The counterexample printer: a table as the conformance suite prints runs; pages as two
letters, each action with its parameters, other variables in full once and then where changed."""

from __future__ import annotations

from tlcrunner.tool_output import TraceStep
from tlcrunner.trace_text import format_trace

LABEL = "{} line 5, col 1 to line 5, col 9 of module M"


def _step(i: int, action: str, **state: str) -> TraceStep:
    label = "Initial predicate" if i == 1 else LABEL.format(action)
    return TraceStep(index=i, action=action, label=label, state=state)


def _page_state(usage: str, resid: str, dirty: tuple[str, str], op: str, page: str, outcome: str,
                value: int = -1, arg: int = -1, data: int = 1) -> dict[str, str]:  # fmt: skip
    return {
        "usage": f'(p1 :> "{usage[0]}" @@ p2 :> "{usage[1]}")',
        "resid": f'(p1 :> "{resid[0]}" @@ p2 :> "{resid[1]}")',
        "dirty": f"(p1 :> {dirty[0]} @@ p2 :> {dirty[1]})",
        "lastOp": f'[value |-> {value}, page |-> {page}, op |-> "{op}", arg |-> {arg},\n'
                  f'    outcome |-> "{outcome}"]',
        "data": f"(p1 :> {data} @@ p2 :> 0)",
    }  # fmt: skip


def test_page_state_trace_is_a_table_of_two_letter_states() -> None:
    f, t = "FALSE", "TRUE"
    trace = [
        _step(1, "Initial predicate", **_page_state("SS", "zz", (f, f), "Init", "NoPage", "None", data=0)),
        _step(2, "Write", **_page_state("SS", "rz", (t, f), "Write", "p1", "Done", arg=1)),
        _step(3, "Read", **_page_state("SS", "rz", (t, f), "Read", "p1", "Value", value=1)),
        # lastOp unchanged: this step did not set it, so it gets no parameters from it.
        _step(4, "HostTick", **_page_state("SS", "rz", (t, f), "Read", "p1", "Value", value=1)),
        _step(5, "GuestInstruction", **_page_state("VS", "rz", (t, f), "SetVolatile", "p2", "Done")),
    ]  # fmt: skip
    assert format_trace(trace).splitlines() == [
        "  step  operation                         outcome  p1   p2",
        "     1  Init                              -        Sz   Sz",
        "          data = (p1: 0, p2: 0)",
        "     2  Write p1 1                        Done     Sr*  Sz",
        "          data[p1] = 1",  # a function: only the arguments that changed
        "     3  Read p1                           Value 1  Sr*  Sz",
        "     4  HostTick                          -        Sr*  Sz",
        "     5  GuestInstruction: SetVolatile p2  Done     Vr*  Sz",
    ]


def test_other_specs_show_the_first_state_then_only_changes() -> None:
    trace = [
        _step(1, "Initial predicate", x="0", y="<<1,\n   2>>", s='{"a", "b"}'),
        _step(2, "Inc", x="1", y="<<1,\n   2>>", s='{"a", "b"}'),
        _step(3, "Odd", x="1", y="<<1, 2>>", s="not a TLA+ value («»)"),
    ]  # fmt: skip
    assert format_trace(trace).splitlines() == [
        "  step  operation  outcome",
        "     1  Init       -",
        "          x = 0",
        "          y = <<1, 2>>",
        "          s = {a, b}",
        "     2  Inc        -",
        "          x = 1",
        "     3  Odd        -",
        "          s = not a TLA+ value («»)",
    ]


def test_liveness_counterexample_says_how_it_goes_on() -> None:
    trace = [_step(1, "Initial predicate", x="0")]
    assert format_trace(trace, back_to_state=1).splitlines()[-1] == (
        "  then back to state 1, and round that loop forever"
    )
    assert format_trace(trace, stuttering=True).splitlines()[-1] == (
        "  then nothing more happens, forever (stuttering)"
    )
