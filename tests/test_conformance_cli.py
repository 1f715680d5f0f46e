"""The command line, as conformance/README.md shows it: run (in-process and JSON lines, every
profile), the example database replaying a failure first, and bad command lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.c_engine import ensure_built
from conformance.cli import EXIT_DIVERGED, EXIT_NOTHING, EXIT_OK, EXIT_USAGE, main
from conformance.driver import Drive, Outcome, run_hypothesis
from conformance.pagestates.mutants import UnusedLeaksContent
from conformance.pagestates import PAGESTATES_DRIVER, Ask
from conformance.protocol import ProfileRequest


def test_run_an_in_process_engine_that_conforms(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--engine-class", "conformance.pagestates.engine:ReferenceEngine", "--examples", "10",
                 "--no-database", "--seed", "1", "--walk", "2000"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    assert "tour passed" in out and "hypothesis passed" in out and "walk passed" in out
    assert out.rstrip().splitlines()[-1].startswith("SUMMARY: conforms: 1 profile checked")


def test_run_a_mutant_reports_saves_and_confirms_with_tlc(
    tmp_path: Path, tlc_jar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--engine-class", "conformance.pagestates.mutants:DiscardsDirtyP", "--no-tour",
                 "--no-database", "--seed", "0", "--out", str(tmp_path), "--quiet"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_DIVERGED
    assert "rule broken (property): HostDiscardsOnlyDiscardableProp: the host discarded a dirty P page" in out
    assert "TLC: the trace stops being a behaviour of spec/PageStates.tla at step" in out
    saved = tmp_path / "Full-hs-AddressingException"
    assert {p.name for p in saved.iterdir()} >= {
        "report.txt", "trace.jsonl", "trace.itf.json", "ConformanceTrace.tla", "ConformanceTrace.cfg"
    }


def test_run_the_c_engine_on_every_profile(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--engine", str(ensure_built()), "--all-profiles", "--no-tour",
                 "--examples", "4", "--steps", "25", "--no-database"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    assert out.count("hypothesis passed") == 18 and "skipped" not in out
    assert "18 profiles" in out




def test_a_failure_is_replayed_first_from_the_database(tmp_path: Path) -> None:
    def hypothesis(seed: int) -> Outcome:
        engine = UnusedLeaksContent()
        _, profile = PAGESTATES_DRIVER.connect(engine, Ask(ProfileRequest("Full", True, "ReadsZero", 2)))
        drive: Drive[object, object, object, object] = Drive(PAGESTATES_DRIVER, engine, profile)
        return run_hypothesis(drive, seed=seed, database=tmp_path / "db")

    # The first seed whose run finds the bug (a run that does not saves nothing).
    first = next(o for o in map(hypothesis, range(20)) if o.status == "diverged")
    again = hypothesis(1000)
    assert again.status == "diverged"
    # The saved example is run first: the same failing program, found at once (the steps of
    # shrinking it come after, alike in both).
    assert again.note == first.note
    assert again.steps <= first.steps


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--engine-class", "nocolon"], "expected MODULE:CLASS"),
        (["run", "--engine-class", "conformance.pagestates.engine:Nothing"], "has no attribute 'Nothing'"),
        (["run", "--engine-class", "conformance.protocol:Reply"], "Reply"),
    ],
)
def test_a_bad_engine_class_is_a_usage_error(argv: list[str], message: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_a_profile_the_engine_does_not_run_is_skipped_not_failed(capsys: pytest.CaptureFixture[str]) -> None:
    # The C engine runs 1 to 64 pages: asking 65 is answered "Unsupported".
    code = main(["run", "--engine", str(ensure_built()), "--pages", "65", "--no-database", "--quiet"])
    out = capsys.readouterr().out
    assert code == EXIT_NOTHING
    assert "skipped" in out and "1 to 64 pages" in out


@pytest.mark.parametrize("machine", ["PageStates", "ESSA"])
def test_mutants_only_a_name_no_mutant_has_checks_nothing(machine: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutants", "--machine", machine, "--only", "Nope"]) == EXIT_NOTHING
    out = capsys.readouterr().out
    assert out.startswith(f"nothing checked: no {machine} mutant's name contains 'Nope'")
    known = "DiscardsDirtyP" if machine == "PageStates" else "CBRLLastInFirstOut"
    assert known in out
