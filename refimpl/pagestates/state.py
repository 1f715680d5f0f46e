"""The state of spec/PageStates.tla as a frozen value.

The spec's variables are functions of the page: ``usage``, ``resid``, ``dirty``, ``data``,
``intended``, ``modified``, ``requested``, plus the record ``lastOp``. Every action of the spec
changes one page and ``lastOp`` only, so the state is stored page by page: ``State.pages[p]`` is a
:class:`Page` holding the seven values of page ``p``, and ``State.lastOp`` is a :class:`LastOp`. The spec's
variables are properties of :class:`State` with the spec's names, each a tuple indexed by page
(``state.usage[p]`` is the spec's ``usage[p]``).

Strings are the spec's: usage ``"S" "U" "V" "P"``, residency ``"r" "p" "z"``, and the outcomes
and operation names of PageStates.tla.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .profile import NO_PAGE, NO_VALUE, ZERO

USAGES: Final = ("S", "U", "V", "P")
RESIDENCIES: Final = ("r", "p", "z")

GUEST_PRIMITIVES: Final = (
    "SetStable", "SetUnused", "SetVolatile", "SetPotentialVolatile", "SetStableIfNotDiscarded",
)  # fmt: skip
GUEST_OPS: Final = GUEST_PRIMITIVES + ("Extract", "Read", "Write", "ClearDirty")
HOST_OPS: Final = ("HostPreserve", "HostDiscard", "HostPageIn", "HostZeroFill")
#: Every operation, in the order of the spec's GuestNext and HostNext.
OPS: Final = GUEST_OPS + HOST_OPS
OUTCOMES: Final = (
    "Done", "Success", "Failure", "Value", "DiscardFault", "AddressingException", "Ignored",
    "None",
)  # fmt: skip

#: The paper's two-letter names (the spec's StateName), as Extract reports them.
STATE_NAME: Final[dict[tuple[str, str], str]] = {(u, r): u + r for u in USAGES for r in RESIDENCIES}


class Page(NamedTuple):
    """One page's share of the spec's variables."""

    usage: str
    resid: str
    dirty: bool
    data: int
    intended: int
    modified: bool
    requested: str = "S"

    @property
    def name(self) -> str:
        """The paper's two-letter state, e.g. ``"Sr"``."""
        return STATE_NAME[self.usage, self.resid]


class LastOp(NamedTuple):
    """The spec's ``lastOp``: the last step's action, page, argument and observation."""

    op: str
    page: int
    arg: int
    outcome: str
    value: int


#: Every page in Init: "the initial page state is stable, logically zero (Sz)" (D2).
INIT_PAGE: Final = Page("S", "z", False, ZERO, ZERO, False, "S")
INIT_LAST_OP: Final = LastOp("Init", NO_PAGE, NO_VALUE, "None", NO_VALUE)


class State(NamedTuple):
    """A state of the machine: the pages and ``lastOp``. Hashable, immutable."""

    pages: tuple[Page, ...]
    lastOp: LastOp  # noqa: N815 - the spec's name

    @property
    def usage(self) -> tuple[str, ...]:
        return tuple(pg.usage for pg in self.pages)

    @property
    def resid(self) -> tuple[str, ...]:
        return tuple(pg.resid for pg in self.pages)

    @property
    def dirty(self) -> tuple[bool, ...]:
        return tuple(pg.dirty for pg in self.pages)

    @property
    def data(self) -> tuple[int, ...]:
        return tuple(pg.data for pg in self.pages)

    @property
    def intended(self) -> tuple[int, ...]:
        return tuple(pg.intended for pg in self.pages)

    @property
    def modified(self) -> tuple[bool, ...]:
        return tuple(pg.modified for pg in self.pages)

    @property
    def requested(self) -> tuple[str, ...]:
        return tuple(pg.requested for pg in self.pages)

    def names(self) -> tuple[str, ...]:
        """Each page's two-letter state."""
        return tuple(pg.name for pg in self.pages)


def init_state(pages: int) -> State:
    """The spec's Init for ``pages`` pages (0 .. pages-1)."""
    return State((INIT_PAGE,) * pages, INIT_LAST_OP)


def show_page(pg: Page) -> str:
    """A page in a line: ``Sr d data=1 intended=1 modified``."""
    flags = "".join(
        (" dirty" if pg.dirty else "", " modified" if pg.modified else "")
    )
    intended = "-" if pg.intended == NO_VALUE else str(pg.intended)
    asked = "" if pg.requested == pg.usage else f" requested={pg.requested}"
    return f"{pg.name} data={pg.data} intended={intended}{flags}{asked}"


def show_last_op(lo: LastOp) -> str:
    """The step in a few words: ``Write 1 5 -> Done``, ``Read 0 -> Value 5``."""
    if lo.op == "Init":
        return "Init"
    page = "-" if lo.page == NO_PAGE else str(lo.page)
    arg = "" if lo.arg == NO_VALUE else f" {lo.arg}"
    value = "" if lo.value == NO_VALUE else f" {lo.value}"
    return f"{lo.op} {page}{arg} -> {lo.outcome}{value}"


def show_state(state: State) -> str:
    """A state in one line, for messages: pages then lastOp."""
    pages = "; ".join(f"page {i}: {show_page(pg)}" for i, pg in enumerate(state.pages))
    return f"[{pages}] after {show_last_op(state.lastOp)}"
