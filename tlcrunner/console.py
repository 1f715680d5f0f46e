"""``cmma-spec``: the console command a ``pip install`` of the repository gives.

It runs the same code as the ``python -m`` entry points, from any directory: the specs and
models come from the checkout or the installed package (:mod:`tlcrunner.locations`), TLC's jar
from the cache, downloaded and verified on first use.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from . import exitcodes, usage as usage_name
from .locations import in_checkout


def _check(argv: list[str]) -> int:
    from . import check

    return check.main(argv)


def _apalache(argv: list[str]) -> int:
    from . import apalache

    return apalache.main(argv)


def _findings(argv: list[str]) -> int:
    from . import findings

    return findings.main(argv)


def _mutate(argv: list[str]) -> int:
    from . import mutate

    return mutate.main(argv)


def _fetch(argv: list[str]) -> int:
    from . import fetch

    return fetch.main(argv)


def _refimpl(command: str) -> Callable[[list[str]], int]:
    def run(argv: list[str]) -> int:
        from refimpl.cli import main

        return main([command, *argv])

    return run


def _conformance(argv: list[str]) -> int:
    from conformance.cli import main

    return main(argv)


COMMANDS: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "check": (_check, "model-check the models and compare them with their pins"),
    "run": (_refimpl("run"), "perform operations on the reference implementation, step by step"),
    "equal": (_refimpl("equal"), "compare the reference implementation's state graph with TLC's "
                                 "(needs a checkout: its graph models are test fixtures)"),
    "conformance": (_conformance, "test an engine against the spec (run, validate, mutants ...)"),
    "apalache": (_apalache, "run the Apalache checks, where Apalache is installed"),
    "mutate": (_mutate, "spec mutation testing: mutate the spec, classify every mutant"),
    "findings": (_findings, "regenerate docs/findings.md (in a checkout)"),
    "fetch": (_fetch, "download and verify TLC into the cache"),
}  # fmt: skip


# Commands whose inputs or outputs are files of the repository that the package does not carry.
CHECKOUT_ONLY: dict[str, str] = {
    "equal": "its graph models are test fixtures, in tests/fixtures/graph",
    "findings": "it rewrites docs/findings.md",
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: cmma-spec COMMAND [--help] [options]", "       cmma-spec --version", "",
             "commands:"]
    lines += [f"  {name:<{width}}  {about}" for name, (_, about) in COMMANDS.items()]
    lines += ["", "Each command's --help lists its options and exit statuses.",
              "exit status: a command's own; 2 for an unknown command."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return exitcodes.OK if args else exitcodes.USAGE
    if args[0] == "--version":
        from .version import version_line

        print(version_line())
        return exitcodes.OK
    entry = COMMANDS.get(args[0])
    if entry is None:
        print(f"cmma-spec: unknown command {args[0]!r}\n\n{usage()}", file=sys.stderr)
        return exitcodes.USAGE
    if args[0] in CHECKOUT_ONLY and not in_checkout() and not {"-h", "--help"} & set(args[1:]):
        print(f"cmma-spec {args[0]}: needs a checkout of the repository ({CHECKOUT_ONLY[args[0]]}); "
              "run it there with `make` or `python -m`", file=sys.stderr)  # fmt: skip
        return exitcodes.USAGE
    with usage_name.front_door("cmma-spec"):
        return entry[0](args[1:])


if __name__ == "__main__":
    sys.exit(main())
