"""The hypothesis profile follows the environment (tests/conftest.py, D107): derandomized without a
database when CI is set, a printed seed and the example database otherwise, and the refimpl
property tests and the conformance settings inherit it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CI_PROFILE, LOCAL_PROFILE, SEED_VARIABLE, selected_profile

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent


@pytest.mark.parametrize(
    ("environ", "profile"),
    [
        ({}, LOCAL_PROFILE),
        ({"CI": "true"}, CI_PROFILE),
        ({"CI": "1"}, CI_PROFILE),
        ({"CI": "false"}, LOCAL_PROFILE),
        ({"CI": ""}, LOCAL_PROFILE),
        ({"CI": "true", "HYPOTHESIS_PROFILE": LOCAL_PROFILE}, LOCAL_PROFILE),
        ({"HYPOTHESIS_PROFILE": CI_PROFILE}, CI_PROFILE),
    ],
)
def test_the_profile_follows_the_environment(environ: dict[str, str], profile: str) -> None:
    assert selected_profile(environ) == profile


def _environ(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CI", "HYPOTHESIS_PROFILE", SEED_VARIABLE, "PYTEST_ADDOPTS")}  # fmt: skip
    return {**env, **extra}


# Imported in the order pytest imports them: conftest first, then the test modules.
_PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import conftest
from hypothesis import settings
import test_refimpl_properties, test_refimpl_essa_properties
from conformance.driver import DEFAULT_DATABASE, hypothesis_settings
for name, s in [("default", settings.default),
                ("refimpl", test_refimpl_properties.SETTINGS),
                ("essa", test_refimpl_essa_properties.SETTINGS),
                ("conformance", hypothesis_settings(100, database=DEFAULT_DATABASE))]:
    print(name, s.derandomize, type(s.database).__name__)
print("profile", settings.get_current_profile_name())
"""


@pytest.mark.parametrize("ci", [True, False], ids=["CI", "local"])
def test_the_property_tests_inherit_the_profile(ci: bool, tmp_path: Path) -> None:
    env = _environ(CI="true") if ci else _environ()
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(TESTS)], cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    assert lines.pop("profile") == (CI_PROFILE if ci else LOCAL_PROFILE)
    for name in ("default", "refimpl", "essa"):
        assert lines[name] == ("True NoneType" if ci else "False DirectoryBasedExampleDatabase"), name
    # The conformance runs name their own database (.hypothesis/conformance), which a
    # derandomized profile leaves out (hypothesis allows no database with derandomize).
    assert lines["conformance"] == ("True NoneType" if ci else "False DirectoryBasedExampleDatabase")


_FAILING = """
from hypothesis import given, strategies as st

@given(st.integers(0, 1000))
def test_fails(n):
    assert n < 0
"""


def _run_failing(tmp_path: Path, env: dict[str, str], *args: str) -> str:
    (tmp_path / "conftest.py").write_text((TESTS / "conftest.py").read_text(encoding="utf-8"))
    (tmp_path / "test_failing.py").write_text(_FAILING)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_failing.py", *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stdout


def test_a_local_failure_prints_its_seed_and_keeps_the_example(tmp_path: Path) -> None:
    out = _run_failing(tmp_path, _environ())
    found = re.search(r"seed (\d+): the same examples again with @seed\(\1\) .*--hypothesis-seed=\1", out)
    assert found, out
    assert "hypothesis: profile cmma-local;" in out
    summary = re.search(rf"the conformance runs' seed (\d+) \(again: {SEED_VARIABLE}=\1\)", out)
    assert summary, out
    assert "@reproduce_failure(" in out
    assert any((tmp_path / ".hypothesis" / "examples").iterdir()), "no example database written"
    # The conformance seed given is the one used.
    again = _run_failing(tmp_path, _environ(**{SEED_VARIABLE: "12345"}))
    assert f"seed 12345 (again: {SEED_VARIABLE}=12345)" in again


def test_a_ci_failure_is_derandomized_and_keeps_nothing(tmp_path: Path) -> None:
    out = _run_failing(tmp_path, _environ(CI="true"))
    assert "hypothesis: profile cmma-ci, derandomized" in out, out
    assert "@reproduce_failure(" in out
    assert "@seed(" not in out
    assert not (tmp_path / ".hypothesis" / "examples").exists()
