"""One engine driven beside the oracle: every request checked, every step recorded.

A :class:`Session` sends each step to the engine and performs the same step on the reference
implementation (the oracle, which also keeps the spec's ghost variables: what the guest is owed).
The engine's reply must match the oracle's exactly: outcome, value, the page's two-letter state and
its change bit, or ``Refused`` where the spec has no such step. The first reply that does not match
raises :class:`DivergenceError` with a :class:`~conformance.judge.Verdict` naming the rule broken;
a reply that breaks the protocol raises :class:`EngineFaultError`. Either carries the steps so far
(:attr:`Session.steps`), from which the report, the ITF trace and the TLA+ trace are written.

All nondeterminism is the caller's: the host actions are requests like the guest's, so a correct
engine's replies are fully determined by the requests.
"""

from __future__ import annotations

from dataclasses import dataclass

from refimpl import Machine, Profile, Refused, State
from refimpl.pagestates.profile import NO_VALUE
from refimpl.pagestates.properties import ACTION_PROPERTIES, INVARIANTS

from .engine import Engine
from .judge import Verdict, judge
from .protocol import (
    REFUSED, EngineFault, EngineInfo, ProfileRequest, ProtocolError, Reply, Unsupported, check_reply,
)  # fmt: skip
from .jsonlines import JsonLinesEngine


@dataclass(frozen=True)
class StepRecord:
    """One step: the request, the oracle's state before and answer, and the engine's reply.

    ``after`` is the state the suite holds after the step: the oracle's successor when the engine
    agreed (or the state before, for an agreed refusal), the engine's claimed state when it did
    not (None when it refused a step the spec performs, or faulted)."""

    index: int  # 1-based
    op: str
    page: int
    arg: int
    before: State
    expected: State | Refused
    reply: Reply | None
    after: State | None

    @property
    def agreed(self) -> bool:
        return self.reply is not None and self.after is not None and _matches(
            self.before, self.page, self.expected, self.reply
        )


def _matches(before: State, page: int, expected: State | Refused, reply: Reply) -> bool:
    if isinstance(expected, Refused):
        pg = before.pages[page]
        return reply.outcome == REFUSED and reply.state == pg.name and reply.dirty == pg.dirty
    pg = expected.pages[page]
    lo = expected.lastOp
    return (
        reply.outcome == lo.outcome
        and reply.value == lo.value
        and reply.state == pg.name
        and reply.dirty == pg.dirty
    )


class DivergenceError(AssertionError):
    """The engine's reply differs from the spec's. An AssertionError, so that hypothesis treats it
    as a test failure and shrinks it."""

    def __init__(self, profile: Profile, steps: list[StepRecord], verdict: Verdict) -> None:
        last = steps[-1]
        arg = "" if last.arg == NO_VALUE else f" {last.arg}"
        super().__init__(
            f"step {last.index} ({last.op} {last.page}{arg}): {verdict.headline}"
        )
        self.profile = profile
        self.steps = list(steps)
        self.verdict = verdict


class EngineFaultError(Exception):
    """The engine broke the protocol at a step (or in the handshake or a reset: step 0)."""

    def __init__(self, profile: Profile | None, steps: list[StepRecord], where: str,
                 fault: EngineFault) -> None:  # fmt: skip
        super().__init__(f"{where}: {fault.kind}: {fault.message}")
        self.profile = profile
        self.steps = list(steps)
        self.where = where
        self.fault = fault


class InProcessEngine:
    """An in-process engine behind the checks the JSON-lines transport makes: its replies are
    validated like decoded JSON, and an exception it raises is a fault, not a crash of the
    suite."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def hello(self, request: ProfileRequest) -> EngineInfo:
        try:
            info = self.engine.hello(request)
        except Unsupported:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of the engine is reported
            raise EngineFault("crash", f"hello raised {type(exc).__name__}: {exc}") from exc
        if not isinstance(info, EngineInfo):
            raise EngineFault("protocol", f"hello returned {info!r}, not an EngineInfo")
        return info

    def reset(self) -> None:
        try:
            self.engine.reset()
        except Exception as exc:  # noqa: BLE001
            raise EngineFault("crash", f"reset raised {type(exc).__name__}: {exc}") from exc

    def step(self, op: str, page: int, arg: int) -> Reply:
        try:
            reply = self.engine.step(op, page, arg)
        except Exception as exc:  # noqa: BLE001
            raise EngineFault("crash", f"step raised {type(exc).__name__}: {exc}") from exc
        try:
            return check_reply(op, reply)
        except ProtocolError as exc:
            raise EngineFault("protocol", str(exc)) from None

    def close(self) -> None:
        self.engine.close()


def checked(engine: Engine) -> Engine:
    """``engine`` with its replies validated: JSON-lines engines validate their own."""
    if isinstance(engine, (JsonLinesEngine, InProcessEngine)):
        return engine
    return InProcessEngine(engine)


def _where(op: str, page: int, arg: int, index: int) -> str:
    return f"step {index} ({op} {page}{'' if arg == NO_VALUE else f' {arg}'})"


class Session:
    """An engine that has said hello, driven beside the oracle for ``profile``.

    ``check_properties`` evaluates the spec's properties on every step the engine reports (the
    state machine calls :meth:`properties_of_last_step` after each step); the results are
    memoised by step, since a correct engine visits few distinct steps.
    """

    def __init__(self, engine: Engine, profile: Profile, info: EngineInfo) -> None:
        self.engine = engine
        self.profile = profile
        self.info = info
        self.machine = Machine(profile)
        self.state = self.machine.init()
        self.steps: list[StepRecord] = []
        self.total_steps = 0
        self._property_memo: dict[tuple[State, State], list[str]] = {}

    def reset(self) -> None:
        try:
            self.engine.reset()
        except EngineFault as fault:
            raise EngineFaultError(self.profile, [], "reset", fault) from None
        self.state = self.machine.init()
        self.steps = []

    def step(self, op: str, page: int, arg: int = NO_VALUE) -> Reply:
        """Send one step to the engine and check its reply against the oracle."""
        before = self.state
        expected = self.machine.step(before, op, page, arg)
        index = len(self.steps) + 1
        self.total_steps += 1
        try:
            reply = self.engine.step(op, page, arg)
        except EngineFault as fault:
            self.steps.append(StepRecord(index, op, page, arg, before, expected, None, None))
            raise EngineFaultError(
                self.profile, self.steps, _where(op, page, arg, index), fault
            ) from None
        if _matches(before, page, expected, reply):
            after = before if isinstance(expected, Refused) else expected
            self.steps.append(StepRecord(index, op, page, arg, before, expected, reply, after))
            self.state = after
            return reply
        verdict = judge(self.profile, before, op, page, arg, expected, reply)
        self.steps.append(
            StepRecord(index, op, page, arg, before, expected, reply, verdict.claimed)
        )
        raise DivergenceError(self.profile, self.steps, verdict)

    def properties_of_last_step(self) -> list[str]:
        """The spec's properties the last step breaks, evaluated on the state the engine
        reported (which, once its reply matched, is the oracle's state)."""
        if not self.steps:
            before = after = self.state
        else:
            last = self.steps[-1]
            if last.after is None:
                return []
            before, after = last.before, last.after
        key = (before, after)
        found = self._property_memo.get(key)
        if found is None:
            found = [n for n, inv in INVARIANTS.items() if not inv(self.profile, after)]
            found += [
                n for n, prop in ACTION_PROPERTIES.items() if not prop(self.profile, before, after)
            ]
            if len(self._property_memo) > 100_000:
                self._property_memo.clear()
            self._property_memo[key] = found
        return found
