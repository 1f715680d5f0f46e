"""Running the suite against one engine under one profile: the handshake, then the drives.

:func:`connect` says hello and opens a :class:`~conformance.session.Session` (or raises
:class:`~conformance.protocol.Unsupported` when the engine does not run the profile asked for).
Three drives share the session's checks:

* :func:`run_hypothesis`: the hypothesis state machine (:mod:`conformance.stateful`), which
  shrinks a divergence to a minimal sequence and keeps it in the example database;
* :func:`run_tour`: a deterministic tour of every transition of the spec on one page (each page
  state reachable, each request from it, by a shortest path), a fixed regression check;
* :func:`run_walk`: a seeded random walk at full speed, with a divergence shrunk by delta
  debugging (a soak test; it measures the engine's pace, not hypothesis's).

Each returns an :class:`Outcome`; a divergence or fault is in ``outcome.error``.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis import settings as Settings
from hypothesis.errors import Flaky
from hypothesis.stateful import run_state_machine_as_test

from refimpl import Machine, Profile, ProfileError, State
from refimpl.pagestates.profile import NO_VALUE
from refimpl.pagestates.state import Page

from .engine import Engine
from .protocol import OPERATIONS, EngineFault, EngineInfo, ProfileRequest, Unsupported
from .session import DivergenceError, EngineFaultError, Session, checked
from .stateful import Progress, StopRun, state_machine

Request = tuple[str, int, int]
DEFAULT_VALUES = (0, 1, 2)


@dataclass
class Outcome:
    """What one drive found. ``status``: passed, diverged, fault, flaky."""

    status: str
    drive: str
    profile: Profile
    engine: str
    steps: int
    seconds: float
    error: DivergenceError | EngineFaultError | None = None
    note: str = ""
    #: steps the engine performed until the divergence was found (before shrinking replays)
    found_after: int | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def connect(
    engine: Engine,
    request: ProfileRequest,
    *,
    fallback: ProfileRequest = ProfileRequest(),
    values: tuple[int, ...] = DEFAULT_VALUES,
) -> Session:
    """Say hello. ``request`` is asked of the engine; ``fallback`` fills what the engine does
    not announce (the command line's --variant etc. for an engine that names no profile).

    Raises Unsupported (a skip), EngineFaultError (a broken hello) or ProfileError."""
    engine = checked(engine)
    try:
        info = engine.hello(request)
    except EngineFault as fault:
        raise EngineFaultError(None, [], "hello", fault) from None
    announced = info.profile
    conflicts = request.conflicts(announced)
    if conflicts:
        # The engine runs something else than was asked: it cannot run what was asked.
        raise Unsupported(
            f"{info.name} runs {announced.describe()} where {request.describe()} was asked "
            f"({'; '.join(conflicts)})"
        )
    profile = announced.merged(request).merged(fallback).complete(values)
    fixed = ProfileRequest.of(profile)
    return Session(engine, profile, EngineInfo(info.name, fixed, info.ops))


def skipped_operations(info: EngineInfo) -> list[str]:
    return [op for op in OPERATIONS if op not in info.ops]


# --------------------------------------------------------------------------- hypothesis


class _Factory:
    """Makes the state machine for each example. Its ``__name__`` keys hypothesis's example
    database, so each engine and profile keeps its own failures; ``--seed`` is set on it the way
    ``@hypothesis.seed`` sets it on a test."""

    def __init__(self, cls: type, key: str, seed: int | None) -> None:
        self.cls = cls
        self.__name__ = key
        if seed is not None:
            self._hypothesis_internal_use_seed = seed

    def __call__(self) -> object:
        return self.cls()


def run_hypothesis(
    session: Session,
    settings: Settings,
    *,
    seed: int | None = None,
    progress: Progress | None = None,
    shrinking: bool = True,
) -> Outcome:
    """The hypothesis state machine against ``session``'s engine.

    ``settings`` should leave out hypothesis's own shrink phase (:func:`settings_for` does): a
    step's choice means "the k-th request allowed here", so removing one step changes what the
    later ones do, and hypothesis's shrinker spends minutes on it. The failing program is shrunk
    instead as concrete requests by :func:`shrink` (delta debugging), in well under a second."""
    cls = state_machine(session, progress)
    key = f"cmma-conformance:{session.info.name}:{session.profile.describe()}"
    start = time.monotonic()
    steps0 = session.total_steps

    def outcome(status: str, **kw: object) -> Outcome:
        return Outcome(status, "hypothesis", session.profile, session.info.name,
                       session.total_steps - steps0, time.monotonic() - start, **kw)  # type: ignore[arg-type]  # fmt: skip

    try:
        run_state_machine_as_test(_Factory(cls, key, seed), settings=settings)  # type: ignore[arg-type]
    except StopRun as stop:
        return outcome("fault", error=stop.error)
    except DivergenceError as err:
        found, found_after = len(err.steps), session.total_steps - steps0
        reproduced = True
        try:
            if shrinking:
                err, reproduced = minimise(session, err)
        except EngineFaultError as fault:
            return outcome("fault", error=fault)
        note = (f"a failing example of {found} steps, shrunk to {len(err.steps)}"
                if reproduced else NOT_REPRODUCED)  # fmt: skip
        return outcome("diverged", error=err, found_after=found_after, note=note)
    except Flaky as err:
        return outcome(
            "flaky",
            note="the engine is not deterministic: the same requests gave different replies "
            f"on a replay ({type(err).__name__}: {str(err).splitlines()[0]})",
        )
    return outcome("passed", note=f"{cls.examples} examples")


# --------------------------------------------------------------------------- replaying programs


def replay(session: Session, program: Sequence[Request]) -> None:
    """Reset and perform ``program``; raises what the session raises."""
    session.reset()
    for op, page, arg in program:
        session.step(op, page, arg)


def _fails(session: Session, program: Sequence[Request], rule: str | None) -> bool:
    """Whether ``program`` diverges (breaking ``rule``, when one is given)."""
    try:
        replay(session, program)
    except DivergenceError as err:
        return rule is None or err.verdict.rule == rule
    return False


def shrink(session: Session, program: list[Request], rule: str | None = None) -> list[Request]:
    """A shortest-we-can-find program that still diverges breaking the same ``rule``: delta
    debugging (ddmin) over the steps until no single step can be removed, then the pages
    renumbered from 0 in order of use, then each Write's value made as simple as it goes (1
    before 2, 0 last). It replays concrete requests, so it is fast and each removal keeps the
    meaning of the steps around it. Faults (EngineFaultError) propagate."""
    n = 2
    while len(program) >= 2:
        chunk = max(1, len(program) // n)
        reduced = False
        for i in range(0, len(program), chunk):
            candidate = program[:i] + program[i + chunk :]
            if candidate and _fails(session, candidate, rule):
                program = candidate
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(program), n * 2)
    # Pages renumbered in order of first use (page 0 first), where the engine fails the same
    # way: the spec treats pages alike (D20), and a trace on page 0 reads more easily.
    order: dict[int, int] = {}
    for _, page, _ in program:
        order.setdefault(page, len(order))
    renumbered = [(op, order[page], arg) for op, page, arg in program]
    if renumbered != program and _fails(session, renumbered, rule):
        program = renumbered
    # Simplest values first, but 0 last: a page holding 0 looks like a zero page, so a trace
    # that writes 1 shows a lost or stale content where one that writes 0 hides it.
    def simpler(v: int) -> tuple[bool, int]:
        return (v == 0, v)

    values = sorted(session.profile.values, key=simpler)
    for i, (op, page, arg) in enumerate(program):
        if op != "Write":
            continue
        for v in values:
            if simpler(v) >= simpler(arg):
                break
            candidate = program[:i] + [(op, page, v)] + program[i + 1 :]
            if _fails(session, candidate, rule):
                program = candidate
                break
    return program


def minimise(session: Session, err: DivergenceError) -> tuple[DivergenceError, bool]:
    """``err`` shrunk (:func:`shrink`) and replayed: the error of the shortest program, and
    whether the divergence reproduced at all (an engine that answers the same requests
    differently on a replay is not deterministic, and its program cannot be shrunk)."""
    program = [(s.op, s.page, s.arg) for s in err.steps]
    if not _fails(session, program, err.verdict.rule):
        return err, False
    program = shrink(session, program, err.verdict.rule)
    try:
        replay(session, program)
    except DivergenceError as smaller:
        return smaller, True
    return err, False


NOT_REPRODUCED = (
    "the divergence did not reproduce when the same requests were replayed: the engine is not "
    "deterministic (the suite needs the same replies to the same requests), so the trace is "
    "shown as found"
)


def run_programs(
    session: Session, programs: Sequence[Sequence[Request]], drive: str, *, shrinking: bool
) -> Outcome:
    start = time.monotonic()
    steps0 = session.total_steps

    def outcome(status: str, **kw: object) -> Outcome:
        return Outcome(status, drive, session.profile, session.info.name,
                       session.total_steps - steps0, time.monotonic() - start, **kw)  # type: ignore[arg-type]  # fmt: skip

    for program in programs:
        try:
            replay(session, program)
        except EngineFaultError as err:
            return outcome("fault", error=err)
        except DivergenceError as err:
            note = ""
            if shrinking:
                try:
                    err, reproduced = minimise(session, err)
                except EngineFaultError as fault:
                    return outcome("fault", error=fault)
                note = "" if reproduced else NOT_REPRODUCED
            return outcome("diverged", error=err, note=note)
    return outcome("passed", note=f"{len(programs)} programs")


# --------------------------------------------------------------------------- the tour


def tour(profile: Profile, page: int = 0) -> list[list[Request]]:
    """Every transition of the spec on ``page`` (other pages stay in Init): for each state of
    the page reachable from Init, a shortest program reaching it followed by each request
    (every operation, each Write value), enabled or not."""
    machine = Machine(profile)
    init = machine.init()
    paths: dict[Page, list[Request]] = {init.pages[page]: []}
    states: dict[Page, State] = {init.pages[page]: init}
    queue: deque[Page] = deque([init.pages[page]])
    while queue:
        pg = queue.popleft()
        state = states[pg]
        for (op, p, arg), nxt in machine.enabled_steps(state):
            if p != page:
                continue
            npg = nxt.pages[page]
            if npg not in paths:
                paths[npg] = paths[pg] + [(op, p, arg)]
                # lastOp is not part of the page: keep the state as reached.
                states[npg] = nxt
                queue.append(npg)
    requests = [
        (op, page, arg)
        for op in OPERATIONS
        for arg in (profile.values if op == "Write" else (NO_VALUE,))
    ]
    return [paths[pg] + [req] for pg in paths for req in requests]


def run_tour(session: Session) -> Outcome:
    """The transition tour (:func:`tour`) on page 0, minus operations the engine leaves out."""
    ops = set(session.info.ops)
    programs = [p for p in tour(session.profile) if all(op in ops for op, _, _ in p)]
    return run_programs(session, programs, "tour", shrinking=False)


# --------------------------------------------------------------------------- the walk


def walk_program(profile: Profile, ops: Sequence[str], length: int, rng: random.Random) -> list[Request]:
    out: list[Request] = []
    for _ in range(length):
        op = rng.choice(ops)
        arg = rng.choice(profile.values) if op == "Write" else NO_VALUE
        out.append((op, rng.randrange(profile.pages), arg))
    return out


def run_walk(
    session: Session,
    steps: int,
    *,
    seed: int = 0,
    length: int = 200,
    progress: Callable[[int, int, float], None] | None = None,
) -> Outcome:
    """``steps`` random requests in programs of ``length``, each from a reset; a divergence is
    shrunk by delta debugging."""
    rng = random.Random(seed)
    ops = [op for op in OPERATIONS if op in session.info.ops]
    start = time.monotonic()
    steps0 = session.total_steps
    done = 0
    last = start
    programs = 0
    while done < steps:
        program = walk_program(session.profile, ops, min(length, steps - done), rng)
        result = run_programs(session, [program], "walk", shrinking=True)
        done += len(program)
        programs += 1
        if not result.passed:
            result.steps = session.total_steps - steps0
            result.seconds = time.monotonic() - start
            return result
        now = time.monotonic()
        if progress is not None and now - last >= 1.0:
            last = now
            progress(programs, done, now - start)
    return Outcome("passed", "walk", session.profile, session.info.name,
                   session.total_steps - steps0, time.monotonic() - start,
                   note=f"{programs} programs, seed {seed}")  # fmt: skip


__all__ = [
    "DEFAULT_VALUES", "Outcome", "ProfileError", "connect", "replay", "run_hypothesis",
    "run_tour", "run_walk", "shrink", "skipped_operations", "tour",
]  # fmt: skip
