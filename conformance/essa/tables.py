"""The decision tables of each ESSA implementation as PROTOCOL.md prints them.

PROTOCOL.md is the whole contract for engine authors, so it states each implementation's ESSA
effect and host reclaim row by row. The rows are rendered here from the reference
implementation's own tables (:mod:`refimpl.essa.rules`), and tests/test_conformance_essa.py
checks that PROTOCOL.md holds exactly this text: the document cannot drift from the reference.
``python -m conformance.essa.tables`` prints it.
"""

from __future__ import annotations

import sys
from typing import Final

from refimpl.essa import IMPLS, rules

from .protocol import CONDITION_TEXT, ORC_NAMES

#: The new gmap's ESSA looks at the gmap PTE, not at the host's frame (refimpl.essa.rules.essa_valid).
GMAP_VALID: Final = '`gmapPte` `"Valid"`'


def _keep(v: object, name: str) -> str:
    if v is None:
        return "="
    if isinstance(v, bool):
        return "set" if v else "clear"
    return str(v)


def effect_table(impl: str) -> str:
    """The ESSA effect of ``impl``: per ORC, the first row whose condition holds."""
    table = rules.EFFECT_TABLES[impl]
    lines = [
        "| ORC | if the page (before) | usage | `nodat` | `zbit` | CBRL | content |",
        "|---|---|---|---|---|---|---|",
    ]
    for (orc, cond), e in table.items():
        if orc == rules.OTHER:
            # Never reached: every defined ORC has rows of its own, and every other one is a
            # specification exception (step 4) before the table is consulted.
            continue
        name = f"{orc} {ORC_NAMES[orc]}"
        resident = " + `valid` set, `swapped` cleared" if (impl, orc) in rules.MAKES_RESIDENT else ""
        condition = GMAP_VALID if impl == "KVMGmap" and cond == "valid" else CONDITION_TEXT[cond]
        lines.append(
            f"| {name} | {condition} | {_keep(e.u, 'u')} | {_keep(e.n, 'n')} | "
            f"{_keep(e.z, 'z')} | {'append page' if e.queue else '-'} | "
            f"{'dropped, `dirty` cleared' if e.drop else 'kept'}{resident} |"
        )
    return "\n".join(lines)


def reclaim_table(impl: str) -> str:
    """HostReclaim of ``impl`` by (usage, dirty): the new usage and the swap copy, and the change
    bit of a page the host discards (:data:`refimpl.essa.rules.DISCARD_RESETS_CHANGE_BIT`)."""
    table = rules.RECLAIM[impl]
    reset = ", `dirty` cleared" if impl in rules.DISCARD_RESETS_CHANGE_BIT else ""
    lines = ["| usage, `dirty` | new usage | content |", "|---|---|---|"]
    for (u, dirty), r in table.items():
        keep = "to swap (`swapped` set)" if r.keep else f"dropped (`swapped` clear, content 0{reset})"
        lines.append(f"| {u}, {'set' if dirty else 'clear'} | {r.u} | {keep} |")
    return "\n".join(lines)


def render() -> str:
    """Every table, headed by its Impl, as PROTOCOL.md holds them."""
    parts = []
    for impl in IMPLS:
        parts.append(f"#### {impl}: ESSA\n\n{effect_table(impl)}")
    reclaims: dict[str, list[str]] = {}
    for impl in IMPLS:
        reclaims.setdefault(reclaim_table(impl), []).append(impl)
    for text, impls in reclaims.items():
        parts.append(f"#### {' and '.join(impls)}: HostReclaim\n\n{text}")
    return "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
