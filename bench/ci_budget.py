"""CI's test budget, read from pytest's JUnit XML: where ``make test``'s seconds go.

``make test`` writes a JUnit file for each of its two pytest calls (results/pytest-junit.xml,
results/pytest-junit-separate.xml), CI's run included. This module reads them and gives, for the
tests they hold: the seconds and tests of each test file, of each kind of work (the TLC models of
tests/test_models.py, the refimpl's equality with TLC's state graph, conformance runs, the kernel
harness, the rest), the count of tests and outcomes, and the 20 slowest tests.

A test's seconds are its set-up, call and tear-down (pytest's ``junit_duration_report`` total).
With pytest-xdist workers the tests run side by side, so their sum is more than the wall clock of
the run; the run's own wall clock is the ``time`` of its test suite, given beside the sum.

Run from the repository root: ``python bench/ci_budget.py JUNIT.xml [JUNIT.xml ...]`` prints the
budget; ``--json`` prints it as JSON. Exit status 0, or 4 (nothing to report) when a file is
missing. bench/loops_bench.py's ``ci`` loop records the budget in results/bench-loops.json, and
bench/report.py writes it into docs/loops.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tlcrunner.exitcodes import NOTHING  # noqa: E402

SLOWEST = 20
# Each kind of work and the test files that do it, first match wins; a file no pattern names is
# "other".
KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("TLC models (tests/test_models.py)", ("tests/test_models.py",)),
    ("refimpl equal to TLC", ("tests/test_refimpl_*equality.py",)),
    ("conformance runs", ("tests/test_conformance_*.py", "tests/test_essa_rs_engine.py")),
    ("kernel harness", ("tests/test_kernel_*.py",)),
)
OTHER = "other"


def kind_of(path: str) -> str:
    """The kind of work of a test file (a path like tests/test_models.py)."""
    return next((kind for kind, globs in KINDS if any(fnmatch(path, g) for g in globs)), OTHER)


def _file_and_id(case: ET.Element) -> tuple[str, str]:
    """The test file and the node id of a JUnit test case. pytest writes ``classname`` as the
    module's dotted path and then the test's classes (tests.test_models.TestX): the module ends at
    the first part named test_* or *_test."""
    if case.get("file"):  # junit_family=xunit1
        path = case.get("file", "")
        classes = [p for p in case.get("classname", "").split(".") if p[:1].isupper()]
    else:
        parts = case.get("classname", "").split(".")
        end = next((i for i, p in enumerate(parts) if p.startswith("test_") or p.endswith("_test")),
                   len(parts) - 1)  # fmt: skip
        path = "/".join(parts[: end + 1]) + ".py"
        classes = parts[end + 1:]
    return path, "::".join([path, *classes, case.get("name", "")])


def _outcome(case: ET.Element) -> str:
    for tag, outcome in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
        if case.find(tag) is not None:
            return outcome
    return "passed"


def read(paths: list[Path]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The runs (one per test suite: its file, start, host and wall seconds) and the test cases
    (file, node id, seconds, outcome) of these JUnit files."""
    runs: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    for path in paths:
        root = ET.parse(path).getroot()
        for suite in ([root] if root.tag == "testsuite" else root.iter("testsuite")):
            runs.append({"junit": str(path), "timestamp": suite.get("timestamp", ""),
                         "hostname": suite.get("hostname", ""),
                         "wall": round(float(suite.get("time") or 0), 1)})  # fmt: skip
            for case in suite.iter("testcase"):
                file, node = _file_and_id(case)
                cases.append({"file": file, "id": node, "seconds": float(case.get("time") or 0),
                              "outcome": _outcome(case)})  # fmt: skip
    return runs, cases


def budget(paths: list[Path]) -> dict[str, Any]:
    """The budget of these JUnit files: per file, per kind, the outcomes, the slowest tests."""
    runs, cases = read(paths)
    files: dict[str, dict[str, Any]] = defaultdict(lambda: {"tests": 0, "seconds": 0.0})
    kinds: dict[str, dict[str, Any]] = {k: {"tests": 0, "seconds": 0.0, "files": 0}
                                        for k in [k for k, _ in KINDS] + [OTHER]}  # fmt: skip
    outcomes: dict[str, int] = defaultdict(int)
    for c in cases:
        files[c["file"]]["tests"] += 1
        files[c["file"]]["seconds"] += c["seconds"]
        kinds[kind_of(c["file"])]["tests"] += 1
        kinds[kind_of(c["file"])]["seconds"] += c["seconds"]
        outcomes[c["outcome"]] += 1
    for f in files:
        kinds[kind_of(f)]["files"] += 1
    total = sum(c["seconds"] for c in cases)
    return {
        "runs": runs,
        "tests": len(cases),
        "outcomes": dict(sorted(outcomes.items())),
        "seconds": round(total, 1),
        "wall": round(sum(r["wall"] for r in runs), 1),
        "kinds": [[k, v["files"], v["tests"], round(v["seconds"], 1)]
                  for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]["seconds"])],
        "files": [[f, kind_of(f), v["tests"], round(v["seconds"], 1)]
                  for f, v in sorted(files.items(), key=lambda kv: (-kv[1]["seconds"], kv[0]))],
        "slowest": [[c["id"], round(c["seconds"], 1)]
                    for c in sorted(cases, key=lambda c: (-c["seconds"], c["id"]))[:SLOWEST]],
    }


def _share(seconds: float, total: float) -> str:
    return f"{100 * seconds / total:.0f} %" if total else "-"


def lines(b: dict[str, Any]) -> list[str]:
    """The budget as Markdown: a sentence, the kinds, the files, the slowest tests."""
    total = b["seconds"]
    outcomes = ", ".join(f"{n} {o}" for o, n in b["outcomes"].items())
    runs = f"{len(b['runs'])} pytest run{'s' if len(b['runs']) != 1 else ''}"
    side_by_side = (": pytest-xdist's workers run tests side by side, so the sum is more than the "
                    "wall clock" if total > b["wall"] else "")  # fmt: skip
    out = [f"{b['tests']} tests ({outcomes}) in {runs}: {total} s of the tests' own seconds summed, "
           f"{b['wall']} s of the runs' wall clock{side_by_side}. A test's seconds are its set-up, "
           "call and tear-down.", "",
           "| kind of work | test files | tests | seconds summed | share |", "|---|---|---|---|---|"]
    out += [f"| {k} | {nf} | {n} | {s} | {_share(s, total)} |" for k, nf, n, s in b["kinds"]]
    out += ["", "| test file | kind of work | tests | seconds summed | share |",
            "|---|---|---|---|---|"]  # fmt: skip
    out += [f"| {f} | {k} | {n} | {s} | {_share(s, total)} |" for f, k, n, s in b["files"]]
    out += ["", f"| the {len(b['slowest'])} slowest tests | seconds |", "|---|---|"]
    out += [f"| `{t}` | {s} |" for t, s in b["slowest"]]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/ci_budget.py",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    parser.add_argument("junit", type=Path, nargs="+", help="pytest's JUnit XML files")
    parser.add_argument("--json", action="store_true", help="print the budget as JSON")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.junit if not p.exists()]
    if missing:
        print(f"no such JUnit file: {', '.join(missing)} (make test writes results/pytest-junit*.xml)",
              file=sys.stderr)  # fmt: skip
        return NOTHING
    b = budget(args.junit)
    print(json.dumps(b, indent=1) if args.json else "\n".join(lines(b)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
