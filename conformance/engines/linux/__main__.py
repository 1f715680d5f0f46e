"""``python -m conformance.engines.linux``: the kernel's ESSA code over JSON lines (PROTOCOL.md's
ESSA mode), e.g. ``python -m conformance classify --engine "python -m conformance.engines.linux"``.
``--build`` only builds (or finds cached) the harness and prints the kernel version and binary.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from conformance.essa import serve

from .engine import KernelEssaEngine
from .extract import ExtractError
from .kernels import HARNESSES, build


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.engines.linux",
                                     description=__doc__)  # fmt: skip
    parser.add_argument("--harness", choices=sorted(HARNESSES), default="classic")
    parser.add_argument("--kernel-src", help="a Linux tree (default: $KERNEL_SRC, else Debian's "
                        "linux-source-6.12 tarball)")  # fmt: skip
    parser.add_argument("--build", action="store_true", help="build, print the version, exit")
    args = parser.parse_args(argv)
    try:
        built = build(args.harness, args.kernel_src)
    except (ExtractError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.build:
        print(f"Linux {built.kernel} {args.harness}: {built.binary}")
        return 0
    engine = KernelEssaEngine(args.harness, args.kernel_src)
    engine.built = built
    try:
        serve(engine, sys.stdin, sys.stdout)
    finally:
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
