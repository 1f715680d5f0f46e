"""Print the figures of the last `make bench` (results/bench-*.json) as the Markdown tables the
README quotes, so the README's figures are copied from a run, never typed.

Run from the repository root: python bench/report.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

RESULTS = Path("results")


def _load(name: str) -> Any:
    path = RESULTS / f"bench-{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def main() -> int:
    models = _load("models")
    if models:
        print(f"Model checking (median of {models['runs']} runs; seconds include the JVM start):\n")
        print("| model | expected | distinct states | seconds |")
        print("|---|---|---|---|")
        for m in models["models"]:
            distinct = f"{m['distinct']:,}" if m["distinct"] is not None else "-"
            print(f"| `{m['name']}` | {m['expect']} | {distinct} | {m['seconds_median']} |")
        print(f"\nCI-sized models together: {sum(m['seconds_median'] for m in models['models']):.0f} s.\n")
        if models["symmetry"]:
            print("| symmetry | distinct with | without | seconds with | without |")
            print("|---|---|---|---|---|")
            for s in models["symmetry"]:
                w, wo = s["with"], s["without"]
                print(f"| `{s['name']}` | {w['distinct']:,} | {wo['distinct']:,} | "
                      f"{w['seconds_median']} | {wo['seconds_median']} |")  # fmt: skip
            print()
    refimpl = _load("refimpl")
    if refimpl:
        print(f"Reference implementation (median of {refimpl['runs']} runs of "
              f"{refimpl['ops_per_run']:,} operations):\n")  # fmt: skip
        print("| workload | operations per second |")
        print("|---|---|")
        print(f"| one page, full machine | {refimpl['single_page_ops_per_s']:,} |")
        print(f"| 64 pages, z/VM prototype, mixed | {refimpl['multi_page_ops_per_s']:,} |")
        print()
    conformance = _load("conformance")
    if conformance:
        print("Conformance suite:\n")
        print("```")
        print(json.dumps(conformance, indent=2))
        print("```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
