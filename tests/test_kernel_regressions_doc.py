"""docs/kernel.md's blocks of the kernel regression catalogues are generated
(``python -m conformance.engines.linux.regressions --doc RESULTS.json [--held-out]``): each has a
row for every entry of its catalogue, in the catalogue's order (an entry added to, removed from or
renamed in the catalogue without the block written again fails here), and its counts (caught, the
seconds' median and range, the headlines that name the edited function) are computed from its
rows, so no figure in it is typed."""

from __future__ import annotations

import re

import pytest

from conformance.engines.linux import regressions

ROW = re.compile(r"\| `([\w-]+)` \| `(\w+)` \| ([\w ]+) \| (-|-?\d+) \| (-|[\d.]+) \| (-|[\d.]+) \| "
                 r"[^|]* \| (.*) \|")


def _rows(block: str) -> list[tuple[str, str]]:
    """(name, function) of each row of a block."""
    return [(m.group(1), m.group(2)) for ln in block.splitlines() if (m := ROW.fullmatch(ln))]


def _results(block: str) -> list[dict[str, object]]:
    """The results file a block was rendered from, read back from its rows (those run)."""
    out: list[dict[str, object]] = []
    for line in block.splitlines():
        m = ROW.fullmatch(line)
        if m and m.group(3) != regressions.NOT_RUN:
            num = lambda s: None if s == "-" else float(s)  # noqa: E731
            out.append({"name": m.group(1), "verdict": m.group(3),
                        "exit": None if m.group(4) == "-" else int(m.group(4)),
                        "seconds": num(m.group(5)), "cpu_seconds": num(m.group(6)),
                        "summary": m.group(7)})  # fmt: skip
    return out


@pytest.mark.parametrize("held_out", [False, True], ids=["catalogue", "held-out"])
def test_the_block_has_a_row_for_every_entry_of_its_catalogue(held_out: bool) -> None:
    block = regressions.doc_block(regressions.DOC.read_text(encoding="utf-8"), held_out)
    assert block is not None, f"docs/kernel.md lacks the {regressions.markers(held_out)[0].strip()} block"
    catalogue = regressions.load(regressions.HELD_OUT if held_out else regressions.CATALOGUE)
    assert _rows(block) == [(r.name, r.function) for r in catalogue], (
        "the block has drifted from the catalogue: write it again with `python -m "
        "conformance.engines.linux.regressions --doc RESULTS.json"
        f"{' --held-out' if held_out else ''}` (make bench does)")


@pytest.mark.parametrize("held_out", [False, True], ids=["catalogue", "held-out"])
def test_the_block_is_what_its_rows_render(held_out: bool) -> None:
    block = regressions.doc_block(regressions.DOC.read_text(encoding="utf-8"), held_out)
    assert block is not None
    catalogue = regressions.load(regressions.HELD_OUT if held_out else regressions.CATALOGUE)
    assert block == regressions.render(_results(block), catalogue)


def test_render_counts_the_rows() -> None:
    catalogue = regressions.load()
    a, b = catalogue[0], catalogue[1]
    results: list[dict[str, object]] = [
        {"name": a.name, "verdict": "caught", "seconds": 10.0, "cpu_seconds": 12.5, "exit": 1,
         "summary": f"kernel-check: 1 of 1 profiles diverge; first: X: y differ ({a.function})"},
        {"name": b.name, "verdict": "caught", "seconds": 30.0, "cpu_seconds": 31.0, "exit": 1,
         "summary": "kernel-check: 1 of 1 profiles diverge; first: X: y differ (somewhere_else)"},
    ]
    text = regressions.render(results, catalogue)
    assert (f"**2 of 2 caught** (2 of the catalogue's {len(catalogue)} regressions run), "
            "median 20 s, from 10 s to 30 s") in text
    assert "names the function the regression edits for 1 of the 2 caught" in text
    assert f"| `{a.function}` | kernel-check" in text and "| `somewhere_else` |" in text
    assert "| caught | 1 | 10.0 | 12.5 |" in text
    assert text.count(f"| {regressions.NOT_RUN} |") == len(catalogue) - 2


def test_a_headline_naming_an_earlier_steps_writer_is_blamed_on_it() -> None:
    assert regressions.blamed("kernel-check: ...; first: X: y differ (set by handle_essa at step 1)") == "handle_essa"
    assert regressions.blamed("kernel-check: ...; first: X: y differ (__do_essa)") == "__do_essa"
    assert regressions.blamed("kernel-check: the VMM pass diverges; first: Get: answer differ (peek: Peek)") == ""
