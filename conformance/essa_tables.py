"""The decision tables of each ESSA implementation as PROTOCOL.md prints them.

PROTOCOL.md is the whole contract for engine authors, so it states each implementation's ESSA
effect and host reclaim row by row. The rows are rendered here from the reference
implementation's own tables (:mod:`refimpl.essa.rules`), and tests/test_conformance_essa.py
checks that PROTOCOL.md holds exactly this text: the document cannot drift from the reference.
``python -m conformance.essa_tables`` prints it.
"""

from __future__ import annotations

import sys
from typing import Final

from refimpl.essa import IMPLS, rules

from .essa import CONDITION_TEXT, ORC_NAMES

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
            if impl != "Paper2007":
                continue  # every ORC 0-7 has rows of its own: OTHER is never reached
            name = "any other"
        else:
            name = f"{orc} {ORC_NAMES[orc]}"
        resident = " + `valid` set, `swapped` cleared" if (impl, orc) in rules.MAKES_RESIDENT else ""
        lines.append(
            f"| {name} | {CONDITION_TEXT[cond]} | {_keep(e.u, 'u')} | {_keep(e.n, 'n')} | "
            f"{_keep(e.z, 'z')} | {'append page' if e.queue else '-'} | "
            f"{'dropped' if e.drop else 'kept'}{resident} |"
        )
    return "\n".join(lines)


def reclaim_table(impl: str) -> str:
    """HostReclaim of ``impl`` by (usage, dirty): the new usage and the swap copy."""
    table = rules.RECLAIM[impl]
    lines = ["| usage, `dirty` | new usage | content |", "|---|---|---|"]
    for (u, dirty), r in table.items():
        keep = "to swap (`swapped` set)" if r.keep else "dropped (`swapped` clear, content 0)"
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
