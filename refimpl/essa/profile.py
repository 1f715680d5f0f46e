"""The constants of spec/ESSA.tla: :class:`EssaProfile`, and :data:`CONSTANTS`, their one list.

A profile holds what a TLC model's .cfg sets: ``Impl`` (``"Paper2007"``, ``"KVMClassic"`` or
``"KVMGmap"``), ``StorageKeys``, ``Facility147``, ``CBRLSize``, the kernel-fidelity options of
the kernel-fidelity constants (``Bugs``, ``PrebuiltPageTables``, ``MachineInterpretsESSA``, ``ModernGuest``,
``CMMAEnabled``; decisions D97-D106) and the number of pages (the spec's ``Pages``, here the
indices ``0 .. pages-1``; ``NoPage`` is :data:`NO_PAGE`). Constructing one
checks the spec's ASSUME, so a profile the spec rejects cannot exist.

A new constant of the spec is a field of :class:`EssaProfile` (with its check in
``__post_init__``) and a row of :data:`CONSTANTS` (its spec name and the values a conformance run
tries). Everything else follows from that row: the .cfg of every TLC model, the hello's
``profile`` object, the profiles ``conformance run`` and ``classify`` try, and the names in
reports.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final

from ..core.constants import Constant, combinations

#: The spec's Impls: the 2007 model and the two Linux KVM implementations.
IMPLS: Final = ("Paper2007", "KVMClassic", "KVMGmap")
#: The spec's KnownBugs: the three 2026 fixes to the new gmap (S9), named by what was wrong.
KNOWN_BUGS: Final = ("StickyZero", "CBRLGuestAddress", "StaleUnusedBit")
#: The fix of each bug, as its commit is titled (S9; docs/findings.md F7-F9).
BUG_FIXES: Final = {
    "StickyZero": "KVM: s390: always clear pgste.zero in _gmap_ptep_xchg",
    "CBRLGuestAddress": "the fix of _essa_clear_cbrl, which \"passed the guest absolute address "
                        "instead of the host virtual one\"",
    "StaleUnusedBit": "s390/mm: Fix handling of _PAGE_UNUSED pte bit (CVE-2026-72412)",
}
NO_VALUE: Final = -1  # the spec's NoValue
NO_PAGE: Final = -1  # the spec's model value NoPage


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
    # Kernel fidelity (after pages, so that positional profiles of the first four constants keep working)
    bugs: frozenset[str] = frozenset()
    prebuilt_page_tables: bool = False
    machine_interprets_essa: bool = False
    modern_guest: bool = False
    cmma_enabled: bool = True

    def __post_init__(self) -> None:
        # ASSUME Impl \in Impls /\ CBRLSize >= 1
        if self.impl not in IMPLS:
            raise EssaProfileError(f"unknown Impl {self.impl!r}: one of {', '.join(IMPLS)}")
        if not isinstance(self.cbrl_size, int) or self.cbrl_size < 1:
            raise EssaProfileError(f"CBRLSize must be a positive integer, not {self.cbrl_size!r}")
        if not isinstance(self.pages, int) or self.pages < 1:
            raise EssaProfileError(f"pages must be a positive integer, not {self.pages!r}")
        for name in ("storage_keys", "facility147", "prebuilt_page_tables",
                     "machine_interprets_essa", "modern_guest", "cmma_enabled"):
            if not isinstance(getattr(self, name), bool):
                raise EssaProfileError(f"{name} must be a bool, not {getattr(self, name)!r}")
        # ASSUME Bugs \subseteq KnownBugs /\ (Bugs # {} => Impl = "KVMGmap")
        if not isinstance(self.bugs, frozenset) or not self.bugs <= frozenset(KNOWN_BUGS):
            raise EssaProfileError(f"Bugs must be a set of {', '.join(KNOWN_BUGS)}, not {self.bugs!r}")
        if self.bugs and self.impl != "KVMGmap":
            raise EssaProfileError("Bugs are bugs of the new gmap: Impl must be KVMGmap")
        # ASSUME MachineInterpretsESSA => Impl = "KVMGmap"
        if self.machine_interprets_essa and self.impl != "KVMGmap":
            raise EssaProfileError("the machine's interpretation of ESSA is modelled for the new gmap "
                                   "only: Impl must be KVMGmap")

    @property
    def kvm(self) -> bool:
        """Spec: KVM == Impl # "Paper2007"."""
        return self.impl != "Paper2007"

    @property
    def gmap(self) -> bool:
        """Spec: Gmap == Impl = "KVMGmap"."""
        return self.impl == "KVMGmap"

    def describe(self) -> str:
        keys = "storage keys" if self.storage_keys else "no storage keys"
        fac = "facility 147" if self.facility147 else "no facility 147"
        extra = [f"bugs {', '.join(sorted(self.bugs))}" if self.bugs else ""]
        extra += [text for on, text in (
            (self.prebuilt_page_tables, "prebuilt page tables"),
            (self.machine_interprets_essa, "ESSA interpreted by the machine"),
            (self.modern_guest, "today's Linux guest"),
            (not self.cmma_enabled, "CMMA disabled")) if on]  # fmt: skip
        return (
            f"{self.impl}, {keys}, {fac}, CBRL size {self.cbrl_size}, {self.pages} page"
            f"{'s' if self.pages != 1 else ''}" + "".join(f", {e}" for e in extra if e)
        )


