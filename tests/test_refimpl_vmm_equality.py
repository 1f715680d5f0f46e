"""refimpl/essa/vmm.py is spec/ESSAMigrationVMM.tla's machine: TLC's full state graph of the
VMM model and the reference implementation's are the same states and the same labelled steps
(the style of tests/test_refimpl_equality.py), and a twin of the spec is another machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from refimpl.core.graph import compare
from refimpl.core.tlc import dump_state_graph, read_dot
from refimpl.essa import EssaProfile
from refimpl.essa.vmm import FULL_MASK, MODEL_SET_MASKS, Hooks, model_layout, package
from tlcrunner.run import find_java

ROOT = Path(__file__).resolve().parents[1]
PROFILE = EssaProfile("KVMClassic", storage_keys=True, facility147=True, modern_guest=True, pages=2)


def _cfg(pages: int, max_count: int, one_slot: bool, extra: str = "") -> str:
    names = ", ".join(f"p{i}" for i in range(1, pages + 1))
    return f"""CONSTANTS
    NoPage = NoPage
    p1 = p1
    p2 = p2
    p3 = p3
    s1 = s1
    s2 = s2
    Impl = "KVMClassic"
    StorageKeys = TRUE
    Facility147 = TRUE
    Bugs = {{}}
    PrebuiltPageTables = FALSE
    MachineInterpretsESSA = FALSE
    ModernGuest = TRUE
    CMMAEnabled = TRUE
    CBRLSize = 1
    GfnOrder <- MCGfnOrder
    Pages = {{{names}}}
    SlotOf <- {"MCOneSlot" if one_slot else "MCSlotOf"}
    SlotsAtStart = {{{"s1" if one_slot else "s1, s2"}}}
    MaxBitDistance = 1
    MaxCount = {max_count}
    SlotDeleteFix = TRUE
{extra}SPECIFICATION VMMRoundsSpec
"""


def _graphs(tlc_jar: Path, one_slot: bool, extra: str = "", hooks: Hooks | None = None,
            masks: tuple[int, ...] = (FULL_MASK,)):  # type: ignore[no-untyped-def]
    layout = model_layout(2, max_bit_distance=1, max_count=1, set_masks=masks)
    if one_slot:
        layout = layout._replace(slot_of=(0, 0), at_start=frozenset({0}))
    pkg = package(layout, hooks or Hooks())
    module = ROOT / "model" / ("MCESSAMigration_Twins.tla" if extra else "MCESSAMigrationVMM.tla")
    text, _ = dump_state_graph(module, _cfg(2, 1, one_slot, extra), "VMM", jar=tlc_jar,
                               java=find_java(), timeout=900)  # fmt: skip
    return pkg, read_dot(pkg, text, 2), pkg.state_graph(PROFILE, "Spec")


@pytest.mark.parametrize("one_slot", [True, False], ids=["one memslot", "two memslots"])
def test_refimpl_vmm_state_graph_equals_tlc(tlc_jar: Path, one_slot: bool) -> None:
    pkg, spec, ref = _graphs(tlc_jar, one_slot)
    diff = compare(spec, ref, pkg.show)
    assert diff is None, diff.message
    labels = {label for out in spec.edges for label, _ in out}
    assert {"VMMStart", "VMMStop", "VMMSwitch", "Get", "Peek"} <= labels
    if not one_slot:
        assert "SlotDelete" in labels
    # a second migration, from the destination
    assert any(s.mig.migrating and s.mig.essa.migrated for s in spec.states)


def test_a_twin_is_another_machine(tlc_jar: Path) -> None:
    """The restart that does not mark the pages again (MCESSAMigration_Twin_RestartUnmarked)."""
    pkg, spec, ref = _graphs(tlc_jar, True, "    StartMarks <- StartMarksOnce\n")
    assert compare(spec, ref, pkg.show) is not None


@pytest.mark.parametrize("twin", [False, True], ids=["the SET's masks", "the SET ignoring its mask"])
def test_refimpl_vmm_masked_set_equals_tlc(tlc_jar: Path, twin: bool) -> None:
    """The switch's SET with each mask of MCSetMasks (model/MCESSAMigrationVMM.tla), and the
    twin that ignores the mask (MCESSAMigration_Twin_SetIgnoresMask)."""
    extra = "    SetMasks <- MCSetMasks\n" + ("    SetMask <- SetIgnoresMask\n" if twin else "")
    hooks = Hooks(set_mask=lambda m: FULL_MASK) if twin else None
    pkg, spec, ref = _graphs(tlc_jar, True, extra, hooks, MODEL_SET_MASKS)
    diff = compare(spec, ref, pkg.show)
    assert diff is None, diff.message
    assert {s.mig.essa.lastOp.value for s in spec.states if s.mig.essa.lastOp.op == "Migrate"} \
        == set(MODEL_SET_MASKS)
