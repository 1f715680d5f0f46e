"""``python -m tlcrunner check|apalache [...]``; ``python -m tlcrunner.fetch`` downloads TLC."""

from __future__ import annotations

import sys

from . import apalache, check, distributed, findings, mutate, simulate

USAGE = "usage: python -m tlcrunner {check,simulate,worker,apalache,findings,mutate} [--help] [options]"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        print("       python -m tlcrunner.fetch   (download and verify TLC)")
        return 0 if argv else 2
    if argv[0] == "check":
        return check.main(argv[1:])
    if argv[0] == "simulate":
        return simulate.main(argv[1:])
    if argv[0] == "worker":
        return distributed.worker_main(argv[1:])
    if argv[0] == "apalache":
        return apalache.main(argv[1:])
    if argv[0] == "findings":
        return findings.main(argv[1:])
    if argv[0] == "mutate":
        return mutate.main(argv[1:])
    print(f"unknown command {argv[0]!r}\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
