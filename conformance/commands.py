"""``run``, ``validate`` and ``mutants`` of ``python -m conformance``, for any machine of
:data:`conformance.machines.MACHINES`: the drives are :mod:`conformance.driver`'s, and what is
the machine's (its profile options, its engines, its trace files, its TLA+ trace module, its
mutants) comes from the machine's :class:`~conformance.machines.Mode`.

Exit status: 0 conforms (or the trace is a behaviour of the spec), 1 divergence, 2 bad command
line or input file, 3 engine fault, 4 nothing checked.
"""

from __future__ import annotations

import argparse
import shlex
import signal
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from .driver import (Divergence, Drive, Fault, Outcome, RecordedEngine, Saved, engine_name,
                     is_history, read_history, report, run_programs, save)
from .search import Budget, covers, scope, search
from .machines import Mode
from .protocol import EngineFault
from .tlc import MODULE
from tlcrunner.outputs import unwritable

from .interrupt import exit_status, interruptible, signalled
from .exits import EXIT_DIVERGED, EXIT_FAULT, EXIT_NOTHING, EXIT_OK, EXIT_USAGE
from tlcrunner import ci_formats


def _line(mode: Mode, o: Outcome) -> str:
    rate = o.steps / o.seconds if o.seconds > 0 else 0.0
    note = f"; {o.note}" if o.note and o.status != "diverged" else ""
    return f"  {mode.short_name(o.profile)} {o.drive} {o.status}: {o.steps:,} steps in " \
        f"{o.seconds:.1f} s ({rate:,.0f} steps/s){note}"  # fmt: skip


def _steps(error: Divergence | Fault) -> list[tuple[Any, Any]]:
    return [(r.request, r.observed) for r in error.steps if r.observed is not None]


def engine_option(args: argparse.Namespace) -> str | None:
    """The option that names ``run``'s engine, as a command line takes it again (``--engine
    'COMMAND'`` or ``--engine-class MODULE:CLASS``); None when the command line named none."""
    if getattr(args, "engine", None) is not None:
        return f"--engine {shlex.quote(args.engine)}"
    if getattr(args, "engine_class", None) is not None:
        return f"--engine-class {shlex.quote(args.engine_class)}"
    return None


def replay_command(mode: Mode, saved: Saved, engine: str | None) -> str:
    """The ``replay:`` line's command: ``validate`` of the saved trace (the oracle and TLC judge
    the engine's recorded replies), or, for a divergence right after a reset (a history saved,
    :func:`~conformance.driver.right_after_reset`), ``validate --engine`` of the history: every
    program the engine ran since it started, then the trace, run again on a fresh engine."""
    history = saved.directory / "history.jsonl"
    if engine is not None and history.is_file():
        return f"python -m conformance validate --machine {mode.name} {engine} {history}"
    return f"python -m conformance validate --machine {mode.name} {saved.jsonl}"


def report_failure(mode: Mode, error: Divergence | Fault, engine: str, out_dir: Path,
                   out: TextIO, tlc: bool = True, option: str | None = None) -> int:  # fmt: skip
    """Print the report and save it with the reproducers: JSON lines, ITF and the TLA+ trace
    module, which TLC checks against the machine's spec (for a divergence, unless ``tlc`` is
    false); ``option`` names the engine for the replay line (:func:`engine_option`). The exit
    status."""
    text = report(mode, error, engine=engine)
    print(text, file=out)
    if isinstance(error, Fault) and error.where == "hello":
        return EXIT_FAULT  # no step yet: nothing to replay
    module, config = mode.trace_module(error.profile, _steps(error))
    saved = save(mode, out_dir, text, error, engine,
                 extra={f"{MODULE}.tla": module, f"{MODULE}.cfg": config})  # fmt: skip
    history = saved.directory / "history.jsonl"
    print(f"saved: {saved.report}, {saved.jsonl}, {saved.itf}, "
          f"{saved.directory / MODULE}.tla (+ .cfg)"
          + (f", {history}" if history.is_file() else ""), file=out)  # fmt: skip
    print(f"replay: {replay_command(mode, saved, option)}", file=out)
    if isinstance(error, Fault):
        return EXIT_FAULT
    if tlc:
        confirm_with_tlc(mode, error.profile, _steps(error), out)
    return EXIT_DIVERGED


