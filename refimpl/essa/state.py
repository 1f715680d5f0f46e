"""The variables of spec/ESSA.tla: :class:`EssaState`.

The spec's variables are functions of the page except ``cbrl`` (a sequence of pages),
``pageTable``, ``migrated`` and ``lastOp``, so a state is stored page by page:
``EssaState.pages[p]`` is an :class:`EssaPage` with the thirteen per-page values under the spec's
names
(``state.pages[p].usage`` is the spec's ``usage[p]``).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .profile import NO_PAGE, NO_VALUE

USAGES: Final = ("S", "U", "V", "P")
WRITTEN: Final = 1  # the spec's Written: the one non-zero content the guest stores


class EssaPage(NamedTuple):
    """One page's share of the spec's variables (the spec's names)."""

    usage: str
    valid: bool
    swapped: bool
    zbit: bool
    nodat: bool
    data: int
    keyDirty: bool  # noqa: N815 - the spec's name
    gc: bool
    gmapPte: str  # noqa: N815 - the spec's name; "Valid", "Aged" or "Empty"
    pteUnused: bool  # noqa: N815 - the spec's name
    owed: int
    belief: str
    modified: bool


class EssaLastOp(NamedTuple):
    """The spec's ``lastOp``: the step's action, page, ORC, R1 byte, outcome and value."""

    op: str
    page: int
    orc: int
    result: int
    outcome: str
    value: int


class EssaState(NamedTuple):
    """A state of spec/ESSA.tla. Hashable, immutable."""

    pages: tuple[EssaPage, ...]
    cbrl: tuple[int, ...]
    pageTable: bool  # noqa: N815 - the spec's name
    migrated: bool
    lastOp: EssaLastOp  # noqa: N815 - the spec's name


#: Every page in Init: stable and logically zero, in use by the guest and owed zero.
INIT_PAGE: Final = EssaPage(
    usage="S", valid=False, swapped=False, zbit=False, nodat=False, data=0, keyDirty=False,
    gc=False, gmapPte="Empty", pteUnused=False, owed=0, belief="S", modified=False,
)  # fmt: skip
GMAP_PTES: Final = ("Valid", "Aged", "Empty")
INIT_LAST_OP: Final = EssaLastOp("Init", NO_PAGE, NO_VALUE, NO_VALUE, "None", NO_VALUE)


def init_state(pages: int, page_table: bool = True) -> EssaState:
    r"""Spec: Init, for ``pages`` pages (0 .. pages-1); ``page_table`` is the spec's
    ``~Gmap \/ PrebuiltPageTables``."""
    return EssaState((INIT_PAGE,) * pages, (), page_table, False, INIT_LAST_OP)


# --------------------------------------------------------------------------- showing states


def show_page(pg: EssaPage) -> str:
    """A page in a few words: ``V swapped Z data=1 | owed=1 believes V``."""
    host = [pg.usage]
    host += [name for name, on in (("valid", pg.valid), ("swapped", pg.swapped), ("Z", pg.zbit),
                                   ("N", pg.nodat), ("keyDirty", pg.keyDirty), ("GC", pg.gc),
                                   ("UNUSED", pg.pteUnused))
             if on]  # fmt: skip
    if pg.gmapPte != "Empty":
        host.append(f"gmap {pg.gmapPte}")
    host.append(f"data={pg.data}")
    owed = "-" if pg.owed == NO_VALUE else str(pg.owed)
    guest = f"owed={owed} believes {pg.belief}{' modified' if pg.modified else ''}"
    return f"{' '.join(host)} | {guest}"


def show_last_op(lo: EssaLastOp) -> str:
    """The step in a few words: ``GuestMakeVolatile 0 ORC 3 -> Done R1=0x02``."""
    if lo.op == "Init":
        return "Init"
    page = "" if lo.page == NO_PAGE else f" {lo.page}"
    orc = "" if lo.orc == NO_VALUE else f" ORC {lo.orc}"
    result = "" if lo.result == NO_VALUE else f" R1=0x{lo.result:02X}"
    value = "" if lo.value == NO_VALUE else f" {lo.value}"
    return f"{lo.op}{page}{orc} -> {lo.outcome}{value}{result}"


def show_cbrl(cbrl: tuple[int, ...]) -> str:
    return "<<" + ", ".join(map(str, cbrl)) + ">>"


def show_state(s: EssaState) -> str:
    """A state in one line, for messages."""
    pages = "; ".join(f"page {i}: {show_page(pg)}" for i, pg in enumerate(s.pages))
    mig = " migrated" if s.migrated else ""
    table = "" if s.pageTable else " no page table"
    return f"[{pages}; cbrl {show_cbrl(s.cbrl)}{table}{mig}] after {show_last_op(s.lastOp)}"
