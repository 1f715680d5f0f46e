"""The contract: every THEOREM of spec/ with the promise it states and what checks it, and every
broken twin against the contract alone.

Each spec module states its intent properties as THEOREMs (docs/contract.md), each under a comment
that names the promise ("No data loss.", "Contract (progress).") and the models whose .cfg checks
it, with the twin or finding that fails it. This module reads them back out of the TLA+ text and
renders one Markdown table, the one docs/contract.md shows between its ``contract`` markers; and
the matrix of every broken twin against the promises it breaks, between its ``matrix`` markers,
as model/manifest.json records it (``breaks``, ``step detail``). tests/test_contract_table.py
and tests/test_contract_matrix.py check that docs/contract.md holds what this renders::

    python -m tlcrunner.contract            # print the table
    python -m tlcrunner.contract --write    # rewrite docs/contract.md's two blocks
    python -m tlcrunner.contract --counts   # the distinct checked properties by class, and per module
    python -m tlcrunner.contract --matrix --record   # run every twin against its contract alone

Every property a model checks is of one kind (docs/contract.md): **intent** when a THEOREM of spec/
names it (the contract; a refinement is intent too, and ``kind`` tells it apart as
``refinement``), unless its definition restates one step (``RESTATES_A_STEP``); **step** when it is
defined in a ``*StepChecks`` module (what one step does, apart from the contract), else
**bookkeeping** (types, ghost records, proof aids such as an inductive invariant). A step check
whose definition is a promise, not yet THEOREM-backed, is listed in ``PROMISE_WITHOUT_THEOREM``
and counted as intent. The mutation tooling classes its kills by these kinds (docs/mutation.md).

A broken twin is judged by its contract alone (``twin_contract``): the THEOREM-backed properties
and refinements its spec's models check, in the twin's own machine. ``check`` runs each twin that
way after the twin itself and fails when it breaks no promise the manifest records, unless the
manifest marks it "step detail" with its reason.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .check import Row
    from .manifest import ModelEntry

from .tool_output import is_source_location

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


def contract_statement(path: Path, spec: Path = SPEC) -> set[str] | None:
    """The promises a module's own contract comment states: the list of its opening contract
    (or, with no list, the names of the whole opening: an inductive module names its key
    invariant in a sentence); or, for a ``<Spec>Properties`` module, the names its "Contract: the
    promises of <Spec>.tla ... are A, B and C;" sentence gives, "the promises of X.tla" standing
    for X's list. None when the module states no contract."""
    opening = opening_contract(path)
    if opening is not None:
        whole, listed = opening
        return property_names(listed or whole) - PROOF_AIDS
    lines = path.read_text(encoding="utf-8").splitlines()[:40]
    box = _one_line(" ".join(line[2:-2] for line in lines if line.startswith("(*") and line.endswith("*)")
                             and not line.startswith("(**")))  # fmt: skip
    m = re.search(r"Contract: the promises of \S+ \(its opening comment, [^)]*\) are (.*?);", box)
    if m is None:
        return None
    names = property_names(m.group(1))
    for other in re.findall(r"the promises of (\w+)\.tla", m.group(1)):
        props = "PageStateProperties" if other == "PageStates" else f"{other}Properties"
        names |= {n for t in theorems(spec / f"{props}.tla") for n in property_names(t.formula)}
    return names - PROOF_AIDS


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


#: THEOREM-named properties whose definition restates one step (the review's reading of each
#: definition): they are step checks whatever module holds them, and no twin is judged by them.
#: Each entry goes once its module moves the property to its ``*StepChecks`` module and drops
#: the THEOREM (a test fails while an entry is no longer needed).
RESTATES_A_STEP: Final = {
    "MigrationAppliesSentProp": "MigrationSwitch's own assignment: the destination resumes with "
                                "what was last sent",
    "MigrationKeepsStableContentProp": "MigratedContent is Readable letter for letter: the "
                                       "migration step's content, restated",
    "MigrationKeepsAttributesProp": "under ESSA's own Spec, Migrate's UNCHANGED usage and N",
}
#: Step checks that are promises (the guest relies on them; each rests on a source sentence):
#: intent by their definition, not yet THEOREM-backed because their module belongs to the
#: guest-memory refinement or to ESSA's hypotheses. Counted as intent; a twin is judged by the
#: contract, THEOREMs only, so these do not excuse a twin. Each entry goes once its THEOREM exists.
PROMISE_WITHOUT_THEOREM: Final = {
    "SetStableIfNotDiscardedProp": 'paper 3.2: SetStableIfNotDiscarded "only makes a page stable '
                                   'if it has not been discarded": the guest learns of a loss',
    "StableIfNotDiscardedProp": "the same answer of ESSA's 2007 SET_STABLE_IF_NOT_DISCARDED "
                                "(KVM fails it: F1)",
}


