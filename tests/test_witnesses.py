"""Witnesses (D130): every property a model is expected to hold is shown non-vacuous.

For each property that a model expected to hold checks, some CI-sized model that checks it has a
witness for it in model/manifest.json, which tests/test_models.py runs; so a property that a model
checks vacuously cannot come in unnoticed. The generated module and .cfg of a witness run are
tested here without TLC; one TLC run shows a witness that is never reached being reported.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from tlcrunner.cfg import checked_names
from tlcrunner.check import default_library
from tlcrunner.manifest import ManifestError, ModelEntry, load_manifest
from tlcrunner.witness import (
    check_with_witnesses, check_witnesses, folded_config, is_state_property, witness_config,
    witness_module, without_witness_reports,
)  # fmt: skip

MANIFEST = Path(__file__).resolve().parents[1] / "model" / "manifest.json"

#: Properties with no witness, and why none is needed.
EXEMPT = {
    "TypeOK": "a type invariant: every state is what it is about",
    "Refines": "refinement: every step is what it is about, and the model's pinned count shows "
    "the steps are taken",
}


def _exempt(name: str) -> bool:
    return name.endswith("TypeOK") or name.startswith("Refines")


def _checked(entry: ModelEntry) -> set[str]:
    names = checked_names(entry.config.read_text(encoding="utf-8"))
    return {*names.invariants, *names.properties}


def test_every_property_has_a_witness() -> None:
    entries = load_manifest(MANIFEST).entries
    holding = [e for e in entries if e.expect.kind == "holds"]
    witnessed = {p for e in holding if e.size == "ci" for p, _ in e.witnesses if p in _checked(e)}
    missing = sorted(
        {p for e in holding for p in _checked(e) if not _exempt(p)} - witnessed
    )
    assert not missing, (
        "properties checked by a model that holds, with no witness in a CI-sized model that "
        f"checks them (model/manifest.json, D130): {missing}"
    )


def test_witnesses_name_properties_their_model_checks() -> None:
    for e in load_manifest(MANIFEST).entries:
        if e.witnesses:
            assert e.expect.kind == "holds", e.name
            unknown = {p for p, _ in e.witnesses} - _checked(e)
            assert not unknown, f"{e.name}: witnesses of properties its .cfg does not check: {unknown}"


def _entry(tmp_path: Path, cfg: str, witnesses: tuple[tuple[str, str], ...]) -> ModelEntry:
    module = tmp_path / "MCCount.tla"
    module.write_text(
        "---- MODULE MCCount ----\nEXTENDS Naturals\nVARIABLE x\nvars == <<x>>\n"
        "Init == x = 0\nNext == x < 5 /\\ x' = x + 1\nSpec == Init /\\ [][Next]_vars\n"
        "SmallInv == x <= 5\nStepProp == [][x' = x + 1]_vars\n"
        "AtThree == x = 3\nStepToFive == x' = 5\nAtNine == x = 9\n====\n",
        encoding="utf-8",
    )
    config = tmp_path / "MCCount.cfg"
    config.write_text(cfg, encoding="utf-8")
    base = load_manifest(MANIFEST).entries[0]
    return dataclasses.replace(base, name="MCCount", module=module, config=config,
                               witnesses=witnesses)  # fmt: skip


def test_generated_module_and_config(tmp_path: Path) -> None:
    cfg = "SPECIFICATION Spec\nINVARIANT SmallInv\nPROPERTY StepProp\n"
    e = _entry(tmp_path, cfg, (("SmallInv", "AtThree"), ("StepProp", "StepToFive")))
    module = witness_module(e)
    assert "EXTENDS MCCount, TLC" in module
    assert "W__1 == W__Once(1, AtThree)" in module
    assert "W__2 == [][W__Once(2, StepToFive)]_vars" in module
    config = witness_config(e)
    assert "SmallInv" not in config and "StepProp" not in config
    assert "SPECIFICATION Spec" in config
    assert "INVARIANTS\n    W__1\n    W__AllSeen\n" in config
    assert "PROPERTIES\n    W__2\n" in config
    assert is_state_property("FooInv") and is_state_property("AtomicityTypeOK")
    assert not is_state_property("FooProp")


def test_witness_run_reports_reached_and_missing(tmp_path: Path, tlc_jar: Path) -> None:
    cfg = "SPECIFICATION Spec\nINVARIANT SmallInv\nPROPERTY StepProp\n"
    reached = _entry(tmp_path, cfg, (("SmallInv", "AtThree"), ("StepProp", "StepToFive")))
    row = check_witnesses(reached, jar=tlc_jar, library=None)
    assert row.as_expected, row.note
    missing = dataclasses.replace(reached, witnesses=(("SmallInv", "AtNine"),))
    row = check_witnesses(missing, jar=tlc_jar, library=None)
    assert not row.as_expected
    assert "never reached (vacuous here): SmallInv" in row.note


def test_folded_run_judges_the_model_and_reaches_the_witnesses(tmp_path: Path, tlc_jar: Path) -> None:
    """One run checks the model and its witnesses (D410): the model's pins are the whole state
    space's, the witnesses' reports do not count as the model's violations."""
    cfg = "SPECIFICATION Spec\nINVARIANT SmallInv\nPROPERTY StepProp\nCHECK_DEADLOCK FALSE\n"
    e = dataclasses.replace(
        _entry(tmp_path, cfg, (("SmallInv", "AtThree"), ("StepProp", "StepToFive"))),
        distinct=6, depth=6)  # fmt: skip
    assert "INVARIANT SmallInv" in folded_config(e) and "W__AllSeen" not in folded_config(e)
    model, witnesses = check_with_witnesses(e, jar=tlc_jar, library=None)
    assert model.as_expected and (model.distinct, model.depth) == (6, 6), model.note
    assert witnesses.as_expected and witnesses.result == "reached 2", witnesses.note
    model, witnesses = check_with_witnesses(
        dataclasses.replace(e, witnesses=(("SmallInv", "AtNine"),)), jar=tlc_jar, library=None)
    assert model.as_expected and not witnesses.as_expected
    assert "never reached (vacuous here): SmallInv" in witnesses.note


