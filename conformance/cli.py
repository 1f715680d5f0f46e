"""``python -m conformance``: test an engine against the spec, or validate a recorded trace.

``run`` drives an engine (``--engine "command line"`` over JSON lines, or ``--engine-class
module:Class`` in-process) beside the reference implementation: first a deterministic tour of
every transition, then the hypothesis state machine (``--profile quick|thorough``, ``--examples``,
``--steps``, ``--seed``), and optionally a fast random walk (``--walk N``). A divergence is printed
as a table naming the rule broken, saved (report, JSON lines, ITF, TLA+) under ``--out``, and
confirmed by TLC. ``validate FILE`` checks a trace an engine recorded (JSON lines or ITF) with the
oracle and with TLC. ``mutants`` runs the suite against the shipped broken engines.

Exit status: 0 the engine conforms (or the trace is a behaviour of the spec); 1 a divergence;
2 bad command line or malformed trace file; 3 the engine broke the protocol (malformed reply,
crash, hang); 4 nothing was checked (no profile the engine runs, or TLC could not run).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from refimpl.pagestates.profile import UNUSED_ACCESSES, VARIANTS, ProfileError, all_profiles

from .engine import Engine
from .jsonlines import DEFAULT_TIMEOUT, JsonLinesEngine
from .protocol import EngineFault, ProfileRequest, Unsupported
from .report import divergence_report, fault_report, save, trace_of
from .runner import DEFAULT_VALUES, Outcome, connect, run_hypothesis, run_tour, run_walk, skipped_operations
from .session import EngineFaultError, Session
from .stateful import PROFILE_SIZES, QUICK, settings_for
from .trace import TraceFormatError, read_trace

EXIT_OK, EXIT_DIVERGED, EXIT_USAGE, EXIT_FAULT, EXIT_NOTHING = 0, 1, 2, 3, 4


def _values(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None
    if 0 not in values or any(v < 0 for v in values) or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError("values must include 0, be non-negative and distinct")
    return values


def _essa_options(p: argparse.ArgumentParser, impl: bool = True) -> None:
    """The ESSA mode's constants (--machine ESSA); left out: every value is tried."""
    from .essa_cli import add_profile_options

    add_profile_options(p, impl)


def _machine_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--machine", choices=("PageStates", "ESSA"), default="PageStates",
                   help="the mode of the protocol the engine speaks (default %(default)s)")


def _profile_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "profile", "asked of the engine, and used where the engine does not announce its own"
    )
    g.add_argument("--variant", choices=VARIANTS)
    service = g.add_mutually_exclusive_group()
    service.add_argument("--host-service", dest="host_service", action="store_true", default=None,
                         help="HostService = TRUE")
    service.add_argument("--direct", dest="host_service", action="store_false",
                         help="HostService = FALSE")
    g.add_argument("--unused-access", choices=UNUSED_ACCESSES)
    g.add_argument("--pages", type=int, help="number of pages")
    g.add_argument("--values", type=_values, default=DEFAULT_VALUES,
                   help="the values a Write may store, comma-separated, with 0 (default: 0,1,2)")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m conformance", description=(__doc__ or "").split("\n\n")[0],
        epilog="Exit status: 0 conforms, 1 divergence, 2 bad input, 3 engine fault, "
        "4 nothing checked. The protocol: conformance/PROTOCOL.md.",
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="test an engine against the spec")
    which = run.add_mutually_exclusive_group(required=True)
    which.add_argument("--engine", metavar="COMMAND",
                       help="the engine's command line; it speaks JSON lines on stdin/stdout")
    which.add_argument("--engine-class", metavar="MODULE:CLASS",
                       help="an in-process engine: a class with hello/reset/step/close")
    _machine_option(run)
    _profile_options(run)
    _essa_options(run)
    run.add_argument("--all-profiles", action="store_true",
                     help="ask the engine for every profile the spec allows; skip those it "
                     "does not run")
    run.add_argument("--profile", choices=sorted(PROFILE_SIZES), default=QUICK,
                     help="hypothesis settings: quick (CI, default) or thorough")
    run.add_argument("--examples", type=int, help="hypothesis examples (overrides --profile)")
    run.add_argument("--steps", type=int, help="steps per example (overrides --profile)")
    run.add_argument("--seed", type=int, help="hypothesis seed (a fixed run); the walk's too")
    run.add_argument("--no-tour", action="store_true", help="skip the transition tour")
    run.add_argument("--walk", type=int, default=0, metavar="N",
                     help="after hypothesis, N random steps at full speed (default 0)")
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                     help="seconds to wait for each reply of a JSON-lines engine (default %(default)s)")
    run.add_argument("--out", type=Path, default=Path("conformance-report"),
                     help="where a divergence is saved (default %(default)s)")
    db = run.add_mutually_exclusive_group()
    db.add_argument("--database", type=Path,
                    help="hypothesis example database (default .hypothesis/conformance)")
    db.add_argument("--no-database", action="store_true",
                    help="keep no example database (a found failure is not replayed next time)")
    run.add_argument("--no-tlc", action="store_true", help="do not confirm a divergence with TLC")
    run.add_argument("--quiet", action="store_true", help="no progress lines")

    val = sub.add_parser("validate", help="check a recorded trace (JSON lines or ITF)")
    val.add_argument("file", type=Path)
    _machine_option(val)
    _profile_options(val)
    _essa_options(val)
    val.add_argument("--no-tlc", action="store_true", help="check with the oracle only")
    val.add_argument("--tla-dir", type=Path,
                     help="keep the generated TLA+ module and .cfg in this directory")

    mut = sub.add_parser("mutants", help="run the suite against the shipped broken engines")
    _machine_option(mut)
    mut.add_argument("--seed", type=int, default=0)
    mut.add_argument("--only", help="a substring of the mutants to run")

    cls = sub.add_parser("classify", help="which ESSA implementation (Impl) an ESSA engine "
                         "matches; not a conformance verdict (exit 0 identified, 1 not "
                         "identified, 3 engine fault, 4 nothing checked)")
    which = cls.add_mutually_exclusive_group(required=True)
    which.add_argument("--engine", metavar="COMMAND",
                       help="the engine's command line; it speaks the ESSA mode of JSON lines")
    which.add_argument("--engine-class", metavar="MODULE:CLASS",
                       help="an in-process ESSA engine (e.g. conformance.essa:KVMGmapEngine)")
    _essa_options(cls, impl=False)
    cls.add_argument("--pages", type=int, help="number of pages (default 2)")
    cls.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                     help="seconds to wait for each reply of a JSON-lines engine (default %(default)s)")
    return parser


