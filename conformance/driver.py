"""The conformance driver, parametrised by the machine: sessions, drives, reports, reproducers.

A :class:`DriverMachine` is what the driver needs of a machine's mode of the protocol (the
requests, the oracle from the machine's reference implementation, how replies are compared and
shown, how a trace is written); :data:`conformance.machines.MACHINES` registers one per machine
(:data:`conformance.pagestates.PAGESTATES_DRIVER`, :data:`conformance.essa.ESSA_DRIVER`). With it:

* :class:`Drive` sends each request to the engine and to the oracle, records the step, and raises
  :class:`Divergence` at the first reply that differs (naming the reference's rule that decided
  the expected reply and the differing fields) or :class:`Fault` when the engine breaks the
  protocol (crash, hang, malformed, extra output), with the steps so far either way;
* :func:`run_programs` runs fixed request sequences, each from a reset (the tours);
* :func:`run_hypothesis` draws request sequences with hypothesis and shrinks a failing one;
* :func:`run_walk` sends uniformly drawn requests at full speed (a soak test);
* :func:`report` and :func:`save` give the text a person reads and the reproducers a tool replays
  (JSON lines, ITF), under one directory per profile.

The engine is anything with ``hello``, ``reset``, ``step(request) -> reply`` and ``close``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import random
import re
import shutil
import tempfile
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Generic, Protocol, TypeVar

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import Flaky
from hypothesis import strategies as st

from hypothesis.reporting import default as default_reporter, with_reporter

from .interrupt import signalled, stop_if_signalled
from .protocol import EngineFault, Unsupported

P = TypeVar("P")
S = TypeVar("S")
Q = TypeVar("Q")
R = TypeVar("R")


class DriverMachine(Protocol):
    """What the driver needs of a machine's mode of the protocol."""

    name: str

    def init(self, profile: Any) -> Any: ...

    def oracle(self, profile: Any, s: Any, request: Any) -> tuple[Any, Any]:
        """The reference implementation's successor and reply."""
        ...

    def differences(self, expected: Any, observed: Any) -> list[str]:
        """The fields in which the observed reply differs from the expected one."""
        ...

    def rule(self, profile: Any, s: Any, request: Any, observed: Any | None) -> str:
        """The rule of the reference implementation that decides ``request`` in ``s`` (the
        engine's reply ``observed`` is None after a fault), as one line."""
        ...

    def short_name(self, profile: Any) -> str: ...

    def describe(self, profile: Any) -> str: ...

    def show_request(self, request: Any) -> str: ...

    def show_reply(self, reply: Any, marked: Sequence[str] = ()) -> str: ...

    def trace_header(self, profile: Any) -> dict[str, Any]: ...

    def trace_line(self, request: Any, reply: Any) -> dict[str, Any]: ...

    def itf_state(self, profile: Any, before: Any, request: Any | None,
                  reply: Any | None) -> dict[str, Any]:  # fmt: skip
        """The ITF state after ``request``, from the oracle's state ``before`` it, answered by
        ``reply`` (request and reply None: the initial state ``before``)."""
        ...

    def connect(self, engine: Any, profile: Any) -> tuple[str, Any]:
        """Say hello asking for ``profile``; the engine's name and the profile the drive runs
        (the one asked, or completed from the engine's announcement). Raises Unsupported when
        the engine does not run it (or announces something else), EngineFault when it breaks
        the protocol."""
        ...

    def requests(self, profile: Any) -> Sequence[Any]:
        """Every request hypothesis may draw under ``profile``."""
        ...

    def tours(self, profile: Any) -> Iterable[tuple[str, Sequence[Any]]]:
        """The fixed request sequences of the tour (each from a reset)."""
        ...


# Optional members of a DriverMachine, looked up with getattr:
#   spec: str                                   the TLA+ module its traces are checked against
#   alternatives(profile, s, request)           other (successor, reply) pairs the spec allows
#   programs(profile, max_steps)                a hypothesis strategy of request sequences
#                                               (default: :func:`programs` over ``requests``)
#   shrink_programs: bool                       shrink with :func:`shrink` (ddmin), not hypothesis
#   simpler(program)                            candidates :func:`shrink` tries at the end
#   explain(profile, steps) -> list[str]        a divergence report's lines under its first
#   show_state(profile, s) -> str               the report's ``before`` column
#   adapt(engine) -> engine                      the engine behind the machine's adapter


class Engine(Protocol):
    def reset(self) -> None: ...

    def step(self, request: Any) -> Any: ...


# --------------------------------------------------------------------------- sessions


