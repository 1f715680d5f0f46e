"""The page-state machine (spec/PageStates.tla) as a package of the engine: :data:`PAGE_STATES`.

What the engine needs besides the machine itself (:mod:`~refimpl.pagestates.machine`): the
spec's constants, how TLC prints a state (:class:`PageStatesReader`), how a report shows one,
and the graph model (tests/fixtures/graph/MCGraph.tla: PageStateProperties without symmetry,
plus the twins of the "bites" tests).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from ..core.constants import Constant
from ..core.graph import Presenter, Successors
from ..core.package import GraphModel, MachinePackage, labelled
from ..core.tlc import TlcStateReader, field
from tlcrunner.tlavalues import Record
from .machine import Machine
from .profile import UNUSED_ACCESSES, VARIANTS, Profile
from .properties import PROPERTIES
from .state import LastOp, Page, State, init_state, show_last_op, show_page, show_state

#: The spec's constants (besides Pages and NoPage), in the order of Profile's fields.
CONSTANTS: Final = (
    Constant("Variant", "variant", VARIANTS, "which machine of the paper"),
    Constant("HostService", "host_service", (True, False),
             "guest primitives are host service calls with implicit host transitions"),
    Constant("UnusedAccess", "unused_access", UNUSED_ACCESSES, "what an access to a U page does"),
    Constant("Values", "values", ((0, 1),), "what a Write may store"),
)  # fmt: skip

VARIABLES: Final = frozenset({"usage", "resid", "dirty", "data", "intended", "modified", "requested",
                              "lastOp"})


def _last_op(reader: TlcStateReader, rec: Record) -> LastOp:
    return LastOp(
        field(rec, "op", str), reader.page(rec["page"], "lastOp.page"), field(rec, "arg", int),
        field(rec, "outcome", str), field(rec, "value", int),
    )  # fmt: skip


class PageStatesReader(TlcStateReader):
    """PageStates states as TLC prints them -> :class:`~refimpl.pagestates.state.State`."""

    variables = VARIABLES

    def state(self, text: str) -> State:
        parts = self.variables_of(text)
        columns = zip(
            self.column(str, "usage", parts["usage"]),
            self.column(str, "resid", parts["resid"]),
            self.column(bool, "dirty", parts["dirty"]),
            self.column(int, "data", parts["data"]),
            self.column(int, "intended", parts["intended"]),
            self.column(bool, "modified", parts["modified"]),
            self.column(str, "requested", parts["requested"]),
        )
        last = self.record("lastOp", parts["lastOp"], LastOp._fields,
                           lambda rec: _last_op(self, rec))  # fmt: skip
        return State(tuple(Page(*c) for c in columns), last)


def _edge(label: str, target: State) -> str:
    via = f" (labelled {label})" if label != target.lastOp.op else ""
    return f"{show_last_op(target.lastOp)}{via}, to {show_state(target)}"


def _row(s: State) -> str:
    pages = "  ".join(show_page(pg) for pg in s.pages)
    return f"{show_last_op(s.lastOp):<40} {pages}"


def next_steps(profile: Profile) -> Successors[State]:
    """The spec's Next, labelled by operation, from a fresh :class:`Machine` (so a test that
    changes a rule table sees the change)."""
    m = Machine(profile)

    def successors(s: State) -> Iterator[tuple[str, State]]:
        return iter(labelled(m.enabled_steps(s)))

    return successors


def init(profile: Profile) -> State:
    """Spec: Init."""
    return init_state(profile.pages)


#: The page-state machine.
PAGE_STATES: Final = MachinePackage[Profile, State](
    name="PageStates", spec_module="PageStates", graph_module="MCGraph", constants=CONSTANTS,
    profile_type=Profile, init=init, graph_models={"Spec": GraphModel("Spec", None, next_steps)},
    reader=PageStatesReader, show=Presenter(show_state, _edge, _row), properties=PROPERTIES,
)
