"""Model-checking figures for `make bench`: seconds (median of several runs) and distinct states per
model, and what symmetry saves (distinct states and seconds with and without it).

Run from the repository root: python bench/models_bench.py [--runs N] [--models GLOB] [--size ...]
Prints a table and writes results/bench-models.json.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import statistics
import sys
import tempfile
from pathlib import Path

from tlcrunner.check import default_library
from tlcrunner.fetch import default_jar
from tlcrunner.manifest import ModelEntry, load_manifest
from tlcrunner.run import run_tlc

# The models measured by default: the main model of each spec module (every model's distinct
# states and depth are pinned in model/manifest.json and checked by `make check`).
DEFAULT_MODELS = ",".join((
    "MCPageStates_Full", "MCPageStatesRefinement_ZVMPrototype", "MCPageStatesInductive_Full",
    "MCGuestHostAtomicity_CompareAndSwap", "MCGuestHostAtomicity_CompareAndSwapProgress",
    "MCLinuxGuestProtocol_Conditions", "MCDiscardHandling_Liveness", "MCFrameReuse_TwoGuests",
    "MCHostReclaim_ZVM", "MCMemoryDowngrade_Safety", "MCMemoryDowngradeCompare_SlotsFirst",
    "MCBallooning_Safety", "MCESSA_Paper2007", "MCESSA_KVMClassicKeys",
))

# Models whose symmetry reduction is measured: one per kind of symmetric set.
SYMMETRY_MODELS = (
    "MCPageStates_Full",  # pages
    "MCFrameReuse_TwoGuests",  # guests and frames, small
    "MCGuestHostAtomicity_SharedLock",  # CPUs (one page)
    "MCFrameReuse_TwoGuestsTwoFrames",  # guests, their pages, frames
)


def measure(entry: ModelEntry, config: Path, runs: int, jar: Path, library: Path | None) -> dict[str, object]:
    seconds, distinct, outcome = [], None, None
    for _ in range(runs):
        run = run_tlc(entry.module, config, jar=jar, library=library, workers=entry.workers,
                      timeout=entry.timeout)  # fmt: skip
        seconds.append(run.seconds)
        distinct, outcome = run.tool.distinct, str(run.tool.outcome)
    return {
        "seconds_median": round(statistics.median(seconds), 2),
        "seconds_runs": [round(s, 2) for s in seconds],
        "distinct": distinct,
        "outcome": outcome,
    }


def without_symmetry(config: Path, into: Path) -> Path:
    text = "".join(line for line in config.read_text().splitlines(keepends=True)
                   if not line.startswith("SYMMETRY"))  # fmt: skip
    out = into / config.name
    out.write_text(text)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/models_bench.py")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--models", default=DEFAULT_MODELS,
                        help="fnmatch glob(s), comma-separated (default: the main model of each "
                             "spec module; '*' for every model of --size)")  # fmt: skip
    parser.add_argument("--size", choices=("ci", "deep", "all"), default="all")
    parser.add_argument("--no-symmetry-figures", action="store_true")
    parser.add_argument("--json", type=Path, default=Path("results/bench-models.json"))
    args = parser.parse_args(argv)

    manifest = load_manifest(Path("model/manifest.json"))
    jar, library = default_jar(), default_library(manifest)
    globs = args.models.split(",")
    chosen = [e for e in manifest.entries
              if (args.size == "all" or e.size == args.size)
              and any(fnmatch.fnmatchcase(e.name, g) for g in globs)]  # fmt: skip
    rows = []
    print(f"{'model':<46} {'expected':<42} {'distinct':>9} {'median s':>9}  runs", flush=True)
    for e in chosen:
        m = measure(e, e.config, args.runs, jar, library)
        rows.append({"name": e.name, "expect": str(e.expect), **m})
        runs = " ".join(f"{s:.1f}" for s in m["seconds_runs"])  # type: ignore[attr-defined]
        print(f"{e.name:<46} {str(e.expect):<42} {m['distinct'] or '-':>9} {m['seconds_median']:>9}  {runs}",
              flush=True)  # fmt: skip

    symmetry = []
    if not args.no_symmetry_figures:
        by_name = {e.name: e for e in manifest.entries}
        print(f"\n{'symmetry':<46} {'distinct with':>14} {'without':>10} {'s with':>8} {'s without':>10}")
        with tempfile.TemporaryDirectory() as tmp:
            for name in SYMMETRY_MODELS:
                e = by_name.get(name)
                if e is None:
                    continue
                with_sym = measure(e, e.config, args.runs, jar, library)
                plain = measure(e, without_symmetry(e.config, Path(tmp)), args.runs, jar, library)
                symmetry.append({"name": name, "with": with_sym, "without": plain})
                print(f"{name:<46} {with_sym['distinct']:>14} {plain['distinct']:>10} "
                      f"{with_sym['seconds_median']:>8} {plain['seconds_median']:>10}", flush=True)  # fmt: skip

    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"runs": args.runs, "models": rows, "symmetry": symmetry}, indent=2) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
