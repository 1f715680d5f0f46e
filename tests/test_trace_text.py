"""The counterexample printer: full first state, then only what each step changed."""

from __future__ import annotations

from tlcrunner.tool_output import TraceStep
from tlcrunner.trace_text import format_trace


def test_shows_first_state_then_only_changes() -> None:
    trace = [
        TraceStep(index=1, action="Initial predicate", label="Initial predicate",
                  state={"x": "0", "y": "<<1,\n   2>>"}),
        TraceStep(index=2, action="Inc", label="Inc line 5, col 1 to line 5, col 9 of module M",
                  state={"x": "1", "y": "<<1,\n   2>>"}),
    ]  # fmt: skip
    assert format_trace(trace).splitlines() == [
        "  1: Initial predicate",
        "       x = 0",
        "       y = <<1, 2>>",
        "  2: Inc",
        "       x = 1",
    ]


def test_liveness_counterexample_says_how_it_goes_on() -> None:
    trace = [TraceStep(index=1, action="Initial predicate", label="Initial predicate", state={"x": "0"})]
    assert format_trace(trace, back_to_state=1).splitlines()[-1] == (
        "  then back to state 1, and round that loop forever"
    )
    assert format_trace(trace, stuttering=True).splitlines()[-1] == (
        "  then nothing more happens, forever (stuttering)"
    )
