"""Speed of the conformance suite: checked steps per second, and the time to kill each mutant.

A *checked step* is one request sent to the engine, its reply read and validated, the same step
performed on the reference implementation and the two compared. Over JSON lines the driver keeps
up to ``--window`` requests in flight ahead of the replies it judges (default the driver's,
conformance.jsonlines.DEFAULT_WINDOW; 1 is lock-step, one round trip per step), and prints the
window used. Both machines run on the one driver (conformance/driver.py). Figures, each the
median of ``--runs`` runs, with the load average (the machine may be shared):

PageStates mode, profile Full, host service, AddressingException, 2 pages:

  walk        a seeded random walk (driver.run_walk): the checking loop alone, at full speed;
  hypothesis  the hypothesis drive, quick settings, fixed seed, on an engine that passes (so no
              shrinking);
  round trip  JSON lines only, lock-step: the request written and the reply read and parsed, no
              oracle;

each in-process (the reference implementation as the engine) and over JSON lines against the C
engine (conformance/engines/cmma_engine.c). Then, for each mutant, the seconds ``run`` with its
default settings (tour, then hypothesis quick) takes to report it with its rule named, seeds
0 .. runs-1: the kill time.

ESSA mode (``--machine ESSA``), on the profile KVMClassic with storage keys, facility 147, a CBRL
of two and two pages: checked steps per second of ``run`` with its default settings (the whole
run, and its tour and hypothesis drives apart), in-process (the reference engine) and over JSON
lines, against the Go engine (conformance/engines/essa-go), pipelined and lock-step, and against
``python -m conformance.essa`` (the reference engine behind a Python JSON-lines server, whose own
cost is in the figure); for the Go engine also the driver's own rate, checked steps per second of
the driver process's CPU time, which is what an idle machine's wall clock approaches when the
engine runs on the other core; the JSON-lines round trip alone (Go engine); and, for each ESSA
mutant, the seconds
``run`` with its default settings takes to report it (every profile, 2 pages), median of seeds
0 .. runs-1.

The search of ``run --machine ESSA`` (``--search-only``, and part of the ESSA figures): per
Impl, with the default budget on every profile, the coverage graphs' sizes and the tours'
lengths, the default run's seconds in-process (graphs enumerated, and from the cache) and over
JSON lines, and its checked steps per second.

Last, the lines the unifications removed and added (``git diff --numstat -M``): the commit
"refimpl: one engine, one package per machine" (``--unification``) over refimpl/ and its tests,
and the commits that put the page-state mode on the one driver (``--driver-unification``) over
conformance/, tests/ and bench/, each with the files deleted outright.

Run: ``make bench`` or ``python bench/conformance_bench.py [--steps N] [--runs R] [--window N]
[--essa-only | --pagestates-only]``. Writes results/bench-conformance.json (``--essa-only``:
results/bench-conformance-essa.json).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.c_engine import ensure_built, ensure_essa_go_built  # noqa: E402
from conformance.commands import default_budget  # noqa: E402
from conformance.driver import Drive, run_hypothesis, run_programs, run_walk  # noqa: E402
from conformance.search import run_machine  # noqa: E402
from conformance.search import graph_and_walks, search  # noqa: E402
from conformance.pagestates.engine import Engine, ReferenceEngine  # noqa: E402
from conformance.essa import (  # noqa: E402
    ENGINES, ESSA_DRIVER, EssaEngine, EssaJsonLinesEngine, EssaProfileRequest, KVMClassicEngine,
    all_requests, forget_oracle_answers,
)
from conformance.jsonlines import DEFAULT_WINDOW, JsonLinesEngine  # noqa: E402
from conformance.machines import Mode  # noqa: E402
from conformance.pagestates import PAGESTATES_DRIVER, Ask  # noqa: E402
from conformance.protocol import ProfileRequest  # noqa: E402

PROFILE = ProfileRequest("Full", True, "AddressingException", 2)
ESSA_FIXED = EssaProfileRequest(impl="KVMClassic", storage_keys=True, facility147=True, cbrl_size=2)
ESSA_SERVER = f"{sys.executable} -m conformance.essa --impl KVMClassic"


def median_rate(runs: int, once: Callable[[], tuple[int, float]]) -> float:
    rates = []
    for _ in range(runs):
        steps, seconds = once()
        rates.append(steps / seconds)
    return statistics.median(rates)


def _connected(make: Callable[[], Engine]) -> tuple[Engine, Drive[Any, Any, Any, Any]]:
    engine = make()
    _, profile = PAGESTATES_DRIVER.connect(engine, Ask(PROFILE))
    return engine, Drive(PAGESTATES_DRIVER, engine, profile)


def walk_rate(make: Callable[[], Engine], steps: int, runs: int) -> float:
    def once() -> tuple[int, float]:
        engine, drive = _connected(make)
        try:
            o = run_walk(drive, steps, seed=1)
            assert o.passed, o.error
            return o.steps, o.seconds
        finally:
            engine.close()

    return median_rate(runs, once)


def hypothesis_rate(make: Callable[[], Engine], runs: int) -> float:
    def once() -> tuple[int, float]:
        engine, drive = _connected(make)
        try:
            examples, steps = PAGESTATES_DRIVER.sizes["quick"]
            o = run_hypothesis(drive, examples=examples, max_steps=steps, seed=1)
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
            _, profile = PAGESTATES_DRIVER.connect(engine, Ask(PROFILE))
            rng = random.Random(2)
            program = [rng.choice(PAGESTATES_DRIVER.requests(profile)) for _ in range(steps)]
            engine.reset()
            start = time.perf_counter()
            for op, page, arg in program:
                engine.step(op, page, arg)
            return steps, time.perf_counter() - start
        finally:
            engine.close()

    return median_rate(runs, once)


def kill_times(mode: Mode, runs: int) -> dict[str, dict[str, object]]:
    """For each mutant of ``mode``: the seconds ``run`` with its default budget (the ESSA mode:
    the coverage tour, then the swarm walk; PageStates: the tour, then hypothesis quick; every
    profile ``mutants`` gives it; the coverage graphs from the cache) takes to report it, seeds 0 .. runs-1,
    their median, and how many runs killed it."""
    kills: dict[str, dict[str, object]] = {}
    for m in mode.mutants():
        seconds, lengths, killed, by = [], [], 0, ""
        for seed in range(runs):
            forget_oracle_answers()
            start = time.perf_counter()
            budget = default_budget(mode, getattr(m, "impl", None))
            last = search(mode, m(), mode.mutant_profiles(m), budget, seed=seed,
                          stop_at_first=True)[-1]  # fmt: skip
            seconds.append(time.perf_counter() - start)
            if mode.kills(m, last):
                killed += 1
                assert last.error is not None
                lengths.append(len(last.error.steps))
                by = last.drive
        median = statistics.median(seconds)
        kills[m.__name__] = {"median_seconds": round(median, 3), "killed": f"{killed}/{runs}",
                             "trace_steps": lengths, "by": by}  # fmt: skip
        print(f"  {m.__name__:<32} {median:6.2f} s   killed {killed}/{runs} (by {by or '-'})"
              f"   trace steps {lengths}")  # fmt: skip
    median_all = statistics.median(float(k["median_seconds"]) for k in kills.values())  # type: ignore[arg-type]
    print(f"  median over the mutants {median_all:.2f} s")
    return kills


def _cpu() -> float:
    """This process's CPU seconds (user and system)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def essa_run_rates(make: Callable[[], EssaEngine], runs: int) -> dict[str, float]:
    """Checked steps per second of ``run --machine ESSA`` with its default budget on one
    profile: the whole run (the coverage tour, then the swarm walk), and each drive on its own; and the whole
    run's steps per second of the driver's own CPU time (``cpu``); medians."""
    profile = ESSA_DRIVER.profiles(ESSA_FIXED, 2)[0]
    rates: dict[str, list[float]] = {"run": [], "cover": [], "swarm": [], "cpu": []}
    for seed in range(runs):
        forget_oracle_answers()
        engine = make()
        try:
            cpu = _cpu()
            outcomes = search(ESSA_DRIVER, engine, [profile],
                              default_budget(ESSA_DRIVER, profile.impl), seed=seed)  # fmt: skip
            cpu = _cpu() - cpu
            assert all(o.passed for o in outcomes), outcomes
            for o in outcomes:
                rates[o.drive].append(o.steps / o.seconds)
            total = sum(o.steps for o in outcomes)
            rates["run"].append(total / sum(o.seconds for o in outcomes))
            rates["cpu"].append(total / cpu)
        finally:
            engine.close()
    return {k: statistics.median(v) for k, v in rates.items()}


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