@dataclass
class StepRecord(Generic[S, Q, R]):
    """One step: the request, the oracle's state before and reply, and the engine's reply
    (None when the engine failed to give one)."""

    index: int
    request: Q
    before: S
    expected: R
    observed: R | None
    rule: str
    differs: list[str] = field(default_factory=list)


class History:
    """The programs an engine has run since it started, each from a reset, as (request,
    observed reply) pairs: what a reset must have wiped out. The last :data:`HISTORY_STEPS`
    steps are kept; ``dropped`` counts the programs let go before them."""

    def __init__(self) -> None:
        self.programs: deque[list[tuple[Any, Any]]] = deque()
        self.dropped = 0
        self.steps = 0

    def reset(self) -> None:
        self.programs.append([])
        while self.steps > HISTORY_STEPS and len(self.programs) > 1:
            self.steps -= len(self.programs.popleft())
            self.dropped += 1

    def step(self, request: Any, reply: Any) -> None:
        if not self.programs:
            self.programs.append([])
        self.programs[-1].append((request, reply))
        self.steps += 1

    def mark(self) -> int:
        """The number of the program running now, counted from the engine's start."""
        return self.dropped + len(self.programs) - 1

    def before(self, mark: int) -> tuple[int, list[list[tuple[Any, Any]]]]:
        """The programs run before program ``mark`` (:meth:`mark`): how many were let go, and
        those kept."""
        kept = max(0, mark - self.dropped)
        return min(mark, self.dropped), [list(p) for p in list(self.programs)[:kept]]


#: The steps of an engine's history that are kept (:class:`History`).
HISTORY_STEPS = 50_000
_HISTORIES: weakref.WeakKeyDictionary[Any, History] = weakref.WeakKeyDictionary()


def history_of(engine: Any) -> History:
    """The history of ``engine`` (shared by every drive of it); a fresh one for an engine that
    cannot be weakly referenced."""
    try:
        return _HISTORIES.setdefault(engine, History())
    except TypeError:
        return History()


class Divergence(AssertionError):
    """The engine's reply differs from the reference's at the last step. ``history`` and
    ``mark``: the engine's :class:`History` and the number of the diverging program in it."""

    def __init__(self, profile: Any, steps: list[StepRecord[Any, Any, Any]],
                 history: History | None = None) -> None:  # fmt: skip
        last = steps[-1]
        super().__init__(f"step {last.index}: {', '.join(last.differs)} differ ({last.rule})")
        self.profile = profile
        self.steps = steps
        self.history = history
        self.mark = history.mark() if history is not None else 0

    def earlier_programs(self) -> tuple[int, list[list[tuple[Any, Any]]]]:
        """The programs the engine ran before this one, since it started (:meth:`History.before`)."""
        return (0, []) if self.history is None else self.history.before(self.mark)


class Fault(Exception):
    """The engine broke the protocol at the last step (or at its hello or reset)."""

    def __init__(self, profile: Any, steps: list[StepRecord[Any, Any, Any]], where: str,
                 fault: EngineFault) -> None:  # fmt: skip
        super().__init__(f"{where}: {fault.kind}: {fault.message}")
        self.profile = profile
        self.steps = steps
        self.where = where
        self.fault = fault


class StopDrive(BaseException):
    """Ends a hypothesis run at once, past its shrinker: a fault is reported as it is. A
    BaseException, because hypothesis catches Exceptions to shrink them."""

    def __init__(self, error: Fault) -> None:
        super().__init__(str(error))
        self.error = error