@dataclass(frozen=True)
class Kinds:
    """The kind of every property, read from a spec folder (``of``): a THEOREM names it (intent
    or refinement) unless its definition restates a step (``RESTATES_A_STEP``); a
    ``*StepChecks`` module defines it (step); else bookkeeping."""

    intent: frozenset[str]
    steps: frozenset[str]

    @classmethod
    def of(cls, spec: Path = SPEC) -> "Kinds":
        steps = {n for f in spec.glob("*StepChecks.tla")
                 for n in _DEFINITION.findall(f.read_text(encoding="utf-8"))
                 if n.endswith(("Inv", "Prop"))}  # fmt: skip
        intent = intent_names(spec)
        return cls(intent - RESTATES_A_STEP.keys(), frozenset(steps | (intent & RESTATES_A_STEP.keys())))

    def kind(self, name: str) -> str:
        if name in self.intent:
            return REFINEMENT if name.startswith("Refines") else INTENT
        if name in self.steps:
            return STEP
        return BOOKKEEPING

    def reading(self, name: str) -> str:
        """The class the definition gives: a step check that is a promise reads as intent."""
        return INTENT if name in PROMISE_WITHOUT_THEOREM else self.kind(name)


def checked_properties(model: Path = MODEL) -> set[str]:
    """Every property some model's .cfg checks."""
    from .cfg import checked_names

    checked: set[str] = set()
    for cfg in sorted(model.glob("*.cfg")):
        names = checked_names(cfg.read_text(encoding="utf-8"))
        checked |= {*names.invariants, *names.properties}
    return checked


def distinct_counts(spec: Path = SPEC, model: Path = MODEL) -> dict[str, list[str]]:
    """The distinct properties some model checks and spec/ defines, by class as their definitions
    read (a name defined in several modules counts once)."""
    kinds, where = Kinds.of(spec), defining_modules((spec,))
    out: dict[str, list[str]] = {INTENT: [], REFINEMENT: [], STEP: [], BOOKKEEPING: []}
    for name in sorted(checked_properties(model)):
        if name in where:
            out[kinds.reading(name)].append(name)
    return out


def render_distinct(table: dict[str, list[str]]) -> str:
    rows = ["| class | distinct properties |", "|---|---|"]
    for k, names in table.items():
        rows.append(f"| {k} | {len(names)} |")
    rows.append(f"| all | {sum(len(v) for v in table.values())} |")
    return "\n".join(rows) + "\n"


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


# --- the twin x promise matrix --------------------------------------------------------------

_CFG_KEYWORD: Final = re.compile(r"^(CONSTANTS?|SPECIFICATION|INIT|NEXT|SYMMETRY|VIEW|INVARIANTS?|"
                                 r"PROPERTY|PROPERTIES|CONSTRAINTS?|ACTION_CONSTRAINTS?|"
                                 r"CHECK_DEADLOCK|ALIAS)\b", re.M)  # fmt: skip
_TEMPORAL: Final = re.compile(r"<>|~>|\bWF_|\bSF_")


