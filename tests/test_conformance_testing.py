"""conformance.testing as a third party uses it: conformance/README.md's example, run as it stands
from another working directory against the C engine placed beside it (a one-profile contract and a
state machine with rules and an invariant of its own), collects only the declared profile's tests,
skips nothing and passes; a rule of the state machine catches a broken engine."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import rule, run_state_machine_as_test

from conformance.c_engine import ensure_built
from conformance.pagestates.mode import Step
from conformance.protocol import OPERATIONS, ProfileRequest
from conformance.testing import EngineContract, PageStatesStateMachine, resolve_command

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "conformance" / "README.md"


def example() -> str:
    m = re.search(r"<!-- testing-example: begin -->\n```python\n(.*?)```\n<!-- testing-example: end -->",
                  README.read_text(encoding="utf-8"), re.S)  # fmt: skip
    assert m is not None, "conformance/README.md lacks the testing-example block"
    return m.group(1)


def test_the_readme_example_runs_from_another_directory(tmp_path: Path) -> None:
    project = tmp_path / "engine-repo" / "tests"
    project.mkdir(parents=True)
    (project / "test_my_engine.py").write_text(example(), encoding="utf-8")
    (project / "my-engine").symlink_to(ensure_built())
    elsewhere = tmp_path / "ci-workdir"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist", "--durations=3",
         str(project / "test_my_engine.py")],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    summary = done.stdout.strip().splitlines()[-1]
    # the handshake, each operation (none skipped: the C engine has them all), the declared
    # profile's tour and hypothesis, the state machine
    assert re.match(r"\d+ passed in ", summary), summary
    assert "skipped" not in summary
    assert int(summary.split()[0]) == 1 + len(OPERATIONS) + 1 + 1 + 1, out


def test_only_the_declared_profiles_are_collected() -> None:
    class One(EngineContract):
        profiles = [ProfileRequest("Full", True, "AddressingException", 2)]

    class Full(EngineContract):
        profiles = [ProfileRequest("Full")]

    assert [p.id for p in One.profile_params()] == ["Full-HostService-AddressingException"]
    assert {p.id.split("-")[0] for p in Full.profile_params()} == {"Full"}
    assert len(Full.profile_params()) == 4 and len(EngineContract.profile_params()) == 18


def test_relative_paths_are_taken_from_the_test_file(tmp_path: Path) -> None:
    assert resolve_command("./build/engine --fast", tmp_path) == f"{tmp_path}/build/engine --fast"
    assert resolve_command("build/engine ../x.json", tmp_path) == (
        f"{tmp_path}/build/engine {tmp_path.parent}/x.json")
    assert resolve_command("node engine.js", tmp_path) == "node engine.js"
    assert resolve_command("/opt/engine", tmp_path) == "/opt/engine"


def test_the_state_machine_catches_a_broken_engine() -> None:
    from conformance.pagestates.mutants import DiscardedReadsZero

    class SecondWriteReadsZero(DiscardedReadsZero):
        """The second Write since the reset is lost: the Read after it answers 0."""

        def reset(self) -> None:
            super().reset()
            self.writes = 0

        def _perform(self, state: Any, op: str, page: int, arg: int) -> Any:
            self.writes = getattr(self, "writes", 0) + (op == "Write")
            if op == "Write" and self.writes == 2:
                return super()._spec(state, op, page, 0)
            return super()._perform(state, op, page, arg)

    class Rules(PageStatesStateMachine):
        def make_engine(self) -> Any:
            return SecondWriteReadsZero()

        @rule(value=st.sampled_from([1, 2]))
        def write_then_read(self, value: int) -> None:
            self.send(Step("Write", 0, value))
            self.send(Step("Read", 0, -1))

    with pytest.raises(AssertionError, match="DIVERGENCE at step"):
        # no shrinking: the report of the first failing example is what this test reads
        run_state_machine_as_test(Rules, settings=settings(
            max_examples=50, stateful_step_count=20, derandomize=True, deadline=None,
            phases=[Phase.generate]))  # fmt: skip
