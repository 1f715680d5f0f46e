"""The committed diagrams (docs/diagrams) are the ones TLC's state graph gives today."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from refimpl.diagrams import DIAGRAM_DIR, DIAGRAMS, to_dot
from refimpl.core.tlc import tlc_state_graph
from refimpl.pagestates import PAGE_STATES


@pytest.mark.parametrize("diagram", DIAGRAMS, ids=[d.name for d in DIAGRAMS])
def test_committed_diagram_matches_spec(diagram: object, tlc_jar: Path) -> None:
    from refimpl.diagrams import Diagram

    assert isinstance(diagram, Diagram)
    fresh = to_dot(diagram, tlc_state_graph(PAGE_STATES, diagram.profile, jar=tlc_jar).graph)
    committed_path = DIAGRAM_DIR / f"{diagram.name}.dot"
    committed = committed_path.read_text(encoding="utf-8") if committed_path.exists() else ""
    if fresh != committed:
        diff = "".join(difflib.unified_diff(
            committed.splitlines(keepends=True), fresh.splitlines(keepends=True),
            fromfile=f"committed {committed_path.name}", tofile="from the spec now", n=1,
        ))  # fmt: skip
        pytest.fail(f"{committed_path} no longer matches the spec; run `make diagrams`.\n{diff}",
                    pytrace=False)  # fmt: skip
    assert (DIAGRAM_DIR / f"{diagram.name}.svg").exists(), "the SVG is missing: run `make diagrams`"