class Drive(Generic[P, S, Q, R]):
    """One engine under one profile, beside the oracle."""

    def __init__(self, machine: DriverMachine, engine: Any, profile: P) -> None:
        adapt = getattr(machine, "adapt", None)  # the machine's engine adapter, if it has one
        self.machine, self.profile = machine, profile
        #: The engine as given (its name keys the example database, :func:`engine_key`).
        self.source = engine
        self.engine = adapt(engine) if adapt is not None else engine
        self.history = history_of(engine)
        self.state = machine.init(profile)
        self.steps: list[StepRecord[S, Q, R]] = []
        self.total_steps = 0
        #: The label of the program being run (:meth:`run_all`).
        self.label = ""

    def reset(self) -> None:
        self.state = self.machine.init(self.profile)
        self.steps = []
        self.history.reset()
        try:
            self.engine.reset()
        except EngineFault as exc:
            raise Fault(self.profile, [], "reset", exc) from None

    def step(self, request: Q, replies: Iterator[Any] | None = None) -> R:
        """Send ``request`` (or take its reply from ``replies``, a pipelined program's) and
        judge the reply against the oracle's."""
        stop_if_signalled()
        m = self.machine
        before = self.state
        after, expected = m.oracle(self.profile, before, request)
        # The rule is named only for the step a report shows: naming it costs more than a step.
        record: StepRecord[S, Q, R] = StepRecord(
            len(self.steps) + 1, request, before, expected, None, ""
        )  # fmt: skip
        self.steps.append(record)
        self.total_steps += 1
        try:
            observed: R = self.engine.step(request) if replies is None else next(replies)
        except EngineFault as exc:
            if exc.previous:  # the previous request's fault, found on this one's reply
                self.steps.pop()
                raise self._fault_before(exc) from None
            record.rule = m.rule(self.profile, before, request, None)
            if exc.reply is not None:  # it answered, then wrote more: its reply is shown
                record.observed = exc.reply
                record.differs = m.differences(expected, exc.reply)
            where = f"step {record.index} ({m.show_request(request)})"
            raise Fault(self.profile, list(self.steps), where, exc) from None
        record.observed = observed
        self.history.step(request, observed)
        record.differs = m.differences(expected, observed)
        if record.differs and hasattr(m, "alternatives"):
            # A step the spec lets end in more than one state: the engine's reply picks one.
            for alt_after, alt_expected in m.alternatives(self.profile, before, request):
                if not m.differences(alt_expected, observed):
                    after, record.expected, record.differs = alt_after, alt_expected, []
                    break
        if record.differs:
            record.rule = m.rule(self.profile, before, request, observed)
            raise Divergence(self.profile, list(self.steps), self.history)
        self.state = after
        return observed

    def _fault_before(self, exc: EngineFault) -> Fault:
        """A fault of the request before the one whose reply was awaited: the last step
        recorded (its reply, judged already and equal to the reference's, stays in the trace:
        the fault is the line the engine wrote after it), or the reset when no step is."""
        if not self.steps:
            return Fault(self.profile, [], "reset", exc)
        last = self.steps[-1]
        last.rule = self.machine.rule(self.profile, last.before, last.request, None)
        where = f"step {last.index} ({self.machine.show_request(last.request)})"
        return Fault(self.profile, list(self.steps), where, exc)

    def run(self, program: Iterable[Q]) -> None:
        """``program`` from a reset."""
        for _ in self.run_all([("", program)]):
            pass

    def run_all(self, programs: Iterable[tuple[str, Iterable[Q]]]) -> Iterator[str]:
        """Each labelled program from a reset, in order; yields each label once its program
        passed (:attr:`label` is the one being judged when Divergence or Fault is raised).

        An engine with ``exchange`` (JSON lines) is sent the programs pipelined: their requests
        go out ahead of the replies, across programs, and the replies are judged here one by
        one, in order, as lock-step judges them. A divergence or a fault closes the exchange,
        which reads and drops the replies still in flight."""
        exchange = getattr(self.engine, "exchange", None)
        if exchange is None:
            for self.label, program in programs:
                self.reset()
                for request in program:
                    self.step(request)
                yield self.label
            return
        sent: deque[tuple[str, Sequence[Q]]] = deque()  # programs the engine has been sent

        def source() -> Iterator[Sequence[Q]]:
            for label, program in programs:
                seq = program if isinstance(program, (list, tuple)) else tuple(program)
                sent.append((label, seq))
                yield seq

        replies = exchange(source())
        try:
            while True:
                try:
                    next(replies)  # a reset's (None), or the end
                except StopIteration:
                    return
                except EngineFault as exc:
                    if exc.previous:  # the last step of the program before: its label is kept
                        raise self._fault_before(exc) from None
                    self.label, self.steps = sent[0][0], []
                    raise Fault(self.profile, [], "reset", exc) from None
                self.label, program = sent.popleft()
                self.state = self.machine.init(self.profile)
                self.steps = []
                self.history.reset()
                for request in program:
                    self.step(request, replies)
                yield self.label
        finally:
            replies.close()


# --------------------------------------------------------------------------- drives


@dataclass
class Outcome:
    """What one drive found. ``status``: passed, diverged, fault, skipped (the engine does not
    run the profile), folded (another profile, :attr:`stand_in`, is run for it)."""

    status: str
    drive: str
    profile: Any
    steps: int
    seconds: float
    error: Any = None  # Divergence | Fault here; the PageStates mode's errors in runner.Outcome
    note: str = ""
    #: a coverage tour that passed: the transitions (edges) of the reference's graph it took,
    #: and whether that graph is the whole graph within the budget's depth (else a quick tour's
    #: shallow graph, or one cut by the bound on edges)
    edges: int | None = None
    whole: bool = False
    #: a profile not run (status ``folded``): the profile run for it, whose reference graph
    #: is its own (``note`` says why)
    stand_in: Any = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def _outcome(drive: Drive[Any, Any, Any, Any], name: str, start: float, steps0: int,
             status: str, **kw: Any) -> Outcome:  # fmt: skip
    return Outcome(status, name, drive.profile, drive.total_steps - steps0,
                   time.monotonic() - start, **kw)  # fmt: skip


