"""The users' loops, timed: wall and CPU seconds of each, and where the time goes.

Each loop is the command its user runs, run here as a child, with the wall clock, the CPU
seconds of the command and everything it waited for (``RUSAGE_CHILDREN``: TLC's JVMs, the
engines, qemu), the load average at the start and the end (the development machine is shared,
so a wall clock alone says little), and a breakdown read from what the command prints:

* ``check``: ``python -m tlcrunner check --size all`` (``--models`` narrows it). Per model and
  per phase: set-up (Java and the jar checked: a run that checks no model), JVM start (the TLC
  runs times the seconds of a one-state model), state space (the rest of the models' seconds),
  witness runs of their own (none when the witnesses are checked in the model's run).
* ``check-projected``: ``make check`` and CI's models without running TLC: each run the
  runner makes, its last measured seconds (results/check.json) or its pinned distinct states at
  the measured rate, the JVM starts, the twins' runs against their contract alone, the wall
  clock on two idle cores longest first, and the 40 longest runs.
* ``ci``: ``.ci/run``'s steps without the apt install: ``make test`` (its ten slowest tests),
  ``make apalache`` and ``make kernel-check --check-readme``; each step's budget, and make test's
  budget from its JUnit files (bench/ci_budget.py: seconds per test file and per kind of work,
  the 20 slowest tests), recorded as ``ci-budget``. ``--from-junit FILE...`` records that budget
  from the JUnit files of a run made elsewhere, without running anything.
* ``kernel-classic``, ``kernel-gmap``: ``make kernel-check`` on Debian's 6.12 tree, or on the
  7.x tree ``--gmap-src`` names; its phases (build, classify, run) and the round trips to the
  s390x code under qemu, as kernel-check prints them.
* ``run``: ``run --machine ESSA`` over JSON lines, the Rust engine, once per Impl; per drive
  (quick tour, cover, swarm, hypothesis, walk) the seconds and steps, the profiles, and TLC's
  confirmation of a divergence (none when the engine conforms).
* ``classify``: ``classify`` of the Rust engine as KVMClassic and as KVMGmap.

Run from the repository root: ``python bench/loops_bench.py [--loop NAME ...] [--runs N]``
(or ``--from-junit FILE... --run-note TEXT``);
each ``--loop`` runs alone. Writes results/bench-loops.json (merged by loop, so loops measured
at different times add up); ``python bench/report.py --loops-doc docs/loops.md`` writes the
table the documentation shows.
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
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "results"
OUT = RESULTS / "bench-loops.json"
PY = sys.executable
LOOPS = ("check", "check-projected", "ci", "kernel-classic", "kernel-gmap", "run", "classify")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def timed(command: list[str], env: dict[str, str] | None = None,
          timeout: float | None = None) -> dict[str, Any]:  # fmt: skip
    """One command: its exit status, wall and CPU seconds, load averages and output."""
    load, t0, c0 = _load(), time.monotonic(), _cpu()
    try:
        p = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, **(env or {})))  # fmt: skip
        code, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = None, str(exc.stdout or ""), "timed out"
    return {"command": " ".join(command), "exit": code, "wall": round(time.monotonic() - t0, 1),
            "cpu": round(_cpu() - c0, 1), "load_start": load, "load_end": _load(),
            "stdout": out, "stderr": err}  # fmt: skip


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median wall time, with every run's wall and CPU beside it."""
    best = sorted(runs, key=lambda r: r["wall"])[len(runs) // 2]
    return {**best, "walls": [r["wall"] for r in runs], "cpus": [r["cpu"] for r in runs]}


# --- check -----------------------------------------------------------------------------------

ONE_STATE = "---- MODULE One ----\nVARIABLE x\nInit == x = 0\nNext == x' = x\n====\n"


def _one_state_seconds() -> float:
    """Seconds of a TLC run of one state: what every run pays before its state space."""
    from tlcrunner.fetch import default_jar
    from tlcrunner.run import run_tlc

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "One.tla").write_text(ONE_STATE)
        (Path(tmp) / "One.cfg").write_text("INIT Init\nNEXT Next\n")
        runs = [run_tlc(Path(tmp) / "One.tla", Path(tmp) / "One.cfg", jar=default_jar(),
                        short=True).seconds for _ in range(3)]  # fmt: skip
    return statistics.median(runs)


