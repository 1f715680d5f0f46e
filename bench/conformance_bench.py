"""Speed of the conformance suite: checked steps per second, and the time to kill each mutant.

A *checked step* is one request sent to the engine, its reply read and validated, the same step
performed on the reference implementation and the two compared (and the spec's properties
evaluated on the reported state where hypothesis drives). Every step is its own round trip: no
batching. Figures, each the median of ``--runs`` runs:

  walk        a seeded random walk (runner.run_walk): the checking loop alone, at full speed;
  hypothesis  the hypothesis state machine, quick settings, fixed seed, on an engine that passes
              (so no shrinking): what `python -m conformance run` costs per step;
  round trip  JSON lines only: the request written and the reply read and parsed, no oracle;

each in-process (the reference implementation as the engine) and over JSON lines against the C
engine (conformance/engines/cmma_engine.c). Then, for each mutant, the seconds from start to a
shrunk report (hypothesis quick settings, seeds 0 .. runs-1, no example database): the kill time.

Run: ``make bench`` or ``python bench/conformance_bench.py [--steps N] [--runs R]``. Writes
results/bench-conformance.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.c_engine import ensure_built  # noqa: E402
from conformance.engine import Engine, ReferenceEngine  # noqa: E402
from conformance.jsonlines import JsonLinesEngine  # noqa: E402
from conformance.mutants import MUTANTS  # noqa: E402
from conformance.protocol import ProfileRequest  # noqa: E402
from conformance.runner import connect, run_hypothesis, run_walk, walk_program  # noqa: E402
from conformance.stateful import settings_for  # noqa: E402

PROFILE = ProfileRequest("Full", True, "AddressingException", 2)


def median_rate(runs: int, once: Callable[[], tuple[int, float]]) -> float:
    rates = []
    for _ in range(runs):
        steps, seconds = once()
        rates.append(steps / seconds)
    return statistics.median(rates)


def walk_rate(make: Callable[[], Engine], steps: int, runs: int) -> float:
    def once() -> tuple[int, float]:
        engine = make()
        try:
            o = run_walk(connect(engine, PROFILE), steps, seed=1)
            assert o.passed, o.error
            return o.steps, o.seconds
        finally:
            engine.close()

    return median_rate(runs, once)


def hypothesis_rate(make: Callable[[], Engine], runs: int) -> float:
    def once() -> tuple[int, float]:
        engine = make()
        try:
            o = run_hypothesis(connect(engine, PROFILE), settings_for("quick", database=None), seed=1)
            assert o.passed, o.error
            return o.steps, o.seconds
        finally:
            engine.close()

    return median_rate(runs, once)


def round_trip_rate(command: str, steps: int, runs: int) -> float:
    """Requests answered per second over JSON lines, with the reply parsed and validated but no
    oracle: the transport's share of a checked step."""

    def once() -> tuple[int, float]:
        engine = JsonLinesEngine(command)
        try:
            session = connect(engine, PROFILE)
            program = walk_program(session.profile, session.info.ops, steps, random.Random(2))
            engine.reset()
            start = time.perf_counter()
            for op, page, arg in program:
                engine.step(op, page, arg)
            return steps, time.perf_counter() - start
        finally:
            engine.close()

    return median_rate(runs, once)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000, help="walk steps per run")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (the median is shown)")
    parser.add_argument("--json", type=Path, default=Path("results/bench-conformance.json"))
    args = parser.parse_args(argv)
    command = str(ensure_built())

    def c_engine() -> Engine:
        return JsonLinesEngine(command)

    print(f"conformance suite, Python {sys.version.split()[0]}; profile {PROFILE.describe()}; "
          f"median of {args.runs} runs")  # fmt: skip
    figures: dict[str, float] = {}
    rows = [
        ("walk_inprocess_steps_per_s", "walk, in-process (reference engine)",
         lambda: walk_rate(ReferenceEngine, args.steps, args.runs)),
        ("walk_jsonlines_c_steps_per_s", "walk, JSON lines (C engine)",
         lambda: walk_rate(c_engine, args.steps, args.runs)),
        ("hypothesis_inprocess_steps_per_s", "hypothesis quick, in-process (reference engine)",
         lambda: hypothesis_rate(ReferenceEngine, args.runs)),
        ("hypothesis_jsonlines_c_steps_per_s", "hypothesis quick, JSON lines (C engine)",
         lambda: hypothesis_rate(c_engine, args.runs)),
        ("round_trip_jsonlines_c_per_s", "round trip only, JSON lines (C engine)",
         lambda: round_trip_rate(command, args.steps, args.runs)),
    ]  # fmt: skip
    for key, label, measure in rows:
        figures[key] = measure()
        print(f"{label:<50} {figures[key]:>10,.0f} checked steps/s"
              if not key.startswith("round") else
              f"{label:<50} {figures[key]:>10,.0f} requests/s")  # fmt: skip

    print("\ntime to kill each mutant (hypothesis quick, seconds to a shrunk report; median of "
          f"seeds 0..{args.runs - 1})")  # fmt: skip
    kills: dict[str, dict[str, object]] = {}
    for m in MUTANTS:
        seconds, lengths, killed = [], [], 0
        for seed in range(args.runs):
            start = time.perf_counter()
            o = run_hypothesis(connect(m(), ProfileRequest()), settings_for("quick", database=None),
                               seed=seed)  # fmt: skip
            seconds.append(time.perf_counter() - start)
            if o.status == "diverged" and o.error is not None:
                killed += 1
                lengths.append(len(o.error.steps))
        kills[m.__name__] = {
            "median_seconds": round(statistics.median(seconds), 3),
            "killed": f"{killed}/{args.runs}",
            "trace_steps": lengths,
        }
        print(f"  {m.__name__:<32} {statistics.median(seconds):6.2f} s   killed {killed}/{args.runs}"
              f"   trace steps {lengths}   breaks {m.breaks}")  # fmt: skip
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "runs": args.runs, "walk_steps": args.steps,
        **{k: round(v) for k, v in figures.items()}, "mutants": kills,
    }, indent=2) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
