"""``python -m refimpl``: try the machine by hand, or check it against the spec.

``python -m refimpl run [options] FILE|-`` performs a sequence of operations (see
:mod:`refimpl.pagestates.program` for the format) and prints a table with a row per step: the operation,
its outcome (``Value 5``, ``DiscardFault``, ``refused`` ...) and every page's state in the paper's
notation (``Sr``, ``Vz`` ...), with ``dirty`` where the change bit is set. A refused step is one
the spec does not allow in that state (the reason is printed below the table); it changes
nothing.

``python -m refimpl equal [options]`` runs TLC for every profile (or those chosen) and compares
the spec's state graph with the reference implementation's: the equality test
(tests/test_refimpl_equality.py) as a table, with timings. ``--override
Discardable=DiscardableIgnoringDirty`` breaks the spec on purpose and shows the difference.

Exit status (tlcrunner/exitcodes.py): 0 done (every graph equal); 1 a graph differs; 2 bad
command line or input (a file that is not text, an unknown ``--override``); 3 TLC could not run.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from tlcrunner import exitcodes, usage

from .core.package import Refused
from .pagestates.machine import Machine
from .pagestates.profile import (
    ADDRESSING_EXCEPTION, NO_VALUE, UNUSED_ACCESSES, VARIANTS, Profile, ProfileError, all_profiles,
)  # fmt: skip
from .pagestates.program import ProgramError, Request, parse_program
from .pagestates.state import LastOp, State

EXIT_BAD_INPUT = exitcodes.USAGE
EXIT_DIFFERENT = exitcodes.FAILED
EXIT_TLC = exitcodes.SETUP


def _profile_options(p: argparse.ArgumentParser, *, defaults: bool) -> None:
    p.add_argument("--variant", choices=VARIANTS, default="Full" if defaults else None,
                   help="the machine (default: %(default)s)")
    service = p.add_mutually_exclusive_group()
    service.add_argument("--host-service", dest="host_service", action="store_true",
                         default=True if defaults else None,
                         help="guest primitives are host service calls "
                         "(HostService = TRUE, the default)")
    service.add_argument("--direct", dest="host_service", action="store_false",
                         help="guest primitives change the state directly (HostService = FALSE)")
    p.add_argument("--unused-access", choices=UNUSED_ACCESSES,
                   default=ADDRESSING_EXCEPTION if defaults else None,
                   help="what an access to an unused page does (default: %(default)s)")
    p.add_argument("--pages", type=int, default=None,
                   help="number of pages (default: as many as the input names)" if defaults else
                   "the profiles' number of pages (default: 1)")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=usage.prog("python -m refimpl", ""),
        description="Try the machine by hand, or check it against the spec.",
        epilog="exit status: 0 done (every graph equal), 1 a graph differs, 2 bad command line "
        "or input, 3 TLC could not run",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="perform a sequence of operations and show each step",
                         description="Perform a sequence of operations and show each step. "
                         "Text input: one '<Operation> <page> [<value>]' per line, '#' comments; "
                         'JSON input: [{"op": "Write", "page": 0, "arg": 5}, ...].',
                         epilog="exit status: 0 the table was printed (refused steps included: "
                         "they are the spec's answer), 2 bad options or input (a file that "
                         "cannot be read, is not UTF-8 text, or names an unknown operation)")
    _profile_options(run, defaults=True)
    run.add_argument("file", metavar="FILE|-", help="the operations; - for standard input")
    equal = sub.add_parser("equal", help="compare the state graph with TLC's, per profile",
                           epilog="exit status: 0 every graph equal, 1 a graph differs, 2 bad "
                           "options (an --override naming no operator or twin), 3 TLC could not run")
    _profile_options(equal, defaults=False)
    equal.add_argument("--override", action="append", default=[], metavar="OPERATOR=TWIN",
                       help="break the spec on purpose: a .cfg definition override, e.g. "
                       "Discardable=DiscardableIgnoringDirty (twins: tests/fixtures/graph/"
                       "MCGraph.tla); the comparison must then fail")  # fmt: skip
    return parser


# --------------------------------------------------------------------------- run


def _outcome(last: LastOp) -> str:
    if last.outcome == "Value":
        return f"Value {last.value}"
    return last.outcome


def _pages(state: State) -> list[str]:
    return [pg.name + (" dirty" if pg.dirty else "") for pg in state.pages]


def run_program(profile: Profile, requests: Sequence[Request], out: TextIO) -> None:
    """Perform ``requests`` and print the table."""
    m = Machine(profile)
    state = m.init()
    rows: list[list[str]] = [["0", "Init", "-", *_pages(state)]]
    notes: list[str] = []
    for n, req in enumerate(requests, 1):
        result = m.step(state, req.op, req.page, req.arg)
        if isinstance(result, Refused):
            where = f"step {n} ({req.show()}, line {req.line})"
            notes.append(f"({len(notes) + 1}) {where}: {result.reason}")
            outcome = f"refused ({len(notes)})"
        else:
            state = result
            outcome = _outcome(state.lastOp)
        rows.append([str(n), req.show(), outcome, *_pages(state)])
    header = ["step", "operation", "outcome", *(f"page {p}" for p in range(profile.pages))]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print(profile.describe(), file=out)
    for r in [header, *rows]:
        cells = [r[0].rjust(widths[0])] + [c.ljust(w) for c, w in zip(r[1:], widths[1:])]
        print("  ".join(cells).rstrip(), file=out)
    if notes:
        print("\nrefused (the spec has no such step in that state; nothing changed):", file=out)
        for note in notes:
            print(f"  {note}", file=out)


def _read(file: str) -> tuple[str, str]:
    # Bytes, decoded here, so standard input and files fail alike on text that is not UTF-8
    # (a stdin replaced by a text stream, as in tests, is read as text).
    if file == "-":
        stdin = getattr(sys.stdin, "buffer", None)
        return (stdin.read().decode("utf-8") if stdin else sys.stdin.read()), "<stdin>"
    return Path(file).read_bytes().decode("utf-8"), file


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    try:
        text, name = _read(args.file)
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UnicodeDecodeError as exc:
        where = "standard input" if args.file == "-" else args.file
        print(f"error: {where} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
              f"{exc.start}): give operations as text or JSON", file=sys.stderr)  # fmt: skip
        return EXIT_BAD_INPUT
    if "\0" in text:
        print(f"error: {name} holds NUL bytes, so it is not a text file of operations",
              file=sys.stderr)  # fmt: skip
        return EXIT_BAD_INPUT
    try:
        requests = parse_program(text, name)
    except ProgramError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    highest = max((r.page for r in requests), default=0)
    pages = args.pages if args.pages is not None else highest + 1
    for r in requests:
        if r.page >= pages:
            print(f"error: {name}:{r.line}: {r.show()}: page {r.page} is not one of 0 .. "
                  f"{pages - 1} (--pages {pages})", file=sys.stderr)  # fmt: skip
            return EXIT_BAD_INPUT
    # Values: 0 and every value the program writes (the spec's Values constant).
    values = tuple(sorted({0} | {r.arg for r in requests if r.arg != NO_VALUE}))
    try:
        profile = Profile(args.variant, args.host_service, args.unused_access, pages, values)
    except ProfileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    run_program(profile, requests, out)
    return 0


# --------------------------------------------------------------------------- equal

_DEFINITION = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([^)]*)\))?\s*==", re.M)


def definitions(module: Path) -> dict[str, int]:
    """The operators a module defines at the start of a line, with their number of arguments."""
    text = module.read_text(encoding="utf-8")
    return {
        m.group(1): len([a for a in (m.group(2) or "").split(",") if a.strip()])
        for m in _DEFINITION.finditer(text)
    }


def override_problem(name: str, twin: str, spec: Path, graph: Path) -> str | None:
    """Why ``name <- twin`` cannot be a definition override of ``spec`` from ``graph``, or None."""
    ops, twins = definitions(spec), definitions(graph)
    if name not in ops:
        return f"{spec.name} defines no operator {name}"
    if twin not in twins:
        return f"{graph.name} defines no {twin} (its twins: {', '.join(sorted(twins)) or 'none'})"
    if ops[name] != twins[twin]:
        return f"{name} takes {ops[name]} argument(s) and {twin} {twins[twin]}"
    return None


def cmd_equal(args: argparse.Namespace, out: TextIO) -> int:
    from tlcrunner.fetch import FetchError, ensure_tlc
    from tlcrunner.run import TlcSetupError, find_java

    from .core.graph import compare
    from .core.tlc import TlcGraphError, tlc_state_graph
    from .pagestates import PAGE_STATES

    profiles = [
        p for p in all_profiles(args.pages or 1)
        if (args.variant is None or p.variant == args.variant)
        and (args.host_service is None or p.host_service == args.host_service)
        and (args.unused_access is None or p.unused_access == args.unused_access)
    ]  # fmt: skip
    if not profiles:
        print("error: the spec's ASSUMEs allow no profile with these options", file=sys.stderr)
        return EXIT_BAD_INPUT
    overrides = {}
    for text in args.override:
        name, eq, twin = text.partition("=")
        if not (eq and name.isidentifier() and twin.isidentifier()):
            print(f"error: --override {text}: expected OPERATOR=TWIN", file=sys.stderr)
            return EXIT_BAD_INPUT
        problem = override_problem(name, twin, PAGE_STATES.spec, PAGE_STATES.graph_path)
        if problem is not None:
            print(f"error: --override {text}: {problem}", file=sys.stderr)
            return EXIT_BAD_INPUT
        overrides[name] = twin
    try:
        java, jar = find_java(), ensure_tlc()
    except (TlcSetupError, FetchError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_TLC
    width = max(len(p.describe()) for p in profiles)
    print(f"{'profile':<{width}} {'states':>7} {'edges':>8} {'TLC s':>6} {'total s':>7}  result",
          file=out)  # fmt: skip
    failed = tlc_failed = 0
    for profile in profiles:
        start = time.monotonic()
        try:
            spec = tlc_state_graph(PAGE_STATES, profile, jar=jar, java=java, overrides=overrides)
        except TlcGraphError as exc:
            print(f"{profile.describe():<{width}} TLC failed: {exc}", file=out)
            tlc_failed += 1
            continue
        diff = compare(spec.graph, PAGE_STATES.state_graph(profile), PAGE_STATES.show)
        total = time.monotonic() - start
        g = spec.graph
        result = "equal" if diff is None else "DIFFERENT"
        print(f"{profile.describe():<{width}} {len(g.states):>7} {g.n_edges:>8} "
              f"{spec.seconds:>6.1f} {total:>7.1f}  {result}", file=out)  # fmt: skip
        if diff is not None:
            failed += 1
            print(diff.message, file=out)
    # A difference is a verdict; TLC failing is not one, and must not look like one.
    if failed:
        return EXIT_DIFFERENT
    return EXIT_TLC if tlc_failed else exitcodes.OK


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    stream = out if out is not None else sys.stdout
    if args.command == "run":
        return cmd_run(args, stream)
    return cmd_equal(args, stream)
