"""Print the figures of the last `make bench` (results/bench-*.json) and of the last full
`make check` (results/check-all.json, written by `python -m tlcrunner check --size all --json
results/check-all.json`) as the Markdown tables the design book (docs/checking.md, docs/mutation.md) quotes, so its figures are
copied from a run, never typed. With --models-doc FILE, also write every model's row to FILE.

Run from the repository root: python bench/report.py [--models-doc docs/models.md]
Exit status: 0 figures printed (or --manifest-doc written); 4 nothing to report, because no
results file exists (the documented "nothing checked" of tlcrunner/exitcodes.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tlcrunner.exitcodes import NOTHING  # noqa: E402

RESULTS = Path("results")


def _load(name: str) -> Any:
    path = RESULTS / f"bench-{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def loops_table(d: Any) -> list[str]:
    """bench/loops_bench.py's figures: each user's loop, wall and CPU, where the time goes."""
    lines = ["| loop | command | exit | wall s | CPU s | load at start, end | where the time goes (s) |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    d = {k: v for k, v in d.items() if k not in (PROJECTION, CI_BUDGET)}  # their own blocks
    for loop, r in d.items():
        runs = f" (median of {len(r['walls'])}: {r['walls']})" if len(r.get("walls", [])) > 1 else ""
        phases = "; ".join(f"{k} {v}" for k, v in r["phases"].items()) or "-"
        lines.append(f"| {loop} | `{r['command']}` | {r['exit']} | {r['wall']}{runs} | {r['cpu']} "
                     f"| {r['load_start']}; {r['load_end']} | {phases} |")  # fmt: skip
    for loop, r in d.items():
        if r.get("detail") or r.get("top"):
            lines += ["", f"{loop} ({r['at']}, {r['cpus']} CPUs): "
                      + "; ".join(f"{k} {v}" for k, v in r.get("detail", {}).items())]
            if r.get("top"):
                lines += ["", "| the longest | seconds | distinct states or steps |", "|---|---|---|"]
                lines += [f"| {t[0]} | {t[1]} | {t[2] if len(t) > 2 and t[2] is not None else '-'} |"
                          for t in r["top"]]  # fmt: skip
    return lines


PROJECTION = "check-projected"
PROJECTION_BEGIN, PROJECTION_END = "<!-- projection: begin -->\n", "<!-- projection: end -->\n"


def projection_block(r: Any) -> str:
    """bench/loops_bench.py --loop check-projected: make check and CI's models, projected from
    the pins and the measured runs, with the 40 longest runs."""
    d = r["detail"]
    intent_runs, ci_runs = d["twins' intent runs"], d["CI models' runs"]
    ci_cpu, ci_wall = d["CI models' CPU s"], d["CI models' wall s on the idle cores"]
    rate = d["states per s (median of the measured)"]
    twice = d["with every twin that breaks a promise run twice: TLC runs"]
    lines = [f"Projected {r['at']} ({r['cpus']} CPUs, no TLC run but a one-state run's "
             f"{d['one-state run s']} s of CPU): `make check` makes {d['TLC runs']} TLC runs "
             f"({d['of them measured']} measured, the rest at {rate:,} states per second after "
             f"a JVM start), {r['cpu']} s of CPU, {r['wall']} s of wall on {d['idle cores']} "
             f"idle cores longest first (the longest run {d['longest s']} s). JVM starts "
             f"{r['phases']['JVM starts']} s; {intent_runs} twins run again against their "
             f"contract alone, {r['phases']['twins against their contract alone']} s. With every "
             f"twin that breaks a promise run twice: {twice} TLC runs, {d['CPU s']} s of CPU, "
             f"{d['wall s']} s of wall. CI's models (`make test`, tests/test_models.py): "
             f"{ci_runs} runs, {ci_cpu} s of CPU, {ci_wall} s of wall.", "",
             "| the 40 longest runs | seconds | distinct states |", "|---|---|---|"]
    lines += [f"| {n} | {s} | {'-' if dist is None else f'{dist:,}'} |" for n, s, dist in r["top"]]
    return PROJECTION_BEGIN + "\n".join(lines) + "\n" + PROJECTION_END


CI_BUDGET = "ci-budget"
CI_BUDGET_BEGIN, CI_BUDGET_END = "<!-- ci budget: begin -->\n", "<!-- ci budget: end -->\n"


def ci_budget_block(r: Any) -> str:
    """bench/loops_bench.py's ci-budget: make test's seconds per kind of work and per test file,
    and its 20 slowest tests (bench/ci_budget.py), with the run they were read from."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import ci_budget

    b = r["budget"]
    runs = "; ".join(f"{Path(x['junit']).name} started {x['timestamp'] or '-'} on "
                     f"{x['hostname'] or '-'}, {x['wall']} s of wall" for x in b["runs"])  # fmt: skip
    head = f"Recorded {r['at']} ({r['cpus']} CPUs) from {runs}" + (f": {r['note']}" if r["note"] else "")
    return CI_BUDGET_BEGIN + "\n".join([head + ".", "", *ci_budget.lines(b)]) + "\n" + CI_BUDGET_END


