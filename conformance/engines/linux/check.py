"""``make kernel-check``: build the kernel harness, classify it, run the conformance driver on it
for every constant set, and print one table (Markdown, as the README quotes it).

1. ``classify`` exactly as ``python -m conformance classify --engine CMD`` does it: the harness
   over JSON lines (``python -m conformance.engines.linux``, PROTOCOL.md's ESSA mode), every
   constant set, :data:`PAGES` pages (:func:`conformance.classify.classify`).
2. ``run`` as ``python -m conformance run --machine ESSA`` does it: the driver's tour and
   hypothesis exploration (:func:`conformance.driver.run_machine`) beside the reference of the
   Impl the harness announces, over :data:`PAGES` pages. One profile at a time, so that a
   divergence under one constant set does not hide the others (``run`` itself stops at the
   first). The harness is driven in process here (the same binary without the JSON hop).
   Each divergence is reported and its reproducers saved by the driver
   (:func:`conformance.commands.report_failure`: report.txt, trace.jsonl, trace.itf.json and
   the TLA+ trace module under ``--out``/<profile>/).

Everything printed on stdout is deterministic (fixed seeds, no timings), so the README's section
"Test the Linux kernel's ESSA" is this output (tests/test_kernel_check.py checks it).

Exit status: 0 when every profile ran (divergences are reported, not failures), 1 with
``--strict`` and a divergence (run's, or classify's for the announced Impl), 3 on a build error
or an engine fault.
"""

from __future__ import annotations

import argparse
import io
import re
import resource
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from conformance.classify import Classification, classify
from conformance.driver import Divergence, Fault, Outcome, run_machine
from conformance.essa import ESSA_DRIVER, EssaEngine, EssaJsonLinesEngine, EssaProfileRequest
from conformance.commands import report_failure
from conformance.protocol import EngineFault
from refimpl.core.constants import Constant
from refimpl.essa import CONSTANTS, EssaProfile
from refimpl.essa.profile import GMAP_ONLY, IDENTITY

from .engine import IMPL, KernelEssaEngine
from .extract import ExtractError
from .kernels import HARNESSES, IMPLEMENTATIONS, Built, build, detect

PAGES: Final = 2
#: ``run --profile quick``'s sizes (examples, steps per example) by default, as CI runs it;
#: ``--profile thorough`` (``KERNEL_CHECK_FLAGS="--profile thorough"``) for ``run``'s thorough
#: ones (D121: measured costs and findings of both).
PROFILE: Final = "quick"
EXAMPLES, MAX_STEPS = ESSA_DRIVER.sizes[PROFILE]
SEED: Final = 0
#: Where the driver saves the reproducers (relative, so the printed paths are the same anywhere).
OUT: Final = Path(".cache/kernel-check")


@dataclass
class Row:
    """One profile: classify's verdict for it, and what ``run`` found."""

    profile: EssaProfile
    classify: str
    outcomes: list[Outcome]
    reports: list[str]  # the driver's report of each divergence, with its reproducers' paths

    @property
    def diverged(self) -> bool:
        return any(isinstance(o.error, Divergence) for o in self.outcomes)


def _classify_verdict(c: Classification, profile: EssaProfile) -> str:
    for v in c.verdicts:
        if v.profile == profile:
            if v.skipped:
                return "skipped"
            d = v.divergence
            return "matches" if d is None else f"diverges ({d.sequence}, step {d.step})"
    return "not run"


def _verdict(c: Classification) -> str:
    m = c.matched
    if c.identified is not None:
        return f"identified as {c.identified}"
    return "matches no Impl" if not m else f"matches {' and '.join(m)}"


