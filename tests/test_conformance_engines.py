"""Correct engines pass the whole suite: the C engine (over JSON lines, proof that the protocol
is language-agnostic) and the reference implementation (in-process), through the contract-test
base class an engine's own CI would subclass.

Every profile the spec allows is toured (every transition, deterministically); hypothesis runs
on a few profiles that differ in every constant, to keep CI short. Set
CMMA_CONFORMANCE_ALL_PROFILES=1 to run hypothesis on every profile (and
CMMA_CONFORMANCE_PROFILE=thorough for the thorough settings).

The hypothesis runs follow the profile tests/conftest.py selected (D107): in CI derandomized with
no example database; locally the session's seed (printed when a test fails; replayed with
CMMA_HYPOTHESIS_SEED) and the example database in .hypothesis/conformance."""

from __future__ import annotations

import os
from typing import ClassVar

from conformance.c_engine import ensure_built
from conformance.driver import Drive, run_hypothesis, run_programs
from conformance.pagestates.engine import ReferenceEngine
from conformance.jsonlines import JsonLinesEngine
from conformance.pagestates import PAGESTATES_DRIVER, Ask
from conformance.protocol import ProfileRequest
from conformance.testing import EngineContract
from conftest import SESSION_SEED

#: A failure is kept for the next run only where there is a next run (not in CI).
_DATABASE = None if SESSION_SEED is None else "default"

_ALL = os.environ.get("CMMA_CONFORMANCE_ALL_PROFILES") == "1"
# Each constant takes each of its values at least once.
_SOME = [
    ProfileRequest("Full", True, "AddressingException", 2),
    ProfileRequest("NoP", False, "ReadsZero", 2),
    ProfileRequest("ZVMPrototype", True, "ReadsZero", 2),
]


class TestCEngine(EngineContract):
    engine_command = str(ensure_built())
    hypothesis_profiles: ClassVar[list[ProfileRequest] | None] = None if _ALL else _SOME
    seed = SESSION_SEED
    database = _DATABASE


class TestReferenceEngine(EngineContract):
    engine_class = "conformance.pagestates.engine:ReferenceEngine"
    hypothesis_profiles: ClassVar[list[ProfileRequest] | None] = None if _ALL else _SOME[:1]
    seed = SESSION_SEED
    database = _DATABASE


def test_an_engine_without_clear_dirty_is_tested_on_the_rest() -> None:
    engine = JsonLinesEngine([str(ensure_built()), "--no-clear-dirty"])
    try:
        _, profile = PAGESTATES_DRIVER.connect(engine, Ask(ProfileRequest("NoPp", True, "ReadsZero", 2)))
        assert "ClearDirty" not in profile.ops
        drive = Drive(PAGESTATES_DRIVER, engine, profile)
        assert run_programs(drive, PAGESTATES_DRIVER.tours(profile)).passed
        sent = [r for _, program in PAGESTATES_DRIVER.tours(profile) for r in program]
        outcome = run_hypothesis(drive, examples=20, seed=1)
        assert outcome.passed, outcome.error
        assert all(r.op != "ClearDirty" for r in sent + [s.request for s in drive.steps])
    finally:
        engine.close()


def test_the_reference_engine_runs_the_profile_it_is_asked_for() -> None:
    _, profile = PAGESTATES_DRIVER.connect(
        ReferenceEngine(), Ask(ProfileRequest("OneDiscardedState", False, None, 3)))
    assert profile.profile.describe().startswith("OneDiscardedState, direct, AddressingException, 3 pages")
