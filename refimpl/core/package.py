"""What a machine package gives the engine: :class:`MachinePackage`.

The engine (:mod:`refimpl.core`) and the conformance driver know a machine only through this
record, much as zarr.testing runs one state machine against any store: its spec and graph model,
its constants (from which every .cfg, hello and profile list is derived), its initial state and
labelled steps per graph model, how TLC prints a state of it, how a report shows one, and its
named properties. :data:`refimpl.pagestates.PAGE_STATES` and :data:`refimpl.essa.ESSA` are the two.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Generic, NamedTuple, Protocol, TypeVar

from .constants import Constant, combinations, short_name
from .graph import Presenter, StateGraph, Successors, reachable_graph
from .properties import PropertySet

REPO_ROOT: Final = Path(__file__).resolve().parents[2]
SPEC_DIR: Final = REPO_ROOT / "spec"
GRAPH_DIR: Final = REPO_ROOT / "tests" / "fixtures" / "graph"

P = TypeVar("P", bound=Hashable)
S = TypeVar("S", bound=Hashable)
S_co = TypeVar("S_co", covariant=True)


class Refused(NamedTuple):
    """A disabled step: the spec has no such step in this state; nothing was performed."""

    op: str
    page: int
    arg: int
    reason: str


class StateReader(Protocol[S_co]):
    """Reads one state as TLC prints it (``/\\ usage = (p1 :> "S") ...``); ``variables`` are
    the spec's variable names."""

    variables: frozenset[str]

    def state(self, text: str) -> S_co: ...


@dataclass(frozen=True)
class GraphModel(Generic[P, S]):
    """A specification of the machine's graph module (with its action constraint, if any) and
    the reference implementation's steps that mirror it: ``successors(profile)`` gives the
    labelled steps from a state."""

    spec: str
    action_constraint: str | None
    successors: Callable[[P], Successors[S]]


@dataclass(frozen=True)
class MachinePackage(Generic[P, S]):
    """One machine of the reference implementation, as the engine and the driver see it."""

    #: The machine's name: the hello's ``machine`` field.
    name: str
    #: The spec module (``ESSA``: spec/ESSA.tla) and the module of the graph model TLC dumps
    #: (``MCEssaGraph``: tests/fixtures/graph/MCEssaGraph.tla).
    spec_module: str
    graph_module: str
    #: The spec's constants, besides Pages and NoPage, in the order of the profile's fields.
    constants: tuple[Constant, ...]
    #: The profile class: ``profile_type(pages=..., **{c.attr: ...})``.
    profile_type: Callable[..., P]
    init: Callable[[P], S]
    #: By name; "Spec" is the spec's Next.
    graph_models: Mapping[str, GraphModel[P, S]]
    #: ``reader(pages)`` reads TLC's states.
    reader: Callable[[int], StateReader[S]]
    show: Presenter[S]
    properties: PropertySet[P, S]

    @property
    def spec(self) -> Path:
        return SPEC_DIR / f"{self.spec_module}.tla"

    @property
    def graph_path(self) -> Path:
        return GRAPH_DIR / f"{self.graph_module}.tla"

    def profile(self, **fields: Any) -> P:
        """A profile of this machine from its fields (checked by the spec's ASSUME)."""
        return self.profile_type(**fields)

    def profiles(self, fixed: Mapping[str, Any] | None = None, pages: int = 1) -> list[P]:
        """Every combination of the constants' domains (``fixed``: field -> value pins some),
        on ``pages`` pages, leaving out the combinations the spec's ASSUME rejects (the profile
        type raises ValueError for them)."""
        out = []
        for fields in combinations(self.constants, fixed):
            try:
                out.append(self.profile_type(**fields, pages=pages))
            except ValueError:
                continue
        return out

    def short_name(self, profile: P) -> str:
        return short_name(self.constants, profile)

    def state_graph(self, profile: P, model: str = "Spec") -> StateGraph[S]:
        """The reference implementation's state graph under ``profile`` for a graph model."""
        if model not in self.graph_models:
            raise ValueError(f"unknown graph model {model!r}: one of {', '.join(self.graph_models)}")
        return reachable_graph(self.init(profile), self.graph_models[model].successors(profile))


def labelled(steps: Iterable[tuple[tuple[str, int, int], S]]) -> Iterable[tuple[str, S]]:
    """(action, page, argument) steps as (label, successor): TLC labels a step by its action."""
    return ((step[0], t) for step, t in steps)
