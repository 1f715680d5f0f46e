"""``make kernel-check``: build the kernel harness, classify it under every constant set, drive
it over two pages, and print one table (Markdown, as the README quotes it).

For each constant set (StorageKeys x Facility147 x CBRLSize 1, 2; Pages 2) the harness is
started as a JSON-lines engine (``python -m conformance.engines.linux``, PROTOCOL.md's ESSA
mode), classified (:func:`conformance.classify.classify`), then driven by random requests over
both pages beside the reference implementation of the Impl it announces. Every divergence is
listed with its report: the requests from a reset, what the reference answered, what the
kernel did.

The random drive stands in for ``python -m conformance run`` until ``run`` drives ESSA
engines (issue 16): :func:`drive` is the one call to replace then.

Exit status: 0 when every constant set ran (divergences are reported, not failures, unless
``--strict``), 1 with ``--strict`` and a divergence, 3 on a build error or an engine fault.
"""

from __future__ import annotations

import argparse
import itertools
import random
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TextIO

from conformance.classify import Classification, classify
from conformance.essa import (
    ESSA_OPS, MAX_ORC, NONE, PAGELESS_OPS, EssaEngine, EssaJsonLinesEngine, EssaProfileRequest,
    EssaReply, EssaRequest, oracle_step,
)  # fmt: skip
from conformance.protocol import EngineFault
from refimpl.essa import EssaProfile, init

from .engine import KernelEssaEngine
from .extract import ExtractError
from .kernels import build

PAGES: Final = 2
#: Requests per constant set in the random drive, and per walk from a reset.
STEPS: Final = 2000
WALK: Final = 12


@dataclass
class Found:
    """A divergence: where it was seen, the requests from a reset, expected and observed."""

    where: str
    program: tuple[EssaRequest, ...]
    expected: EssaReply
    observed: EssaReply

    def report(self) -> str:
        prog = "; ".join(r.describe() for r in self.program)
        return (f"{prog}: expected {self.expected.describe()}, "
                f"the kernel {self.observed.describe()}")  # fmt: skip


def random_request(rng: random.Random, pages: int) -> EssaRequest:
    op = rng.choice(ESSA_OPS)
    page = NONE if op in PAGELESS_OPS else rng.randrange(pages)
    orc = rng.choice((*range(9), MAX_ORC)) if op == "ESSA" else NONE
    return EssaRequest(op, page, orc)


def drive(engine: EssaEngine, profile: EssaProfile, steps: int, seed: int) -> tuple[int, list[Found]]:
    """Random walks of :data:`WALK` requests from a reset over every page, beside the reference
    of ``profile``: the steps taken and the distinct divergences (by request kind), shortest
    first. (To become one call of ``python -m conformance run`` when it drives ESSA engines.)"""
    rng = random.Random(seed)
    found: dict[tuple[str, int], Found] = {}
    done = 0
    while done < steps:
        engine.reset()
        s = init(profile)
        program: list[EssaRequest] = []
        for _ in range(WALK):
            req = random_request(rng, profile.pages)
            program.append(req)
            done += 1
            s, want = oracle_step(profile, s, req)
            got = engine.step(req)
            if want.differences(got):  # the optional page fields only where the engine reports them
                key = (req.op, req.orc)
                old = found.get(key)
                if old is None or len(program) < len(old.program):
                    found[key] = Found("random", tuple(program), want, got)
                break
    return done, sorted(found.values(), key=lambda f: len(f.program))


@dataclass
class Row:
    constants: EssaProfileRequest
    classification: Classification
    steps: int
    found: list[Found]


def constant_sets() -> list[EssaProfileRequest]:
    return [EssaProfileRequest(storage_keys=sk, facility147=f147, cbrl_size=cbrl, pages=PAGES)
            for sk, f147, cbrl in itertools.product((False, True), (False, True), (1, 2))]  # fmt: skip


def _verdict(c: Classification) -> str:
    m = c.matched
    return m[0] if len(m) == 1 else ("none" if not m else " and ".join(m))


def table(kernel: str, harness: str, rows: Sequence[Row], out: TextIO) -> None:
    print(f"Linux {kernel}, {harness} harness ({harness} KVM code compiled for s390x, "
          f"run under qemu-s390x); Pages {PAGES}.\n", file=out)  # fmt: skip
    print("| StorageKeys | Facility147 | CBRLSize | classify matches | random steps | divergences |",
          file=out)  # fmt: skip
    print("|---|---|---|---|---|---|", file=out)
    for r in rows:
        c = r.constants
        print(f"| {c.storage_keys} | {c.facility147} | {c.cbrl_size} | "
              f"{_verdict(r.classification)} | {r.steps} | {len(_divergences(r))} |", file=out)  # fmt: skip
    reports = [(r, f) for r in rows for f in _divergences(r)]
    if reports:
        print("\nDivergences (requests from a reset: the reference's reply, the kernel's):\n",
              file=out)  # fmt: skip
        for r, f in reports:
            c = r.constants
            print(f"- StorageKeys {c.storage_keys}, Facility147 {c.facility147}, CBRLSize "
                  f"{c.cbrl_size} ({f.where}): {f.report()}", file=out)  # fmt: skip


def _divergences(r: Row) -> list[Found]:
    """The classify divergence of the announced Impl's profile, then the random drive's."""
    out = []
    impl = r.classification.engine.profile.impl
    for v in r.classification.verdicts:
        d = v.divergence
        if v.profile.impl == impl and d is not None:
            out.append(Found(f"classify {d.sequence}", d.program[: d.step], d.expected, d.observed))
    return out + r.found


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.engines.linux.check",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    parser.add_argument("--harness", default="classic")
    parser.add_argument("--kernel-src")
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strict", action="store_true", help="exit 1 on any divergence")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    try:
        built = build(args.harness, args.kernel_src)
    except (ExtractError, RuntimeError) as exc:
        print(f"kernel-check: cannot build the {args.harness} harness: {exc}", file=sys.stderr)
        return 3
    t_build = time.monotonic() - t0
    command = [sys.executable, "-m", "conformance.engines.linux", "--harness", args.harness]
    if args.kernel_src:
        command += ["--kernel-src", args.kernel_src]
    rows = []
    try:
        for i, constants in enumerate(constant_sets()):
            # classify as `python -m conformance classify --engine CMD` does, over JSON lines
            engine = EssaJsonLinesEngine(shlex.join(command))
            try:
                c = classify(engine, constants)
            finally:
                engine.close()
            impl = c.engine.profile.impl or "KVMClassic"
            got = constants.merged(c.engine.profile)
            profile = EssaProfile(impl, bool(got.storage_keys), bool(got.facility147),
                                  got.cbrl_size or 1, got.pages or PAGES)  # fmt: skip
            # the drive in-process (the same binary, without the JSON hop: a third of the time)
            kernel = KernelEssaEngine(args.harness, args.kernel_src)
            kernel.built = built
            try:
                kernel.hello(EssaProfileRequest.of(profile))
                steps, found = drive(kernel, profile, args.steps, args.seed + i)
            finally:
                kernel.close()
            rows.append(Row(constants, c, steps, found))
    except EngineFault as exc:
        print(f"kernel-check: ENGINE FAULT ({exc.kind}): {exc.message}", file=sys.stderr)
        return 3
    table(built.kernel, args.harness, rows, out)
    # on stderr: the table on stdout is the same on every run (the README quotes it)
    print(f"kernel-check: build {t_build:.1f} s, checks {time.monotonic() - t0 - t_build:.1f} s",
          file=sys.stderr)  # fmt: skip
    if args.strict and any(_divergences(r) for r in rows):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
