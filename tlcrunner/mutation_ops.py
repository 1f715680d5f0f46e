"""The catalogue of semantic mutation operators for TLA+, and the mutants of a module.

Each operator models one kind of one-line bug a spec author or an implementer makes. It rewrites
the module's text in one place and leaves every other character, comments included, as it was.
Mutation applies to the machine, not to the yardstick: the definitions whose names end in
``Inv``, ``Prop`` or ``TypeOK`` (the properties), the reachability witnesses the manifest names
(``witnesses``: what a property is about), the modules whose names end in ``Properties``, and
the ``\\* @type:`` annotations (comments) are never mutated. Nor is the models' environment: the
definitions the manifest names ``environment``, which only choose which steps a model offers
(configuration, not machine: a mutant there would pick another model, D259). An environment
definition must read no variable, so that it cannot be a step in disguise.

A mutant's ``id`` is a hash of the module, the definition, the operator, the text replaced, the
replacement and its rank among identical changes in that definition: it does not depend on line
numbers, so an equivalent mutant listed by id stays listed while the lines around it move.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from .tla_text import (
    CLOSERS,
    OPENERS,
    Definition,
    Token,
    declared_variables,
    definitions,
    enclosing_column,
    extended_modules,
    item_end,
    matching,
    tokenize,
)

YARDSTICK_SUFFIXES = ("Inv", "Prop", "TypeOK")


@dataclass(frozen=True)
class Edit:
    start: int  # offsets in the module text
    end: int
    replacement: str
    definition: str
    line: int


@dataclass(frozen=True)
class Mutant:
    module: str
    operator: str
    definition: str
    line: int
    before: str  # the text replaced, whitespace collapsed
    after: str
    id: str
    text: str  # the whole mutated module

    @property
    def change(self) -> str:
        return f"{self.before} -> {self.after}"


@dataclass
class Context:
    text: str
    tokens: list[Token]
    variables: set[str]
    defs: list[Definition]
    actions: set[str] = field(default_factory=set)  # definitions that prime a variable
    initials: set[str] = field(default_factory=set)  # initial predicates (Init)
    # the enumerations of the modules it EXTENDS, for a module whose machine is theirs
    inherited_enums: list[list[str]] = field(default_factory=list)


def _actions(tokens: list[Token], defs: list[Definition], inherited: Iterable[str] = ()) -> set[str]:
    """The actions the module can call: ``inherited`` (those of the modules it EXTENDS) and its
    own definitions that are actions: a primed variable or UNCHANGED in their body, or a call of
    an action (to a fixpoint)."""
    acts: set[str] = set(inherited)
    grew = True
    while grew:
        grew = False
        for d in defs:
            if d.name not in acts and any(
                    t.text in ("'", "UNCHANGED") or (t.kind == "ident" and t.text in acts)
                    for t in tokens[d.body : d.end]):  # fmt: skip
                acts.add(d.name)
                grew = True
    return acts


def _initials(tokens: list[Token], defs: list[Definition]) -> set[str]:
    """The module's initial predicates: the definitions a temporal formula conjoins to its
    ``[][Next]_vars`` (``Init`` in ``Spec == Init /\\ [][Next]_vars``)."""
    names = {d.name for d in defs}
    temporal = {d.name for d in defs if _temporal(tokens, d)}
    out: set[str] = set()
    for d in defs:
        if d.name not in temporal:
            continue
        depth = 0
        for i in range(d.body, d.end):
            s = tokens[i].text
            depth += (s in OPENERS) - (s in CLOSERS)
            if depth == 0 and s in names - temporal and tokens[i - 1].text != "]":
                out.add(s)
    return out


def inherited(tokens: list[Token], library: Mapping[str, str],
              _seen: frozenset[str] = frozenset()) -> tuple[set[str], set[str]]:  # fmt: skip
    """The actions and the initial predicates of the modules the module EXTENDS, transitively,
    read from ``library`` (module name -> text; a module not in it, such as a standard module,
    has none). An EXTENDed module's definitions are the module's own, so a call of one of its
    actions (PageStates' ``Record`` called from GuestHostAtomicity) is an update, not a guard,
    and a call of its ``Init`` assigns its variables."""
    actions: set[str] = set()
    initials: set[str] = set()
    for name in extended_modules(tokens):
        if name in _seen or name not in library:
            continue
        sub = tokenize(library[name])
        defs = definitions(sub)
        acts, inits = inherited(sub, library, _seen | {name})
        actions |= _actions(sub, defs, acts)
        initials |= inits | _initials(sub, defs)
    return actions, initials


Operator = Callable[[Context, Definition], Iterator[Edit]]


def _span(ctx: Context, i: int, j: int) -> tuple[int, int]:
    """Text offsets of tokens[i:j]."""
    return ctx.tokens[i].start, ctx.tokens[j - 1].end


def _edit(ctx: Context, d: Definition, i: int, j: int, replacement: str) -> Edit:
    start, end = _span(ctx, i, j)
    return Edit(start, end, replacement, d.name, ctx.tokens[i].line)


def _has_prime(ctx: Context, i: int, j: int) -> bool:
    """Whether tokens[i:j] may change a variable: a prime, UNCHANGED, a call of an action, or
    a call through an INSTANCE (``B!CopyStart(p, t)``), whose module is not read here."""
    t = ctx.tokens
    return any(
        t[k].text in ("'", "UNCHANGED")
        or (t[k].kind == "ident" and t[k].text in ctx.actions)
        or (t[k].text == "!" and k > i and t[k - 1].kind == "ident")
        for k in range(i, j)
    )


def _is_initial_assignment(ctx: Context, d: Definition, i: int) -> bool:
    """``v = e`` or ``v \\in S`` with v a variable, in a definition with no primes: a conjunct
    of an initial predicate, whose removal leaves v undefined (TLC rejects it, no semantics)."""
    t = ctx.tokens
    return (
        t[i].text in ctx.variables
        and i + 1 < d.end
        and t[i + 1].text in ("=", "\\in")
        and d.name not in ctx.actions
    )


def _is_initial_call(ctx: Context, d: Definition, i: int, j: int) -> bool:
    """A conjunct that is a call of an initial predicate (``/\\ Init`` in an initial predicate
    of a module that EXTENDS the one defining Init): it assigns that module's variables."""
    t = ctx.tokens
    return (
        t[i].text in ctx.initials
        and d.name not in ctx.actions
        and (j == i + 1 or (t[i + 1].text == "(" and matching(t, i + 1) == j - 1))
    )


def _end(ctx: Context, d: Definition, start: int, col: int, *, junctions: bool = False) -> int:
    """Where the expression at ``start`` ends (:func:`item_end`); with ``junctions``, also at
    an infix /\\ or \\/ at its depth (``x' = a /\\ b`` is ``(x' = a) /\\ b``)."""
    end = item_end(ctx.tokens, start, d.end, col)
    if junctions:
        depth = 0
        for j in range(start, end):
            s = ctx.tokens[j].text
            depth += (s in OPENERS) - (s in CLOSERS)
            if depth == 0 and j in d.infix:
                return j
    return end


# --- drop a conjunct -------------------------------------------------------------------------


def _conjuncts(ctx: Context, d: Definition) -> Iterator[tuple[int, int]]:
    """Token ranges of the conjuncts of a /\\ bullet list, of a definition body that is an
    infix conjunction, of a bullet (of either list) that is one (``/\\ lockHeld[c] /\\ dirty[p]``
    on one line, ``\\/ y > 5 /\\ Inc``: D300), and of an IF condition that is one."""
    for b in d.bullets:
        if b.kind == "/\\":
            yield b.start, b.end
    yield from _infix_parts(ctx, d, d.body, d.end)
    for b in d.bullets:
        yield from _infix_parts(ctx, d, b.start, b.end)
    for i in range(d.body, d.end):
        if ctx.tokens[i].text == "IF":
            then = _matching_then(ctx, i + 1, d.end)
            if then > 0:
                yield from _infix_parts(ctx, d, i + 1, then)


def _infix_parts(ctx: Context, d: Definition, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The parts of tokens[start:end] split at its depth-0 infix /\\, when that is all it is at
    depth 0 (no \\/, =>, quantifier, IF, LET or CASE, whose scope would change the meaning)."""
    depth, cuts = 0, []
    for i in range(start, end):
        t = ctx.tokens[i]
        if t.text in OPENERS:
            depth += 1
        elif t.text in CLOSERS:
            depth -= 1
        elif depth == 0:
            if i in d.infix and t.text == "/\\":
                cuts.append(i)
            elif t.text in ("\\/", "=>", "<=>", "~>", ":", "IF", "LET", "CASE", "\\E", "\\A",
                            "CHOOSE", "THEN", "ELSE", "IN", ",") or (i > start and i in {
                                b.index for b in d.bullets}):  # fmt: skip
                return
        if depth < 0:
            return
    if not cuts:
        return
    bounds = [start - 1, *cuts, end]
    for a, b in zip(bounds, bounds[1:]):
        if b > a + 1:
            yield a + 1, b


def drop_conjunct(ctx: Context, d: Definition) -> Iterator[Edit]:
    """Drop an enabling conjunct (a guard): ``/\\ p \\in S`` -> ``/\\ TRUE``. Conjuncts with a
    primed variable or UNCHANGED are updates, not guards, and an initial predicate's ``v = e``
    is no guard either."""
    for i, j in _conjuncts(ctx, d):
        if _has_prime(ctx, i, j) or _is_initial_assignment(ctx, d, i) or _is_initial_call(ctx, d, i, j):
            continue
        if j - i == 1 and ctx.tokens[i].text == "TRUE":
            continue
        yield _edit(ctx, d, i, j, "TRUE")


# --- drop an update --------------------------------------------------------------------------


def drop_update(ctx: Context, d: Definition) -> Iterator[Edit]:
    """Replace a primed variable by its unprimed value: ``x' = e`` -> ``x' = x``."""
    t = ctx.tokens
    for i in range(d.body, d.end - 3):
        if t[i].text in ctx.variables and t[i + 1].text == "'" and t[i + 2].text == "=":
            rhs = i + 3
            end = _end(ctx, d, rhs, enclosing_column(d, i), junctions=True)
            if end > rhs and not (end - rhs == 1 and t[rhs].text == t[i].text):
                yield _edit(ctx, d, rhs, end, t[i].text)


# --- IF conditions and branches --------------------------------------------------------------


def _matching_then(ctx: Context, start: int, end: int) -> int:
    depth, ifs = 0, 0
    for j in range(start, end):
        s = ctx.tokens[j].text
        if s in OPENERS:
            depth += 1
        elif s in CLOSERS:
            depth -= 1
            if depth < 0:
                return -1
        elif depth == 0 and s == "IF":
            ifs += 1
        elif depth == 0 and s == "THEN":
            if ifs == 0:
                return j
        elif depth == 0 and s == "ELSE":
            ifs -= 1
    return -1


def _ifs(ctx: Context, d: Definition) -> Iterator[tuple[int, int, int, int]]:
    """(IF, THEN, ELSE, end of the ELSE branch) of every IF of the definition."""
    t = ctx.tokens
    for i in range(d.body, d.end):
        if t[i].text != "IF":
            continue
        then = _matching_then(ctx, i + 1, d.end)
        if then < 0:
            continue
        els = _end(ctx, d, then + 1, -1)
        if els >= d.end or t[els].text != "ELSE":
            continue
        yield i, then, els, _end(ctx, d, els + 1, enclosing_column(d, i))


def weaken_if(ctx: Context, d: Definition) -> Iterator[Edit]:
    """Weaken an IF condition to TRUE: the THEN branch is always taken."""
    for i, then, _, _ in _ifs(ctx, d):
        if not (then - i == 2 and ctx.tokens[i + 1].text == "TRUE"):
            yield _edit(ctx, d, i + 1, then, "TRUE")


def _same_shape(ctx: Context, a: tuple[int, int], b: tuple[int, int], cols: tuple[int, int]) -> bool:
    """Two branches can trade places textually when each is on one line, or when they start in
    the same column (a bullet list inside keeps its alignment)."""
    t = ctx.tokens
    one_line = all(t[i].line == t[j - 1].line for i, j in (a, b))
    return one_line or cols[0] == cols[1]


def _swap(ctx: Context, d: Definition, a: tuple[int, int], b: tuple[int, int]) -> Edit:
    """One edit covering both ranges, the texts between them kept."""
    text = ctx.text
    (a0, a1), (b0, b1) = _span(ctx, *a), _span(ctx, *b)
    replacement = text[b0:b1] + text[a1:b0] + text[a0:a1]
    return Edit(a0, b1, replacement, d.name, ctx.tokens[a[0]].line)


def swap_then_else(ctx: Context, d: Definition) -> Iterator[Edit]:
    """Swap the THEN and ELSE branches (the same as negating the condition, so the catalogue
    has one of the two)."""
    t = ctx.tokens
    for _, then, els, end in _ifs(ctx, d):
        a, b = (then + 1, els), (els + 1, end)
        if a[1] > a[0] and b[1] > b[0] and _same_shape(ctx, a, b, (t[a[0]].col, t[b[0]].col)):
            yield _swap(ctx, d, a, b)


# --- CASE arms -------------------------------------------------------------------------------


def swap_case_arms(ctx: Context, d: Definition) -> Iterator[Edit]:
    """Swap the results of two consecutive CASE arms (``a -> x [] b -> y`` -> ``a -> y [] b -> x``)."""
    t = ctx.tokens
    for i in range(d.body, d.end):
        if t[i].text != "CASE":
            continue
        arms: list[tuple[int, int]] = []
        depth, j, arrow = 0, i + 1, -1
        while j < d.end:
            s = t[j].text
            if s in OPENERS:
                depth += 1
            elif s in CLOSERS:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and s == "->" and arrow < 0:
                arrow = j
            elif depth == 0 and s in ("[]", "CASE"):
                if s == "CASE":
                    break  # a nested CASE: its arms are not this one's
                if arrow >= 0:
                    arms.append((arrow + 1, j))
                arrow = -1
                if t[j + 1].text == "OTHER":
                    break
            elif depth == 0 and s in ("THEN", "ELSE", "IN", ","):
                break
            elif t[j].first_on_line and t[j].col <= enclosing_column(d, i):
                break
            j += 1
        if arrow >= 0 and (j >= d.end or t[j].text != "[]"):
            arms.append((arrow + 1, j))
        for a, b in zip(arms, arms[1:]):
            texts = ctx.text[slice(*_span(ctx, *a))], ctx.text[slice(*_span(ctx, *b))]
            if texts[0] != texts[1] and _same_shape(ctx, a, b, (t[a[0]].col, t[b[0]].col)):
                yield _swap(ctx, d, a, b)


# --- values ----------------------------------------------------------------------------------


def _own_enumerations(ctx: Context) -> list[list[str]]:
    out = []
    for i, tok in enumerate(ctx.tokens):
        if tok.text == "{":
            elements = _set_elements(ctx, i)
            if elements and len(elements) >= 2 and all(
                    b - a == 1 and ctx.tokens[a].kind == "string" for a, b in elements):
                out.append([ctx.tokens[a].text for a, _ in elements])
    return out


def _enumerations(ctx: Context) -> list[list[str]]:
    """Every set literal of the module whose elements are all strings: the module's own
    enumerations of values ({"S", "U", "V", "P"}); then, for a part of a machine split into
    modules (``machine_variables``), those of the modules it EXTENDS."""
    return _own_enumerations(ctx) + ctx.inherited_enums


def inherited_enumerations(tokens: list[Token], library: Mapping[str, str],
                           _seen: frozenset[str] = frozenset()) -> list[list[str]]:  # fmt: skip
    """The enumerations of the modules the module EXTENDS, transitively, in EXTENDS order."""
    out: list[list[str]] = []
    for name in extended_modules(tokens):
        if name in _seen or name not in library:
            continue
        sub = tokenize(library[name])
        sub_ctx = Context(library[name], sub, set(), [])
        out += _own_enumerations(sub_ctx) + inherited_enumerations(sub, library, _seen | {name})
    return out


def swap_value(ctx: Context, d: Definition) -> Iterator[Edit]:
    """Replace a value by another of its enumeration: ``usage[p] = "S"`` -> ``usage[p] = "U"``
    (the next member of the first set literal of the module that lists it)."""
    enums = _enumerations(ctx)
    inside = {k for i in range(d.body, d.end) if ctx.tokens[i].text == "{"
              for a, _ in (_set_elements(ctx, i) or []) for k in [a]}  # fmt: skip
    for i in range(d.body, d.end):
        tok = ctx.tokens[i]
        if tok.kind != "string" or i in inside:
            continue
        for values in enums:
            if tok.text in values:
                other = values[(values.index(tok.text) + 1) % len(values)]
                yield _edit(ctx, d, i, i + 1, other)
                break


def _set_elements(ctx: Context, i: int) -> list[tuple[int, int]] | None:
    """The elements of the set enumeration opened at ``i``; None for a comprehension or a
    malformed one."""
    close = matching(ctx.tokens, i)
    if close < 0 or close == i + 1:
        return None
    parts, depth, start = [], 0, i + 1
    for j in range(i + 1, close):
        s = ctx.tokens[j].text
        if s in OPENERS:
            depth += 1
        elif s in CLOSERS:
            depth -= 1
        elif depth == 0 and s == ":":
            return None
        elif depth == 0 and s == ",":
            parts.append((start, j))
            start = j + 1
    parts.append((start, close))
    return parts


def drop_set_element(ctx: Context, d: Definition) -> Iterator[Edit]:
    """Drop an element from a set literal: ``{"r", "p"}`` -> ``{"p"}``."""
    for i in range(d.body, d.end):
        if ctx.tokens[i].text != "{":
            continue
        elements = _set_elements(ctx, i)
        if not elements or len(elements) < 2:
            continue
        for k, (a, b) in enumerate(elements):
            # The element and the comma after it (or, for the last, the comma before it).
            if k + 1 < len(elements):
                nxt = ctx.tokens[elements[k + 1][0]]
                yield Edit(ctx.tokens[a].start, nxt.start, "", d.name, ctx.tokens[a].line)
            else:
                yield _edit(ctx, d, elements[k - 1][1], b, "")


# --- comparisons and junctions ---------------------------------------------------------------

COMPARISONS = {"<": "<=", "<=": "<", "=<": "<", ">": ">=", ">=": ">", "=": "#", "#": "=", "/=": "="}


def _is_except_target(ctx: Context, i: int) -> bool:
    """``![p] = e`` or ``!.f = e`` inside an EXCEPT: not a comparison."""
    t = ctx.tokens
    prev = t[i - 1]
    if prev.text == "]":
        depth = 0
        for j in range(i - 1, 0, -1):
            if t[j].text == "]":
                depth += 1
            elif t[j].text == "[":
                depth -= 1
                if depth == 0:
                    return t[j - 1].text in ("!", "]")
        return False
    return prev.kind == "ident" and t[i - 2].text == "." and t[i - 3].text == "!"


def change_comparison(ctx: Context, d: Definition) -> Iterator[Edit]:
    """``<`` <-> ``<=``, ``>`` <-> ``>=``, ``=`` <-> ``#``; a primed variable's ``=`` (an update),
    an EXCEPT's ``=`` and an initial predicate's ``v = e`` are no comparisons."""
    t = ctx.tokens
    for i in range(d.body, d.end):
        new = COMPARISONS.get(t[i].text)
        if new is None or t[i].kind != "symbol":
            continue
        if t[i - 1].text == "'" or _is_except_target(ctx, i):
            continue
        if t[i].text == "=" and _is_initial_assignment(ctx, d, i - 1):
            continue
        yield _edit(ctx, d, i, i + 1, new)


def _same_depth(ctx: Context, d: Definition, i: int, step: int) -> Iterator[int]:
    """The tokens of the definition from ``i`` (excluded) towards ``step`` (-1 or 1) that are at
    its bracket depth, up to the bracket that encloses it."""
    inward, outward = (CLOSERS, OPENERS) if step < 0 else (OPENERS, CLOSERS)
    depth, j = 0, i + step
    while d.body <= j < d.end:
        s = ctx.tokens[j].text
        if s in inward:
            depth += 1
        elif s in outward:
            if depth == 0:
                return
            depth -= 1
        elif depth == 0:
            yield j
        j += step


def swap_junction(ctx: Context, d: Definition) -> Iterator[Edit]:
    """An infix ``\\/`` <-> ``/\\``, where it parses: only a junction with no other infix
    junction beside it at its depth (TLA+ rejects ``a /\\ b \\/ c`` without parentheses)."""
    for i in sorted(d.infix):
        if not d.body <= i < d.end:
            continue
        beside = (j for step in (-1, 1) for j in _same_depth(ctx, d, i, step))
        if not any(j in d.infix for j in beside):
            yield _edit(ctx, d, i, i + 1, "/\\" if ctx.tokens[i].text == "\\/" else "\\/")


#: The catalogue, in the order mutants are listed. Names are what --operators selects.
CATALOGUE: dict[str, Operator] = {
    "drop-conjunct": drop_conjunct,
    "drop-update": drop_update,
    "weaken-if": weaken_if,
    "swap-then-else": swap_then_else,
    "swap-case-arms": swap_case_arms,
    "swap-value": swap_value,
    "drop-set-element": drop_set_element,
    "change-comparison": change_comparison,
    "swap-junction": swap_junction,
}


def is_yardstick(name: str) -> bool:
    return name.endswith(YARDSTICK_SUFFIXES)


def mutable_module(module: str) -> bool:
    """A machine module: not a yardstick (the contract's *Properties modules and the step checks'
    *StepChecks modules state properties, GuestMemory is the guest's view every machine refines
    and a *RefinesGuestMemory module its mapping; mutating them would test the test)."""
    return not module.endswith(("Properties", "StepChecks", "RefinesGuestMemory")) and module != "GuestMemory"


def _short(s: str) -> str:
    s = " ".join(s.split())
    return s if len(s) <= 60 else s[:57] + "..."


def _yardstick(ctx: Context, witnesses: frozenset[str]) -> set[str]:
    """The properties (names ending in Inv, Prop, TypeOK), the witnesses named in ``witnesses``,
    and the definitions only they use, to a fixpoint: ``SameOutcome``, read by SameOutcomeInv
    alone, is part of the property."""
    names = {d.name for d in ctx.defs}
    users: dict[str, set[str]] = {n: set() for n in names}
    for d in ctx.defs:
        for t in ctx.tokens[d.body : d.end]:
            if t.kind == "ident" and t.text in users and t.text != d.name:
                users[t.text].add(d.name)
    out = {n for n in names if is_yardstick(n) or n in witnesses}
    grew = True
    while grew:
        grew = False
        for n in names - out:
            if users[n] and users[n] <= out:
                out.add(n)
                grew = True
    return out


def _type_sets(ctx: Context) -> set[str]:
    """Definitions that are a set of values no machine definition of the module uses
    (``Usages == {"S", "U", "V", "P"}``, read only by TypeOK or an ASSUME): type information,
    part of the yardstick."""
    used = {t.text for d in ctx.defs if not is_yardstick(d.name)
            for t in ctx.tokens[d.body : d.end] if t.kind == "ident"}  # fmt: skip
    out = set()
    for d in ctx.defs:
        if ctx.tokens[d.body].text == "{" and matching(ctx.tokens, d.body) == d.end - 1:
            if d.name not in used and all(t.kind in ("string", "number", "symbol")
                                          for t in ctx.tokens[d.body : d.end]):  # fmt: skip
                out.add(d.name)
    return out


def _environment(ctx: Context, environment: frozenset[str]) -> set[str]:
    """The module's definitions named in ``environment``; each must read no variable."""
    out = set()
    for d in ctx.defs:
        if d.name in environment:
            read = sorted({t.text for t in ctx.tokens[d.body : d.end]
                           if t.kind == "ident" and t.text in ctx.variables})  # fmt: skip
            if read:
                raise ValueError(
                    f"{d.name} is named environment in the manifest but reads the variable(s) "
                    f"{', '.join(read)}: an environment definition only chooses among steps"
                )
            out.add(d.name)
    return out


def _temporal(t: list[Token], d: Definition) -> bool:
    """A temporal formula (Spec, fairness): the assembly of the machine, not a step of it."""
    return any(
        t[i].text in ("<>", "~>")
        or (t[i].kind == "ident" and t[i].text[:3] in ("WF_", "SF_"))
        # [][Next]_vars; a CASE's [] is followed by a guard, never by [.
        or (t[i].text == "[]" and t[i + 1].text == "[")
        for i in range(d.body, d.end)
    )


def inherited_variables(tokens: list[Token], library: Mapping[str, str],
                        _seen: frozenset[str] = frozenset()) -> set[str]:  # fmt: skip
    """The variables declared by the modules the module EXTENDS, transitively (those in
    ``library``)."""
    names: set[str] = set()
    for name in extended_modules(tokens):
        if name in _seen or name not in library:
            continue
        sub = tokenize(library[name])
        names |= declared_variables(sub) | inherited_variables(sub, library, _seen | {name})
    return names


def machine_variables(tokens: list[Token], library: Mapping[str, str]) -> set[str]:
    """The variables a module's machine changes: those it declares, or, for a module that
    declares none but has steps of its own (a prime or an UNCHANGED: one part of a machine
    split into modules, such as one implementation's host paths), those of the modules it
    EXTENDS. A module with no step of its own (an inductive invariant over another's
    variables) has none: it is a yardstick."""
    declared = declared_variables(tokens)
    if declared or not any(t.text in ("'", "UNCHANGED") for t in tokens):
        return declared
    return inherited_variables(tokens, library)


def mutants(module: str, text: str, operators: list[str] | None = None,
            library: Mapping[str, str] | None = None,
            witnesses: frozenset[str] = frozenset(),
            environment: frozenset[str] = frozenset()) -> list[Mutant]:  # fmt: skip
    """Every mutant of a module, in catalogue order then text order; none for a Properties
    module or a module with no machine variable (``machine_variables``). ``library`` (module
    name -> text) holds the modules it may EXTEND, whose actions it calls and whose variables
    its steps change. ``witnesses`` names the reachability
    witnesses (D130), yardstick like the properties wherever they are defined: a mutated witness
    would measure the witness, not the machine. ``environment`` names the definitions that only
    choose which steps a model offers (D259): left alone, and a ValueError if one reads a
    variable (then it is a step, and a step is mutated)."""
    if not mutable_module(module):
        return []
    tokens = tokenize(text)
    ctx = Context(text, tokens, machine_variables(tokens, library or {}), definitions(tokens))
    if not declared_variables(tokens):
        ctx.inherited_enums = inherited_enumerations(tokens, library or {})
    if not ctx.variables:
        return []  # no machine: a module of predicates (an inductive invariant) is a yardstick
    actions, initials = inherited(tokens, library or {})
    ctx.actions = _actions(tokens, ctx.defs, actions)
    ctx.initials = initials | _initials(tokens, ctx.defs)
    skipped = _type_sets(ctx) | _yardstick(ctx, witnesses) | _environment(ctx, environment)
    ctx.defs = [d for d in ctx.defs if not (d.name in skipped
                                          or _temporal(tokens, d))]
    out: list[Mutant] = []
    for name, op in CATALOGUE.items():
        if operators is not None and name not in operators:
            continue
        seen: dict[tuple[str, str, str], int] = {}
        edits = sorted({e for d in ctx.defs for e in op(ctx, d)},
                       key=lambda e: (e.start, e.end, e.replacement))  # fmt: skip
        for e in edits:
            before = text[e.start : e.end]
            key = (e.definition, before, e.replacement)
            rank = seen.get(key, 0)
            seen[key] = rank + 1
            digest = hashlib.sha1(
                "\x00".join((module, e.definition, name, before, e.replacement, str(rank))).encode()
            ).hexdigest()[:10]
            out.append(Mutant(
                module=module, operator=name, definition=e.definition, line=e.line,
                before=_short(before), after=_short(e.replacement) or "(nothing)", id=digest,
                text=text[: e.start] + e.replacement + text[e.end :],
            ))  # fmt: skip
    return out
