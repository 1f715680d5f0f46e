"""Pipelining (PROTOCOL.md, "Pipelining"; D163): a JSON-lines engine is sent requests ahead of
the replies the driver judges, and nothing the driver reports may depend on it. A pipelined and
a lock-step run of every shipped mutant behind JSON lines give the same verdict, report and
trace; a divergence, a hang or a crash in the middle of a window is reported at its step; the
replies in flight after a divergence are dropped, never judged against the next program."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.search import run_machine
from conformance.driver import (
    Divergence, Drive, Fault, Outcome, report, run_programs, write_trace,
)  # fmt: skip
from conformance.essa import ESSA_DRIVER, EssaJsonLinesEngine
from conformance.essa.mutants import ESSA_MUTANTS
from conformance.jsonlines import DEFAULT_WINDOW, JsonLinesEngine
from conformance.machines import Mode
from conformance.pagestates.mutants import MUTANTS
from conformance.pagestates import PAGESTATES_DRIVER, Ask, PageStatesAdapter, Step
from conformance.protocol import ProfileRequest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "conformance"
SERVE = [sys.executable, str(FIXTURES / "serve_engine.py")]
BAD_ENGINE = [sys.executable, str(FIXTURES / "bad_engine.py")]
WINDOWS = (1, DEFAULT_WINDOW)


def _served(mode: Mode, mutant: type, window: int) -> Any:
    command = [*SERVE, mode.name, f"{mutant.__module__}:{mutant.__name__}"]
    if mode is ESSA_DRIVER:
        return EssaJsonLinesEngine(command, window=window)
    return PageStatesAdapter(JsonLinesEngine(command, window=window))


def _found(mode: Mode, o: Outcome, where: Path) -> tuple[object, ...]:
    """Everything a run reports: the verdict, the drive, the note, the steps, the report and
    the saved trace (JSON lines and ITF)."""
    if o.error is None:
        return o.status, o.drive, o.note, o.steps
    where.mkdir(parents=True)
    jsonl, itf = write_trace(mode, where, o.error.profile, o.error.steps, {"engine": "e"})
    return (o.status, o.drive, o.note, o.steps, report(mode, o.error, engine="e"),
            jsonl.read_text(), itf.read_text())  # fmt: skip


def _same_either_way(mode: Mode, mutant: type, profiles: list[Any], tmp_path: Path,
                     tour: bool = True, hypothesis: bool = True) -> Outcome:  # fmt: skip
    examples, steps = mode.sizes["quick"]
    found, outcomes = [], []
    for window in WINDOWS:
        engine = _served(mode, mutant, window)
        try:
            o = run_machine(mode, engine, profiles, tour=tour, examples=examples if hypothesis
                            else 0, max_steps=steps, seed=0)[-1]  # fmt: skip
        finally:
            engine.close()
        outcomes.append(o)
        found.append(_found(mode, o, tmp_path / f"window{window}"))
    assert found[0] == found[1]
    return outcomes[1]


@pytest.mark.parametrize("mutant", ESSA_MUTANTS, ids=lambda m: m.__name__)
def test_an_essa_mutant_gets_the_same_report_pipelined(mutant: type, tmp_path: Path) -> None:
    # The profile and the drive that kill it in process (run's default settings), then that
    # drive alone over JSON lines, in lock-step and pipelined (a tour that passes first would
    # take minutes through a Python server, and tell nothing more).
    examples, steps = ESSA_DRIVER.sizes["quick"]
    killed = run_machine(ESSA_DRIVER, mutant(), ESSA_DRIVER.mutant_profiles(mutant),
                         examples=examples, max_steps=steps, seed=0)[-1]  # fmt: skip
    assert killed.status == "diverged"
    o = _same_either_way(ESSA_DRIVER, mutant, [killed.profile], tmp_path,
                         tour=killed.drive == "tour", hypothesis=killed.drive == "hypothesis")
    assert o.status == "diverged"
    assert report(ESSA_DRIVER, o.error, engine="e") == report(ESSA_DRIVER, killed.error, engine="e")


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.__name__)
def test_a_pagestates_mutant_gets_the_same_report_pipelined(mutant: type, tmp_path: Path) -> None:
    o = _same_either_way(PAGESTATES_DRIVER, mutant, PAGESTATES_DRIVER.mutant_profiles(mutant),
                         tmp_path)  # fmt: skip
    assert PAGESTATES_DRIVER.kills(mutant, o)


def _drive(command: list[str], window: int, timeout: float = 5.0) -> tuple[Any, Drive[Any, Any, Any, Any]]:
    engine = PageStatesAdapter(JsonLinesEngine(command, timeout=timeout, window=window))
    _, profile = PAGESTATES_DRIVER.connect(engine, Ask(ProfileRequest()))
    return engine, Drive(PAGESTATES_DRIVER, engine, profile)


#: Ten steps that every profile allows, none refused: the page fills and empties.
PROGRAM = [Step("HostZeroFill", 0), Step("Write", 0, 1), Step("Read", 0), Step("SetVolatile", 0),
           Step("Extract", 0), Step("SetStable", 0), Step("Write", 0, 2), Step("Read", 0),
           Step("HostPreserve", 0), Step("HostPageIn", 0)]  # fmt: skip


@pytest.mark.parametrize("window", WINDOWS)
def test_a_divergence_in_the_middle_of_a_window_is_reported_at_its_step(window: int) -> None:
    engine, drive = _drive([*SERVE, "PageStates", "conformance.pagestates.engine:ReferenceEngine", "4", "0"],
                           window)  # fmt: skip
    try:
        with pytest.raises(Divergence) as caught:
            drive.run(PROGRAM)
        assert [r.index for r in caught.value.steps] == [1, 2, 3, 4]
        assert caught.value.steps[-1].differs == ["dirty"]
        # The same engine, the next program: the six replies in flight after step 4 were read
        # and dropped, so this program's replies are its own (a stale one would diverge).
        drive.run(list(reversed(PROGRAM[:3])) + PROGRAM)
        assert drive.engine.engine.dropped_faults == []
    finally:
        engine.close()


@pytest.mark.parametrize("window", WINDOWS)
def test_a_failure_on_a_request_sent_ahead_of_a_divergence_is_not_judged(window: int) -> None:
    # Step 4 diverges and step 6 crashes the engine: lock-step never sends step 6, the
    # pipelined driver has; the verdict is the divergence either way, and the next program runs
    # on the engine restarted with its hello.
    engine, drive = _drive([*SERVE, "PageStates", "conformance.pagestates.engine:ReferenceEngine", "4", "6"],
                           window)  # fmt: skip
    try:
        with pytest.raises(Divergence) as caught:
            drive.run(PROGRAM)
        assert len(caught.value.steps) == 4
        drive.run(PROGRAM[:1])  # (lock-step: the engine's step 5, which it answers)
        dropped = drive.engine.engine.dropped_faults
        assert [f.kind for f in dropped] == ([] if window == 1 else ["crash"])
    finally:
        engine.close()


@pytest.mark.parametrize(("mode", "kind", "timeout"), [("hang", "hang", 3.0), ("crash", "crash", 5.0),
                                                       ("malformed", "malformed", 5.0)])
@pytest.mark.parametrize("window", WINDOWS)
def test_a_fault_in_the_middle_of_a_window_is_reported_at_its_step(mode: str, kind: str,
                                                                   timeout: float, window: int) -> None:  # fmt: skip
    engine, drive = _drive([*BAD_ENGINE, mode, "5"], window, timeout)
    try:
        outcome = run_programs(drive, [("ten steps", PROGRAM)])
    finally:
        engine.close()
    err = outcome.error
    assert isinstance(err, Fault) and err.fault.kind == kind
    assert err.where == "step 5 (Extract 0)"
    assert [r.observed is not None for r in err.steps] == [True] * 4 + [False]


def test_extra_output_between_two_programs_is_the_earlier_steps() -> None:
    # The engine writes a line after its reply to step 1 of the first program; the pipelined
    # driver has sent the second program already and reads that line where the reset's reply
    # is due: the line after it is the reset's, so the fault is step 1's, as lock-step says.
    for window in WINDOWS:
        engine, drive = _drive([*BAD_ENGINE, "extra", "1"], window)
        try:
            outcome = run_programs(drive, [("first", PROGRAM[:1]), ("second", PROGRAM)])
        finally:
            engine.close()
        err = outcome.error
        assert isinstance(err, Fault) and err.fault.kind == "extra output", (window, err)
        assert err.where == "step 1 (HostZeroFill 0)" and outcome.note == "first"
        assert "more than one line for one request" in err.fault.message


def test_the_window_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        JsonLinesEngine("true", window=0)


def test_run_takes_the_window_and_refuses_a_window_below_one(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.c_engine import ensure_built
    from conformance.cli import EXIT_OK, main

    with pytest.raises(SystemExit) as stopped:
        main(["run", "--engine", "true", "--window", "0"])
    assert stopped.value.code == 2 and "a positive number of requests" in capsys.readouterr().err
    for window in ("1", "7"):
        code = main(["run", "--engine", str(ensure_built()), "--window", window, "--no-database",
                     "--quiet", "--examples", "5", "--seed", "0"])  # fmt: skip
        assert code == EXIT_OK and "conforms" in capsys.readouterr().out
