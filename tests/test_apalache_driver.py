"""`make apalache`: both branches, with a stand-in for apalache-mc where it must be "installed".

The stand-in only records its command line and exits with the code it is told to; it checks
nothing, and these tests only test the driver around it (finding it, calling it, reading its
exit code), never a spec.
"""

from __future__ import annotations

import io
import re
import os
import stat
from pathlib import Path

import pytest

from tlcrunner import apalache

ROOT = Path(__file__).resolve().parents[1]
CHECKS = ROOT / "model" / "apalache.json"


def test_checks_file_names_existing_modules_and_operators() -> None:
    checks = apalache.load_checks(CHECKS)
    assert checks
    texts = "\n".join(p.read_text() for p in [*(ROOT / "spec").glob("*.tla"), *(ROOT / "model").glob("*.tla")])
    for c in checks:
        assert (ROOT / "model" / c.module).is_file(), c.module
        for op in (c.cinit, c.init, c.next, c.inv):
            assert re.search(rf"^{op}\s*==", texts, re.M), f"{c.name}: {op} is not defined"


def test_not_installed_says_nothing_was_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("APALACHE_HOME", raising=False)
    out = io.StringIO()
    assert apalache.main(["--checks", str(CHECKS)], out=out) == 4  # nothing checked
    assert apalache.main(["--checks", str(CHECKS), "--allow-missing"], out=io.StringIO()) == 0
    text = out.getvalue()
    assert "not installed" in text and "no\nApalache check was run" in text
    assert "releases" in text and "APALACHE_HOME" in text


def _stand_in(tmp_path: Path, exit_code: int) -> Path:
    home = tmp_path / "apalache"
    (home / "bin").mkdir(parents=True)
    script = home / "bin" / "apalache-mc"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/calls"\nexit {exit_code}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return home


@pytest.mark.parametrize(("code", "status", "word"), [(0, 0, "no error found"), (12, 1, "COUNTEREXAMPLE")])
def test_installed_runs_each_check_and_reads_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, status: int, word: str
) -> None:
    monkeypatch.setenv("PATH", os.defpath)
    monkeypatch.setenv("APALACHE_HOME", str(_stand_in(tmp_path, code)))
    out = io.StringIO()
    assert apalache.main(["--checks", str(CHECKS)], out=out) == status
    calls = (tmp_path / "calls").read_text().splitlines()
    checks = apalache.load_checks(CHECKS)
    assert len(calls) == len(checks)
    first = checks[0]
    assert calls[0].startswith("check ")
    assert f"--cinit={first.cinit}" in calls[0] and f"--inv={first.inv}" in calls[0]
    assert f"--length={first.length}" in calls[0] and calls[0].endswith(first.module)
    assert word in out.getvalue()


def test_make_apalache_without_apalache_exits_4_unless_allowed(tmp_path: Path) -> None:
    """The Makefile passes the opt-out through; without it, `make apalache` fails with 4."""
    import shutil
    import subprocess

    make = shutil.which("make")
    if make is None:
        pytest.skip("no make")
    env = {**os.environ, "PATH": f"{Path(make).parent}:/nonexistent"}
    env.pop("APALACHE_HOME", None)
    run = lambda *extra: subprocess.run(  # noqa: E731
        # -o: never rebuild the venv from inside a test, whatever pyproject.toml's time says.
        [make, "-s", "-o", ".venv/.installed", "apalache", *extra], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert run().returncode != 0  # make reports the recipe's 4 as its own failure (exit 2)
    assert run("APALACHE_OPTIONAL=1").returncode == 0