def confirm_with_tlc(mode: Mode, profile: Any, steps: list[tuple[Any, Any]],
                     out: TextIO, directory: Path | None = None) -> bool:  # fmt: skip
    """TLC's verdict on the recorded steps, printed; whether TLC agrees with the oracle that the
    last step, and no earlier one, is not a behaviour of the machine's spec."""
    from tlcrunner.run import TlcSetupError

    try:
        verdict = mode.check_with_tlc(profile, steps, directory=directory)
    except (TlcSetupError, OSError) as exc:
        print(f"TLC not run: {exc}", file=out)
        return False
    except KeyboardInterrupt:  # TLC was ended and its folders removed (tlcrunner.process)
        name = signal_name()
        print(f"TLC stopped by {name}: the divergence stands as the reference implementation "
              "found it, not confirmed by TLC", file=out)  # fmt: skip
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


def default_budget(mode: Mode, impl: str | None = None, settings: str = "quick") -> Budget:
    """``run``'s budget per profile with no option changing it: the machine's (the ESSA mode's
    per Impl), else its fixed tours and hypothesis at ``settings``."""
    own = getattr(mode, "budget", None)
    if own is not None:
        b: Budget = own(impl)
        if settings == "thorough":
            examples, steps = mode.sizes["thorough"]
            b = replace(b, cover_edges=None, depth=3, swarm=b.swarm * 10, examples=examples,
                        max_steps=steps, first_only=False)  # fmt: skip
        return b
    examples, steps = mode.sizes[settings]
    return Budget(cover_edges=0, examples=examples, max_steps=steps)


def budget_of(mode: Mode, args: argparse.Namespace, impl: str | None) -> Budget:
    """The budget of ``run``: the default (:func:`default_budget`) changed by the options."""
    b = default_budget(mode, impl, args.profile)
    changes: dict[str, Any] = {"walk": args.walk, "tour": not args.no_tour}
    for attr, value in (("examples", args.examples), ("max_steps", args.steps),
                        ("swarm", getattr(args, "swarm", None)),
                        ("depth", getattr(args, "depth", None))):  # fmt: skip
        if value is not None:
            changes[attr] = value
    edges = getattr(args, "cover_edges", None)
    if edges is not None:
        changes["cover_edges"] = None if edges < 0 else edges
    if getattr(args, "keep_going", False):
        changes["first_only"] = False
    if changes.get("depth") == 0:
        changes["depth"] = None
    return replace(b, **changes)


def signature(mode: Mode, error: Divergence) -> tuple[object, ...]:
    """What makes two divergences the same, under whichever profile: the request of the step
    that diverged and the fields that differ there (the steps before it, the shortest way to a
    state the bug shows in, may differ between profiles whose graphs differ)."""
    last = error.steps[-1]
    return mode.show_request(last.request), tuple(last.differs)


def distinct(mode: Mode, outcomes: list[Outcome]) -> list[tuple[Outcome, list[Any]]]:
    """The divergences of ``outcomes``, each once, with every profile it was found under."""
    found: dict[tuple[object, ...], tuple[Outcome, list[Any]]] = {}
    for o in outcomes:
        if isinstance(o.error, Divergence):
            found.setdefault(signature(mode, o.error), (o, []))[1].append(o.profile)
    return list(found.values())


def first_divergence(mode: Mode, error: Divergence | Fault) -> str:
    """The first divergence (or fault) in a line: the profile, the step, what differs."""
    name = mode.short_name(error.profile)
    if isinstance(error, Fault):
        return f"{name}: engine fault ({error.fault.kind}) at {error.where}: {error.fault.message}"
    last = error.steps[-1]
    return (f"{name} step {last.index} ({mode.show_request(last.request)}): "
            f"{', '.join(last.differs)} differ")  # fmt: skip


def signal_name() -> str:
    """The signal that interrupted ``run`` (SIGINT when none was recorded)."""
    return signal.Signals(signalled() or signal.SIGINT).name


