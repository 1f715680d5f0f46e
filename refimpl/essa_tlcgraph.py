"""The state graph of spec/ESSA.tla, from TLC: run a model with ``-dump dot,actionlabels``, read it.

This module runs programs and reads files; it is the spec side of the ESSA equality test
(tests/test_refimpl_essa_equality.py), not part of the machine. The dot file's format is the one
:mod:`refimpl.tlcgraph` describes (one line per state, its label the state as TLA+ text; one line
per explored transition, labelled with the action: the name of the operator TLC's action
splitting stops at, here the spec's action names, ``GuestMakeVolatile`` for ORC 3 and 4 alike).
States are read with :mod:`tlcrunner.tlavalues`; pages are the model values ``p1``, ``p2`` ...
(page 0, 1 ...), and ``NoPage`` is ``NO_PAGE``.

The graph model is tests/fixtures/graph/MCEssaGraph.tla: ESSAProperties without symmetry, plus
the specifications of :data:`refimpl.essa_graph.GRAPH_MODELS` (the bare instruction, as steps or
as probes of every state; two pages and a CBRL of two) and the twins of the "bites" tests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from .essa_graph import GRAPH_MODELS, EssaGraph
from .essa_state import NO_PAGE, EssaLastOp, EssaPage, EssaProfile, EssaState
from tlcrunner.tlavalues import ModelValue, Record, TlaValue, parse_value, split_state
from .tlcgraph import REPO_ROOT, TlcGraphError, dump_state_graph, page_names

#: The graph model of the ESSA equality test.
ESSA_GRAPH_MODULE: Final = REPO_ROOT / "tests" / "fixtures" / "graph" / "MCEssaGraph.tla"

# One line per state and per transition (see refimpl.tlcgraph).
_NODE = re.compile(r'\n(-?\d+) \[label="([^\n]*)"(,style = filled)?\];?(?=\n)')
_EDGE = re.compile(r'\n(-?\d+) -> (-?\d+) \[label="([^"\n]*)"')
_VARIABLES: Final = frozenset(EssaPage._fields + ("cbrl", "migrated", "lastOp"))


def _dot_unescape(text: str) -> str:
    """Undo dot's string escapes, left to right: \\\\ is a backslash, \\" a quote, \\n a newline."""
    return "\\".join(
        piece.replace("\\n", "\n").replace('\\"', '"') for piece in text.split("\\\\")
    )


T = TypeVar("T", str, bool, int)


def _is(v: TlaValue, kind: type[T]) -> bool:
    # bool is an int in Python: keep the two apart.
    return isinstance(v, kind) and (kind is not int or not isinstance(v, bool))


def _field(rec: Record, name: str, kind: type[T]) -> T:
    v = rec[name]
    if not isinstance(v, kind) or not _is(v, kind):
        raise TlcGraphError(f"lastOp.{name}: expected {kind.__name__}, found {v!r}")
    return v


