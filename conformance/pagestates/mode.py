"""The PageStates mode of the conformance protocol (PROTOCOL.md): spec/PageStates.tla's guest
and host operations on a few pages, for :mod:`conformance.driver`.

This module is what the driver needs of the page-state machine and nothing more: the requests
(:class:`Step`), the reply the reference implementation expects (:class:`PageReply`), the rule
an engine broke (:mod:`conformance.pagestates.judge`), the tour and the hypothesis draws, the trace formats
(:mod:`conformance.pagestates.trace`, :mod:`conformance.pagestates.tla`) and the engine adapter
(:class:`PageStatesAdapter`: a PageStates engine's ``step(op, page, arg)`` behind the driver's
``step(request)``, its replies checked as the JSON-lines transport checks them).

A profile of the driver is a :class:`Connected`: the spec's :class:`~refimpl.Profile` and the
operations the engine implements (ClearDirty is optional, PROTOCOL.md). Before the hello it is
an :class:`Ask`: what the command line asks of the engine, completed by the engine's own hello.
"""

from __future__ import annotations

import argparse
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple

from hypothesis import strategies as st

from refimpl import Profile, Refused, State
from refimpl.pagestates.machine import machine as machine_of
from refimpl.pagestates.profile import NO_VALUE, UNUSED_ACCESSES, VARIANTS, ZERO, all_profiles
from refimpl.pagestates.state import Page

from ..driver import DEFAULT_DATABASE, RecordedEngine, engine_name, marker
from .engine import Engine
from ..jsonlines import JsonLinesEngine
from .judge import Verdict, claimed_state, consequence, judge
from ..protocol import (
    OPERATIONS, REFUSED, EngineFault, EngineInfo, ProfileRequest, ProtocolError, Reply,
    Unsupported, check_reply,
)  # fmt: skip
from .tla import TlcVerdict
from .trace import Trace, TraceStep

#: The value of ``machine`` the PageStates mode's traces carry (its hello has none: PROTOCOL.md).
PAGESTATES_MACHINE: Final = "PageStates"
#: The values a Write stores unless the command line names others.
DEFAULT_VALUES: Final = (0, 1, 2)


class Step(NamedTuple):
    """One request: an operation of the spec on a page (``arg``: a Write's value)."""

    op: str
    page: int
    arg: int = NO_VALUE

    def describe(self) -> str:
        return f"{self.op} {self.page}" + ("" if self.arg == NO_VALUE else f" {self.arg}")


class PageReply(NamedTuple):
    """A reply as the driver compares it: the outcome and value, the named page's two-letter
    state and change bit, and (``pages``) every page's, when known: the oracle's always, an
    engine's only in an ITF trace it recorded. ``reason`` (a refusal's) is not compared."""

    outcome: str
    value: int
    state: str
    dirty: bool
    pages: tuple[tuple[str, bool], ...] | None = None
    reason: str = ""
    #: The page the request named (its entry of ``pages`` is ``state`` and ``dirty``).
    page: int = -1

    @staticmethod
    def of(reply: Reply) -> PageReply:
        return PageReply(reply.outcome, reply.value, reply.state, reply.dirty, None, reply.reason)


class Ask(NamedTuple):
    """A profile asked of an engine: ``request`` (fields left None are the engine's choice),
    ``fallback`` for what the engine does not announce, the values a Write may store."""

    request: ProfileRequest
    fallback: ProfileRequest = ProfileRequest()
    values: tuple[int, ...] = DEFAULT_VALUES


class Connected(NamedTuple):
    """The profile a drive runs: the spec's, and the operations the engine implements."""

    profile: Profile
    ops: tuple[str, ...] = OPERATIONS


def _short(p: Profile) -> str:
    return f"{p.variant}-{'hs' if p.host_service else 'direct'}-{p.unused_access}"


def _page_text(name: str, dirty: bool) -> str:
    return name + ("*" if dirty else "")


