"""The ESSA machine (spec/ESSA.tla) as a package of the engine: :data:`ESSA`.

What the engine needs besides the machine itself (:mod:`~refimpl.essa.machine`): the spec's
constants (:data:`~refimpl.essa.profile.CONSTANTS`), how TLC prints a state
(:class:`EssaStateReader`), how a report shows one, and the graph models of
tests/fixtures/graph/MCEssaGraph.tla (ESSAProperties without symmetry, plus the twins of the
"bites" tests):

* ``Spec``: the spec's Next;
* ``Instruction``: Next, and the bare instruction (:func:`refimpl.essa.essa`, the entry point of a
  conformance harness) with every ORC 0 .. 8 on every page as a step of its own;
* ``Probe``: the same under ``ACTION_CONSTRAINT NotAfterInstruction``: every state of Spec is
  probed with every ORC and the probes end there;
* ``Queue``: the steps of Next that fill and empty the CBRL, store and migrate.

An edge's label is the name of the spec's action (TLC's action label): ``GuestMakeVolatile`` for
ORC 3 and 4 alike, the successor's ``lastOp`` telling them apart; ``ESSAInstruction`` for the
bare instruction.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Final

from ..core.graph import Presenter, Successors
from ..core.package import GraphModel, MachinePackage, Refused, labelled
from ..core.tlc import TlcGraphError, TlcStateReader, field
from tlcrunner.tlavalues import Record
from .machine import ORC_CODES, enabled_steps, essa, init, interpreted_paths
from .profile import CONSTANTS, EssaProfile
from .properties import PROPERTIES
from .state import EssaLastOp, EssaPage, EssaState, show_cbrl, show_last_op, show_page, show_state

VARIABLES: Final = frozenset(EssaPage._fields + ("cbrl", "pageTable", "migrated", "lastOp"))

#: The action label of the bare instruction (MCEssaGraph.tla's ESSAInstruction).
INSTRUCTION_LABEL: Final = "ESSAInstruction"
#: The actions of MCEssaGraph.tla's QueueNext.
QUEUE_ACTIONS: Final = frozenset(
    {"GuestFree", "GuestWrite", "GuestMakeVolatile", "HostReclaim", "HostProcessCBRL", "Migrate"}
)


def next_steps(profile: EssaProfile, s: EssaState) -> Iterator[tuple[str, EssaState]]:
    """The spec's Next: (action name, successor) for every enabled step."""
    return iter(labelled(enabled_steps(profile, s)))


def instruction_steps(profile: EssaProfile, s: EssaState) -> Iterator[tuple[str, EssaState]]:
    """MCEssaGraph.tla's InstructionNext: Next, and the instruction with every ORC 0 .. 8 on
    every page."""
    yield from next_steps(profile, s)
    for p in range(profile.pages):
        for orc in ORC_CODES:
            for interpreted in interpreted_paths(profile, s):
                r = essa(profile, s, orc, p, interpreted=interpreted)
                if not isinstance(r, Refused):
                    yield INSTRUCTION_LABEL, r[0]


def probe_steps(profile: EssaProfile, s: EssaState) -> Iterator[tuple[str, EssaState]]:
    """InstructionNext under ``ACTION_CONSTRAINT NotAfterInstruction``."""
    if s.lastOp.op != "ESSA":
        yield from instruction_steps(profile, s)


def queue_steps(profile: EssaProfile, s: EssaState) -> Iterator[tuple[str, EssaState]]:
    """MCEssaGraph.tla's QueueNext."""
    for label, t in next_steps(profile, s):
        if label in QUEUE_ACTIONS:
            yield label, t


_Steps = Callable[[EssaProfile, EssaState], Iterator[tuple[str, EssaState]]]


def _model(spec: str, constraint: str | None, steps: _Steps) -> GraphModel[EssaProfile, EssaState]:
    def successors(profile: EssaProfile) -> Successors[EssaState]:
        return functools.partial(steps, profile)

    return GraphModel(spec, constraint, successors)


#: The graph models by name.
GRAPH_MODELS: Final = {
    "Spec": _model("Spec", None, next_steps),
    "Instruction": _model("InstructionSpec", None, instruction_steps),
    "Probe": _model("InstructionSpec", "NotAfterInstruction", probe_steps),
    "Queue": _model("QueueSpec", None, queue_steps),
}


class EssaStateReader(TlcStateReader):
    """ESSA states as TLC prints them -> :class:`~refimpl.essa.state.EssaState`."""

    variables = VARIABLES

    def _last_op(self, rec: Record) -> EssaLastOp:
        return EssaLastOp(
            field(rec, "op", str), self.page(rec["page"], "lastOp.page"),
            field(rec, "orc", int), field(rec, "result", int),
            field(rec, "outcome", str), field(rec, "value", int),
        )  # fmt: skip

    def _cbrl(self, value: object) -> tuple[int, ...]:
        if not isinstance(value, tuple):
            raise TlcGraphError(f"cbrl is not a sequence: {value!r}")
        return tuple(self.page(v, "a CBRL entry") for v in value)

    def state(self, text: str) -> EssaState:
        return self.state_of(self.variables_of(text))

    def state_of(self, parts: dict[str, str]) -> EssaState:
        """The state from the text of each variable (ESSA.tla's; a spec that extends it may
        have more)."""
        kinds = {name: type(getattr(_INIT, name)) for name in EssaPage._fields}
        columns = zip(*(self.column(kinds[name], name, parts[name]) for name in EssaPage._fields))
        return EssaState(
            tuple(EssaPage(*c) for c in columns),
            self.cached("cbrl", parts["cbrl"], self._cbrl),
            self.boolean("pageTable", parts["pageTable"]),
            self.boolean("migrated", parts["migrated"]),
            self.record("lastOp", parts["lastOp"], EssaLastOp._fields, self._last_op),
        )


_INIT: Final = init(EssaProfile()).pages[0]


def _edge(label: str, target: EssaState) -> str:
    return f"{show_last_op(target.lastOp)} (action {label}), to {show_state(target)}"


def _row(s: EssaState) -> str:
    pages = "; ".join(show_page(pg) for pg in s.pages)
    mig = " migrated" if s.migrated else ""
    return f"{show_last_op(s.lastOp):<48} {pages}; cbrl {show_cbrl(s.cbrl)}{mig}"


#: The ESSA machine.
ESSA: Final = MachinePackage[EssaProfile, EssaState](
    name="ESSA", spec_module="ESSA", graph_module="MCEssaGraph", constants=CONSTANTS,
    profile_type=EssaProfile, init=init, graph_models=GRAPH_MODELS, reader=EssaStateReader,
    show=Presenter(show_state, _edge, _row), properties=PROPERTIES,
)
