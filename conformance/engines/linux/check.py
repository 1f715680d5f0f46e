"""``make kernel-check``: build the kernel harness, classify it, run the conformance driver on it
for every constant set, and print one table (Markdown, as the README quotes it).

1. ``classify`` exactly as ``python -m conformance classify --engine CMD`` does it: the harness
   over JSON lines (``python -m conformance.engines.linux``, PROTOCOL.md's ESSA mode), every
   constant set, :data:`PAGES` pages (:func:`conformance.essa.classify.classify`).
2. ``run`` as ``python -m conformance run --machine ESSA`` does it: the coverage tour, the swarm
   walk and hypothesis (:func:`conformance.search.search`, :func:`run_budget`) beside the reference of the
   Impl the harness announces, over :data:`PAGES` pages. One profile at a time, so that a
   divergence under one constant set does not hide the others (``run`` itself stops at the
   first). The harness is driven in process here (the same binary without the JSON hop).
   Each divergence is reported and its reproducers saved by the driver
   (:func:`conformance.commands.report_failure`: report.txt, trace.jsonl, trace.itf.json and
   the TLA+ trace module under ``--out``/<profile>/).

Everything printed on stdout is deterministic (fixed seeds, no timings), so the README's section
"Test the Linux kernel's ESSA" is this output (``--check-readme`` checks it; CI passes it).

Each distinct divergence (the diverging request and the fields that differ) is printed once,
with the profiles it shows under, and its step in the kernel's terms (the PTE and PGSTE before
and after, decoded with the kernel's macro names, the CBRL, the kernel functions the step ran).
The last line is a one-sentence summary.

Exit status: 0 when every profile conforms (or with ``--report-only``), 1 on a divergence
(run's, or classify's for the announced Impl) or, with ``--check-readme``, a README block that
differs, 3 on a build error or an engine fault.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import multiprocessing
import os
import io
import random
import re
import resource
import shlex
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TextIO

from conformance.essa.classify import Classification, Verdict, classify, sequences
from conformance.driver import Divergence, Drive, Fault, Outcome, engine_key, report, report_dir
from conformance.search import Budget, scope, search
from conformance.essa.cli import read_essa_trace
from conformance.essa import (
    ESSA_DRIVER, EssaEngine, EssaJsonLinesEngine, EssaProfileRequest, EssaReply, EssaRequest,
)  # fmt: skip
from conformance.commands import report_failure
from conformance.essa_migration import MIGRATION_DRIVER, MIGRATION_MACHINE
from conformance.protocol import EngineFault
from tlcrunner import ci_formats
from refimpl.core.constants import Constant
from refimpl.essa import CONSTANTS, EssaProfile
from refimpl.essa.profile import GMAP_ONLY, IDENTITY, folded

from .blame import SET_BY, bodies, calls_of, reblame
from .engine import IMPL, KernelEssaEngine
from .extract import ExtractError
from . import vmm_check
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
    #: Each divergence (classify's for this Impl, then run's).
    errors: list[Failure] = field(default_factory=list)
    #: Each divergence's saved trace (trace.jsonl), which ``--replay`` runs on a kernel again.
    traces: list[Path] = field(default_factory=list)
    #: What the ESSAMigration mode's search found (empty: the profile has no incremental
    #: migration, or the engine does not speak the mode).
    migration: list[Outcome] = field(default_factory=list)
    #: The kernel functions the harness took from the tree, and those a request of this
    #: profile's classify and run entered (harness_trace.h; empty for an engine that does not
    #: say).
    functions: tuple[str, ...] = ()
    entered: frozenset[str] = frozenset()

    @property
    def diverged(self) -> bool:
        return bool(self.errors) or any(isinstance(o.error, Divergence)
                                        for o in (*self.outcomes, *self.migration))  # fmt: skip


@dataclass(frozen=True)
class Failure:
    """A divergence as kernel-check keeps it (plain data, so a worker process can return it):
    who found it, :func:`finding_key`, and the requests from a reset through the diverging one."""

    found_by: str
    key: tuple[str, tuple[str, ...]]
    requests: tuple[EssaRequest, ...]
    #: Each differing field: its name, the kernel's value, the spec's.
    values: tuple[tuple[str, str, str], ...] = ()
    #: The protocol's mode the requests are of (ESSA, or ESSAMigration: Migrate is the switch).
    machine: str = "ESSA"
    #: Each differing field's value in the kernel's reply before the diverging step (none when
    #: the step is the first after a reset).
    before: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, found_by: str, error: Divergence, machine: str = "ESSA") -> Failure:
        last = error.steps[-1]
        values = tuple((f, _field(last.observed, f), _field(last.expected, f)) for f in last.differs)
        previous = error.steps[-2].observed if len(error.steps) > 1 else None
        before = tuple((f, _field(previous, f)) for f in last.differs) if previous else ()
        return cls(found_by, finding_key(error), tuple(s.request for s in error.steps), values,
                   machine, before)  # fmt: skip


def _field(reply: EssaReply | None, name: str) -> str:
    """A reply's field by the driver's name for it: ``outcome``, ``result``, ``pages[0].nodat``."""
    m = re.fullmatch(r"pages\[(\d+)\]\.(\w+)", name)
    if reply is None:
        return "?"
    if m is None:
        return str(getattr(reply, name, "?"))
    i = int(m.group(1))
    return str(getattr(reply.pages[i], m.group(2))) if i < len(reply.pages) else "?"


@dataclass
class Finding:
    """One distinct divergence: the diverging step's request and the fields that differ
    (:func:`finding_key`), the first report of it, and every profile it was found under."""

    key: tuple[str, tuple[str, ...]]
    found_by: str
    failure: Failure
    report: str
    profiles: list[EssaProfile]
    #: The diverging step in the kernel's terms (:meth:`KernelEssaEngine.explain`), if asked.
    kernel: list[str] = field(default_factory=list)
    trace: Path | None = None

    def headline(self) -> str:
        """``ESSA ORC 1 (SetStable) on page 0: pages[0].nodat differ (pgste_perform_essa)``."""
        request, differs = self.key
        where = next((line.removeprefix("kernel function: ") for line in self.kernel
                      if line.startswith("kernel function: ")), "")  # fmt: skip
        # a field an earlier step left wrong: that step's writer (blame.look_back)
        where = next((line for line in self.kernel if line.startswith(SET_BY)), where)
        what = "; ".join(f"{f} is {kernel} where the spec says {spec}"
                         for f, kernel, spec in self.failure.values)  # fmt: skip
        return f"{request}: {what or ', '.join(differs) + ' differ'}" + (f" ({where})" if where else "")


def finding_key(error: Divergence) -> tuple[str, tuple[str, ...]]:
    """What makes two divergences the same: the diverging request and the fields that differ
    (one kernel bug shows under many constant sets, each time at this same step)."""
    last = error.steps[-1]
    return ESSA_DRIVER.show_request(last.request), tuple(last.differs)


def findings(rows: Sequence[Row]) -> list[Finding]:
    """The distinct divergences of ``rows``, in the order first found, each with its profiles."""
    out: dict[tuple[str, tuple[str, ...]], Finding] = {}
    for r in rows:
        traces: list[Path | None] = [*r.traces] if r.traces else [None] * len(r.errors)
        for failure, report, trace in zip(r.errors, r.reports, traces, strict=True):
            key = failure.key
            if key in out:
                if r.profile not in out[key].profiles:
                    out[key].profiles.append(r.profile)
                continue
            out[key] = Finding(key, failure.found_by, failure, report, [r.profile], trace=trace)
    return list(out.values())


def label(profile: EssaProfile) -> str:
    """A profile in a few words (the driver's short name, and CMMA off: the short name leaves
    CMMAEnabled out)."""
    return ESSA_DRIVER.short_name(profile) + ("" if profile.cmma_enabled else "-nocmma")


def fixed_request(impl: str, only: EssaProfileRequest | None = None) -> EssaProfileRequest:
    """The profiles ``run`` (and compare) take: ``impl`` as fixed, no Bugs (the spec's profile:
    a tree before a fix is to diverge from it, and each Bugs profile would repeat the constant
    set's classify and run), those ``only`` fixes."""
    own = EssaProfileRequest(impl=impl, bugs=frozenset())
    return own if only is None else only.merged(own)


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


#: The kernel's side of a divergence: the profile and the requests from a reset, to the lines
#: that show the last step in the kernel's terms (:meth:`KernelEssaEngine.explain`).
Explain = Callable[[EssaProfile, Sequence[EssaRequest]], list[str]]


def run_budget(impl: str, examples: int = EXAMPLES, max_steps: int = MAX_STEPS) -> Budget:
    """What ``run`` spends on each profile of ``impl``: the suite's default budget (the coverage
    tour and the swarm walk, :data:`conformance.essa.DEFAULT_BUDGETS`) with hypothesis's
    ``examples`` on top."""
    return dataclasses.replace(ESSA_DRIVER.budget(impl), examples=examples, max_steps=max_steps)


def migration_budget(impl: str) -> Budget:
    """What kernel-check spends on the ESSAMigration mode per profile: the mode's own budget
    (its coverage tour and swarm walk, :data:`conformance.essa_migration.DEFAULT_BUDGETS`), no
    hypothesis."""
    return MIGRATION_DRIVER.budget(impl)


def check(classify_engine: EssaEngine, run_engine: Callable[[], EssaEngine], impl: str,
          out_dir: Path, *, examples: int = EXAMPLES, max_steps: int = MAX_STEPS,
          seed: int = SEED, tlc: bool = False, engine_name: str | None = None,
          timings: dict[str, float] | None = None, request: EssaProfileRequest | None = None,
          only: EssaProfileRequest | None = None,
          known: Mapping[EssaProfile, Verdict] | None = None,
          asked: Sequence[EssaProfile] | None = None,
          ) -> tuple[Classification, list[Row]]:  # fmt: skip
    """classify ``classify_engine`` over every constant set (:func:`classify_request`, or those
    ``request`` leaves open), then ``run`` a fresh ``run_engine()`` on each profile of ``impl``
    (those ``only`` fixes, if given). ``timings`` gets the seconds of each phase. The engines'
    name in the reports is ``engine_name``, else the one classify's engine announced.
    ``known``: classify's verdicts of other constant sets on this engine, for the candidates
    folded into them (:func:`check_parallel`). ``asked``: every profile the whole check runs
    (default: those of this call); a profile whose stand-in (:func:`tour_only`) is one of them
    gets the coverage tour alone. Raises Fault or EngineFault."""
    t0 = time.monotonic()
    try:
        # fold, as `python -m conformance classify` does: a candidate whose reference graph
        # another candidate's is (refimpl.essa.profile.FOLDS) takes that one's verdict, unrun.
        # The Impl's own candidates are checked under every constant set all the same (their
        # steps are the SUMMARY's), and run searches each of them.
        c = classify(classify_engine, classify_request(impl, only) if request is None else request,
                     fold=True, known=known,
                     always=ESSA_DRIVER.profiles(fixed_request(impl), PAGES))  # fmt: skip
    finally:
        classify_engine.close()
    functions, classified = _coverage([classify_engine])
    name = engine_name or c.engine.name
    t1 = time.monotonic()
    rows = []
    fixed = fixed_request(impl, only)
    t_migration = 0.0
    mine = ESSA_DRIVER.profiles(fixed, PAGES)
    for profile in mine:
        engine = run_engine()
        used = [engine]
        budget = run_budget(impl, examples, max_steps)
        if tour_only(profile, mine if asked is None else asked) is not None:
            # its reference graph is its stand-in's: every edge of it is still toured on the
            # kernel under this constant set, the random phases are spent once, on the stand-in
            budget = dataclasses.replace(budget, examples=0, swarm=0, walk=0)
        try:
            # run's own search, as `python -m conformance run` spends it on this Impl: the
            # coverage tour of every (state, request) edge over two pages within the budget, the
            # swarm walk, and hypothesis
            outcomes = search(ESSA_DRIVER, engine, [profile], budget, seed=seed)
        finally:
            engine.close()
        # incremental migration (the ESSAMigration mode), where the engine speaks it and the
        # profile has it: its own search, on a fresh engine
        migration: list[Outcome] = []
        t2 = time.monotonic()
        if profile in MIGRATION_DRIVER.profiles(EssaProfileRequest.of(profile), profile.pages):
            engine = run_engine()
            used.append(engine)
            try:
                if MIGRATION_MACHINE in getattr(engine, "machines", ()):
                    migration = search(MIGRATION_DRIVER, engine, [profile],
                                       migration_budget(impl), seed=seed)  # fmt: skip
            finally:
                engine.close()
        t_migration += time.monotonic() - t2
        # classify's divergence of this profile (its tour is run's tour, not run twice), then run's
        errors: list[tuple[str, Divergence]] = [
            ("classify", v.divergence.error) for v in c.verdicts
            if v.profile == profile and v.divergence is not None]  # fmt: skip
        for found_by, found in (("run", outcomes), ("migration", migration)):
            for o in found:
                if isinstance(o.error, Fault):
                    raise o.error
                if isinstance(o.error, Divergence):
                    errors.append((found_by, o.error))
        reports, traces = [], []
        for found_by, error in errors:
            buf = io.StringIO()
            where = out_dir / found_by / ("" if profile.cmma_enabled else "cmma-off")
            mode = MIGRATION_DRIVER if found_by == "migration" else ESSA_DRIVER
            report_failure(mode, error, name, where, buf, tlc=tlc)
            reports.append(f"found by {found_by}:\n{buf.getvalue()}")
            traces.append(report_dir(mode, where, profile, name) / "trace.jsonl")
        ran, entered = _coverage(used)
        rows.append(Row(profile, _classify_verdict(c, profile), outcomes, reports,
                        [Failure.of(by, e, MIGRATION_MACHINE if by == "migration" else "ESSA")
                         for by, e in errors], traces, migration, functions or ran,
                        classified | entered))  # fmt: skip
    if timings is not None:
        timings.update(classify=t1 - t0, run=time.monotonic() - t1 - t_migration,
                       migration=t_migration)  # fmt: skip
    return c, rows


def tour_only(profile: EssaProfile, asked: Sequence[EssaProfile]) -> EssaProfile | None:
    """The profile whose swarm walk and hypothesis stand for ``profile``'s, or None (``profile``
    gets run's whole budget). A profile whose reference graph another asked profile's equals
    (:func:`refimpl.essa.profile.folded`, D361: with CMMA disabled every ESSA is an operation
    exception, so Facility147 and CBRLSize change no reply) is still driven through the
    coverage tour of every edge of that graph under its own constants, so a kernel that treats
    the two sets differently diverges on the first transition where it does; only the random
    phases, which draw from the same graph, are spent once per fold class (D464)."""
    stand_in = folded(profile)[0]
    return stand_in if stand_in != profile and stand_in in asked else None


def fold_note(rows: Sequence[Row]) -> str:
    """The scope's words for the profiles :func:`tour_only` gave the coverage tour alone ("" if
    none): how many, and the fold's reason."""
    asked = [r.profile for r in rows]
    toured = [p for p in asked if tour_only(p, asked) is not None]
    if not toured:
        return ""
    why = "; ".join(dict.fromkeys(f.name for p in toured for f in folded(p)[1]))
    stand_ins = len({tour_only(p, asked) for p in toured})
    return (f"; run once: the swarm walk and hypothesis of {stand_ins} profiles stand for "
            f"{len(toured)} others with the same reference graph ({why}), which get the coverage "
            f"tour alone")


def _coverage(engines: Sequence[object]) -> tuple[tuple[str, ...], frozenset[str]]:
    """The kernel functions ``engines`` (closed) took from the tree, and those their requests
    entered (:attr:`KernelEssaEngine.entered`; nothing for an engine that does not say)."""
    functions: tuple[str, ...] = ()
    entered: set[str] = set()
    for e in engines:
        functions = functions or tuple(getattr(e, "functions", ()))
        entered |= set(getattr(e, "entered", ()))
    return functions, frozenset(entered)


def not_entered(rows: Sequence[Row], also: frozenset[str] = frozenset()
                ) -> tuple[list[str], list[str]]:  # fmt: skip
    """The kernel functions taken from the tree that a request of ``rows`` (or of the VMM pass:
    ``also``) entered, and those none entered, each in the harness's order (empty when the
    engine does not say)."""
    functions = next((r.functions for r in rows if r.functions), ())
    entered = frozenset().union(also, *(r.entered for r in rows))
    return ([f for f in functions if f in entered], [f for f in functions if f not in entered])


def tree_dir(out: Path, built: Built, harness: str) -> Path:
    """Where a tree's reproducers are kept under ``out``: one folder per tree and harness
    (:func:`conformance.driver.engine_key` of the tree's resolved path and the harness), so that
    checking one tree never overwrites another's traces, nor the ``replay on a kernel`` line an
    earlier report printed."""
    return out / engine_key(f"{built.tree.resolve()} {harness}")


def check_parallel(built: Built, harness: str, out_dir: Path, *, jobs: int,
                   examples: int = EXAMPLES, max_steps: int = MAX_STEPS, seed: int = SEED,
                   tlc: bool = False, memo: bool = True, only: EssaProfileRequest | None = None,
                   fail_fast: bool = False,
                   ) -> tuple[Classification, list[Row], dict[str, int], dict[str, float]]:  # fmt: skip
    """:func:`check` with the kernel's harness, one constant set at a time in ``jobs`` worker
    processes (each with its own harness): the same classify and run, profile by profile, as one
    :func:`check` does them, merged in profile order. Also returns the engines' counters and the
    seconds of each phase, summed over the workers (each a wall clock). With ``fail_fast`` the
    first constant set that diverges ends the run: no constant set is started after it, and
    the workers still running are stopped (their sets are left out of the table)."""
    impl = IMPL[harness]
    fixed = fixed_request(impl, only)
    profiles = ESSA_DRIVER.profiles(fixed, PAGES)

    def diverged(result: tuple[Classification, list[Row], Any, Any]) -> bool:
        return any(r.errors for r in result[1])

    # Two waves: first the constant sets no fold maps to another asked one, then the others,
    # whose classify takes the first wave's verdicts for its folded candidates (as one classify
    # over every set would). run searches every set in full in either wave.
    asked = set(profiles)
    later = {p for p in profiles if (s := folded(p)[0]) != p and s in asked}
    waves = [[p for p in profiles if p not in later], [p for p in profiles if p in later]]
    found: dict[EssaProfile, tuple[Classification, list[Row], Any, Any]] = {}
    known: dict[EssaProfile, Verdict] = {}
    for wave in waves:
        task = functools.partial(_check_one, built, harness, out_dir, examples, max_steps, seed,
                                 tlc, memo, dict(known), tuple(profiles))  # fmt: skip
        stop = False
        if not wave:
            continue
        if jobs <= 1 or len(wave) <= 1:
            for p in wave:
                found[p] = task(p)
                if fail_fast and diverged(found[p]):
                    stop = True
                    break
        elif not fail_fast:
            with multiprocessing.get_context("fork").Pool(min(jobs, len(wave))) as pool:
                found.update(zip(wave, pool.map(task, wave, chunksize=1)))
        else:
            with multiprocessing.get_context("fork").Pool(min(jobs, len(wave))) as pool:
                for i, result in pool.imap_unordered(functools.partial(_indexed, task),
                                                     enumerate(wave), chunksize=1):  # fmt: skip
                    found[wave[i]] = result
                    if diverged(result):
                        pool.terminate()
                        stop = True
                        break
        if stop:
            break
        known.update((v.profile, v) for c, *_ in found.values() for v in c.verdicts
                     if v.stand_in is None and not v.skipped)  # fmt: skip
    results = [found[p] for p in profiles if p in found]
    verdicts = tuple(v for c, _, _, _ in results for v in c.verdicts)
    rows = [r for _, rs, _, _ in results for r in rs]
    counters = {k: sum(n[k] for _, _, n, _ in results) for k in ("sent", "round_trips", "memoized")}
    phases = {k: sum(t.get(k, 0.0) for *_, t in results) for k in ("classify", "run", "migration")}
    return Classification(results[0][0].engine, verdicts), rows, counters, phases


def _indexed(task: Callable[[EssaProfile], Any], item: tuple[int, EssaProfile]) -> tuple[int, Any]:
    """``task`` of an enumerated profile, with its index (results come back in any order)."""
    return item[0], task(item[1])


class WorkerFault(Exception):
    """An engine fault in a worker process, as text: ``(kind) at where: message``."""


def _check_one(built: Built, harness: str, out_dir: Path, examples: int, max_steps: int,
               seed: int, tlc: bool, memo: bool, known: Mapping[EssaProfile, Verdict],
               asked: Sequence[EssaProfile], profile: EssaProfile,
               ) -> tuple[Classification, list[Row], dict[str, int], dict[str, float]]:  # fmt: skip
    """One profile's classify and run (a worker's task): picklable results, the divergences
    kept as :class:`Failure`."""
    engines: list[KernelEssaEngine] = []

    def engine() -> EssaEngine:
        e = KernelEssaEngine(harness, memo=memo)
        e.built = built
        engines.append(e)
        return e

    one = EssaProfileRequest.of(profile).without("bugs", "pages")
    timings: dict[str, float] = {}
    try:
        c, rows = check(engine(), engine, IMPL[harness], out_dir, examples=examples,
                        max_steps=max_steps, seed=seed, tlc=tlc, only=one, timings=timings,
                        known=known, asked=asked)  # fmt: skip
    except Fault as exc:  # neither pickles: a worker's fault goes back as its text
        raise WorkerFault(f"({exc.fault.kind}) at {exc.where}: {exc.fault.message}") from None
    except EngineFault as exc:
        raise WorkerFault(f"({exc.kind}): {exc.message}") from None
    verdicts = tuple(v if v.divergence is None else v._replace(
        divergence=v.divergence._replace(error=None))  # type: ignore[arg-type]
        for v in c.verdicts)  # fmt: skip
    rows = [dataclasses.replace(r, outcomes=[dataclasses.replace(o, error=None) for o in r.outcomes],
                                migration=[dataclasses.replace(o, error=None) for o in r.migration])
            for r in rows]  # fmt: skip
    counters = {"sent": sum(e.sent for e in engines),
                "round_trips": sum(e.round_trips for e in engines),
                "memoized": sum(e.memoized for e in engines)}  # fmt: skip
    return Classification(c.engine, verdicts), rows, counters, timings


def classify_request(impl: str, only: EssaProfileRequest | None = None) -> EssaProfileRequest:
    """What classify asks for: :data:`PAGES` pages and every constant set, except that for a
    harness of another Impl than KVMGmap the new gmap's own constants (PrebuiltPageTables) stay
    at their defaults: that code has no gmap page tables, so the sets with the other value would
    repeat the same runs (every candidate is still tried under every other constant set)."""
    fields = {} if only is None else only.without("impl", "pages").fields
    if impl == "KVMGmap":
        return EssaProfileRequest(pages=PAGES, **fields)
    gmap_only = {k.attr: k.domain[0] for k in CONSTANTS
                 if k.attr in GMAP_ONLY and k.attr not in IDENTITY}  # fmt: skip
    return EssaProfileRequest(pages=PAGES, **{**gmap_only, **fields})


def _run_cell(r: Row, outcomes: Sequence[Outcome] | None = None) -> str:
    """``run``'s cell (or, given ``outcomes``, the migration mode's): the status and the steps."""
    found = r.outcomes if outcomes is None else outcomes
    if outcomes is not None and not outcomes:
        return "-"
    steps = sum(o.steps for o in found)
    # run's cell shows classify's divergence of the profile too (as it always has)
    mine = [e for e in r.errors if (e.found_by == "migration") == (outcomes is not None)]
    diverged = bool(mine) or any(isinstance(o.error, Divergence) or o.status == "diverged"
                                 for o in found)  # fmt: skip
    status = "diverged" if diverged else ("passed" if all(o.passed for o in found)
                                          else ", ".join(o.status for o in found))  # fmt: skip
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
          examples: int = EXAMPLES, max_steps: int = MAX_STEPS,
          found: Sequence[Finding] | None = None,
          also: frozenset[str] = frozenset()) -> None:  # fmt: skip
    """The title, one row per profile, then each distinct divergence once (``found``, else
    :func:`findings` of ``rows``), with the profiles it shows under; ``also``: the kernel
    functions the VMM pass entered."""
    columns = varying(rows)
    # a constant the same in every row is named in the title when not at its default
    fixed = [k for k in CONSTANTS if k not in columns and k.attr != "impl" and rows
             and getattr(rows[0].profile, k.attr) != k.domain[0]]  # fmt: skip
    same = "".join(f"; {k.tla} {_value(getattr(rows[0].profile, k.attr))}" for k in fixed)
    impl = rows[0].profile.impl if rows else "KVMClassic"
    migrates = any(r.migration for r in rows)
    migration = (f" migration (the ESSAMigration mode, where the profile has it): "
                 f"{migration_budget(impl).describe()}, seed {SEED}." if migrates else "")  # fmt: skip
    print(f"{title}; Pages {PAGES}{same}. classify: {_verdict(c)}. run: "
          f"{run_budget(impl, examples, max_steps).describe()}, seed {SEED}.{migration}\n",
          file=out)  # fmt: skip
    heads = ["classify (this Impl)", "run", *(["migration"] if migrates else [])]
    print("| " + " | ".join([*(k.tla for k in columns), *heads]) + " |", file=out)
    print("|---" * (len(columns) + len(heads)) + "|", file=out)
    for r in rows:
        cells = [_value(getattr(r.profile, k.attr)) for k in columns]
        cells += [r.classify, _run_cell(r), *([_run_cell(r, r.migration)] if migrates else [])]
        print("| " + " | ".join(cells) + " |", file=out)
    ran, idle = not_entered(rows, also)
    if ran or idle:
        print(f"\nKernel functions taken from the tree: {len(ran) + len(idle)}; entered by a "
              f"request: {len(ran)}; entered by none: {', '.join(idle) or 'none'}.", file=out)  # fmt: skip
    found = findings(rows) if found is None else found
    for i, f in enumerate(found, 1):
        under = ", ".join(label(p) for p in f.profiles)
        print(f"\nDivergence {i} of {len(found)}: {f.headline()}; found by {f.found_by} under "
              f"{len(f.profiles)} profile{'s' if len(f.profiles) > 1 else ''}: {under}. The "
              f"first:\n\n```\n{f.report.split(chr(10), 1)[1].rstrip()}", file=out)  # fmt: skip
        if f.kernel:
            print("\n" + "\n".join(f.kernel), file=out)
        if f.trace is not None:
            print(f"replay on a kernel: make kernel-check REPLAY={f.trace} "
                  "[KERNEL_SRC=/path/to/patched/linux]", file=out)  # fmt: skip
        print("```", file=out)


