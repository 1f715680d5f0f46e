"""Local TLC against TLC's distributed mode, side by side in one run, for `make bench`.

One deep model is checked by one local single-worker TLC, then by a TLCServer with 1, 2 and 4
local TLCWorker processes (one thread each) on loopback. For each: wall seconds (JVM starts
included), distinct and generated states, states per second, and against the local run the ratio
of times and the extra seconds per distinct state. On a 2-core machine no speed-up is expected:
the figures give the cost of the distributed engine per state, from which docs/checking.md works out
how many hosts a larger model would need. Every run must reach the model's pinned
distinct-state count, or the script says so and exits non-zero.

Run from the repository root: python bench/distributed_bench.py [--model NAME] [--workers 1,2,4]
Prints a table and writes results/bench-distributed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from tlcrunner import distributed as dist
from tlcrunner.check import default_library
from tlcrunner.fetch import default_jar
from tlcrunner.manifest import load_manifest
from tlcrunner.run import RunResult, run_tlc

# A deep model of about a minute locally on the 2-core development machine.
DEFAULT_MODEL = "MCBallooning_TwoGuests"


def row(label: str, run: RunResult, local: dict[str, Any] | None) -> dict[str, Any]:
    distinct, generated, seconds = run.tool.distinct, run.tool.generated, run.seconds
    out: dict[str, Any] = {
        "run": label,
        "outcome": str(run.outcome),
        "seconds": round(seconds, 2),
        "distinct": distinct,
        "generated": generated,
        "distinct_per_s": round(distinct / seconds) if distinct else None,
        "generated_per_s": round(generated / seconds) if generated else None,
    }
    if local is not None and distinct:
        out["ratio_to_local"] = round(seconds / local["seconds"], 2)
        out["extra_us_per_distinct_state"] = round(
            (seconds - local["seconds"]) / distinct * 1e6, 1
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/distributed_bench.py")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--workers", default="1,2,4", help="worker counts, comma-separated")
    parser.add_argument("--json", type=Path, default=Path("results/bench-distributed.json"))
    args = parser.parse_args(argv)

    manifest = load_manifest(Path("model/manifest.json"))
    entry = next((e for e in manifest.entries if e.name == args.model), None)
    if entry is None:
        print(f"error: no model {args.model!r} in the manifest", file=sys.stderr)
        return 2
    jar, library = default_jar(), default_library(manifest)
    print(f"{entry.name}: {entry.about}\npinned distinct states: {entry.distinct}; "
          f"{os.cpu_count()} cores\n", flush=True)  # fmt: skip

    rows: list[dict[str, Any]] = []
    local = run_tlc(entry.module, entry.config, jar=jar, library=library, workers=1,
                    timeout=entry.timeout)  # fmt: skip
    rows.append(row("local TLC, 1 worker", local, None))
    _print(rows[-1])
    for n in (int(w) for w in args.workers.split(",")):
        drun = dist.run_distributed(
            entry.module, entry.config, jar=jar, library=library,
            options=dist.Options(workers=n), timeout=entry.timeout,
        )  # fmt: skip
        rows.append(row(f"TLCServer + {n} worker(s)", drun.run, rows[0]))
        rows[-1]["events"] = drun.events
        _print(rows[-1])

    wrong = [r["run"] for r in rows if r["distinct"] != entry.distinct or r["outcome"] != "holds"]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"model": entry.name, "cores": os.cpu_count(), "rows": rows},
                                    indent=2) + "\n")  # fmt: skip
    if wrong:
        print(f"error: not the pinned {entry.distinct} distinct states: {wrong}", file=sys.stderr)
        return 1
    return 0


def _print(r: dict[str, Any]) -> None:
    extra = ""
    if "ratio_to_local" in r:
        extra = f"  x{r['ratio_to_local']:<5} {r['extra_us_per_distinct_state']:>8} us/state more"
    print(f"{r['run']:<24} {r['seconds']:>8.1f} s  {r['distinct']:>9} distinct  "
          f"{r['distinct_per_s']:>7}/s  {r['generated_per_s']:>8} generated/s{extra}", flush=True)  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
