"""State diagrams of the page-state machine, drawn from TLC's state graph, not by hand.

For each machine, TLC dumps the full state graph of a one-page model (``-dump dot,actionlabels``,
read by :mod:`refimpl.core.tlc`). Its states carry content, ghost variables and the last
observation; the diagram projects each onto the paper's two-letter state (usage x residency) and
keeps every transition that changes it, labelled with the action, guest actions drawn solid and
host actions dashed. An action that takes a transition only with a clean (or only with a dirty)
change bit says so: ``HostDiscard [clean]``. Steps that keep the two-letter state (Read, Write,
Extract, ClearDirty, a primitive that asks for the usage the page has) are left out.

``python -m refimpl.diagrams`` writes docs/diagrams/<name>.dot for every machine, and the SVG
next to it where Graphviz's ``dot`` is installed. The .dot text is deterministic, so the test
suite regenerates it and fails when a committed diagram no longer matches the spec.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from .core.graph import StateGraph
from .pagestates.profile import ADDRESSING_EXCEPTION, Profile
from .pagestates.state import OPS, State
from .core.package import REPO_ROOT
from .core.tlc import tlc_state_graph
from .pagestates import PAGE_STATES

DIAGRAM_DIR: Final = REPO_ROOT / "docs" / "diagrams"
HOST_OPS: Final = frozenset(op for op in OPS if op.startswith("Host"))
RESIDENCY_ORDER: Final = ("r", "p", "z")
USAGE_ORDER: Final = ("S", "U", "V", "P")


@dataclass(frozen=True)
class Diagram:
    name: str
    title: str
    profile: Profile


DIAGRAMS: Final = (
    Diagram("full", "The full machine (paper Figure 1), guest primitives through a host service",
            Profile("Full", True, ADDRESSING_EXCEPTION)),
    Diagram("full-direct", "The full machine, guest primitives without a host service",
            Profile("Full", False, ADDRESSING_EXCEPTION)),
    Diagram("zvm-prototype", "The z/VM prototype machine (paper Figure 3)",
            Profile("ZVMPrototype", True, ADDRESSING_EXCEPTION)),
    Diagram("one-discarded-state", "Simplification 1: Vz and Pz collapsed into Vz",
            Profile("OneDiscardedState", True, ADDRESSING_EXCEPTION)),
    Diagram("no-vp", "Simplification 2: no Vp", Profile("NoVp", True, ADDRESSING_EXCEPTION)),
    Diagram("no-pp", "Simplification 3: no Pp", Profile("NoPp", True, ADDRESSING_EXCEPTION)),
    Diagram("no-p", "Simplification 4: no P usage state", Profile("NoP", True, ADDRESSING_EXCEPTION)),
)  # fmt: skip


def transitions(graph: StateGraph[State]) -> dict[tuple[str, str, str], set[bool]]:
    """(from, action, to) between two-letter states, with the change bits it was seen from."""
    seen: dict[tuple[str, str, str], set[bool]] = defaultdict(set)
    for i, out in enumerate(graph.edges):
        src = graph.states[i].pages[0]
        for label, j in out:
            dst = graph.states[j].pages[0]
            if src.name != dst.name:
                seen[src.name, label, dst.name].add(src.dirty)
    return seen


def _condition(graph: StateGraph[State], source: str, bits: set[bool]) -> str:
    # Only worth saying when the source state occurs with both change bits.
    possible = {s.pages[0].dirty for s in graph.states if s.pages[0].name == source}
    if bits == possible or len(possible) < 2:
        return ""
    return " [dirty]" if bits == {True} else " [clean]"


def to_dot(diagram: Diagram, graph: StateGraph[State]) -> str:
    """The diagram as Graphviz text: guest solid, host dashed, discarded states shaded.

    (No rank constraints by residency: Graphviz 2.43 fails to route some edges with them.)"""
    moves = transitions(graph)
    states = sorted({name for (a, _, b) in moves for name in (a, b)}
                    | {s.pages[0].name for s in graph.states},
                    key=lambda n: (RESIDENCY_ORDER.index(n[1]), USAGE_ORDER.index(n[0])))  # fmt: skip
    initial = {graph.states[i].pages[0].name for i in graph.initial}
    lines = [
        f'digraph "{diagram.name}" {{',
        f'  label="{diagram.title}\\n(from TLC\'s state graph of {diagram.profile.describe()}; '
        'solid: guest, dashed: host)";',
        '  labelloc=t; fontname="Helvetica"; rankdir=TB; nodesep=0.6; ranksep=0.9;',
        '  node [shape=circle, fontname="Helvetica", width=0.6, fixedsize=true];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    for s in states:
        style = ", style=bold, peripheries=2" if s in initial else ""
        shade = ", style=filled, fillcolor=\"#eeeeee\"" if s[0] in "VP" and s[1] == "z" else ""
        lines.append(f'  "{s}" [label="{s}"{style}{shade}];')
    grouped: dict[tuple[str, str, bool], list[str]] = defaultdict(list)
    for (a, label, b), bits in moves.items():
        grouped[a, b, label in HOST_OPS].append(label + _condition(graph, a, bits))
    for (a, b, host), labels in sorted(grouped.items()):
        style = "dashed" if host else "solid"
        text = "\\n".join(sorted(labels))
        lines.append(f'  "{a}" -> "{b}" [label="{text}", style={style}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(jar: Path, out_dir: Path = DIAGRAM_DIR) -> dict[str, str]:
    """Every diagram's .dot text, from TLC; written to ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    texts = {}
    for d in DIAGRAMS:
        text = to_dot(d, tlc_state_graph(PAGE_STATES, d.profile, jar=jar).graph)
        (out_dir / f"{d.name}.dot").write_text(text, encoding="utf-8")
        texts[d.name] = text
    return texts


def render_svgs(out_dir: Path = DIAGRAM_DIR) -> None:
    dot = shutil.which("dot")
    if dot is None:
        raise SystemExit(
            "Graphviz's dot is not installed, so the .dot files were written but no SVG. "
            "Debian: apt-get install graphviz"
        )
    for d in DIAGRAMS:
        src = out_dir / f"{d.name}.dot"
        subprocess.run([dot, "-Tsvg", str(src), "-o", str(src.with_suffix(".svg"))], check=True)


def main(argv: list[str] | None = None) -> int:
    from tlcrunner.fetch import default_jar

    parser = argparse.ArgumentParser(prog="python -m refimpl.diagrams")
    parser.add_argument("--out", type=Path, default=DIAGRAM_DIR)
    parser.add_argument("--no-svg", action="store_true", help="write the .dot files only")
    args = parser.parse_args(argv)
    generate(default_jar(), args.out)
    if not args.no_svg:
        render_svgs(args.out)
    print(f"wrote {len(DIAGRAMS)} diagrams to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
