"""The held-out engine bugs (conformance/engines/essa-rs/BUGS.md) against the suite's defaults.

The Rust engine was written from PROTOCOL.md alone, and its planted bugs by the same author, who
never ran the suite against them: they measure the search, and a missed bug is a gap in the search,
never a reason to change the bug. For each bug (``ESSA_RS_BUG=<name>``) this runs, with the
suite's default options:

* ``run --machine ESSA --impl X --engine "essa-rs --impl X"``, X the Impl of the bug's shortest
  sequence in BUGS.md: caught when run exits 1 (a divergence);
* ``classify --engine "essa-rs --impl X"`` (unless ``--no-classify``): caught when classify does
  not identify the engine as X.

Prints one row per bug (caught or missed; wall seconds, and the CPU seconds of the command and
the engine it drives, less sensitive to a shared machine's load; for run, the drive and profile
that found it and the steps it took) and the medians, with the load average, and writes
results/bench-heldout.json. ``--bugs a,b`` runs some; ``--timeout S`` stops a run after S seconds
(reported as missed, or as timed out, with the time).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from conformance.c_engine import RS_SOURCES, ensure_essa_rs_built  # noqa: E402

ROW = re.compile(r"^\| \d+ \| `([\w-]+)` \| (\w+) \| ([^|]+) \| [^|]+ \| (\w+)")


def catalogue() -> list[tuple[str, str, str]]:
    """(name, class, Impl) of every bug of BUGS.md, the Impl of its shortest sequence."""
    rows = []
    for line in (RS_SOURCES / "BUGS.md").read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            rows.append((m.group(1), m.group(2), m.group(4)))
    return rows


FOUND = re.compile(r"^  (\S+) (quick tour|cover|swarm|hypothesis|walk|tour) diverged: ([\d,]+) steps")
SUMMARY = re.compile(r"^SUMMARY: .*?([\d,]+) steps in")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _timed(args: list[str], bug: str, timeout: float) -> tuple[int | None, float, float, str]:
    """Exit status, wall and CPU seconds (the command and the engine it waits for), stdout."""
    t0, c0 = time.monotonic(), _cpu()
    try:
        p = subprocess.run([sys.executable, "-m", "conformance", *args], cwd=REPO, capture_output=True,
                           text=True, timeout=timeout, env=dict(os.environ, ESSA_RS_BUG=bug))  # fmt: skip
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - t0, _cpu() - c0, "timed out"
    return p.returncode, time.monotonic() - t0, _cpu() - c0, p.stdout


def _found_by(out: str) -> tuple[str, str, int]:
    """The drive and profile of run's first divergence, and run's steps in all."""
    drive = profile = ""
    steps = 0
    for line in out.splitlines():
        m = FOUND.match(line)
        if m and not drive:
            profile, drive = m.group(1), m.group(2)
        m = SUMMARY.match(line)
        if m:
            steps = int(m.group(1).replace(",", ""))
    return drive, profile, steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bugs", help="comma-separated names (default: every bug)")
    parser.add_argument("--no-classify", action="store_true", help="run only")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per command")
    args = parser.parse_args(argv)
    engine = ensure_essa_rs_built()
    bugs = catalogue()
    if args.bugs:
        wanted = set(args.bugs.split(","))
        bugs = [b for b in bugs if b[0] in wanted]
    results: list[dict[str, object]] = []
    print("| bug | class | Impl | run | wall s | CPU s | found by | steps | classify | wall s | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, kind, impl in bugs:
        cmd = f"{engine} --impl {impl}"
        code, run_s, run_cpu, out = _timed(
            ["run", "--machine", "ESSA", "--impl", impl, "--engine", cmd, "--no-tlc",
             "--out", str(REPO / "results" / "heldout" / name)], name, args.timeout)  # fmt: skip
        run_caught = code == 1
        drive, profile, steps = _found_by(out)
        row: dict[str, object] = {"bug": name, "class": kind, "impl": impl,
               "run": "caught" if run_caught else "missed",
               "run_seconds": round(run_s, 2), "run_cpu_seconds": round(run_cpu, 2),
               "run_exit": code, "found_by": drive, "profile": profile, "steps": steps}  # fmt: skip
        cls_text, cls_s, cls_cpu = "-", 0.0, 0.0
        if not args.no_classify:
            code, cls_s, cls_cpu, out = _timed(["classify", "--engine", cmd], name, args.timeout)
            identified = code == 0 and f"identified as {impl}" in out
            # a classify that did not finish caught nothing
            cls_text = "timed out" if code is None else "missed" if identified else "caught"
            row.update({"classify": cls_text, "classify_seconds": round(cls_s, 2),
                        "classify_cpu_seconds": round(cls_cpu, 2)})  # fmt: skip
        results.append(row)
        print(f"| {name} | {kind} | {impl} | {row['run']} | {run_s:.1f} | {run_cpu:.1f} | "
              f"{drive} {profile} | {steps:,} | {cls_text} | {cls_s:.1f} | {cls_cpu:.1f} |",
              flush=True)  # fmt: skip
    caught = [r for r in results if r["run"] == "caught"]
    times = [float(str(r["run_seconds"])) for r in caught]
    cpu = [float(str(r["run_cpu_seconds"])) for r in caught]
    print(f"\nheld-out bugs: run caught {len(caught)} of {len(results)}"
          + (f", median {statistics.median(times):.1f} s (CPU {statistics.median(cpu):.1f} s), "
             f"max {max(times):.1f} s (CPU {max(cpu):.1f} s)" if times else ""))
    if not args.no_classify:
        cls = [r for r in results if r.get("classify") == "caught"]
        cls_times = [float(str(r["classify_seconds"])) for r in results]
        print(f"held-out bugs: classify caught {len(cls)} of {len(results)}"
              + (f", median {statistics.median(cls_times):.1f} s" if cls_times else ""))
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    out_file = REPO / "results" / "bench-heldout.json"
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
