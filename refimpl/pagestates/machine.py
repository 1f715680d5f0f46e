"""The machine of spec/PageStates.tla for one profile: ``step`` and ``enabled_steps``.

``step(profile, state, op, page, arg)`` performs the spec's action ``op`` on ``page`` (``arg`` is
the value of a Write and :data:`~refimpl.pagestates.profile.NO_VALUE` otherwise) and returns the successor
state, or a :class:`Refused` when the action is disabled in ``state`` (the spec has no such step;
for example a Read of a preserved page, which waits for the host, or a HostDiscard of a stable
page). A refused step changes nothing. Malformed requests (an unknown operation, a page out of
range, a Write value outside ``profile.values``, an argument to an operation that takes none)
raise :class:`ValueError`.

``enabled_steps(profile, state)`` yields every enabled ``((op, page, arg), successor)``: the
spec's ``Next`` from ``state``, one entry per disjunct and per Write value.

Speed: a step depends only on the profile, the operation, the page's own values and the
argument (:mod:`refimpl.pagestates.rules`). :class:`Machine` memoises that per-page result, so a step is one
dictionary look-up and one tuple splice. The memo is filled from :mod:`refimpl.pagestates.rules` on first
use; a :class:`Machine` made after a change to those rules (a test that breaks one on purpose)
sees the change, while ``machine(profile)`` returns a shared one, made on first use. The memo
is keyed by the page's values, not by the page, so it stays small however many pages there are
(a few thousand entries).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..core.package import Refused
from . import rules
from .profile import NO_VALUE, Profile
from .state import OPS, LastOp, Page, State, init_state

#: A step as the spec's Perform(op, p, v) names it: (operation, page, argument).
Step = tuple[str, int, int]


# What a step does to one page, whichever page it is: the page's new values and lastOp's
# outcome and value, or the reason it is refused.
_Hit = tuple[Page, str, int] | str
_Move = tuple[Step, Page, LastOp]

# State(pages, lastOp) and LastOp(...) without the Python-level NamedTuple.__new__.
_new = tuple.__new__


class Machine:
    """The machine of one profile."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self._n = profile.pages
        # (op, arg, page values) -> _Hit: bounded by the number of page states, not of pages
        self._table: dict[tuple[str, int, Page], _Hit] = {}
        # (page, page values) -> every enabled step on that page
        self._moves: dict[tuple[int, Page], tuple[_Move, ...]] = {}
        self._requests: tuple[tuple[str, int], ...] = tuple(
            (op, arg)
            for op in OPS
            for arg in (profile.values if op == "Write" else (NO_VALUE,))
        )

    def init(self) -> State:
        """Spec: Init."""
        return init_state(self.profile.pages)

    def step(self, state: State, op: str, page: int, arg: int = NO_VALUE) -> State | Refused:
        """Spec: Perform(op, page, arg) from ``state``: the successor, or Refused."""
        pages = state.pages
        if not 0 <= page < self._n == len(pages):
            self._check(op, page, arg, state)  # raises ValueError: says what is wrong
        pg = pages[page]
        hit = self._table.get((op, arg, pg))
        if hit is None:
            hit = self._compile(op, page, arg, state)
        if isinstance(hit, str):
            return Refused(op, page, arg, hit)
        new, outcome, value = hit
        last = _new(LastOp, (op, page, arg, outcome, value))
        if new is pg:
            return _new(State, (pages, last))
        return _new(State, (pages[:page] + (new,) + pages[page + 1 :], last))

    def enabled_steps(self, state: State) -> Iterator[tuple[Step, State]]:
        """Spec: Next from ``state``: every enabled (op, page, arg) with its successor."""
        pages = state.pages
        if len(pages) != self._n:
            raise ValueError(f"the state has {len(pages)} pages, the profile {self._n}")
        for page, pg in enumerate(pages):
            moves = self._moves.get((page, pg))
            if moves is None:
                moves = self._compile_moves(page, state)
            for step, new, last in moves:
                if new is pg:
                    yield step, _new(State, (pages, last))
                else:
                    yield step, _new(State, (pages[:page] + (new,) + pages[page + 1 :], last))

    def _compile(self, op: str, page: int, arg: int, state: State) -> _Hit:
        self._check(op, page, arg, state)
        pg = state.pages[page]
        result = rules.ACTIONS[op](self.profile, pg, arg)
        hit: _Hit
        if isinstance(result, rules.Refusal):
            hit = result.reason
        else:
            hit = (pg if result.page == pg else result.page, result.outcome, result.value)
        self._table[op, arg, pg] = hit
        return hit

    def _compile_moves(self, page: int, state: State) -> tuple[_Move, ...]:
        pg = state.pages[page]
        moves: list[_Move] = []
        for op, arg in self._requests:
            hit = self._table.get((op, arg, pg))
            if hit is None:
                hit = self._compile(op, page, arg, state)
            if not isinstance(hit, str):
                new, outcome, value = hit
                moves.append(((op, page, arg), new, LastOp(op, page, arg, outcome, value)))
        result = tuple(moves)
        self._moves[page, pg] = result
        return result

    def _check(self, op: str, page: int, arg: int, state: State) -> None:
        if op not in rules.ACTIONS:
            raise ValueError(f"unknown operation {op!r}: one of {', '.join(OPS)}")
        n = self.profile.pages
        if len(state.pages) != n:
            raise ValueError(f"the state has {len(state.pages)} pages, the profile {n}")
        if not isinstance(page, int) or not 0 <= page < n:
            raise ValueError(f"{op}: page {page!r} is not one of 0 .. {n - 1}")
        values = self.profile.values
        if op == "Write":
            if arg not in values:
                raise ValueError(
                    f"Write: value {arg!r} is not one of the profile's values "
                    f"{{{', '.join(map(str, values))}}}"
                )
        elif arg != NO_VALUE:
            raise ValueError(f"{op} takes no argument (got {arg!r})")


_MACHINES: dict[Profile, Machine] = {}


def machine(profile: Profile) -> Machine:
    """The shared machine of ``profile`` (its memo persists between calls)."""
    m = _MACHINES.get(profile)
    if m is None:
        if len(_MACHINES) >= 64:
            _MACHINES.clear()
        m = _MACHINES[profile] = Machine(profile)
    return m


def init(profile: Profile) -> State:
    """Spec: Init under ``profile``."""
    return machine(profile).init()


# The profile of the last module-level step() and its machine, one tuple so that a thread
# never sees one's profile with another's machine.
_last: tuple[Profile, Machine] | None = None


def step(
    profile: Profile, state: State, op: str, page: int, arg: int = NO_VALUE
) -> State | Refused:
    """Spec: Perform(op, page, arg) under ``profile``: the successor, or Refused."""
    global _last
    last = _last
    if last is not None and last[0] is profile:
        return last[1].step(state, op, page, arg)
    m = machine(profile)
    _last = (profile, m)
    return m.step(state, op, page, arg)


def enabled_steps(profile: Profile, state: State) -> Iterator[tuple[Step, State]]:
    """Spec: Next under ``profile``: every enabled (op, page, arg) with its successor."""
    return machine(profile).enabled_steps(state)