def test_folded_run_still_reports_the_models_own_violation(tmp_path: Path, tlc_jar: Path) -> None:
    cfg = "SPECIFICATION Spec\nINVARIANT SmallInv\nCHECK_DEADLOCK FALSE\n"
    e = dataclasses.replace(_entry(tmp_path, cfg, (("SmallInv", "AtThree"),)), distinct=6, depth=6)
    e.module.write_text(e.module.read_text().replace("x <= 5", "x <= 3"), encoding="utf-8")
    model, witnesses = check_with_witnesses(e, jar=tlc_jar, library=None)
    assert not model.as_expected and model.violated == "SmallInv"
    assert [s.state["x"] for s in model.trace] == ["0", "1", "2", "3", "4"]
    assert witnesses.as_expected


def test_witness_reports_are_taken_out_of_the_output() -> None:
    def msg(code: int, cls: int, text: str) -> str:
        return f"@!@!@STARTMSG {code}:{cls} @!@!@\n{text}\n@!@!@ENDMSG {code} @!@!@\n"

    own = msg(2110, 1, "Invariant SmallInv is violated.") + msg(2121, 1, "The behavior up to this point is:") + msg(2217, 4, "1: <Initial predicate>\nx = 0")
    witness = msg(2110, 1, "Invariant W__1 is violated.") + msg(2121, 1, "The behavior up to this point is:") + msg(2217, 4, "1: <Initial predicate>\nx = 0")
    step = msg(2112, 1, "Action property W__2 is violated.") + msg(2217, 4, "1: <Initial predicate>\nx = 0")
    done = msg(2193, 0, "Model checking completed. No error has been found.")
    assert without_witness_reports(witness + step + done) == done
    assert without_witness_reports(witness + own + step + done) == own + done
    assert without_witness_reports(own + witness + own + done) == own + done


def test_witness_run_reports_an_error(tmp_path: Path, tlc_jar: Path) -> None:
    e = _entry(tmp_path, "SPECIFICATION Spec\n", (("SmallInv", "NoSuchOperator"),))
    row = check_witnesses(e, jar=tlc_jar, library=None)
    assert not row.as_expected and row.error


@pytest.mark.parametrize("entry", [e for e in load_manifest(MANIFEST).entries if e.witnesses],
                         ids=lambda e: e.name)  # fmt: skip
def test_witness_operators_exist(entry: ModelEntry) -> None:
    """Each witness names an operator that some module of the model's defines (a cheap check
    before TLC; a typo would otherwise surface as a TLC error in the witness run)."""
    library = default_library(load_manifest(MANIFEST))
    assert library is not None
    text = "\n".join(
        f.read_text(encoding="utf-8")
        for f in [*entry.module.parent.glob("*.tla"), *library.glob("*.tla")]
    )
    for prop, witness in entry.witnesses:
        op = witness.partition("@")[0]
        assert re.search(rf"\n{op}\s*==", text), f"{entry.name}: witness of {prop}: no operator {op}"


@pytest.mark.parametrize(
    ("witnesses", "size", "why"),
    [
        (["SmallInv"], "ci", "expected an object"),
        ({"SmallInv": "Not an operator"}, "ci", "expected an object"),
        ({"SmallInv": "AtThree"}, "deep", 'only on a model of size "ci"'),
    ],
)
def test_manifest_rejects_bad_witnesses(
    tmp_path: Path, witnesses: object, size: str, why: str
) -> None:
    (tmp_path / "M.tla").write_text("---- MODULE M ----\n====\n", encoding="utf-8")
    (tmp_path / "M.cfg").write_text("", encoding="utf-8")
    entry = {
        "name": "M", "module": "M.tla", "config": "M.cfg", "expect": "holds", "distinct": 1,
        "depth": 1, "size": size, "about": "a model", "witnesses": witnesses,
    }  # fmt: skip
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"models": [entry]}), encoding="utf-8")
    with pytest.raises(ManifestError, match=re.escape(why)):
        load_manifest(manifest)


def test_manifest_reads_witnesses_in_order() -> None:
    full = {e.name: e for e in load_manifest(MANIFEST).entries}["MCHostReclaim_ZVM"]
    assert ("RevalidationPreservesContentProp", "Revalidation@allVars") in full.witnesses
