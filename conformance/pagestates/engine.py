"""Plugging an engine in, in-process: the :class:`Engine` protocol, and the reference engine.

An in-process engine is any object with these four methods (a structural protocol: no base class
needed)::

    class MyEngine:
        def hello(self, request: ProfileRequest) -> EngineInfo: ...
        def reset(self) -> None: ...
        def step(self, op: str, page: int, arg: int) -> Reply: ...
        def close(self) -> None: ...

``hello`` is asked once, before anything else: ``request`` names what the driver wants (fields
left ``None`` are the engine's choice); the engine answers with the profile it will run, or raises
:class:`~conformance.protocol.Unsupported` if it cannot run the one asked for (the suite then skips
that profile, with the engine's reason). ``reset`` puts every page in the spec's Init (Sz, clean,
content 0). ``step`` performs one operation of the spec: ``op`` is one of
:data:`~conformance.protocol.OPERATIONS`, ``page`` in ``0 .. Pages-1``, ``arg`` the value of a
Write and -1 (the spec's NoValue) otherwise; it returns a :class:`~conformance.protocol.Reply`.
The semantics are PROTOCOL.md's, the same as over JSON lines.

:class:`ReferenceEngine` is the reference implementation behind this interface: correct by
construction (it is the oracle), it shows the shape of an adapter and is the base the mutants of
:mod:`conformance.pagestates.mutants` break.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from refimpl import Machine, Profile, ProfileError, Refused, State
from refimpl.pagestates.profile import NO_VALUE

from ..driver import load_class
from ..protocol import OPERATIONS, REFUSED, EngineInfo, ProfileRequest, Reply, Unsupported


@runtime_checkable
class Engine(Protocol):
    """An engine under test, in-process. See the module docstring and PROTOCOL.md."""

    def hello(self, request: ProfileRequest) -> EngineInfo:
        """The engine's name, the profile it runs, the operations it implements."""
        ...

    def reset(self) -> None:
        """Every page back to Init: Sz, clean, content 0."""
        ...

    def step(self, op: str, page: int, arg: int) -> Reply:
        """Perform ``op`` on ``page`` (``arg``: a Write's value, else -1) and report."""
        ...

    def close(self) -> None:
        """Release what the engine holds; no request follows."""
        ...


DEFAULT_REQUEST = ProfileRequest("Full", True, "AddressingException", 2)


class ReferenceEngine:
    """The reference implementation (refimpl) as an engine under test.

    It runs any profile it is asked for; what the driver leaves open comes from ``default``.
    Values are not bounded by a profile here (an engine stores whatever the guest writes).
    """

    name = "refimpl"

    def __init__(self, default: ProfileRequest = DEFAULT_REQUEST) -> None:
        self.default = default
        self.machine: Machine | None = None
        self.state: State | None = None

    def hello(self, request: ProfileRequest) -> EngineInfo:
        chosen = request.merged(self.default)
        try:
            # Values only bound what the driver may write; the engine itself takes any value.
            profile = chosen.complete(values=(0,))
        except ProfileError as exc:
            raise Unsupported(str(exc)) from exc
        self.machine = Machine(profile)
        self.state = self.machine.init()
        return EngineInfo(self.name, ProfileRequest.of(profile), self.operations())

    def operations(self) -> tuple[str, ...]:
        return OPERATIONS

    @property
    def profile(self) -> Profile:
        assert self.machine is not None, "hello first"
        return self.machine.profile

    def reset(self) -> None:
        assert self.machine is not None, "hello first"
        self.state = self.machine.init()

    def step(self, op: str, page: int, arg: int) -> Reply:
        assert self.machine is not None and self.state is not None, "hello first"
        before = self.state
        result = self._perform(before, op, page, arg)
        if isinstance(result, Refused):
            pg = before.pages[page]
            return Reply(pg.name, pg.dirty, REFUSED, NO_VALUE, result.reason)
        self.state = result
        pg = result.pages[page]
        return Reply(pg.name, pg.dirty, result.lastOp.outcome, result.lastOp.value)

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        """One step of the machine: the place a mutant changes the rules."""
        assert self.machine is not None
        # The profile's values bound what a driver writes, not what an engine stores: step
        # the memoised machine with any value by growing its profile when a new one comes.
        if op == "Write" and arg not in self.machine.profile.values:
            p = self.machine.profile
            self.machine = Machine(
                Profile(p.variant, p.host_service, p.unused_access, p.pages, p.values + (arg,))
            )
        return self.machine.step(state, op, page, arg)

    def close(self) -> None:
        self.machine = None
        self.state = None


def load_engine_class(spec: str) -> Engine:
    engine = load_class(spec)
    if not isinstance(engine, Engine):
        raise ValueError(f"{spec} is not an engine: it needs hello, reset, step and close")
    return engine