def summary_line(mode: Mode, outcomes: list[Outcome], seconds: float,
                 interrupted: bool = False) -> str:  # fmt: skip
    """The one line ``run`` ends with: the verdict, the profiles checked, the steps, the
    distinct divergences and the first of them; INTERRUPTED when a signal stopped the search
    before it found one (what it found before stands)."""
    profiles = list({id(o.profile): o.profile for o in outcomes}.values())
    skipped = {id(o.profile) for o in outcomes if o.status == "skipped"}
    folds = [o for o in outcomes if o.status == "folded"]
    checked = len(profiles) - len(skipped) - len(folds)
    steps = sum(o.steps for o in outcomes)
    groups = distinct(mode, outcomes)
    faults = [o for o in outcomes if isinstance(o.error, Fault)]
    verdict = ("ENGINE FAULT" if faults else "DIVERGES" if groups
               else f"INTERRUPTED by {signal_name()}" if interrupted
               else "nothing checked" if not checked else "conforms")  # fmt: skip
    searched = {id(o.profile) for o in outcomes
                if o.drive not in ("replay", "quick tour") and o.status != "folded"}
    searched |= {id(o.profile) for o in outcomes if o.status not in ("passed", "skipped", "folded")
                 and o.drive != "replay"}  # fmt: skip
    replayed = len({id(o.profile) for o in outcomes if o.drive == "replay"} - searched)
    notes = [f"{len(skipped)} skipped"] if skipped else []
    if folds:
        stand_ins = len({id(o.stand_in) for o in folds})
        notes.append(f"{len(folds)} more run as {stand_ins} of these, the reference graphs "
                     f"being the same: {fold_reasons(folds)}")
    if interrupted and (faults or groups):
        notes.append(f"interrupted by {signal_name()}")
    if replayed:
        notes.append(f"{replayed} searched no further than the quick tour and a replay of the "
                     "first divergence")
    text = (f"SUMMARY: {verdict}: {checked} profile{'s' if checked != 1 else ''} checked"
            + (f" ({', '.join(notes)})" if notes else "")
            + f", {steps:,} steps in {seconds:.1f} s, {len(groups)} distinct "
            f"divergence{'s' if len(groups) != 1 else ''}")  # fmt: skip
    first = faults[0] if faults else groups[0][0] if groups else None
    if first is not None and first.error is not None:
        also = next((len(ps) - 1 for o, ps in groups if o is first), 0)
        text += f"; first: {first_divergence(mode, first.error)}"
        if also:
            text += f" (also under {also} other profile{'s' if also != 1 else ''})"
    folded = {id(o.profile) for o in folds}
    ran = [p for p in profiles if id(p) not in skipped and id(p) not in folded]
    return text + "; " + scope(ran, outcomes, also=getattr(mode, "scope_also", ""),
                              folded=[o.profile for o in folds])


def fold_reasons(folds: list[Outcome]) -> str:
    """Why folded profiles (:attr:`Outcome.stand_in`) are not run, short: each fold's part of
    the notes before its colon (``CMMA disabled ignores Facility147, ...``)."""
    parts = (part.partition(":")[0] for o in folds for part in o.note.split("; "))
    return "; ".join(dict.fromkeys(parts))


def _fold_lines(mode: Mode, folds: list[Outcome]) -> list[str]:
    """One line per profile run for others: the others, and why their graphs are its own."""
    by_stand_in: dict[int, list[Outcome]] = {}
    for o in folds:
        by_stand_in.setdefault(id(o.stand_in), []).append(o)
    lines = []
    for group in by_stand_in.values():
        names = [mode.short_name(o.profile) for o in group]
        shown = ", ".join(names) if len(names) <= 3 else f"{len(names)} profiles ({names[0]} ...)"
        why = "; ".join(dict.fromkeys(part for o in group for part in o.note.split("; ")))
        lines.append(f"run once: {mode.short_name(group[0].stand_in)} stands for {shown}: {why}")
    return lines


def _close_quietly(engine: Any) -> None:
    """Close an engine after its verdict: a fault while closing changes no verdict."""
    try:
        engine.close()
    except EngineFault:
        pass


