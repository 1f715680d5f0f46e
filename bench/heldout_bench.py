"""The held-out engine bugs (conformance/engines/essa-rs/BUGS.md) against the suite's defaults.

The Rust engine was written from PROTOCOL.md alone, and its planted bugs by the same author, who
never ran the suite against them: they measure the search, and a missed bug is a gap in the search,
never a reason to change the bug. For each bug (``ESSA_RS_BUG=<name>``) this runs, with the
suite's default options:

* ``run --machine ESSA --impl X --engine "essa-rs --impl X"``, X the Impl of the bug's shortest
  sequence in BUGS.md: caught when run exits 1 (a divergence);
* ``classify --engine "essa-rs --impl X"`` (unless ``--no-classify``): caught when classify does
  not identify the engine as X.

Prints one row per bug (caught or missed, seconds) and the medians, and writes
results/bench-heldout.json. ``--bugs a,b`` runs some; ``--timeout S`` stops a run after S seconds
(reported as missed, with the time).
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


def _timed(args: list[str], bug: str, timeout: float) -> tuple[int | None, float, str]:
    t0 = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-m", "conformance", *args], cwd=REPO, capture_output=True,
                           text=True, timeout=timeout, env=dict(os.environ, ESSA_RS_BUG=bug))  # fmt: skip
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - t0, "timed out"
    last = next((line for line in reversed(p.stdout.splitlines()) if line.strip()), "")
    return p.returncode, time.monotonic() - t0, p.stdout if "identified" in p.stdout else last


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
    results = []
    print("| bug | class | Impl | run | seconds | classify | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name, kind, impl in bugs:
        cmd = f"{engine} --impl {impl}"
        code, run_s, _ = _timed(["run", "--machine", "ESSA", "--impl", impl, "--engine", cmd, "--no-tlc",
                                 "--quiet", "--out", str(REPO / "results" / "heldout" / name)],
                                name, args.timeout)  # fmt: skip
        run_caught = code == 1
        row = {"bug": name, "class": kind, "impl": impl, "run": "caught" if run_caught else "missed",
               "run_seconds": round(run_s, 2), "run_exit": code}  # fmt: skip
        cls_text, cls_s = "-", 0.0
        if not args.no_classify:
            code, cls_s, out = _timed(["classify", "--engine", cmd], name, args.timeout)
            identified = code == 0 and f"identified as {impl}" in out
            cls_text = "missed" if identified else "caught"
            row.update({"classify": cls_text, "classify_seconds": round(cls_s, 2)})
        results.append(row)
        print(f"| {name} | {kind} | {impl} | {row['run']} | {run_s:.1f} | {cls_text} | "
              f"{cls_s:.1f} |", flush=True)  # fmt: skip
    caught = [r for r in results if r["run"] == "caught"]
    times = [float(r["run_seconds"]) for r in caught]  # type: ignore[arg-type]
    print(f"\nheld-out bugs: run caught {len(caught)} of {len(results)}"
          + (f", median {statistics.median(times):.1f} s, max {max(times):.1f} s" if times else ""))
    if not args.no_classify:
        print(f"held-out bugs: classify caught {sum(r.get('classify') == 'caught' for r in results)} "
              f"of {len(results)}")
    out_file = REPO / "results" / "bench-heldout.json"
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