def summary(kernel: str, impl: str, c: Classification, rows: Sequence[Row],
            found: Sequence[Finding], also: frozenset[str] = frozenset()) -> str:
    """The last line kernel-check prints: the verdict in one sentence; a pass then says its scope
    (D414), a divergence is the kernel's whatever else was covered."""
    if found:
        diverged = sum(1 for r in rows if r.diverged)
        distinct = f" ({len(found)} distinct divergences)" if len(found) > 1 else ""
        return (f"kernel-check: {diverged} of {len(rows)} profiles diverge{distinct}; first: "
                f"{found[0].headline()}")  # fmt: skip
    steps = sum(o.steps for r in rows for o in (*r.outcomes, *r.migration))
    steps += sum(v.steps for v in c.verdicts if v.profile.impl == impl and not v.profile.bugs)
    # the scope, then the profiles whose random phases a stand-in ran (D464), then how to go on
    covered = scope([r.profile for r in rows], [o for r in rows for o in r.outcomes], more="")
    covered += fold_note(rows) + "; more: KERNEL_CHECK_FLAGS='--profile thorough'"
    # conforms only for the code that ran: the functions no request entered are named
    ran, idle = not_entered(rows, also)
    which = (f" for the {len(ran)} kernel functions entered (not entered: "
             f"{', '.join(idle) or 'none'})" if ran or idle else "")  # fmt: skip
    return (f"kernel-check: Linux {kernel} conforms to {impl}{which}: {len(rows)} "
            f"profile{'s' if len(rows) != 1 else ''}, "
            f"{steps} steps, 0 divergences; {covered}")  # fmt: skip


