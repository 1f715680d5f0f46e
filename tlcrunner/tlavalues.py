"""Read the TLA+ values TLC prints (in state dumps, traces, the dot file of ``-dump dot``).

Covered: integers, strings, ``TRUE``/``FALSE``, model values (bare identifiers), records
``[a |-> 1, b |-> "x"]``, functions ``(p1 :> "S" @@ p2 :> "S")``, sets ``{1, 2}`` and sequences
or tuples ``<<1, 2>>``. Whitespace, including TLC's line breaks inside long records, is ignored.

Python values: ``int``, ``str``, ``bool``, :class:`ModelValue`, :class:`Record` (a dict from
field name to value), ``dict`` (a function), ``frozenset`` and ``tuple``.
"""

from __future__ import annotations

import re
from typing import NamedTuple, TypeAlias, Union


class ModelValue(NamedTuple):
    """A TLC model value, e.g. ``p1`` or ``NoPage``."""

    name: str

    def __repr__(self) -> str:
        return self.name


class Record(dict[str, "TlaValue"]):
    """A TLA+ record: field name -> value."""


TlaValue: TypeAlias = Union[
    int, str, bool, ModelValue, Record, "dict[TlaValue, TlaValue]",
    "frozenset[TlaValue]", "tuple[TlaValue, ...]",
]  # fmt: skip


class TlaValueError(ValueError):
    """Text that is not a TLA+ value as TLC prints it."""


_TOKEN = re.compile(
    r"""\s*(?:
        (?P<punct><<|>>|\|->|:>|@@|[\[\](){},])
      | (?P<string>"(?:[^"\\]|\\.)*")
      | (?P<int>-?\d+)
      | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    )""",
    re.VERBOSE,
)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "f": "\f"}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        end = len(text.rstrip())
        while pos < end:
            m = _TOKEN.match(text, pos)
            if m is None or m.lastgroup is None:
                raise TlaValueError(f"unexpected character {text[pos:].lstrip()[:1]!r} at "
                                    f"offset {pos} in {self._excerpt()}")
            self.tokens.append((m.lastgroup, m.group(m.lastgroup), m.start(m.lastgroup)))
            pos = m.end()
        self.i = 0

    def _excerpt(self) -> str:
        return repr(self.text if len(self.text) <= 120 else self.text[:117] + "...")

    def peek(self) -> str | None:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise TlaValueError(
                f"unexpected end, expected {expected or 'a value'}, in {self._excerpt()}"
            )
        kind, tok, offset = self.tokens[self.i]
        if expected is not None and tok != expected:
            raise TlaValueError(
                f"expected {expected!r} but found {tok!r} at offset {offset} in {self._excerpt()}"
            )
        self.i += 1
        return kind, tok

    def items(self, close: str) -> list[TlaValue]:
        out: list[TlaValue] = []
        if self.peek() == close:
            self.take(close)
            return out
        while True:
            out.append(self.value())
            if self.peek() == ",":
                self.take(",")
                continue
            self.take(close)
            return out

    def value(self) -> TlaValue:
        kind, tok = self.take()
        if kind == "int":
            return int(tok)
        if kind == "string":
            return _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(1)), tok[1:-1])
        if kind == "ident":
            if tok == "TRUE":
                return True
            if tok == "FALSE":
                return False
            return ModelValue(tok)
        if tok == "[":
            return self.record()
        if tok == "(":
            return self.function()
        if tok == "{":
            return frozenset(self.items("}"))
        if tok == "<<":
            return tuple(self.items(">>"))
        raise TlaValueError(f"unexpected {tok!r} in {self._excerpt()}")

    def record(self) -> Record:
        rec = Record()
        while True:
            kind, name = self.take()
            if kind != "ident":
                raise TlaValueError(f"expected a field name, found {name!r} in {self._excerpt()}")
            self.take("|->")
            if name in rec:
                raise TlaValueError(f"field {name} twice in {self._excerpt()}")
            rec[name] = self.value()
            if self.peek() == ",":
                self.take(",")
                continue
            self.take("]")
            return rec

    def function(self) -> dict[TlaValue, TlaValue]:
        fun: dict[TlaValue, TlaValue] = {}
        while True:
            key = self.value()
            self.take(":>")
            if key in fun:
                raise TlaValueError(f"key {key!r} twice in {self._excerpt()}")
            fun[key] = self.value()
            if self.peek() == "@@":
                self.take("@@")
                continue
            self.take(")")
            return fun


def parse_value(text: str) -> TlaValue:
    """The TLA+ value TLC printed as ``text``."""
    parser = _Parser(text)
    value = parser.value()
    if parser.i != len(parser.tokens):
        raise TlaValueError(
            f"unexpected {parser.tokens[parser.i][1]!r} after the value in {parser._excerpt()}"
        )
    return value


_CONJUNCT = re.compile(r"^/\\ ([A-Za-z_][A-Za-z0-9_]*) = ", re.MULTILINE)


def split_state(text: str) -> dict[str, str]:
    """A state as TLC prints it (``/\\ x = 1`` on each line) -> {variable: value text}."""
    found = list(_CONJUNCT.finditer(text))
    if not found or found[0].start() != 0:
        raise TlaValueError(f"not a state (no leading '/\\ name = '): {text[:80]!r}")
    out: dict[str, str] = {}
    for m, nxt in zip(found, found[1:] + [None]):
        name = m.group(1)
        if name in out:
            raise TlaValueError(f"variable {name} twice in a state")
        out[name] = text[m.end() : nxt.start() if nxt is not None else len(text)]
    return out


def parse_state(text: str) -> dict[str, TlaValue]:
    """A state as TLC prints it (``/\\ x = 1`` on each line) -> {variable: value}."""
    return {name: parse_value(value) for name, value in split_state(text).items()}
