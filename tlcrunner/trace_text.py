"""A counterexample as text a reader can follow: each step's action and only what it changed."""

from __future__ import annotations

from tlcrunner.tool_output import TraceStep


def _one_line(value: str) -> str:
    # TLC wraps long values over indented lines; a reader wants them on one.
    return " ".join(part.strip() for part in value.splitlines())


def format_trace(
    trace: list[TraceStep], back_to_state: int | None = None, stuttering: bool = False
) -> str:
    """The first state in full, then per step the action and the variables whose value changed;
    a liveness counterexample ends by saying how the behaviour goes on forever."""
    lines: list[str] = []
    previous: dict[str, str] = {}
    for step in trace:
        lines.append(f"  {step.index}: {step.action}")
        for name, value in step.state.items():
            if previous.get(name) != value:
                lines.append(f"       {name} = {_one_line(value)}")
        previous = step.state
    if back_to_state is not None:
        lines.append(f"  then back to state {back_to_state}, and round that loop forever")
    elif stuttering:
        lines.append("  then nothing more happens, forever (stuttering)")
    return "\n".join(lines)