class EssaStateReader:
    """ESSA states as TLC prints them -> EssaStates. Each value text is converted once (states
    share most of them)."""

    def __init__(self, pages: int) -> None:
        self.pages = {ModelValue(name): i for i, name in enumerate(page_names(pages))}
        self._strs: dict[str, tuple[str, ...]] = {}
        self._bools: dict[str, tuple[bool, ...]] = {}
        self._ints: dict[str, tuple[int, ...]] = {}
        self._cbrls: dict[str, tuple[int, ...]] = {}
        self._last_ops: dict[str, EssaLastOp] = {}

    def _column(
        self, cache: dict[str, tuple[T, ...]], kind: type[T], var: str, text: str
    ) -> tuple[T, ...]:
        """A function of the pages, as a tuple indexed by page, each value of type ``kind``."""
        got = cache.get(text)
        if got is None:
            value = parse_value(text)
            if not isinstance(value, dict) or isinstance(value, Record) or set(value) != set(
                self.pages
            ):
                raise TlcGraphError(f"{var} is not a function of the pages: {value!r}")
            out: list[T] = [kind()] * len(self.pages)
            for key, v in value.items():
                if not isinstance(v, kind) or not _is(v, kind):
                    raise TlcGraphError(f"{var}[{key}]: expected {kind.__name__}, found {v!r}")
                out[self.pages[key]] = v  # type: ignore[index]  # key is a page: domain checked
            got = cache[text] = tuple(out)
        return got

    def _page(self, value: TlaValue, what: str) -> int:
        if value == ModelValue("NoPage"):
            return NO_PAGE
        if isinstance(value, ModelValue) and value in self.pages:
            return self.pages[value]
        raise TlcGraphError(f"{what} is not a page or NoPage: {value!r}")

    def _cbrl(self, text: str) -> tuple[int, ...]:
        got = self._cbrls.get(text)
        if got is None:
            value = parse_value(text)
            if not isinstance(value, tuple):
                raise TlcGraphError(f"cbrl is not a sequence: {value!r}")
            got = self._cbrls[text] = tuple(self._page(v, "a CBRL entry") for v in value)
        return got

    def _last_op(self, text: str) -> EssaLastOp:
        got = self._last_ops.get(text)
        if got is None:
            rec = parse_value(text)
            if not isinstance(rec, Record) or set(rec) != set(EssaLastOp._fields):
                raise TlcGraphError(
                    f"lastOp is not a record with fields {EssaLastOp._fields}: {rec!r}"
                )
            got = self._last_ops[text] = EssaLastOp(
                _field(rec, "op", str), self._page(rec["page"], "lastOp.page"),
                _field(rec, "orc", int), _field(rec, "result", int),
                _field(rec, "outcome", str), _field(rec, "value", int),
            )  # fmt: skip
        return got

    def state(self, text: str) -> EssaState:
        """The EssaState TLC printed as ``text`` (``/\\ usage = (p1 :> "S")`` ...)."""
        parts = split_state(text)
        if set(parts) != _VARIABLES:
            raise TlcGraphError(f"state variables {sorted(parts)}, expected {sorted(_VARIABLES)}")
        strs, bools, ints = self._strs, self._bools, self._ints
        columns = zip(
            self._column(strs, str, "usage", parts["usage"]),
            self._column(bools, bool, "valid", parts["valid"]),
            self._column(bools, bool, "swapped", parts["swapped"]),
            self._column(bools, bool, "zbit", parts["zbit"]),
            self._column(bools, bool, "nodat", parts["nodat"]),
            self._column(ints, int, "data", parts["data"]),
            self._column(bools, bool, "keyDirty", parts["keyDirty"]),
            self._column(bools, bool, "gc", parts["gc"]),
            self._column(ints, int, "owed", parts["owed"]),
            self._column(strs, str, "belief", parts["belief"]),
            self._column(bools, bool, "modified", parts["modified"]),
        )
        migrated = parse_value(parts["migrated"])
        if not isinstance(migrated, bool):
            raise TlcGraphError(f"migrated is not a Boolean: {migrated!r}")
        return EssaState(
            tuple(EssaPage(*c) for c in columns),
            self._cbrl(parts["cbrl"]),
            migrated,
            self._last_op(parts["lastOp"]),
        )


