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

The ESSA mode (``--machine ESSA``), on the profile KVMClassic with storage keys, facility 147, a
CBRL of two and two pages: checked steps per second of ``run``'s tour (the one-page tour and the
queue tour) and of its hypothesis drive, in-process (the reference engine) and over JSON lines,
against the Go engine (conformance/engines/essa-go) and against ``python -m conformance.essa``
(the reference engine behind a Python JSON-lines server, whose own cost is in the figure); the
JSON-lines round trip alone (Go engine); and, for each ESSA mutant,
the seconds ``run`` with its default settings takes to report it (every profile, 2 pages).

Last, the lines the unification of the two machines removed and added: ``git diff --numstat -M``
of the commit "refimpl: one engine, one package per machine" (``--unification``) over refimpl/
and its tests, with the files it deleted outright (the second machine's copies).

Run: ``make bench`` or ``python bench/conformance_bench.py [--steps N] [--runs R]``. Writes
results/bench-conformance.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.c_engine import ensure_built, ensure_essa_go_built  # noqa: E402
from conformance.engine import Engine, ReferenceEngine  # noqa: E402
from conformance.jsonlines import JsonLinesEngine  # noqa: E402
from conformance.mutants import MUTANTS  # noqa: E402
from conformance.protocol import ProfileRequest  # noqa: E402
from conformance.runner import connect, run_hypothesis, run_walk, walk_program  # noqa: E402
from conformance.stateful import settings_for  # noqa: E402
from conformance.driver import Drive, run_hypothesis as essa_hypothesis  # noqa: E402
from conformance.driver import run_machine, run_programs  # noqa: E402
from conformance.essa import (  # noqa: E402
    ESSA_DRIVER, EssaEngine, EssaJsonLinesEngine, EssaProfileRequest, KVMClassicEngine,
    all_requests, tours,
)
from conformance.essa_mutants import ESSA_MUTANTS  # noqa: E402

PROFILE = ProfileRequest("Full", True, "AddressingException", 2)
ESSA_FIXED = EssaProfileRequest(impl="KVMClassic", storage_keys=True, facility147=True, cbrl_size=2)
ESSA_SERVER = f"{sys.executable} -m conformance.essa --impl KVMClassic"


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


def essa_rates(make: Callable[[], EssaEngine], runs: int) -> tuple[float, float]:
    """Checked steps per second of ESSA run's tour and of its hypothesis drive."""
    profile = ESSA_DRIVER.profiles(ESSA_FIXED, 2)[0]
    tour_rates, hyp_rates = [], []
    for seed in range(runs):
        engine = make()
        try:
            ESSA_DRIVER.connect(engine, profile)
            drive = Drive(ESSA_DRIVER, engine, profile)
            o = run_programs(drive, tours(profile))
            assert o.passed, o.error
            tour_rates.append(o.steps / o.seconds)
            o = essa_hypothesis(drive, all_requests(profile), seed=seed)
            assert o.passed, o.error
            hyp_rates.append(o.steps / o.seconds)
        finally:
            engine.close()
    return statistics.median(tour_rates), statistics.median(hyp_rates)


def essa_round_trip_rate(command: str, steps: int, runs: int) -> float:
    def once() -> tuple[int, float]:
        engine = EssaJsonLinesEngine(command)
        try:
            profile = ESSA_DRIVER.profiles(ESSA_FIXED, 2)[0]
            ESSA_DRIVER.connect(engine, profile)
            rng = random.Random(2)
            reqs = all_requests(profile)
            program = [rng.choice(reqs) for _ in range(steps)]
            engine.reset()
            start = time.perf_counter()
            for r in program:
                engine.step(r)
            return steps, time.perf_counter() - start
        finally:
            engine.close()

    return median_rate(runs, once)


def unification_lines(commit: str) -> dict[str, object]:
    """Lines the commit ``commit`` added and removed in refimpl/ and its tests (renames
    followed), and the files it deleted outright with their lengths."""
    out = subprocess.run(
        ["git", "diff", "--numstat", "-M", f"{commit}^", commit, "--", "refimpl", "tests"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    added = removed = 0
    deleted: dict[str, int] = {}
    for line in out.splitlines():
        a, r, path = line.split("\t", 2)
        if a == "-" or ("refimpl" not in path):
            continue
        added, removed = added + int(a), removed + int(r)
        if a == "0" and "=>" not in path:
            deleted[path] = int(r)
    return {"added": added, "removed": removed, "deleted_files": deleted}


def essa(args: argparse.Namespace) -> dict[str, object]:
    print(f"\nESSA mode, {ESSA_DRIVER.short_name(ESSA_DRIVER.profiles(ESSA_FIXED, 2)[0])}; "
          f"median of {args.runs} runs")  # fmt: skip
    figures: dict[str, object] = {}
    go = f"{ensure_essa_go_built()} -impl KVMClassic"
    for key, label, make in (
        ("inprocess", "in-process (reference engine)", KVMClassicEngine),
        ("jsonlines_go", "JSON lines (Go engine)", lambda: EssaJsonLinesEngine(go)),
        ("jsonlines_python", "JSON lines (python -m conformance.essa)",
         lambda: EssaJsonLinesEngine(ESSA_SERVER)),
    ):  # fmt: skip
        tour, hyp = essa_rates(make, args.runs)  # type: ignore[arg-type]
        figures[f"essa_tour_{key}_steps_per_s"] = round(tour)
        figures[f"essa_hypothesis_{key}_steps_per_s"] = round(hyp)
        print(f"run tour, {label:<42} {tour:>10,.0f} checked steps/s")
        print(f"run hypothesis, {label:<36} {hyp:>10,.0f} checked steps/s")
    rt = essa_round_trip_rate(go, min(args.steps, 20_000), args.runs)
    figures["essa_round_trip_jsonlines_go_per_s"] = round(rt)
    print(f"{'round trip only, JSON lines (Go engine)':<57} {rt:>10,.0f} requests/s")
    print("\ntime for `run --machine ESSA` (default settings, every profile, 2 pages) to report "
          "each ESSA mutant")  # fmt: skip
    kills: dict[str, object] = {}
    for m in ESSA_MUTANTS:
        start = time.perf_counter()
        outcomes = run_machine(ESSA_DRIVER, m(), ESSA_DRIVER.profiles(
            EssaProfileRequest(impl=m.impl), 2))  # fmt: skip
        seconds = time.perf_counter() - start
        last = outcomes[-1]
        steps = len(last.error.steps) if last.error is not None else 0
        kills[m.__name__] = {"seconds": round(seconds, 3), "killed": last.status == "diverged",
                             "trace_steps": steps, "shows": m.shows}  # fmt: skip
        print(f"  {m.__name__:<26} {seconds:6.2f} s  {'killed' if last.status == 'diverged' else 'SURVIVED'}"
              f"  by {last.drive:<10} trace steps {steps:<3} {m.shows}")  # fmt: skip
    median = statistics.median(float(k["seconds"]) for k in kills.values())  # type: ignore[index]
    figures["essa_mutants"] = kills
    figures["essa_mutant_median_seconds"] = round(median, 3)
    print(f"  median {median:.2f} s")
    lines = unification_lines(args.unification)
    figures["unification_lines"] = lines
    deleted = lines["deleted_files"]
    assert isinstance(deleted, dict)
    print(f"\nthe unification ({args.unification}), refimpl/ and its tests: "
          f"+{lines['added']} -{lines['removed']} lines; deleted outright: "
          + ", ".join(f"{p} ({n})" for p, n in deleted.items()))  # fmt: skip
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000, help="walk steps per run")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (the median is shown)")
    parser.add_argument("--json", type=Path, default=Path("results/bench-conformance.json"))
    parser.add_argument("--unification", default="4ebb175",
                        help='the commit "refimpl: one engine, one package per machine"')
    parser.add_argument("--essa-only", action="store_true", help="the ESSA mode's figures only")
    args = parser.parse_args(argv)
    if args.essa_only:
        figures_essa = essa(args)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.with_name("bench-conformance-essa.json").write_text(
            json.dumps(figures_essa, indent=2) + "\n")
        return 0
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
    figures_essa = essa(args)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "runs": args.runs, "walk_steps": args.steps,
        **{k: round(v) for k, v in figures.items()}, "mutants": kills, **figures_essa,
    }, indent=2) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
