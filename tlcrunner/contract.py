"""The contract table: every THEOREM of spec/ with the promise it states and what checks it.

Each spec module states its intent properties as THEOREMs (docs/contract.md), each under a comment
that names the promise ("No data loss.", "Contract (progress).") and the models whose .cfg checks
it, with the twin or finding that fails it. This module reads them back out of the TLA+ text and
renders one Markdown table, the one README.md shows between its ``contract`` markers
(tests/test_contract_table.py checks that the README holds what this renders)::

    python -m tlcrunner.contract            # print the table
    python -m tlcrunner.contract --write    # rewrite README.md's block
    python -m tlcrunner.contract --counts   # the checked properties per module, by kind

Every property a model checks is of one kind (docs/contract.md): **intent** when a THEOREM of spec/
names it (the contract; a refinement is intent too, and ``kind`` tells it apart as
``refinement``), **step** when it is defined in a ``*StepChecks`` module (what one step does,
apart from the contract), else **bookkeeping** (types, ghost records, proof aids such as an
inductive invariant). The mutation tooling classes its kills by these kinds (docs/mutation.md).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

REPO: Final = Path(__file__).resolve().parents[1]
SPEC: Final = REPO / "spec"
MODEL: Final = REPO / "model"
README: Final = REPO / "README.md"
BEGIN, END = "<!-- contract: begin -->\n", "<!-- contract: end -->\n"

#: How a THEOREM's comment opens: "Contract (the promise). rest", "Contract: the promise. rest",
#: "Contract. rest" (an inductive invariant), or "The promise.  rest".
_OPENINGS: Final = (
    re.compile(r"^Contract\s*\(([^)]*)\)[.,]\s*(.*)$", re.S),
    re.compile(r"^Contract:\s*(.*?)\.\s+(.*)$", re.S),
    re.compile(r"^Contract()\.\s*(.*)$", re.S),
    re.compile(r"^([A-Z][A-Za-z -]+)\.\s+(.*)$", re.S),
)


def _concept(text: str, formula: str) -> tuple[str, str]:
    """The promise a THEOREM's comment names, and the rest of the comment."""
    for pattern in _OPENINGS:
        m = pattern.match(text)
        if m:
            concept = m.group(1).strip()
            if not concept and "IndInv" in formula:
                concept = "inductive invariant"
            return concept[:1].lower() + concept[1:], m.group(2)
    return "", text


@dataclass(frozen=True)
class Theorem:
    module: str
    formula: str  # the THEOREM's formula, on one line
    concept: str  # the promise it states ("no data loss", "progress"), or ""
    checked: str  # the comment's rest: the models that check it and the twins that fail it


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def theorems(path: Path) -> list[Theorem]:
    """The THEOREMs of one module, each with the comment above it (or above the THEOREMs it is
    grouped with)."""
    out: list[Theorem] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    comment: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("\\*"):
            if i > 0 and not lines[i - 1].startswith("\\*"):
                comment = []
            comment.append(line[2:].strip())
        elif line.startswith("THEOREM "):
            formula = [line[len("THEOREM "):]]
            while i + 1 < len(lines) and lines[i + 1].startswith(" ") and lines[i + 1].strip():
                i += 1
                formula.append(lines[i])
            text = _one_line(" ".join(comment))
            one = _one_line(" ".join(formula))
            concept, checked = _concept(text, one)
            out.append(Theorem(path.stem, one, concept, checked.rstrip(".")))
        elif line.strip():
            comment = [] if not lines[i - 1].startswith("THEOREM") and not line.startswith(" ") else comment
        i += 1
    return out


def all_theorems() -> list[Theorem]:
    return [t for p in sorted(SPEC.glob("*.tla")) for t in theorems(p)]


#: The kinds of a checked property.
INTENT, REFINEMENT, STEP, BOOKKEEPING = "intent", "refinement", "step", "bookkeeping"
#: A property name as the spec's THEOREMs write it.
_PROPERTY_NAME: Final = re.compile(r"\b(?:[A-Za-z]\w*(?:Inv|Prop)|Refines\w*)\b")
#: Names in THEOREMs that are proof aids, not promises: an inductive invariant implies the key
#: invariant it is written for, which is the promise.
PROOF_AIDS: Final = frozenset({"IndInv"})
_DEFINITION: Final = re.compile(r"^([A-Za-z]\w*)(?:\([^)]*\))?\s*==", re.M)


def property_names(text: str) -> set[str]:
    """The property names (``...Inv``, ``...Prop``, ``Refines...``) a formula or comment mentions."""
    return set(_PROPERTY_NAME.findall(text))


def family(module: str) -> str:
    """The spec module whose opening comment states the contract of ``module``'s THEOREMs: a
    ``<Spec>Properties`` module's contract opens ``<Spec>.tla`` (PageStateProperties, PageStates's)."""
    return "PageStates" if module == "PageStateProperties" else module.removesuffix("Properties")


_OPENING: Final = "Contract (docs/contract.md)"


