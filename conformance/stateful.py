"""The hypothesis state machine: engine and oracle side by side.

:func:`state_machine` builds a :class:`~hypothesis.stateful.RuleBasedStateMachine` for one
:class:`~conformance.session.Session`. Its rules draw from what the oracle says about the current
state, so every draw is valid and nothing is filtered with ``assume``:

* ``step``: a step the spec allows here; the engine must perform it exactly so. Steps are weighted
  (a transition the example has not taken yet weighs most), because deep states (a dirty
  preserved P page, a discarded page made stable again) need many moves and a uniform mix keeps
  falling back to the logically zero states;
* ``refused_request``: a request the spec refuses (a host action it must not take, an access that
  waits for the host), once per page state the example reaches; its precondition is that such a
  state exists. The engine must refuse it and change nothing.

Operations an engine leaves out (the optional ClearDirty) are never drawn. After every step an
invariant evaluates the spec's properties on the state the engine reported. The session checks
each reply as it comes (:mod:`conformance.session`), so the first divergence fails the example.

Hypothesis's shrinker is switched off (:func:`settings_for`): a draw means "the k-th request
allowed here", so removing a step changes what the later ones do and shrinking takes minutes.
:func:`conformance.runner.run_hypothesis` shrinks the failing program as concrete requests
instead. The example database still keeps each failure, which is replayed first on the next run.

The settings profiles are ``conformance-quick`` (CI: seconds) and ``conformance-thorough``
(minutes); :func:`settings_for` applies overrides (examples, steps, database) to either.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Final

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from refimpl.pagestates.profile import NO_VALUE
from refimpl.pagestates.state import Page

from .protocol import OPERATIONS
from refimpl.pagestates.state import HOST_OPS
from .session import EngineFaultError, Session

QUICK: Final = "quick"
THOROUGH: Final = "thorough"
#: examples x steps per example, for each settings profile
PROFILE_SIZES: Final[dict[str, tuple[int, int]]] = {QUICK: (100, 100), THOROUGH: (2000, 200)}

for _name, (_examples, _steps) in PROFILE_SIZES.items():
    settings.register_profile(
        f"conformance-{_name}",
        max_examples=_examples,
        stateful_step_count=_steps,
        deadline=None,  # an engine in another process has its own pace; hangs have a timeout
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        # One minimal failure, not a group of them: the report explains one divergence.
        report_multiple_bugs=False,
        # The suite prints its own table; hypothesis's program is kept in the exception notes.
        verbosity=Verbosity.quiet,
    )

#: Where found failures are kept, so the next run replays them first.
DEFAULT_DATABASE: Final = Path(".hypothesis") / "conformance"


def settings_for(
    profile: str = QUICK,
    *,
    examples: int | None = None,
    steps: int | None = None,
    database: Path | None | str = "default",
) -> settings:
    """A settings profile with overrides; ``database=None`` keeps no example database."""
    if profile not in PROFILE_SIZES:
        raise ValueError(f"unknown settings profile {profile!r}: {QUICK} or {THOROUGH}")
    base = settings.get_profile(f"conformance-{profile}")
    db: ExampleDatabase | None
    if database is None:
        db = None
    elif database == "default":
        db = DirectoryBasedExampleDatabase(str(DEFAULT_DATABASE))
    else:
        db = DirectoryBasedExampleDatabase(str(database))
    kwargs: dict[str, Any] = {"database": db}
    if examples is not None:
        kwargs["max_examples"] = examples
    if steps is not None:
        kwargs["stateful_step_count"] = steps
    # Hypothesis's shrinker is left out: see conformance.runner.run_hypothesis, which shrinks
    # the failing program as concrete requests instead.
    kwargs["phases"] = [p for p in Phase if p not in (Phase.shrink, Phase.explain)]
    return settings(base, **kwargs)


class StopRun(BaseException):
    """Ends a hypothesis run at once, past its shrinker: an engine that broke the protocol (or
    hung, where every replay would wait for the timeout) is reported with the trace so far. A
    BaseException, because hypothesis catches Exceptions to shrink them."""

    def __init__(self, error: EngineFaultError) -> None:
        super().__init__(str(error))
        self.error = error


Request = tuple[str, int, int]
#: Which of the allowed (or refused) requests a rule sends: an index, taken modulo their number.
CHOICE: Final = st.integers(0, 255)
#: Weights of the allowed steps (each is listed this many times): a transition (page state,
#: request) the example has not taken yet, a move it has taken, a step that changes nothing.
NEW_WEIGHT: Final = 6
MOVE_WEIGHT: Final = 2

Progress = Callable[[int, int, float], None]  # examples, steps, seconds


class ConformanceMachine(RuleBasedStateMachine):
    """Base of the generated machines: the session and the bookkeeping. See the module doc."""

    session: ClassVar[Session]
    all_requests: ClassVar[tuple[Request, ...]]
    implemented: ClassVar[frozenset[Request]]
    _refused_memo: ClassVar[dict[tuple[Page, ...], list[Request]]]
    progress: ClassVar[Progress | None] = None
    examples: ClassVar[int] = 0
    started: ClassVar[float] = 0.0
    _last_report: ClassVar[float] = 0.0

    def __init__(self) -> None:
        super().__init__()
        cls = type(self)
        cls.examples += 1
        now = time.monotonic()
        if cls.progress is not None and now - cls._last_report >= 1.0:
            cls._last_report = now
            cls.progress(cls.examples, self.session.total_steps, now - cls.started)
        self.taken: set[tuple[Page, str, int]] = set()
        self.probed: set[Page] = set()
        try:
            self.session.reset()
        except EngineFaultError as err:
            raise StopRun(err) from None

    def perform(self, op: str, page: int, arg: int = NO_VALUE) -> None:
        try:
            self.session.step(op, page, arg)
        except EngineFaultError as err:
            raise StopRun(err) from None

    def requests(self, allowed: bool) -> list[Request]:
        """The requests the spec allows (``allowed``) or refuses in the current state, among
        the operations the engine implements, in the spec's order (page by page).

        Allowed steps are weighted (listed several times): a transition this example has not
        taken yet (the page's state and the request) NEW_WEIGHT times, one it has MOVE_WEIGHT
        times if it moves the page and once if not. Deep states (a dirty preserved P page, a
        discarded page made stable again) take many moves, and a uniform mix keeps falling back
        to the logically zero states."""
        state = self.session.state
        if not allowed:
            key = state.pages
            found = self._refused_memo.get(key)
            if found is None:
                enabled = {s for s, _ in self.session.machine.enabled_steps(state)}
                found = [r for r in self.all_requests if r not in enabled]
                self._refused_memo[key] = found
            return found
        taken = self.taken
        out: list[Request] = []
        for s, nxt in self.session.machine.enabled_steps(state):
            if s not in self.implemented:
                continue
            before = state.pages[s[1]]
            if (before, s[0], s[2]) not in taken:
                weight = NEW_WEIGHT
            elif nxt.pages[s[1]] == before:
                weight = 1
            else:
                weight = MOVE_WEIGHT
            out.extend([s] * weight)
        return out

    def unprobed(self) -> list[Request]:
        """The requests the spec refuses on pages whose current state this example has not
        probed yet."""
        state = self.session.state
        return [r for r in self.requests(False) if state.pages[r[1]] not in self.probed]

    @rule(choice=CHOICE)
    def step(self, choice: int) -> None:
        """A step the spec allows here: the engine must perform it exactly so."""
        requests = self.requests(True)
        op, page, arg = requests[choice % len(requests)]
        self.taken.add((self.session.state.pages[page], op, arg))
        self.perform(op, page, arg)

    @precondition(lambda self: bool(self.unprobed()))
    @rule(choice=CHOICE)
    def refused_request(self, choice: int) -> None:
        """A request the spec does not allow here, on a page in a state not probed yet: the
        engine must refuse it and change nothing (a host action it must not take, an access
        that waits for the host)."""
        requests = self.unprobed()
        op, page, arg = requests[choice % len(requests)]
        self.probed.add(self.session.state.pages[page])
        self.perform(op, page, arg)

    @invariant()
    def spec_properties_hold_on_the_reported_state(self) -> None:
        broken = self.session.properties_of_last_step()
        assert not broken, (
            f"the state the engine reported breaks {', '.join(broken)} "
            "(the oracle agreed with it: a bug in the reference implementation)"
        )


def state_machine(session: Session, progress: Progress | None = None) -> type[ConformanceMachine]:
    """A state machine class driving ``session``'s engine beside its oracle."""
    profile = session.profile

    class Machine(ConformanceMachine):
        pass

    Machine.__name__ = Machine.__qualname__ = f"Conformance{profile.variant}"
    Machine.session = session
    Machine.all_requests = tuple(
        (op, page, arg)
        for page in range(profile.pages)
        for op in OPERATIONS
        if op in session.info.ops
        for arg in (profile.values if op == "Write" else (NO_VALUE,))
    )
    Machine.implemented = frozenset(Machine.all_requests)
    Machine._refused_memo = {}
    Machine.progress = progress
    Machine.examples = 0
    Machine.started = Machine._last_report = time.monotonic()
    return Machine
