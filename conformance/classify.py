"""Which ESSA profile does an engine implement? ``python -m conformance classify``.

The engine is driven, once per candidate profile (each Impl, with StorageKeys, Facility147,
CBRLSize and Pages as the engine announces them or as the command line sets them), through a
fixed, deterministic set of request sequences (:func:`sequences`), each from a reset, beside the
oracle (:func:`conformance.essa.oracle_step`) of that profile; the first reply that differs is
the profile's first divergence. The sequences are:

1. the shortest counterexamples of docs/findings.md F1-F4 at the instruction level (each
   followed by ORC 0 and a Read of page 0, to look at the page);
2. a tour: every one-page host state reachable from Init under the candidate (breadth first, a
   shortest program to each), followed by each ORC 0 .. 8 and 15 and each host action and guest
   access.

The documented points where the reference engines part (``tests/test_conformance_essa.py``):
Paper2007 and the KVMs at step 1 of F1-classic (ESSA ORC 3 on a page in Init: the 2007 model
reports content 3, logically zero, and queues nothing; KVM reports 2 and sets Z), KVMClassic and
KVMGmap at step 2 of F1-gmap (ORC 0 clears Z under gmap, not under classic).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Final, NamedTuple, TextIO

from refimpl.essa import init
from refimpl.essa import IMPLS, EssaProfile, EssaState

from .essa import (
    ESSA_OPS, NONE, PAGELESS_OPS, EssaEngine, EssaEngineInfo, EssaProfileRequest, EssaReply,
    EssaRequest, oracle_step,
)  # fmt: skip
from .protocol import EngineFault, Unsupported


def _e(orc: int, page: int = 0) -> EssaRequest:
    return EssaRequest("ESSA", page, orc)


def _r(op: str, page: int = 0) -> EssaRequest:
    return EssaRequest(op, NONE if op in PAGELESS_OPS else page)


_LOOK: Final = (_e(0), _r("Read"))

#: docs/findings.md F1-F4, the guest's steps as requests (GuestMakeVolatile is ORC 3,
#: GuestMakePotentiallyVolatile ORC 4, GuestMakeStable ORC 6, GuestExtract ORC 0, GuestFree
#: ORC 2), each followed by a look at the page.
FINDINGS: Final[dict[str, tuple[EssaRequest, ...]]] = {
    "F1-classic": (_e(3), _r("Migrate"), _e(6), *_LOOK),
    "F1-gmap": (_e(3), _e(0), _e(6), *_LOOK),
    "F2": (_r("Write"), _r("Writeback"), _r("HostReclaim"), _e(3), _r("HostProcessCBRL"),
           _r("Read"), *_LOOK),  # fmt: skip
    "F3": (_r("Write"), _r("HostReclaim"), _e(4), _r("HostProcessCBRL"), *_LOOK),
    "F4": (_r("Write"), _r("HostReclaim"), _e(2), *_LOOK),
}

#: The ORCs the tour sends: every defined code, 8 (the first undefined) and 15 (the highest).
TOUR_ORCS: Final = (*range(9), 15)


def one_page_requests(page: int = 0) -> tuple[EssaRequest, ...]:
    """Every request on one page: each tour ORC, the host actions, the guest's accesses."""
    return tuple(_e(o, page) for o in TOUR_ORCS) + tuple(
        _r(op, page) for op in ESSA_OPS if op != "ESSA"
    )


def _key(s: EssaState) -> tuple[object, ...]:
    return (s.pages, s.cbrl, s.migrated)


def tour(profile: EssaProfile) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:
    """Every state reachable from Init by requests on page 0 (breadth first; other pages stay
    in Init), each followed by each request on page 0: a one-page tour, whatever ``Pages``."""
    reqs = one_page_requests(0)
    init = oracle_init(profile)
    seen: set[tuple[object, ...]] = {_key(init)}
    queue: deque[tuple[EssaState, tuple[EssaRequest, ...]]] = deque([(init, ())])
    while queue:
        s, prog = queue.popleft()
        for r in reqs:
            yield f"tour from {'; '.join(x.describe() for x in prog) or 'Init'}", prog + (r,)
            t, reply = oracle_step(profile, s, r)
            if reply.outcome != "Refused" and _key(t) not in seen:
                seen.add(_key(t))
                queue.append((t, prog + (r,)))


def oracle_init(profile: EssaProfile) -> EssaState:
    return init(profile)


def sequences(profile: EssaProfile) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:
    """The request sequences classify runs for ``profile``: the findings, then the tour."""
    yield from FINDINGS.items()
    yield from tour(profile)


