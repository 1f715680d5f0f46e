"""State graphs (every reachable state, every labelled transition) and their comparison.

:func:`reachable_graph` explores a machine of the reference implementation from its initial state
by a successor function (a :class:`~refimpl.core.package.GraphModel` of the machine's package);
:mod:`refimpl.core.tlc` reads the graph TLC dumps for the spec. :func:`compare` checks that two
graphs have the same states and the same (state, label, state) edges and, when they differ, says
where first: a breadth-first walk from the initial states finds the nearest state whose outgoing
edges differ, and the report shows the path to it and the differing edges.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

S = TypeVar("S", bound=Hashable)

#: The steps from a state: (label, successor) for each, the label being TLC's action label.
Successors = Callable[[S], Iterable[tuple[str, S]]]


@dataclass
class StateGraph(Generic[S]):
    """States by index, and per state the set of (label, successor index)."""

    states: list[S]
    index: dict[S, int]
    initial: list[int]
    edges: list[set[tuple[str, int]]]

    @property
    def n_edges(self) -> int:
        return sum(len(out) for out in self.edges)


def reachable_graph(init: S, successors: Successors[S]) -> StateGraph[S]:
    """Every state reachable from ``init`` by ``successors``, and every step, labelled."""
    states = [init]
    index = {init: 0}
    edges: list[set[tuple[str, int]]] = []
    i = 0
    while i < len(states):
        out: set[tuple[str, int]] = set()
        for label, succ in successors(states[i]):
            j = index.get(succ)
            if j is None:
                j = index[succ] = len(states)
                states.append(succ)
            out.add((label, j))
        edges.append(out)
        i += 1
    return StateGraph(states, index, [0], edges)


@dataclass(frozen=True)
class Difference:
    """How two graphs differ; ``message`` says it readably."""

    message: str
    states_only_left: int
    states_only_right: int
    edges_only_left: int
    edges_only_right: int


@dataclass(frozen=True)
class Presenter(Generic[S]):
    """How a difference report shows a state, a step into a state, and a row of a path."""

    state: Callable[[S], str]
    edge: Callable[[str, S], str]
    row: Callable[[S], str]


def _path(g: StateGraph[S], parent: dict[int, int | None], i: int, row: Callable[[S], str]) -> list[str]:
    """The rows of the breadth-first path from an initial state to state ``i``."""
    chain: list[int] = []
    node: int | None = i
    while node is not None:
        chain.append(node)
        node = parent[node]
    return [f"    {n:>3}  {row(g.states[k])}" for n, k in enumerate(reversed(chain))]


def compare(
    left: StateGraph[S],
    right: StateGraph[S],
    show: Presenter[S],
    left_name: str = "TLC",
    right_name: str = "refimpl",
) -> Difference | None:
    """None if the graphs are equal; else the difference, first in breadth-first order."""
    # right index -> left index; a state only on the right gets -1 - (its right index)
    to_left = [left.index.get(s, -1 - k) for k, s in enumerate(right.states)]
    left_to_right = {li: k for k, li in enumerate(to_left) if li >= 0}
    states_only_left = len(left.states) - len(left_to_right)
    states_only_right = len(right.states) - len(left_to_right)

    def right_out(li: int) -> set[tuple[str, int]]:
        k = left_to_right.get(li)
        if k is None:
            return set()
        return {(label, to_left[j]) for label, j in right.edges[k]}

    def state_of(i: int) -> S:
        return left.states[i] if i >= 0 else right.states[-1 - i]

    edges_only_left = edges_only_right = 0
    for li in range(len(left.states)):
        lo, ro = left.edges[li], right_out(li)
        if lo != ro:
            edges_only_left += len(lo - ro)
            edges_only_right += len(ro - lo)
    edges_only_right += sum(len(right.edges[k]) for k, li in enumerate(to_left) if li < 0)

    counts = (states_only_left, states_only_right, edges_only_left, edges_only_right)
    totals = (
        f"{left_name}: {len(left.states)} states, {left.n_edges} edges; "
        f"{right_name}: {len(right.states)} states, {right.n_edges} edges; "
        f"only in {left_name}: {states_only_left} states, {edges_only_left} edges; "
        f"only in {right_name}: {states_only_right} states, {edges_only_right} edges"
    )

    left_init = set(left.initial)
    right_init = {to_left[k] for k in right.initial}
    if left_init != right_init:
        lines = [f"the initial states differ ({totals})"]
        for name, init_only in ((left_name, left_init - right_init),
                                (right_name, right_init - left_init)):  # fmt: skip
            lines += [f"  only in {name}: {show.state(state_of(i))}" for i in sorted(init_only)]
        return Difference("\n".join(lines), *counts)

    parent: dict[int, int | None] = {i: None for i in sorted(left_init)}
    queue = deque(sorted(left_init))
    while queue:
        li = queue.popleft()
        lo, ro = left.edges[li], right_out(li)
        if lo != ro:

            def key(edge: tuple[str, int]) -> tuple[str, str]:
                return edge[0], show.state(state_of(edge[1]))

            only_l = sorted(lo - ro, key=key)
            only_r = sorted(ro - lo, key=key)
            lines = [
                f"{left_name} and {right_name} differ in the steps from a state reached by this "
                "path (step, operation -> outcome, pages):",
                *_path(left, parent, li, show.row),
            ]
            sides = ((left_name, only_l, right_name), (right_name, only_r, left_name))
            for name, only, other in sides:
                for label, j in only:
                    shared = j >= 0 and j in left_to_right
                    new = "" if shared else f" (a state {other} does not have)"
                    step = show.edge(label, state_of(j))
                    lines.append(f"  only {name} has the step {step}{new}")
            lines.append(totals)
            return Difference("\n".join(lines), *counts)
        for _label, j in sorted(lo):
            if j not in parent:
                parent[j] = li
                queue.append(j)
    if any(counts):
        # Equal from the initial states on, yet different: a graph holds unreachable states.
        return Difference(
            f"the graphs hold states unreachable from the initial states ({totals})", *counts
        )
    return None
