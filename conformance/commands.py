"""``run``, ``validate`` and ``mutants`` of ``python -m conformance``, for any machine of
:data:`conformance.machines.MACHINES`: the drives are :mod:`conformance.driver`'s, and what is
the machine's (its profile options, its engines, its trace files, its TLA+ trace module, its
mutants) comes from the machine's :class:`~conformance.machines.Mode`.

Exit status: 0 conforms (or the trace is a behaviour of the spec), 1 divergence, 2 bad command
line or input file, 3 engine fault, 4 nothing checked.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, TextIO

from .driver import Divergence, Drive, Fault, Outcome, RecordedEngine, report, run_machine, save
from .machines import Mode
from .protocol import EngineFault
from .tla import MODULE

EXIT_OK, EXIT_DIVERGED, EXIT_USAGE, EXIT_FAULT, EXIT_NOTHING = 0, 1, 2, 3, 4


def _line(mode: Mode, o: Outcome) -> str:
    rate = o.steps / o.seconds if o.seconds > 0 else 0.0
    note = f"; {o.note}" if o.note and o.status != "diverged" else ""
    return f"  {mode.short_name(o.profile)} {o.drive} {o.status}: {o.steps:,} steps in " \
        f"{o.seconds:.1f} s ({rate:,.0f} steps/s){note}"  # fmt: skip


def _steps(error: Divergence | Fault) -> list[tuple[Any, Any]]:
    return [(r.request, r.observed) for r in error.steps if r.observed is not None]


def report_failure(mode: Mode, error: Divergence | Fault, engine: str, out_dir: Path,
                   out: TextIO, tlc: bool = True) -> int:  # fmt: skip
    """Print the report and save it with the reproducers: JSON lines, ITF and the TLA+ trace
    module, which TLC checks against the machine's spec (for a divergence, unless ``tlc`` is
    false). The exit status."""
    text = report(mode, error, engine=engine)
    print(text, file=out)
    if isinstance(error, Fault) and error.where == "hello":
        return EXIT_FAULT  # no step yet: nothing to replay
    saved = save(mode, out_dir, text, error, engine)
    module, config = mode.trace_module(error.profile, _steps(error))
    (saved.directory / f"{MODULE}.tla").write_text(module, encoding="utf-8")
    (saved.directory / f"{MODULE}.cfg").write_text(config, encoding="utf-8")
    print(f"saved: {saved.report}, {saved.jsonl}, {saved.itf}, "
          f"{saved.directory / MODULE}.tla (+ .cfg)", file=out)  # fmt: skip
    print(f"replay: python -m conformance validate --machine {mode.name} {saved.jsonl}", file=out)
    if isinstance(error, Fault):
        return EXIT_FAULT
    if tlc:
        confirm_with_tlc(mode, error.profile, _steps(error), out)
    return EXIT_DIVERGED


def confirm_with_tlc(mode: Mode, profile: Any, steps: list[tuple[Any, Any]],
                     out: TextIO) -> bool:  # fmt: skip
    """TLC's verdict on the recorded steps, printed; whether TLC agrees with the oracle that the
    last step, and no earlier one, is not a behaviour of the machine's spec."""
    from tlcrunner.run import TlcSetupError

    try:
        verdict = mode.check_with_tlc(profile, steps)
    except (TlcSetupError, OSError) as exc:
        print(f"TLC not run: {exc}", file=out)
        return False
    print(_verdict_text(mode, verdict, len(steps)), file=out)
    return bool(verdict.stuck_at == len(steps))


def _verdict_text(mode: Mode, verdict: Any, steps: int) -> str:
    if verdict.behaviour:
        return f"TLC: the trace is a behaviour of {mode.spec} ({steps} steps, " \
            f"{verdict.seconds:.1f} s)"  # fmt: skip
    if verdict.stuck_at is None:
        return f"TLC could not check the trace: {verdict.message}"
    return f"TLC: the trace stops being a behaviour of {mode.spec} at step {verdict.stuck_at} " \
        f"(deadlock at cursor = {verdict.stuck_at}, {verdict.seconds:.1f} s)"  # fmt: skip


def _sizes(mode: Mode, args: argparse.Namespace) -> tuple[int, int]:
    examples, steps = mode.sizes[args.profile]
    return (args.examples if args.examples is not None else examples,
            args.steps if args.steps is not None else steps)  # fmt: skip


