"""Traces: written as JSON lines, ITF and TLA+; read back; and checked by TLC against the spec,
which confirms the step at which a divergent trace stops being a behaviour of the spec and accepts
the trace of a correct engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.c_engine import ensure_built
from conformance.cli import EXIT_DIVERGED, EXIT_OK, main
from conformance.jsonlines import JsonLinesEngine
from conformance.mutants import DiscardsDirtyP, RefusesPreserveOfVolatile
from conformance.protocol import ProfileRequest
from conformance.report import trace_of
from conformance.runner import connect, run_hypothesis, walk_program, replay
from conformance.session import DivergenceError
from conformance.stateful import settings_for
from conformance.tla import check_with_tlc, module_text
from conformance.trace import Trace, read_itf, read_jsonl, read_trace, write_itf, write_jsonl
from conformance.validate import replay_trace

import random


def _divergence(mutant: type) -> tuple[DivergenceError, Trace]:
    session = connect(mutant(), ProfileRequest())
    outcome = run_hypothesis(session, settings_for("quick", database=None), seed=0)
    assert isinstance(outcome.error, DivergenceError)
    return outcome.error, trace_of(outcome.profile, outcome.error.steps, {"engine": outcome.engine})


def _correct_trace(steps: int = 300) -> Trace:
    """A C engine's trace under the z/VM prototype: allowed and refused steps on two pages."""
    engine = JsonLinesEngine(str(ensure_built()))
    try:
        session = connect(engine, ProfileRequest("ZVMPrototype", True, "ReadsZero", 2))
        replay(session, walk_program(session.profile, session.info.ops, steps, random.Random(7)))
        return trace_of(session.profile, session.steps, {"engine": session.info.name})
    finally:
        engine.close()


def test_json_lines_and_itf_read_back_what_was_written(tmp_path: Path) -> None:
    _, trace = _divergence(DiscardsDirtyP)
    write_jsonl(trace, tmp_path / "t.jsonl")
    write_itf(trace, tmp_path / "t.itf.json")
    from_jsonl = read_jsonl(tmp_path / "t.jsonl", values=trace.profile.values)
    from_itf = read_itf(tmp_path / "t.itf.json", values=trace.profile.values)
    assert from_jsonl.profile == trace.profile == from_itf.profile
    assert from_jsonl.steps == trace.steps
    # ITF records every page after every step.
    assert [(s.op, s.page, s.arg, s.outcome, s.value) for s in from_itf.steps] == [
        (s.op, s.page, s.arg, s.outcome, s.value) for s in trace.steps
    ]
    assert all(len(s.seen) == trace.profile.pages for s in from_itf.steps)
    assert read_trace(tmp_path / "t.itf.json").steps == from_itf.steps
    doc = json.loads((tmp_path / "t.itf.json").read_text())
    assert doc["vars"][:3] == ["usage", "resid", "dirty"] and doc["states"][0]["#meta"] == {"index": 0}


def test_tlc_deadlocks_at_the_divergent_step(tlc_jar: Path) -> None:
    err, trace = _divergence(DiscardsDirtyP)
    verdict = check_with_tlc(trace)
    assert not verdict.behaviour
    assert verdict.stuck_at == err.steps[-1].index == len(trace.steps)
    assert "stops being a behaviour of the spec at step" in verdict.describe(trace)


def test_tlc_sees_a_refused_allowed_step_too(tlc_jar: Path) -> None:
    err, trace = _divergence(RefusesPreserveOfVolatile)
    assert trace.steps[-1].outcome == "Refused"
    assert check_with_tlc(trace).stuck_at == len(trace.steps)


def test_tlc_accepts_a_correct_engines_trace(tlc_jar: Path) -> None:
    trace = _correct_trace()
    assert any(s.outcome == "Refused" for s in trace.steps)
    assert "Perform(e.op, e.page, e.arg)" in module_text(trace)
    assert replay_trace(trace).step is None
    verdict = check_with_tlc(trace)
    assert verdict.behaviour, verdict.message


def test_validate_finds_a_step_that_changes_another_page(tmp_path: Path, tlc_jar: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    trace = _correct_trace(20)
    path = tmp_path / "t.itf.json"
    write_itf(trace, path)
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
    assert f"step 5 ({trace.steps[4].op} {named}" in out and f"changed page {other}" in out
    assert "stops being a behaviour of the spec at step 5" in out


def test_validate_accepts_a_correct_log_and_rejects_a_divergent_one(tmp_path: Path, tlc_jar: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    write_jsonl(_correct_trace(40), tmp_path / "good.jsonl")
    assert main(["validate", str(tmp_path / "good.jsonl"), "--values", "0,1,2"]) == EXIT_OK
    assert "is a behaviour of the spec (40 steps" in capsys.readouterr().out
    _, bad = _divergence(DiscardsDirtyP)
    write_jsonl(bad, tmp_path / "bad.jsonl")
    assert main(["validate", str(tmp_path / "bad.jsonl"), "--no-tlc"]) == EXIT_DIVERGED
    assert "HostDiscardsOnlyDiscardableProp" in capsys.readouterr().out
