"""``python -m conformance``: test an engine against the spec, or validate a recorded trace.

``run`` drives an engine (``--engine "command line"`` over JSON lines, or ``--engine-class
module:Class`` in-process) of any machine of :data:`conformance.machines.MACHINES`
(``--machine``, default PageStates) beside the reference implementation, within a budget per
profile it prints first: a deterministic tour (ESSA and ESSAMigration: the coverage tour of the
reference's graph over two pages, ``--cover-edges``, ``--depth``; conformance/search.py),
hypothesis (``--profile quick|thorough``, ``--examples``, ``--steps``, ``--seed``), the swarm walk
(``--swarm N`` steps; by default only ESSA's and ESSAMigration's budgets have one) and optionally a
uniform random walk (``--walk N``); it ends with one summary line. A divergence is printed as a table naming the rule, saved (report, JSON lines, ITF, TLA+) under ``--out``, and
confirmed by TLC. ``validate FILE`` checks a trace an engine recorded with the oracle and with
TLC. ``mutants`` runs the suite against the shipped broken engines. ``classify`` says which ESSA
implementation an ESSA engine is. The commands are :mod:`conformance.commands`'.

Exit status: 0 the engine conforms (or the trace is a behaviour of the spec); 1 a divergence;
2 bad command line or malformed trace file; 3 the engine broke the protocol (malformed reply,
crash, hang); 4 nothing was checked (no profile the engine runs, no mutant named, or TLC could
not run); 130 or 143 ``run`` interrupted by SIGINT or SIGTERM (:mod:`conformance.interrupt`). The
table of every command's statuses: docs/conformance.md, "Exit statuses".
"""

from __future__ import annotations

import argparse
import io
import os
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from tlcrunner import ci_formats, usage

from .commands import COMMANDS, default_budget
from .exits import EXIT_DIVERGED, EXIT_FAULT, EXIT_NOTHING, EXIT_OK, EXIT_USAGE
from .jsonlines import DEFAULT_TIMEOUT, DEFAULT_WINDOW
from .machines import MACHINE_COMMANDS, MACHINES
from .search import covers

__all__ = ["EXIT_DIVERGED", "EXIT_FAULT", "EXIT_NOTHING", "EXIT_OK", "EXIT_USAGE", "main"]

DEFAULT_MACHINE = next(iter(MACHINES))
#: The machines whose tour covers the reference's state graph (``--cover-edges``, ``--depth``).
TOURED = " and ".join(name for name, mode in MACHINES.items() if covers(mode))
#: The machines whose default budget has no swarm walk (``--swarm`` adds one).
NO_SWARM = " and ".join(name for name, mode in MACHINES.items() if default_budget(mode).swarm == 0)


RUN_EXIT = """\
exit status:
  0  the engine conforms on every profile it runs
  1  a divergence
  2  bad command line
  3  engine fault: the engine broke the protocol (malformed reply, crash, hang)
  4  nothing checked: the engine runs none of the profiles asked for"""
VALIDATE_EXIT = """\
exit status:
  0  the trace is a behaviour of the spec (oracle and TLC agree); with an engine: the
     engine answered every step as the reference implementation does
  1  it is not (or TLC and the oracle disagree); with an engine: a divergence (reproduced)
  2  bad command line, or a malformed trace file
  3  with an engine: engine fault (malformed reply, crash, hang)
  4  TLC could not run (the oracle's verdict is printed); with an engine: the engine does
     not run the trace's profile"""
MUTANTS_EXIT = """\
exit status:
  0  every mutant was killed
  1  a mutant survived
  2  bad command line
  4  nothing checked: no mutant's name contains --only"""


def _machine_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--machine", choices=tuple(MACHINES), default=None,
                   help=f"the mode of the protocol the engine speaks (default {DEFAULT_MACHINE})")


def _profile_options(p: argparse.ArgumentParser, engine: bool = True) -> None:
    p.add_argument("--pages", type=int, help="number of pages")
    for mode in MACHINES.values():
        mode.add_options(p, engine)