def read_dot(text: str, pages: int) -> EssaGraph:
    """The state graph in a dot file TLC wrote with ``-dump dot,actionlabels``."""
    text = "\n" + text + "\n"
    reader = EssaStateReader(pages)
    states: list[EssaState] = []
    index: dict[EssaState, int] = {}
    by_id: dict[str, int] = {}
    initial: list[int] = []
    n_nodes = 0
    for node in _NODE.finditer(text):
        n_nodes += 1
        fid = node.group(1)
        try:
            state = reader.state(_dot_unescape(node.group(2)))
        except (ValueError, TlcGraphError) as exc:  # TlaValueError is a ValueError
            raise TlcGraphError(f"dot line {_line_of(text, node.start())}: {exc}") from exc
        if fid in by_id:
            if states[by_id[fid]] != state:
                raise TlcGraphError(f"dot line {_line_of(text, node.start())}: state {fid} "
                                    "given twice, differently")  # fmt: skip
            continue
        if state in index:
            raise TlcGraphError(f"dot line {_line_of(text, node.start())}: states {fid} and "
                                "another read as the same state: the reader loses information")
        by_id[fid] = index[state] = len(states)
        states.append(state)
        if node.group(3):
            initial.append(by_id[fid])
    edges: list[set[tuple[str, int]]] = [set() for _ in states]
    n_edges = 0
    try:
        for edge in _EDGE.finditer(text):
            src, dst, label = edge.groups()
            edges[by_id[src]].add((label, by_id[dst]))
            n_edges += 1
    except KeyError as exc:
        raise TlcGraphError(f"an edge names state {exc.args[0]}, which has no node line") from None
    if n_edges != text.count(" -> ") or n_nodes + n_edges != text.count(' [label="'):
        raise TlcGraphError(
            f"the dot file has lines this reader does not recognise: {n_nodes} states and "
            f"{n_edges} transitions read, but {text.count(' [label=')} labels"
        )
    if not initial:
        raise TlcGraphError("no initial state (style = filled) in the dot file")
    return EssaGraph(states, index, initial, edges)


def _line_of(text: str, offset: int) -> int:
    """The line number in the file of the line at ``offset`` of the newline-wrapped text."""
    return text.count("\n", 0, offset + 1)


# --------------------------------------------------------------------------- running TLC


def essa_graph_cfg(
    profile: EssaProfile, overrides: Mapping[str, str] | None = None, model: str = "Spec"
) -> str:
    """A .cfg for the graph model: the profile's constants, the specification of ``model`` (a
    key of :data:`~refimpl.essa_graph.GRAPH_MODELS`), no symmetry, no properties.

    ``overrides`` maps a spec operator to a twin defined in the graph module (``.cfg``'s ``<-``).
    """
    if model not in GRAPH_MODELS:
        raise ValueError(f"unknown graph model {model!r}: one of {', '.join(GRAPH_MODELS)}")
    spec, constraint, _ = GRAPH_MODELS[model]

    def tla(b: bool) -> str:
        return "TRUE" if b else "FALSE"

    lines = [
        f"\\* Generated by refimpl.essa_tlcgraph for: {profile.describe()}",
        "CONSTANTS",
        f"    Pages = {{{', '.join(page_names(profile.pages))}}}",
        "    NoPage = NoPage",
        f'    Impl = "{profile.impl}"',
        f"    StorageKeys = {tla(profile.storage_keys)}",
        f"    Facility147 = {tla(profile.facility147)}",
        f"    CBRLSize = {profile.cbrl_size}",
        *(f"    {name} <- {twin}" for name, twin in (overrides or {}).items()),
        f"SPECIFICATION {spec}",
        *([f"ACTION_CONSTRAINT {constraint}"] if constraint else []),
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class TlcEssaGraph:
    graph: EssaGraph
    seconds: float  # TLC's wall time, JVM start included
    cfg: str


def tlc_essa_graph(
    profile: EssaProfile,
    *,
    jar: Path,
    java: str = "java",
    module: Path = ESSA_GRAPH_MODULE,
    overrides: Mapping[str, str] | None = None,
    model: str = "Spec",
    timeout: float = 600.0,
) -> TlcEssaGraph:
    """Run TLC on ``module`` under ``profile`` and read the full state graph it dumps."""
    cfg = essa_graph_cfg(profile, overrides, model)
    text, seconds = dump_state_graph(
        module, cfg, profile.describe(), jar=jar, java=java, timeout=timeout
    )
    return TlcEssaGraph(read_dot(text, profile.pages), seconds, cfg)