def _rewrite_block(out: Path, key: str, begin: str, end: str, block: Callable[[Any], str],
                   section: str, what: str) -> bool:
    """Rewrite the generated block between ``begin`` and ``end`` in ``out`` from the ``key``
    record of results/bench-loops.json, leaving the rest of the file as it is; where the file
    has no such block, append ``section`` (its heading and introduction) and the block. False
    when nothing was recorded under ``key``."""
    d = _load("loops")
    if not d or key not in d:
        return False
    text = out.read_text(encoding="utf-8") if out.exists() else ""
    written = block(d[key])
    if begin in text:
        start, stop = text.index(begin), text.index(end) + len(end)
        text = text[:start] + written + text[stop:]
    else:
        text += section + "\n\n" + written
    out.write_text(text, encoding="utf-8")
    print(f"(the {what} written to {out})\n")
    return True


def ci_budget_doc(out: Path) -> bool:
    """Rewrite the CI budget block of ``out`` (docs/loops.md) from results/bench-loops.json;
    False when no budget was recorded."""
    return _rewrite_block(
        out, CI_BUDGET, CI_BUDGET_BEGIN, CI_BUDGET_END, ci_budget_block,
        "\n## CI budget\n\nGenerated by `python bench/loops_bench.py --loop ci` (or "
        "`--from-junit` over the JUnit files of a run made elsewhere) and `python "
        "bench/report.py --ci-budget-doc docs/loops.md`: where `make test`'s seconds go, "
        "read from the JUnit XML each of its pytest calls writes (results/pytest-junit.xml, "
        "results/pytest-junit-separate.xml) by bench/ci_budget.py. `.ci/run` prints each "
        "step's seconds and a last line with all of them.", "CI budget")  # fmt: skip


def projection_doc(out: Path) -> bool:
    """Rewrite the projection block of ``out`` (docs/loops.md) from results/bench-loops.json;
    False when no projection was measured."""
    return _rewrite_block(
        out, PROJECTION, PROJECTION_BEGIN, PROJECTION_END, projection_block,
        "\n## make check and CI, projected\n\nGenerated by `python bench/loops_bench.py "
        "--loop check-projected` and `python bench/report.py --projection-doc "
        "docs/loops.md`: each TLC run `make check` makes, its seconds the last measured "
        "in results/check.json, else its pinned distinct states at the median rate of "
        "the measured runs after a JVM start.", "projection")  # fmt: skip


def loops_doc(out: Path) -> bool:
    """docs/loops.md from results/bench-loops.json; False when there is none."""
    d = _load("loops")
    if not d:
        return False
    # The generated sections after the table (the projection, the CI budget) are kept as they are.
    text = out.read_text(encoding="utf-8") if out.exists() else ""
    kept = text[text.index("\n## "):] if "\n## " in text else ""
    out.write_text("# The users' loops, measured\n\nGenerated by `python bench/report.py "
                   "--loops-doc docs/loops.md` from results/bench-loops.json, which "
                   "`python bench/loops_bench.py --loop NAME` writes, one loop at a time (the "
                   "development machine has 2 cores shared with other work: the load averages "
                   "say how busy it was, and CPU seconds depend on it less than wall "
                   "seconds). A phase is the wall seconds of its runs summed: with runs side by "
                   "side, more than the loop's own wall clock.\n\n" + "\n".join(loops_table(d)) + "\n"
                   + kept, encoding="utf-8")
    print(f"(the loops written to {out})\n")
    return True