def _request(args: argparse.Namespace) -> ProfileRequest:
    return ProfileRequest(args.variant, args.host_service, args.unused_access, args.pages)


def load_class(spec: str) -> object:
    """An instance of the class ``MODULE:CLASS`` names; raises ValueError."""
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"--engine-class {spec!r}: expected MODULE:CLASS")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--engine-class {spec!r}: {exc}") from None
    try:
        engine = cls()
    except Exception as exc:  # noqa: BLE001 - whatever the constructor raises is reported
        raise ValueError(f"--engine-class {spec}: {class_name}() failed: {exc}") from None
    return engine


def load_engine_class(spec: str) -> Engine:
    engine = load_class(spec)
    if not isinstance(engine, Engine):
        raise ValueError(f"{spec} is not an engine: it needs hello, reset, step and close")
    return engine


class _Progress:
    """A progress line on stderr, at most once a second (the drives call it)."""

    def __init__(self, out: TextIO, label: str, unit: str, quiet: bool) -> None:
        self.out, self.label, self.unit, self.quiet = out, label, unit, quiet

    def __call__(self, count: int, steps: int, seconds: float) -> None:
        if not self.quiet:
            rate = steps / seconds if seconds > 0 else 0.0
            print(f"    {self.label}: {count} {self.unit}, {steps:,} steps, {rate:,.0f} steps/s",
                  file=self.out, flush=True)  # fmt: skip


def _line(o: Outcome) -> str:
    rate = o.steps / o.seconds if o.seconds > 0 else 0.0
    return f"{o.drive} {o.status}: {o.steps:,} steps in {o.seconds:.1f} s ({rate:,.0f} steps/s){'; ' + o.note if o.note else ''}"


def _confirm_with_tlc(trace_obj: object, out: TextIO) -> None:
    from tlcrunner.run import TlcSetupError

    from .tla import check_with_tlc
    from .trace import Trace

    assert isinstance(trace_obj, Trace)
    try:
        verdict = check_with_tlc(trace_obj)
    except (TlcSetupError, OSError) as exc:
        print(f"TLC not run: {exc}", file=out)
        return
    print(verdict.describe(trace_obj), file=out)


def _report_failure(o: Outcome, args: argparse.Namespace, out: TextIO) -> int:
    err = o.error
    directory = args.out / f"{o.profile.variant}-{'hs' if o.profile.host_service else 'direct'}-{o.profile.unused_access}"
    meta: dict[str, object] = {"engine": o.engine, "drive": o.drive}
    if isinstance(err, EngineFaultError):
        text = fault_report(err, engine=o.engine)
        meta["fault"] = f"{err.where}: {err.fault.kind}: {err.fault.message}"
        code = EXIT_FAULT
    elif err is not None:
        text = divergence_report(err, engine=o.engine)
        meta["divergence"] = f"step {err.steps[-1].index}: {err.verdict.headline}"
        code = EXIT_DIVERGED
    else:  # flaky
        print(f"FAILED: {o.note}", file=out)
        return EXIT_DIVERGED
    print(text, file=out)
    profile = err.profile if err.profile is not None else o.profile
    trace = trace_of(profile, err.steps, meta)
    saved = save(directory, text, trace)
    print(f"\nsaved: {saved.report}, {saved.jsonl}, {saved.itf}, {saved.tla} (+ .cfg)", file=out)
    if code == EXIT_DIVERGED and not args.no_tlc:
        _confirm_with_tlc(trace, out)
    return code