class Divergence(NamedTuple):
    """The first reply that differs from the oracle's: the sequence, the step (1-based) and its
    request, what the oracle replied and what the engine did."""

    sequence: str
    step: int
    request: EssaRequest
    expected: EssaReply
    observed: EssaReply
    program: tuple[EssaRequest, ...]


class Verdict(NamedTuple):
    """One candidate profile: matched (``divergence`` None), diverged, or skipped (``skipped``:
    the engine's reason)."""

    profile: EssaProfile
    sequences: int
    steps: int
    divergence: Divergence | None = None
    skipped: str = ""

    @property
    def matches(self) -> bool:
        return not self.skipped and self.divergence is None


def check_profile(engine: EssaEngine, profile: EssaProfile) -> Verdict:
    """Drive ``engine`` (already hello'd) through every sequence of ``profile``."""
    n = steps = 0
    for name, program in sequences(profile):
        n += 1
        engine.reset()
        s = oracle_init(profile)
        for i, req in enumerate(program):
            steps += 1
            s, want = oracle_step(profile, s, req)
            got = engine.step(req)
            if want.differences(got):
                return Verdict(profile, n, steps, Divergence(name, i + 1, req, want, got, program))
    return Verdict(profile, n, steps)


class Classification(NamedTuple):
    engine: EssaEngineInfo
    verdicts: tuple[Verdict, ...]

    @property
    def matched(self) -> tuple[str, ...]:
        return tuple(v.profile.impl for v in self.verdicts if v.matches)


def classify(engine: EssaEngine, request: EssaProfileRequest = EssaProfileRequest(),
             impls: tuple[str, ...] = IMPLS) -> Classification:  # fmt: skip
    """Classify ``engine`` against each Impl of ``impls``. ``request``'s fields (not its Impl)
    are asked of the engine; what it leaves open comes from its hello, else StorageKeys false,
    Facility147 false, CBRLSize 1, Pages 1. Raises EngineFault if the engine breaks the protocol."""
    asked = EssaProfileRequest(
        None, request.storage_keys, request.facility147, request.cbrl_size, request.pages
    )
    try:
        info = engine.hello(asked)
    except Unsupported as exc:
        info = EssaEngineInfo("engine", EssaProfileRequest())
        return Classification(info, tuple(
            Verdict(EssaProfile(i), 0, 0, skipped=str(exc)) for i in impls))  # fmt: skip
    got = asked.merged(info.profile).merged(EssaProfileRequest(None, False, False, 1, 1))
    verdicts = []
    for impl in impls:
        profile = EssaProfile(impl, bool(got.storage_keys), bool(got.facility147),
                              got.cbrl_size or 1, got.pages or 1)  # fmt: skip
        verdicts.append(check_profile(engine, profile))
    return Classification(info, tuple(verdicts))


def report(c: Classification, out: TextIO) -> None:
    """The table: profile, matches or its first divergence."""
    announced = c.engine.profile.impl or "no Impl"
    print(f"engine {c.engine.name} (announces {announced})", file=out)
    first = c.verdicts[0].profile if c.verdicts else None
    if first is not None:
        print(f"constants: StorageKeys {first.storage_keys}, Facility147 {first.facility147}, "
              f"CBRLSize {first.cbrl_size}, Pages {first.pages}", file=out)  # fmt: skip
    header = ("profile", "verdict", "sequence", "step", "request", "expected", "observed")
    rows = []
    for v in c.verdicts:
        d = v.divergence
        if v.skipped:
            rows.append((v.profile.impl, "skipped: " + v.skipped, "", "", "", "", ""))
        elif d is None:
            rows.append((v.profile.impl, f"matches ({v.sequences} sequences, {v.steps} steps)",
                         "", "", "", "", ""))  # fmt: skip
        else:
            rows.append((v.profile.impl, "diverges", d.sequence, str(d.step), d.request.describe(),
                         d.expected.describe(), d.observed.describe()))  # fmt: skip
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip(), file=out)
    for v in c.verdicts:
        if v.divergence is not None and len(v.divergence.program) > 1:
            prog = "; ".join(r.describe() for r in v.divergence.program[: v.divergence.step])
            print(f"{v.profile.impl}: from a reset: {prog}", file=out)
    m = c.matched
    if len(m) == 1:
        print(f"the engine is {m[0]}", file=out)
    elif not m:
        print("the engine matches no profile", file=out)
    else:
        print(f"the engine matches {len(m)} profiles: {', '.join(m)}", file=out)


__all__ = ["FINDINGS", "Classification", "Divergence", "EngineFault", "Verdict", "check_profile",
           "classify", "report", "sequences", "tour"]  # fmt: skip