# --------------------------------------------------------------------------- the engine adapter


class PageStatesAdapter:
    """A PageStates engine (in process or over JSON lines) as the driver drives it: ``step``
    takes a :class:`Step`, and an in-process engine's replies are checked like decoded JSON
    (an exception it raises is a fault of the engine, not a crash of the suite)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.name = engine_name(engine)
        self._checks = not isinstance(engine, JsonLinesEngine)
        #: A pipelined program, when the engine takes one (JSON lines: Drive.run).
        self.exchange = self._exchange if hasattr(engine, "exchange") else None

    def _exchange(self, programs: Iterable[Sequence[Step]]) -> Iterator[PageReply | None]:
        replies = self.engine.exchange(programs)  # type: ignore[attr-defined]
        try:
            while True:
                try:
                    reply = next(replies)  # None: a reset's
                except StopIteration:
                    return
                except EngineFault as exc:
                    _adapt_fault(exc)
                    raise
                yield None if reply is None else PageReply.of(reply)
        finally:
            replies.close()

    def _call(self, what: str, fn: Any, *args: Any) -> Any:
        if not self._checks:
            return fn(*args)
        try:
            return fn(*args)
        except (Unsupported, EngineFault):
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of the engine is reported
            raise EngineFault("crash", f"{what} raised {type(exc).__name__}: {exc}") from exc

    def hello(self, request: ProfileRequest) -> EngineInfo:
        info = self._call("hello", self.engine.hello, request)
        if not isinstance(info, EngineInfo):
            raise EngineFault("protocol", f"hello returned {info!r}, not an EngineInfo")
        return info

    def reset(self) -> None:
        self._call("reset", self.engine.reset)

    def step(self, request: Step) -> PageReply:
        try:
            reply = self._call("step", self.engine.step, *request)
        except EngineFault as exc:
            _adapt_fault(exc)
            raise
        if self._checks:
            try:
                reply = check_reply(request.op, reply)
            except ProtocolError as exc:
                raise EngineFault("protocol", str(exc)) from None
        return PageReply.of(reply)

    def close(self) -> None:
        self.engine.close()


def _adapt_fault(exc: EngineFault) -> None:
    """The reply a fault carries (extra output after it), in the driver's terms."""
    if exc.reply is not None and not isinstance(exc.reply, PageReply):
        exc.reply = PageReply.of(exc.reply)


def adapter(engine: Any) -> Any:
    """``engine`` behind the adapter; a recorded trace (``validate``) already answers in the
    driver's terms."""
    if isinstance(engine, (PageStatesAdapter, RecordedEngine)):
        return engine
    return PageStatesAdapter(engine)


# --------------------------------------------------------------------------- the driver's view


def _step(c: Connected, s: State, r: Step) -> State | Refused:
    return machine_of(c.profile).step(s, r.op, r.page, r.arg)


def _expected(s: State, r: Step, result: State | Refused) -> tuple[State, PageReply]:
    if isinstance(result, Refused):
        pg = s.pages[r.page]
        pages = tuple((q.name, q.dirty) for q in s.pages)
        return s, PageReply(REFUSED, NO_VALUE, pg.name, pg.dirty, pages, result.reason, r.page)
    pg, lo = result.pages[r.page], result.lastOp
    pages = tuple((q.name, q.dirty) for q in result.pages)
    return result, PageReply(lo.outcome, lo.value, pg.name, pg.dirty, pages, "", r.page)


def _claimed(c: Connected, s: State, r: Step, observed: PageReply) -> State:
    """Every page after a step as the engine has them: the oracle's where it agreed, else the
    state the engine claims (:func:`conformance.pagestates.judge.claimed_state`), else the state before
    with the engine's page."""
    result = _step(c, s, r)
    after, expected = _expected(s, r, result)
    if not PAGESTATES_DRIVER.differences(expected, observed):
        return after
    claimed = claimed_state(s, r.op, r.page, r.arg, result, _reply(observed))
    if claimed is not None:
        return claimed
    pg = s.pages[r.page]
    mine = pg._replace(usage=observed.state[0], resid=observed.state[1], dirty=observed.dirty)
    return s._replace(pages=s.pages[: r.page] + (mine,) + s.pages[r.page + 1 :])


