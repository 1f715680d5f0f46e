"""The ESSA mode of ``python -m conformance``: ``run``, ``validate`` and ``mutants`` with
``--machine ESSA``, and ``classify``. :mod:`conformance.cli` parses the command line and hands
the ESSA mode's commands here; the drives are :mod:`conformance.driver`'s.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, TextIO

from refimpl.essa import CONSTANTS, IMPLS, EssaProfile, EssaProfileError
from refimpl.essa.profile import KNOWN_BUGS

from . import essa_tla

from .driver import Divergence, Drive, Fault, Outcome, RecordedEngine, report, run_machine, save
from .essa import (
    ESSA_DRIVER, ESSA_MACHINE, EssaEngine, EssaJsonLinesEngine, EssaProfileRequest, EssaReply,
    EssaRequest, check_essa_reply, essa_request,
)  # fmt: skip
from .protocol import EngineFault, ProtocolError
from .tla import MODULE

EXIT_OK, EXIT_DIVERGED, EXIT_USAGE, EXIT_FAULT, EXIT_NOTHING = 0, 1, 2, 3, 4
#: Hypothesis sizes of ``--profile quick|thorough``: examples, steps per example.
SIZES = {"quick": (100, 40), "thorough": (1000, 100)}
DEFAULT_PAGES = 2


def _option(attr: str) -> str:
    return "--" + attr.replace("_", "-")


def add_profile_options(p: argparse.ArgumentParser, impl: bool = True) -> None:
    """One option per constant of :data:`refimpl.essa.CONSTANTS` (``--impl`` only if ``impl``):
    ``--storage-keys`` / ``--no-storage-keys`` for a Boolean, ``--cbrl-size N``, ``--bugs
    StickyZero,...`` (``--bugs none``: the fixed kernel). A constant left open is tried with
    every value of its domain."""
    g = p.add_argument_group("ESSA profile (--machine ESSA)",
                             "fixes a constant; a constant left open is tried with every value")
    for c in CONSTANTS:
        if c.attr == "impl":
            if impl:
                g.add_argument("--impl", choices=IMPLS, help="the Impl (default: the one the "
                               "engine announces)")  # fmt: skip
            continue
        kind = c.domain[0]
        if isinstance(kind, bool):
            pair = g.add_mutually_exclusive_group()
            pair.add_argument(_option(c.attr), dest=c.attr, action="store_true", default=None,
                              help=f"{c.tla}: {c.doc}")  # fmt: skip
            pair.add_argument("--no-" + c.attr.replace("_", "-"), dest=c.attr,
                              action="store_false")  # fmt: skip
        elif isinstance(kind, int):
            g.add_argument(_option(c.attr), dest=c.attr, type=int, help=f"{c.tla}: {c.doc}")
        else:
            g.add_argument(_option(c.attr), dest=c.attr, type=_bug_set,
                           help=f"{c.tla}, comma-separated, or none: {c.doc}")  # fmt: skip


def _bug_set(text: str) -> frozenset[str]:
    bugs = frozenset() if text == "none" else frozenset(t for t in text.split(",") if t)
    if not bugs <= frozenset(KNOWN_BUGS):
        raise argparse.ArgumentTypeError(f"not a set of {', '.join(KNOWN_BUGS)}: {text!r}")
    return bugs


def essa_request_of(args: argparse.Namespace) -> EssaProfileRequest:
    """The constants the command line fixes (the others are left open)."""
    return EssaProfileRequest(**{c.attr: getattr(args, c.attr, None) for c in CONSTANTS})


def essa_engine(args: argparse.Namespace) -> EssaEngine:
    """The engine the command line names; raises ValueError."""
    if args.engine is not None:
        return EssaJsonLinesEngine(args.engine, timeout=args.timeout)
    from .cli import load_class

    loaded = load_class(args.engine_class)
    if not isinstance(loaded, EssaEngine):
        raise ValueError(f"{args.engine_class} is not an ESSA engine (hello/reset/step/close)")
    return loaded


def _line(o: Outcome) -> str:
    rate = o.steps / o.seconds if o.seconds > 0 else 0.0
    name = ESSA_DRIVER.short_name(o.profile)
    note = f"; {o.note}" if o.note and o.status != "diverged" else ""
    return f"  {name} {o.drive} {o.status}: {o.steps:,} steps in {o.seconds:.1f} s " \
        f"({rate:,.0f} steps/s){note}"  # fmt: skip


def report_failure(error: Divergence | Fault, engine: str, out_dir: Path, out: TextIO,
                   tlc: bool = True) -> int:  # fmt: skip
    """Print the report, save it with the reproducers (and, for a divergence, the TLA+ trace
    module, which TLC checks against spec/ESSA.tla unless ``tlc`` is false); the exit status."""
    text = report(ESSA_DRIVER, error, engine=engine)
    print(text, file=out)
    saved = save(ESSA_DRIVER, out_dir, text, error)
    print(f"saved: {saved.report}, {saved.jsonl}, {saved.itf}", file=out)
    print(f"replay: python -m conformance validate --machine ESSA {saved.jsonl}", file=out)
    if isinstance(error, Fault):
        return EXIT_FAULT
    steps: list[tuple[EssaRequest, EssaReply]] = [
        (r.request, r.observed) for r in error.steps if r.observed is not None
    ]
    module, config = essa_tla.module_text(error.profile, steps), essa_tla.config_text(error.profile)
    (saved.directory / f"{MODULE}.tla").write_text(module, encoding="utf-8")
    (saved.directory / f"{MODULE}.cfg").write_text(config, encoding="utf-8")
    print(f"TLA+ trace: {saved.directory / MODULE}.tla (+ .cfg)", file=out)
    if tlc:
        confirm_with_tlc(error.profile, steps, out)
    return EXIT_DIVERGED


def confirm_with_tlc(profile: EssaProfile, steps: list[tuple[EssaRequest, EssaReply]],
                     out: TextIO) -> bool:  # fmt: skip
    """TLC's verdict on the recorded steps, printed; whether TLC agrees with the oracle that the
    last step, and no earlier one, is not a behaviour of spec/ESSA.tla."""
    from tlcrunner.run import TlcSetupError

    try:
        verdict = essa_tla.check_with_tlc(profile, steps)
    except (TlcSetupError, OSError) as exc:
        print(f"TLC not run: {exc}", file=out)
        return False
    if verdict.behaviour:
        print(f"TLC: the trace is a behaviour of spec/ESSA.tla ({len(steps)} steps, "
              f"{verdict.seconds:.1f} s)", file=out)  # fmt: skip
        return False
    if verdict.stuck_at is None:
        print(f"TLC could not check the trace: {verdict.message}", file=out)
        return False
    print(f"TLC: the trace stops being a behaviour of spec/ESSA.tla at step {verdict.stuck_at} "
          f"(deadlock at cursor = {verdict.stuck_at}, {verdict.seconds:.1f} s)", file=out)  # fmt: skip
    return verdict.stuck_at == len(steps)


def cmd_run(args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """``run --machine ESSA``: every profile of the constants the command line leaves open."""
    try:
        engine = essa_engine(args)
    except ValueError as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    examples, steps = SIZES[args.profile]
    examples = args.examples if args.examples is not None else examples
    steps = args.steps if args.steps is not None else steps
    fixed = essa_request_of(args)
    try:
        if fixed.impl is None:
            info = engine.hello(EssaProfileRequest())
            fixed = fixed.merged(EssaProfileRequest(impl=info.profile.impl))
            if fixed.impl is None:
                print("error: the engine announces no Impl: name one with --impl", file=err_out)
                return EXIT_USAGE
        profiles = ESSA_DRIVER.profiles(fixed, args.pages or DEFAULT_PAGES)
        print(f"{len(profiles)} profiles of {fixed.impl}, {args.pages or DEFAULT_PAGES} pages; "
              f"hypothesis {examples} examples of up to {steps} steps", file=out, flush=True)  # fmt: skip
        outcomes = run_machine(
            ESSA_DRIVER, engine, profiles, tour=not args.no_tour, examples=examples,
            max_steps=steps, seed=args.seed,
            progress=None if args.quiet else lambda o: print(_line(o), file=out, flush=True),
        )  # fmt: skip
    except EngineFault as exc:
        print(f"ENGINE FAULT ({exc.kind}) at hello: {exc.message}", file=out)
        return EXIT_FAULT
    except EssaProfileError as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    finally:
        engine.close()
    name = getattr(engine, "name", None) or getattr(engine, "command", "engine")
    failed = [o for o in outcomes if o.error is not None]
    if failed:
        assert failed[-1].error is not None
        return report_failure(failed[-1].error, str(name), args.out, out, tlc=not args.no_tlc)
    if all(o.status == "skipped" for o in outcomes):
        print("nothing checked: the engine runs none of the profiles asked for", file=out)
        return EXIT_NOTHING
    skipped = [o for o in outcomes if o.status == "skipped"]
    for o in skipped:
        print(f"skipped {ESSA_DRIVER.short_name(o.profile)}: {o.note}", file=out)
    print("conforms" + (f" (on {len(profiles) - len(skipped)} of {len(profiles)} profiles)"
                        if skipped else ""), file=out)  # fmt: skip
    return EXIT_OK


# --------------------------------------------------------------------------- validate


def read_essa_trace(path: Path, fallback: EssaProfileRequest, pages: int
                    ) -> tuple[Any, list[EssaRequest], list[EssaReply]]:  # fmt: skip
    """A trace log of the ESSA mode: the profile, the requests and the recorded replies.
    Raises ValueError naming the line."""
    lines = [(n, ln) for n, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if ln.strip()]  # fmt: skip
    if not lines:
        raise ValueError(f"{path}: empty")
    try:
        header = json.loads(lines[0][1])
        if not isinstance(header, dict) or header.get("machine") != ESSA_MACHINE:
            raise ValueError('the header must be an object with "machine": "ESSA"')
        asked = EssaProfileRequest.from_json(header.get("profile")).merged(fallback)
        profile = asked.profile(pages)
    except (ValueError, ProtocolError, EssaProfileError) as exc:
        raise ValueError(f"{path}:{lines[0][0]}: {exc}") from None
    requests, replies = [], []
    for n, text in lines[1:]:
        try:
            obj = json.loads(text)
            if not isinstance(obj, dict):
                raise ValueError("a step must be an object")
            requests.append(essa_request(obj, profile.pages))
            reply = {k: v for k, v in obj.items() if k not in ("op", "page", "orc", "arg")}
            replies.append(check_essa_reply(reply, profile.pages))
        except (ValueError, ProtocolError) as exc:
            raise ValueError(f"{path}:{n}: {exc}") from None
    return profile, requests, replies


def cmd_validate(args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """``validate --machine ESSA FILE``: the recorded steps judged by the oracle."""
    try:
        profile, requests, replies = read_essa_trace(
            args.file, essa_request_of(args), args.pages or 1)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    print(f"{args.file}: {len(requests)} steps; {profile.describe()}", file=out)
    drive: Drive[Any, Any, Any, Any] = Drive(ESSA_DRIVER, RecordedEngine(replies), profile)
    stuck: int | None = None
    try:
        drive.run(requests)
        print(f"oracle: every step is what the reference implementation does ({len(requests)} "
              "steps)", file=out)  # fmt: skip
    except Divergence as err:
        print(report(ESSA_DRIVER, err, engine=str(args.file)), file=out)
        stuck = len(err.steps)
    if args.no_tlc:
        return EXIT_OK if stuck is None else EXIT_DIVERGED
    steps = list(zip(requests, replies))
    from tlcrunner.run import TlcSetupError

    try:
        verdict = essa_tla.check_with_tlc(profile, steps, directory=args.tla_dir)
    except (TlcSetupError, OSError) as exc:
        print(f"TLC not run: {exc}", file=out)
        return EXIT_NOTHING
    if verdict.behaviour:
        print(f"TLC: the trace is a behaviour of spec/ESSA.tla ({verdict.seconds:.1f} s)", file=out)
    elif verdict.stuck_at is not None:
        print(f"TLC: the trace stops being a behaviour of spec/ESSA.tla at step "
              f"{verdict.stuck_at} ({verdict.seconds:.1f} s)", file=out)  # fmt: skip
    else:
        print(f"TLC could not check the trace: {verdict.message}", file=out)
        return EXIT_NOTHING
    if verdict.stuck_at != stuck:
        print(f"WARNING: TLC and the reference implementation disagree (TLC: step "
              f"{verdict.stuck_at}, oracle: step {stuck})", file=out)  # fmt: skip
        return EXIT_DIVERGED
    return EXIT_OK if stuck is None else EXIT_DIVERGED


# --------------------------------------------------------------------------- mutants


def cmd_mutants(args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """``mutants --machine ESSA``: ``run``'s defaults against every ESSA mutant."""
    from .essa_mutants import ESSA_MUTANTS

    examples, steps = SIZES["quick"]
    rows = [("mutant", "Impl", "shows", "result", "seconds", "steps", "profile")]
    code = EXIT_OK
    for m in ESSA_MUTANTS:
        if args.only and args.only not in m.__name__:
            continue
        start = time.monotonic()
        outcomes = run_machine(ESSA_DRIVER, m(),
                               ESSA_DRIVER.profiles(EssaProfileRequest(impl=m.impl), DEFAULT_PAGES),
                               examples=examples, max_steps=steps, seed=args.seed)  # fmt: skip
        seconds = time.monotonic() - start
        last = outcomes[-1]
        killed = last.status == "diverged"
        code = code if killed else EXIT_DIVERGED
        length = len(last.error.steps) if last.error is not None else 0
        rows.append((m.__name__, m.impl, m.shows, "killed" if killed else "SURVIVED",
                     f"{seconds:.2f}", str(length), ESSA_DRIVER.short_name(last.profile)))  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=out)
    return code