def opening_contract(path: Path) -> tuple[str, str] | None:
    """A spec module's opening contract comment, as ``(whole, promises)``: the comment box that
    starts with "Contract (docs/contract.md)", and within it the list of promises (the indented
    items, "   No data loss. StableContentKeptInv: ...", up to the first blank comment line after
    them), each on one line. None when the module does not open with one."""
    whole: list[str] = []
    promises: list[str] = []
    inside = listing = False
    for line in path.read_text(encoding="utf-8").splitlines()[:80]:
        if _OPENING in line:
            inside = True
        if not inside:
            continue
        if not (line.startswith("(*") and line.endswith("*)")) or line.startswith("(**"):
            break
        body = line[2:-2]
        whole.append(body.strip())
        if re.match(r"   \S", body):
            listing = True
        elif listing and not body.strip():
            listing = False
        if listing:
            promises.append(body.strip())
    if not whole:
        return None
    return _one_line(" ".join(whole)), _one_line(" ".join(promises))


def intent_names(spec: Path = SPEC) -> frozenset[str]:
    """Every property some THEOREM of ``spec`` names (the contract), proof aids left out."""
    names = {n for p in sorted(spec.glob("*.tla")) for t in theorems(p)
             for n in _PROPERTY_NAME.findall(t.formula)}  # fmt: skip
    return frozenset(names - PROOF_AIDS)


def defining_modules(folders: tuple[Path, ...] = (SPEC, MODEL)) -> dict[str, list[str]]:
    """For each name defined at the start of a line in a module of ``folders``, the modules
    that define it (a restated property, HostReclaim's StableContentKeptInv, is defined in
    two)."""
    out: dict[str, list[str]] = {}
    for folder in folders:
        for f in sorted(folder.glob("*.tla")):
            for name in _DEFINITION.findall(f.read_text(encoding="utf-8")):
                if f.stem not in out.setdefault(name, []):
                    out[name].append(f.stem)
    return out


@dataclass(frozen=True)
class Kinds:
    """The kind of every property, read from a spec folder (``of``)."""

    intent: frozenset[str]
    steps: frozenset[str]

    @classmethod
    def of(cls, spec: Path = SPEC) -> "Kinds":
        steps = {n for f in spec.glob("*StepChecks.tla")
                 for n in _DEFINITION.findall(f.read_text(encoding="utf-8"))
                 if n.endswith(("Inv", "Prop"))}  # fmt: skip
        return cls(intent_names(spec), frozenset(steps))

    def kind(self, name: str) -> str:
        if name in self.intent:
            return REFINEMENT if name.startswith("Refines") else INTENT
        if name in self.steps:
            return STEP
        return BOOKKEEPING


def counts(spec: Path = SPEC, model: Path = MODEL) -> dict[str, dict[str, int]]:
    """The properties some model's .cfg checks, per module that defines them, by kind (a, b,
    c of docs/contract.md: intent with refinement, step, bookkeeping). A name defined in two
    modules counts in each; names defined only in model/ are left out."""
    from .cfg import checked_names  # the runner's own reading of a .cfg

    checked: set[str] = set()
    for cfg in sorted(model.glob("*.cfg")):
        names = checked_names(cfg.read_text(encoding="utf-8"))
        checked |= {*names.invariants, *names.properties}
    kinds = Kinds.of(spec)
    where = defining_modules((spec,))
    out: dict[str, dict[str, int]] = {}
    for name in sorted(checked):
        for module in where.get(name, []):
            k = kinds.kind(name)
            row = out.setdefault(module, {"a": 0, "b": 0, "c": 0})
            row["a" if k in (INTENT, REFINEMENT) else "b" if k == STEP else "c"] += 1
    return dict(sorted(out.items()))


def render_counts(table: dict[str, dict[str, int]]) -> str:
    rows = ["| module | a intent | b restates a step | c typing, bookkeeping | total |",
            "|---|---|---|---|---|"]  # fmt: skip
    total = {"a": 0, "b": 0, "c": 0}
    for module, row in table.items():
        rows.append(f"| {module} | {row['a']} | {row['b']} | {row['c']} | {sum(row.values())} |")
        for k in total:
            total[k] += row[k]
    rows.append(f"| all | {total['a']} | {total['b']} | {total['c']} | {sum(total.values())} |")
    return "\n".join(rows) + "\n"


def render() -> str:
    rows = ["| module | promise | theorem | checked by; what fails it |", "|---|---|---|---|"]
    concept, module = "", ""
    for t in all_theorems():
        if t.module != module:
            concept, module = "", t.module
        concept = t.concept or concept  # a THEOREM grouped under the one before takes its promise
        formula = t.formula.replace("|", "\\|")
        rows.append(f"| {t.module} | {concept} | `{formula}` | {t.checked.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def readme_block(text: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tlcrunner.contract", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite README.md's contract block")
    parser.add_argument("--counts", action="store_true",
                        help="print the checked properties per module by kind (docs/contract.md)")
    args = parser.parse_args(argv)
    if args.counts:
        sys.stdout.write(render_counts(counts()))
        return 0
    table = render()
    if not args.write:
        sys.stdout.write(table)
        return 0
    text = README.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    README.write_text(text[:start] + table + text[end:], encoding="utf-8")
    print(f"wrote the contract table of {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
