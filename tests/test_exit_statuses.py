"""docs/conformance.md's table of exit statuses, run: every command a row names returns the
row's status, through the very command line the docs show (``cmma-spec`` is the installed
console command, ``python -m`` this interpreter's), and each make target's line is what GNU make
prints for it. The interrupted row (130, 143) is run by tests/test_conformance_verdicts.py."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "conformance.md"
BIN = Path(sys.executable).parent


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index("## Exit statuses"):]


def _rows(table: int) -> list[list[str]]:
    """The rows of the section's ``table``-th table (0: statuses, 1: make targets)."""
    tables, current = [], []
    for line in _section().splitlines():
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip("|").split("|")])
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return [r for r in tables[table][2:]]


def _commands() -> list[tuple[int, str]]:
    shown = []
    for status, _, examples in _rows(0):
        for command in re.findall(r"`([^`]+)`", examples):
            if status.isdigit():
                shown.append((int(status), command))
    return shown


def test_the_table_names_a_command_for_every_status_but_the_timeout() -> None:
    assert {s for s, _ in _commands()} == {0, 1, 2, 3, 4}


@pytest.mark.parametrize("status, command", _commands(), ids=lambda v: str(v)[:60])
def test_each_documented_status_is_what_its_command_returns(status: int, command: str,
                                                            tmp_path: Path) -> None:  # fmt: skip
    argv = shlex.split(command.replace("<scratch>", str(tmp_path)))
    if argv[0] == "cmma-spec":
        argv[0] = str(BIN / "cmma-spec")
        if argv[1] == "apalache" and (shutil.which("apalache-mc") or "APALACHE_HOME" in __import__("os").environ):
            pytest.skip("Apalache is installed here: the row is about a machine without it")
    elif argv[:2] == ["python", "-m"]:
        argv[0] = sys.executable
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == status, (command, done.stdout[-2000:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr


def test_each_make_target_runs_the_command_the_table_names() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8").splitlines()
    for target, command, line in _rows(1):
        target = target.strip("`").split()[1]
        module = shlex.split(command.strip("`"))[2]
        n = int(re.search(r"Makefile:(\d+):", line).group(1))  # type: ignore[union-attr]
        assert f"-m {module}" in makefile[n - 1] and f"{target}:" in makefile[n - 1 - 1] + \
            "".join(makefile[max(0, n - 4):n - 1]), (target, makefile[n - 1])


@pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")
def test_make_prints_the_commands_status_and_exits_2() -> None:
    """A failing recipe: make prints the line the table shows and exits 2, whatever the status."""
    rows = {r[0].strip("`").split()[1]: r[2].strip("`") for r in _rows(1)}
    # A make run from a make (CI's `make test`) would print "make[1]:"; this is the top level's.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    done = subprocess.run(["make", "kernel-check", "KERNEL_SRC=/nonexistent"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2 and rows["kernel-check"] in done.stderr, done.stderr[-1000:]
    if not shutil.which("apalache-mc"):
        done = subprocess.run(["make", "apalache"], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=300)  # fmt: skip
        assert done.returncode == 2 and rows["apalache"] in done.stderr, done.stderr[-1000:]
