"""The constants of spec/PageStates.tla: which machine (Variant) under which profile.

A :class:`Profile` holds what a TLC model's .cfg sets: ``Variant``, ``HostService``,
``UnusedAccess``, the number of pages (``Pages``, here the indices ``0 .. pages-1``) and
``Values``. Constructing one checks the spec's ASSUMEs, so a profile the spec rejects cannot
exist.

The variants are data: :data:`VARIANT_FEATURES` is the spec's ``HasUp``, ``HasVp``, ``HasPp``,
``HasP`` and ``CollapseDiscarded`` for each ``Variant``, one row per machine of the paper.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, NamedTuple

ZERO: Final = 0  # the spec's Zero: the content of a logically zero page
NO_VALUE: Final = -1  # the spec's NoValue
NO_PAGE: Final = -1  # the spec's model value NoPage: a page outside 0 .. pages-1

ADDRESSING_EXCEPTION: Final = "AddressingException"
READS_ZERO: Final = "ReadsZero"
UNUSED_ACCESSES: Final = (ADDRESSING_EXCEPTION, READS_ZERO)


class Features(NamedTuple):
    """Which states one machine has (spec: HasUp, HasVp, HasPp, HasP, CollapseDiscarded)."""

    has_up: bool
    has_vp: bool
    has_pp: bool
    has_p: bool
    collapse_discarded: bool


#: The spec's ``Variants`` and what each removes (paper, section 2; section 4 / Figure 3).
VARIANT_FEATURES: Final[dict[str, Features]] = {
    #                                  Up     Vp     Pp     P      Vz/Pz collapsed
    "Full":              Features(True,  True,  True,  True,  False),
    "OneDiscardedState": Features(True,  True,  True,  True,  True),
    "NoVp":              Features(True,  False, True,  True,  False),
    "NoPp":              Features(True,  True,  False, True,  False),
    "NoP":               Features(True,  True,  True,  False, False),
    "ZVMPrototype":      Features(False, False, False, True,  True),
}  # fmt: skip

VARIANTS: Final = tuple(VARIANT_FEATURES)


class ProfileError(ValueError):
    """A profile the spec's ASSUMEs (or the refimpl's representation) do not allow."""


@dataclass(frozen=True)
class Profile:
    """One machine under one profile; the constants of a TLC model of PageStates.

    ``values`` is the spec's ``Values``: what a Write may store (it must contain 0).
    """

    variant: str = "Full"
    host_service: bool = True
    unused_access: str = ADDRESSING_EXCEPTION
    pages: int = 1
    values: tuple[int, ...] = (0, 1)
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __hash__(self) -> int:
        # Computed once: the module-level step() looks the profile's machine up on every call.
        return self._hash

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "_hash",
            hash((self.variant, self.host_service, self.unused_access, self.pages, self.values)),
        )
        if self.variant not in VARIANT_FEATURES:
            raise ProfileError(
                f"unknown variant {self.variant!r}: one of {', '.join(VARIANTS)}"
            )
        if self.unused_access not in UNUSED_ACCESSES:
            raise ProfileError(
                f"unknown unused access {self.unused_access!r}: one of {', '.join(UNUSED_ACCESSES)}"
            )
        if not isinstance(self.pages, int) or self.pages < 1:
            raise ProfileError(f"pages must be a positive integer, not {self.pages!r}")
        # ASSUME Zero \in Values /\ \A v \in Values : v >= 0
        if ZERO not in self.values or any(v < 0 for v in self.values):
            raise ProfileError(f"values must contain 0 and be non-negative, not {self.values!r}")
        if len(set(self.values)) != len(self.values):
            raise ProfileError(f"values must not repeat: {self.values!r}")
        # ASSUME (~HasUp \/ ~HasVp \/ ~HasPp) => HostService
        f = self.features
        if not (f.has_up and f.has_vp and f.has_pp) and not self.host_service:
            raise ProfileError(
                f"variant {self.variant} removes a preserved state, which needs the implicit "
                "host transitions of a host service: it requires host_service=True"
            )

    @property
    def features(self) -> Features:
        return VARIANT_FEATURES[self.variant]

    def describe(self) -> str:
        access = "host service" if self.host_service else "direct"
        return (
            f"{self.variant}, {access}, {self.unused_access}, {self.pages} page"
            f"{'s' if self.pages != 1 else ''}, values {{{', '.join(map(str, self.values))}}}"
        )


def allowed(variant: str, host_service: bool) -> bool:
    """Whether the spec's ASSUMEs allow this variant with this HostService."""
    f = VARIANT_FEATURES[variant]
    return host_service or (f.has_up and f.has_vp and f.has_pp)


def all_profiles(pages: int = 1, values: tuple[int, ...] = (0, 1)) -> list[Profile]:
    """Every profile the spec allows: each variant, each HostService, each UnusedAccess."""
    return [
        Profile(variant, host_service, access, pages, values)
        for variant in VARIANTS
        for host_service in (True, False)
        if allowed(variant, host_service)
        for access in UNUSED_ACCESSES
    ]
