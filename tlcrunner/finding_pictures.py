"""Each finding's counterexample as a picture: one lane per actor (the guest and the host, or each
CPU, or each of two removals compared), the steps down the page in the lane of whoever took them,
and beside each step the state it left (the page in the two-letter notation, or what changed).

``python -m tlcrunner findings`` writes one SVG per finding model into docs/findings/ beside
docs/findings.md, which shows them; tests/test_finding_pictures.py redraws them from TLC's
counterexamples and fails when a committed picture is no longer what the spec gives. The output is
plain SVG text with no clock, no random ids and fixed metrics, so the same trace draws the same
bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from .tlavalues import Record, parse_value
from .tool_output import TraceStep
from .trace_text import _changes, _parsed

#: Fixed metrics: a monospace font whose advance is CHAR_W per character at FONT_SIZE.
FONT_SIZE = 12
CHAR_W = 7.3
LINE_H = 15
PAD = 8
LANE_W = 250
GAP = 14
TOP = 64


@dataclass(frozen=True)
class Step:
    """One step as drawn: its lane, its label, and the lines of state beside it."""

    lane: str
    label: str
    state: tuple[str, ...]


PageCell = Callable[[dict[str, Any], Any], str]


def essa_steps(trace: Sequence[TraceStep], cell: PageCell, guest: PageCell) -> list[Step]:
    """The steps of a spec/ESSA.tla counterexample: the guest's actions (Guest*) in the guest's
    lane, the rest (HostReclaim, HostProcessCBRL, Migrate, ...) in the host's; beside each, every
    page after the step as the host holds it (``cell``, the findings table's page cell) and as the
    guest sees it (``guest``), and the CBRL."""
    out = []
    for step in trace:
        v: dict[str, Any] = {k: parse_value(t) for k, t in step.state.items()}
        op = v["lastOp"]
        assert isinstance(op, Record)
        name = str(op["op"])
        pages = sorted(v["usage"], key=str)
        label = name
        if len(pages) > 1 and op["page"] in pages:
            label += f" {op['page']}"
        if isinstance(op["orc"], int) and op["orc"] >= 0:
            label += f" (ORC {op['orc']})"
        if isinstance(op["result"], int) and op["result"] >= 0:
            label += f" R1=0x{op['result']:02X}"
        if op["outcome"] not in ("Done", "None"):
            label += f": {op['outcome']}"
            if op["outcome"] == "Value":
                label += f" {op['value']}"
        lane = "start" if name == "Init" else "guest" if name.startswith("Guest") else "host"
        cbrl = ", ".join(str(x) for x in v["cbrl"]) if v["cbrl"] else "empty"
        state = tuple(line for p in pages for line in (
            (f"page {p}: " if len(pages) > 1 else "page: ") + cell(v, p),
            (f"guest {p}: " if len(pages) > 1 else "guest: ") + guest(v, p)))  # fmt: skip
        out.append(Step(lane, label, state + (f"CBRL: {cbrl}",)))
    return out


_CPU = re.compile(r"^pc\[<<(\w+),")


def generic_steps(trace: Sequence[TraceStep]) -> list[Step]:
    """The steps of any other counterexample: a step whose action starts with Bulk or Incr (two
    removals compared) goes to that removal's lane; a step that moves one CPU's program counter
    goes to that CPU's lane; any other step (the hardware, an interrupt's effect, the host) to a
    lane of its own. Beside each step: the variables it changed."""
    out: list[Step] = []
    previous: dict[str, Any] | None = None
    for step in trace:
        state = _parsed(step)
        changed = [text for name, value in state.items()
                   for text in _changes(name, previous.get(name) if previous else None, value)]  # fmt: skip
        if previous is None:
            lane = "start"
            shown: list[str] = ["the initial state"]
        else:
            cpus = sorted({m.group(1) for line in changed if (m := _CPU.match(line))})
            if step.action.startswith("Bulk"):
                lane = "bulk removal"
            elif step.action.startswith("Incr"):
                lane = "incremental removal"
            elif len(cpus) == 1:
                lane = f"CPU {cpus[0]}"
            else:
                lane = "the page (a store, I/O, the host)"
            shown = changed
        out.append(Step(lane, step.action, tuple(shown)))
        previous = state
    return out


def _lanes(steps: Sequence[Step], preferred: Sequence[str]) -> list[str]:
    seen = [s.lane for s in steps if s.lane != "start"]
    lanes = [lane for lane in preferred if lane in seen]
    for lane in seen:
        if lane not in lanes:
            lanes.append(lane)
    return lanes


def _text(x: float, y: float, s: str, *, anchor: str = "start", weight: str = "normal",
          fill: str = "#111") -> str:  # fmt: skip
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-weight="{weight}" '
            f'fill="{fill}">{escape(s)}</text>')  # fmt: skip


def _width(s: str) -> float:
    return len(s) * CHAR_W


def draw(title: str, subtitle: str, steps: Sequence[Step], lanes_first: Sequence[str] = ()) -> str:
    """The SVG of ``steps``: lanes left to right, time down the page, the last step (the one that
    violates the property) outlined in red, and each step's state to the right of the lanes."""
    lanes = _lanes(steps, lanes_first)
    lane_w = max([LANE_W] + [_width(f"{i}. {s.label}") + 2 * PAD for i, s in enumerate(steps)])
    state_x = GAP + len(lanes) * (lane_w + GAP)
    state_w = max([_width("state after the step")] + [_width(line) for s in steps for line in s.state])
    width = state_x + state_w + 2 * GAP
    heights = [max(1, len(s.state)) * LINE_H + 2 * PAD for s in steps]
    height = TOP + sum(h + GAP for h in heights) + GAP
    lane_x = {lane: GAP + i * (lane_w + GAP) for i, lane in enumerate(lanes)}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="DejaVu Sans Mono, monospace" '
        f'font-size="{FONT_SIZE}">',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>',
        _text(GAP, 20, title, weight="bold"),
        _text(GAP, 38, subtitle, fill="#444"),
    ]
    for lane in lanes:
        x = lane_x[lane]
        out.append(_text(x + lane_w / 2, TOP - 8, lane, anchor="middle", weight="bold"))
        out.append(f'<line x1="{x + lane_w / 2:.1f}" y1="{TOP:.1f}" x2="{x + lane_w / 2:.1f}" '
                   f'y2="{height - GAP:.1f}" stroke="#bbb" stroke-dasharray="4 4"/>')  # fmt: skip
    out.append(_text(state_x, TOP - 8, "state after the step", weight="bold"))
    y = float(TOP)
    previous: tuple[float, float] | None = None
    for i, (step, h) in enumerate(zip(steps, heights)):
        last = i == len(steps) - 1
        if step.lane == "start":
            x, w = float(GAP), len(lanes) * (lane_w + GAP) - GAP
            fill, stroke = "#eeeeee", "#888"
        else:
            x, w = float(lane_x[step.lane]), lane_w
            fill, stroke = ("#fde2e1", "#c0392b") if last else ("#e8f0fb", "#4a6fa5")
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" '
                   f'fill="{fill}" stroke="{stroke}" stroke-width="{2 if last else 1}"/>')  # fmt: skip
        out.append(_text(x + PAD, y + PAD + FONT_SIZE - 1, f"{i}. {step.label}",
                         weight="bold" if last else "normal"))  # fmt: skip
        if previous is not None:
            px, py = previous
            cx = x + w / 2
            out.append(f'<line x1="{px:.1f}" y1="{py:.1f}" x2="{cx:.1f}" y2="{y:.1f}" '
                       f'stroke="#666" marker-end="url(#arrow)"/>')  # fmt: skip
        for j, line in enumerate(step.state):
            out.append(_text(state_x, y + PAD + FONT_SIZE - 1 + j * LINE_H, line,
                             fill="#c0392b" if last else "#111"))  # fmt: skip
        previous = (x + w / 2, y + h)
        y += h + GAP
    out.insert(2, '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
                  'markerWidth="6" markerHeight="6" orient="auto-start-reverse">'
                  '<path d="M 0 0 L 10 5 L 0 10 z" fill="#666"/></marker></defs>')  # fmt: skip
    out.append("</svg>")
    return "\n".join(out) + "\n"
