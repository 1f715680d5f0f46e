"""docs/kernel.md's block of the kernel regression catalogue is generated
(``python -m conformance.engines.linux.regressions --doc RESULTS.json``): its rows are the
catalogue's regressions, and its counts (caught, the seconds' median and range, the headlines that
name the edited function) are computed from its rows, so no figure in it is typed."""

from __future__ import annotations

import re

from conformance.engines.linux import regressions


def _results(block: str) -> list[dict[str, object]]:
    """The results file a block was rendered from, read back from its rows."""
    out: list[dict[str, object]] = []
    for line in block.splitlines():
        m = re.fullmatch(r"\| `([\w-]+)` \| `\w+` \| ([\w ]+) \| ([\d.]+) \| [^|]* \| (.*) \|", line)
        if m:
            out.append({"name": m.group(1), "verdict": m.group(2), "seconds": float(m.group(3)),
                        "summary": m.group(4)})
    return out


def test_the_catalogue_block_is_what_its_rows_render() -> None:
    block = regressions.doc_block(regressions.DOC.read_text(encoding="utf-8"))
    assert block is not None, "docs/kernel.md lacks the kernel-regressions block"
    catalogue = regressions.load()
    results = _results(block)
    assert {r["name"] for r in results} <= {r.name for r in catalogue}
    if results:
        assert block == regressions.render(results, catalogue)


def test_render_counts_the_rows() -> None:
    catalogue = regressions.load()
    a, b = catalogue[0], catalogue[1]
    results: list[dict[str, object]] = [
        {"name": a.name, "verdict": "caught", "seconds": 10.0,
         "summary": f"kernel-check: 1 of 1 profiles diverge; first: X: y differ ({a.function})"},
        {"name": b.name, "verdict": "caught", "seconds": 30.0,
         "summary": "kernel-check: 1 of 1 profiles diverge; first: X: y differ (somewhere_else)"},
    ]
    text = regressions.render(results, catalogue)
    assert (f"**2 of 2 caught** (a subset: 2 of the catalogue's {len(catalogue)} regressions), "
            "median 20 s, from 10 s to 30 s") in text
    assert "names the function the regression edits for 1 of the 2 caught" in text
    assert f"| `{a.function}` | kernel-check" in text and "| `somewhere_else` |" in text