def run_programs(drive: Drive[Any, Any, Q, Any], programs: Iterable[tuple[str, Sequence[Q]]],
                 name: str = "tour", *, shrunk: bool = False) -> Outcome:  # fmt: skip
    """Each program from a reset; the first divergence or fault ends the drive. ``shrunk``: a
    divergence is taken to a 1-minimal program (:func:`minimise`) before it is reported."""
    start, steps0, n = time.monotonic(), drive.total_steps, 0
    try:
        for _ in drive.run_all(programs):
            n += 1
    except Divergence as err:
        label = drive.label
        if shrunk:
            try:
                smaller = minimise(drive, err)
            except Fault as fault:
                return _outcome(drive, name, start, steps0, "fault", error=fault, note=label)
            if smaller is not None and len(smaller.steps) < len(err.steps):
                err, label = smaller, f"{label}, shrunk from {len(err.steps)} steps"
        return _outcome(drive, name, start, steps0, "diverged", error=err, note=label)
    except Fault as err:
        return _outcome(drive, name, start, steps0, "fault", error=err, note=drive.label)
    return _outcome(drive, name, start, steps0, "passed", note=f"{n} sequences")


def programs(requests: Sequence[Q], max_steps: int) -> st.SearchStrategy[list[Q]]:
    """Request sequences, swarm style: each example first draws a few requests (an alphabet),
    then a sequence over them. A small alphabet makes the sequences that need one request
    several times among few others (fill the CBRL with two pages, then empty it) likely; the
    whole list is still drawn from, and hypothesis shrinks both the alphabet and the sequence."""
    return st.lists(st.sampled_from(requests), min_size=1, max_size=6, unique=True).flatmap(
        lambda alphabet: st.lists(st.sampled_from(alphabet), min_size=1, max_size=max_steps)
    )


#: Where hypothesis keeps the failures it found, so that the next run replays them first.
DEFAULT_DATABASE = Path(".hypothesis") / "conformance"


def hypothesis_settings(examples: int, *, seed: int | None = None, database: Path | None = None,
                        shrink: bool = True) -> settings:  # fmt: skip
    """The settings of :func:`run_hypothesis`. Without a seed or a database the run is
    derandomized (the same command finds the same failure); with a database and no seed the
    loaded profile decides (tests/conftest.py: derandomized in CI, and then without the
    database); a seed is random's."""
    derandomize = (bool(settings.default and settings.default.derandomize)
                   if database is not None else True) if seed is None else False  # fmt: skip
    if derandomize:
        database = None  # hypothesis: derandomize implies no database (the same draws anyway)
    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if shrink else [])
    return settings(max_examples=examples, deadline=None, derandomize=derandomize,
                    database=None if database is None else DirectoryBasedExampleDatabase(str(database)),
                    phases=phases, report_multiple_bugs=False,
                    suppress_health_check=list(HealthCheck), print_blob=False)  # fmt: skip