def _one_state_cpu() -> float:
    """CPU seconds of a TLC run of one state (the JVM's and TLC's own start), the median of
    three: on a shared machine the CPU a run needs varies far less with the load than its wall
    clock."""
    from tlcrunner.fetch import default_jar
    from tlcrunner.run import run_tlc

    cpus = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "One.tla").write_text(ONE_STATE)
        (Path(tmp) / "One.cfg").write_text("INIT Init\nNEXT Next\n")
        for _ in range(3):
            before = _cpu()
            run_tlc(Path(tmp) / "One.tla", Path(tmp) / "One.cfg", jar=default_jar(), short=True)
            cpus.append(_cpu() - before)
    return statistics.median(cpus)


def check_loop(models: str | None, runs: int) -> dict[str, Any]:
    json_out = RESULTS / "bench-loops-check.json"
    command = [PY, "-m", "tlcrunner", "check", "--size", "all", "--json", str(json_out)]
    command += ["--models", models] if models else []
    setup = timed([PY, "-m", "tlcrunner", "check", "--models", "NoSuchModel"])
    result = _median([timed(command) for _ in range(runs)])
    own = sorted((json_out.parent / "runs").glob(f"{json_out.stem}-*.json"))[-1]  # this run's
    rows = json.loads(own.read_text())["models"]
    phases, detail, top = check_breakdown(rows, setup["wall"], _one_state_seconds())
    if models:
        result["command"] = result["command"].replace(models, f"<{len(models.split(','))} names>")
    result["command"] = result["command"].replace(PY, "python").replace(f" --json {json_out}", "")
    return {**result, "phases": phases, "detail": detail, "top": top}


def check_breakdown(rows: list[dict[str, Any]], setup: float, jvm: float
                    ) -> tuple[dict[str, float], dict[str, Any], list[tuple[str, float, int]]]:  # fmt: skip
    """Where a check's time went, from its rows: the phases, the counts, the longest runs. A
    TLC run is a row with seconds (a model's witnesses checked in its run have none)."""
    tlc_runs = [r for r in rows if r["seconds"] > 0]
    witness_runs = [r for r in tlc_runs if r["name"].endswith(":witnesses")]
    models_s = sum(r["seconds"] for r in tlc_runs)
    witness_s = sum(r["seconds"] for r in witness_runs)
    phases = {"set-up": setup, "JVM start": round(jvm * len(tlc_runs), 1),
              "state space": round(models_s - jvm * len(tlc_runs) - witness_s, 1),
              "witness runs of their own": round(witness_s, 1)}  # fmt: skip
    detail = {"TLC runs": len(tlc_runs), "models": len([r for r in rows if ":" not in r["name"]]),
              "witnesses in the model's run": len([r for r in rows if "in the model's run" in r["note"]]),
              "cached": len([r for r in rows if r["note"].startswith("cached")]),
              "one-state run s": round(jvm, 2), "runs' seconds summed": round(models_s, 1)}  # fmt: skip
    top = sorted(tlc_runs, key=lambda r: -r["seconds"])[:10]
    return phases, detail, [(r["name"], r["seconds"], r["distinct"]) for r in top]


# --- check, projected from the pins -----------------------------------------------------------


def _lpt(seconds: list[float], jobs: int) -> float:
    """The wall clock of ``seconds`` run ``jobs`` at a time, longest first, each on the first
    free core (what tlcrunner.schedule does)."""
    free = [0.0] * max(1, jobs)
    for s in sorted(seconds, reverse=True):
        i = free.index(min(free))
        free[i] += s
    return max(free, default=0.0)