def _engine_options(p: argparse.ArgumentParser, help_class: str, required: bool = True,
                    help_command: str = "the engine's command line; it speaks JSON lines on "
                    "stdin/stdout") -> None:  # fmt: skip
    which = p.add_mutually_exclusive_group(required=required)
    which.add_argument("--engine", metavar="COMMAND", help=help_command)
    which.add_argument("--engine-class", metavar="MODULE:CLASS", help=help_class)
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help="seconds to wait for each reply of a JSON-lines engine (default %(default)s)")
    p.add_argument("--window", type=_window, default=DEFAULT_WINDOW, metavar="N",
                   help="requests sent to a JSON-lines engine ahead of their replies (1: "
                   "lock-step; default %(default)s; PROTOCOL.md, Pipelining)")  # fmt: skip


def _window(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"a positive number of requests, not {text!r}")
    return n


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=usage.prog("python -m conformance", "conformance"),
        description="Test an engine against the spec, or validate a recorded trace.",
        epilog="exit status: 0 conforms, 1 divergence, 2 bad input, 3 engine fault, "
        "4 nothing checked (each command's --help has its own). The protocol: "
        "conformance/PROTOCOL.md.",
    )  # fmt: skip
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="test an engine against the spec",
                         description="Test an engine against the spec: the tour, hypothesis and "
                         "the walks on every profile asked; a divergence is reported, saved under "
                         "--out and confirmed by TLC; one SUMMARY line last.",
                         epilog=RUN_EXIT, formatter_class=usage.Formatter)  # fmt: skip
    _engine_options(run, "an in-process engine: a class with hello/reset/step/close")
    _machine_option(run)
    _profile_options(run)
    run.add_argument("--profile", choices=("quick", "thorough"), default="quick",
                     help="hypothesis settings: quick (CI, default) or thorough")
    run.add_argument("--examples", type=int, help="hypothesis examples (overrides --profile)")
    run.add_argument("--steps", type=int, help="steps per example (overrides --profile)")
    run.add_argument("--seed", type=int, help="hypothesis seed (a fixed run); the walk's too")
    run.add_argument("--no-tour", action="store_true", help="skip the tour")
    run.add_argument("--cover-edges", type=int, metavar="N",
                     help=f"{TOURED} (the machines whose tour covers the reference's graph; the "
                     "others run their fixed tours): the coverage tour covers at most N edges of "
                     "that graph per profile (-1: every edge; 0: the machine's fixed tours "
                     "instead)")  # fmt: skip
    run.add_argument("--depth", type=int, metavar="N",
                     help=f"{TOURED}: the coverage tour's graph of every request on every page "
                     "reaches N steps from the reset (0: to its end)")  # fmt: skip
    run.add_argument("--swarm", type=int, metavar="N",
                     help="steps of the swarm walk per profile, on any machine (0: none; default: "
                     f"the machine's budget, none for {NO_SWARM})")  # fmt: skip
    run.add_argument("--keep-going", action="store_true",
                     help="ESSA: search every profile to its budget after a divergence (by "
                     "default the search stops at the first and the other profiles replay it)")
    run.add_argument("--walk", type=int, default=0, metavar="N",
                     help="after hypothesis, N random steps at full speed (default 0)")
    run.add_argument("--out", type=Path, default=Path("conformance-report"),
                     help="where a divergence is saved (default %(default)s)")
    db = run.add_mutually_exclusive_group()
    db.add_argument("--database", type=Path,
                    help="hypothesis example database (PageStates default: "
                    ".hypothesis/conformance)")  # fmt: skip
    db.add_argument("--no-database", action="store_true",
                    help="keep no example database (a found failure is not replayed next time)")
    run.add_argument("--no-tlc", action="store_true", help="do not confirm a divergence with TLC")
    ci_formats.add_options(run)
    run.add_argument("--quiet", action="store_true", help="no line per drive: the result only")

    val = sub.add_parser("validate", help="check a recorded trace (JSON lines, or ITF for "
                         "PageStates), or replay it on an engine",
                         description="Check a recorded trace: the oracle and TLC judge the "
                         "replies it records. With --engine or --engine-class, replay it: its "
                         "requests run again on that engine (a history's every program, each "
                         "from a reset, in order), whose replies the oracle judges as run does; "
                         "a divergence is reported and confirmed by TLC.",
                         epilog=VALIDATE_EXIT, formatter_class=usage.Formatter)  # fmt: skip
    val.add_argument("file", type=Path, help="the trace: JSON lines (PROTOCOL.md, Trace log), "
                     "ITF for PageStates, or a history.jsonl that run saved beside a trace")  # fmt: skip
    _engine_options(val, "replay on this in-process engine: a class with hello/reset/step/close",
                    required=False, help_command="replay on this engine, the command line of a "
                    "JSON-lines engine")  # fmt: skip
    _machine_option(val)
    _profile_options(val, engine=False)
    val.add_argument("--no-tlc", action="store_true",
                     help="check with the oracle only (with an engine: confirm no divergence)")
    val.add_argument("--tla-dir", type=Path,
                     help="keep the generated TLA+ module and .cfg in this directory")

    mut = sub.add_parser("mutants", help="run the suite against the shipped broken engines",
                         epilog=MUTANTS_EXIT, formatter_class=usage.Formatter)  # fmt: skip
    _machine_option(mut)
    mut.add_argument("--seed", type=int, default=0,
                     help="hypothesis's and the walks' seed (default %(default)s)")
    mut.add_argument("--only", help="a substring of the mutants to run")

    for name, (_, help_text, options, _) in MACHINE_COMMANDS.items():
        options(sub.add_parser(name, help=help_text), _engine_options)
    return parser


