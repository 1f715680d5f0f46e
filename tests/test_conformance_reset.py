"""A divergence right after a reset: the report says so, names the programs the engine ran since
it started, and history.jsonl replays them so that the divergence reproduces on a fresh engine
(its trace.jsonl alone does not: the state that caused it survived a reset); the report's printed
``replay:`` command (``validate --engine ... history.jsonl``) is that replay."""

from __future__ import annotations

import io
import shlex
import textwrap
from pathlib import Path

import pytest

from conformance.cli import build_parser, main
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
    _, recorded = read_history(PAGESTATES_DRIVER, history, args)
    replayed = [requests for requests, _ in recorded]
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


BUG_MODULE = """
from conformance.pagestates.engine import ReferenceEngine
from conformance.protocol import Unsupported


class RunsNoProfile(ReferenceEngine):
    def hello(self, request):
        raise Unsupported("this engine runs no profile")


class ResetKeepsDirty(ReferenceEngine):
    name = "ResetKeepsDirty"

    def reset(self):
        old = self.state
        super().reset()
        if old is not None and self.state is not None:
            pages = tuple(pg._replace(dirty=o.dirty) for pg, o in zip(self.state.pages, old.pages))
            self.state = self.state._replace(pages=pages)
"""


def _cli(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    return main(argv, out=out, err_out=out), out.getvalue()


@pytest.fixture
def bugs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The module ``resetbug`` (:data:`BUG_MODULE`) importable, and ``tmp_path`` the working
    directory."""
    (tmp_path / "resetbug.py").write_text(textwrap.dedent(BUG_MODULE), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_printed_replay_command_reproduces_on_a_fresh_engine(bugs: Path) -> None:
    """run finds the reset-surviving bug right after a reset; its replay line runs the history
    on a fresh engine and the divergence reproduces (exit 1); the saved trace alone, replayed on
    a fresh engine, conforms (exit 0)."""
    code, text = _cli(["run", "--engine-class", "resetbug:ResetKeepsDirty", "--no-tlc",
                       "--no-database", "--seed", "0", "--out", "out"])  # fmt: skip
    assert code == 1 and "RIGHT AFTER A RESET" in text, text
    line = next(x for x in text.splitlines() if x.startswith("replay: "))
    argv = shlex.split(line.removeprefix("replay: "))
    assert argv[:3] == ["python", "-m", "conformance"] and argv[-1].endswith("history.jsonl")
    assert "--engine-class" in argv
    code, replayed = _cli([*argv[3:], "--no-tlc"])
    assert code == 1, replayed
    assert "DIVERGENCE at step 1" in replayed and "programs, each from a reset" in replayed
    trace = str(Path(argv[-1]).with_name("trace.jsonl"))
    code, alone = _cli([*argv[3:-1], trace, "--no-tlc"])
    assert code == 0 and "conforms" in alone, alone


def test_validate_with_an_engine_says_what_it_cannot_replay(bugs: Path) -> None:
    """The replay's other statuses: an engine that does not run the trace's profile (4), an
    engine class that does not load (2)."""
    drive = _drive(ResetKeepsDirty())
    outcome = run_programs(drive, [("a", [READ]), ("b", [ZERO_FILL, WRITE]), ("c", [READ])])
    error = outcome.error
    saved = save(PAGESTATES_DRIVER, bugs, report(PAGESTATES_DRIVER, error, engine="x"), error, "x")
    history = str(saved.directory / "history.jsonl")
    code, text = _cli(["validate", "--machine", "PageStates", "--engine-class",
                       "resetbug:RunsNoProfile", history, "--no-tlc"])  # fmt: skip
    assert code == 4 and "nothing checked" in text, text
    code, text = _cli(["validate", "--machine", "PageStates", "--engine-class", "nosuch:Engine",
                       history, "--no-tlc"])  # fmt: skip
    assert code == 2, text