def run_hypothesis(
    drive: Drive[Any, Any, Q, Any],
    requests: Sequence[Q] | None = None,
    *,
    examples: int = 100,
    max_steps: int = 40,
    seed: int | None = None,
    database: Path | None = None,
) -> Outcome:
    """Request sequences drawn by hypothesis (the machine's ``programs``, else :func:`programs`
    over ``requests``, by default the machine's), each from a reset. A divergence is shrunk
    (fewer and earlier requests) by hypothesis, or by :func:`shrink` for a machine whose draws
    hypothesis cannot shrink well (``shrink_programs``), before it is reported. ``database``
    keeps the failing examples, which the next run with it replays first."""
    m = drive.machine
    start, steps0 = time.monotonic(), drive.total_steps
    found: list[Divergence] = []
    ddmin = getattr(m, "shrink_programs", False)
    drawn = getattr(m, "programs", None)
    strategy = (drawn(drive.profile, max_steps) if drawn is not None else
                programs(requests if requests is not None else m.requests(drive.profile),
                         max_steps))  # fmt: skip

    @hypothesis_settings(examples, seed=seed, database=database, shrink=not ddmin)
    @given(strategy)
    def check(program: list[Q]) -> None:
        try:
            drive.run(program)
        except Fault as err:
            raise StopDrive(err) from None
        except Divergence as err:
            found.append(err)
            raise

    # The database's key: one per machine, engine and profile (hypothesis's default, the test's
    # digest, is the same for every drive), so that one engine's passing run never deletes
    # another engine's saved failing example.
    check._hypothesis_internal_database_key = (  # type: ignore[attr-defined]
        f"conformance:{m.name}:{engine_key(engine_name(drive.source))}:"
        f"{m.short_name(drive.profile)}".encode())
    test: Callable[[], None] = check
    if seed is not None and database is None:
        test = hypothesis_seed(seed)(check)
    elif seed is not None:
        # @hypothesis.seed switches the database off; set the seed as it does, keeping it.
        check._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
    try:
        with with_reporter(_unless_signalled):
            test()
    except StopDrive as stop:
        return _outcome(drive, "hypothesis", start, steps0, "fault", error=stop.error)
    except Flaky:
        # Hypothesis replayed the failing example and it passed: the engine is not deterministic.
        if not found:
            raise
        return _outcome(drive, "hypothesis", start, steps0, "diverged", error=found[0],
                        note=NOT_REPRODUCED)  # fmt: skip
    except Divergence as err:
        if not ddmin:
            # hypothesis's shrinker works on its draws, not on the requests: what it ends with
            # may still have a request to spare, so ddmin takes it on to a 1-minimal program
            try:
                smaller = minimise(drive, err)
            except Fault as fault:
                return _outcome(drive, "hypothesis", start, steps0, "fault", error=fault)
            note = f"{len(found)} failing examples tried while shrinking; the shortest has " \
                f"{len(err.steps)} steps" + (f", 1-minimal at {len(smaller.steps)}"
                                             if smaller is not None else "")  # fmt: skip
            return _outcome(drive, "hypothesis", start, steps0, "diverged", error=smaller or err,
                            note=note)  # fmt: skip
        try:
            smaller = minimise(drive, err)
        except Fault as fault:
            return _outcome(drive, "hypothesis", start, steps0, "fault", error=fault)
        note = (NOT_REPRODUCED if smaller is None else
                f"a failing example of {len(err.steps)} steps, shrunk to {len(smaller.steps)}")  # fmt: skip
        return _outcome(drive, "hypothesis", start, steps0, "diverged", error=smaller or err,
                        note=note)  # fmt: skip
    return _outcome(drive, "hypothesis", start, steps0, "passed", note=f"{examples} examples")


def _unless_signalled(text: object) -> None:
    """Hypothesis's messages, except after a signal: its "reproduce this failure with @seed"
    for the KeyboardInterrupt a signal raises would name a failure there is not."""
    if signalled() is None:
        default_reporter(text)


NOT_REPRODUCED = (
    "the divergence did not reproduce when the same requests were replayed: the engine is not "
    "deterministic (the suite needs the same replies to the same requests), so the trace is "
    "shown as found"
)


def _failure(err: Divergence) -> str:
    """What makes two divergences the same bug to the shrinker: the name of the reference's rule
    that decides the diverging step. The differing fields are not part of it: removing a step
    may leave the same wrong reply on a page whose other fields already agree (a Write answered
    wrongly on a dirty page differs in the outcome, on a clean one also in the dirty bit)."""
    return err.steps[-1].rule.partition(":")[0]


def _fails(drive: Drive[Any, Any, Q, Any], program: Sequence[Q],
           same: str) -> Divergence | None:  # fmt: skip
    try:
        drive.run(program)
    except Divergence as err:
        return err if _failure(err) == same else None
    return None


def shrink(drive: Drive[Any, Any, Q, Any], program: list[Q],
           same: str) -> list[Q]:  # fmt: skip
    """A 1-minimal program that still diverges the same way (:func:`_failure`): no single
    request can be removed from it and the rest still diverge so. Delta debugging (ddmin) over
    the requests until no single one can be removed, then the machine's ``simpler`` candidates
    of the same length, and ddmin again after a candidate was taken, until neither changes the
    program. It replays concrete requests, so each removal keeps the meaning of the requests
    around it. Faults propagate."""
    simpler = getattr(drive.machine, "simpler", None)
    while True:
        program = _ddmin(drive, program, same)
        if simpler is None:
            return program
        before = program
        for candidate in list(simpler(program)):
            if len(candidate) == len(program) and _fails(drive, candidate, same):
                program = candidate
        if program == before:
            return program


