"""Traces of the PageStates mode: written as JSON lines, ITF and TLA+ by the driver; read back;
and checked by TLC against the spec, which confirms the step at which a divergent trace stops
being a behaviour of the spec and accepts the trace of a correct engine."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from conformance.c_engine import ensure_built
from conformance.cli import EXIT_DIVERGED, EXIT_OK, main
from conformance.driver import Divergence, Drive, run_hypothesis, write_trace
from conformance.jsonlines import JsonLinesEngine
from conformance.pagestates.mutants import DiscardsDirtyP, RefusesPreserveOfVolatile
from conformance.pagestates import PAGESTATES_DRIVER, Ask, Connected, trace_of
from conformance.protocol import ProfileRequest
from conformance.pagestates.trace import read_itf, read_jsonl, read_trace

PS = PAGESTATES_DRIVER
AnyDrive = Drive[Any, Any, Any, Any]


def _divergence(mutant: type) -> tuple[Connected, Divergence]:
    engine = mutant()
    _, profile = PS.connect(engine, Ask(ProfileRequest()))
    outcome = run_hypothesis(Drive(PS, engine, profile), seed=0)
    assert isinstance(outcome.error, Divergence)
    return profile, outcome.error


def _steps(records: Any) -> list[tuple[Any, Any]]:
    return [(r.request, r.observed) for r in records if r.observed is not None]


def _correct_drive(steps: int = 300) -> AnyDrive:
    """A C engine's steps under the z/VM prototype: allowed and refused steps on two pages."""
    engine = JsonLinesEngine(str(ensure_built()))
    try:
        _, profile = PS.connect(engine, Ask(ProfileRequest("ZVMPrototype", True, "ReadsZero", 2)))
        drive: AnyDrive = Drive(PS, engine, profile)
        rng = random.Random(7)
        drive.run([rng.choice(PS.requests(profile)) for _ in range(steps)])
        return drive
    finally:
        engine.close()


def test_json_lines_and_itf_read_back_what_was_written(tmp_path: Path) -> None:
    profile, err = _divergence(DiscardsDirtyP)
    jsonl, itf = write_trace(PS, tmp_path, profile, err.steps, {"engine": "mutant"})
    written = trace_of(profile, _steps(err.steps))
    from_jsonl = read_jsonl(jsonl, values=profile.profile.values)
    from_itf = read_itf(itf, values=profile.profile.values)
    assert from_jsonl.profile == profile.profile == from_itf.profile
    assert from_jsonl.steps == written.steps
    # ITF records every page after every step.
    assert [(s.op, s.page, s.arg, s.outcome, s.value) for s in from_itf.steps] == [
        (s.op, s.page, s.arg, s.outcome, s.value) for s in written.steps
    ]
    assert all(len(s.seen) == profile.profile.pages for s in from_itf.steps)
    assert read_trace(itf).steps == from_itf.steps
    doc = json.loads(itf.read_text())
    assert {"usage", "resid", "dirty", "lastOp"} <= set(doc["vars"])
    assert doc["states"][0]["#meta"] == {"index": 0}


def test_tlc_deadlocks_at_the_divergent_step(tlc_jar: Path) -> None:
    profile, err = _divergence(DiscardsDirtyP)
    verdict = PS.check_with_tlc(profile, _steps(err.steps))
    assert not verdict.behaviour
    assert verdict.stuck_at == err.steps[-1].index == len(err.steps)


def test_tlc_sees_a_refused_allowed_step_too(tlc_jar: Path) -> None:
    profile, err = _divergence(RefusesPreserveOfVolatile)
    assert err.steps[-1].observed.outcome == "Refused"
    assert PS.check_with_tlc(profile, _steps(err.steps)).stuck_at == len(err.steps)


def test_tlc_accepts_a_correct_engines_trace(tlc_jar: Path) -> None:
    drive = _correct_drive()
    steps = _steps(drive.steps)
    assert any(reply.outcome == "Refused" for _, reply in steps)
    assert "Perform(e.op, e.page, e.arg)" in PS.trace_module(drive.profile, steps)[0]
    verdict = PS.check_with_tlc(drive.profile, steps)
    assert verdict.behaviour, verdict.message


def test_validate_finds_a_step_that_changes_another_page(tmp_path: Path, tlc_jar: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    drive = _correct_drive(20)
    _, path = write_trace(PS, tmp_path, drive.profile, drive.steps, {})
    doc = json.loads(path.read_text())
    # Step 5 also makes page 1 (which it does not name) volatile, discarded.
    named = doc["states"][5]["lastOp"]["page"]["#bigint"]
    other = 1 - int(named)
    for state in doc["states"][5:]:
        for var, value in (("usage", "V"), ("resid", "z")):
            state[var]["#map"] = [[k, value if int(k["#bigint"]) == other else v] for k, v in state[var]["#map"]]
    path.write_text(json.dumps(doc))
    code = main(["validate", str(path)])
    out = capsys.readouterr().out
    assert code == EXIT_DIVERGED
    assert f"{drive.steps[4].request.describe()} changed page {other}" in out
    assert "DIVERGENCE at step 5" in out
    assert "stops being a behaviour of spec/PageStates.tla at step 5" in out


def test_validate_accepts_a_correct_log_and_rejects_a_divergent_one(tmp_path: Path, tlc_jar: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    drive = _correct_drive(40)
    good, _ = write_trace(PS, tmp_path, drive.profile, drive.steps, {})
    assert main(["validate", str(good), "--values", "0,1,2"]) == EXIT_OK
    assert "is a behaviour of spec/PageStates.tla (40 steps" in capsys.readouterr().out
    profile, err = _divergence(DiscardsDirtyP)
    bad, _ = write_trace(PS, tmp_path / "bad", profile, err.steps, {}) if (tmp_path / "bad").mkdir() is None else (None, None)
    assert main(["validate", str(bad), "--no-tlc"]) == EXIT_DIVERGED
    assert "HostDiscardsOnlyDiscardableProp" in capsys.readouterr().out
