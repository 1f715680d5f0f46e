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
