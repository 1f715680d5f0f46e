"""Sequences of operations for the command line, in a small text format or JSON.

Text: one operation per line, ``<Operation> <page> [<value>]``; a value only for Write; ``#``
starts a comment; blank lines are skipped::

    SetVolatile 0      # page 0 becomes volatile
    Write 1 5
    HostDiscard 0

JSON: a list of objects ``{"op": "Write", "page": 1, "arg": 5}`` (``arg`` only for Write).

Both give a list of :class:`Request`; a malformed one raises :class:`ProgramError` naming the
line (text) or the item and its line (JSON).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from .profile import NO_VALUE
from .state import OPS


class ProgramError(ValueError):
    """A malformed operation sequence; the message says where."""


class Request(NamedTuple):
    op: str
    page: int
    arg: int
    line: int  # where it was written, for messages

    def show(self) -> str:
        return f"{self.op} {self.page}" + (f" {self.arg}" if self.arg != NO_VALUE else "")


def _check(op: Any, page: Any, arg: Any, where: str) -> tuple[str, int, int]:
    if op not in OPS:
        raise ProgramError(f"{where}: unknown operation {op!r}; one of {', '.join(OPS)}")
    if isinstance(page, bool) or not isinstance(page, int) or page < 0:
        raise ProgramError(f"{where}: {op}: the page must be a number 0, 1, ..., not {page!r}")
    if op == "Write":
        if arg is None:
            raise ProgramError(f"{where}: Write needs a value: Write <page> <value>")
        if isinstance(arg, bool) or not isinstance(arg, int) or arg < 0:
            raise ProgramError(f"{where}: Write: the value must be a number 0, 1, ..., not {arg!r}")
        return op, page, arg
    if arg is not None:
        raise ProgramError(f"{where}: {op} takes a page and no value (got {arg!r})")
    return op, page, NO_VALUE


def _number(word: str) -> int | str:
    return int(word) if word.isdigit() else word


def parse_text(text: str, name: str = "-") -> list[Request]:
    out: list[Request] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{name}:{lineno}"
        if len(words) == 1:
            raise ProgramError(f"{where}: {words[0]} needs a page: <Operation> <page> [<value>]")
        if len(words) > 3:
            raise ProgramError(
                f"{where}: too many words in {raw.strip()!r}: <Operation> <page> [<value>]"
            )
        op, page, arg = _check(
            words[0], _number(words[1]), _number(words[2]) if len(words) == 3 else None, where
        )
        out.append(Request(op, page, arg, lineno))
    return out


def _line_of_item(text: str, index: int) -> int:
    """The line on which the JSON list's item ``index`` starts (best effort)."""
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    for i in range(index + 1):
        while text[pos] in " \t\r\n,":
            pos += 1
        if i == index:
            return text.count("\n", 0, pos) + 1
        _, pos = decoder.raw_decode(text, pos)
    return 0  # unreachable


def parse_json(text: str, name: str = "-") -> list[Request]:
    try:
        items = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProgramError(f"{name}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    if not isinstance(items, list):
        raise ProgramError(
            f'{name}: JSON input must be a list of {{"op": ..., "page": ...}} objects'
        )
    out: list[Request] = []
    for i, item in enumerate(items):
        line = _line_of_item(text, i)
        where = f"{name}:{line}: item {i}"
        if not isinstance(item, dict):
            raise ProgramError(
                f'{where}: expected an object {{"op": ..., "page": ...}}, found {item!r}'
            )
        unknown = set(item) - {"op", "page", "arg"}
        if unknown:
            raise ProgramError(
                f"{where}: unknown keys {sorted(unknown)}; the keys are op, page, arg"
            )
        if "page" not in item:
            raise ProgramError(f"{where}: no page")
        op, page, arg = _check(item.get("op"), item["page"], item.get("arg"), where)
        out.append(Request(op, page, arg, line))
    return out


def parse_program(text: str, name: str = "-") -> list[Request]:
    """Text or JSON (recognised by a leading ``[``)."""
    if text.lstrip().startswith("["):
        return parse_json(text, name)
    return parse_text(text, name)
