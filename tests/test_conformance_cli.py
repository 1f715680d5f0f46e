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
    (saved,) = tmp_path.glob("*/Full-hs-AddressingException")  # <engine key>/<profile>
    assert {p.name for p in saved.iterdir()} >= {
        "report.txt", "trace.jsonl", "trace.itf.json", "ConformanceTrace.tla", "ConformanceTrace.cfg"
    }


NAMELESS_ENGINE = """
from conformance.pagestates.mutants import DiscardsDirtyP


class Nameless:
    \"\"\"An in-process engine with no ``name``: a broken reference behind hello/reset/step/close.\"\"\"

    def __init__(self):
        self._engine = DiscardsDirtyP()

    def hello(self, *args):
        return self._engine.hello(*args)

    def reset(self):
        return self._engine.reset()

    def step(self, *args):
        return self._engine.step(*args)

    def close(self):
        self._engine.close()
"""


def test_a_report_names_an_in_process_engine_without_a_name_by_its_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "nameless_engine.py").write_text(NAMELESS_ENGINE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["run", "--machine", "PageStates", "--engine-class", "nameless_engine:Nameless",
                 "--no-tour", "--no-database", "--seed", "0", "--out", str(tmp_path / "out"),
                 "--quiet", "--no-tlc"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_DIVERGED, out
    headline = next(line for line in out.splitlines() if line.startswith("engine "))
    assert headline.startswith("engine nameless_engine:Nameless (in process), machine PageStates"), headline


def test_run_help_says_which_machines_each_search_option_applies_to() -> None:
    """--cover-edges and --depth size the coverage tour, which only a machine naming its state
    graph takes (the others run their fixed tours); --swarm adds a swarm walk on any machine."""
    import argparse

    from conformance.cli import build_parser
    from conformance.commands import budget_of
    from conformance.machines import MACHINES
    from conformance.search import covers

    parser = build_parser()
    run = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["run"]
    helps = {a.option_strings[0]: a.help or "" for a in run._actions if a.option_strings}
    toured = [name for name, mode in MACHINES.items() if covers(mode)]
    fixed = [name for name in MACHINES if name not in toured]
    assert toured and fixed
    for option in ("--cover-edges", "--depth"):
        assert helps[option].startswith(" and ".join(toured)), helps[option]
        assert not any(name in helps[option].split(":")[0] for name in fixed), helps[option]
    assert not helps["--swarm"].startswith("ESSA"), helps["--swarm"]
    for name in fixed:  # a machine without a coverage tour takes a swarm walk when asked
        args = run.parse_args(["--engine-class", "m:C", "--swarm", "300"])
        assert budget_of(MACHINES[name], args, None).swarm == 300


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