#: The spec's constants (besides Pages and NoPage), in the order of EssaProfile's fields (pages aside). The
#: domain is what a conformance run tries; its first value is the default.
CONSTANTS: Final = (
    Constant("Impl", "impl", IMPLS, "which implementation of ESSA"),
    Constant("StorageKeys", "storage_keys", (False, True),
             "the VM uses storage keys: KVM keeps the change bit in GC on unmapping"),
    Constant("Facility147", "facility147", (False, True), "ORC 7 (ESSA_SET_STABLE_NODAT) exists"),
    Constant("CBRLSize", "cbrl_size", (1, 2), "entries of the CBRL before ESSA intercepts"),
    # Kernel fidelity (D97-D106). A conformance run tries the fixed kernel and each bug alone (each needs
    # Impl = "KVMGmap"; other combinations are not profiles); page tables as a new VM has them,
    # and prebuilt; CMMA on and off. ESSA interpreted by the machine and today's guest only shape
    # the spec's own models (the first makes Z nondeterministic, the second restricts the guest),
    # so a run keeps their defaults.
    Constant("Bugs", "bugs", (frozenset(),) + tuple(frozenset({b}) for b in KNOWN_BUGS),
             "the new gmap before the 2026 fixes (S9): StickyZero, CBRLGuestAddress, StaleUnusedBit",
             always_named=False),
    Constant("PrebuiltPageTables", "prebuilt_page_tables", (False, True),
             "the new gmap's page table exists from the start (FALSE: a new VM, D97)",
             always_named=False),
    Constant("MachineInterpretsESSA", "machine_interprets_essa", (False,),
             "the new gmap's ESSA may be interpreted by the machine, which keeps Z (D101)",
             always_named=False),
    Constant("ModernGuest", "modern_guest", (False,),
             "the guest is today's Linux: ORC 0, 1, 2, 7 only (D102)", always_named=False),
    Constant("CMMAEnabled", "cmma_enabled", (True, False),
             "CMMA is enabled for the VM; else every ESSA is an operation exception (D103)",
             always_named=False),
)  # fmt: skip

#: Constants of the new gmap alone: under another Impl only their first value is a profile of its
#: own (Bugs needs KVMGmap by the spec's ASSUME; the page table and the machine's interpretation
#: exist only there, so another value would repeat a profile).
GMAP_ONLY: Final = frozenset({"bugs", "prebuilt_page_tables", "machine_interprets_essa"})
#: What an engine is rather than what a hello asks it to run: ``classify`` finds these out by
#: trying each value as a candidate (a kernel harness runs the code it was built from, bugs and
#: all), and asks the engine for the others.
IDENTITY: Final = ("impl", "bugs")
#: The kernel-fidelity constants (D97-D106), after the first four.
FIDELITY: Final = tuple(c.attr for c in CONSTANTS[4:])


def profiles(fixed: dict[str, object], pages: int) -> list[EssaProfile]:
    """Every profile a conformance run tries: each combination of the constants ``fixed`` leaves
    open (:data:`CONSTANTS`' domains) on ``pages`` pages, without those the spec's ASSUME rejects
    or that repeat another (:data:`GMAP_ONLY` under another Impl). Ordered by how many fidelity
    options differ from their defaults, so a run meets the profiles of the first four constants
    first."""
    out: list[EssaProfile] = []
    defaults = {c.attr: c.domain[0] for c in CONSTANTS}
    for fields in combinations(CONSTANTS, fixed):
        if fields["impl"] != "KVMGmap" and any(
            fields[a] != defaults[a] and a not in fixed for a in GMAP_ONLY
        ):
            continue
        try:
            out.append(EssaProfile(**fields, pages=pages))
        except EssaProfileError:
            continue
    return sorted(out, key=lambda p: sum(getattr(p, a) != defaults[a] for a in FIDELITY))


@dataclass(frozen=True)
class Fold:
    """Constants the reference ignores where ``when`` holds of a profile: two profiles that
    differ only in them have the same reference graph (the same reply to every request sequence
    from the reset), so a test of one tests the other as far as the spec can tell them apart.
    tests/test_conformance_folds.py compares the graphs of every fold's profiles."""

    name: str
    when: dict[str, object]
    ignored: tuple[str, ...]
    reason: str

    def applies(self, p: EssaProfile) -> bool:
        return all(getattr(p, attr) == value for attr, value in self.when.items())


#: The constants each Impl or setting ignores (D361).
FOLDS: Final = (
    Fold("Paper2007", {"impl": "Paper2007"}, ("storage_keys", "facility147", "cbrl_size"),
         "the 2007 model keeps no change bit in storage keys, has no ORC 7 and no CBRL: "
         "StorageKeys, Facility147 and CBRLSize change no reply"),
    Fold("CMMA disabled", {"cmma_enabled": False},
         ("facility147", "cbrl_size", "bugs", "prebuilt_page_tables"),
         "with CMMA disabled every ESSA is an operation exception: Facility147, CBRLSize, Bugs "
         "and PrebuiltPageTables change no reply"),
)  # fmt: skip


def folded(p: EssaProfile) -> tuple[EssaProfile, list[Fold]]:
    """The profile that stands for ``p`` (every constant a fold of :data:`FOLDS` that applies
    to ``p`` ignores set to its first value) and those folds; ``p`` itself and no fold when
    none applies."""
    defaults = {c.attr: c.domain[0] for c in CONSTANTS}
    folds = [f for f in FOLDS if f.applies(p)]
    changes: dict[str, Any] = {a: defaults[a] for f in folds for a in f.ignored
                               if getattr(p, a) != defaults[a]}
    if not changes:
        return p, []
    return replace(p, **changes), [f for f in folds if any(a in changes for a in f.ignored)]
