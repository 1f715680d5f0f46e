"""Read the names a TLC .cfg file checks (INVARIANT and PROPERTY sections).

TLC 2.18 does not name a violated temporal property, nor an unnamed conjunct of a refinement
property, so the runner needs the .cfg to attribute such a violation to a property name.
Only the sections it needs are read; TLC itself reports every other .cfg error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_KEYWORDS = frozenset(
    {
        "CONSTANT", "CONSTANTS", "INIT", "NEXT", "SPECIFICATION", "INVARIANT", "INVARIANTS",
        "PROPERTY", "PROPERTIES", "SYMMETRY", "VIEW", "CONSTRAINT", "CONSTRAINTS",
        "ACTION_CONSTRAINT", "ACTION_CONSTRAINTS", "CHECK_DEADLOCK", "POSTCONDITION",
        "POSTCONDITIONS", "ALIAS",
    }
)  # fmt: skip
_INVARIANT_KW = frozenset({"INVARIANT", "INVARIANTS"})
_PROPERTY_KW = frozenset({"PROPERTY", "PROPERTIES"})
_COMMENTS = re.compile(r"\(\*.*?\*\)|\\\*[^\n]*", re.DOTALL)
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_!]*|\S")


@dataclass(frozen=True)
class CheckedNames:
    invariants: tuple[str, ...]
    properties: tuple[str, ...]


def checked_names(cfg_text: str) -> CheckedNames:
    """Names listed under INVARIANT(S) and PROPERTY(IES), in file order."""
    invariants: list[str] = []
    properties: list[str] = []
    section: list[str] | None = None
    for token in _TOKEN.findall(_COMMENTS.sub(" ", cfg_text)):
        if token in _KEYWORDS:
            section = (
                invariants if token in _INVARIANT_KW else properties if token in _PROPERTY_KW
                else None
            )
        elif section is not None and (token[0].isalpha() or token[0] == "_"):
            section.append(token)
    return CheckedNames(tuple(invariants), tuple(properties))