def _reply(r: PageReply) -> Reply:
    return Reply(r.state, r.dirty, r.outcome, r.value, r.reason)


def _verdict(c: Connected, s: State, r: Step, observed: PageReply) -> Verdict:
    return judge(c.profile, s, r.op, r.page, r.arg, _step(c, s, r), _reply(observed))


def _other_page(c: Connected, s: State, r: Step, observed: PageReply) -> str:
    """The page a step changed without naming it, as an ITF trace shows it; "" if none."""
    if observed.pages is None:
        return ""
    after, expected = _expected(s, r, _step(c, s, r))
    assert expected.pages is not None
    for q, (seen, spec) in enumerate(zip(observed.pages, expected.pages)):
        if q != r.page and seen != spec:
            return (f"{r.describe()} changed page {q}, which it does not name: the trace shows "
                    f"{_page_text(*seen)}, the spec {_page_text(*spec)} (every action of the spec "
                    "changes only the page it names)")  # fmt: skip
    return ""


#: How the weighted draws (:meth:`PageStatesDriver.programs`) weigh an allowed step: a
#: transition (page state, request) the program has not taken yet, a move it has taken, and
#: (weight 1) a step that changes nothing. Deep states (a dirty preserved P page, a discarded
#: page made stable again) take many moves, and a uniform mix keeps falling back to the
#: logically zero states.
NEW_WEIGHT: Final = 6
MOVE_WEIGHT: Final = 2
#: One draw in REFUSED_ODDS is a request the spec refuses (once per page state): the engine
#: must refuse it and change nothing.
REFUSED_ODDS: Final = 5