def cmd_run(mode: Mode, args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """``run``: hello, the tour, hypothesis (and ``--walk``) on every profile asked for."""
    try:
        engine = mode.engine(args)
    except ValueError as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    examples, steps = _sizes(mode, args)
    database = None if args.no_database else (args.database or mode.database)
    try:
        try:
            profiles, headline = mode.profiles_of(args, engine)
        except ValueError as exc:
            print(f"error: {exc}", file=err_out)
            return EXIT_USAGE
        print(f"{headline}; hypothesis {examples} examples of up to {steps} steps", file=out,
              flush=True)  # fmt: skip
        outcomes = run_machine(
            mode, engine, profiles, tour=not args.no_tour, examples=examples, max_steps=steps,
            seed=args.seed, walk=args.walk, database=database,
            progress=None if args.quiet else lambda o: print(_line(mode, o), file=out, flush=True),
        )  # fmt: skip
    except EngineFault as exc:
        print(f"ENGINE FAULT ({exc.kind}) at hello: {exc.message}", file=out)
        return EXIT_FAULT
    except ValueError as exc:  # a profile neither the engine nor the command line completes
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    finally:
        try:
            engine.close()
        except EngineFault:
            pass
    name = str(getattr(engine, "name", None) or getattr(engine, "command", "engine"))
    failed = [o for o in outcomes if o.error is not None]
    if failed:
        assert failed[-1].error is not None
        return report_failure(mode, failed[-1].error, name, args.out, out, tlc=not args.no_tlc)
    skipped = [o for o in outcomes if o.status == "skipped"]
    for o in skipped:
        print(f"skipped {mode.short_name(o.profile)}: {o.note}", file=out)
    if len(skipped) == len(outcomes):
        print("nothing checked: the engine runs none of the profiles asked for", file=out)
        return EXIT_NOTHING
    asked = len({id(o.profile) for o in outcomes})
    print("conforms" + (f" (on {asked - len(skipped)} of {asked} profiles)" if skipped else ""),
          file=out)  # fmt: skip
    return EXIT_OK


def cmd_validate(mode: Mode, args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """``validate FILE``: the steps an engine recorded, judged by the oracle and by TLC."""
    try:
        profile, requests, replies = mode.read_trace(args.file, args)
    except UnicodeDecodeError as exc:
        print(f"error: {args.file}: not a trace file: byte {exc.start} is not UTF-8 text (a trace "
              "is JSON lines or ITF, in UTF-8)", file=err_out)  # fmt: skip
        return EXIT_USAGE
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    print(f"{args.file}: {len(requests)} steps; {mode.describe(profile)}", file=out)
    drive: Drive[Any, Any, Any, Any] = Drive(mode, RecordedEngine(replies), profile)
    stuck: int | None = None
    try:
        drive.run(requests)
        print(f"oracle: every step is what the reference implementation does ({len(requests)} "
              "steps)", file=out)  # fmt: skip
    except Divergence as err:
        print(report(mode, err, engine=str(args.file)), file=out)
        stuck = len(err.steps)
    if args.no_tlc:
        return EXIT_OK if stuck is None else EXIT_DIVERGED
    from tlcrunner.run import TlcSetupError

    try:
        verdict = mode.check_with_tlc(profile, list(zip(requests, replies)), directory=args.tla_dir)
    except (TlcSetupError, OSError) as exc:
        print(f"TLC not run: {exc}", file=out)
        return EXIT_NOTHING
    print(_verdict_text(mode, verdict, len(requests)), file=out)
    if not verdict.behaviour and verdict.stuck_at is None:
        return EXIT_NOTHING
    if verdict.stuck_at != stuck:
        print(f"WARNING: TLC and the reference implementation disagree (TLC: step "
              f"{verdict.stuck_at}, oracle: step {stuck})", file=out)  # fmt: skip
        return EXIT_DIVERGED
    return EXIT_OK if stuck is None else EXIT_DIVERGED


def cmd_mutants(mode: Mode, args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """``mutants``: ``run``'s quick settings against every shipped mutant of the machine (or
    those ``--only`` names); exit 1 if one survives, 4 if ``--only`` names none."""
    mutants = [m for m in mode.mutants() if not args.only or args.only in m.__name__]
    if not mutants:
        names = ", ".join(m.__name__ for m in mode.mutants())
        print(f"nothing checked: no {mode.name} mutant's name contains {args.only!r}; the "
              f"mutants: {names}", file=out)  # fmt: skip
        return EXIT_NOTHING
    examples, steps = mode.sizes["quick"]
    rows = [("mutant", *mode.mutant_header, "result", "seconds", "steps", "profile")]
    code = EXIT_OK
    for m in mutants:
        start = time.monotonic()
        outcomes = run_machine(mode, m(), mode.mutant_profiles(m), examples=examples,
                               max_steps=steps, seed=args.seed)  # fmt: skip
        seconds = time.monotonic() - start
        last = outcomes[-1]
        killed = mode.kills(m, last)
        code = code if killed else EXIT_DIVERGED
        length = len(last.error.steps) if last.error is not None else 0
        rows.append((m.__name__, *mode.mutant_row(m, last), "killed" if killed else "SURVIVED",
                     f"{seconds:.2f}", str(length), mode.short_name(last.profile)))  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=out)
    return code


COMMANDS = {"run": cmd_run, "validate": cmd_validate, "mutants": cmd_mutants}