def check_projection(jobs: int = 2, measured: tuple[Path, ...] = (RESULTS / "check-all.json",
                                                                  RESULTS / "check.json"),
                     jvm: float | None = None, once: bool = True,
                     manifest: Path = REPO / "model" / "manifest.json") -> dict[str, Any]:
    """``make check`` and CI's models (``--size ci``, tests/test_models.py) projected without
    running them: each TLC run the runner makes (a model's, a witness run of its own for a model
    expected to violate, a broken twin's run against its contract alone unless the twin runs
    once, D385), its seconds the last measured in ``measured`` (the rows every ``tlcrunner
    check`` in this checkout merged there), else the CPU of a one-state run (``jvm``) plus the
    pinned distinct states at the median rate of the measured runs; the wall clock on ``jobs``
    idle cores, longest first, each run taking its seconds there. A projection: the figures say how many seconds were measured. ``once=False``
    projects every twin that breaks a promise run twice (its own .cfg, then its contract alone),
    its second run as long as its first."""
    import statistics as st

    from tlcrunner.contract import INTENT_SUFFIX, runs_once
    from tlcrunner.manifest import load_manifest
    from tlcrunner.schedule import STATES_PER_S

    entries = load_manifest(manifest).entries
    seen: dict[str, Any] = {}
    for path in measured:  # the later file's row wins
        if path.exists():
            data = json.loads(path.read_text())  # results/check.json: a list; a run's: "models"
            seen.update({r["name"]: r for r in (data["models"] if isinstance(data, dict) else data)
                         if r.get("seconds", 0) > 0})  # fmt: skip
    jvm = _one_state_cpu() if jvm is None else jvm
    rates = [r["distinct"] / (r["seconds"] - jvm) for r in seen.values()
             if (r.get("distinct") or 0) >= 2000 and r["seconds"] > jvm + 1]  # fmt: skip
    rate = st.median(rates) if rates else STATES_PER_S
    runs: list[tuple[str, str, float, bool, int | None]] = []  # name, size, s, measured, distinct
    for e in entries:
        names = [e.name]
        if e.witnesses and e.expect.kind != "holds":
            names.append(e.name + ":witnesses")
        if e.is_twin and e.breaks and not (once and runs_once(e)):
            names.append(e.name + INTENT_SUFFIX)
        for n in names:
            r = seen.get(n)
            if n.endswith(INTENT_SUFFIX) and runs_once(e):  # as long as the twin's own run
                r = seen.get(e.name)
            s = r["seconds"] if r else jvm + (e.distinct or 0) / rate
            runs.append((n, e.size, round(s, 1), r is not None, e.distinct))
    out: dict[str, Any] = {"rate": round(rate), "jvm": round(jvm, 2), "jobs": jobs}
    # tests/test_models.py runs each CI-sized model's own rows: no run against the contract alone
    ci = [r for r in runs if r[1] == "ci" and not r[0].endswith(INTENT_SUFFIX)]
    for loop, chosen in (("make check", runs), ("CI models", ci)):
        secs = [r[2] for r in chosen]
        out[loop] = {"TLC runs": len(chosen), "measured": sum(r[3] for r in chosen),
                     "CPU s": round(sum(secs)), "JVM starts s": round(jvm * len(chosen)),
                     "intent runs": sum(r[0].endswith(INTENT_SUFFIX) for r in chosen),
                     "intent s": round(sum(r[2] for r in chosen if r[0].endswith(INTENT_SUFFIX))),
                     "longest s": max(secs, default=0),
                     "wall s": round(_lpt(secs, jobs))}  # fmt: skip
    out["top"] = [(n, s, d) for n, _, s, _, d in sorted(runs, key=lambda r: -r[2])[:40]]
    return out


def projected_loop() -> dict[str, Any]:
    p = check_projection()
    before = check_projection(jvm=p["jvm"], once=False)
    check, ci = p["make check"], p["CI models"]
    return {"command": "tlcrunner check --size all, projected (no TLC run)", "exit": 0,
            "wall": check["wall s"], "cpu": check["CPU s"], "load_start": _load(),
            "load_end": _load(),
            "phases": {"JVM starts": check["JVM starts s"],
                       "twins against their contract alone": check["intent s"],
                       "the 40 longest": round(sum(t[1] for t in p["top"])),
                       "the rest": round(check["CPU s"] - sum(t[1] for t in p["top"]))},
            "detail": {"TLC runs": check["TLC runs"], "of them measured": check["measured"],
                       "states per s (median of the measured)": p["rate"],
                       "one-state run s": p["jvm"], "idle cores": p["jobs"],
                       "longest s": check["longest s"],
                       "twins' intent runs": check["intent runs"],
                       "CI models' runs": ci["TLC runs"], "CI models' CPU s": ci["CPU s"],
                       "CI models' wall s on the idle cores": ci["wall s"],
                       "with every twin that breaks a promise run twice: TLC runs":
                           before["make check"]["TLC runs"],
                       "CPU s": before["make check"]["CPU s"],
                       "wall s": before["make check"]["wall s"]},
            "top": p["top"]}  # fmt: skip


# --- ci --------------------------------------------------------------------------------------

SLOWEST = re.compile(r"^([\d.]+)s (call|setup|teardown)\s+(\S+)", re.MULTILINE)
TEST_JUNIT = (RESULTS / "pytest-junit.xml", RESULTS / "pytest-junit-separate.xml")  # make test's
CI_BUDGET = "ci-budget"


