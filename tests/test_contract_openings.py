"""Each spec module opens with its contract (docs/contract.md): the comment at its head lists the
promises, and that list is exactly what the module's THEOREMs state. A THEOREM whose property the
opening does not name, or an opening that names a property no THEOREM states (a renamed one, a
step check), fails here, so the opening a reviewer reads first cannot drift from the checked
contract."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from tlcrunner import contract

SPEC = Path(__file__).resolve().parents[1] / "spec"


def _intent_by_family() -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for t in contract.all_theorems():
        names = contract.property_names(t.formula) - contract.PROOF_AIDS
        out[contract.family(t.module)] |= names
    return out


def test_every_module_with_theorems_opens_with_its_contract() -> None:
    missing = [f for f in _intent_by_family() if contract.opening_contract(SPEC / f"{f}.tla") is None]
    assert not missing, f"spec modules with THEOREMs but no opening 'Contract (docs/contract.md)' comment: {missing}"


def test_the_opening_names_every_promise_its_theorems_state() -> None:
    gaps = {}
    for fam, names in sorted(_intent_by_family().items()):
        opening = contract.opening_contract(SPEC / f"{fam}.tla")
        assert opening is not None
        named = contract.property_names(opening[0])
        if names - named:
            gaps[fam] = sorted(names - named)
    assert not gaps, f"THEOREM properties the module's opening contract does not name: {gaps}"


def test_the_openings_promise_lists_name_only_intent_properties() -> None:
    intent = contract.intent_names()
    stray = {}
    for path in sorted(SPEC.glob("*.tla")):
        opening = contract.opening_contract(path)
        if opening is None:
            continue
        named = contract.property_names(opening[1]) - contract.PROOF_AIDS
        if named - intent:
            stray[path.stem] = sorted(named - intent)
    assert not stray, (
        f"properties an opening lists as promises that no THEOREM states (renamed, or a step check "
        f"or bookkeeping, which belong after the list): {stray}")


def test_the_opening_reader_sees_through_a_renamed_property(tmp_path: Path) -> None:
    """The check has teeth: an opening naming a property no THEOREM states is reported."""
    text = (SPEC / "Ballooning.tla").read_text(encoding="utf-8")
    broken = tmp_path / "Ballooning.tla"
    broken.write_text(text.replace("OwedContentKeptInv:", "NoDataLostInv:", 1), encoding="utf-8")
    opening = contract.opening_contract(broken)
    assert opening is not None
    assert "NoDataLostInv" in contract.property_names(opening[1])
    assert "NoDataLostInv" not in contract.intent_names()


def _own_theorems() -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for t in contract.all_theorems():
        out[t.module] |= contract.property_names(t.formula) - contract.PROOF_AIDS
    return out


def test_every_module_states_exactly_its_theorems() -> None:
    """Every module with THEOREMs states, in its own contract comment (the opening list, or a
    Properties module's "Contract: the promises of ... are ..." sentence), exactly the properties
    its THEOREMs state: no more, no fewer."""
    wrong = {}
    for module, names in sorted(_own_theorems().items()):
        stated = contract.contract_statement(SPEC / f"{module}.tla")
        if stated != names:
            wrong[module] = {"no THEOREM": sorted((stated or set()) - names),
                             "not stated": sorted(names - (stated or set()))}  # fmt: skip
    assert not wrong, f"contract comments that are not the module's THEOREMs: {wrong}"


def test_every_machine_opening_lists_its_contract() -> None:
    """A machine module (one whose THEOREMs are in its Properties module) lists every promise
    of its Properties module, and nothing that is not the THEOREM of a module built on it."""
    from tlcrunner.mutate import module_closure

    own = _own_theorems()
    closure = module_closure([SPEC])
    wrong = {}
    for path in sorted(SPEC.glob("*.tla")):
        if path.stem in own:
            continue
        opening = contract.opening_contract(path)
        if opening is None:
            continue
        listed = contract.property_names(opening[1]) - contract.PROOF_AIDS
        props = "PageStateProperties" if path.stem == "PageStates" else f"{path.stem}Properties"
        built_on = {m for m, reach in closure.items() if path.stem in reach}
        named = set(re.findall(r"(\w+)\.tla", opening[0]))  # "HostProgressProp of X.tla"
        allowed = set().union(*(own.get(m, set()) for m in built_on | named))
        missing, stray = own.get(props, set()) - listed, listed - allowed
        if missing or stray:
            wrong[path.stem] = {"missing": sorted(missing), "no THEOREM": sorted(stray)}
    assert not wrong, f"machine openings that are not their contract: {wrong}"