def _drive(session: Session, args: argparse.Namespace, out: TextIO, err_out: TextIO) -> Outcome:
    settings = settings_for(
        args.profile, examples=args.examples, steps=args.steps,
        database=None if args.no_database else (args.database or "default"),
    )  # fmt: skip
    if not args.no_tour:
        o = run_tour(session)
        print(f"  {_line(o)}", file=out, flush=True)
        if not o.passed:
            return o
    progress = _Progress(err_out, "hypothesis", "examples", args.quiet)
    o = run_hypothesis(session, settings, seed=args.seed, progress=progress)
    print(f"  {_line(o)}", file=out, flush=True)
    if not o.passed or args.walk <= 0:
        return o
    o = run_walk(session, args.walk, seed=args.seed or 0,
                 progress=_Progress(err_out, "walk", "programs", args.quiet))  # fmt: skip
    print(f"  {_line(o)}", file=out, flush=True)
    return o


def _speaks_essa(args: argparse.Namespace) -> bool:
    """Whether the engine answers an ESSA hello (for an engine run without --machine ESSA)."""
    from .essa import EssaJsonLinesEngine, EssaProfileRequest

    if args.engine_class is not None:
        # Both modes' in-process engines have hello/reset/step/close: tell them apart by what
        # hello takes.
        try:
            hello = getattr(load_class(args.engine_class), "hello", None)
            return typing.get_type_hints(hello).get("request") is EssaProfileRequest
        except (ValueError, TypeError, NameError):
            return False
    engine = EssaJsonLinesEngine(args.engine, timeout=args.timeout)
    try:
        engine.hello(EssaProfileRequest())
        return True
    except (Unsupported, EngineFault):
        return False
    finally:
        engine.close()


