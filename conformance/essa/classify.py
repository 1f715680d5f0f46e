"""Which ESSA implementation does an engine match? ``python -m conformance classify``.

For every constant set the command line leaves open (each combination of the constants of
:data:`refimpl.essa.CONSTANTS` but those of :data:`refimpl.essa.profile.IDENTITY`), the engine is
asked for the profile (without an Impl or Bugs), and each Impl, and KVMGmap before each 2026 fix
(each value of Bugs), is a candidate (the other Impls only where the new gmap's own constants
are at their defaults, which they ignore: :func:`candidates`): the engine is driven, beside the reference
implementation of the candidate, through a fixed, deterministic set of request sequences, each
from a reset (:func:`sequences`):

1. the shortest counterexamples of docs/findings.md F1-F4 at the instruction level (each
   followed by ORC 0 and a Read of page 0, to look at the page);
2. the tour of every page (every transition of the one-page machine on that page), and with two
   pages and room for two CBRL entries the queue tour (:func:`conformance.essa.tours`).

A candidate matches when no reply differs under any constant set; the engine is identified as X
when X alone matches ("KVMGmap with bug StickyZero", named with its fix). That is not a conformance verdict (hypothesis never ran): ``run --machine
ESSA --impl X`` gives one, and the report says so. The documented points where the reference
engines part (tests/test_conformance_essa.py): Paper2007 and the KVMs at step 1 of F1-classic
(ESSA ORC 3 on a page in its initial state: the 2007 model reports content 3 and queues nothing;
KVM reports 2 and sets Z), KVMClassic and KVMGmap at step 2 of F1-gmap (ORC 0 clears Z under gmap
only).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, Final, NamedTuple, TextIO

from refimpl.core.constants import combinations
from tlcrunner import ci_formats, usage
from refimpl.essa import CONSTANTS, IMPLS, EssaProfile
from refimpl.essa.profile import BUG_FIXES, GMAP_ONLY, IDENTITY, folded, profiles

from ..driver import Divergence, Drive, Fault, run_programs
from ..driver import report as fault_text
from ..search import scope
from ..exits import EXIT_DIVERGED, EXIT_FAULT, EXIT_NOTHING, EXIT_OK, EXIT_USAGE
from .cli import add_profile_options, essa_engine, essa_request_of
from .mode import ESSA_DRIVER, _conflict
from .protocol import (
    NONE, PAGELESS_OPS, EssaEngine, EssaEngineInfo, EssaProfileRequest, EssaReply, EssaRequest,
    queue_tour, tour,
)  # fmt: skip
from ..protocol import EngineFault, Unsupported

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
    #: the candidate run for this one (its reference graph is this one's,
    #: refimpl.essa.profile.FOLDS): the verdict is that one's, at no step
    stand_in: EssaProfile | None = None

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


def candidate(profile: EssaProfile) -> str:
    """A candidate in words: ``KVMClassic``, ``KVMGmap with bug StickyZero``."""
    if not profile.bugs:
        return profile.impl
    return f"{profile.impl} with bug{'s' if len(profile.bugs) > 1 else ''} {', '.join(sorted(profile.bugs))}"


def candidate_fixes(name: str, profile: EssaProfile) -> str:
    """``name`` with the fix of each bug: ``KVMGmap with bug StickyZero (fixed by '...')``."""
    if not profile.bugs:
        return name
    return name + " (fixed by " + "; ".join(f"'{BUG_FIXES[b]}'" for b in sorted(profile.bugs)) + ")"


class Classification(NamedTuple):
    engine: EssaEngineInfo
    verdicts: tuple[Verdict, ...]

    @property
    def matched(self) -> tuple[str, ...]:
        """The candidates (Impl, and Bugs) that match under every constant set the engine ran."""
        ran = [v for v in self.verdicts if not v.skipped]
        names = list(dict.fromkeys(candidate(v.profile) for v in ran))
        return tuple(n for n in names if all(v.matches for v in ran if candidate(v.profile) == n))

    @property
    def identified(self) -> str | None:
        return self.matched[0] if len(self.matched) == 1 else None

    @property
    def identified_impl(self) -> str | None:
        """The Impl of the candidate identified (the one ``run --impl`` takes)."""
        m = self.identified
        return None if m is None else m.split()[0]

    @property
    def bugs_option(self) -> str:
        """`` --bugs X`` for the candidate identified, if it has bugs (else empty)."""
        m = self.identified
        profile = next((v.profile for v in self.verdicts if candidate(v.profile) == m), None)
        if profile is None or not profile.bugs:
            return ""
        return f" --bugs {','.join(sorted(profile.bugs))}"

    def described(self, name: str) -> str:
        """A matched candidate with the fix of each of its bugs."""
        profile = next(v.profile for v in self.verdicts if candidate(v.profile) == name)
        return candidate_fixes(name, profile)


def candidates(fields: dict[str, object], pages: int, impls: tuple[str, ...],
               fixed: Collection[str] = ()) -> list[EssaProfile]:  # fmt: skip
    """The candidate profiles of one asked constant set: every value of :data:`IDENTITY` (each
    Impl of ``impls``; KVMGmap fixed and before each fix). An Impl other than KVMGmap is a
    candidate only where the constants of the new gmap alone (:data:`GMAP_ONLY`) are at their
    defaults, unless the command line ``fixed`` them: its replies do not depend on them, so the
    other values would repeat it (D165)."""
    found = [p for p in profiles(dict(fields), pages) if p.impl in impls]
    return [p for p in found if p.gmap or all(
        getattr(p, a) == _DEFAULTS[a] or a in fixed for a in GMAP_ONLY)]  # fmt: skip


_DEFAULTS: Final = {c.attr: c.domain[0] for c in CONSTANTS}


def classify(engine: EssaEngine, request: EssaProfileRequest = EssaProfileRequest(),
             impls: tuple[str, ...] = IMPLS, fold: bool = False,
             known: Mapping[EssaProfile, Verdict] | None = None,
             always: Collection[EssaProfile] = ()) -> Classification:  # fmt: skip
    """Classify ``engine`` against each candidate (each Impl of ``impls``, and KVMGmap before
    each fix) under every constant set ``request`` leaves open (its Impl and Bugs are ignored),
    on ``request.pages`` pages (default 2). ``fold``: a candidate whose reference graph one
    checked already has (refimpl.essa.profile.FOLDS) takes that one's verdict, unrun (a
    constant set whose every candidate does gets no hello). Raises Fault (or EngineFault at a
    hello) when the engine breaks the protocol. ``known``: verdicts of candidates checked
    before, on this engine, that a folded candidate may take (a run split by constant set);
    ``always``: candidates checked even so."""
    pages = request.pages or DEFAULT_PAGES
    fixed = request.without(*IDENTITY, "pages").fields
    asked_constants = tuple(c for c in CONSTANTS if c.attr not in IDENTITY)
    verdicts: list[Verdict] = []
    done: dict[EssaProfile, Verdict] = dict(known or {})  # the candidates checked
    info = EssaEngineInfo("engine", EssaProfileRequest())

    def as_stand_in(p: EssaProfile) -> Verdict | None:
        """``p``'s verdict as its stand-in's, when one whose graph is its own was checked."""
        stand_in = folded(p)[0]
        v = done.get(stand_in) if fold and stand_in != p and p not in always else None
        return None if v is None else v._replace(profile=p, sequences=0, steps=0,
                                                 stand_in=stand_in)  # fmt: skip

    for fields in combinations(asked_constants, fixed):
        asked = EssaProfileRequest(**fields, pages=pages)
        # A candidate's profile: the asked constants, and its own Impl and Bugs.
        cands = candidates(fields, pages, impls, fixed)
        if not cands:
            continue
        copied = [as_stand_in(p) for p in cands]
        if all(v is not None for v in copied):  # every candidate run already: no hello
            verdicts += [v for v in copied if v is not None]
            continue
        try:
            info = engine.hello(asked)
        except Unsupported as exc:
            verdicts += [Verdict(p, 0, 0, skipped=str(exc)) for p in cands]
            continue
        conflicts = asked.conflicts(info.profile)
        # An announced Impl or Bugs is not evidence: classify finds them out by behaviour.
        for profile in cands:
            if conflicts:
                verdicts.append(Verdict(profile, 0, 0, skipped="the engine announces " + ", ".join(
                    _conflict(a, info.profile, asked) for a in conflicts)))  # fmt: skip
            elif (v := as_stand_in(profile)) is not None:
                verdicts.append(v)
            else:
                verdicts.append(done.setdefault(profile, check_profile(engine, profile)))
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
        elif v.stand_in is not None:
            rows.append((name, f"{'matches' if d is None else 'diverges'} as "
                         f"{ESSA_DRIVER.short_name(v.stand_in)} (the same reference graph)",
                         *((d.sequence, str(d.step), d.request.describe(),
                            ESSA_DRIVER.show_reply(d.expected), ESSA_DRIVER.show_reply(d.observed))
                           if d is not None else ("", "", "", "", ""))))  # fmt: skip
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
        print(f"identified as {c.described(m)}: it gave the replies of {m} in every sequence, "
              "and each other candidate's diverged", file=out)  # fmt: skip
        print("This is not a conformance verdict (no random exploration ran). For one: "
              f"python -m conformance run --machine ESSA --impl {c.identified_impl}"
              f"{c.bugs_option} {command}",
              file=out)  # fmt: skip
    elif not c.matched:
        print("not identified: the engine matches no candidate under every constant set",
              file=out)  # fmt: skip
    else:
        print(f"not identified: the engine matches {len(c.matched)} candidates: "
              f"{', '.join(c.matched)}", file=out)  # fmt: skip


def fold_names(folds: Sequence[Verdict]) -> str:
    """The folds (refimpl.essa.profile.FOLDS) that made ``folds`` run as others, by name."""
    return ", ".join(dict.fromkeys(f.name for v in folds for f in folded(v.profile)[1]))


def summary_line(c: Classification, seconds: float) -> str:
    """The one line classify ends with: the verdict, the profiles checked, the steps, the
    distinct divergences (the same request diverging in the same fields under several constant
    sets counts once per candidate) and the first of them."""
    ran = [v for v in c.verdicts if not v.skipped]
    skipped = len(c.verdicts) - len(ran)
    m = c.identified
    verdict = (f"identified as {m}" if m is not None
               else "nothing checked" if not ran
               else "not identified" if not c.matched
               else f"not identified ({len(c.matched)} candidates match)")  # fmt: skip
    seen: dict[tuple[object, ...], Verdict] = {}
    for v in ran:
        d = v.divergence
        if d is not None:
            seen.setdefault((candidate(v.profile), d.request, tuple(d.expected.differences(
                d.observed))), v)  # fmt: skip
    folds = [v for v in ran if v.stand_in is not None]
    notes = ([f"{skipped} skipped"] if skipped else []) + (
        [f"{len(folds)} as another whose reference graph is theirs: {fold_names(folds)}"]
        if folds else [])  # fmt: skip
    text = (f"SUMMARY: {verdict}: {len(ran)} candidate profiles checked"
            + (f" ({', '.join(notes)})" if notes else "")
            + f", {sum(v.steps for v in c.verdicts):,} steps in {seconds:.1f} s, {len(seen)} "
            f"distinct divergence{'s' if len(seen) != 1 else ''}"
            + (" (of the other candidates)" if m is not None and seen else ""))  # fmt: skip
    near = nearest(c)
    if near is not None:
        name, v = near
        d = v.divergence
        assert d is not None
        diverging = sum(1 for u in ran if candidate(u.profile) == name and u.divergence)
        under = sum(1 for u in ran if candidate(u.profile) == name)
        text += (f"; nearest {'other ' if m is not None else ''}candidate: {name} (diverges under "
                 f"{diverging} of its {under} constant sets), first departs at "
                 f"{ESSA_DRIVER.short_name(v.profile)} {d.sequence} step {d.step} "
                 f"({d.request.describe()}): "
                 f"{', '.join(d.expected.differences(d.observed))} differ")  # fmt: skip
    return text + "; " + scope([v.profile for v in ran], more="--pages 3")


def nearest(c: Classification) -> tuple[str, Verdict] | None:
    """The candidate not matched that comes nearest the engine, and its first departure: the
    fewest constant sets it diverges under, then the latest first departure (the most steps the
    engine answered as it does before its first divergence); None when every candidate that ran
    matches. Table order breaks the remaining ties."""
    ran = [v for v in c.verdicts if not v.skipped]
    by_name: dict[str, list[Verdict]] = {}
    for v in ran:
        by_name.setdefault(candidate(v.profile), []).append(v)
    best: tuple[tuple[int, int], str, Verdict] | None = None
    for name, vs in by_name.items():
        diverged = [v for v in vs if v.divergence is not None]
        if not diverged:
            continue
        run = [v for v in diverged if v.stand_in is None] or diverged  # a copy has no steps
        first = min(run, key=lambda v: v.steps)
        key = (len(diverged), -first.steps)
        if best is None or key < best[0]:
            best = (key, name, first)
    return None if best is None else (best[1], best[2])


__all__ = ["FINDINGS", "Classification", "Divergence1", "EngineFault", "Verdict", "check_profile",
           "classify", "nearest", "report", "sequences", "summary_line"]  # fmt: skip


# --------------------------------------------------------------------------- the command


def classify_options(p: argparse.ArgumentParser,
                     engine_options: Callable[[argparse.ArgumentParser, str], None]) -> None:  # fmt: skip
    """``classify``'s options; ``engine_options`` adds ``--engine`` and ``--engine-class``."""
    p.formatter_class = usage.Formatter
    p.epilog = """\
exit status:
  0  identified: the engine matches exactly one candidate
  1  not identified (no candidate, or several, match)
  2  bad command line
  3  engine fault: the engine broke the protocol
  4  nothing checked: the engine runs none of the constant sets"""
    engine_options(p, "an in-process ESSA engine (e.g. conformance.essa:KVMGmapEngine)")
    add_profile_options(p, impl=False)
    p.add_argument("--pages", type=int, help="number of pages (default 2)")
    ci_formats.add_options(p)


