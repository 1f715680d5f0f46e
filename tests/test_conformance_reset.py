"""A divergence right after a reset: the report says so, names the programs the engine ran since
it started, and history.jsonl replays them so that the divergence reproduces on a fresh engine
(its trace.jsonl alone does not: the state that caused it survived a reset)."""

from __future__ import annotations

from pathlib import Path

from conformance.cli import build_parser
from conformance.driver import Drive, read_history, report, run_programs, save
from conformance.pagestates import PAGESTATES_DRIVER, Ask
from conformance.pagestates.engine import DEFAULT_REQUEST, ReferenceEngine
from conformance.pagestates.mode import Step


class ResetKeepsDirty(ReferenceEngine):
    """reset leaves each page's change bit as it was: state that survives a reset."""

    name = "ResetKeepsDirty"

    def reset(self) -> None:
        old = self.state
        super().reset()
        if old is not None and self.state is not None:
            pages = tuple(pg._replace(dirty=o.dirty) for pg, o in zip(self.state.pages, old.pages))
            self.state = self.state._replace(pages=pages)


def _drive(engine: ReferenceEngine) -> Drive:  # type: ignore[type-arg]
    _, profile = PAGESTATES_DRIVER.connect(engine, Ask(DEFAULT_REQUEST))
    return Drive(PAGESTATES_DRIVER, engine, profile)


ZERO_FILL, WRITE, READ = Step("HostZeroFill", 0, -1), Step("Write", 0, 1), Step("Read", 0, -1)


def test_the_report_says_reset_and_the_history_reproduces(tmp_path: Path) -> None:
    drive = _drive(ResetKeepsDirty())
    programs = [("a", [READ]), ("b", [ZERO_FILL, WRITE]), ("c", [READ])]
    outcome = run_programs(drive, programs, shrunk=True)
    assert outcome.status == "diverged"
    error = outcome.error
    assert len(error.steps) == 1 and error.steps[0].request == READ
    text = report(PAGESTATES_DRIVER, error, engine="ResetKeepsDirty")
    assert "RIGHT AFTER A RESET" in text and "HostZeroFill 0, Write 0" in text
    saved = save(PAGESTATES_DRIVER, tmp_path, text, error, "ResetKeepsDirty")
    history = saved.directory / "history.jsonl"
    assert history.is_file()
    args = build_parser().parse_args(["validate", "--machine", "PageStates", str(history)])
    replayed = read_history(PAGESTATES_DRIVER, history, args)
    assert replayed[-1] == [READ] and replayed[:2] == [[READ], [ZERO_FILL, WRITE]]
    # the saved trace alone passes on a fresh engine; the history reproduces the divergence
    alone = run_programs(_drive(ResetKeepsDirty()), [("trace", [READ])])
    assert alone.status == "passed"
    again = run_programs(_drive(ResetKeepsDirty()), [(str(n), p) for n, p in enumerate(replayed)])
    assert again.status == "diverged" and len(again.error.steps) == 1


def test_a_divergence_that_is_not_after_a_reset_gets_no_history(tmp_path: Path) -> None:
    from conformance.pagestates.mutants import DiscardsDirtyP

    drive = _drive(DiscardsDirtyP())
    steps = [ZERO_FILL, WRITE, Step("SetPotentialVolatile", 0, -1), Step("HostDiscard", 0, -1)]
    outcome = run_programs(drive, [("p", steps)])
    assert outcome.status == "diverged" and len(outcome.error.steps) > 1
    text = report(PAGESTATES_DRIVER, outcome.error, engine="m")
    assert "RIGHT AFTER A RESET" not in text
    saved = save(PAGESTATES_DRIVER, tmp_path, text, outcome.error, "m")
    assert not (saved.directory / "history.jsonl").exists()
