"""The command line, as conformance/README.md shows it: run (in-process and JSON lines, every
profile), the example database replaying a failure first, and bad command lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.c_engine import ensure_built
from conformance.cli import EXIT_DIVERGED, EXIT_NOTHING, EXIT_OK, EXIT_USAGE, main
from conformance.mutants import UnusedLeaksContent
from conformance.protocol import ProfileRequest
from conformance.runner import connect, run_hypothesis
from conformance.stateful import settings_for


def test_run_an_in_process_engine_that_conforms(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--engine-class", "conformance.engine:ReferenceEngine", "--examples", "10",
                 "--no-database", "--quiet", "--seed", "1", "--walk", "2000"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    assert "tour passed" in out and "hypothesis passed" in out and "walk passed" in out
    assert out.rstrip().endswith("conforms")


def test_run_a_mutant_reports_saves_and_confirms_with_tlc(
    tmp_path: Path, tlc_jar: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--engine-class", "conformance.mutants:DiscardsDirtyP", "--no-tour",
                 "--no-database", "--seed", "0", "--out", str(tmp_path), "--quiet"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_DIVERGED
    assert "rule broken (property): HostDiscardsOnlyDiscardableProp: the host discarded a dirty P page" in out
    assert "TLC: the trace stops being a behaviour of the spec at step" in out
    saved = tmp_path / "Full-hs-AddressingException"
    assert {p.name for p in saved.iterdir()} >= {
        "report.txt", "trace.jsonl", "trace.itf.json", "ConformanceTrace.tla", "ConformanceTrace.cfg"
    }


def test_run_the_c_engine_on_every_profile(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--engine", str(ensure_built()), "--all-profiles", "--no-tour",
                 "--examples", "4", "--steps", "25", "--no-database", "--quiet"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    assert out.count("hypothesis passed") == 18 and "skipped" not in out




def test_a_failure_is_replayed_first_from_the_database(tmp_path: Path) -> None:
    settings = settings_for("quick", database=tmp_path / "db")
    first = run_hypothesis(connect(UnusedLeaksContent(), ProfileRequest()), settings, seed=3)
    again = run_hypothesis(connect(UnusedLeaksContent(), ProfileRequest()), settings, seed=4)
    assert first.status == again.status == "diverged"
    assert first.found_after is not None and again.found_after is not None
    # The saved example is run first, and once more as hypothesis's final run: at most two
    # examples of at most 100 steps, where the first run searched for thousands.
    assert again.found_after <= 200 < first.found_after


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--engine-class", "nocolon"], "expected MODULE:CLASS"),
        (["run", "--engine-class", "conformance.engine:Nothing"], "has no attribute 'Nothing'"),
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
