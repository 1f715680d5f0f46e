"""The held-out catalogue of kernel regressions (regressions.json) against ``make kernel-check``.

Each entry names a function of the classic KVM ESSA code and a small edit inside it (``find`` ->
``replace``), as a patch to the kernel could make it. The catalogue was written from the kernel's
code by someone who had not seen the harness or the driver, so it measures them: a regression the
default kernel-check misses is a gap in the harness or the search, never a reason to change the
entry.

For each entry: the tree the classic harness reads is copied (``KERNEL_SRC``, else arch/s390 and
the other files it takes out of Debian's linux-source tarball, unpacked once), the edit is applied inside the named function only (some
snippets occur elsewhere in the file), and ``python -m conformance.engines.linux.check`` runs on
the copy with its default flags. A non-zero exit other than 3 (no harness could be built) is a
catch; the wall time of each run is kept. ``python -m conformance.engines.linux.regressions``
prints the table; bench/kernel_regressions_bench.py records it.

An entry whose function the harness does not compile cannot change what the harness does: it is
reported as not exercised, with the function named, and counts as missed.
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
from typing import Final

from .extract import ExtractError, find_function, read_source
from .kernels import HARNESSES, SEARCHED, kernel_tree

HERE: Final = Path(__file__).resolve().parent
CATALOGUE: Final = HERE / "regressions.json"
#: The held-out catalogue of the migration paths (peek, GET batching, START/STOP, SET on the
#: destination, memslots), written blind in the same format; run with ``--held-out``.
HELD_OUT: Final = HERE / "regressions_heldout.json"
REPO: Final = HERE.parents[2]


@dataclass(frozen=True)
class Regression:
    name: str
    file: str
    function: str
    find: str
    replace: str
    what: str
    kind: str


@dataclass(frozen=True)
class Result:
    regression: Regression
    verdict: str  # "caught", "missed", "not exercised", "did not build"
    seconds: float
    exit_status: int | None
    summary: str  # the check's summary line, or why it was not run


def load(path: Path = CATALOGUE) -> list[Regression]:
    return [Regression(r["name"], r["file"], r["function"], r["find"], r["replace"], r["what"],
                       r["class"]) for r in json.loads(path.read_text(encoding="utf-8"))]  # fmt: skip


def apply(text: str, r: Regression) -> str:
    """``text`` (a whole source file) with the regression applied inside its function only.
    Raises ExtractError when the function is missing or the snippet is not in it exactly once."""
    body, _, _ = find_function(text, r.function)
    body = body.rstrip("\n")
    if text.count(body) != 1:
        raise ExtractError(f"{r.file}: {r.function} is not unique in the file")
    if body.count(r.find) != 1:
        raise ExtractError(f"{r.name}: the snippet occurs {body.count(r.find)} times in {r.function}, "
                           "not once: the tree differs from the one the catalogue was written for")  # fmt: skip
    return text.replace(body, body.replace(r.find, r.replace))


#: The catalogue is of classic KVM's code (Linux 6.12): the classic harness measures it.
HARNESS: Final = HARNESSES["classic"]


def compiled_functions() -> frozenset[str]:
    """Every kernel function the classic harness compiles."""
    return frozenset(w.name for w in HARNESS.wants)


def base_tree(kernel_src: str | None) -> Path:
    """The tree the copies are made from: ``kernel_src``, else the tarball's files the classic
    harness takes (all of arch/s390), unpacked once under .cache/linux/src/."""
    return kernel_tree(HARNESS, kernel_src)


def _copy(base: Path, catalogue: list[Regression], dest: Path) -> None:
    paths = {SEARCHED, "Makefile"} | {w.path for w in HARNESS.wants} | {r.file for r in catalogue}
    for rel in sorted(paths):
        src = base / rel
        if src.is_dir():
            shutil.copytree(src, dest / rel, dirs_exist_ok=True)
        elif src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest / rel)


def check_one(r: Regression, base: Path, catalogue: list[Regression],
              flags: tuple[str, ...] = ()) -> Result:  # fmt: skip
    if r.function not in compiled_functions():
        return Result(r, "not exercised", 0.0, None,
                      f"no harness compiles {r.function} ({r.file})")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix=f"kernel-{r.name}-") as tmp:
        tree = Path(tmp) / "linux"
        _copy(base, catalogue, tree)
        try:
            (tree / r.file).write_text(apply(read_source(tree, r.file), r), encoding="utf-8")
        except ExtractError as exc:
            return Result(r, "did not build", 0.0, None, str(exc))
        t0 = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "conformance.engines.linux.check",
                            "--kernel-src", str(tree), "--out", str(Path(tmp) / "out"), *flags],
                           cwd=REPO, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=str(REPO)))  # fmt: skip
        seconds = time.monotonic() - t0
    # the summary line ("kernel-check: ... diverge; first: ..."), else stderr's last word
    said = [ln for ln in p.stdout.splitlines() if ln.startswith("kernel-check: ")]
    last = said[-1] if said else next((ln for ln in reversed(p.stderr.splitlines()) if ln.strip()), "")
    if p.returncode == 3:
        verdict = "did not build"
    else:
        verdict = "caught" if p.returncode != 0 else "missed"
    return Result(r, verdict, seconds, p.returncode, last.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.engines.linux.regressions",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    parser.add_argument("--kernel-src", help="the tree to plant the regressions in "
                                             "(default: Debian's linux-source-6.12 tarball)")  # fmt: skip
    parser.add_argument("--names", help="comma-separated names (default: the whole catalogue)")
    parser.add_argument("--check-flags", default="", help="extra flags for kernel-check")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--held-out", action="store_true",
                        help=f"the held-out catalogue ({HELD_OUT.name}) instead of {CATALOGUE.name}")
    args = parser.parse_args(argv)
    catalogue = load(HELD_OUT if args.held_out else CATALOGUE)
    chosen = catalogue
    if args.names:
        wanted = args.names.split(",")
        unknown = sorted(set(wanted) - {r.name for r in catalogue})
        if unknown:
            parser.error(f"not in the catalogue: {', '.join(unknown)}")
        chosen = [r for r in catalogue if r.name in wanted]
    try:
        base = base_tree(args.kernel_src)
    except ExtractError as exc:
        print(f"regressions: {exc}", file=sys.stderr)
        return 3
    results = []
    print("| regression | function | class | verdict | seconds | kernel-check's summary |")
    print("|---|---|---|---|---|---|")
    for r in chosen:
        res = check_one(r, base, catalogue, tuple(args.check_flags.split()))
        results.append(res)
        print(f"| {r.name} | {r.function} | {r.kind} | {res.verdict} | {res.seconds:.1f} | "
              f"{res.summary.replace('|', '/')} |", flush=True)  # fmt: skip
    caught = sum(r.verdict == "caught" for r in results)
    print(f"\nregressions: {caught} of {len(results)} caught")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([{"name": r.regression.name, "verdict": r.verdict,
                                          "seconds": round(r.seconds, 2), "exit": r.exit_status,
                                          "summary": r.summary} for r in results], indent=1) + "\n")  # fmt: skip
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