def cfg_settings(cfg_text: str) -> tuple[str, frozenset[str]]:
    """A .cfg's SPECIFICATION (or INIT/NEXT) and its constant assignments ("X = v", "X <- Y"),
    comments left out: what makes two models the same machine."""
    text = re.sub(r"\\\*[^\n]*", "", cfg_text)
    spec = " ".join(re.findall(r"^(?:SPECIFICATION|INIT|NEXT)\s+(\S+)", text, re.M))
    constants: set[str] = set()
    for m in re.finditer(r"^CONSTANTS?\b(.*?)(?=^[A-Z_]+\b|\Z)", text, re.M | re.S):
        for line in m.group(1).splitlines():
            if line.strip():
                constants.add(re.sub(r"\s+", " ", line.strip()))
    return spec, frozenset(constants)


def definition_bodies(folders: tuple[Path, ...] = (SPEC, MODEL)) -> dict[str, str]:
    """Each definition at the start of a line, with the indented lines that follow it (its
    body as the modules write it); a name defined in several modules (a restatement,
    ``PSP!WaitingAccessServedProp``) has all its bodies, one after the other."""
    out: dict[str, str] = {}
    for folder in folders:
        for f in sorted(folder.glob("*.tla")):
            lines = f.read_text(encoding="utf-8").splitlines()
            for i, line in enumerate(lines):
                m = _DEFINITION.match(line)
                if not m:
                    continue
                body = [line]
                for nxt in lines[i + 1:]:
                    if nxt and not nxt[0].isspace():
                        break
                    body.append(nxt)
                out[m.group(1)] = (out.get(m.group(1), "") + "\n" + "\n".join(body)).strip()
    return out


def is_temporal(name: str, bodies: dict[str, str]) -> bool:
    """A property TLC checks as liveness (it names none when one fails): a refinement (its
    machine's Spec may carry fairness) or a definition with <>, ~>, WF_ or SF_."""
    return name.startswith("Refines") or bool(_TEMPORAL.search(bodies.get(name, "")))


@dataclass(frozen=True)
class TwinContract:
    """What a broken twin is run against: the promises of its spec, in its own .cfg's machine."""

    invariants: tuple[str, ...]
    properties: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return self.invariants + self.properties

    def config(self, cfg_text: str, only: tuple[str, ...] | None = None) -> str:
        """The twin's .cfg with this contract (or the ``only`` part of it) in place of what it
        checks, deadlock not looked for."""
        from .mutate import with_checks

        inv = [n for n in self.invariants if only is None or n in only]
        prop = [n for n in self.properties if only is None or n in only]
        return with_checks(cfg_text, inv, prop)


