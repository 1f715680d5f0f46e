"""Speed of the reference implementation, in-process: operations per second.

Two workloads, each a fixed pseudo-random sequence of operations (seeded, so every run does the
same work), performed with ``Machine.step``; each figure is the median of 5 runs:

  single page  one page of the full machine, every operation of the spec in a mix weighted
               towards guest accesses;
  multi page   64 pages of the z/VM prototype machine, the same mix spread over the pages.

A refused step (an operation the spec does not allow in that state) counts as an operation: it
is a request the machine answered. The share of refusals is printed. The module-level
``refimpl.step(profile, ...)`` (which looks up the profile's shared machine on every call) is
measured on the multi-page workload too.

Run: ``make bench`` or ``python bench/refimpl_bench.py [--ops N] [--runs R]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import refimpl  # noqa: E402
from refimpl import NO_VALUE, Machine, Profile, State  # noqa: E402

#: Relative frequency of each operation in both workloads.
MIX: dict[str, int] = {
    "Read": 30, "Write": 25, "Extract": 5, "SetStable": 5, "SetUnused": 3, "SetVolatile": 5,
    "SetPotentialVolatile": 3, "SetStableIfNotDiscarded": 4, "ClearDirty": 4,
    "HostPreserve": 4, "HostDiscard": 4, "HostPageIn": 4, "HostZeroFill": 4,
}  # fmt: skip

Request = tuple[str, int, int]


def workload(profile: Profile, n: int, seed: int) -> list[Request]:
    rng = random.Random(seed)
    ops = rng.choices(list(MIX), weights=list(MIX.values()), k=n)
    values = profile.values
    return [
        (op, rng.randrange(profile.pages), rng.choice(values) if op == "Write" else NO_VALUE)
        for op in ops
    ]


Stepper = Callable[[State, str, int, int], object]


def perform(step: Stepper, init: State, ops: Sequence[Request]) -> tuple[float, int]:
    """Seconds to perform ``ops`` from ``init``, and how many were refused."""
    state = init
    refused = 0
    start = time.perf_counter()
    for op, page, arg in ops:
        result = step(state, op, page, arg)
        if type(result) is State:
            state = result
        else:
            refused += 1
    return time.perf_counter() - start, refused


def measure(name: str, step: Stepper, init: State, ops: Sequence[Request], runs: int) -> float:
    times = []
    refused = 0
    for _ in range(runs):
        seconds, refused = perform(step, init, ops)
        times.append(seconds)
    rate = len(ops) / statistics.median(times)
    print(f"{name:<44} {rate:>12,.0f} ops/s   ({len(ops):,} ops per run, "
          f"{100 * refused / len(ops):.0f}% refused, median of {runs})")  # fmt: skip
    return rate


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=200_000, help="operations per run")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (the median is shown)")
    parser.add_argument("--json", type=Path, default=Path("results/bench-refimpl.json"))
    args = parser.parse_args(argv)

    single = Profile("Full", True, "AddressingException", pages=1)
    multi = Profile("ZVMPrototype", True, "AddressingException", pages=64, values=(0, 1, 2, 3))
    print(f"refimpl, Python {sys.version.split()[0]}")
    ms = Machine(single)
    one = workload(single, args.ops, 1)
    figures = {
        "single_page_ops_per_s": measure("single page (Full), Machine.step", ms.step, ms.init(),
                                         one, args.runs),  # fmt: skip
    }
    mm = Machine(multi)
    mixed = workload(multi, args.ops, 2)
    figures["multi_page_ops_per_s"] = measure(
        "64 pages mixed (ZVMPrototype), Machine.step", mm.step, mm.init(), mixed, args.runs
    )
    module_step = functools.partial(refimpl.step, multi)
    figures["multi_page_module_step_ops_per_s"] = measure(
        "64 pages mixed, refimpl.step(profile, ...)", module_step, mm.init(), mixed, args.runs
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"runs": args.runs, "ops_per_run": args.ops,
                                     **{k: round(v) for k, v in figures.items()}}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
