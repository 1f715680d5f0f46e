"""Which kernel function a divergence is blamed on: the one that owns the wrong field.

A step's call tree (harness_trace.h: each kernel function the step entered, with its depth and
whether the state changed while it ran) says what ran; the divergence says which fields of the
reply are wrong, what the kernel left in each, and what the spec expected. The function to
blame is the one responsible for writing a wrong field, whether it wrote a wrong value or
should have written and did not: a field the spec changes and the kernel left as it was is a
write that did not happen, and the deepest function of the call tree that would have made it
is the one that skipped it, even if it changed nothing else (the deepest function that changed
*something* is then a bystander).

Who writes a field is read from the tree's own code, not listed by hand: a function writes a
field when its body names one of the kernel's identifiers for it (:data:`FIELD_MARKS`, the
macros and members the field is made of: the PGSTE's usage bits, the R1 result register, the
second dirty bitmap). So a function a tree adds, or one another harness takes, is a writer as
soon as its code touches the field, and so is a function that calls a writer (a write a helper
makes is its caller's decision). Naming is not writing (``__do_essa`` reads
``_PGSTE_GPS_USAGE_MASK`` to build the result): among the writers the call tree holds, the
deepest is taken, since a caller that only reads a field passes it down to a callee that sets
it, and helpers (locks, one-bit setters: :attr:`~.kernels.Harness.helpers`) are never blamed.
Where no writer of any wrong field ran in the diverging step and the step changed nothing (the
change it should have made did not happen), the field was left wrong by an earlier request: the trace's earlier steps are looked through, latest first, for the last one
whose call tree holds a writer of the wrong field, and the deepest writer it ran is blamed, with
the step named ("set by handle_essa at step 1": the ESSA whose CBRL loop skipped an entry, seen
when the host processes the CBRL). Where no step of the trace ran a writer either, the blame is
the call tree's: the deepest function that changed the state, else the deepest that ran.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from .extract import FUNCTION, ExtractError, extract
from .kernels import HARNESSES, Built, locate

#: The kernel's identifiers each reply field is made of (classic: the PGSTE and PTE macros,
#: asm/pgtable.h; the new gmap: its PGSTE and PTE bit-field members, arch/s390/kvm/dat.h),
#: by the field's name in a reply (PROTOCOL.md's HostPage, and the reply's own fields).
FIELD_MARKS: Final[dict[str, tuple[str, ...]]] = {
    "usage": ("_PGSTE_GPS_USAGE", ".usage"),
    "nodat": ("_PGSTE_GPS_NODAT", ".nodat"),
    "zbit": ("_PGSTE_GPS_ZERO", ".zero"),
    "gc": ("PGSTE_GC_BIT", ".gc"),
    "dirty": ("PGSTE_GC_BIT", "PGSTE_HC_BIT", "_PAGE_CHANGED", "page_set_storage_key", ".gc"),
    "valid": ("_PAGE_INVALID", "pte_clear", "set_pte", ".h.i", ".s.pr"),
    "swapped": ("mk_swap_pte", "ptep_zap_swap_entry", "swp_entry", ".swap"),
    "pteUnused": ("_PAGE_UNUSED", ".unused"),
    "gmapPte": (".h.i", ".s.pr"),
    "cmmaDirty": ("kvm_second_dirty_bitmap", "cmma_dirty_pages", ".cmma_d"),
    "result": ("gprs[r1]",),
    "value": ("res[", "values["),
    "outcome": ("kvm_s390_inject_program_int", "kvm_s390_inject_prog_irq"),
    # the migration interface's reply (KVM_S390_GET_CMMA_BITS, the migration mode attribute)
    "migrating": ("migration_mode",),
    "remaining": ("cmma_dirty_pages",),
    "start": ("start_gfn",),
}


def field_of(name: str) -> str:
    """A divergence's field name as :data:`FIELD_MARKS` has it: ``pages[0].nodat`` is nodat."""
    return name.rsplit(".", 1)[-1]


