"""docs/contract.md's contract table is what the spec's THEOREMs say (tlcrunner/contract.py), every
THEOREM names a model of the manifest that checks it, and the classes the contract tool gives
are read from the definitions (a property whose module disagrees is listed, until it moves)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tlcrunner import contract

REPO = Path(__file__).resolve().parents[1]


def test_the_contract_doc_holds_the_table_the_spec_gives() -> None:
    text = contract.CONTRACT_DOC.read_text(encoding="utf-8")
    assert contract.readme_block(text) == contract.render(), "run `python -m tlcrunner.contract --write`"


def test_the_readme_links_each_promise_to_the_module_whose_theorem_states_it() -> None:
    """The README states each machine's promises in words, each linked to its THEOREM's module:
    the linked module has a THEOREM naming it."""
    text = contract.README.read_text(encoding="utf-8")
    section = text[text.index("## The contract"):text.index("## Read next")]
    links = re.findall(r"\[(\w+)\]\(spec/(\w+)\.tla\)", section)
    assert len(links) >= 20
    for name, module in links:
        stated = {n for t in contract.theorems(contract.SPEC / f"{module}.tla")
                  for n in contract.property_names(t.formula)}  # fmt: skip
        assert name in stated, f"README links {name} to spec/{module}.tla, whose THEOREMs do not state it"


def test_each_reclassified_property_still_disagrees_with_its_module() -> None:
    """A row of RESTATES_A_STEP is a THEOREM-named property, one of PROMISE_WITHOUT_THEOREM a
    step check no THEOREM names: once the property moves, its row goes (and docs/contract.md's)."""
    named = contract.intent_names()
    steps = {n for f in contract.SPEC.glob("*StepChecks.tla")
             for n in re.findall(r"^(\w+)\s*==", f.read_text(encoding="utf-8"), re.M)}  # fmt: skip
    for name in contract.RESTATES_A_STEP:
        assert name in named, f"{name} is no THEOREM's any more: drop it from RESTATES_A_STEP"
    for name in contract.PROMISE_WITHOUT_THEOREM:
        assert name not in named, f"{name} has its THEOREM: drop it from PROMISE_WITHOUT_THEOREM"
        assert name in steps, f"{name} left the step checks: drop it from PROMISE_WITHOUT_THEOREM"
    doc = contract.CONTRACT_DOC.read_text(encoding="utf-8")
    for name in (*contract.RESTATES_A_STEP, *contract.PROMISE_WITHOUT_THEOREM):
        assert f"| {name} |" in doc, f"docs/contract.md does not list the reclassified {name}"
    kinds = contract.Kinds.of()
    assert all(kinds.kind(n) == contract.STEP for n in contract.RESTATES_A_STEP)
    assert all(kinds.reading(n) == contract.INTENT for n in contract.PROMISE_WITHOUT_THEOREM)


def test_the_distinct_counts_are_the_docs() -> None:
    table = contract.distinct_counts()
    doc = contract.CONTRACT_DOC.read_text(encoding="utf-8")
    assert contract.render_distinct(table) in doc, "run `python -m tlcrunner.contract --counts`"
    assert contract.render_counts(contract.counts()).split("\n", 2)[2] in doc


def test_every_theorem_names_its_promise_and_a_model_that_exists() -> None:
    models = {m["name"] for m in json.loads((REPO / "model" / "manifest.json").read_text())["models"]}
    apalache = json.loads((REPO / "model" / "apalache.json").read_text())
    checks = {c["name"] for c in (apalache["checks"] if isinstance(apalache, dict) else apalache)}
    theorems = contract.all_theorems()
    assert len(theorems) >= 40
    for t in theorems:
        named = set(re.findall(r"\bMC\w+", t.checked))
        by_apalache = set(re.findall(r"Apalache check (\w+)", t.checked))
        assert named or by_apalache, f"{t.module}: THEOREM {t.formula} names no model"
        assert by_apalache <= checks, f"{t.module}: unknown Apalache checks {by_apalache - checks}"
        assert named <= models, f"{t.module}: THEOREM {t.formula} names unknown models {named - models}"


def test_step_checks_are_apart_from_the_contract_and_still_checked() -> None:
    """A property of a *StepChecks module is no THEOREM's (it is not the contract), and some
    model's .cfg still checks it (docs/contract.md)."""
    from tlcrunner.cfg import checked_names

    kinds = contract.Kinds.of()
    assert kinds.steps, "no step checks found in spec/*StepChecks.tla"
    assert not kinds.steps & kinds.intent, f"step checks named by a THEOREM: {kinds.steps & kinds.intent}"
    checked: set[str] = set()
    for cfg in (REPO / "model").glob("*.cfg"):
        names = checked_names(cfg.read_text(encoding="utf-8"))
        checked |= {*names.invariants, *names.properties}
    assert kinds.steps <= checked, f"step checks no model checks: {sorted(kinds.steps - checked)}"
    assert kinds.kind("StableContentKeptInv") == contract.INTENT
    assert kinds.kind("QueuedDiscardProp") == contract.STEP
    assert kinds.kind("RefinesPageStates") == contract.REFINEMENT
    assert kinds.kind("EssaTypeOK") == contract.BOOKKEEPING


def test_no_contract_module_defines_a_step_check() -> None:
    """The b properties left the contract modules: a name a *StepChecks module defines is
    defined by no *Properties module (HostReclaim's SetStableIfNotDiscardedProp is PageStates'
    step check restated, in HostReclaimStepChecks)."""
    where = contract.defining_modules((contract.SPEC,))
    for name in contract.Kinds.of().steps - contract.RESTATES_A_STEP.keys():
        contract_modules = [m for m in where[name] if not m.endswith("StepChecks")]
        assert not contract_modules, f"{name} is defined in {contract_modules} too"


def test_the_counts_add_up() -> None:
    table = contract.counts()
    text = contract.render_counts(table)
    assert "| all |" in text
    pending = {m for n in contract.RESTATES_A_STEP for m in contract.defining_modules((contract.SPEC,))[n]}
    assert all(row["b"] == 0 for m, row in table.items() if not m.endswith("StepChecks") and m not in pending)
    assert all(row["a"] == row["c"] == 0 for m, row in table.items() if m.endswith("StepChecks"))