def check(classify_engine: EssaEngine, run_engine: Callable[[], EssaEngine], impl: str,
          out_dir: Path, *, examples: int = EXAMPLES, max_steps: int = MAX_STEPS,
          seed: int = SEED, tlc: bool = False, engine_name: str = "engine",
          timings: dict[str, float] | None = None, request: EssaProfileRequest | None = None,
          ) -> tuple[Classification, list[Row]]:  # fmt: skip
    """classify ``classify_engine`` over every constant set (:func:`classify_request`, or those
    ``request`` leaves open), then ``run`` a fresh ``run_engine()`` on each profile of ``impl``.
    ``timings`` gets the seconds of each phase. Raises Fault or EngineFault."""
    t0 = time.monotonic()
    try:
        c = classify(classify_engine, classify_request(impl) if request is None else request)
    finally:
        classify_engine.close()
    t1 = time.monotonic()
    rows = []
    for profile in ESSA_DRIVER.profiles(EssaProfileRequest(impl=impl), PAGES):
        engine = run_engine()
        try:
            # tour=False: classify has just toured every page of this very profile
            outcomes = run_machine(ESSA_DRIVER, engine, [profile], tour=False, examples=examples,
                                   max_steps=max_steps, seed=seed)  # fmt: skip
        finally:
            engine.close()
        # classify's divergence of this profile (its tour is run's tour, not run twice), then run's
        errors = [("classify", v.divergence.error) for v in c.verdicts
                  if v.profile == profile and v.divergence is not None]  # fmt: skip
        for o in outcomes:
            if isinstance(o.error, Fault):
                raise o.error
            if isinstance(o.error, Divergence):
                errors.append(("run", o.error))
        reports = []
        for found_by, error in errors:
            buf = io.StringIO()
            report_failure(ESSA_DRIVER, error, engine_name, out_dir / found_by, buf, tlc=tlc)
            reports.append(f"found by {found_by}:\n{buf.getvalue()}")
        rows.append(Row(profile, _classify_verdict(c, profile), outcomes, reports))
    if timings is not None:
        timings.update(classify=t1 - t0, run=time.monotonic() - t1)
    return c, rows


def classify_request(impl: str) -> EssaProfileRequest:
    """What classify asks for: :data:`PAGES` pages and every constant set, except that for a
    harness of another Impl than KVMGmap the new gmap's own constants (PrebuiltPageTables) stay
    at their defaults: that code has no gmap page tables, so the sets with the other value would
    repeat the same runs (every candidate is still tried under every other constant set)."""
    if impl == "KVMGmap":
        return EssaProfileRequest(pages=PAGES)
    gmap_only = {k.attr: k.domain[0] for k in CONSTANTS
                 if k.attr in GMAP_ONLY and k.attr not in IDENTITY}  # fmt: skip
    return EssaProfileRequest(pages=PAGES, **gmap_only)


def _run_cell(r: Row) -> str:
    steps = sum(o.steps for o in r.outcomes)
    status = "diverged" if r.diverged else ("passed" if all(o.passed for o in r.outcomes)
                                            else ", ".join(o.status for o in r.outcomes))  # fmt: skip
    return f"{status} ({steps} steps)"


def _value(value: object) -> str:
    """A constant's value in a table cell: True, 2, {} or StickyZero."""
    if isinstance(value, frozenset):
        return ", ".join(sorted(value)) or "{}"
    return str(value)


def varying(rows: Sequence[Row]) -> list[Constant]:
    """The constants whose value differs between ``rows``: each is a column of the table, so
    no two rows look alike (the others are the same in every row and named in the title)."""
    return [k for k in CONSTANTS
            if len({getattr(r.profile, k.attr) for r in rows}) > 1]  # fmt: skip