def ci_budget_of(junit: list[Path], note: str) -> dict[str, Any]:
    """The ``ci-budget`` record: bench/ci_budget.py's budget of these JUnit files and a note
    saying which run they are."""
    sys.path.insert(0, str(REPO / "bench"))
    import ci_budget

    return {"note": note, "budget": ci_budget.budget(junit)}


def ci_loop(runs: int) -> dict[str, Any]:
    start = time.time()
    steps = {
        "make test": ["make", "test"],
        "make apalache": ["make", "apalache", "APALACHE_ALLOW_EXIT=4"],
        "make kernel-check": ["make", "kernel-check", "KERNEL_CHECK_FLAGS=--check-readme"],
    }
    measured = {name: _median([timed(cmd, env={"CI": "true"}) for _ in range(runs)])
                for name, cmd in steps.items()}  # fmt: skip
    slow = [(m.group(3), float(m.group(1)))
            for m in SLOWEST.finditer(measured["make test"]["stdout"])]  # fmt: skip
    return {"command": ".ci/run (without apt-get)", "exit": max(
        (r["exit"] if r["exit"] is not None else 124) for r in measured.values()),
        "wall": round(sum(r["wall"] for r in measured.values()), 1),
        "cpu": round(sum(r["cpu"] for r in measured.values()), 1),
        "load_start": measured["make test"]["load_start"],
        "load_end": measured["make kernel-check"]["load_end"],
        "phases": {k: r["wall"] for k, r in measured.items()},
        "detail": {f"{k} CPU s": r["cpu"] for k, r in measured.items()},
        "top": sorted(slow, key=lambda t: -t[1])[:10],
        CI_BUDGET: ci_budget_of(
            [p for p in TEST_JUNIT if p.exists() and p.stat().st_mtime >= start],
            f"make test of the ci loop (the last of {runs} run{'s' if runs > 1 else ''}), load "
            f"{measured['make test']['load_start']} at the start, "
            f"{measured['make test']['load_end']} at the end")}  # fmt: skip


# --- kernel-check ----------------------------------------------------------------------------

KERNEL_PHASES = re.compile(r"kernel-check: build ([\d.]+) s, (.*?) \(wall clock")
KERNEL_TRIPS = re.compile(r"requests the harness ran (\d+) in (\d+) round trips, answered from memo (\d+)")
KERNEL_STEPS = re.compile(r"([\d,]+) steps")


def kernel_loop(src: str | None, runs: int) -> dict[str, Any]:
    command = ["make", "kernel-check"] + ([f"KERNEL_SRC={src}"] if src else [])
    result = _median([timed(command) for _ in range(runs)])
    phases: dict[str, float] = {}
    if m := KERNEL_PHASES.search(result["stderr"]):
        phases["build"] = float(m.group(1))
        for part in m.group(2).split(", "):
            name, _, secs = part.rpartition(" ")[0].rpartition(" ")
            phases[name] = float(secs)
    detail: dict[str, Any] = {}
    if m := KERNEL_TRIPS.search(result["stderr"]):
        detail = {"requests": int(m.group(1)), "qemu round trips": int(m.group(2)),
                  "answered from memo": int(m.group(3))}  # fmt: skip
    last = (result["stdout"].strip().splitlines() or [""])[-1]
    if m := KERNEL_STEPS.search(last):
        detail["steps"] = int(m.group(1).replace(",", ""))
    return {**result, "phases": phases, "detail": detail, "top": [], "summary": last}


# --- run and classify ------------------------------------------------------------------------

PROFILE_LINE = re.compile(r"^  (\S+) (quick tour|cover|swarm|hypothesis|walk|tour|replay) "
                          r"(\w+): ([\d,]+) steps in ([\d.]+) s", re.MULTILINE)  # fmt: skip
CONFIRMED = re.compile(r"TLC (?:confirms|checked).*?([\d.]+) s")


def _engine() -> str:
    sys.path.insert(0, str(REPO))
    from conformance.c_engine import ensure_essa_rs_built

    return str(ensure_essa_rs_built())


