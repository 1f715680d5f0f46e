"""The constants and variables of spec/ESSA.tla: :class:`EssaProfile` and :class:`EssaState`.

A profile holds what a TLC model's .cfg sets: ``Impl`` (``"Paper2007"``, ``"KVMClassic"`` or
``"KVMGmap"``), ``StorageKeys``, ``Facility147``, ``CBRLSize`` and the number of pages (the spec's
``Pages``, here the indices ``0 .. pages-1``; ``NoPage`` is :data:`NO_PAGE`). Constructing one
checks the spec's ASSUME, so a profile the spec rejects cannot exist.

The spec's variables are functions of the page except ``cbrl`` (a sequence of pages),
``migrated`` and ``lastOp``, so a state is stored page by page: ``EssaState.pages[p]`` is an
:class:`EssaPage` with the eleven per-page values, and the spec's variables are properties of
:class:`EssaState` with the spec's names, each a tuple indexed by page (``state.usage[p]`` is
the spec's ``usage[p]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, NamedTuple

#: The spec's Impls: the 2007 model and the two Linux KVM implementations.
IMPLS: Final = ("Paper2007", "KVMClassic", "KVMGmap")
USAGES: Final = ("S", "U", "V", "P")
NO_VALUE: Final = -1  # the spec's NoValue
NO_PAGE: Final = -1  # the spec's model value NoPage
WRITTEN: Final = 1  # the spec's Written: the one non-zero content the guest stores


class EssaProfileError(ValueError):
    """A profile the spec's ASSUME (or the refimpl's representation) does not allow."""


@dataclass(frozen=True)
class EssaProfile:
    """The constants of a TLC model of ESSA.tla."""

    impl: str = "Paper2007"
    storage_keys: bool = False
    facility147: bool = False
    cbrl_size: int = 1
    pages: int = 1

    def __post_init__(self) -> None:
        # ASSUME Impl \in Impls /\ CBRLSize >= 1
        if self.impl not in IMPLS:
            raise EssaProfileError(f"unknown Impl {self.impl!r}: one of {', '.join(IMPLS)}")
        if not isinstance(self.cbrl_size, int) or self.cbrl_size < 1:
            raise EssaProfileError(f"CBRLSize must be a positive integer, not {self.cbrl_size!r}")
        if not isinstance(self.pages, int) or self.pages < 1:
            raise EssaProfileError(f"pages must be a positive integer, not {self.pages!r}")
        for name in ("storage_keys", "facility147"):
            if not isinstance(getattr(self, name), bool):
                raise EssaProfileError(f"{name} must be a bool, not {getattr(self, name)!r}")

    @property
    def kvm(self) -> bool:
        """Spec: KVM == Impl # "Paper2007"."""
        return self.impl != "Paper2007"

    def describe(self) -> str:
        keys = "storage keys" if self.storage_keys else "no storage keys"
        fac = "facility 147" if self.facility147 else "no facility 147"
        return (
            f"{self.impl}, {keys}, {fac}, CBRL size {self.cbrl_size}, {self.pages} page"
            f"{'s' if self.pages != 1 else ''}"
        )


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
    migrated: bool
    lastOp: EssaLastOp  # noqa: N815 - the spec's name

    @property
    def usage(self) -> tuple[str, ...]:
        return tuple(pg.usage for pg in self.pages)

    @property
    def valid(self) -> tuple[bool, ...]:
        return tuple(pg.valid for pg in self.pages)

    @property
    def swapped(self) -> tuple[bool, ...]:
        return tuple(pg.swapped for pg in self.pages)

    @property
    def zbit(self) -> tuple[bool, ...]:
        return tuple(pg.zbit for pg in self.pages)

    @property
    def nodat(self) -> tuple[bool, ...]:
        return tuple(pg.nodat for pg in self.pages)

    @property
    def data(self) -> tuple[int, ...]:
        return tuple(pg.data for pg in self.pages)

    @property
    def keyDirty(self) -> tuple[bool, ...]:  # noqa: N802 - the spec's name
        return tuple(pg.keyDirty for pg in self.pages)

    @property
    def gc(self) -> tuple[bool, ...]:
        return tuple(pg.gc for pg in self.pages)

    @property
    def owed(self) -> tuple[int, ...]:
        return tuple(pg.owed for pg in self.pages)

    @property
    def belief(self) -> tuple[str, ...]:
        return tuple(pg.belief for pg in self.pages)

    @property
    def modified(self) -> tuple[bool, ...]:
        return tuple(pg.modified for pg in self.pages)


#: Every page in Init: stable and logically zero, in use by the guest and owed zero.
INIT_PAGE: Final = EssaPage(
    usage="S", valid=False, swapped=False, zbit=False, nodat=False, data=0, keyDirty=False,
    gc=False, owed=0, belief="S", modified=False,
)  # fmt: skip
INIT_LAST_OP: Final = EssaLastOp("Init", NO_PAGE, NO_VALUE, NO_VALUE, "None", NO_VALUE)


def init_state(pages: int) -> EssaState:
    """Spec: Init, for ``pages`` pages (0 .. pages-1)."""
    return EssaState((INIT_PAGE,) * pages, (), False, INIT_LAST_OP)


# --------------------------------------------------------------------------- showing states


def show_page(pg: EssaPage) -> str:
    """A page in a few words: ``V swapped Z data=1 | owed=1 believes V``."""
    host = [pg.usage]
    host += [name for name, on in (("valid", pg.valid), ("swapped", pg.swapped), ("Z", pg.zbit),
                                   ("N", pg.nodat), ("keyDirty", pg.keyDirty), ("GC", pg.gc))
             if on]  # fmt: skip
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
    return f"[{pages}; cbrl {show_cbrl(s.cbrl)}{mig}] after {show_last_op(s.lastOp)}"