def _ddmin(drive: Drive[Any, Any, Q, Any], program: list[Q],
           same: str) -> list[Q]:  # fmt: skip
    """Delta debugging: chunks of the program removed, halving the chunk until single
    requests; ends when no single request can be removed."""
    n = 2
    while len(program) >= 2:
        chunk = max(1, len(program) // n)
        for i in range(0, len(program), chunk):
            candidate = program[:i] + program[i + chunk :]
            if candidate and _fails(drive, candidate, same):
                program, n = candidate, max(n - 1, 2)
                break
        else:
            if chunk == 1:
                break
            n = min(len(program), n * 2)
    return program


def minimise(drive: Drive[Any, Any, Q, Any], err: Divergence) -> Divergence | None:
    """``err`` shrunk (:func:`shrink`) and replayed; None when the divergence does not
    reproduce (the engine is not deterministic)."""
    same = _failure(err)
    program = [rec.request for rec in err.steps]
    if _fails(drive, program, same) is None:
        return None
    return _fails(drive, shrink(drive, program, same), same)


def run_walk(drive: Drive[Any, Any, Q, Any], steps: int, *, seed: int = 0,
             length: int = 200) -> Outcome:  # fmt: skip
    """``steps`` requests drawn uniformly from the machine's, in programs of ``length`` each
    from a reset, at full speed; a divergence is shrunk by :func:`shrink`."""
    rng = random.Random(seed)
    every = list(drive.machine.requests(drive.profile))
    start, steps0, done, n = time.monotonic(), drive.total_steps, 0, 0
    while done < steps:
        program = [rng.choice(every) for _ in range(min(length, steps - done))]
        done, n = done + len(program), n + 1
        try:
            drive.run(program)
        except Fault as err:
            return _outcome(drive, "walk", start, steps0, "fault", error=err)
        except Divergence as err:
            try:
                smaller = minimise(drive, err)
            except Fault as fault:
                return _outcome(drive, "walk", start, steps0, "fault", error=fault)
            return _outcome(drive, "walk", start, steps0, "diverged", error=smaller or err,
                            note="" if smaller is not None else NOT_REPRODUCED)  # fmt: skip
    return _outcome(drive, "walk", start, steps0, "passed", note=f"{n} programs, seed {seed}")


# --------------------------------------------------------------------------- reports


def marker(marked: Sequence[str]) -> Callable[[str], str]:
    """For a machine's ``show_reply``: ``!`` after a field the driver marked as differing."""
    return lambda name: "!" if name in marked else ""


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def report(machine: DriverMachine, error: Divergence | Fault, *,
           engine: str) -> str:  # fmt: skip
    """The text of a divergence or a fault: the profile, every step with the expected and the
    observed reply (differing fields marked with ``!``), the reference's rule, and what broke."""
    p = error.profile
    lines = [f"engine {engine}, machine {machine.name}, profile {machine.short_name(p)} "
             f"({machine.describe(p)})"]  # fmt: skip
    if isinstance(error, Fault):
        lines.append(f"ENGINE FAULT ({error.fault.kind}) at {error.where}: {error.fault.message}")
    else:
        last = error.steps[-1]
        lines.append(f"DIVERGENCE at step {last.index} ({machine.show_request(last.request)}): "
                     f"{', '.join(last.differs)} differ")  # fmt: skip
        explain = getattr(machine, "explain", None)
        lines += (explain(p, error.steps) if explain is not None
                  else [f"the reference decides this step by: {last.rule}"])  # fmt: skip
    if not error.steps:
        return "\n".join(lines) + "\n"
    show_state = getattr(machine, "show_state", None)
    rows = [["", "step", "request", "expected", "observed"] + (["before"] if show_state else [])]
    for rec in error.steps:
        mark = "->" if rec is error.steps[-1] else ""
        observed = ("(no reply)" if rec.observed is None
                    else machine.show_reply(rec.observed, rec.differs))  # fmt: skip
        rows.append([mark, str(rec.index), machine.show_request(rec.request),
                     machine.show_reply(rec.expected), observed]
                    + ([show_state(p, rec.before)] if show_state else []))  # fmt: skip
    title = "the trace so far, from a reset:" if isinstance(error, Fault) else "from a reset:"
    lines += ["", title, *_table(rows)]
    lines.append("(! marks an observed field that differs from the expected)")
    lines += after_reset(machine, error)
    return "\n".join(lines) + "\n"


#: How many of the programs before a divergence right after a reset its report names.
NAMED_PROGRAMS = 5


def right_after_reset(error: Divergence | Fault) -> bool:
    """Whether ``error`` diverges at the first step after a reset, with programs before it."""
    return (isinstance(error, Divergence) and len(error.steps) == 1
            and bool(error.earlier_programs()[0] or error.earlier_programs()[1]))  # fmt: skip


def after_reset(machine: DriverMachine, error: Divergence | Fault) -> list[str]:
    """A report's lines for a divergence right after a reset: a reset must bring the engine
    back to the initial state, so the reply may come from state that survived one; the
    programs the engine ran since it started, and where they are saved to replay."""
    if not isinstance(error, Divergence) or not right_after_reset(error):
        return []
    dropped, programs = error.earlier_programs()
    steps = sum(map(len, programs))
    lines = ["", f"RIGHT AFTER A RESET: the divergence is at the first step after a reset, where "
             f"the engine must be in the initial state. Since it started, the engine ran "
             f"{dropped + len(programs):,} programs before this one ({steps:,} steps"
             + (f" in the last {len(programs):,}; the first {dropped:,} are not kept" if dropped
                else "") + "), each from a reset; if a fresh engine answers this step as "
             "expected, state survived a reset. The last of them:"]  # fmt: skip
    first = dropped + len(programs) - min(NAMED_PROGRAMS, len(programs)) + 1
    for n, program in enumerate(programs[-NAMED_PROGRAMS:], first):
        lines.append(f"  program {n}: " + ", ".join(machine.show_request(r) for r, _ in program))
    lines.append("history.jsonl beside the trace holds them all (a {\"reset\": true} line before "
                 "each program) and this one last: replayed on a fresh engine (validate "
                 "--engine), it reproduces the divergence.")  # fmt: skip
    return lines


@dataclass(frozen=True)
class Saved:
    directory: Path
    report: Path
    jsonl: Path
    itf: Path


def _itf(value: Any) -> Any:
    """A value in ITF's JSON encoding: integers as #bigint, dicts keyed by int as #map."""
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, int):
        return {"#bigint": str(value)}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {k: _itf(v) for k, v in value.items()}
        return {"#map": [[_itf(k), _itf(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_itf(v) for v in value]
    raise TypeError(f"no ITF encoding for {value!r}")


def engine_key(name: str) -> str:
    """The folder an engine's reports are kept in: its name (:func:`engine_name`) made a file
    name, cut to 40 characters, and 8 hex digits of its digest, so that two engines never share
    one (``build-cmma-engine-3f2a9c1d`` for ``./build/cmma-engine``)."""
    slug = re.sub(r"[^A-Za-z0-9._]+", "-", name).strip("-.")
    if len(slug) > 40:  # the end names the program; cut at a word
        slug = slug[-40:].partition("-")[2] or slug[-40:]
    slug = slug.strip("-.") or "engine"
    return f"{slug}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def report_dir(machine: DriverMachine, directory: Path, profile: Any, engine: str) -> Path:
    """Where :func:`save` keeps a report: ``directory``/<engine key>/<profile>/."""
    return directory / engine_key(engine) / machine.short_name(profile)


def save(machine: DriverMachine, directory: Path, text: str, error: Divergence | Fault,
         engine: str = "", extra: dict[str, str] | None = None) -> Saved:  # fmt: skip
    """The report and the engine's trace (its requests and replies, up to the last one it gave)
    as JSON lines and ITF, with the ``extra`` files (name: text), in :func:`report_dir`: one
    folder per engine and profile, so that no other engine's run overwrites it. The files are
    written in a fresh folder that then replaces the old one whole, so a report never mixes two
    runs' files. The header's ``meta`` names the engine and what went wrong."""
    where = report_dir(machine, directory, error.profile, engine)
    where.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{where.name}-new-", dir=where.parent))
    (fresh / "report.txt").write_text(text, encoding="utf-8")
    what = "fault" if isinstance(error, Fault) else "divergence"
    meta = {"engine": engine, what: str(error)}
    write_trace(machine, fresh, error.profile, error.steps, meta)
    if isinstance(error, Divergence) and right_after_reset(error):
        write_history(machine, fresh / "history.jsonl", error, meta)
    for name, content in (extra or {}).items():
        (fresh / name).write_text(content, encoding="utf-8")
    if where.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{where.name}-old-", dir=where.parent))
        where.rename(old / "report")
        shutil.rmtree(old, ignore_errors=True)
    fresh.rename(where)
    return Saved(where, where / "report.txt", where / "trace.jsonl", where / "trace.itf.json")


RESET_LINE: Final = {"reset": True}


def write_history(machine: DriverMachine, path: Path, error: Divergence,
                  meta: dict[str, Any]) -> None:  # fmt: skip
    """The programs the engine ran before the diverging one and that one last, as a trace log
    with a ``{"reset": true}`` line before each program (:func:`read_history` reads it)."""
    _, programs = error.earlier_programs()
    programs = [*programs, [(rec.request, rec.observed) for rec in error.steps]]
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps({**machine.trace_header(error.profile), "meta": meta}) + "\n")
        for program in programs:
            f.write(json.dumps(RESET_LINE) + "\n")
            for request, reply in program:
                f.write(json.dumps(machine.trace_line(request, reply)) + "\n")


def is_history(path: Path) -> bool:
    """Whether ``path`` is a history file (:func:`write_history`): JSON lines with a
    ``{"reset": true}`` line under the header."""
    try:
        with path.open(encoding="utf-8") as f:
            f.readline()
            second = f.readline()
        return bool(second.strip()) and json.loads(second) == RESET_LINE
    except (OSError, UnicodeDecodeError, ValueError):
        return False


def read_history(machine: Any, path: Path, args: Any) -> tuple[Any, list[tuple[list[Any], list[Any]]]]:
    """The profile and the programs of a history file (:func:`write_history`), each as its
    requests and the replies recorded, read by the machine's mode with its own trace reader
    (``machine.read_trace(file, args)``; ``args`` as ``validate`` parses them). Raises
    ValueError."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise ValueError(f"{path}: empty: a history starts with the trace's header")
    chunks: list[list[str]]
    header, chunks = lines[0], [[]]
    for line in lines[1:]:
        if line.strip() and json.loads(line) == RESET_LINE:
            chunks.append([])
        elif line.strip():
            chunks[-1].append(line)
    profile, programs = None, []
    with tempfile.TemporaryDirectory(prefix="conformance-history-") as tmp:
        for n, chunk in enumerate(c for c in chunks if c):
            part = Path(tmp) / f"program-{n}.jsonl"
            part.write_text("\n".join([header, *chunk]) + "\n", encoding="utf-8")
            profile, requests, replies = machine.read_trace(part, args)
            programs.append((list(requests), list(replies)))
    if profile is None:
        raise ValueError(f"{path}: no program: a history holds at least the diverging one")
    return profile, programs


def write_trace(machine: DriverMachine, where: Path, profile: Any,
                steps: Sequence[StepRecord[Any, Any, Any]],
                meta: dict[str, Any]) -> tuple[Path, Path]:  # fmt: skip
    """``trace.jsonl`` and ``trace.itf.json`` in ``where``: the steps the engine answered (a
    step it gave no reply to is left out), the JSON-lines header's and the ITF's ``meta``."""
    done = [rec for rec in steps if rec.observed is not None]
    header = {**machine.trace_header(profile), "meta": meta}
    jsonl = where / "trace.jsonl"
    with jsonl.open("w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for rec in done:
            f.write(json.dumps(machine.trace_line(rec.request, rec.observed)) + "\n")
    states = [machine.itf_state(profile, machine.init(profile), None, None)]
    states += [machine.itf_state(profile, rec.before, rec.request, rec.observed) for rec in done]
    itf = where / "trace.itf.json"
    doc = {
        "#meta": {"format": "ITF", "source": f"conformance run, machine {machine.name}",
                  "profile": header["profile"], **meta},  # fmt: skip
        "vars": sorted(states[0]),
        "states": [{"#meta": {"index": i}, **_itf(s)} for i, s in enumerate(states)],
    }
    itf.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return jsonl, itf


# --------------------------------------------------------------------------- recorded traces


class RecordedEngine(Generic[Q, R]):
    """An engine that answers from a recorded trace: each step's recorded reply, in order (for
    ``validate``: the oracle judges what the engine did). Given several programs' replies (a
    history), each reset starts the next program's."""

    def __init__(self, replies: Sequence[R], *later: Sequence[R]) -> None:
        self.programs = [list(replies), *map(list, later)]
        self.program = -1
        self.next = 0

    def reset(self) -> None:
        self.program = min(self.program + 1, len(self.programs) - 1)
        self.next = 0

    def step(self, request: Q) -> R:
        reply = self.programs[max(self.program, 0)][self.next]
        self.next += 1
        return reply


# --------------------------------------------------------------------------- engines by name


def engine_name(engine: object) -> str:
    """What the reports call an engine: its ``name``, else its command (over JSON lines), else,
    for an in-process engine that names itself nothing, its class as ``--engine-class`` takes it,
    ``MODULE:CLASS (in process)``."""
    name = getattr(engine, "name", None) or getattr(engine, "command", None)
    if name:
        return str(name)
    cls = type(engine)
    return f"{cls.__module__}:{cls.__qualname__} (in process)"


def load_class(spec: str) -> object:
    """An instance of the class ``MODULE:CLASS`` names; raises ValueError."""
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"--engine-class {spec!r}: expected MODULE:CLASS")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"--engine-class {spec!r}: {exc}") from None
    try:
        engine = cls()
    except Exception as exc:  # noqa: BLE001 - whatever the constructor raises is reported
        raise ValueError(f"--engine-class {spec}: {class_name}() failed: {exc}") from None
    return engine