def _module(name: str) -> str:
    base = name.split("_")[0]
    for suffix in ("Broken", "Refinement", "Compare", "Variants", "Inductive"):
        base = base.replace(suffix, "")
    return base.removeprefix("MC")


def check_tables(models_doc: Path | None) -> bool:
    """The tables of the last full check; False when there is none."""
    path = RESULTS / "check-all.json"
    if not path.exists():
        return False
    rows = json.loads(path.read_text())
    print("All models, one run of `make check` (seconds include the JVM start):\n")
    print("| spec | models | as expected | twins and findings caught | largest distinct states |")
    print("|---|---|---|---|---|")
    by: dict[str, list[Any]] = {}
    for r in rows:
        by.setdefault(_module(r["name"]), []).append(r)
    for mod, rs in by.items():
        caught = sum(1 for r in rs if r["expected"].startswith("violates") and r["as_expected"])
        big = max((r["distinct"] or 0) for r in rs)
        ok = sum(r["as_expected"] for r in rs)
        print(f"| {mod} | {len(rs)} | {ok} | {caught} | {big:,} |")
    total = sum(r["seconds"] for r in rows)
    print(f"\n{len(rows)} models, {sum(r['as_expected'] for r in rows)} as expected, "
          f"{total / 60:.1f} minutes in all.\n")  # fmt: skip
    lines = ["| model | expected | distinct states | depth | seconds |", "|---|---|---|---|---|"]
    for r in rows:
        distinct = f"{r['distinct']:,}" if r["distinct"] is not None else "-"
        lines.append(f"| `{r['name']}` | {r['expected']} | {distinct} | {r['depth']} | "
                     f"{r['seconds']:.1f} |")  # fmt: skip
    if models_doc is not None:
        models_doc.write_text(
            "# Every model, as measured\n\nGenerated by `python bench/report.py --models-doc "
            "docs/models.md` from results/check-all.json (one run of every model, on the 2-core "
            "development machine while other work ran, so seconds are upper bounds). "
            "model/manifest.json says what each model is for.\n\n" + "\n".join(lines) + "\n"
        )
        print(f"(every model's row written to {models_doc})\n")
    return True


def _purpose(name: str) -> str:
    """A model's purpose, from its name (MC<Spec>_<What>, MC<Spec>_Twin_<What>,
    MC<Spec>_Finding_<Fn>_<What>)."""
    if "_Finding_" in name:
        return "findings"
    if "_Twin_" in name:
        return "twins"
    return "checks"


PURPOSES = (
    ("checks", "Checks (expected to hold, or to reach their scenario)"),
    ("twins", "Broken twins (a deliberately wrong model its property must catch)"),
    ("findings", "Findings (a real implementation violating an intent property; docs/findings.md)"),
)


def manifest_doc(out: Path) -> None:
    """Every model of model/manifest.json as readable tables, by spec then by purpose: what it
    checks and its pins."""
    entries = json.loads(Path("model/manifest.json").read_text())["models"]
    lines = [
        "# Every model",
        "",
        "Generated by `python bench/report.py --manifest-doc docs/models.md` from",
        "model/manifest.json, where each model's expected outcome, distinct states and depth are",
        "pinned (`make check` fails when TLC disagrees). CI runs the `ci` models (`make test`).",
        "Models are named `MC<Spec>_<What>` (checks), `MC<Spec>_Twin_<What>` (broken twins) and",
        "`MC<Spec>_Finding_<Fn>_<What>` (findings), and listed here by spec, then by purpose.",
    ]
    specs: dict[str, list[Any]] = {}
    for e in entries:
        specs.setdefault(e["name"].split("_")[0], []).append(e)
    for spec, es in specs.items():
        lines += ["", f"## {spec}"]
        for purpose, title in PURPOSES:
            rows = [e for e in es if _purpose(e["name"]) == purpose]
            if not rows:
                continue
            lines += ["", f"### {title}", "",
                      "| model | size | expected | distinct states | depth | what it is |",
                      "|---|---|---|---|---|---|"]  # fmt: skip
            for e in rows:
                distinct = f"{e['distinct']:,}" if e["distinct"] is not None else "-"
                lines.append(f"| `{e['name']}` | {e['size']} | {e['expect']} | {distinct} | "
                             f"{e['depth'] if e['depth'] is not None else '-'} | {e['about']} |")  # fmt: skip
    out.write_text("\n".join(lines) + "\n")
    print(f"(every model written to {out})\n")


