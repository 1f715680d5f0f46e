"""The constants of a spec, declared once per machine and used everywhere a profile is shown.

A machine's profile is a frozen dataclass whose fields are the spec's constants (plus ``pages``,
the spec's ``Pages`` as the indices ``0 .. pages-1``). Its package lists them as :class:`Constant`
rows: the spec's name, the field, and the values a driver tries. From that one list come the
.cfg a TLC model needs (:func:`cfg_lines`), the profile as the JSON object of a hello
(:func:`to_json`, :func:`from_json`), every combination a conformance run tries
(:func:`combinations`) and the short names of profiles in reports. A new constant is one more row.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

#: What a constant's value may be: a Boolean, a number, a string, or a set of strings.
ConstantValue = bool | int | str | tuple[int, ...] | frozenset[str]

P = TypeVar("P")


@dataclass(frozen=True)
class Constant:
    """One constant of a spec, as a profile holds it.

    ``tla`` is the spec's name (``StorageKeys``) and the key in a hello's ``profile`` object;
    ``attr`` the profile's field (``storage_keys``); ``domain`` the values a driver tries, the
    first being the default a profile request that leaves it open gets.
    """

    tla: str
    attr: str
    domain: tuple[ConstantValue, ...]
    doc: str = ""
    #: Whether a profile's short name always names it; False: only when it is not its first
    #: value (an option most profiles leave at its default).
    always_named: bool = True


def tla_literal(value: ConstantValue) -> str:
    """The value as TLA+ text in a .cfg: TRUE, 3, "KVMGmap", {0, 1}, {"StickyZero"}."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, frozenset):
        return "{" + ", ".join(f'"{v}"' for v in sorted(value)) + "}"
    return "{" + ", ".join(map(str, value)) + "}"


def page_names(pages: int) -> tuple[str, ...]:
    """The model values standing for pages 0 .. pages-1 in the generated models."""
    return tuple(f"p{i + 1}" for i in range(pages))


def constant_lines(constants: Sequence[Constant], profile: object) -> list[str]:
    """The .cfg lines assigning every constant but Pages and NoPage its value in ``profile``
    (for a model that defines its pages itself, as a trace module does)."""
    return [f"    {c.tla} = {tla_literal(getattr(profile, c.attr))}" for c in constants]


def cfg_lines(constants: Sequence[Constant], profile: object) -> list[str]:
    """The CONSTANTS lines of a .cfg for ``profile``: Pages, NoPage, then every constant."""
    pages = int(getattr(profile, "pages"))
    return [
        f"    Pages = {{{', '.join(page_names(pages))}}}",
        "    NoPage = NoPage",
        *constant_lines(constants, profile),
    ]


def json_value(value: ConstantValue) -> Any:
    """The value in a JSON object: sets as sorted lists."""
    if isinstance(value, (frozenset, tuple)):
        return sorted(value)
    return value


def to_json(constants: Sequence[Constant], profile: object) -> dict[str, Any]:
    """The profile as a hello's ``profile`` object: each constant under its spec name."""
    obj = {c.tla: json_value(getattr(profile, c.attr)) for c in constants}
    obj["Pages"] = getattr(profile, "pages")
    return obj


def from_json(constants: Sequence[Constant], obj: Mapping[str, Any]) -> dict[str, Any]:
    """A hello's ``profile`` object as profile fields (``{"storage_keys": True, ...}``); a field
    the object leaves out is left out. Raises ValueError on an unknown key or a value outside the
    constant's kind; the profile's own checks (the spec's ASSUME) come when it is built."""
    names = {c.tla: c for c in constants}
    fields: dict[str, Any] = {}
    for key, value in obj.items():
        if key == "Pages":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Pages must be a positive integer, not {value!r}")
            fields["pages"] = value
            continue
        c = names.get(key)
        if c is None:
            raise ValueError(f"unknown constant {key!r}: one of Pages, {', '.join(names)}")
        kind = c.domain[0]
        if isinstance(kind, bool):
            ok = isinstance(value, bool)
        elif isinstance(kind, int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif isinstance(kind, str):
            ok = isinstance(value, str)
        else:  # a set of strings, or a tuple of numbers
            member = str if isinstance(kind, frozenset) else int
            ok = isinstance(value, list) and all(
                isinstance(v, member) and not isinstance(v, bool) for v in value
            )
        if not ok:
            raise ValueError(f"{key}: {value!r} is not a value of this constant")
        if isinstance(kind, frozenset):
            value = frozenset(value)
        elif isinstance(kind, tuple):
            value = tuple(value)
        fields[c.attr] = value
    return fields


def combinations(
    constants: Sequence[Constant], fixed: Mapping[str, Any] | None = None
) -> Iterator[dict[str, Any]]:
    """Every combination of the constants' domains, as profile fields; ``fixed`` (field -> value)
    pins some of them. The first constant varies fastest, so the combinations of the first few
    (a machine's basic constants) all come before a later one (an option) leaves its first value."""
    fixed = dict(fixed or {})
    axes = [(c.attr, (fixed[c.attr],) if c.attr in fixed else c.domain) for c in constants]
    for values in itertools.product(*(domain for _, domain in reversed(axes))):
        yield dict(zip((attr for attr, _ in reversed(axes)), values))


def short_name(constants: Sequence[Constant], profile: object) -> str:
    """A profile in one token for reports and test ids: ``KVMGmap-keys-f147-cbrl2-2p``."""
    parts: list[str] = []
    for c in constants:
        v = getattr(profile, c.attr)
        if not c.always_named and v == c.domain[0]:
            continue
        if isinstance(v, bool):
            parts.append(_FLAG_NAMES.get(c.tla, c.tla) if v else "no" + _FLAG_NAMES.get(c.tla, c.tla))
        elif isinstance(v, frozenset):
            parts.append("+".join(sorted(v)) or f"no{c.tla}")
        elif isinstance(v, int):
            parts.append(f"{_FLAG_NAMES.get(c.tla, c.tla)}{v}")
        elif isinstance(v, tuple):
            parts.append(f"{c.tla}{''.join(map(str, v))}")
        else:
            parts.append(str(v))
    pages = getattr(profile, "pages")
    return "-".join([*parts, f"{pages}p"])


_FLAG_NAMES: Final = {
    "StorageKeys": "keys", "Facility147": "f147", "CBRLSize": "cbrl", "HostService": "hs",
    "PrebuiltPageTables": "pt", "MachineInterpretsESSA": "mie", "ModernGuest": "modern",
    "CMMAEnabled": "cmma",
}  # fmt: skip


def replace(profile: P, **fields: Any) -> P:
    """The profile with some fields changed (and checked again)."""
    return dataclasses.replace(profile, **fields)  # type: ignore[type-var]
