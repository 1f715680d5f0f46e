"""Every property a model checks is defined in spec/, none in model/ (docs/contract.md, D356).

A property is what a model/*.cfg lists under INVARIANT(S) or PROPERTY/PROPERTIES: it states the
design's intent or a step of it, so it lives in spec/, under the source sentence it rests on
(docs/sources.md), where tlcrunner.contract classes it (a THEOREM names it: intent; a *StepChecks
module defines it: step; else bookkeeping). A model module only configures: constants, symmetry,
views, the broken twins' overrides and the specifications that add a twin's broken step, and the
reachability witnesses. Those are not properties, and none of them is listed as one:

- a twin's override (an operator a .cfg substitutes with ``<-``, or a broken specification named
  by SPECIFICATION) is the mistake a property must catch, never the property;
- a witness (model/manifest.json, "witnesses") names the states or steps a property is about,
  which a model must reach (D130); tlcrunner.witness checks it from the manifest, so it is allowed
  in model/ even if a .cfg were to list it.

The machines a property needs (a history variable, a refinement mapping, an extension of the
spec's machine with variables of its own) are design too, and move to spec/ with it.
"""

from __future__ import annotations

from pathlib import Path

from tlcrunner.cfg import checked_names
from tlcrunner.contract import MODEL, SPEC, defining_modules
from tlcrunner.manifest import load_manifest


def _checked(model: Path = MODEL) -> dict[str, list[str]]:
    """For each property some .cfg of ``model`` checks, the configurations that check it."""
    out: dict[str, list[str]] = {}
    for cfg in sorted(model.glob("*.cfg")):
        names = checked_names(cfg.read_text(encoding="utf-8"))
        for name in (*names.invariants, *names.properties):
            out.setdefault(name, []).append(cfg.stem)
    return out


def _witnesses(model: Path = MODEL) -> frozenset[str]:
    manifest = load_manifest(model / "manifest.json")
    return frozenset(op.split("@")[0] for e in manifest.entries for _, op in e.witnesses)


def misplaced(model: Path = MODEL) -> dict[str, list[str]]:
    """The checked properties a model module defines, with the model modules that define them."""
    in_model = defining_modules((model,))
    witnesses = _witnesses(model)
    return {name: in_model[name] for name in sorted(_checked(model))
            if name in in_model and name not in witnesses}  # fmt: skip


def test_no_model_module_defines_a_property_a_model_checks() -> None:
    found = misplaced()
    assert not found, "properties defined in model/, not spec/: " + ", ".join(
        f"{name} ({', '.join(mods)})" for name, mods in found.items())


def test_every_checked_property_is_defined_in_spec() -> None:
    """The other half: a name a .cfg checks is defined in some spec module, so the check above
    does not pass by a name that is defined nowhere (or only by TLC)."""
    in_spec = defining_modules((SPEC,))
    missing = sorted(set(_checked()) - set(in_spec))
    assert not missing, f"checked properties no spec module defines: {missing}"


def test_the_rule_sees_a_property_defined_in_a_model(tmp_path: Path) -> None:
    """The check is not vacuous: a property a .cfg lists and a model module defines is found, and
    a witness the manifest names is not."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "MCX.tla").write_text(
        "---- MODULE MCX ----\nEXTENDS X\nLocalInv == TRUE\nReached == x = 1\nFooOverride(p) == p\n====\n",
        encoding="utf-8")
    (model / "MCX_A.cfg").write_text(
        "SPECIFICATION Spec\nINVARIANTS\n    TypeOK\n    LocalInv\n    Reached\n", encoding="utf-8")
    (model / "manifest.json").write_text(
        '{"models": [{"name": "MCX_A", "module": "MCX.tla", "config": "MCX_A.cfg", "expect": "holds",'
        ' "distinct": 1, "depth": 1, "size": "ci", "about": "x",'
        ' "witnesses": {"TypeOK": "Reached"}}]}', encoding="utf-8")
    assert misplaced(model) == {"LocalInv": ["MCX"]}