class PageStatesDriver:
    """The PageStates mode for :mod:`conformance.driver`."""

    name = PAGESTATES_MACHINE
    spec = "spec/PageStates.tla"
    #: The driver's ddmin shrinks the drawn programs (they are drawn step by step from the
    #: oracle, so hypothesis's own shrinker, which rewrites the draws, takes minutes).
    shrink_programs = True

    #: Hypothesis sizes of ``--profile quick|thorough``: examples, steps per example.
    sizes: dict[str, tuple[int, int]] = {"quick": (100, 100), "thorough": (2000, 200)}
    #: Where hypothesis keeps failing examples unless ``--no-database`` (replayed first).
    database: Path | None = DEFAULT_DATABASE
    mutant_header: tuple[str, ...] = ("breaks", "rule named")

    # ------------------------------------------------------------------ the command line

    def speaks(self, args: argparse.Namespace) -> bool:
        """The default mode: ``run`` without ``--machine`` drives an engine in it first, and
        guesses only the others."""
        return False

    def add_options(self, parser: argparse.ArgumentParser, engine: bool = True) -> None:
        g = parser.add_argument_group(
            "PageStates profile", "asked of the engine, and used where it announces none" if engine
            else "used where the trace's header names none")  # fmt: skip
        g.add_argument("--variant", choices=VARIANTS, help="Variant: the machine")
        service = g.add_mutually_exclusive_group()
        service.add_argument("--host-service", dest="host_service", action="store_true",
                             default=None, help="HostService = TRUE")  # fmt: skip
        service.add_argument("--direct", dest="host_service", action="store_false",
                             help="HostService = FALSE")  # fmt: skip
        g.add_argument("--unused-access", choices=UNUSED_ACCESSES,
                       help="UnusedAccess: what an access to an unused page does")
        g.add_argument("--values", type=_values, default=DEFAULT_VALUES,
                       help="the values a Write may store, comma-separated, with 0 "
                       "(default: 0,1,2)")  # fmt: skip
        if engine:
            g.add_argument("--all-profiles", action="store_true",
                           help="ask the engine for every profile the spec allows; skip those "
                           "it does not run")  # fmt: skip

    def engine(self, args: argparse.Namespace) -> PageStatesAdapter:
        """The engine the command line names; raises ValueError."""
        if args.engine is not None:
            return PageStatesAdapter(JsonLinesEngine(args.engine, timeout=args.timeout,
                                                     window=args.window))
        from ..driver import load_class

        loaded = load_class(args.engine_class)
        if not isinstance(loaded, Engine):
            raise ValueError(f"{args.engine_class} is not an engine: it needs hello, reset, "
                             "step and close")  # fmt: skip
        return PageStatesAdapter(loaded)

    def profiles_of(self, args: argparse.Namespace, engine: Any) -> tuple[list[Ask], str]:
        """The profile the command line asks for (the engine completes it), or with
        ``--all-profiles`` every profile the spec allows."""
        asked = _request(args)
        if not args.all_profiles:
            return [Ask(asked, asked, args.values)], f"asking the engine for profile {asked.describe()}"
        every = all_profiles(pages=args.pages or 2)
        return ([Ask(ProfileRequest.of(p).merged(asked), asked, args.values) for p in every],
                f"{len(every)} profiles")  # fmt: skip

    def read_trace(self, path: Path, args: argparse.Namespace
                   ) -> tuple[Connected, list[Step], list[PageReply]]:  # fmt: skip
        return read_recorded(path, _request(args), args.values)

    def trace_module(self, profile: Connected, steps: Sequence[tuple[Step, PageReply]]
                     ) -> tuple[str, str]:  # fmt: skip
        from .tla import config_text, module_text

        trace = trace_of(profile, steps)
        return module_text(trace), config_text(trace)

    def check_with_tlc(self, profile: Connected, steps: Sequence[tuple[Step, PageReply]],
                       directory: Path | None = None) -> TlcVerdict:  # fmt: skip
        from .tla import check_with_tlc

        return check_with_tlc(trace_of(profile, steps), directory=directory)

    def mutants(self) -> list[type]:
        from .mutants import MUTANTS

        return list(MUTANTS)

    def mutant_profiles(self, mutant: Any) -> list[Ask]:
        return [Ask(ProfileRequest())]

    def kills(self, mutant: Any, outcome: Any) -> bool:
        """Killed: a divergence naming the rule the mutant breaks."""
        return bool(outcome.status == "diverged" and rule_name(outcome.error) in mutant.rules())

    def mutant_row(self, mutant: Any, outcome: Any) -> tuple[str, ...]:
        named = rule_name(outcome.error) if outcome.status == "diverged" else "-"
        return mutant.rules()[0], named

    # ------------------------------------------------------------------ the driver

    def adapt(self, engine: Any) -> Any:
        return adapter(engine)

    def init(self, profile: Connected) -> State:
        return machine_of(profile.profile).init()

    def oracle(self, profile: Connected, s: State, request: Step) -> tuple[State, PageReply]:
        return _expected(s, request, _step(profile, s, request))

    def differences(self, expected: PageReply, observed: PageReply) -> list[str]:
        out = []
        if expected.outcome != observed.outcome:
            out.append("outcome")
        elif expected.outcome == "Value" and expected.value != observed.value:
            out.append("value")
        if expected.state != observed.state:
            out.append("state")
        if expected.dirty != observed.dirty:
            out.append("dirty")
        if observed.pages is not None and expected.pages is not None:
            out += [f"pages[{q}]" for q, (a, b) in enumerate(zip(expected.pages, observed.pages))
                    if a != b and q != expected.page]  # fmt: skip
        return out

    def rule(self, profile: Connected, s: State, request: Step, observed: PageReply | None) -> str:
        """The rule broken (:func:`conformance.pagestates.judge.judge`): ``Name: explanation``."""
        if observed is None:
            return ""
        other = _other_page(profile, s, request, observed)
        if other and not self.differences(*_drop_pages(self.oracle(profile, s, request)[1],
                                                       observed)):  # fmt: skip
            return f"OtherPage: {other}"
        return _verdict(profile, s, request, observed).headline

    def explain(self, profile: Connected, steps: Sequence[Any]) -> list[str]:
        """The lines of a divergence report under its first: the rule broken and its kind,
        the other properties it breaks, the differing fields and what the departure leads to."""
        last = steps[-1]
        if last.rule.startswith("OtherPage: "):
            return [f"rule broken: {last.rule}"]
        v = _verdict(profile, last.before, last.request, last.observed)
        kind = {"property": "property", "action": "spec action", "variant": "variant"}[v.kind]
        lines = [f"rule broken ({kind}): {v.headline}"]
        if len(v.properties) > 1:
            lines.append(f"also broken: {', '.join(v.properties[1:])}")
        if v.kind != "action":  # an action's explanation already lists the differences
            lines += [f"  {d}" for d in v.differences]
        if not v.properties and v.claimed is not None:
            after = consequence(profile.profile, v.claimed, last.request.page)
            if after:
                lines.append(f"consequence: {after}")
        return lines

    def short_name(self, profile: Connected | Ask) -> str:
        if isinstance(profile, Ask):
            return profile.request.describe()
        return _short(profile.profile)

    def describe(self, profile: Connected | Ask) -> str:
        if isinstance(profile, Ask):
            return profile.request.describe()
        return profile.profile.describe()

    def show_request(self, request: Step) -> str:
        return request.describe()

    def show_reply(self, reply: PageReply, marked: Sequence[str] = ()) -> str:
        m = marker(marked)
        head = reply.outcome + m("outcome")
        if reply.outcome == "Value":
            head = f"Value {reply.value}{m('value')}{m('outcome')}"
        page = "!" if m("state") or m("dirty") else ""  # the page's state: Pz* is one field
        text = f"{head}, {_page_text(reply.state, reply.dirty)}{page}"
        others = [f"page {q} {_page_text(*pg)}!" for q, pg in enumerate(reply.pages or ())
                  if f"pages[{q}]" in marked]  # fmt: skip
        return "; ".join([text, *others])

    def show_state(self, profile: Connected, s: State) -> str:
        """Every page before a step (the report's ``before`` column): ``Sr* Vz``."""
        return " ".join(_page_text(pg.name, pg.dirty) for pg in s.pages)

    def trace_header(self, profile: Connected) -> dict[str, Any]:
        from ..protocol import VERSION

        return {"version": VERSION, "machine": PAGESTATES_MACHINE,
                "profile": ProfileRequest.of(profile.profile).to_json()}  # fmt: skip

    def trace_line(self, request: Step, reply: PageReply) -> dict[str, Any]:
        out: dict[str, Any] = {"op": request.op, "page": request.page}
        if request.arg != NO_VALUE:
            out["arg"] = request.arg
        out["outcome"] = reply.outcome
        if reply.value != NO_VALUE:
            out["value"] = reply.value
        out["state"], out["dirty"] = reply.state, reply.dirty
        return out

    def itf_state(self, profile: Connected, before: State, request: Step | None,
                  reply: PageReply | None) -> dict[str, Any]:  # fmt: skip
        """The spec's variables after the step (Init for None): the pages as the engine has
        them, the oracle's ghost variables (``data``, ``intended``, ``modified``) beside."""
        if request is None or reply is None:
            s, last = before, before.lastOp._asdict()
        else:
            s = _claimed(profile, before, request, reply)
            last = {"op": request.op, "page": request.page, "arg": request.arg,
                    "outcome": reply.outcome, "value": reply.value}  # fmt: skip
        out: dict[str, Any] = {
            name: {q: getattr(pg, attr) for q, pg in enumerate(s.pages)}
            for name, attr in (("usage", "usage"), ("resid", "resid"), ("dirty", "dirty"),
                               ("data", "data"), ("intended", "intended"),
                               ("modified", "modified"))  # fmt: skip
        }
        out["lastOp"] = last
        return out

    def ask_for(self, recorded: Connected) -> Ask:
        """What a hello asks for to run a recorded trace's profile again (``validate
        --engine``): every field of it."""
        return Ask(ProfileRequest.of(recorded.profile), values=recorded.profile.values)

    def connect(self, engine: Any, ask: Ask) -> tuple[str, Connected]:
        """Say hello asking for ``ask``; the engine's name and the profile of the drive (the
        engine's announcement, completed from the ask). Raises Unsupported, EngineFault, or
        ProfileError when neither says a field."""
        info = adapter(engine).hello(ask.request)
        conflicts = ask.request.conflicts(info.profile)
        if conflicts:
            raise Unsupported(f"{info.name} runs {info.profile.describe()} where "
                              f"{ask.request.describe()} was asked ({'; '.join(conflicts)})")  # fmt: skip
        profile = info.profile.merged(ask.request).merged(ask.fallback).complete(ask.values)
        return info.name, Connected(profile, tuple(info.ops))

    def requests(self, profile: Connected) -> list[Step]:
        """Every request on every page, among the operations the engine implements."""
        p = profile.profile
        return [Step(op, page, arg) for page in range(p.pages) for op in OPERATIONS
                if op in profile.ops
                for arg in (p.values if op == "Write" else (NO_VALUE,))]  # fmt: skip

    def tours(self, profile: Connected, page: int = 0) -> Iterator[tuple[str, list[Step]]]:
        """Every transition of the spec on ``page`` (the other pages stay in Init): for each
        state of the page reachable from Init, a shortest program reaching it followed by each
        request the engine implements (enabled or not)."""
        m = machine_of(profile.profile)
        init = m.init()
        paths: dict[Page, list[Step]] = {init.pages[page]: []}
        queue: deque[tuple[Page, State]] = deque([(init.pages[page], init)])
        while queue:
            pg, state = queue.popleft()
            for (op, p, arg), nxt in m.enabled_steps(state):
                if p == page and op in profile.ops and nxt.pages[page] not in paths:
                    paths[nxt.pages[page]] = paths[pg] + [Step(op, p, arg)]
                    queue.append((nxt.pages[page], nxt))
        mine = [r for r in self.requests(profile) if r.page == page]
        for pg, path in paths.items():
            for r in mine:
                yield f"tour from {'; '.join(x.describe() for x in path) or 'reset'}", path + [r]

    def programs(self, profile: Connected, max_steps: int) -> st.SearchStrategy[list[Step]]:
        """Request sequences drawn step by step from what the oracle allows in the state
        reached (weighted: :data:`NEW_WEIGHT`), with now and then a request it refuses, so
        every draw is meaningful and nothing is filtered. The choices come from a random
        generator hypothesis draws (its seed is the example): hypothesis's own integers favour
        small numbers, which here means the first request allowed, and four-step bugs survived
        100 examples (UnusedLeaksContent, seed 3). The driver's ddmin shrinks what fails. A
        program has at least half of ``max_steps``: the deep states need many moves."""
        m = machine_of(profile.profile)
        every = self.requests(profile)
        implemented = frozenset(every)

        @st.composite
        def draw(pick: st.DrawFn) -> list[Step]:
            s, out = m.init(), []
            taken: set[tuple[Page, Step]] = set()
            probed: set[Page] = set()
            rng = pick(st.randoms(use_true_random=False))
            for _ in range(pick(st.integers(max(1, max_steps // 2), max_steps))):
                moves = [(Step(*r), t) for r, t in m.enabled_steps(s) if Step(*r) in implemented]
                enabled = {r for r, _ in moves}
                refused = [r for r in every if r not in enabled and s.pages[r.page] not in probed]
                if refused and rng.randrange(REFUSED_ODDS) == 0:
                    r = rng.choice(refused)
                    probed.add(s.pages[r.page])
                    out.append(r)
                    continue
                weighted: list[tuple[Step, State]] = []
                for r, t in moves:
                    before = s.pages[r.page]
                    w = (NEW_WEIGHT if (before, r) not in taken
                         else 1 if t.pages[r.page] == before else MOVE_WEIGHT)  # fmt: skip
                    weighted += [(r, t)] * w
                r, s2 = rng.choice(weighted)
                taken.add((s.pages[r.page], r))
                out.append(r)
                s = s2
            return out

        return draw()

    def simpler(self, program: list[Step]) -> Iterator[list[Step]]:
        """Candidates the shrinker tries once no step can be removed: the pages renumbered in
        order of use (the spec treats pages alike, D20), and each Write's value made simpler,
        1 before 2 and 0 last (a page holding 0 looks like a zero page)."""
        order: dict[int, int] = {}
        for r in program:
            order.setdefault(r.page, len(order))
        yield [r._replace(page=order[r.page]) for r in program]
        for i, r in enumerate(program):
            if r.op == "Write":
                for v in (1, 2, ZERO):
                    if (v == 0, v) < (r.arg == 0, r.arg):
                        yield program[:i] + [r._replace(arg=v)] + program[i + 1 :]


#: The PageStates mode of the driver.
PAGESTATES_DRIVER: Final = PageStatesDriver()


def rule_name(error: Any) -> str:
    """The name of the rule a divergence broke (a property, a spec action, HasState)."""
    return str(error.steps[-1].rule.partition(":")[0])


def _request(args: argparse.Namespace) -> ProfileRequest:
    return ProfileRequest(args.variant, args.host_service, args.unused_access, args.pages)


def _values(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None
    if 0 not in values or any(v < 0 for v in values) or len(set(values)) != len(values):
        raise argparse.ArgumentTypeError("values must include 0, be non-negative and distinct")
    return values


def _drop_pages(expected: PageReply, observed: PageReply) -> tuple[PageReply, PageReply]:
    return expected._replace(pages=None), observed._replace(pages=None)


# --------------------------------------------------------------------------- traces


def trace_of(profile: Connected, steps: Sequence[tuple[Step, PageReply]]) -> Trace:
    """The recorded steps as a :class:`~conformance.pagestates.trace.Trace` (for the TLA+ module)."""
    out = []
    for r, reply in steps:
        seen = ({q: pg for q, pg in enumerate(reply.pages)} if reply.pages is not None
                else {r.page: (reply.state, reply.dirty)})  # fmt: skip
        out.append(TraceStep(r.op, r.page, r.arg, reply.outcome, reply.value, seen))
    return Trace(profile.profile, out)


def read_recorded(path: Path, fallback: ProfileRequest, values: tuple[int, ...]
                  ) -> tuple[Connected, list[Step], list[PageReply]]:  # fmt: skip
    """A trace an engine recorded (JSON lines or ITF, :func:`conformance.pagestates.trace.read_trace`):
    the profile, the requests and the replies (an ITF trace's with every page). Raises
    TraceFormatError."""
    from .trace import read_trace

    trace = read_trace(path, fallback, values)
    profile = Connected(trace.profile)
    requests = [Step(s.op, s.page, s.arg) for s in trace.steps]
    replies = []
    for s in trace.steps:
        pages = (tuple(s.seen[q] for q in range(trace.profile.pages))
                 if len(s.seen) == trace.profile.pages and trace.profile.pages > 1 else None)  # fmt: skip
        replies.append(PageReply(s.outcome, s.value, s.state, s.dirty, pages, "", s.page))
    return profile, requests, replies