def _conflicts(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two models' constants name different machines: a constant both set to a different name,
    string or Boolean (Impl, Variant, StorageKeys...). Sets and numbers are bounds (Pages,
    Values, CBRLSize), and a twin checks a promise under its own bounds."""
    def values(cs: frozenset[str]) -> dict[str, str]:
        out = {}
        for c in cs:
            m = re.match(r"(\w+)\s*(=|<-)\s*(.*)$", c)
            if m and m.group(2) == "=" and not re.match(r"[{\d]", m.group(3)):
                out[m.group(1)] = m.group(3)
        return out
    va, vb = values(a), values(b)
    return any(va[k] != vb[k] for k in va.keys() & vb.keys())


_EXTENDS: Final = re.compile(r"^EXTENDS\s+(.*)$", re.M)


def extended_models(module: Path) -> set[str]:
    """The model modules (beside ``module``, in its folder) that ``module`` extends, directly or
    through another: a twin module that extends a refinement model (MCPageStates_Twins extends
    MCPageStatesRefinement) runs the machine those models check, so the refinement they check
    is its contract too (D396)."""
    out: set[str] = set()
    todo = [module]
    while todo:
        text = todo.pop().read_text(encoding="utf-8")
        for m in _EXTENDS.finditer(text):
            for name in (n.strip() for n in m.group(1).split(",")):
                other = module.parent / f"{name}.tla"
                if name and name not in out and other.exists():
                    out.add(name)
                    todo.append(other)
    return out


def twin_contract(twin: ModelEntry, entries: Sequence[ModelEntry], kinds: Kinds,
                  bodies: dict[str, str]) -> TwinContract:
    """The promises a broken twin (a manifest entry) is judged by: the THEOREM-backed properties
    and refinements the models of its spec check that hold (same MC module, or the module its
    ``_Twins`` module extends; from any other model module a ``_Twins`` module extends, the
    refinements those models check), taken from those
    whose machine is closest to the twin's (the most constant assignments in common; a temporal
    property only from a model with the twin's own SPECIFICATION, since fairness is the specification's), and the twin's own property when it
    is a promise. Step checks and bookkeeping are left out."""
    from .cfg import checked_names

    own_spec, own_constants = cfg_settings(twin.config.read_text(encoding="utf-8"))
    base = twin.module.stem.removesuffix("_Twins")
    # a _Twins module that extends a refinement model is judged by that refinement too (D396)
    extended = extended_models(twin.module) - {base} if twin.module.stem.endswith("_Twins") else set()
    holding = [e for e in entries if e.expect.kind == "holds"]
    family = [e for e in holding if e.module.stem in (twin.module.stem, base)]
    compatible, scored = [], []
    for e in family:
        spec, constants = cfg_settings(e.config.read_text(encoding="utf-8"))
        same = spec == own_spec
        scored.append((len(constants & own_constants), same, e))
        if not _conflicts(constants, own_constants):
            compatible.append((same, e))
    if not compatible:  # no model of its spec shares its machine: the closest ones
        best = max((s for s, _, _ in scored), default=-1)
        compatible = [(same, e) for s, same, e in scored if s == best]
    refining = []  # the models of the refinement the twin's module extends, in its machine
    for e in holding:
        if e.module.stem in extended:
            spec, constants = cfg_settings(e.config.read_text(encoding="utf-8"))
            if not _conflicts(constants, own_constants):
                refining.append((spec == own_spec, e))
    wanted = (INTENT, REFINEMENT)
    invariants: list[str] = []
    properties: list[str] = []
    for same, e in [(True, twin)] + compatible + refining:
        names = checked_names(e.config.read_text(encoding="utf-8"))
        only = (REFINEMENT,) if e.module.stem in extended else wanted
        for n in names.invariants:
            if kinds.kind(n) in only and n not in invariants:
                invariants.append(n)
        for n in names.properties:
            if kinds.kind(n) in only and n not in properties and (same or not is_temporal(n, bodies)):
                properties.append(n)
    return TwinContract(tuple(invariants), tuple(properties))


def _violations(raw: str, contract: TwinContract) -> tuple[set[str], bool]:
    """The properties a run's output names as violated (every one with -continue), source
    locations attributed to the contract's one refinement, and whether a temporal property
    TLC did not name failed."""
    from .tool_output import MSG_TEMPORAL, _VIOLATED, parse_messages

    messages, _ = parse_messages(raw)
    named: set[str] = set()
    unnamed_temporal = False
    refinements = [n for n in contract.properties if n.startswith("Refines")]
    for m in messages:
        if m.code == MSG_TEMPORAL:
            unnamed_temporal = True
        pattern = _VIOLATED.get(m.code)
        if pattern and (vm := pattern.search(m.text)):
            name = vm.group(1)
            if is_source_location(name):
                if len(refinements) == 1:
                    named.add(refinements[0])
                else:
                    unnamed_temporal = True
            else:
                named.add(name)
    return named, unnamed_temporal


@dataclass
class MatrixRow:
    name: str
    contract: tuple[str, ...]
    breaks: tuple[str, ...]
    runs: int
    seconds: float
    note: str = ""


def run_twin_contract(twin: ModelEntry, contract: TwinContract, *, jar: Path, library: Path | None,
                      bodies: dict[str, str], tmp: Path, timeout: float = 300.0,
                      every: bool = False) -> MatrixRow:  # fmt: skip
    """The promise of ``contract`` the twin breaks first (TLC stops at the first violation), or
    with ``every`` each promise it breaks: the contract runs again without the promises found so
    far until it holds (a run that explores the whole state graph). TLC's -continue names
    every violated invariant and action property in one run, but prints a trace for every
    violating state and gave no liveness verdict (D370). A violated temporal property TLC does
    not name is found by running the unnamed candidates one at a time."""
    from .run import is_short_run, run_tlc

    cfg_text = twin.config.read_text(encoding="utf-8")
    row = MatrixRow(twin.name, contract.names, (), 0, 0.0)
    if not contract.names:
        row.note = "no promise of its spec is checked in its machine"
        return row

    def run(only: tuple[str, ...]) -> tuple[set[str], bool, str]:
        config = tmp / f"intent-{twin.config.name}"
        config.write_text(contract.config(cfg_text, only), encoding="utf-8")
        result = run_tlc(twin.module, config, jar=jar, library=library, workers=1,
                         timeout=timeout, short=is_short_run(twin.distinct))  # fmt: skip
        row.runs += 1
        row.seconds += result.seconds
        named, temporal = _violations(result.raw_output, TwinContract(
            tuple(n for n in contract.invariants if n in only),
            tuple(n for n in contract.properties if n in only)))
        if result.violated and not is_source_location(result.violated):
            named.add(result.violated)
        problem = ""
        if result.outcome.value in ("parse error", "evaluation error", "other error", "timeout",
                                    "assumption violated", "no initial states"):  # fmt: skip
            problem = f"{result.outcome.value}: {(result.tool.error or '').strip().splitlines()[:1]}"
        return named, temporal, problem

    broken: set[str] = set()
    left = contract.names
    while left:
        named, temporal, problem = run(left)
        if problem:
            row.note = problem
            break
        if not named and temporal:
            candidates = [n for n in left if n in contract.properties and is_temporal(n, bodies)]
            if len(candidates) == 1:
                named = {candidates[0]}
            else:
                for n in candidates:
                    alone, temporal_alone, _ = run((n,))
                    if alone or temporal_alone:
                        named = {n}
                        break
        if not named:
            break
        broken |= named
        left = tuple(n for n in left if n not in broken)
        if not every:
            break
    row.breaks = tuple(sorted(broken))
    return row


#: The suffix of the row ``check`` prints for a twin's contract-alone run.
INTENT_SUFFIX: Final = " (intent)"
#: The result of that row for a twin the manifest records as an open hole.
OPEN_HOLE: Final = "open hole"


def check_twin_intent(twin: ModelEntry, entries: Sequence[ModelEntry], *, jar: Path,
                      library: Path | None) -> Row:
    """The runner's row for a broken twin judged by its contract alone (``check`` runs it after
    the twin): as expected when the manifest marks the twin "step detail", or when the contract
    alone fails and the promise TLC names first is one the manifest records in ``breaks``. A twin
    with neither is caught only by a step check or bookkeeping: the build fails until its missing
    promise is stated from the sources or it is marked a step detail with its reason. A twin the
    manifest records as an "open hole", with the promise missing from the contract, is not run:
    its row says "open hole" with the missing promise, the summary counts it, docs/contract.md's
    matrix shows it, and it fails the build as a twin with no record does: only a twin caught by
    a promise or marked a step detail passes."""
    import tempfile

    from .check import Row

    name = twin.name + INTENT_SUFFIX
    expected = ("step detail" if twin.step_detail else "open hole" if twin.open_hole
                else "breaks " + (", ".join(twin.breaks or ()) or "a promise"))

    def row(ok: bool, note: str, seconds: float = 0.0, violated: str | None = None) -> Row:
        return Row(name=name, expected=expected, result="as recorded" if ok else "not as recorded",
                   outcome_ok=ok, pins_ok=True, violated=violated, distinct=None, depth=None,
                   seconds=seconds, notes=[note] if note else [])  # fmt: skip

    if twin.step_detail:
        return row(True, f"step detail: {twin.step_detail}")
    if twin.open_hole and not twin.breaks:
        hole = row(False, f"open hole: {twin.open_hole}")
        hole.result = OPEN_HOLE
        return hole
    if not twin.breaks:
        return row(False, "caught only by a step check or bookkeeping: state the missing promise "
                   'from the sources, or mark the twin "step detail" with its reason')  # fmt: skip
    bodies = definition_bodies()
    contract = twin_contract(twin, entries, Kinds.of(library or SPEC), bodies)
    with tempfile.TemporaryDirectory(prefix="intent-") as tmp:
        result = run_twin_contract(twin, contract, jar=jar, library=library, bodies=bodies,
                                   tmp=Path(tmp), timeout=twin.timeout)  # fmt: skip
    first = result.breaks[0] if len(result.breaks) == 1 else None
    if result.note:
        return row(False, result.note, result.seconds)
    if first is None or first not in twin.breaks:
        got = ", ".join(result.breaks) or "no promise"
        return row(False, f"the contract alone now breaks {got}; rerun `python -m tlcrunner.contract "
                   f"--matrix --record --models {twin.name}`", result.seconds)  # fmt: skip
    return row(True, "", result.seconds, first)


def runs_once(twin: "ModelEntry") -> bool:
    """A broken twin that runs once (D385): it is recorded as breaking promises (``breaks``) and
    the property it was written for is one of them. Its own run, which must find that property
    violated first, then shows that a promise catches it, so that its contract alone (which holds
    that promise, in the same machine) catches it: TLC explores the same states whichever
    properties it checks. A twin written for a step check or bookkeeping property keeps its run
    against the contract alone after its own; a step detail or an open hole runs its own .cfg
    only; a twin with witnesses keeps both runs."""
    return bool(twin.is_twin and twin.breaks and twin.expect.prop in twin.breaks
                and not twin.witnesses)


def check_twin_once(twin: "ModelEntry", *, jar: Path, library: Path | None,
                    workers: int | str | None = None, heap: str | None = None,
                    intent_row: bool = True) -> "list[Row]":
    """The rows of a twin that :func:`runs_once`: its own row from the run of its .cfg, judged
    against its manifest entry (``violates P`` and the pins); then, with ``intent_row``, its
    ``(intent)`` row read from the same run: as recorded when the twin's row is as expected, P
    being one of the promises ``breaks`` records."""
    from .check import Row, check_entry

    own = check_entry(twin, jar=jar, library=library, workers=workers, heap=heap)
    rows = [own]
    if intent_row:
        ok = own.outcome_ok and own.violated in (twin.breaks or ())
        rows.append(Row(
            name=twin.name + INTENT_SUFFIX,
            expected="breaks " + ", ".join(twin.breaks or ()),
            result="as recorded" if ok else "not as recorded", outcome_ok=ok, pins_ok=True,
            violated=own.violated if ok else None, distinct=None, depth=None, seconds=0.0,
            notes=[f"in the twin's own run: {own.violated}, a promise, found first" if ok else
                   f"the twin's own run does not find {twin.expect.prop} first, so it does not "
                   "show its contract alone catches it"]))  # fmt: skip
    return rows


MATRIX_BEGIN, MATRIX_END = "<!-- matrix: begin -->\n", "<!-- matrix: end -->\n"
CONTRACT_DOC: Final = REPO / "docs" / "contract.md"


def render_matrix(entries: Sequence[ModelEntry]) -> str:
    """The twin x promise matrix as model/manifest.json records it (``breaks``, ``step
    detail``): one row per broken twin, the promises its contract alone fails."""
    twins = [e for e in entries if e.is_twin]
    rows = ["| broken twin | the property it was written for | promises its contract alone breaks |",
            "|---|---|---|"]  # fmt: skip
    caught = detail = missing = unknown = 0
    for e in twins:
        if e.breaks:
            caught += 1
            what = ", ".join(e.breaks)
        elif e.step_detail:
            detail += 1
            what = f"none; step detail: {e.step_detail}"
        elif e.open_hole:
            missing += 1
            what = f"**none**; open hole, the promise missing: {e.open_hole}"
        elif e.breaks is None:
            unknown += 1
            what = "not recorded"
        else:
            missing += 1
            what = "**none**"
        rows.append(f"| {e.name.removeprefix('MC')} | {e.expect.prop} | {what.replace('|', '/')} |")
    head = (f"{len(twins)} broken twins: {caught} caught by a promise alone, {detail} marked step "
            f"detail, {missing} caught by nothing but a step check or bookkeeping (open holes, each "
            f"with the promise missing from the contract), {unknown} not recorded.\n\n")
    return head + "\n".join(rows) + "\n"


def replace_block(text: str, begin: str, end: str, block: str) -> str:
    start, stop = text.index(begin) + len(begin), text.index(end)
    return text[:start] + block + text[stop:]


def matrix_main(names: str | None, write: bool, every: bool = False) -> int:
    """``--matrix``: run every broken twin (or those named) against its contract alone and
    record what it breaks in model/manifest.json."""
    import fnmatch
    import tempfile
    import time

    from .check import _jar, default_library
    from .locations import default_manifest
    from .manifest import load_manifest, write_fields

    manifest = load_manifest(default_manifest())
    kinds, bodies = Kinds.of(), definition_bodies()
    jar, library = _jar(None), default_library(manifest)
    patterns = [p for p in (names or "*").split(",") if p]
    twins = [e for e in manifest.entries
             if e.is_twin and any(fnmatch.fnmatchcase(e.name, p) for p in patterns)]  # fmt: skip
    started = time.monotonic()
    fields: dict[str, dict[str, object]] = {}
    runs = 0
    with tempfile.TemporaryDirectory(prefix="matrix-") as tmp:
        for twin in twins:
            contract = twin_contract(twin, manifest.entries, kinds, bodies)
            row = run_twin_contract(twin, contract, jar=jar, library=library, bodies=bodies,
                                    tmp=Path(tmp), every=every)  # fmt: skip
            runs += row.runs
            print(f"{row.name}: {', '.join(row.breaks) or '-'} ({row.runs} runs, "
                  f"{row.seconds:.1f} s){'; ' + row.note if row.note else ''}", flush=True)
            if not row.note.startswith(("parse error", "timeout", "evaluation error")):
                fields[twin.name] = {"breaks": list(row.breaks)}
    print(f"{len(twins)} twins, {runs} TLC runs, {time.monotonic() - started:.0f} s; "
          f"{sum(bool(f['breaks']) for f in fields.values())} caught by a promise alone")
    if write:
        write_fields(manifest.path, fields)
        print(f"recorded in {manifest.path}")
    return 0


def readme_block(text: str) -> str:
    """The generated block between ``BEGIN`` and ``END`` of a text (docs/contract.md's table)."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end]


def matrix_block(text: str) -> str:
    start, end = text.index(MATRIX_BEGIN) + len(MATRIX_BEGIN), text.index(MATRIX_END)
    return text[start:end]


def write_contract_doc() -> None:
    """Rewrite docs/contract.md's two generated blocks: the THEOREM table and the matrix."""
    from .locations import default_manifest
    from .manifest import load_manifest

    text = CONTRACT_DOC.read_text(encoding="utf-8")
    text = replace_block(text, BEGIN, END, render())
    text = replace_block(text, MATRIX_BEGIN, MATRIX_END,
                         render_matrix(load_manifest(default_manifest()).entries))  # fmt: skip
    CONTRACT_DOC.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tlcrunner.contract", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="rewrite docs/contract.md's THEOREM table and twin matrix (the "
                        "matrix as model/manifest.json records it)")  # fmt: skip
    parser.add_argument("--counts", action="store_true",
                        help="print the checked properties per module by kind (docs/contract.md)")
    parser.add_argument("--matrix", action="store_true",
                        help="run every broken twin against its contract alone (TLC, one at a "
                        "time) and print what each breaks; with --record, write it into "
                        "model/manifest.json")  # fmt: skip
    parser.add_argument("--models", metavar="GLOBS", help="with --matrix: only these twins")
    parser.add_argument("--record", action="store_true", help="with --matrix: record in the manifest")
    parser.add_argument("--every", action="store_true",
                        help="with --matrix: every promise a twin breaks, not only the first "
                        "(one run per promise found, the last exploring the whole graph)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.matrix:
        return matrix_main(args.models, args.record, args.every)
    if args.counts:
        sys.stdout.write(render_distinct(distinct_counts()) + "\nBy module (a name defined in "
                         "several modules counts in each):\n\n" + render_counts(counts()))
        return 0
    table = render()
    if not args.write:
        sys.stdout.write(table)
        return 0
    write_contract_doc()
    print(f"wrote the contract table and the twin matrix of {CONTRACT_DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