def _machine_options() -> dict[str, list[str]]:
    """Each option of a machine's profile (its dest), with the machines it applies to: a mode's
    own options, and those of the mode it takes its options from (``options_from``) too."""
    own: dict[str, list[str]] = {}
    for name, mode in MACHINES.items():
        p = argparse.ArgumentParser(add_help=False)
        mode.add_options(p)
        own[name] = list(dict.fromkeys(a.dest for a in p._actions))
    owners: dict[str, list[str]] = {}
    for name, mode in MACHINES.items():
        base = getattr(mode, "options_from", name)
        for dest in own[base] + (own[name] if base != name else []):
            owners.setdefault(dest, []).append(name)
    return owners


def _misapplied(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """An option given that does not apply to the machine the command runs (``--machine``, else
    the default), as the error's sentence; None when every option given applies. Ignoring it
    would check another profile than the one asked for and call that a verdict."""
    machine = getattr(args, "machine", None) or DEFAULT_MACHINE
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub = commands.choices[args.command]
    flags: dict[str, str] = {}
    defaults: dict[str, object] = {}  # the first action's (argparse's get_default skips None)
    for a in sub._actions:
        if a.option_strings and a.dest not in flags:
            flags[a.dest], defaults[a.dest] = a.option_strings[0], a.default
    for dest, machines in _machine_options().items():
        if machine in machines or dest not in flags:
            continue
        if getattr(args, dest, None) != defaults[dest]:
            which = " or ".join(f"--machine {m}" for m in machines)
            return (f"{flags[dest]} applies to {which}, not to {machine}: add {which.split(' or ')[0]}"
                    f" to check that profile, or leave {flags[dest]} out")  # fmt: skip
    return None


def _usage_problem(args: argparse.Namespace) -> str | None:
    """A number out of range, or an engine command that cannot run, as the error's sentence
    naming the fix; None when there is none."""
    for option, dest, least in (("--pages", "pages", 1), ("--cbrl-size", "cbrl_size", 1),
                                ("--examples", "examples", 0), ("--steps", "steps", 1),
                                ("--walk", "walk", 0), ("--swarm", "swarm", 0),
                                ("--depth", "depth", 0), ("--cover-edges", "cover_edges", -1)):  # fmt: skip
        value = getattr(args, dest, None)
        if value is not None and value < least:
            return f"{option} must be at least {least}, not {value}"
    timeout = getattr(args, "timeout", None)
    if timeout is not None and not timeout > 0:
        return f"--timeout must be a positive number of seconds, not {timeout}"
    command = getattr(args, "engine", None)
    return None if command is None else _engine_problem(command)


def _engine_problem(command: str) -> str | None:
    """Why the engine command cannot be started (its program missing, not executable), naming
    the fix; None when it can."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return f"--engine {command!r}: not a command line ({exc})"
    if not words:
        return "--engine: empty command line"
    program = words[0]
    if "/" not in program:
        if shutil.which(program) is None:
            return (f"--engine: {program!r} is not a command on PATH: give the engine's path "
                    f"(e.g. ./{program})")  # fmt: skip
        return None
    path = Path(program)
    if not path.exists():
        where = "" if path.is_absolute() else f" (relative to {Path.cwd()})"
        return f"--engine: {program} does not exist{where}: build the engine or give its path"
    if path.is_dir() or not os.access(path, os.X_OK):
        return f"--engine: {program} is not an executable file: chmod +x {program}, or give the " \
            "program that runs it (e.g. --engine \"python3 engine.py\")"  # fmt: skip
    return None


class _HoldSummary(io.StringIO):
    """``out``, except that a line starting ``SUMMARY:`` is held back (:attr:`held`): ``run``
    without ``--machine`` tries the default mode first, and only the run that decides prints
    its summary line."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out, self.partial, self.held = out, "", ""

    def write(self, text: str) -> int:
        self.partial += text
        while "\n" in self.partial:
            line, self.partial = self.partial.split("\n", 1)
            if line.startswith("SUMMARY:"):
                self.held = line + "\n"
            else:
                self.out.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        self.out.flush()

    def release(self) -> None:
        self.out.write(self.partial + self.held)
        self.partial = self.held = ""


def _guess(args: argparse.Namespace, out: TextIO) -> str | None:
    """The machine other than the default whose hello the engine answers, said on ``out`` (for
    ``run`` without ``--machine``); None: none does."""
    for name, mode in MACHINES.items():
        if name != DEFAULT_MACHINE and mode.speaks(args):
            print(f"the engine speaks the {name} mode, not the {DEFAULT_MACHINE} mode: running it "
                  f"as run --machine {name}", file=out)  # fmt: skip
            return name
    return None


def main(argv: Sequence[str] | None = None, out: TextIO | None = None,
         err_out: TextIO | None = None) -> int:  # fmt: skip
    """The command line; ``out`` and ``err_out`` default to the current stdout and stderr."""
    out = out if out is not None else sys.stdout
    err_out = err_out if err_out is not None else sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    problem = _usage_problem(args)
    if problem is None and args.command in COMMANDS:
        problem = _misapplied(parser, args)
    if problem is not None:
        print(f"error: {problem}", file=err_out)
        return EXIT_USAGE
    if args.command in MACHINE_COMMANDS:
        mode, _, _, command = MACHINE_COMMANDS[args.command]
        return command(mode, args, out, err_out)
    machine = args.machine
    guess = machine is None and args.command == "run"
    if guess and args.engine_class is not None:
        machine = _guess(args, out)  # an in-process engine tells by its hello's signature: ask first
    if not (guess and machine is None):
        return COMMANDS[args.command](MACHINES[machine or DEFAULT_MACHINE], args, out, err_out)
    # A JSON-lines engine of another mode answers the default mode's hello Unsupported: then
    # that mode's run decides, and the default mode's summary line is dropped.
    first = _HoldSummary(out)
    code = COMMANDS["run"](MACHINES[DEFAULT_MACHINE], args, first, err_out)
    other = _guess(args, first) if code in (EXIT_NOTHING, EXIT_USAGE) else None
    if other is None:
        first.release()
        return code
    first.partial = first.held = ""
    return COMMANDS["run"](MACHINES[other], args, out, err_out)