@functools.lru_cache(maxsize=8)
def _bodies(tree: Path, harness: str) -> dict[str, str]:
    h = HARNESSES[harness]
    notes: list[str] = []
    wants = locate(tree, h.wants, notes) if h.resolve is None else h.resolve(tree, h.wants)
    wants = tuple(w for w in wants if w.kind == FUNCTION)
    return {w.name: text for w, text in zip(wants, extract(tree, wants, notes), strict=True)}


def bodies(built: Built, harness: str) -> dict[str, str]:
    """Each kernel function the harness takes from ``built``'s tree, by name: its text."""
    try:
        return _bodies(built.tree.resolve(), harness)
    except (ExtractError, OSError):
        return {}


def writers(texts: dict[str, str], field: str) -> frozenset[str]:
    """The functions of ``texts`` whose code names one of ``field``'s identifiers, or calls a
    function of ``texts`` that does (``ptep_xchg_commit`` writes the change bit through
    ``pgste_update_all``): a write a helper makes is its caller's decision."""
    marks = FIELD_MARKS.get(field, ())
    found = {name for name, text in texts.items() if any(m in _code(text) for m in marks)}
    while True:
        more = {name for name, text in texts.items() if name not in found
                and any(re.search(rf"\b{re.escape(f)}\s*\(", _code(text)) for f in found)}  # fmt: skip
        if not more:
            return frozenset(found)
        found |= more