def unification_lines(commit: str, paths: Sequence[str] = ("refimpl", "tests"),
                      keep: str = "refimpl") -> dict[str, object]:
    """Lines the commit ``commit`` (or the range ``A..B``) added and removed under ``paths``
    (renames followed; only files whose path contains ``keep``), and the files it deleted
    outright with their lengths."""
    span = commit.split("..") if ".." in commit else [f"{commit}^", commit]
    out = subprocess.run(
        ["git", "diff", "--numstat", "-M", *span, "--", *paths],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    added = removed = 0
    deleted: dict[str, int] = {}
    for line in out.splitlines():
        a, r, path = line.split("\t", 2)
        if a == "-" or (keep not in path):
            continue
        added, removed = added + int(a), removed + int(r)
        if a == "0" and "=>" not in path:
            deleted[path] = int(r)
    return {"added": added, "removed": removed, "deleted_files": deleted}


def search_figures(args: argparse.Namespace) -> dict[str, object]:
    """Per Impl, with ``run``'s default budget on every profile (2 pages): the coverage graphs
    (states, edges, whether the budget cut them) and tours (walks, steps), enumerated afresh
    (no cache); the default run's seconds in-process, cold (graphs enumerated) and warm (from
    the cache), with its checked steps per second; and over JSON lines (the reference engine
    behind ``python -m conformance.essa``) the warm run's seconds and steps per second."""
    import tempfile

    figures: dict[str, object] = {"load_average": round(os.getloadavg()[0], 1)}
    print(f"\nthe search of `run --machine ESSA`, default budget, every profile, 2 pages; load "
          f"average {figures['load_average']} on {os.cpu_count()} CPUs")  # fmt: skip
    for impl in args.impls.split(","):
        budget = default_budget(ESSA_DRIVER, impl)
        profiles = ESSA_DRIVER.profiles(EssaProfileRequest(impl=impl), 2)
        rows: list[dict[str, Any]] = []
        with tempfile.TemporaryDirectory() as cache:
            for p in profiles:
                g, walks, _ = graph_and_walks(ESSA_DRIVER, p, budget, Path(cache))
                rows.append({"profile": ESSA_DRIVER.short_name(p), "states": len(g.states),
                             "edges": len(g.edges), "complete": g.complete,
                             "walks": len(walks), "tour_steps": sum(map(len, walks)),
                             "seconds": round(g.seconds, 2), "sizes": g.sizes})  # fmt: skip
            runs: dict[str, tuple[float, int]] = {}
            for label, cached in (("cold", None), ("warm", Path(cache))):
                forget_oracle_answers()
                start = time.perf_counter()
                outcomes = search(ESSA_DRIVER, ENGINES[impl](), profiles, budget,
                                  cache=cached)  # fmt: skip
                runs[label] = (time.perf_counter() - start, sum(o.steps for o in outcomes))
                assert all(o.passed for o in outcomes), impl
            if not args.no_json_lines_search:
                forget_oracle_answers()
                engine = EssaJsonLinesEngine(f"{sys.executable} -m conformance.essa --impl {impl}")
                start = time.perf_counter()
                try:
                    outcomes = search(ESSA_DRIVER, engine, profiles, budget, cache=Path(cache))
                finally:
                    engine.close()
                runs["jsonlines"] = (time.perf_counter() - start, sum(o.steps for o in outcomes))
        states = [int(r["states"]) for r in rows]
        steps = [int(r["tour_steps"]) for r in rows]
        print(f"{impl}: {len(profiles)} profiles; {budget.describe()}")
        print(f"  graph states per profile {min(states):,} .. {max(states):,} (median "
              f"{statistics.median(states):,.0f}); edges {sum(int(r['edges']) for r in rows):,} "
              f"in all, {sum(not r['complete'] for r in rows)} profiles cut by the budget; tour "
              f"steps per profile {min(steps):,} .. {max(steps):,}, {sum(steps):,} in all; "
              f"enumeration and walks {sum(float(r['seconds']) for r in rows):.1f} s")  # fmt: skip
        for label, (sec, n) in runs.items():
            what = {"cold": "in-process, graphs enumerated", "warm": "in-process, graphs cached",
                    "jsonlines": "JSON lines (python -m conformance.essa), graphs cached"}[label]  # fmt: skip
            print(f"  default run, {what:<52} {sec:6.1f} s  {n:>10,} steps  {n / sec:>8,.0f} steps/s")
        figures[impl] = {"profiles": rows, "runs": {k: {"seconds": round(v[0], 1), "steps": v[1]}
                                                     for k, v in runs.items()}}  # fmt: skip
    return figures


def essa(args: argparse.Namespace) -> dict[str, object]:
    load = os.getloadavg()
    window = args.window
    print(f"\nESSA mode, {ESSA_DRIVER.short_name(ESSA_DRIVER.profiles(ESSA_FIXED, 2)[0])}; "
          f"median of {args.runs} runs; JSON lines with a window of {window} requests in flight "
          f"(lock-step: 1); load average {load[0]:.1f} on {os.cpu_count()} CPUs (a shared "
          "machine: the figures scale with it)")  # fmt: skip
    figures: dict[str, object] = {"load_average": round(load[0], 1), "cpus": os.cpu_count(),
                                  "window": window}  # fmt: skip
    go = f"{ensure_essa_go_built()} -impl KVMClassic"
    for key, label, make in (
        ("inprocess", "in-process (reference engine)", KVMClassicEngine),
        ("jsonlines_go", f"JSON lines (Go engine), window {window}",
         lambda: EssaJsonLinesEngine(go, window=window)),
        ("jsonlines_go_lockstep", "JSON lines (Go engine), lock-step",
         lambda: EssaJsonLinesEngine(go, window=1)),
        ("jsonlines_python", f"JSON lines (python -m conformance.essa), window {window}",
         lambda: EssaJsonLinesEngine(ESSA_SERVER, window=window)),
    ):  # fmt: skip
        rates = essa_run_rates(make, args.runs)
        for drive, rate in rates.items():
            if drive == "cpu" and not key.startswith("jsonlines_go"):
                continue
            figures[f"essa_{drive}_{key}_steps_per_s"] = round(rate)
            what = {"run": "run", "cpu": "run, per second of the driver's CPU"}.get(
                drive, "run, " + drive)
            print(f"{what + ', ' + label:<92} {rate:>10,.0f} checked steps/s")
    figures["load_average_end"] = round(os.getloadavg()[0], 1)
    print(f"(load average at the end: {figures['load_average_end']})")
    rt = essa_round_trip_rate(go, min(args.steps, 20_000), args.runs)
    figures["essa_round_trip_jsonlines_go_per_s"] = round(rt)
    print(f"{'round trip only, JSON lines (Go engine)':<57} {rt:>10,.0f} requests/s")
    print(f"\ntime for `run --machine ESSA` (default settings, every profile, 2 pages) to report "
          f"each ESSA mutant (median of seeds 0..{args.runs - 1})")  # fmt: skip
    kills = kill_times(ESSA_DRIVER, args.runs)
    figures["search"] = search_figures(args)
    figures["essa_mutants"] = kills
    figures["essa_mutant_median_seconds"] = round(statistics.median(
        float(k["median_seconds"]) for k in kills.values()), 3)  # type: ignore[arg-type]
    for key, commit, paths, keep in (
        ("unification_lines", args.unification, ("refimpl", "tests"), "refimpl"),
        ("driver_unification_lines", args.driver_unification,
         ("conformance", "tests", "bench"), ""),
    ):  # fmt: skip
        lines = unification_lines(commit, paths, keep)
        figures[key] = lines
        deleted = lines["deleted_files"]
        assert isinstance(deleted, dict)
        print(f"\n{key.replace('_', ' ')} ({commit}), {', '.join(paths)}: "
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
    parser.add_argument("--driver-unification", default="4264a66..HEAD",
                        help="the commits that put the page-state mode on the one driver")
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW,
                        help="requests in flight over JSON lines (1: lock-step; default %(default)s)")
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--essa-only", action="store_true", help="the ESSA mode's figures only")
    only.add_argument("--search-only", action="store_true",
                      help="the search's figures only: graphs, tours, default run per Impl")
    parser.add_argument("--impls", default="Paper2007,KVMClassic,KVMGmap",
                        help="the Impls of the search's figures (comma-separated)")
    parser.add_argument("--no-json-lines-search", action="store_true",
                        help="leave out the search's run over JSON lines")
    only.add_argument("--pagestates-only", action="store_true",
                      help="the PageStates mode's figures only (the first two tables of docs/checking.md)")
    args = parser.parse_args(argv)
    if args.search_only:
        figures_search = search_figures(args)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.with_name("bench-conformance-search.json").write_text(
            json.dumps(figures_search, indent=2) + "\n")
        return 0
    if args.essa_only:
        figures_essa = essa(args)
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.with_name("bench-conformance-essa.json").write_text(
            json.dumps(figures_essa, indent=2) + "\n")
        return 0
    command = str(ensure_built())

    def c_engine() -> Engine:
        return JsonLinesEngine(command, window=args.window)

    load = os.getloadavg()[0]
    print(f"conformance suite, Python {sys.version.split()[0]}; profile {PROFILE.describe()}; "
          f"median of {args.runs} runs; JSON lines with a window of {args.window} requests in "
          f"flight; load average {load:.1f} on {os.cpu_count()} CPUs")  # fmt: skip
    figures: dict[str, float] = {"load_average": round(load, 1), "window": args.window,
                                 "cpus": os.cpu_count() or 0}  # fmt: skip
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

    print("\ntime for `run` (default settings) to report each PageStates mutant with its rule "
          f"named (median of seeds 0..{args.runs - 1})")  # fmt: skip
    kills = kill_times(PAGESTATES_DRIVER, args.runs)
    figures["load_average_end"] = round(os.getloadavg()[0], 1)
    print(f"(load average at the end: {figures['load_average_end']})")
    figures_essa = {} if args.pagestates_only else essa(args)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "runs": args.runs, "walk_steps": args.steps,
        **{k: round(v, 1) if k.startswith("load") else round(v) for k, v in figures.items()},
        "mutants": kills, **figures_essa,
    }, indent=2) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
