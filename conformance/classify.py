"""Which ESSA implementation does an engine match? ``python -m conformance classify``.

For every constant set the command line leaves open (each combination of StorageKeys,
Facility147 and CBRLSize, :data:`refimpl.essa.CONSTANTS`), the engine is asked for the profile
(without an Impl), and each Impl is a candidate: the engine is driven, beside the reference
implementation of the candidate, through a fixed, deterministic set of request sequences, each
from a reset (:func:`sequences`):

1. the shortest counterexamples of docs/findings.md F1-F4 at the instruction level (each
   followed by ORC 0 and a Read of page 0, to look at the page);
2. the tour of every page (every transition of the one-page machine on that page), and with two
   pages and room for two CBRL entries the queue tour (:func:`conformance.essa.tours`).

A candidate matches when no reply differs under any constant set; the engine is identified as X
when X alone matches. That is not a conformance verdict (hypothesis never ran): ``run --machine
ESSA --impl X`` gives one, and the report says so. The documented points where the reference
engines part (tests/test_conformance_essa.py): Paper2007 and the KVMs at step 1 of F1-classic
(ESSA ORC 3 on a page in its initial state: the 2007 model reports content 3 and queues nothing;
KVM reports 2 and sets Z), KVMClassic and KVMGmap at step 2 of F1-gmap (ORC 0 clears Z under gmap
only).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, NamedTuple, TextIO

from refimpl.core.constants import Constant, combinations
from refimpl.essa import CONSTANTS, IMPLS, EssaProfile

from .driver import Divergence, Drive, Fault, run_programs
from .essa import (
    ESSA_DRIVER, NONE, PAGELESS_OPS, EssaEngine, EssaEngineInfo, EssaProfileRequest, EssaReply,
    EssaRequest, queue_tour, tour,
)  # fmt: skip
from .protocol import EngineFault, Unsupported

#: Pages classify asks for unless told.
DEFAULT_PAGES: Final = 2


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


def sequences(profile: EssaProfile) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:
    """The request sequences classify runs for ``profile``: the findings, the tour of every
    page, the queue tour."""
    yield from FINDINGS.items()
    for page in range(profile.pages):
        yield from tour(profile, page)
    if profile.pages >= 2 and profile.cbrl_size >= 2:
        yield from queue_tour(profile)


class Divergence1(NamedTuple):
    """The first reply that differs from the oracle's: the sequence, the step (1-based) and its
    request, what the oracle replied and what the engine did."""

    sequence: str
    step: int
    request: EssaRequest
    expected: EssaReply
    observed: EssaReply
    program: tuple[EssaRequest, ...]
    error: Divergence


class Verdict(NamedTuple):
    """One candidate profile: matched (``divergence`` None), diverged, or skipped (``skipped``:
    the engine's reason)."""

    profile: EssaProfile
    sequences: int
    steps: int
    divergence: Divergence1 | None = None
    skipped: str = ""

    @property
    def matches(self) -> bool:
        return not self.skipped and self.divergence is None


def check_profile(engine: EssaEngine, profile: EssaProfile) -> Verdict:
    """Drive ``engine`` (already hello'd) through every sequence of ``profile``. Raises Fault."""
    drive: Drive[Any, Any, Any, Any] = Drive(ESSA_DRIVER, engine, profile)
    outcome = run_programs(drive, sequences(profile), "classify")
    if isinstance(outcome.error, Fault):
        raise outcome.error
    if isinstance(outcome.error, Divergence):
        steps = outcome.error.steps
        last = steps[-1]
        assert last.observed is not None
        # the label of a tour's sequence is "tour of page 0 from <its prefix>"
        d = Divergence1(outcome.note.split(" from ")[0], last.index, last.request,
                        last.expected, last.observed, tuple(r.request for r in steps),
                        outcome.error)  # fmt: skip
        return Verdict(profile, 0, outcome.steps, d)
    return Verdict(profile, int(outcome.note.split()[0]), outcome.steps)


class Classification(NamedTuple):
    engine: EssaEngineInfo
    verdicts: tuple[Verdict, ...]

    @property
    def matched(self) -> tuple[str, ...]:
        """The Impls that match under every constant set the engine ran."""
        ran = [v for v in self.verdicts if not v.skipped]
        impls = [i for i in IMPLS if any(v.profile.impl == i for v in ran)]
        return tuple(i for i in impls if all(v.matches for v in ran if v.profile.impl == i))

    @property
    def identified(self) -> str | None:
        return self.matched[0] if len(self.matched) == 1 else None


def _shared(c: Constant) -> bool:
    """Whether every value of ``c`` makes a profile with every Impl (the others at their first
    value): the constants classify varies. An option of one Impl (a bug of the new gmap) stays
    at its first value, since it names a variant, not a constant set to try."""
    base: dict[str, Any] = {k.attr: k.domain[0] for k in CONSTANTS}
    for impl in IMPLS:
        for v in c.domain:
            try:
                EssaProfile(**{**base, "impl": impl, c.attr: v, "pages": 1})
            except ValueError:
                return False
    return True


def classify(engine: EssaEngine, request: EssaProfileRequest = EssaProfileRequest(),
             impls: tuple[str, ...] = IMPLS) -> Classification:  # fmt: skip
    """Classify ``engine`` against each Impl of ``impls`` under every constant set ``request``
    leaves open (its Impl is ignored), on ``request.pages`` pages (default 2). Raises Fault
    (or EngineFault at a hello) when the engine breaks the protocol."""
    pages = request.pages or DEFAULT_PAGES
    fixed = request.without("impl", "pages").fields
    others = tuple(c for c in CONSTANTS if c.attr != "impl" and _shared(c))
    verdicts: list[Verdict] = []
    info = EssaEngineInfo("engine", EssaProfileRequest())
    for fields in combinations(others, fixed):
        asked = EssaProfileRequest(**fields, pages=pages)
        try:
            info = engine.hello(asked)
        except Unsupported as exc:
            verdicts += [Verdict(asked.merged(EssaProfileRequest(impl=i)).profile(pages), 0, 0,
                                 skipped=str(exc)) for i in impls]  # fmt: skip
            continue
        conflicts = asked.conflicts(info.profile)
        for impl in impls:
            try:
                profile = asked.merged(EssaProfileRequest(impl=impl)).profile(pages)
            except ValueError:  # not a profile of the spec (an option of another Impl)
                continue
            if conflicts:
                verdicts.append(Verdict(profile, 0, 0, skipped="the engine announces "
                                        f"{info.profile.to_json()}"))  # fmt: skip
            else:
                verdicts.append(check_profile(engine, profile))
    return Classification(info, tuple(verdicts))


def report(c: Classification, out: TextIO, command: str = "--engine ...") -> None:
    """The table (one row per profile: matches, or its first divergence), then the verdict."""
    announced = c.engine.profile.impl or "no Impl"
    print(f"engine {c.engine.name} (announces {announced})", file=out)
    header = ("profile", "verdict", "sequence", "step", "request", "expected", "observed")
    rows = []
    for v in c.verdicts:
        d = v.divergence
        name = ESSA_DRIVER.short_name(v.profile)
        if v.skipped:
            rows.append((name, "skipped: " + v.skipped, "", "", "", "", ""))
        elif d is None:
            rows.append((name, f"matches ({v.sequences} sequences, {v.steps} steps)",
                         "", "", "", "", ""))  # fmt: skip
        else:
            marked = d.expected.differences(d.observed)
            rows.append((name, "diverges", d.sequence, str(d.step), d.request.describe(),
                         ESSA_DRIVER.show_reply(d.expected),
                         ESSA_DRIVER.show_reply(d.observed, marked)))  # fmt: skip
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip(), file=out)
    m = c.identified
    if m is not None:
        print(f"identified as {m}: it gave the replies of {m} in every sequence, and each other "
              "Impl's diverged", file=out)  # fmt: skip
        print("This is not a conformance verdict (no random exploration ran). For one: "
              f"python -m conformance run --machine ESSA --impl {m} {command}", file=out)  # fmt: skip
    elif not c.matched:
        print("not identified: the engine matches no Impl under every constant set", file=out)
    else:
        print(f"not identified: the engine matches {len(c.matched)} Impls: "
              f"{', '.join(c.matched)}", file=out)  # fmt: skip


__all__ = ["FINDINGS", "Classification", "Divergence1", "EngineFault", "Verdict", "check_profile",
           "classify", "report", "sequences"]  # fmt: skip