@functools.lru_cache(maxsize=256)
def _code(text: str) -> str:
    """A function's text without its comments (a comment naming a field writes nothing)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


#: One call of a step's call tree: its depth, whether the state changed while it ran, its name.
Call = tuple[int, bool, str]


def blame(calls: Sequence[Call], values: Sequence[tuple[str, str, str]],
          texts: dict[str, str], helpers: frozenset[str] = frozenset(),
          before: dict[str, str] | None = None) -> tuple[str, str] | None:  # fmt: skip
    """The function to blame for a step whose call tree is ``calls`` (in call order) and whose
    wrong fields are ``values`` (name, the kernel's value, the spec's; a page's fields are taken
    first), and why, in words; None
    when no writer of a wrong field ran. ``before``: each field's value before the step, where
    known: a field the spec changes and the kernel left as it was is a write not made, a field
    the kernel changed wrongly is a write made (the writers that changed the state first)."""
    before = before or {}
    # a page's fields first: the reply's result, value and outcome are made from the page's
    # state (__do_essa builds R1 from the PGSTE), so a wrong page field is the cause of theirs
    for name, kernel, spec in sorted(values, key=lambda v: not v[0].startswith("pages[")):
        field = field_of(name)
        owners = writers(texts, field) - helpers
        ran = [(i, c) for i, c in enumerate(calls) if c[2] in owners]
        if not ran:
            continue
        was = before.get(name)
        missed = was is not None and kernel == was != spec
        # the deepest writer (every caller of a writer writes too: the deepest is the one whose
        # own code makes the write); of equally deep ones, one that changed the state unless the
        # write is the one that did not happen, then the last called
        key = ((lambda ic: (ic[1][0], ic[0])) if missed
               else (lambda ic: (ic[1][0], ic[1][1], ic[0])))  # fmt: skip
        depth, changed, fn = max(ran, key=key)[1]
        how = (f"{name} is {kernel} where the spec says {spec}: the kernel left it as it was "
               f"({was}), a write that did not happen" if missed else
               f"{name} is {kernel} where the spec says {spec}")
        others = sorted({c[2] for _, c in ran} - {fn})
        return fn, (f"{how}; {fn} writes {field} (its code names "
                    f"{_named(texts[fn], field)})"
                    + (f"; the other writers of {field} this step ran: {', '.join(others)}"
                       if others else ""))  # fmt: skip
    return None


def look_back(history: Sequence[Sequence[Call]], values: Sequence[tuple[str, str, str]],
              texts: dict[str, str], helpers: frozenset[str] = frozenset()) -> tuple[str, int, str] | None:  # fmt: skip
    """The function of an earlier step to blame when the diverging step ran no writer of a
    wrong field: ``history`` holds the call trees of the steps before it (step 1 first); the
    last of them that ran a writer of a wrong field (a page's fields first), and its deepest
    writer (of equally deep ones, the last called). (function, step, why), or None when no
    earlier step ran a writer."""
    for name, kernel, spec in sorted(values, key=lambda v: not v[0].startswith("pages[")):
        field = field_of(name)
        owners = writers(texts, field) - helpers
        for k in range(len(history) - 1, -1, -1):
            ran = [(i, c) for i, c in enumerate(history[k]) if c[2] in owners]
            if not ran:
                continue
            fn = max(ran, key=lambda ic: (ic[1][0], ic[0]))[1][2]
            return fn, k + 1, (f"{name} is {kernel} where the spec says {spec}, and no writer of "
                               f"{field} ran in this step; the last step that ran one is step "
                               f"{k + 1}: {fn} writes {field} (its code names "
                               f"{_named(texts[fn], field)})")  # fmt: skip
    return None


def changed_state(calls: Sequence[Call], helpers: frozenset[str] = frozenset()) -> bool:
    """Whether a function of the call tree, not a helper, changed the state: a step that did
    is its own suspect (the deepest that changed it), never an earlier step's."""
    return any(changed for _, changed, name in calls if name not in helpers)


#: The line of a report that names an earlier step's writer (:func:`look_back`).
SET_BY: Final = "set by "


def _named(text: str, field: str) -> str:
    return ", ".join(m.strip() for m in FIELD_MARKS[field] if m in _code(text))


#: The heading of the call tree in a report (:func:`.engine.kernel_terms`).
TREE_HEADING: Final = "kernel functions the step ran, by call depth"


def calls_of(terms: Sequence[str]) -> list[Call]:
    """The call tree of a report in the kernel's terms (:func:`.engine.kernel_terms`: after its
    heading, each call indented two spaces a depth, `` *`` if it changed the state)."""
    out: list[Call] = []
    inside = False
    for ln in terms:
        if ln.startswith(TREE_HEADING):
            inside = True
            continue
        m = re.fullmatch(r"  ( *)(\S+)( \*)?( \(x\d+\))?", ln) if inside else None
        if m is None:
            inside = False
            continue
        out.append((len(m.group(1)) // 2, m.group(3) is not None, m.group(2)))
    return out


def reblame(terms: list[str], values: Sequence[tuple[str, str, str]], texts: dict[str, str],
            helpers: frozenset[str], before: dict[str, str] | None = None,
            history: Callable[[], Sequence[Sequence[Call]]] | None = None) -> list[str]:  # fmt: skip
    """``terms`` (a report in the kernel's terms) with its ``kernel function:`` line naming the
    owner of a wrong field (:func:`blame`) and a line saying why. When no writer of a wrong
    field ran in the step, ``history`` (called then) gives the earlier steps' call trees, and
    an earlier step's writer (:func:`look_back`) is named, with a ``set by X at step k`` line;
    the terms are as they are when no step ran a writer."""
    found = blame(calls_of(terms), values, texts, helpers, before)
    extra: list[str] = []
    if found is None and history is not None and not changed_state(calls_of(terms), helpers):
        earlier = look_back(history(), values, texts, helpers)
        if earlier is not None:
            fn, k, why = earlier
            found = fn, why
            extra = [f"{SET_BY}{fn} at step {k}"]
    if found is None:
        return terms
    fn, why = found
    out = []
    for ln in terms:
        if ln.startswith("kernel function: "):
            out += [f"kernel function: {fn}", *extra, f"blame: {why}"]
        else:
            out.append(ln)
    if not any(ln.startswith("kernel function: ") for ln in terms):
        out[1:1] = [f"kernel function: {fn}", *extra, f"blame: {why}"]
    return out