def parse_only(text: str) -> EssaProfileRequest:
    """``--only``'s constants: ``StorageKeys=1,CBRLSize=1`` (TLA+ names or the profile's
    attributes, any case; values True/False, 1/0, yes/no or a number)."""
    names = {k.tla.lower(): k for k in CONSTANTS} | {k.attr.lower(): k for k in CONSTANTS}
    names |= {k.attr.replace("_", "").lower(): k for k in CONSTANTS}
    fields: dict[str, object] = {}
    for part in filter(None, (x.strip() for x in text.split(","))):
        key, eq, value = part.partition("=")
        k = names.get(key.strip().lower())
        if k is None or not eq or k.attr in ("impl", "bugs", "pages"):
            raise argparse.ArgumentTypeError(
                f"{part!r}: expected NAME=VALUE, NAME one of "
                + ", ".join(x.tla for x in CONSTANTS if x.attr not in ("impl", "bugs")))
        v = value.strip().lower()
        if isinstance(k.domain[0], bool):
            if v not in ("1", "0", "true", "false", "yes", "no"):
                raise argparse.ArgumentTypeError(f"{part!r}: {k.tla} is True or False")
            fields[k.attr] = v in ("1", "true", "yes")
        elif isinstance(k.domain[0], int):
            fields[k.attr] = int(v)
        else:
            fields[k.attr] = value.strip()
    return EssaProfileRequest(**fields)


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.engines.linux.check",
        description="make kernel-check: build the kernel harness, classify it, run the "
        "conformance driver on it for every constant set, and print one table.",
        epilog="exit status:\n"
        "  0  every profile conforms (or --report-only)\n"
        "  1  a divergence (run's, or classify's for the announced Impl), or with --check-readme\n"
        "     a README block that differs\n"
        "  2  bad command line, or an unreadable --replay trace\n"
        "  3  the harness could not be built, or it broke the protocol",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--harness", choices=sorted(IMPL),
                        help="the ESSA code to take (default: the one the tree has)")
    parser.add_argument("--kernel-src", metavar="DIR",
                        help="the Linux tree to take the ESSA code from (default: $KERNEL_SRC, else "
                        "Debian's linux-source tarball, $KERNEL_TARBALL)")
    parser.add_argument("--profile", choices=sorted(ESSA_DRIVER.sizes), default=PROFILE,
                        help=f"run's hypothesis sizes (default {PROFILE}: "
                             + "; ".join(f"{k} {e} examples of up to {n} steps"
                                         for k, (e, n) in ESSA_DRIVER.sizes.items()) + ")")  # fmt: skip
    parser.add_argument("--only", type=parse_only, metavar="NAME=VALUE,...",
                        help="only the constant sets these fix, e.g. "
                             "StorageKeys=1,Facility147=1,CBRLSize=1,CMMAEnabled=1 (one profile)")
    parser.add_argument("--replay", type=Path, metavar="TRACE.jsonl",
                        help="run a saved trace's requests on the kernel (e.g. a patched tree) "
                             "and judge its replies against the spec, instead of the check")
    parser.add_argument("--compare", metavar="BASE_TREE",
                        help="before/after: run the same requests on BASE_TREE's harness and on "
                             "--kernel-src's (or the default tree's) and report where their "
                             "replies differ, instead of the check")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes, one constant set each at a time (default: "
                             "2, or 1 on one core)")
    parser.add_argument("--no-memo", action="store_true",
                        help="send every request to the harness (no memoized replies, D121)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"reproducers (default {OUT})")
    parser.add_argument("--tlc", action="store_true",
                        help="confirm each divergence's TLA+ trace with TLC (adds timings)")
    parser.add_argument("--json-lines", action="store_true",
                        help="classify over JSON lines (python -m conformance.engines.linux)")
    parser.add_argument("--fail-fast", action="store_true",
                        help="stop at the first divergence: the VMM pass runs first (seconds) and "
                             "a divergence there ends the run; then classify and run stop at the "
                             "first constant set that diverges (the report shows the sets run until "
                             "then)")
    parser.add_argument("--report-only", action="store_true",
                        help="exit 0 on divergences (they are still reported)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 on any divergence (the default; kept for old command lines)")
    ci_formats.add_options(parser)
    parser.add_argument("--check-readme", action="store_true",
                        help="exit 1 unless docs/kernel.md's kernel-check block is what this run prints "
                             "(CI runs it so, and the test suite then need not run the check again)")
    args = parser.parse_args(argv)
    bad_path = ci_formats.unwritable([("--junit-xml", args.junit_xml), ("--json", args.json)])
    if bad_path is not None:
        parser.error(bad_path)
    examples, max_steps = ESSA_DRIVER.sizes[args.profile]
    t0 = time.monotonic()
    notes: list[str] = []
    try:
        if args.harness is None:  # said first, so that a failed build names the harness
            args.harness, where = detect(args.kernel_src)
            print(f"kernel-check: the tree has the {args.harness} ESSA code ({where})", file=sys.stderr)
        built, args.harness = build_for(args.harness, args.kernel_src, notes)
    except (ExtractError, RuntimeError) as exc:
        print(f"kernel-check: cannot build the {args.harness or 'kernel'} harness: {exc}",
              file=sys.stderr)  # fmt: skip
        return EXIT_BUILD
    t_build = time.monotonic() - t0
    for note in notes:
        print(f"kernel-check: note: {note}", file=sys.stderr)
    if args.replay is not None:
        return replay(args.replay, built, args.harness, out)
    if args.compare is not None:
        try:
            base, _ = build_for(args.harness, args.compare)
        except (ExtractError, RuntimeError) as exc:
            print(f"kernel-check: cannot build the base tree's harness: {exc}", file=sys.stderr)
            return EXIT_BUILD
        return compare(base, built, args.harness, out, only=args.only, seed=SEED)
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

    impl = IMPL[args.harness]
    args.out = tree_dir(args.out, built, args.harness)
    counters: dict[str, int] = {}
    phases: dict[str, float] = {}
    # CMMA migration as a VMM drives it (vmm_check), on the classic code with CMMA on
    with_vmm = args.harness == "classic" and (args.only is None or args.only.cmma_enabled is not False)
    vmm = None
    try:
        if with_vmm and args.fail_fast:
            # the VMM pass costs seconds, classify and run minutes: a gate that stops at the first
            # divergence asks the cheap pass first, and a divergence there ends the run
            vmm = vmm_check.check_vmm(built)
            if vmm.divergences:
                out.write("\n".join(vmm_check.report(vmm)) + "\n")
                last = (f"kernel-check: the VMM pass diverges (--fail-fast: classify and run not "
                        f"started); first: {vmm.divergences[0].headline()}")  # fmt: skip
                print(last, file=out, flush=True)
                status = EXIT_DIVERGED if not args.report_only else EXIT_OK
                ci_formats.write_from(args, "kernel-check", [vmm_case(vmm)], last, status)
                return status
        if args.json_lines:
            c, rows = check(EssaJsonLinesEngine(shlex.join(command)), in_process, impl, args.out,
                            examples=examples, max_steps=max_steps, tlc=args.tlc,
                            timings=timings, only=args.only)  # fmt: skip
        else:
            t1 = time.monotonic()
            c, rows, counters, phases = check_parallel(
                built, args.harness, args.out, jobs=args.jobs, examples=examples,
                max_steps=max_steps, tlc=args.tlc, memo=not args.no_memo, only=args.only,
                fail_fast=args.fail_fast)  # fmt: skip
            timings["classify and run"] = time.monotonic() - t1
        found = findings(rows)
        for f in found:
            f.kernel = kernel_terms(built, args.harness, f)
        if with_vmm and vmm is None:
            vmm = vmm_check.check_vmm(built)
    except Fault as exc:
        print(f"kernel-check: ENGINE FAULT ({exc.fault.kind}) at {exc.where}: {exc.fault.message}",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAULT
    except EngineFault as exc:
        print(f"kernel-check: ENGINE FAULT ({exc.kind}): {exc.message}", file=sys.stderr)
        return EXIT_FAULT
    except WorkerFault as exc:
        print(f"kernel-check: ENGINE FAULT {exc}", file=sys.stderr)
        return EXIT_FAULT
    except KeyboardInterrupt:
        print("kernel-check: interrupted (Ctrl-C); the harnesses were stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    printed = io.StringIO()
    table(f"Linux {built.kernel}, {args.harness} harness ({args.harness} KVM code compiled for "
          "s390x, run under qemu-s390x)", c, rows, printed, examples=examples,
          max_steps=max_steps, found=found,
          also=frozenset(vmm.entered) if vmm is not None else frozenset())  # fmt: skip
    last = summary(built.kernel, impl, c, rows, found,
                   frozenset(vmm.entered) if vmm is not None else frozenset())
    if vmm is not None:
        printed.write("\n" + "\n".join(vmm_check.report(vmm)) + "\n")
        if vmm.divergences and not found:
            last = f"kernel-check: the VMM pass diverges; first: {vmm.divergences[0].headline()}"
    out.write(printed.getvalue())
    out.flush()
    # on stderr: the table on stdout is the same on every run (the README quotes it)
    own, harness = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    for e in engines:
        for k in ("sent", "round_trips", "memoized"):
            counters[k] = counters.get(k, 0) + getattr(e, k)
    split = ("" if args.json_lines else "; the workers' wall clocks summed: " + ", ".join(
        f"{k} {v:.1f} s" for k, v in phases.items()))  # fmt: skip
    phases_text = ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
    jobs = "" if args.json_lines else f", {args.jobs} jobs{split}"
    print(f"kernel-check: build {t_build:.1f} s, {phases_text} (wall clock{jobs}); CPU: "
          f"Python {own.ru_utime + own.ru_stime:.1f} s, the harness, the workers (and the build) "
          f"{harness.ru_utime + harness.ru_stime:.1f} s; requests the harness ran "
          f"{counters.get('sent', 0)} in {counters.get('round_trips', 0)} round trips, answered "
          f"from memo {counters.get('memoized', 0)}", file=sys.stderr, flush=True)  # fmt: skip
    diverged = bool(found) or (vmm is not None and bool(vmm.divergences))
    status = EXIT_DIVERGED if diverged and not args.report_only else EXIT_OK
    if args.check_readme and readme_block() != printed.getvalue() + last + "\n":
        print("kernel-check: docs/kernel.md's kernel-check block differs from what this run printed; "
              "paste the output above (the table and this summary line) between its marker "
              "comments", file=sys.stderr)  # fmt: skip
        status = EXIT_DIVERGED
    print(last, file=out, flush=True)
    cases = row_cases(rows) + ([vmm_case(vmm)] if vmm is not None else [])
    ci_formats.write_from(args, "kernel-check", cases, last, status)
    return status


def vmm_case(vmm: vmm_check.Result) -> ci_formats.Case:
    """The VMM pass's verdict as one case for ``--junit-xml`` and ``--json``: failed with its
    report when it diverged, so that no divergence of the pass is missing from those files."""
    if vmm.divergences:
        return ci_formats.Case("VMM pass", "failed", 0.0, vmm.divergences[0].headline(),
                               "\n".join(vmm_check.report(vmm)))  # fmt: skip
    return ci_formats.Case("VMM pass", "passed", 0.0)


def row_cases(rows: Sequence[Row]) -> list[ci_formats.Case]:
    """kernel-check's verdict per profile, for ``--junit-xml`` and ``--json``: failed with every
    report of the profile's divergences (the shrunk trace, the reproducers' paths), or passed."""
    cases = []
    for r in rows:
        seconds = sum(o.seconds for o in (*r.outcomes, *r.migration))
        if r.diverged:
            message = "; ".join(f"found by {f.found_by}: {f.key[0]}: {', '.join(f.key[1])} differ"
                                for f in r.errors) or "diverges"  # fmt: skip
            cases.append(ci_formats.Case(label(r.profile), "failed", seconds, message,
                                         "\n".join(r.reports)))  # fmt: skip
        else:
            cases.append(ci_formats.Case(label(r.profile), "passed", seconds))
    return cases


#: Exit statuses: conforms (or --report-only), a divergence (or the README's block differs),
#: the harness could not be built, the harness broke the protocol.
EXIT_OK, EXIT_DIVERGED, EXIT_USAGE, EXIT_BUILD, EXIT_FAULT = 0, 1, 2, 3, 3
#: Ctrl-C: the shell's status of a process ended by SIGINT.
EXIT_INTERRUPTED: Final = 130


def build_for(harness: str | None, kernel_src: str | None,
              notes: list[str] | None = None) -> tuple[Built, str]:  # fmt: skip
    """The harness ``harness`` (by default the one for the ESSA code the tree has, said on
    stderr) built from ``kernel_src``. Raises ExtractError or RuntimeError."""
    if harness is None:
        harness, where = detect(kernel_src)
        print(f"kernel-check: the tree has the {harness} ESSA code ({where})", file=sys.stderr)
    if harness not in HARNESSES:
        raise ExtractError(f"there is no {harness} harness yet "
                           "(conformance/engines/linux/README.md, \"The new gmap\")")  # fmt: skip
    return build(harness, kernel_src, notes), harness


def _engine(built: Built, harness: str, memo: bool = True) -> KernelEssaEngine:
    engine = KernelEssaEngine(harness, memo=memo)
    engine.built = built
    return engine


def replay(path: Path, built: Built, harness: str, out: TextIO) -> int:
    """A saved trace's requests on the kernel of ``built``, judged step by step against the
    spec (the reference of the trace's profile); where the kernel now answers otherwise than
    the trace recorded, said so. 0 when the kernel's replies conform all through, else 1."""
    try:
        machine = trace_machine(path)
        profile, requests, recorded = read_essa_trace(path, EssaProfileRequest(), PAGES, machine)
    except ValueError as exc:
        print(f"kernel-check: {exc}", file=sys.stderr)
        return EXIT_USAGE
    mode = MIGRATION_DRIVER if machine == MIGRATION_MACHINE else ESSA_DRIVER
    engine = _engine(built, harness, memo=False)
    engine.machine = machine
    name = f"Linux {built.kernel} {harness} (kernel code)"
    error: Divergence | None = None
    try:
        engine.hello(EssaProfileRequest.of(profile))
        drive: Drive[Any, Any, Any, Any] = Drive(mode, engine, profile)
        drive.reset()
        for i, (request, before) in enumerate(zip(requests, recorded, strict=True), 1):
            try:
                now = drive.step(request)
            except Divergence as exc:
                error, now = exc, exc.steps[-1].observed
            if now is not None and now.observed() != before.observed():
                print(f"step {i} ({ESSA_DRIVER.show_request(request)}): the kernel now answers "
                      f"{ESSA_DRIVER.show_reply(now)}; the trace recorded "
                      f"{ESSA_DRIVER.show_reply(before)}", file=out)  # fmt: skip
            if error is not None:
                break
    except Fault as exc:
        print(f"kernel-check: ENGINE FAULT ({exc.fault.kind}) at {exc.where}: {exc.fault.message}",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAULT
    finally:
        engine.close()
    if error is None:
        print(f"kernel-check: Linux {built.kernel} conforms to {profile.impl} on {path}: "
              f"{len(requests)} steps, 0 divergences", file=out)  # fmt: skip
        return EXIT_OK
    print(report(mode, error, engine=name), file=out)
    failure = Failure.of("replay", error, machine)
    terms = kernel_terms_of(built, harness, profile, [s.request for s in error.steps], machine)
    terms = blamed(terms, built, harness, failure, profile)
    print("\n".join(terms) + "\n", file=out)
    finding = Finding(failure.key, "replay", failure, "", [profile], kernel=terms)
    print(f"kernel-check: Linux {built.kernel} diverges from {profile.impl} on {path} at step "
          f"{error.steps[-1].index}: {finding.headline()}", file=out)  # fmt: skip
    return EXIT_DIVERGED


def trace_machine(path: Path) -> str:
    """The protocol's mode a saved trace is of (its header's ``machine``); raises ValueError."""
    import json

    try:
        with path.open(encoding="utf-8") as f:
            header = json.loads(f.readline())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    machine = header.get("machine") if isinstance(header, dict) else None
    return MIGRATION_MACHINE if machine == MIGRATION_MACHINE else "ESSA"


#: compare's programs per profile beyond the tours: random ones of up to this many steps.
COMPARE_PROGRAMS: Final = 200
COMPARE_STEPS: Final = 40


def compare(base: Built, patched: Built, harness: str, out: TextIO, *,
            only: EssaProfileRequest | None = None, seed: int = SEED, tours: bool = True) -> int:
    """Before/after: the same requests (classify's sequences, the tours, unless ``tours`` is
    false, and seeded random programs) on the harness of ``base`` and of ``patched``, each profile of the harness's Impl
    (those ``only`` fixes); every distinct step where their replies differ is reported once
    (the request and the fields), with both sides in the kernel's terms, whether or not the
    spec decides it. 0 when they answer alike everywhere, else 1."""
    impl = IMPL[harness]
    fixed = fixed_request(impl, only)
    seen: dict[tuple[str, tuple[str, ...]], list[EssaProfile]] = {}
    shown: list[tuple[tuple[str, tuple[str, ...]], EssaProfile, list[EssaRequest], EssaReply,
                      EssaReply]] = []
    profiles = ESSA_DRIVER.profiles(fixed, PAGES)
    steps = 0
    for profile in profiles:
        rng = random.Random(seed)
        requests = list(ESSA_DRIVER.requests(profile))
        programs: list[Sequence[EssaRequest]] = [p for _, p in sequences(profile)] if tours else []
        programs += [[rng.choice(requests) for _ in range(rng.randint(1, COMPARE_STEPS))]
                     for _ in range(COMPARE_PROGRAMS)]  # fmt: skip
        a, b = _engine(base, harness), _engine(patched, harness)
        try:
            a.hello(EssaProfileRequest.of(profile))
            b.hello(EssaProfileRequest.of(profile))
            # both pipelined (the engines' exchange): a reset's None, then each step's reply
            replies_a, replies_b = a.exchange(programs), b.exchange(programs)
            for program in programs:
                next(replies_a), next(replies_b)
                got = [(next(replies_a), next(replies_b)) for _ in program]
                for i, (r, (ra, rb)) in enumerate(zip(program, got)):
                    assert ra is not None and rb is not None
                    steps += 1
                    if ra.observed() == rb.observed():
                        continue
                    key = (ESSA_DRIVER.show_request(r), tuple(ra.differences(rb)))
                    if key not in seen:
                        seen[key] = []
                        shown.append((key, profile, list(program[:i + 1]), ra, rb))
                    if profile not in seen[key]:
                        seen[key].append(profile)
                    break
            next(replies_a, None), next(replies_b, None)  # the end: the exchanges finish
        finally:
            a.close()
            b.close()
    head = (f"Linux {base.kernel} ({base.tree}) against Linux {patched.kernel} ({patched.tree}), "
            f"{harness} harness: {len(profiles)} profiles, {steps} steps")  # fmt: skip
    print(head, file=out)
    for n, (key, profile, program, ra, rb) in enumerate(shown, 1):
        under = ", ".join(label(p) for p in seen[key])
        print(f"\nDifference {n} of {len(shown)}: {key[0]}: {', '.join(key[1])} differ, under "
              f"{under}; from a reset:", file=out)  # fmt: skip
        for i, r in enumerate(program, 1):
            print(f"  {i}. {ESSA_DRIVER.show_request(r)}", file=out)
        print(f"base:    {ESSA_DRIVER.show_reply(ra, key[1])}", file=out)
        print(f"patched: {ESSA_DRIVER.show_reply(rb, key[1])}", file=out)
        for side, built in (("base", base), ("patched", patched)):
            terms = kernel_terms_of(built, harness, profile, program)
            print(f"{side}, " + "\n".join(terms), file=out)
    if shown:
        print(f"kernel-check: the trees answer differently at {len(shown)} distinct step"
              f"{'s' if len(shown) > 1 else ''} under {len({p for ps in seen.values() for p in ps})}"
              f" of {len(profiles)} profiles; first: {shown[0][0][0]}: "
              f"{', '.join(shown[0][0][1])} differ", file=out)  # fmt: skip
        return EXIT_DIVERGED
    print(f"kernel-check: the trees answer alike: {len(profiles)} profiles, {steps} steps",
          file=out)  # fmt: skip
    return EXIT_OK


def kernel_terms_of(built: Built, harness: str, profile: EssaProfile,
                    requests: Sequence[EssaRequest], machine: str = "ESSA") -> list[str]:  # fmt: skip
    """``requests`` (of the protocol's mode ``machine``) replayed on a fresh harness, the last
    in the kernel's terms."""
    engine = _engine(built, harness, memo=False)
    engine.machine = machine
    try:
        return engine.explain(profile, requests)
    finally:
        engine.close()


def kernel_terms(built: Built, harness: str, f: Finding) -> list[str]:
    """The diverging step of ``f`` replayed on the harness, in the kernel's terms, blamed on
    the function that owns a wrong field (:mod:`.blame`)."""
    terms = kernel_terms_of(built, harness, f.profiles[0], f.failure.requests, f.failure.machine)
    return blamed(terms, built, harness, f.failure, f.profiles[0])


def blamed(terms: list[str], built: Built, harness: str, failure: Failure,
           profile: EssaProfile | None = None) -> list[str]:  # fmt: skip
    """``terms`` with the blame of :func:`.blame.reblame`: the writer of a wrong field that the
    step's call tree holds, from the tree's own code; when it holds none and ``profile`` is
    given, the last writer an earlier step of the trace ran (each earlier step replayed on the
    harness for its call tree)."""

    def history() -> list[list[tuple[int, bool, str]]]:
        assert profile is not None
        return [calls_of(kernel_terms_of(built, harness, profile, failure.requests[:k], failure.machine))
                for k in range(1, len(failure.requests))]  # fmt: skip

    return reblame(terms, failure.values, bodies(built, harness), HARNESSES[harness].helpers,
                   dict(failure.before), history if profile is not None else None)  # fmt: skip


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
