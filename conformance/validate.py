"""Validating a trace an engine recorded itself, as CCF and etcd-raft validate theirs.

The trace (JSON lines or ITF, :mod:`conformance.trace`) is checked twice:

1. replayed through the oracle (:class:`RecordedEngine` plays the engine, answering each request
   with the reply it recorded), which finds the first step that is not the spec's and names the
   rule it breaks, with the same table as a live run;
2. written as a TLA+ module and checked by TLC against spec/PageStates.tla
   (:mod:`conformance.tla`), which confirms at which step the trace stops being a behaviour of
   the spec.

The two must agree; if they do not, the report says so (it would mean the reference
implementation and the spec differ).
"""

from __future__ import annotations

from dataclasses import dataclass

from refimpl.pagestates.profile import NO_VALUE

from .protocol import EngineInfo, OPERATIONS, ProfileRequest, Reply
from .session import DivergenceError, Session
from .trace import Trace


class RecordedEngine:
    """An engine that answers with a recorded trace: the reply recorded for each step."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.cursor = 0

    def hello(self, request: ProfileRequest) -> EngineInfo:
        name = str(self.trace.meta.get("engine", "recorded trace"))
        return EngineInfo(name, ProfileRequest.of(self.trace.profile), OPERATIONS)

    def reset(self) -> None:
        self.cursor = 0

    def step(self, op: str, page: int, arg: int) -> Reply:
        s = self.trace.steps[self.cursor]
        assert (s.op, s.page, s.arg) == (op, page, arg), "replay out of step with the trace"
        self.cursor += 1
        return Reply(s.state, s.dirty, s.outcome, s.value)

    def close(self) -> None:
        pass


@dataclass
class Replayed:
    """The oracle's verdict on a recorded trace: ``error`` is the first divergence (None when
    every step is the spec's); ``other_page`` describes a step that changed a page it did not
    name (only an ITF trace, which records every page, can show one)."""

    session: Session
    error: DivergenceError | None
    other_page: str = ""

    @property
    def step(self) -> int | None:
        """The 1-based step that is not the spec's, if any."""
        if self.error is not None:
            return self.error.steps[-1].index
        if self.other_page:
            return len(self.session.steps)
        return None


def replay_trace(trace: Trace) -> Replayed:
    engine = RecordedEngine(trace)
    info = engine.hello(ProfileRequest())
    session = Session(engine, trace.profile, info)
    session.reset()
    for s in trace.steps:
        try:
            session.step(s.op, s.page, s.arg)
        except DivergenceError as err:
            return Replayed(session, err)
        for q, (name, dirty) in s.seen.items():
            pg = session.state.pages[q]
            if q != s.page and (pg.name, pg.dirty) != (name, dirty):
                spec = pg.name + (" dirty" if pg.dirty else "")
                seen = name + (" dirty" if dirty else "")
                arg = "" if s.arg == NO_VALUE else f" {s.arg}"
                return Replayed(
                    session, None,
                    f"step {len(session.steps)} ({s.op} {s.page}{arg}) changed page {q}, which it "
                    f"does not name: the trace shows {seen}, the spec {spec} (every action of the "
                    "spec changes only the page it names)",
                )  # fmt: skip
    return Replayed(session, None)
