"""tlcrunner simulate: TLC's -simulate on manifest models, with a fixed seed so runs repeat."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from tlcrunner import simulate as sim
from tlcrunner.manifest import Expectation, load_manifest
from tlcrunner.tool_output import INITIAL_PREDICATE, Outcome

REPO = Path(__file__).resolve().parents[1]
ENTRIES = {e.name: e for e in load_manifest(REPO / "model" / "manifest.json").entries}
LIBRARY = REPO / "spec"


def run(name: str, jar: Path, *, depth: int, traces: int) -> sim.Simulation:
    e = ENTRIES[name]
    return sim.simulate(
        e.module, e.config, jar=jar, library=LIBRARY, depth=depth, traces=traces, seed=1,
        timeout=120,
    )  # fmt: skip


def test_no_violation_reports_every_behaviour(tlc_jar: Path) -> None:
    s = run("MCPageStates_Full", tlc_jar, depth=20, traces=50)
    assert s.outcome is Outcome.HOLDS and s.behaviours == 50
    # At most depth + 1 states per behaviour (the initial state and one per step).
    assert s.states is not None and 50 <= s.states <= 50 * 21
    ok, what = sim.verdict(s, ENTRIES["MCPageStates_Full"].expect)
    assert ok and what.startswith("no violation in 50 behaviours of at most 20 steps")
    ok, what = sim.verdict(s, Expectation("violates", "SomeInv"))
    assert not ok and "not exhaustive" in what


def test_invariant_violation_with_counterexample(tlc_jar: Path) -> None:
    name = "MCPageStates_Twin_PageInDirty"
    s = run(name, tlc_jar, depth=30, traces=200)
    assert s.outcome is Outcome.INVARIANT and s.run.violated == "StableContentKeptInv"
    assert s.behaviours is None  # stopped at the violation: how many is not known
    assert s.run.tool.trace[0].action == INITIAL_PREDICATE
    # A random behaviour is no shorter than the shortest one a breadth-first search finds.
    assert len(s.run.tool.trace) >= (ENTRIES[name].depth or 0)
    assert sim.verdict(s, ENTRIES[name].expect)[0]


def test_liveness_is_checked_on_each_behaviour(tlc_jar: Path) -> None:
    name = "MCGuestHostAtomicity_Twin_SharedLockFaulty"
    s = run(name, tlc_jar, depth=30, traces=100)
    assert s.outcome is Outcome.TEMPORAL and s.run.violated == "HostProgressProp"
    assert sim.verdict(s, ENTRIES[name].expect)[0]


def test_cli(tlc_jar: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    out = io.StringIO()
    with redirect_stdout(out):
        status = sim.main(["MCESSA_Finding_F1_KVMGmap", "--depth", "10", "--traces", "100", "--seed", "1",
                           "--jar", str(tlc_jar)])  # fmt: skip
    assert status == 0, out.getvalue()
    assert "GuestStableBeliefInv" in out.getvalue() and "counterexample" in out.getvalue()
    with pytest.raises(SystemExit):
        sim.main(["model/MCPageStates_Full.cfg", "--depth", "5", "--traces", "3"])
    assert sim.main(["NoSuchModel", "--depth", "5", "--traces", "3"]) == 2
    with pytest.raises(ValueError):
        run("MCPageStates_Full", tlc_jar, depth=0, traces=3)