def classify_cases(c: Classification) -> list[ci_formats.Case]:
    """classify's verdict per candidate profile, for ``--junit-xml`` and ``--json``. A candidate
    that matches passes. One that diverges fails when the engine was not identified; when it
    was, the divergence is what tells the other candidates apart, so the case is skipped ("not
    this candidate"), its trace kept in the case's text."""
    cases = []
    for v in c.verdicts:
        name = ESSA_DRIVER.short_name(v.profile)
        d = v.divergence
        if v.skipped:
            cases.append(ci_formats.Case(name, "skipped", message=v.skipped))
        elif d is None:
            cases.append(ci_formats.Case(name, "passed",
                                         message=f"{v.sequences} sequences, {v.steps} steps"))
        else:
            message = (f"{candidate(v.profile)}: {d.sequence} step {d.step} "
                       f"({d.request.describe()}): "
                       f"{', '.join(d.expected.differences(d.observed))} differ")  # fmt: skip
            text = fault_text(ESSA_DRIVER, d.error, engine=c.engine.name)
            status = "skipped" if c.identified is not None else "failed"
            if status == "skipped":
                message = f"not this candidate: {message}"
            cases.append(ci_formats.Case(name, status, message=message, text=text))
    return cases


def cmd_classify(mode: Any, args: argparse.Namespace, out: TextIO, err_out: TextIO) -> int:
    """Classify an ESSA engine: exit 0 identified, 1 not identified, 3 engine fault, 4 nothing
    checked (every profile unsupported)."""
    bad_path = ci_formats.unwritable([("--junit-xml", args.junit_xml), ("--json", args.json)])
    if bad_path is not None:
        print(f"error: {bad_path}", file=err_out)
        return EXIT_USAGE
    try:
        engine = essa_engine(args)
    except ValueError as exc:
        print(f"error: {exc}", file=err_out)
        return EXIT_USAGE
    request = essa_request_of(args).merged(EssaProfileRequest(pages=args.pages))
    start = time.monotonic()
    try:
        c = classify(engine, request, fold=True)
    except Fault as exc:
        print(fault_text(mode, exc, engine=str(args.engine or args.engine_class)), file=out)
        return EXIT_FAULT
    except EngineFault as exc:
        print(f"ENGINE FAULT ({exc.kind}) at hello: {exc.message}", file=out)
        return EXIT_FAULT
    except (AttributeError, TypeError) as exc:
        if args.engine_class is None:
            raise
        print(f"error: {args.engine_class} is not an ESSA engine: {exc}", file=err_out)
        return EXIT_USAGE
    finally:
        engine.close()
    command = (f'--engine "{args.engine}"' if args.engine is not None
               else f"--engine-class {args.engine_class}")  # fmt: skip
    report(c, out, command)
    last = summary_line(c, time.monotonic() - start)
    print(last, file=out)
    code = (EXIT_NOTHING if all(v.skipped for v in c.verdicts)
            else EXIT_OK if c.identified is not None else EXIT_DIVERGED)  # fmt: skip
    ci_formats.write_from(args, "conformance classify", classify_cases(c), last, code)
    return code


#: The commands of ``python -m conformance`` that only the ESSA mode has, by name: the help
#: line, the options, the command (called with the mode, like :data:`conformance.commands.COMMANDS`).
COMMANDS: Final[dict[str, tuple[str, Callable[[argparse.ArgumentParser, Callable[[argparse.ArgumentParser, str], None]], None], Callable[[Any, argparse.Namespace, TextIO, TextIO], int]]]] = {
    "classify": ("which ESSA implementation (Impl) an ESSA engine matches; not a conformance "
                 "verdict (exit 0 identified, 1 not identified, 3 engine fault, 4 nothing "
                 "checked)", classify_options, cmd_classify),
}  # fmt: skip
