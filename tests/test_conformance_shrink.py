"""Shrinking reaches a 1-minimal trace: no single step of a reported divergence can be removed
with the rest still diverging the same way. Two planted bugs: the third Write since the reset
answered wrong (a 5-step program of which 3 steps diverge) and the fifth (6 of which 5 do)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.driver import Divergence, Drive, _failure, _fails, minimise, run_hypothesis, shrink
from conformance.pagestates import PAGESTATES_DRIVER, Ask
from conformance.pagestates.engine import DEFAULT_REQUEST
from conformance.pagestates.mode import Step
from conformance.pagestates.mutants import Mutant, _set
from refimpl import Refused, State


class NthWriteAnswersValue(Mutant):
    """The ``nth`` Write since the reset answers like a Read of zero (a counter the reset
    clears, kept beside the page states)."""

    breaks = "Write"
    nth = 3

    def reset(self) -> None:
        super().reset()
        self.writes = 0

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        if op == "Write":
            self.writes = getattr(self, "writes", 0) + 1
            if self.writes == self.nth:
                return _set(state, op, page, arg, state.pages[page], "Value", 0)
        return self._spec(state, op, page, arg)


class FifthWriteAnswersValue(NthWriteAnswersValue):
    nth = 5


W, R = Step("Write", 0, 1), Step("Read", 1, -1)


def _drive(engine: Any) -> Drive[Any, Any, Any, Any]:
    _, profile = PAGESTATES_DRIVER.connect(engine, Ask(DEFAULT_REQUEST))
    return Drive(PAGESTATES_DRIVER, engine, profile)


def one_minimal(drive: Drive[Any, Any, Any, Any], error: Divergence) -> bool:
    same = _failure(error)
    program = [s.request for s in error.steps]
    return _fails(drive, program, same) is not None and not any(
        _fails(drive, program[:i] + program[i + 1:], same) for i in range(len(program)))


@pytest.mark.parametrize(("engine", "program", "minimal"), [
    (NthWriteAnswersValue, [W, R, W, R, W], 3),
    (FifthWriteAnswersValue, [W, W, R, W, W, W], 5),
])  # fmt: skip
def test_a_found_program_is_shrunk_to_a_1_minimal_one(engine: type, program: list[Step], minimal: int) -> None:
    drive = _drive(engine())
    with pytest.raises(Divergence) as found:
        drive.run(program)
    assert len(found.value.steps) == len(program)
    shrunk = minimise(drive, found.value)
    assert shrunk is not None and len(shrunk.steps) == minimal
    assert all(s.request == W for s in shrunk.steps) and one_minimal(drive, shrunk)
    assert shrink(drive, program, _failure(found.value)) == [W] * minimal


@pytest.mark.parametrize(("engine", "minimal"), [(NthWriteAnswersValue, 3), (FifthWriteAnswersValue, 5)])
def test_hypothesis_reports_a_1_minimal_trace(engine: type, minimal: int) -> None:
    drive = _drive(engine())
    outcome = run_hypothesis(drive, examples=200, max_steps=12, seed=0)
    assert outcome.status == "diverged", outcome.note
    assert len(outcome.error.steps) == minimal and one_minimal(drive, outcome.error)
