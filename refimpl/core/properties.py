"""A machine's named properties: invariants of a state and action properties of a step.

Invariants take ``(profile, state)``; action properties take ``(profile, before, after)`` and hold
for the pair as ``[][A]_vars`` does: the step satisfies ``A``, or it changes nothing
(:func:`boxed`). Each machine states its properties from its variables only, never through its
rules, so a broken rule cannot break its own check; here they are only collected and applied.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

P = TypeVar("P")
S = TypeVar("S")
F = TypeVar("F", bound=Callable[..., bool])


def by_name(*fs: F) -> dict[str, F]:
    """The functions by their names (the spec's), in the order given."""
    return {f.__name__: f for f in fs}


def boxed(
    name: str, step: Callable[[P, S, S], bool]
) -> Callable[[P, S, S], bool]:
    """The action property ``[][step]_vars`` named ``name``: ``step`` holds, or nothing changed."""

    def prop(profile: P, s: S, t: S) -> bool:
        return step(profile, s, t) or s == t

    prop.__name__ = prop.__qualname__ = name
    prop.__doc__ = f"[][{step.__name__}]_vars"
    return prop


@dataclass(frozen=True)
class PropertySet(Generic[P, S]):
    """The invariants and action properties of a machine, by name in the spec's order."""

    invariants: Mapping[str, Callable[[P, S], bool]]
    action_properties: Mapping[str, Callable[[P, S, S], bool]]

    def violated_invariants(self, profile: P, s: S) -> list[str]:
        """The names of the invariants ``s`` violates."""
        return [name for name, inv in self.invariants.items() if not inv(profile, s)]

    def violated_action_properties(self, profile: P, s: S, t: S) -> list[str]:
        """The names of the action properties the step ``s -> t`` violates."""
        return [name for name, prop in self.action_properties.items() if not prop(profile, s, t)]
