"""Every broken twin is caught by the contract alone (docs/contract.md): the manifest records, for
each twin, the promises its contract alone breaks (``breaks``, written by ``python -m
tlcrunner.contract --matrix --record``), or marks it ``"step detail"`` with the free choice it
changes; docs/contract.md's matrix is what the manifest records. None of this runs TLC: ``check``
verifies each record when it runs the twin (its ``(intent)`` row)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tlcrunner import contract
from tlcrunner.manifest import ManifestError, load_manifest

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "model" / "manifest.json"


def test_the_matrix_in_the_docs_is_what_the_manifest_records() -> None:
    text = contract.CONTRACT_DOC.read_text(encoding="utf-8")
    rendered = contract.render_matrix(load_manifest(MANIFEST).entries)
    assert contract.matrix_block(text) == rendered, "run `python -m tlcrunner.contract --write`"




def test_every_twin_breaks_a_recorded_promise_or_is_a_step_detail() -> None:
    """The build's rule: a twin caught only by a step check or bookkeeping fails, unless the
    manifest marks it a step detail with its one-line reason. The open holes are recorded in the
    manifest ("open hole", with the promise missing), so that none goes unseen: a twin with no
    record at all fails, and a twin recorded as caught or a step detail carries no open hole."""
    entries = load_manifest(MANIFEST).entries
    kinds = contract.Kinds.of()
    bad, closed = [], []
    for e in entries:
        if not e.is_twin:
            continue
        if e.step_detail:
            assert not e.breaks, f"{e.name}: breaks a promise and is marked step detail"
            assert len(e.step_detail) > 20, f"{e.name}: a step detail needs its reason"
            if e.open_hole:
                closed.append(e.name)
            continue
        if not e.breaks:
            if not e.open_hole:
                bad.append(e.name)
            else:
                assert len(e.open_hole) > 20, f"{e.name}: an open hole names the missing promise"
            continue
        if e.open_hole:
            closed.append(e.name)
        for name in e.breaks:
            assert kinds.kind(name) in (contract.INTENT, contract.REFINEMENT), (
                f"{e.name} records {name}, which is not a promise (a THEOREM-backed property)")
    assert not bad, ("twins caught only by a step check or bookkeeping (state the missing promise "
                     f'from the sources, or mark them "step detail" with the reason): {bad}')
    assert not closed, f"twins no longer open: remove their \"open hole\" from the manifest: {closed}"


def test_a_twins_contract_is_its_specs_promises_in_its_own_machine() -> None:
    entries = load_manifest(MANIFEST).entries
    by = {e.name: e for e in entries}
    kinds, bodies = contract.Kinds.of(), contract.definition_bodies()
    ssind = contract.twin_contract(by["MCPageStates_Twin_SSIND"], entries, kinds, bodies)
    assert "StableContentKeptInv" in ssind.invariants
    assert "SetStableIfNotDiscardedProp" not in ssind.names  # a step check, no THEOREM
    assert "TypeOK" not in ssind.names
    # the twin runs the machine with its history variable, so the refinement of the guest's view
    # is checked on the twin itself (D396)
    assert "RefinesGuestMemory" in ssind.properties
    assert "MCPageStatesRefinement" in contract.extended_models(by["MCPageStates_Twin_SSIND"].module)
    # a liveness twin keeps the liveness promise of a model with its own specification
    nozero = contract.twin_contract(by["MCPageStates_Twin_NoZeroFill"], entries, kinds, bodies)
    assert "WaitingAccessServedProp" in nozero.properties
    text = nozero.config(by["MCPageStates_Twin_NoZeroFill"].config.read_text(encoding="utf-8"))
    assert "HostZeroFill <- HostZeroFillMissing" in text and "CHECK_DEADLOCK FALSE" in text


def test_the_manifest_takes_breaks_only_on_a_twin(tmp_path: Path) -> None:
    text = MANIFEST.read_text(encoding="utf-8").replace(
        '"name": "MCPageStates_Full",', '"name": "MCPageStates_Full", "breaks": ["X"],', 1)
    bad = tmp_path / "model" / "manifest.json"
    bad.parent.mkdir()
    bad.write_text(text, encoding="utf-8")
    for f in (REPO / "model").iterdir():
        if f.suffix in (".tla", ".cfg"):
            (bad.parent / f.name).symlink_to(f)
    with pytest.raises(ManifestError, match="only on a broken twin"):
        load_manifest(bad)


def test_the_checks_intent_row_passes_a_step_detail_and_fails_an_unrecorded_twin() -> None:
    """The rows ``check`` prints without running TLC: a step detail is as recorded with its
    reason; an open hole says so, names the missing promise and fails the build; a twin that
    breaks no recorded promise and has no record fails the build."""
    entries = load_manifest(MANIFEST).entries
    by = {e.name: e for e in entries}
    detail = next(e for e in entries if e.is_twin and e.step_detail)
    row = contract.check_twin_intent(detail, entries, jar=Path("unused.jar"), library=None)
    assert row.as_expected and row.name.endswith(contract.INTENT_SUFFIX)
    # no twin is an open hole now; one recorded as such says so, names its promise, and fails
    hole = dataclasses.replace(detail, step_detail="", breaks=(), open_hole="a promise not yet stated")
    row = contract.check_twin_intent(hole, entries, jar=Path("unused.jar"), library=None)
    assert not row.as_expected and row.result == contract.OPEN_HOLE and hole.open_hole in row.note
    bare = dataclasses.replace(hole, open_hole="")
    row = contract.check_twin_intent(bare, entries, jar=Path("unused.jar"), library=None)
    assert not row.as_expected and "step check or bookkeeping" in row.note


def test_a_twin_that_breaks_its_own_property_runs_once_and_fails_when_it_is_not_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """D385: a twin recorded as breaking the promise it was written for runs once, its own .cfg,
    and its ``(intent)`` row is read from that run: when the run does not find that promise
    violated first, both rows fail. A twin written for a step check keeps its run against the
    contract alone (``runs_once`` is false), and so do a step detail and an open hole."""
    from tlcrunner import run as run_module
    from tlcrunner.run import RunResult
    from tlcrunner.tool_output import Outcome, ToolResult

    entries = load_manifest(MANIFEST).entries
    by = {e.name: e for e in entries}
    once = next(e for e in entries if contract.runs_once(e))
    assert not contract.runs_once(by["MCPageStates_Twin_StableContent"])  # its own: a step check
    assert not any(contract.runs_once(e) for e in entries if e.step_detail or e.open_hole)
    runs: list[Path] = []

    def fake(outcome: Outcome, violated: str | None):  # type: ignore[no-untyped-def]
        def run_tlc(module, config, **_):  # type: ignore[no-untyped-def]
            runs.append(Path(config))
            tool = ToolResult(outcome, violated=violated, distinct=once.distinct, depth=once.depth)
            return RunResult(module, config, tool, violated, "", 1.0, 0, [], "")
        return run_tlc

    monkeypatch.setattr(run_module, "run_tlc", fake(Outcome.INVARIANT, once.expect.prop))
    from tlcrunner import check as check_module
    monkeypatch.setattr(check_module, "run_tlc", run_module.run_tlc)
    own, intent = contract.check_twin_once(once, jar=Path("unused.jar"), library=None)
    assert own.as_expected and intent.as_expected and intent.name.endswith(contract.INTENT_SUFFIX)
    assert runs == [once.config]  # one run, of its own .cfg
    monkeypatch.setattr(check_module, "run_tlc", fake(Outcome.INVARIANT, "TypeOK"))
    own, intent = contract.check_twin_once(once, jar=Path("unused.jar"), library=None)
    assert not own.as_expected and not intent.as_expected
    assert "does not show its contract alone catches it" in intent.note
