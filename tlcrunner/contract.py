"""The contract table: every THEOREM of spec/ with the promise it states and what checks it.

Each spec module states its intent properties as THEOREMs (docs/contract.md), each under a comment
that names the promise ("No data loss.", "Contract (progress).") and the models whose .cfg checks
it, with the twin or finding that fails it. This module reads them back out of the TLA+ text and
renders one Markdown table, the one README.md shows between its ``contract`` markers
(tests/test_contract_table.py checks that the README holds what this renders)::

    python -m tlcrunner.contract            # print the table
    python -m tlcrunner.contract --write    # rewrite README.md's block
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
    args = parser.parse_args(argv)
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
