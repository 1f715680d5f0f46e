"""State graphs of spec/ESSA.tla (every reachable state, every labelled transition), compared.

The counterpart of :mod:`refimpl.graph` for the ESSA machine: :func:`reachable_graph` explores
the reference implementation from Init, :mod:`refimpl.essa_tlcgraph` reads the graph TLC dumps,
and :func:`compare` checks that two graphs have the same states and the same (state, label,
state) edges and, when they differ, says where first: a breadth-first walk from the initial
states finds the nearest state whose outgoing edges differ, and the report shows the path to it
and the differing edges. An edge's label is the name of the spec's action (TLC's action label):
``GuestMakeVolatile`` for ORC 3 and 4 alike, the successor's ``lastOp`` telling them apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final, NamedTuple

from .essa import ORC_CODES, Refused, enabled_steps, essa
from .essa_state import EssaProfile, EssaState, show_cbrl, show_last_op, show_page, show_state
from .graph import Difference, Presenter, StateGraph
from .graph import compare as graph_compare


#: A state graph of the ESSA machine.
EssaGraph = StateGraph[EssaState]


Successors = Callable[[EssaProfile, EssaState], Iterator[tuple[str, EssaState]]]


def next_steps(profile: EssaProfile, s: EssaState) -> Iterator[tuple[str, EssaState]]:
    """The spec's Next: (action name, successor) for every enabled step."""
    for (action, _page, _orc), t in enabled_steps(profile, s):
        yield action, t


#: The action label of the bare instruction (MCEssaGraph.tla's ESSAInstruction).
INSTRUCTION_LABEL: Final = "ESSAInstruction"
#: The actions of MCEssaGraph.tla's QueueNext.
QUEUE_ACTIONS: Final = frozenset(
    {"GuestFree", "GuestWrite", "GuestMakeVolatile", "HostReclaim", "HostProcessCBRL", "Migrate"}
)


def instruction_steps(profile: EssaProfile, s: EssaState) -> Iterator[tuple[str, EssaState]]:
    """MCEssaGraph.tla's InstructionNext: Next, and :func:`refimpl.essa.essa` with every ORC
    0 .. 8 on every page."""
    yield from next_steps(profile, s)
    for p in range(profile.pages):
        for orc in ORC_CODES:
            r = essa(profile, s, orc, p)
            if not isinstance(r, Refused):
                yield INSTRUCTION_LABEL, r[0]


def probe_steps(profile: EssaProfile, s: EssaState) -> Iterator[tuple[str, EssaState]]:
    """InstructionNext under ``ACTION_CONSTRAINT NotAfterInstruction``: no step after an
    instruction, so every state of Spec is probed with every ORC and the probes end there."""
    if s.lastOp.op != "ESSA":
        yield from instruction_steps(profile, s)


def queue_steps(profile: EssaProfile, s: EssaState) -> Iterator[tuple[str, EssaState]]:
    """MCEssaGraph.tla's QueueNext: the steps of Next that fill and empty the CBRL, store and
    migrate."""
    for label, t in next_steps(profile, s):
        if label in QUEUE_ACTIONS:
            yield label, t


class GraphModel(NamedTuple):
    """A specification of MCEssaGraph.tla (with its action constraint, if any) and the
    refimpl's successors that mirror it."""

    spec: str
    action_constraint: str | None
    successors: Successors


#: The graph models by name.
GRAPH_MODELS: Final[dict[str, GraphModel]] = {
    "Spec": GraphModel("Spec", None, next_steps),
    "Instruction": GraphModel("InstructionSpec", None, instruction_steps),
    "Probe": GraphModel("InstructionSpec", "NotAfterInstruction", probe_steps),
    "Queue": GraphModel("QueueSpec", None, queue_steps),
}


def reachable_graph(
    profile: EssaProfile, init: EssaState, successors: Successors = next_steps
) -> EssaGraph:
    """Every state reachable from ``init`` by ``successors`` (the spec's Next unless told), and
    every step, labelled with its action."""
    states = [init]
    index = {init: 0}
    edges: list[set[tuple[str, int]]] = []
    i = 0
    while i < len(states):
        out: set[tuple[str, int]] = set()
        for label, succ in successors(profile, states[i]):
            j = index.get(succ)
            if j is None:
                j = index[succ] = len(states)
                states.append(succ)
            out.add((label, j))
        edges.append(out)
        i += 1
    return EssaGraph(states, index, [0], edges)


def _edge(label: str, target: EssaState) -> str:
    return f"{show_last_op(target.lastOp)} (action {label}), to {show_state(target)}"


def _row(s: EssaState) -> str:
    pages = "; ".join(show_page(pg) for pg in s.pages)
    mig = " migrated" if s.migrated else ""
    return f"{show_last_op(s.lastOp):<48} {pages}; cbrl {show_cbrl(s.cbrl)}{mig}"


#: How a difference report shows the ESSA machine's states.
ESSA: Presenter[EssaState] = Presenter(show_state, _edge, _row)


def compare(
    left: EssaGraph, right: EssaGraph, left_name: str = "TLC", right_name: str = "refimpl"
) -> Difference | None:
    """:func:`refimpl.graph.compare` for the ESSA machine."""
    return graph_compare(left, right, left_name, right_name, ESSA)
