"""The constants of spec/ESSA.tla: :class:`EssaProfile`, and :data:`CONSTANTS`, their one list.

A profile holds what a TLC model's .cfg sets: ``Impl`` (``"Paper2007"``, ``"KVMClassic"`` or
``"KVMGmap"``), ``StorageKeys``, ``Facility147``, ``CBRLSize`` and the number of pages (the spec's
``Pages``, here the indices ``0 .. pages-1``; ``NoPage`` is :data:`NO_PAGE`). Constructing one
checks the spec's ASSUME, so a profile the spec rejects cannot exist.

A new constant of the spec is a field of :class:`EssaProfile` (with its check in
``__post_init__``) and a row of :data:`CONSTANTS` (its spec name and the values a conformance run
tries). Everything else follows from that row: the .cfg of every TLC model, the hello's
``profile`` object, the profiles ``conformance run`` and ``classify`` try, and the names in
reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..core.constants import Constant

#: The spec's Impls: the 2007 model and the two Linux KVM implementations.
IMPLS: Final = ("Paper2007", "KVMClassic", "KVMGmap")
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


#: The spec's constants (besides Pages and NoPage), in the order of EssaProfile's fields. The
#: domain is what a conformance run tries; its first value is the default.
CONSTANTS: Final = (
    Constant("Impl", "impl", IMPLS, "which implementation of ESSA"),
    Constant("StorageKeys", "storage_keys", (False, True),
             "the VM uses storage keys: KVM keeps the change bit in GC on unmapping"),
    Constant("Facility147", "facility147", (False, True), "ORC 7 (ESSA_SET_STABLE_NODAT) exists"),
    Constant("CBRLSize", "cbrl_size", (1, 2), "entries of the CBRL before ESSA intercepts"),
)  # fmt: skip