def _run_as_essa(args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    from . import essa_cli

    print("the engine speaks the ESSA mode, not the PageStates mode: running it as "
          "run --machine ESSA", file=out)  # fmt: skip
    args.machine = "ESSA"
    return essa_cli.cmd_run(args, out, err_out)


def cmd_run(args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    if args.engine_class is not None and _speaks_essa(args):
        return _run_as_essa(args, out, err_out)
    try:
        engine: Engine = (
            JsonLinesEngine(args.engine, timeout=args.timeout)
            if args.engine else load_engine_class(args.engine_class)
        )  # fmt: skip
    except ValueError as exc:
        if _speaks_essa(args):
            return _run_as_essa(args, out, err_out)
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    asked = _request(args)
    requests = (
        [ProfileRequest.of(p).merged(asked) for p in all_profiles(pages=args.pages or 2)]
        if args.all_profiles else [asked]
    )  # fmt: skip
    tested, worst = 0, EXIT_OK
    try:
        for request in requests:
            try:
                session = connect(engine, request, fallback=asked, values=args.values)
            except Unsupported as exc:
                print(f"skipped {request.describe()}: {exc}", file=out)
                continue
            except ProfileError as exc:
                print(f"error: {exc}", file=err_out)
                return EXIT_USAGE
            except EngineFaultError as exc:
                print(fault_report(exc, engine=getattr(engine, "command", "engine")), file=out)
                return EXIT_FAULT
            tested += 1
            print(f"{session.info.name}: {session.profile.describe()}", file=out, flush=True)
            for op in skipped_operations(session.info):
                print(f"  skipped {op}: the engine does not implement it (optional)", file=out)
            outcome = _drive(session, args, out, err_out)
            if not outcome.passed:
                code = _report_failure(outcome, args, out)
                worst = max(worst, code)
                if code == EXIT_FAULT:
                    break
    finally:
        try:
            engine.close()
        except EngineFault:
            pass
    if tested == 0:
        if _speaks_essa(args):
            return _run_as_essa(args, out, err_out)
        print("nothing checked: the engine runs none of the profiles asked for", file=out)
        return EXIT_NOTHING
    print("conforms" if worst == EXIT_OK else "does not conform", file=out)
    return worst


def cmd_validate(args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    from .validate import replay_trace

    try:
        trace = read_trace(args.file, _request(args), args.values)
    except TraceFormatError as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    print(f"{args.file}: {len(trace.steps)} steps; {trace.profile.describe()}", file=out)
    replayed = replay_trace(trace)
    engine = str(trace.meta.get("engine", "the recorded engine"))
    if replayed.error is not None:
        print(divergence_report(replayed.error, engine=engine), file=out)
    elif replayed.other_page:
        print(f"DIVERGENCE: {replayed.other_page}", file=out)
    else:
        print(f"oracle: every step is a step of the spec ({len(trace.steps)} steps)", file=out)
    code = EXIT_OK if replayed.step is None else EXIT_DIVERGED
    if args.no_tlc:
        return code
    from tlcrunner.run import TlcSetupError

    from .tla import check_with_tlc

    try:
        verdict = check_with_tlc(trace, directory=args.tla_dir)
    except (TlcSetupError, OSError) as exc:
        print(f"TLC not run: {exc}", file=out)
        return EXIT_NOTHING
    print(verdict.describe(trace), file=out)
    if verdict.behaviour != (replayed.step is None) or (
        verdict.stuck_at is not None and verdict.stuck_at != replayed.step
    ):
        print(f"WARNING: TLC and the reference implementation disagree (TLC: step "
              f"{verdict.stuck_at}, oracle: step {replayed.step})", file=out)  # fmt: skip
        return EXIT_DIVERGED
    if not verdict.behaviour and verdict.stuck_at is None:
        return EXIT_NOTHING
    return code


def cmd_mutants(args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    from .mutants import MUTANTS

    settings = settings_for(QUICK, database=None)
    rows = []
    code = EXIT_OK
    for m in MUTANTS:
        if args.only and args.only not in m.__name__:
            continue
        start = time.monotonic()
        session = connect(m(), ProfileRequest())
        o = run_hypothesis(session, settings, seed=args.seed)
        seconds = time.monotonic() - start
        rule = o.error.verdict.rule if o.error is not None and hasattr(o.error, "verdict") else "-"
        killed = o.status == "diverged" and rule in m.rules()
        code = code if killed else EXIT_DIVERGED
        length = len(o.error.steps) if o.error is not None else 0
        rows.append((m.__name__, m.rules()[0], rule, "killed" if killed else "SURVIVED",
                     f"{seconds:.2f}", str(length)))  # fmt: skip
    header = ("mutant", "breaks", "rule named", "result", "seconds", "steps")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=out)
    return code


def cmd_classify(args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """Classify an ESSA engine: exit 0 identified, 1 not identified, 3 engine fault, 4 nothing
    checked (every profile unsupported)."""
    from .classify import classify, report
    from .driver import Fault
    from .driver import report as fault_text
    from .essa import ESSA_DRIVER, EssaProfileRequest
    from .essa_cli import essa_engine, essa_request_of

    try:
        engine = essa_engine(args)
    except ValueError as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    request = essa_request_of(args).merged(EssaProfileRequest(pages=args.pages))
    try:
        c = classify(engine, request)
    except Fault as exc:
        print(fault_text(ESSA_DRIVER, exc, engine=str(args.engine or args.engine_class)), file=out)
        return EXIT_FAULT
    except EngineFault as exc:
        print(f"ENGINE FAULT ({exc.kind}) at hello: {exc.message}", file=out)
        return EXIT_FAULT
    except (AttributeError, TypeError) as exc:
        if args.engine_class is None:
            raise
        print(f"error: {args.engine_class} is not an ESSA engine: {exc}", file=err_out)
        return EXIT_USAGE
    finally:
        engine.close()
    command = (f'--engine "{args.engine}"' if args.engine is not None
               else f"--engine-class {args.engine_class}")  # fmt: skip
    report(c, out, command)
    if all(v.skipped for v in c.verdicts):
        return EXIT_NOTHING
    return EXIT_OK if c.identified is not None else EXIT_DIVERGED


def main(argv: Sequence[str] | None = None, out: TextIO | None = None,
         err_out: TextIO | None = None) -> int:  # fmt: skip
    """The command line; ``out`` and ``err_out`` default to the current stdout and stderr."""
    out = out if out is not None else sys.stdout
    err_out = err_out if err_out is not None else sys.stderr
    args = build_parser().parse_args(argv)
    if getattr(args, "pages", None) is not None and args.pages < 1:
        print("error: --pages must be positive", file=err_out)
        return EXIT_USAGE
    if getattr(args, "cbrl_size", None) is not None and args.cbrl_size < 1:
        print("error: --cbrl-size must be positive", file=err_out)
        return EXIT_USAGE
    if getattr(args, "machine", "PageStates") == "ESSA":
        from . import essa_cli

        essa_command = {"run": essa_cli.cmd_run, "validate": essa_cli.cmd_validate,
                        "mutants": essa_cli.cmd_mutants}[args.command]  # fmt: skip
        return essa_command(args, out, err_out)
    command = {"run": cmd_run, "validate": cmd_validate, "mutants": cmd_mutants,
               "classify": cmd_classify}[args.command]  # fmt: skip
    return command(args, out, err_out)