def cmd_run(mode: Mode, args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """``run``: hello, then on every profile asked for the tour, hypothesis, the swarm walk and
    the uniform walk the budget says; each distinct divergence reported once; one summary
    line."""
    with interruptible():
        return _run(mode, args, out, err_out)


def unwritable_outputs(mode: Mode, args: argparse.Namespace) -> list[str]:
    """``run``'s outputs that cannot be written (--out, the example database), each as a
    sentence naming the option."""
    database = None if args.no_database else (args.database or mode.database)
    folders = [f"{option}: {why}" for option, path in (("--out", args.out), ("--database", database))
               if path is not None and (why := unwritable(path, directory=True)) is not None]  # fmt: skip
    files = ci_formats.unwritable([("--junit-xml", args.junit_xml), ("--json", args.json)])
    return folders + ([files] if files is not None else [])


def _run(mode: Mode, args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    start = time.monotonic()
    problems = unwritable_outputs(mode, args)
    if problems:
        for problem in problems:
            print(f"error: {problem}; nothing was checked", file=err_out)
        return EXIT_USAGE
    try:
        engine = mode.engine(args)
    except ValueError as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    database = None if args.no_database else (args.database or mode.database)
    found: list[Outcome] = []  # what the search found, kept if a signal stops it

    def progress(o: Outcome) -> None:
        found.append(o)
        if not args.quiet and o.status != "folded":  # said once per stand-in, at the end
            print(_line(mode, o), file=out, flush=True)

    interrupted = False
    try:
        try:
            profiles, headline = mode.profiles_of(args, engine)
        except ValueError as exc:
            print(f"error: {exc}", file=err_out)
            return EXIT_USAGE
        budget = budget_of(mode, args, getattr(profiles[0], "impl", None) if profiles else None)
        print(f"{headline}; budget per profile: {budget.describe(covers(mode))}", file=out,
              flush=True)  # fmt: skip
        further = getattr(mode, "further", None)
        outcomes = search(mode, engine, profiles, budget, seed=args.seed, database=database,
                          progress=progress,
                          further=further(args, profiles) if further else ())  # fmt: skip
    except KeyboardInterrupt:
        interrupted, outcomes = True, found
        print(f"interrupted by {signal_name()}: the search stopped", file=out)
    except EngineFault as exc:
        print(f"ENGINE FAULT ({exc.kind}) at hello: {exc.message}", file=out)
        last = f"SUMMARY: ENGINE FAULT at hello: {exc.message}"
        print(last, file=out)
        fault = ci_formats.Case("hello", "error", message=f"engine fault ({exc.kind}) at hello: "
                                f"{exc.message}")  # fmt: skip
        ci_formats.write_from(args, "conformance run", [fault], last, EXIT_FAULT)
        return EXIT_FAULT
    except ValueError as exc:  # a profile neither the engine nor the command line completes
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    finally:
        _close_quietly(engine)
    name = engine_name(engine)
    skipped = [o for o in outcomes if o.status == "skipped"]
    for line in _skip_lines(mode, skipped):
        print(line, file=out)
    for line in _fold_lines(mode, [o for o in outcomes if o.status == "folded"]):
        print(line, file=out)
    code = EXIT_OK
    faults = [o for o in outcomes if isinstance(o.error, Fault)]
    groups = distinct(mode, outcomes)
    for n, (o, under) in enumerate(groups):
        assert isinstance(o.error, Divergence)
        if len(under) > 1:
            print(f"the same divergence under {len(under)} profiles: "
                  f"{', '.join(mode.short_name(p) for p in under)}; its report:", file=out)  # fmt: skip
        code = report_failure(mode, o.error, name, args.out, out,
                              tlc=not args.no_tlc and n == 0 and not interrupted,
                              option=engine_option(args))  # fmt: skip
        print(file=out)
    for o in faults:
        assert isinstance(o.error, Fault)
        code = report_failure(mode, o.error, name, args.out, out, tlc=False,
                              option=engine_option(args))
    if not faults and not groups and (interrupted or signalled() is not None):
        interrupted = True
        code = exit_status()
    elif not faults and not groups:
        if all(o.status in ("skipped", "folded") for o in outcomes):  # folded into a skipped one
            print("nothing checked: the engine runs none of the profiles asked for", file=out)
            code = EXIT_NOTHING
        else:
            asked = len({id(o.profile) for o in outcomes})
            print("conforms" + (f" (on {asked - len(skipped)} of {asked} profiles)" if skipped
                                else ""), file=out)  # fmt: skip
    last = summary_line(mode, outcomes, time.monotonic() - start,
                        interrupted or signalled() is not None)  # fmt: skip
    print(last, file=out)
    ci_formats.write_from(args, "conformance run", run_cases(mode, outcomes, name), last, code)
    return code


def run_cases(mode: Mode, outcomes: list[Outcome], engine: str) -> list[ci_formats.Case]:
    """``run``'s verdict per profile, for ``--junit-xml`` and ``--json``: skipped (every drive
    skipped), error (an engine fault), failed (a divergence: its report, the shrunk trace), or
    passed."""
    by_profile: dict[int, list[Outcome]] = {}
    for o in outcomes:
        by_profile.setdefault(id(o.profile), []).append(o)
    cases = []
    for found in by_profile.values():
        name = mode.short_name(found[0].profile)
        seconds = sum(o.seconds for o in found)
        error = next((o.error for o in found if isinstance(o.error, Fault)), None) or next(
            (o.error for o in found if isinstance(o.error, Divergence)), None)  # fmt: skip
        if error is not None:
            status = "error" if isinstance(error, Fault) else "failed"
            cases.append(ci_formats.Case(name, status, seconds, first_divergence(mode, error),
                                         report(mode, error, engine=engine)))  # fmt: skip
        elif all(o.status == "skipped" for o in found):
            cases.append(ci_formats.Case(name, "skipped", seconds, found[0].note))
        elif all(o.status == "folded" for o in found):
            cases.append(ci_formats.Case(name, "skipped", seconds, f"run as "
                                         f"{mode.short_name(found[0].stand_in)}: {found[0].note}"))
        else:
            cases.append(ci_formats.Case(name, "passed", seconds))
    return cases


def _skip_lines(mode: Mode, skipped: list[Outcome]) -> list[str]:
    """One line per reason a profile was skipped (the profiles it skipped named after it)."""
    by_reason: dict[str, list[str]] = {}
    for o in skipped:
        by_reason.setdefault(o.note, []).append(mode.short_name(o.profile))
    return [f"skipped {', '.join(names)}: {reason}" if len(names) <= 3 else
            f"skipped {len(names)} profiles ({names[0]} ...): {reason}"
            for reason, names in by_reason.items()]  # fmt: skip


def _recorded(mode: Mode, args: argparse.Namespace) -> tuple[Any, list[tuple[list[Any], list[Any]]]]:
    """The profile and the programs of ``validate``'s file, each as its requests and recorded
    replies: a trace's one program, or a history's every program (:func:`is_history`)."""
    if is_history(args.file):
        return read_history(mode, args.file, args)
    profile, requests, replies = mode.read_trace(args.file, args)
    return profile, [(list(requests), list(replies))]


def cmd_validate(mode: Mode, args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """``validate FILE``: the steps an engine recorded, judged by the oracle and by TLC; with
    ``--engine`` or ``--engine-class``, the recorded requests run again on that engine
    (:func:`replay`)."""
    try:
        profile, programs = _recorded(mode, args)
    except UnicodeDecodeError as exc:
        print(f"error: {args.file}: not a trace file: byte {exc.start} is not UTF-8 text (a trace "
              "is JSON lines or ITF, in UTF-8)", file=err_out)  # fmt: skip
        return EXIT_USAGE
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    steps = sum(len(requests) for requests, _ in programs)
    held = (f"{len(programs)} programs, each from a reset, " if len(programs) > 1 else "")
    print(f"{args.file}: {held}{steps} steps; {mode.describe(profile)}", file=out)
    if getattr(args, "engine", None) is not None or getattr(args, "engine_class", None) is not None:
        return replay(mode, args, profile, [requests for requests, _ in programs], out, err_out)
    drive: Drive[Any, Any, Any, Any] = Drive(mode, RecordedEngine(*(r for _, r in programs)), profile)
    stuck: int | None = None
    which = len(programs)  # the program TLC checks: the diverging one, else the last
    try:
        for _ in drive.run_all((str(n), q) for n, (q, _) in enumerate(programs, 1)):
            pass
        print(f"oracle: every step is what the reference implementation does ({steps} "
              "steps)", file=out)  # fmt: skip
    except Divergence as err:
        print(report(mode, err, engine=str(args.file)), file=out)
        stuck, which = len(err.steps), int(drive.label)
    if args.no_tlc:
        return EXIT_OK if stuck is None else EXIT_DIVERGED
    from tlcrunner.run import TlcSetupError

    requests, replies = programs[which - 1]
    if len(programs) > 1:
        print(f"TLC checks program {which}, the {'diverging' if stuck is not None else 'last'} "
              "one", file=out)  # fmt: skip
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


def replay(mode: Mode, args: argparse.Namespace, profile: Any, programs: list[list[Any]],
           out: TextIO, err_out: TextIO) -> int:  # fmt: skip
    """``validate --engine``: hello asking for the recorded profile, then each recorded
    program's requests from a reset, in order, judged by the oracle as ``run`` judges them; a
    divergence is reported and confirmed by TLC (unless ``--no-tlc``). Exit 0 every reply is
    the reference's, 1 a divergence, 2 bad command line, 3 engine fault, 4 the engine does not
    run the trace's profile."""
    from .protocol import Unsupported

    try:
        engine = mode.engine(args)
    except ValueError as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    ask = getattr(mode, "ask_for", lambda p: p)(profile)
    with interruptible():
        try:
            try:
                _, connected = mode.connect(engine, ask)
            except Unsupported as exc:
                print(f"nothing checked: the engine does not run the trace's profile: {exc}",
                      file=out)  # fmt: skip
                return EXIT_NOTHING
            except EngineFault as exc:
                print(f"ENGINE FAULT ({exc.kind}) at hello: {exc.message}", file=out)
                return EXIT_FAULT
            except ValueError as exc:
                print(f"error: {exc}", file=err_out)
                return EXIT_USAGE
            drive: Drive[Any, Any, Any, Any] = Drive(mode, engine, connected)
            labelled = [(f"program {n} of {len(programs)}", p) for n, p in enumerate(programs, 1)]
            outcome = run_programs(drive, labelled, "replay")
        finally:
            _close_quietly(engine)
    name = engine_name(engine)
    print(f"replayed on {name}: {outcome.steps:,} steps of {len(programs)} "
          f"program{'s' if len(programs) != 1 else ''}, each from a reset", file=out)  # fmt: skip
    if outcome.status == "passed":
        print("conforms: the engine answered every step as the reference implementation does",
              file=out)  # fmt: skip
        return EXIT_OK
    error = outcome.error
    print(f"{outcome.note}: " + report(mode, error, engine=name), file=out)
    if isinstance(error, Fault):
        return EXIT_FAULT
    if not args.no_tlc:
        confirm_with_tlc(mode, error.profile, _steps(error), out, directory=args.tla_dir)
    return EXIT_DIVERGED


def cmd_mutants(mode: Mode, args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """``mutants``: ``run``'s default budget against every shipped mutant of the machine (or
    those ``--only`` names); exit 1 if one survives, 4 if ``--only`` names none."""
    mutants = [m for m in mode.mutants() if not args.only or args.only in m.__name__]
    if not mutants:
        names = ", ".join(m.__name__ for m in mode.mutants())
        print(f"nothing checked: no {mode.name} mutant's name contains {args.only!r}; the "
              f"mutants: {names}", file=out)  # fmt: skip
        return EXIT_NOTHING
    rows = [("mutant", *mode.mutant_header, "result", "seconds", "steps", "profile")]
    code = EXIT_OK
    for m in mutants:
        start = time.monotonic()
        budget = default_budget(mode, getattr(m, "impl", None))
        outcomes = search(mode, m(), mode.mutant_profiles(m), budget, seed=args.seed,
                          stop_at_first=True)  # fmt: skip
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
