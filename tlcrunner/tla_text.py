"""A TLA+ tokenizer and the layout facts mutation needs: definitions, bullet lists, extents.

Not a parser: enough of TLA+'s lexical rules that a mutation never lands in a comment or a
string, and enough of its layout rules (a ``/\\`` or ``\\/`` bullet list is delimited by its
column, SANY's rule) that a mutated conjunct is a whole conjunct. What it does not understand it
leaves alone: every operator of :mod:`tlcrunner.mutation_ops` skips a construct whose extent it
cannot determine, and TLC's parser is the final judge (an unparsable mutant is "invalid").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Longest first: the tokenizer takes the first symbol that matches.
SYMBOLS = (
    "<=>", "|->", "-+->", "...", "==", "<=", "=<", ">=", "/=", "=>", "->", "<-", "<<", ">>",
    "[]", "<>", "~>", "::", "..", "\\/", "/\\", "(", ")", "[", "]", "{", "}", ",", ":", "'",
    "=", "#", "<", ">", "~", "!", "@", ".", "+", "-", "*", "/", "^", "%", "|", "&", "$", "?",
)  # fmt: skip
KEYWORDS = frozenset({
    "IF", "THEN", "ELSE", "CASE", "OTHER", "LET", "IN", "EXCEPT", "UNCHANGED", "ENABLED",
    "SUBSET", "UNION", "DOMAIN", "CHOOSE", "LAMBDA", "LOCAL", "INSTANCE", "WITH", "EXTENDS",
    "CONSTANT", "CONSTANTS", "VARIABLE", "VARIABLES", "ASSUME", "ASSUMPTION", "THEOREM",
    "RECURSIVE", "MODULE", "TRUE", "FALSE", "BOOLEAN", "STRING",
})  # fmt: skip
BINDERS = frozenset({"\\A", "\\E", "\\AA", "\\EE", "CHOOSE"})
OPENERS = {"(": ")", "[": "]", "{": "}", "<<": ">>"}
CLOSERS = frozenset(OPENERS.values())
# Tokens after which an expression is complete, so a following /\ or \/ is infix.
_VALUE_KEYWORDS = frozenset({"TRUE", "FALSE", "BOOLEAN", "STRING", "OTHER"})

_IDENT = re.compile(r"[A-Za-z0-9_]*[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9]+")
_BACKSLASH_WORD = re.compile(r"\\[A-Za-z]+")
_RULE = re.compile(r"-{4,}|={4,}")


class TlaSyntaxError(ValueError):
    """The text is not lexically TLA+ (an unterminated comment or string)."""


@dataclass(frozen=True)
class Token:
    kind: str  # "ident", "keyword", "number", "string", "symbol", "rule"
    text: str
    start: int  # offset in the module text
    line: int  # 1-based
    col: int  # 0-based
    first_on_line: bool

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def tokenize(text: str) -> list[Token]:
    """The tokens of a module, comments and whitespace left out; stops at the closing ``====``
    (SANY ignores what follows it)."""
    tokens: list[Token] = []
    i, line, line_start, n = 0, 1, 0, len(text)
    last_line = 0
    while i < n:
        c = text[i]
        if c == "\n":
            i, line, line_start = i + 1, line + 1, i + 1
            continue
        if c in " \t\r\f":
            i += 1
            continue
        if text.startswith("\\*", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("(*", i):
            depth, j = 0, i
            while j < n:
                if text.startswith("(*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*)", j):
                    depth, j = depth - 1, j + 2
                    if depth == 0:
                        break
                else:
                    j += 1
            if depth:
                raise TlaSyntaxError(f"line {line}: unterminated (* comment")
            line += text.count("\n", i, j)
            nl = text.rfind("\n", i, j)
            if nl >= 0:
                line_start = nl + 1
            i = j
            continue
        kind, m_text = _lex_one(text, i, line)
        tok = Token(kind, m_text, i, line, i - line_start, first_on_line=line != last_line)
        last_line = line
        tokens.append(tok)
        i += len(m_text)
        if kind == "rule" and m_text.startswith("====") and len(tokens) > 1:
            break
    return tokens


def _lex_one(text: str, i: int, line: int) -> tuple[str, str]:
    c = text[i]
    if c == '"':
        j = i + 1
        while j < len(text) and text[j] != '"':
            if text[j] == "\n":
                break
            j += 2 if text[j] == "\\" else 1
        if j >= len(text) or text[j] != '"':
            raise TlaSyntaxError(f"line {line}: unterminated string")
        return "string", text[i : j + 1]
    m = _RULE.match(text, i)
    if m:
        return "rule", m.group()
    if c == "\\" and not text.startswith("\\/", i):
        m = _BACKSLASH_WORD.match(text, i)
        if m:
            return "symbol", m.group()
    m = _IDENT.match(text, i)
    if m and (c.isalpha() or c == "_" or not _NUMBER.fullmatch(m.group())):
        word = m.group()
        return ("keyword" if word in KEYWORDS else "ident"), word
    m = _NUMBER.match(text, i)
    if m:
        return "number", m.group()
    for sym in SYMBOLS:
        if text.startswith(sym, i):
            return "symbol", sym
    return "symbol", c


def ends_expression(tok: Token | None) -> bool:
    """Whether an expression can end with ``tok``: then a /\\ or \\/ after it is infix."""
    if tok is None:
        return False
    if tok.kind in ("ident", "number", "string"):
        return True
    if tok.kind == "keyword":
        return tok.text in _VALUE_KEYWORDS
    return tok.text in CLOSERS or tok.text in ("'", "@")


@dataclass
class Bullet:
    """One item of a /\\ or \\/ bullet list: tokens[start:end] after the bullet at ``index``."""

    index: int
    kind: str
    col: int
    start: int
    end: int


@dataclass
class Definition:
    """A top-level ``Name(args) == body`` (or ``Name[x \\in S] == body``): tokens[body:end]."""

    name: str
    head: int  # index of the name token
    body: int
    end: int
    bullets: list[Bullet] = field(default_factory=list)
    infix: set[int] = field(default_factory=set)  # indexes of infix /\ and \/


def definitions(tokens: list[Token]) -> list[Definition]:
    """The module's top-level definitions: a name in column 0 followed by ``==`` (after its
    parameters, if any); each ends at the next token in column 0."""
    out: list[Definition] = []
    col0 = [i for i, t in enumerate(tokens) if t.col == 0 and t.first_on_line]
    for k, i in enumerate(col0):
        t = tokens[i]
        head = i + 1 if t.text == "LOCAL" and i + 1 < len(tokens) else i
        if tokens[head].kind != "ident":
            continue
        j = head + 1
        if j < len(tokens) and tokens[j].text in ("(", "["):
            j = matching(tokens, j)
            if j < 0:
                continue
            j += 1
        if j >= len(tokens) or tokens[j].text != "==":
            continue
        end = col0[k + 1] if k + 1 < len(col0) else len(tokens)
        if tokens[end - 1].kind == "rule":
            end -= 1
        d = Definition(tokens[head].text, head, j + 1, end)
        d.bullets, d.infix = junctions(tokens, d.body, d.end)
        out.append(d)
    return out


def matching(tokens: list[Token], i: int) -> int:
    """The index of the closer matching the opener at ``i``, or -1."""
    stack = [OPENERS[tokens[i].text]]
    for j in range(i + 1, len(tokens)):
        t = tokens[j].text
        if t in OPENERS:
            stack.append(OPENERS[t])
        elif t in CLOSERS:
            if t != stack.pop():
                return -1
            if not stack:
                return j
    return -1


def junctions(tokens: list[Token], start: int, end: int) -> tuple[list[Bullet], set[int]]:
    """Classify every /\\ and \\/ of tokens[start:end] as a bullet (with its item's extent) or
    infix. A junction is a bullet when no expression precedes it, or when it is the first token
    of its line in the column of an open bullet list of its kind (SANY's rule)."""
    bullets: list[Bullet] = []
    infix: set[int] = set()
    open_lists: list[tuple[int, str, int]] = []  # (column, kind, bracket depth)
    depth = 0
    for i in range(start, end):
        t = tokens[i]
        if t.text in OPENERS:
            depth += 1
        elif t.text in CLOSERS:
            depth -= 1
            while open_lists and open_lists[-1][2] > depth:
                open_lists.pop()
        if t.first_on_line:
            while open_lists and (t.col < open_lists[-1][0] or (
                    t.col == open_lists[-1][0] and t.text != open_lists[-1][1])):
                open_lists.pop()
        if t.text not in ("/\\", "\\/"):
            continue
        top = open_lists[-1] if open_lists else None
        if t.first_on_line and top and top[0] == t.col and top[1] == t.text:
            bullets.append(Bullet(i, t.text, t.col, i + 1, -1))
        elif not ends_expression(tokens[i - 1] if i > start else None):
            open_lists.append((t.col, t.text, depth))
            bullets.append(Bullet(i, t.text, t.col, i + 1, -1))
        else:
            infix.add(i)
    for b in bullets:
        b.end = item_end(tokens, b.start, end, b.col)
    return bullets, infix


def item_end(tokens: list[Token], start: int, end: int, col: int) -> int:
    """Where an expression starting at ``start`` ends: at a token on a later line in column
    ``col`` or left of it, at a closer it did not open, or at a THEN, ELSE, IN or comma that
    belongs to an enclosing construct."""
    depth, ifs, lets, binding = 0, 0, 0, False
    first_line = tokens[start].line if start < end else 0
    for j in range(start, end):
        t = tokens[j]
        if t.first_on_line and t.line != first_line and t.col <= col:
            return j
        if depth == 0 and t.text in BINDERS:
            binding = True  # \A p, q \in S : its commas are its own, up to the colon
        elif depth == 0 and t.text == ":":
            binding = False
        if t.text in OPENERS:
            depth += 1
        elif t.text in CLOSERS:
            if depth == 0:
                return j
            depth -= 1
        elif depth == 0 and t.kind == "keyword":
            if t.text == "IF":
                ifs += 1
            elif t.text == "THEN" and ifs == 0:
                return j
            elif t.text == "ELSE":
                if ifs == 0:
                    return j
                ifs -= 1
            elif t.text == "LET":
                lets += 1
            elif t.text == "IN":
                if lets == 0:
                    return j
                lets -= 1
        elif depth == 0 and t.text == "," and ifs == 0 and lets == 0 and not binding:
            return j
    return end


def enclosing_column(d: Definition, i: int) -> int:
    """The column of the innermost bullet whose item holds token ``i`` (-1 if none)."""
    best: Bullet | None = None
    for b in d.bullets:
        if b.start <= i < b.end and (best is None or b.start > best.start):
            best = b
    return best.col if best else -1


def declared_variables(tokens: list[Token]) -> set[str]:
    """Names declared by VARIABLE(S) sections."""
    names: set[str] = set()
    for i, t in enumerate(tokens):
        if t.text in ("VARIABLE", "VARIABLES"):
            j = i + 1
            while j < len(tokens) and not (tokens[j].col == 0 and tokens[j].first_on_line):
                if tokens[j].kind == "ident":
                    names.add(tokens[j].text)
                j += 1
    return names


def extended_modules(tokens: list[Token]) -> list[str]:
    """The modules named by the module's EXTENDS, in their order."""
    names: list[str] = []
    for i, t in enumerate(tokens):
        if t.text == "EXTENDS":
            j = i + 1
            while j < len(tokens) and tokens[j].kind == "ident":
                names.append(tokens[j].text)
                j += 2 if j + 1 < len(tokens) and tokens[j + 1].text == "," else len(tokens)
    return names


def imported_modules(text: str) -> set[str]:
    """The modules a module EXTENDS or INSTANCEs."""
    tokens = tokenize(text)
    names = set(extended_modules(tokens))
    for i, t in enumerate(tokens):
        if t.text == "INSTANCE" and i + 1 < len(tokens):
            names.add(tokens[i + 1].text)
    return names
