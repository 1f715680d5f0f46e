"""README.md's contract table is what the spec's THEOREMs say (tlcrunner/contract.py), and every
THEOREM names a model of the manifest that checks it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tlcrunner import contract

REPO = Path(__file__).resolve().parents[1]


def test_the_readme_holds_the_table_the_spec_gives() -> None:
    text = contract.README.read_text(encoding="utf-8")
    assert contract.readme_block(text) == contract.render(), "run `python -m tlcrunner.contract --write`"


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
    assert kinds.kind("OrcContractProp") == contract.STEP
    assert kinds.kind("RefinesPageStates") == contract.REFINEMENT
    assert kinds.kind("EssaTypeOK") == contract.BOOKKEEPING


def test_no_contract_module_defines_a_step_check() -> None:
    """The b properties left the contract modules: a name a *StepChecks module defines is
    defined by no *Properties module (HostReclaim's SetStableIfNotDiscardedProp is PageStates'
    step check restated, in HostReclaimStepChecks)."""
    where = contract.defining_modules((contract.SPEC,))
    for name in contract.Kinds.of().steps:
        contract_modules = [m for m in where[name] if not m.endswith("StepChecks")]
        assert not contract_modules, f"{name} is defined in {contract_modules} too"


def test_the_counts_add_up() -> None:
    table = contract.counts()
    text = contract.render_counts(table)
    assert "| all |" in text
    assert all(row["b"] == 0 for m, row in table.items() if not m.endswith("StepChecks"))
    assert all(row["a"] == row["c"] == 0 for m, row in table.items() if m.endswith("StepChecks"))