def table(title: str, c: Classification, rows: Sequence[Row], out: TextIO, *,
          examples: int = EXAMPLES, max_steps: int = MAX_STEPS) -> None:  # fmt: skip
    columns = varying(rows)
    # a constant the same in every row is named in the title when not at its default
    fixed = [k for k in CONSTANTS if k not in columns and k.attr != "impl" and rows
             and getattr(rows[0].profile, k.attr) != k.domain[0]]  # fmt: skip
    same = "".join(f"; {k.tla} {_value(getattr(rows[0].profile, k.attr))}" for k in fixed)
    print(f"{title}; Pages {PAGES}{same}. classify: {_verdict(c)}. run: hypothesis "
          f"({examples} examples of up to {max_steps} steps, seed {SEED}).\n", file=out)  # fmt: skip
    print("| " + " | ".join(k.tla for k in columns) + " | classify (this Impl) | run |", file=out)
    print("|---" * (len(columns) + 2) + "|", file=out)
    for r in rows:
        cells = [_value(getattr(r.profile, k.attr)) for k in columns]
        print("| " + " | ".join([*cells, r.classify, _run_cell(r)]) + " |", file=out)
    for r in rows:
        for text in r.reports:
            print(f"\n{ESSA_DRIVER.short_name(r.profile)}, {text.rstrip()}".replace(":\n", ":\n\n```\n", 1)
                  + "\n```", file=out)  # fmt: skip


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.engines.linux.check",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    parser.add_argument("--harness", choices=sorted(IMPL),
                        help="the ESSA code to take (default: the one the tree has)")
    parser.add_argument("--kernel-src")
    parser.add_argument("--profile", choices=sorted(ESSA_DRIVER.sizes), default=PROFILE,
                        help=f"run's hypothesis sizes (default {PROFILE}: "
                             + "; ".join(f"{k} {e} examples of up to {n} steps"
                                         for k, (e, n) in ESSA_DRIVER.sizes.items()) + ")")  # fmt: skip
    parser.add_argument("--no-memo", action="store_true",
                        help="send every request to the harness (no memoized replies, D121)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"reproducers (default {OUT})")
    parser.add_argument("--tlc", action="store_true",
                        help="confirm each divergence's TLA+ trace with TLC (adds timings)")
    parser.add_argument("--json-lines", action="store_true",
                        help="classify over JSON lines (python -m conformance.engines.linux)")
    parser.add_argument("--strict", action="store_true", help="exit 1 on any divergence")
    parser.add_argument("--check-readme", action="store_true",
                        help="exit 1 unless docs/kernel.md's kernel-check block is what this run prints "
                             "(CI runs it so, and the test suite then need not run the check again)")
    args = parser.parse_args(argv)
    examples, max_steps = ESSA_DRIVER.sizes[args.profile]
    t0 = time.monotonic()
    try:
        if args.harness is None:
            args.harness = detect(args.kernel_src)
            function = next(f"{f} in {p}" for n, p, f in IMPLEMENTATIONS if n == args.harness)
            print(f"kernel-check: the tree has the {args.harness} ESSA code ({function})",
                  file=sys.stderr)  # fmt: skip
        if args.harness not in HARNESSES:
            raise ExtractError(f"there is no {args.harness} harness yet "
                               "(conformance/engines/linux/README.md, \"The new gmap\")")  # fmt: skip
        built: Built = build(args.harness, args.kernel_src)
    except (ExtractError, RuntimeError) as exc:
        print(f"kernel-check: cannot build the {args.harness} harness: {exc}", file=sys.stderr)
        return 3
    t_build = time.monotonic() - t0
    command = [sys.executable, "-m", "conformance.engines.linux", "--harness", args.harness]
    if args.kernel_src:
        command += ["--kernel-src", args.kernel_src]

    engines: list[KernelEssaEngine] = []
    timings: dict[str, float] = {}

    def in_process() -> EssaEngine:
        engine = KernelEssaEngine(args.harness, args.kernel_src, memo=not args.no_memo)
        engines.append(engine)
        engine.built = built
        return engine

    name = f"Linux {built.kernel} {args.harness} (kernel code)"
    try:
        classify_engine = (EssaJsonLinesEngine(shlex.join(command)) if args.json_lines
                           else in_process())  # fmt: skip
        c, rows = check(classify_engine, in_process, IMPL[args.harness], args.out,
                        examples=examples, max_steps=max_steps, tlc=args.tlc,
                        engine_name=name, timings=timings)  # fmt: skip
    except Fault as exc:
        print(f"kernel-check: ENGINE FAULT ({exc.fault.kind}) at {exc.where}: {exc.fault.message}",
              file=sys.stderr)  # fmt: skip
        return 3
    except EngineFault as exc:
        print(f"kernel-check: ENGINE FAULT ({exc.kind}): {exc.message}", file=sys.stderr)
        return 3
    printed = io.StringIO()
    table(f"Linux {built.kernel}, {args.harness} harness ({args.harness} KVM code compiled for "
          "s390x, run under qemu-s390x)", c, rows, printed, examples=examples,
          max_steps=max_steps)  # fmt: skip
    out.write(printed.getvalue())
    # on stderr: the table on stdout is the same on every run (the README quotes it)
    own, harness = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"kernel-check: build {t_build:.1f} s, classify {timings['classify']:.1f} s, run "
          f"{timings['run']:.1f} s (wall clock); CPU: Python {own.ru_utime + own.ru_stime:.1f} s, "
          f"the harness (and the build) {harness.ru_utime + harness.ru_stime:.1f} s; "
          f"requests the harness ran {sum(e.sent for e in engines)} in "
          f"{sum(e.round_trips for e in engines)} round trips, answered from memo "
          f"{sum(e.memoized for e in engines)}", file=sys.stderr)  # fmt: skip
    if args.check_readme and readme_block() != printed.getvalue():
        print("kernel-check: docs/kernel.md's kernel-check block differs from what this run printed; "
              "paste the table above between its marker comments", file=sys.stderr)
        return 1
    diverged = any(r.reports for r in rows)
    return 1 if args.strict and diverged else 0


README: Final = Path(__file__).resolve().parents[3] / "docs" / "kernel.md"


def readme_block() -> str:
    """docs/kernel.md's quote of kernel-check's output: between its two marker comments."""
    m = re.search(r"<!-- kernel-check: begin -->\n(.*?)<!-- kernel-check: end -->",
                  README.read_text(encoding="utf-8"), re.S)  # fmt: skip
    if m is None:
        raise SystemExit("kernel-check: docs/kernel.md lacks the <!-- kernel-check: begin/end --> block")
    return m.group(1)


if __name__ == "__main__":
    sys.exit(main())
