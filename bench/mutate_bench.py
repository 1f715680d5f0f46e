"""The mutation score for `make bench`: a seeded sample of the catalogue per spec module, run
with `python -m tlcrunner mutate`, and per module the mutants generated (the whole catalogue),
sampled, killed by a property, caught only by pins or a twin, survived, equivalent, invalid,
with the wall-clock time and the machine's load.

Run from the repository root: python bench/mutate_bench.py [--max-per-module N] [--seed S]
[--jobs J] [--budget SECONDS]. Writes results/bench-mutate.json (tlcrunner's own result file,
with the catalogue's sizes and the load added). The sample is the same on every run with the
same seed and catalogue, so scores compare across commits; the full run is
`python -m tlcrunner mutate` with no --max-per-module.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tlcrunner import mutate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/mutate_bench.py")
    parser.add_argument("--max-per-module", type=int, default=3)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=float, default=1800.0)
    parser.add_argument("--json", type=Path, default=Path("results/bench-mutate.json"))
    args = parser.parse_args(argv)
    catalogue = Counter(m.module for m in mutate.whole_catalogue())
    load_before = os.getloadavg()[0]
    started = time.monotonic()
    code = mutate.main([
        "--max-per-module", str(args.max_per_module), "--seed", str(args.seed),
        "--jobs", str(args.jobs), "--budget", str(args.budget), "--json", str(args.json),
    ])  # fmt: skip
    seconds = time.monotonic() - started
    if not args.json.exists():
        return code
    result = json.loads(args.json.read_text())
    print(f"\n{'module':<24}{'catalogue':>10}{'sampled':>9}{'killed':>8}{'pins':>6}"
          f"{'survived':>9}{'equiv.':>7}{'invalid':>8}")  # fmt: skip
    for module, row in result["scores"].items():
        print(f"{module:<24}{catalogue[module]:>10}{row['generated']:>9}{row['killed']:>8}"
              f"{row['pins']:>6}{row['survived']:>9}{row['equivalent']:>7}{row['invalid']:>8}")  # fmt: skip
    load_after = os.getloadavg()[0]
    print(f"{sum(catalogue.values())} mutants in the catalogue; {seconds:.0f} s with --jobs "
          f"{args.jobs}, load average {load_before:.1f} before, {load_after:.1f} after")  # fmt: skip
    result["catalogue"] = dict(sorted(catalogue.items()))
    result["load_average"] = [round(load_before, 1), round(load_after, 1)]
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    # A benchmark reports figures; survivors are the score, not a failure of `make bench`.
    return 0 if code in (0, 1) else code


if __name__ == "__main__":
    sys.exit(main())