def conformance_loop(what: str, impls: tuple[str, ...], runs: int) -> dict[str, Any]:
    engine = _engine()
    per: dict[str, dict[str, Any]] = {}
    for impl in impls:
        cmd = [PY, "-m", "conformance", what]
        cmd += ["--machine", "ESSA", "--impl", impl] if what == "run" else []
        cmd += ["--engine", f"{engine} --impl {impl}"]
        per[impl] = _median([timed(cmd) for _ in range(runs)])
    phases: dict[str, float] = defaultdict(float)
    top: list[tuple[str, float, int]] = []
    for impl, r in per.items():
        for m in PROFILE_LINE.finditer(r["stdout"]):
            phases[m.group(2)] += float(m.group(5))
            top.append((f"{impl} {m.group(1)} {m.group(2)}", float(m.group(5)),
                        int(m.group(4).replace(",", ""))))  # fmt: skip
    return {"command": f"python -m conformance {what} ... (essa-rs)",
            "exit": max((r["exit"] if r["exit"] is not None else 124) for r in per.values()),
            "wall": round(sum(r["wall"] for r in per.values()), 1),
            "cpu": round(sum(r["cpu"] for r in per.values()), 1),
            "load_start": per[impls[0]]["load_start"], "load_end": per[impls[-1]]["load_end"],
            "phases": {**{f"{impl} (wall)": r["wall"] for impl, r in per.items()},
                       **{k: round(v, 1) for k, v in phases.items()}},
            "detail": {f"{impl} CPU s": r["cpu"] for impl, r in per.items()}
                      | {f"{impl} summary": (r["stdout"].strip().splitlines() or [""])[-1]
                         for impl, r in per.items()},
            "top": sorted(top, key=lambda t: -t[1])[:10]}  # fmt: skip


# --- main ------------------------------------------------------------------------------------


def save(loop: str, result: dict[str, Any]) -> None:
    """Merge one loop's result into results/bench-loops.json (the outputs left out)."""
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    kept = {k: v for k, v in result.items() if k not in ("stdout", "stderr")}
    data[loop] = {**kept, "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                  "cpus": os.cpu_count()}  # fmt: skip
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loop", action="append", choices=LOOPS,
                        help="a loop to measure (repeat for several; default: every loop)")
    parser.add_argument("--runs", type=int, default=1, help="runs per loop; the median is kept")
    parser.add_argument("--models", help="check: only these models (tlcrunner check --models)")
    parser.add_argument("--gmap-src", help="kernel-gmap: a 7.x kernel tree (else not measured)")
    parser.add_argument("--from-junit", type=Path, nargs="+", metavar="FILE",
                        help="record CI's test budget (ci-budget) from these pytest JUnit files "
                        "of a run made elsewhere, and run no loop")
    parser.add_argument("--run-note", default="",
                        help="with --from-junit: which run the files are (who ran it, the load)")
    args = parser.parse_args(argv)
    if args.from_junit:
        missing = [str(p) for p in args.from_junit if not p.exists()]
        if missing:
            parser.error(f"no such JUnit file: {', '.join(missing)}")
        save(CI_BUDGET, ci_budget_of(args.from_junit, args.run_note))
        b = json.loads(OUT.read_text())[CI_BUDGET]["budget"]
        print(f"{CI_BUDGET}: {b['tests']} tests, {b['seconds']} s summed, {b['wall']} s of wall")
        return 0
    loops: dict[str, Callable[[], dict[str, Any]]] = {
        "check": lambda: check_loop(args.models, args.runs),
        "check-projected": projected_loop,
        "ci": lambda: ci_loop(args.runs),
        "kernel-classic": lambda: kernel_loop(None, args.runs),
        "kernel-gmap": lambda: kernel_loop(args.gmap_src, args.runs),
        "run": lambda: conformance_loop("run", ("Paper2007", "KVMClassic", "KVMGmap"), args.runs),
        "classify": lambda: conformance_loop("classify", ("KVMClassic", "KVMGmap"), args.runs),
    }
    for loop in args.loop or LOOPS:
        if loop == "kernel-gmap" and not args.gmap_src:
            print("kernel-gmap: not measured (no --gmap-src, a 7.x tree)")
            continue
        result = loops[loop]()
        if CI_BUDGET in result:
            save(CI_BUDGET, result.pop(CI_BUDGET))
        subset = f" ({len(args.models.split(','))} models named)" if args.models else ""
        save(loop + (subset if loop == "check" else ""), result)
        print(f"{loop}: exit {result['exit']}, {result['wall']} s wall, {result['cpu']} s CPU, "
              f"load {result['load_start']} -> {result['load_end']}; "
              + ", ".join(f"{k} {v}" for k, v in result["phases"].items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