def distributed_table(d: Any) -> None:
    """bench/distributed_bench.py's figures, as docs/checking.md ("Bigger models") quotes them."""
    print(f"Local TLC against TLCServer and local workers, `{d['model']}`, {d['cores']} cores:\n")
    print("| run | seconds | distinct states | distinct/s | generated/s | time / local | "
          "extra per distinct state |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for r in d["rows"]:
        ratio = r.get("ratio_to_local", 1)
        extra = f"{r['extra_us_per_distinct_state']:.0f} µs" if "ratio_to_local" in r else "-"
        print(f"| {r['run']} | {r['seconds']:.1f} | {r['distinct']:,} | {r['distinct_per_s']:,} | "
              f"{r['generated_per_s']:,} | {ratio} | {extra} |")  # fmt: skip
    print()


def mutate_table(d: Any) -> None:
    """A `tlcrunner mutate` run (bench/mutate_bench.py's, or any results/mutate.json copied to
    results/bench-mutate.json) as docs/mutation.md's score table."""
    catalogue = d.get("catalogue", {})
    print(f"Spec mutation testing, `{' '.join(d['arguments'])}` ({d['seconds'] / 60:.0f} min):\n")
    print("| module | in the catalogue | run | killed by a property | caught only by pins or a twin "
          "| survived | equivalent | invalid |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for module, r in d["scores"].items():
        print(f"| {module} | {catalogue.get(module, '-')} | {r['generated']} | {r['killed']} | "
              f"{r['pins']} | {r['survived']} | {r['equivalent']} | {r['invalid']} |")  # fmt: skip
    print(f"\n{d['summary']}.\n")


def mutate_runs_table(paths: list[Path]) -> None:
    """Several `tlcrunner mutate` result files as one score table of this tree's catalogue,
    mutant by mutant: the last file naming a mutant gives its verdict (a whole-catalogue run,
    then the `--ids` re-runs of the mutants a change settled); a mutant no longer in the
    catalogue is left out, and one listed in model/mutate-equivalent.json now is equivalent (in
    every module some file covers).
    "run" says whether the files cover a module's whole catalogue."""
    from collections import Counter

    from tlcrunner import mutate
    from tlcrunner.locations import default_manifest

    manifest = mutate.load_manifest(default_manifest())
    catalogue = {m.id: m.module for m in mutate.whole_catalogue(manifest)}
    equivalents = mutate.load_equivalents(manifest.directory / mutate.DEFAULT_EQUIVALENTS)
    judged: dict[str, tuple[str, str]] = {}  # id -> (verdict, killing property)
    for path in paths:
        for m in json.loads(path.read_text())["mutants"]:
            if m["id"] in catalogue and m["verdict"] != "interrupted":
                judged[m["id"]] = (m["verdict"], m.get("property") or "")
    covered = {catalogue[i] for i in judged}
    for i in equivalents:  # listed equivalents are never run: they count wherever a run went
        if i in catalogue and catalogue[i] in covered:
            judged[i] = ("equivalent", "")
    per_module: dict[str, Counter[str]] = {}
    for i, (verdict, prop) in judged.items():
        c = per_module.setdefault(catalogue[i], Counter())
        c.update({"generated": 1, verdict: 1, "deadlock": verdict == "killed" and prop == "deadlock",
                  "witness": verdict == "killed" and prop.startswith("witness ")})  # fmt: skip
    size = Counter(catalogue.values())
    print("| module | in the catalogue | run | killed by a property | caught only by pins "
          "or a twin | survived | equivalent | invalid |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    total: Counter[str] = Counter()
    for module in sorted(per_module):
        r = per_module[module]
        total.update(r)
        how = ("whole catalogue" if r["generated"] == size[module]
               else f"{r['generated']} of {size[module]}")  # fmt: skip
        print(f"| {module} | {size[module]} | {how} | {r['killed']} | {r['pins']} "
              f"| {r['survived']} | {r['equivalent']} | {r['invalid']} |")  # fmt: skip
    print(f"\nmutants: {total['generated']} run, {total['killed']} killed ({total['deadlock']} by TLC's "
          f"deadlock check, {total['witness']} by a reachability witness), {total['pins']} caught "
          f"only by pins or a twin, {total['survived']} survived, {total['equivalent']} equivalent, "
          f"{total['invalid']} invalid, of {len(catalogue)} in the catalogue.\n")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(prog="python bench/report.py")
    parser.add_argument("--models-doc", type=Path, default=None)
    parser.add_argument("--manifest-doc", type=Path, default=None)
    parser.add_argument("--loops-doc", type=Path, default=None,
                        help="write bench/loops_bench.py's table to this file")
    parser.add_argument("--projection-doc", type=Path, default=None,
                        help="rewrite the make check projection's block of this file "
                        "(bench/loops_bench.py --loop check-projected)")
    parser.add_argument("--ci-budget-doc", type=Path, default=None,
                        help="rewrite the CI budget's block of this file (bench/loops_bench.py "
                        "--loop ci, or --from-junit)")
    parser.add_argument("--mutate", type=Path, nargs="+", default=None, metavar="FILE",
                        help="print one mutation score table from these tlcrunner mutate results")
    args = parser.parse_args()
    if args.mutate:
        mutate_runs_table(args.mutate)
        return 0
    if args.manifest_doc is not None:
        manifest_doc(args.manifest_doc)
    if args.projection_doc is not None and not projection_doc(args.projection_doc):
        print("no projection in results/bench-loops.json: run `python bench/loops_bench.py "
              "--loop check-projected` first", file=sys.stderr)
        return NOTHING
    if args.ci_budget_doc is not None and not ci_budget_doc(args.ci_budget_doc):
        print("no CI budget in results/bench-loops.json: run `python bench/loops_bench.py "
              "--loop ci` (or --from-junit FILE...) first", file=sys.stderr)
        return NOTHING
    reported = check_tables(args.models_doc)
    loops = _load("loops")
    if loops:
        print("The users' loops (bench/loops_bench.py):\n\n" + "\n".join(loops_table(loops)) + "\n")
        if args.loops_doc is not None:
            loops_doc(args.loops_doc)
    models = _load("models")
    if models:
        print(f"Model checking (median of {models['runs']} runs; seconds include the JVM start):\n")
        print("| model | expected | distinct states | seconds |")
        print("|---|---|---|---|")
        for m in models["models"]:
            distinct = f"{m['distinct']:,}" if m["distinct"] is not None else "-"
            print(f"| `{m['name']}` | {m['expect']} | {distinct} | {m['seconds_median']} |")
        print(f"\nThese models together: {sum(m['seconds_median'] for m in models['models']):.0f} s.\n")
        if models["symmetry"]:
            print("| symmetry | distinct with | without | seconds with | without |")
            print("|---|---|---|---|---|")
            for s in models["symmetry"]:
                w, wo = s["with"], s["without"]
                print(f"| `{s['name']}` | {w['distinct']:,} | {wo['distinct']:,} | "
                      f"{w['seconds_median']} | {wo['seconds_median']} |")  # fmt: skip
            print()
    distributed = _load("distributed")
    if distributed:
        distributed_table(distributed)
    mutated = _load("mutate")
    if mutated:
        mutate_table(mutated)
    refimpl = _load("refimpl")
    reported = (reported or bool(loops) or bool(models) or bool(refimpl) or bool(_load("conformance"))
                or bool(distributed) or bool(mutated))  # fmt: skip
    if not reported and args.manifest_doc is None:
        print(f"nothing to report: no {RESULTS}/check-all.json and no {RESULTS}/bench-*.json "
              "here. Run `make bench` (and `python -m tlcrunner check --size all --json "
              "results/check-all.json`) from the repository root first.", file=sys.stderr)  # fmt: skip
        return NOTHING
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
        print(f"Conformance suite, PageStates mode (median of {conformance['runs']} runs"
              + _conditions(conformance) + "):\n")
        print("| drive | steps per second |")
        print("|---|---|")
        for key, label in (("walk_inprocess_steps_per_s", "walk, in-process (reference engine)"),
                           ("walk_jsonlines_c_steps_per_s", "walk, JSON lines (C engine)"),
                           ("hypothesis_inprocess_steps_per_s", "hypothesis, in-process"),
                           ("hypothesis_jsonlines_c_steps_per_s", "hypothesis, JSON lines (C engine)"),
                           ("round_trip_jsonlines_c_per_s", "JSON-lines round trip alone, lock-step (C engine)")):  # fmt: skip
            print(f"| {label} | {conformance[key]:,} |")
        _kills(conformance["mutants"], "PageStates")
        if "essa_run_inprocess_steps_per_s" in conformance:
            _essa(conformance)
    return 0


def _conditions(c: Any) -> str:
    """How the figures were taken: the JSON-lines window and the load average (the development
    machine is shared, and the figures scale with its load)."""
    out = ""
    if "window" in c:
        out += f"; JSON lines with a window of {c['window']} requests in flight"
    if "load_average" in c:
        out += f"; load average {c['load_average']}"
        if "load_average_end" in c:
            out += f" at the start, {c['load_average_end']} at the end"
        if "cpus" in c:
            out += f", on {c['cpus']} CPUs"
    return out


def _kills(mutants: Any, machine: str) -> None:
    print(f"\n| {machine} mutant | seconds for `run` to report it | killed | by | trace steps |")
    print("|---|---|---|---|---|")
    for name, m in mutants.items():
        print(f"| {name} | {m['median_seconds']} | {m['killed']} | {m.get('by', '')} | "
              f"{m['trace_steps']} |")  # fmt: skip
    print()


def _essa(c: Any) -> None:
    print(f"ESSA mode, `run` with its default settings on one profile (median of {c['runs']} "
          f"runs{_conditions(c)}):\n")
    print("| engine | run | tour | hypothesis | per second of the driver's CPU |")
    print("|---|---|---|---|---|")
    for key, label in (("inprocess", "in-process (reference engine)"),
                       ("jsonlines_go", "JSON lines (Go engine)"),
                       ("jsonlines_go_lockstep", "JSON lines (Go engine), lock-step"),
                       ("jsonlines_python", "JSON lines (Python server)")):  # fmt: skip
        if f"essa_run_{key}_steps_per_s" not in c:
            continue
        cpu = c.get(f"essa_cpu_{key}_steps_per_s")
        print(f"| {label} | {c[f'essa_run_{key}_steps_per_s']:,} | "
              f"{c[f'essa_tour_{key}_steps_per_s']:,} | "
              f"{c[f'essa_hypothesis_{key}_steps_per_s']:,} | "
              f"{'-' if cpu is None else f'{cpu:,}'} |")  # fmt: skip
    print(f"\nJSON-lines round trip alone (Go engine): "
          f"{c['essa_round_trip_jsonlines_go_per_s']:,} requests/s")
    _kills(c["essa_mutants"], "ESSA")
    print(f"Median over the ESSA mutants: {c['essa_mutant_median_seconds']} s.\n")
    for key in ("unification_lines", "driver_unification_lines"):
        lines = c.get(key)
        if lines:
            print(f"{key.replace('_', ' ').capitalize()}: +{lines['added']:,} "
                  f"-{lines['removed']:,}; deleted outright: "
                  + ", ".join(f"{p} ({n})" for p, n in lines["deleted_files"].items()))
    print()


if __name__ == "__main__":
    sys.exit(main())
