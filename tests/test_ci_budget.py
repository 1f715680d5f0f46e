"""CI's budget: make test leaves its JUnit files, bench/ci_budget.py sums them per test file and
per kind of work, bench/loops_bench.py records the budget, bench/report.py writes it into
docs/loops.md, and .ci/run prints each step's seconds."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
FIXTURES = REPO / "tests" / "fixtures" / "junit"
JUNIT = [FIXTURES / "pytest-junit.xml", FIXTURES / "pytest-junit-separate.xml"]


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_budget_sums_seconds_per_file_and_kind() -> None:
    b = _module("ci_budget").budget(JUNIT)
    assert b["tests"] == 8
    assert b["outcomes"] == {"failed": 1, "passed": 6, "skipped": 1}
    assert b["seconds"] == 544.0  # 120.5 + 6.25 + 80 + 95.125 + 210 + 0.01 + 1.115 + 31
    assert b["wall"] == 444.0  # 412.345 + 31.7: the runs' own clocks, less than the sum
    assert [r["timestamp"] for r in b["runs"]] == ["2026-11-28T19:56:02.123456+00:00",
                                                   "2026-11-28T20:03:01.000000+00:00"]  # fmt: skip
    assert b["kinds"] == [
        ["kernel harness", 2, 2, 210.0],
        ["TLC models (tests/test_models.py)", 1, 2, 126.8],
        ["conformance runs", 1, 1, 95.1],
        ["refimpl equal to TLC", 1, 1, 80.0],
        ["other", 2, 2, 32.1],
    ]
    assert b["files"][:2] == [["tests/test_kernel_check.py", "kernel harness", 1, 210.0],
                              ["tests/test_models.py", "TLC models (tests/test_models.py)", 2, 126.8]]  # fmt: skip
    assert ["tests/test_runner_interrupt.py", "other", 1, 31.0] in b["files"]
    # A test class stays in the node id, not in the file's name.
    assert b["slowest"][2] == ["tests/test_conformance_essa_run.py::TestRun::test_conforms[KVMGmap]",
                               95.1]  # fmt: skip
    assert b["slowest"][0] == ["tests/test_kernel_check.py::test_the_readme_quotes_what_kernel_check_prints",
                               210.0]  # fmt: skip
    assert len(b["slowest"]) == 8


def test_every_test_file_has_a_kind() -> None:
    kind_of = _module("ci_budget").kind_of
    kinds = {p.name: kind_of(f"tests/{p.name}") for p in (REPO / "tests").glob("test_*.py")}
    assert kinds["test_models.py"].startswith("TLC models")
    assert kinds["test_refimpl_equality.py"] == "refimpl equal to TLC"
    assert kinds["test_refimpl_vmm_equality.py"] == "refimpl equal to TLC"
    assert kinds["test_conformance_essa_run.py"] == kinds["test_essa_rs_engine.py"] == "conformance runs"
    assert kinds["test_kernel_check.py"] == "kernel harness"
    assert kinds["test_decisions.py"] == "other"


def test_the_cli_prints_the_budget_and_says_when_a_file_is_missing(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(BENCH / "ci_budget.py"), *map(str, JUNIT)],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("8 tests (1 failed, 6 passed, 1 skipped) in 2 pytest runs: 544.0 s of the "
                                  "tests' own seconds summed, 444.0 s of the runs' wall clock: pytest-xdist's")
    assert "| kernel harness | 2 | 2 | 210.0 | 39 % |" in proc.stdout
    assert "| tests/test_models.py | TLC models (tests/test_models.py) | 2 | 126.8 | 23 % |" in proc.stdout
    assert "| the 8 slowest tests | seconds |" in proc.stdout
    missing = subprocess.run([sys.executable, str(BENCH / "ci_budget.py"), str(tmp_path / "no.xml")],
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert missing.returncode == 4 and "no such JUnit file" in missing.stderr


def test_the_budget_is_recorded_and_written_into_the_loops_doc(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """loops_bench --from-junit records ci-budget; report.py writes it between its markers, and
    rewrites the block in place; the loops table, rewritten, keeps the generated sections."""
    loops = _module("loops_bench")
    out = tmp_path / "results" / "bench-loops.json"
    monkeypatch.setattr(loops, "OUT", out)
    assert loops.main(["--from-junit", *map(str, JUNIT), "--run-note", "a fixture, load 1.0"]) == 0
    recorded = json.loads(out.read_text())
    assert recorded["ci-budget"]["note"] == "a fixture, load 1.0"
    assert recorded["ci-budget"]["budget"]["seconds"] == 544.0
    recorded["run"] = {"command": "python -m conformance run", "exit": 0, "wall": 1.0, "cpu": 1.0,
                       "load_start": "0", "load_end": "0", "at": "x", "cpus": 2, "phases": {}}  # fmt: skip
    out.write_text(json.dumps(recorded))

    def report(*args: str) -> None:
        proc = subprocess.run([sys.executable, str(BENCH / "report.py"), *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert proc.returncode == 0, proc.stderr

    doc = tmp_path / "loops.md"
    report("--loops-doc", str(doc))
    report("--ci-budget-doc", str(doc))
    text = doc.read_text()
    assert "ci-budget" not in text.split("## CI budget")[0]  # not a row of the loops table
    block = text[text.index("<!-- ci budget: begin -->"):text.index("<!-- ci budget: end -->")]
    assert re.search(r"from pytest-junit\.xml started 2026-11-28T19:56:02\.123456\+00:00 on ci-host, "
                     r"412\.3 s of wall; pytest-junit-separate\.xml .*: a fixture, load 1\.0\.", block)
    assert "| kernel harness | 2 | 2 | 210.0 | 39 % |" in block
    assert ("| `tests/test_kernel_check.py::test_the_readme_quotes_what_kernel_check_prints` | 210.0 |"
            in block)
    report("--ci-budget-doc", str(doc))
    report("--loops-doc", str(doc))
    assert doc.read_text() == text  # in place, once; the table's rewrite keeps the section


def test_make_test_writes_the_junit_files_the_ci_loop_reads() -> None:
    loops = _module("loops_bench")
    proc = subprocess.run(["make", "-n", "test"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    pytest_calls = [line for line in proc.stdout.splitlines() if " -m pytest " in line]
    assert len(pytest_calls) == 2
    for call, junit in zip(pytest_calls, loops.TEST_JUNIT):
        assert f"--junit-xml={junit.relative_to(REPO)}" in call.split(), call


def test_ci_run_prints_each_steps_seconds_and_all_of_them_last(tmp_path: Path) -> None:
    """.ci/run's step function, run on stand-in steps: a line per step, then the budget line,
    also when a step fails (CI stops there, with that step's status)."""
    ci = (REPO / ".ci" / "run").read_text()
    helper = ci[ci.index('BUDGET=""'):ci.index("\n}\n", ci.index("step() {")) + 3]
    script = tmp_path / "steps.sh"
    script.write_text("set -euo pipefail\n" + helper + 'step "first" true\nstep "second" sh -c "exit 3"\n'
                      'echo not reached\n')  # fmt: skip
    proc = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3
    # Bash's SECONDS counts whole seconds: a step of no time may still cross one.
    lines = [re.sub(r"\b[01] s\b", "N s", line) for line in proc.stdout.splitlines()]
    assert lines == ["ci: first took N s", "ci: second failed (exit 3) after N s",
                     "ci: steps took first N s, second N s; N s in all"]  # fmt: skip
    assert ci.rstrip().endswith('echo "ci: steps took $BUDGET; $SECONDS s in all"')
    for name in ("apt-get", "make test", "make apalache", "make kernel-check"):
        assert f'step "{name}" ' in ci
