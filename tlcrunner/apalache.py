"""``python -m tlcrunner apalache``: run the Apalache checks of model/apalache.json.

Apalache is not on the package registries this project can reach, so it is used where it is
installed (``apalache-mc`` on PATH, or ``$APALACHE_HOME/bin/apalache-mc``) and otherwise this
says plainly that nothing was checked, with exit status 4 ("nothing checked"), so a CI step
that runs it cannot pass without checking; ``--allow-missing`` (``make apalache
APALACHE_OPTIONAL=1``) makes that exit 0 where a missing Apalache is accepted. It never reports a
result it did not get from Apalache.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from . import exitcodes
from .locations import data_root

INSTALL_HINT = """\
To install it: download a release archive from https://github.com/apalache-mc/apalache/releases
(it needs Java 17 or later), unpack it, and either put its bin/ directory on PATH or set
APALACHE_HOME to the unpacked directory. Then run `make apalache` again."""

# Apalache's exit codes (apalache-mc check): 0 no error found, 12 a counterexample found.
EXIT_OK = 0
EXIT_COUNTEREXAMPLE = 12


@dataclass(frozen=True)
class ApalacheCheck:
    name: str
    module: str
    cinit: str
    init: str
    next: str
    inv: str
    length: int
    about: str


def load_checks(path: Path) -> list[ApalacheCheck]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    checks = []
    for i, item in enumerate(raw.get("checks", [])):
        try:
            checks.append(
                ApalacheCheck(
                    name=str(item["name"]), module=str(item["module"]), cinit=str(item["cinit"]),
                    init=str(item["init"]), next=str(item["next"]), inv=str(item["inv"]),
                    length=int(item["length"]), about=str(item.get("about", "")),
                )
            )  # fmt: skip
        except (KeyError, TypeError, ValueError) as exc:
            raise SystemExit(f"{path}: check {i}: missing or malformed field: {exc}") from exc
    return checks


def find_apalache() -> str | None:
    on_path = shutil.which("apalache-mc")
    if on_path:
        return on_path
    home = os.environ.get("APALACHE_HOME")
    if home:
        candidate = Path(home) / "bin" / "apalache-mc"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def command(apalache: str, check: ApalacheCheck, out_dir: Path) -> list[str]:
    return [
        apalache, "check",
        f"--cinit={check.cinit}", f"--init={check.init}", f"--next={check.next}",
        f"--inv={check.inv}", f"--length={check.length}", f"--out-dir={out_dir}",
        check.module,
    ]  # fmt: skip


def run_check(apalache: str, check: ApalacheCheck, spec_dir: Path, model_dir: Path) -> tuple[str, float]:
    # Apalache looks up modules next to the one it checks: give it one folder holding both.
    with tempfile.TemporaryDirectory(prefix="apalache-") as tmp:
        work = Path(tmp)
        for src in [*spec_dir.glob("*.tla"), *model_dir.glob("*.tla")]:
            shutil.copy(src, work / src.name)
        start = time.monotonic()
        proc = subprocess.run(
            command(apalache, check, work / "out"), cwd=work, capture_output=True, text=True
        )
        seconds = time.monotonic() - start
    if proc.returncode == EXIT_OK:
        return "no error found", seconds
    if proc.returncode == EXIT_COUNTEREXAMPLE:
        return "COUNTEREXAMPLE", seconds
    tail = " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])
    return f"ERROR (exit {proc.returncode}): {tail}", seconds


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tlcrunner apalache",
        epilog="exit status: 0 every check found no error; 1 a counterexample or an Apalache "
        "error; 4 Apalache is not installed, so nothing was checked (0 with --allow-missing)",
    )
    parser.add_argument("--checks", type=Path, default=None,
                        help="the checks (default: model/apalache.json of the checkout or package)")
    parser.add_argument("--allow-missing", action="store_true",
                        help="exit 0, not 4, when Apalache is not installed (for CI that accepts it)")
    args = parser.parse_args(argv)
    if args.checks is None:
        args.checks = data_root() / "model" / "apalache.json"
    checks = load_checks(args.checks)
    apalache = find_apalache()
    if apalache is None:
        print("Apalache is not installed (no apalache-mc on PATH, APALACHE_HOME not set), so no",
              file=out)  # fmt: skip
        print("Apalache check was run. The specs carry its type annotations, and these checks", file=out)
        print(f"are ready in {args.checks}:", file=out)
        for c in checks:
            print(f"  {c.name}: {c.about}", file=out)
        print(INSTALL_HINT, file=out)
        return exitcodes.OK if args.allow_missing else exitcodes.NOTHING
    model_dir = args.checks.parent
    spec_dir = model_dir.parent / "spec"
    failed = 0
    for c in checks:
        result, seconds = run_check(apalache, c, spec_dir, model_dir)
        failed += result != "no error found"
        print(f"{c.name:<40} {result}  ({seconds:.1f} s)", file=out, flush=True)
    print(f"apalache: {len(checks) - failed} without error, {failed} not", file=out)
    return exitcodes.FAILED if failed else exitcodes.OK
