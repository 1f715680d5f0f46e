"""The properties of ESSAProperties.tla on refimpl.essa, per profile, as the models expect them.

* The 2007 model (Paper2007) keeps every invariant and every action property after every step of
  random sequences (hypothesis), on two and three pages, with and without facility 147.
* The KVM implementations keep what model/MCESSA_KVM*{Keys,Migration}.cfg check (EssaTypeOK,
  SpecificationExceptionProp, MigrationKeepsStableContentProp, MigrationArrivalProp, and
  ModifiedPContentKeptInv with storage keys), and violate only the guest assumptions of the
  findings (docs/findings.md), which fixed sequences reproduce: F1-F4 for each KVM, each with
  the R1 bytes of its counterexample, and the same steps under the 2007 model keep everything.
* The bare instruction (refimpl.essa.essa, any ORC 0 .. 15): its R1 byte encodes the state
  before, it raises the specification exception exactly for 8 .. 15 and for 7 without facility
  147, and a full CBRL refuses it until the host has processed the list.
* Exhaustively on the one-page graphs, the violated properties are exactly those expected; and
  the refimpl counterparts of model/MCESSA.tla's broken twins are caught.

``REFIMPL_HYPOTHESIS_PROFILE=refimpl-deep`` runs many more examples than CI.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refimpl.essa import rules
from refimpl.essa import (
    NO_PAGE, NO_VALUE, EssaPage, EssaProfile, EssaState, Refused, SpecificationException,
    enabled_steps, essa, init, step,
)  # fmt: skip
from refimpl.essa import ESSA
from refimpl.essa.properties import (
    ACTION_PROPERTIES, INVARIANTS, PROPERTIES,
)  # fmt: skip

DEEP = os.environ.get("REFIMPL_HYPOTHESIS_PROFILE") == "refimpl-deep"
# Inherits the profile tests/conftest.py loaded (D107): derandomized without a database when CI
# is set, the example database otherwise.
SETTINGS = settings(
    max_examples=2000 if DEEP else 20, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

#: What a KVM implementation breaks of the 2007 guest's assumptions (the findings; without
#: storage keys F3 as well). BelievedStableContentKeptInv follows from F2 (the zeros read without a
#: discard fault become the stable page's content after make_stable) and, on the new gmap,
#: from F1.
KVM_VIOLATES = {
    "GuestStableBeliefInv", "ReadReturnsOwedInv", "ReportedZeroReadsZeroInv", "BelievedStableContentKeptInv",
}  # fmt: skip


#: F3 (without storage keys): a modified P page's content is lost, which breaks
#: UnwrittenContentKeptInv (D231) too, since it covers every usage.
KVM_NO_KEYS_VIOLATES = {"ModifiedPContentKeptInv", "UnwrittenContentKeptInv"}


def expected_violations(profile: EssaProfile) -> set[str]:
    if not profile.kvm:
        return set()
    return KVM_VIOLATES | (set() if profile.storage_keys else KVM_NO_KEYS_VIOLATES)


#: The action property a KVM implementation breaks: its ORC 6 is SET_STABLE_IF_RESIDENT, not the
#: 2007 SET_STABLE_IF_NOT_DISCARDED (D193; the instruction-level cause of F1).
KVM_VIOLATES_STEPS = {"StableIfNotDiscardedProp"}


def expected_step_violations(profile: EssaProfile) -> set[str]:
    return KVM_VIOLATES_STEPS if profile.kvm else set()


def profile_id(p: EssaProfile) -> str:
    return (
        f"{p.impl}-{'keys' if p.storage_keys else 'nokeys'}-"
        f"{'f147' if p.facility147 else 'nof147'}-cbrl{p.cbrl_size}-{p.pages}p"
    )


PAPER_PROFILES = [
    EssaProfile("Paper2007", facility147=f, pages=n) for n in (2, 3) for f in (False, True)
]
KVM_PROFILES = [
    EssaProfile(impl, storage_keys=k, facility147=True, cbrl_size=c, pages=n)
    for impl in ("KVMClassic", "KVMGmap")
    for k in (True, False)
    for c, n in ((1, 2), (2, 3))
]


def _walk(profile: EssaProfile, choices: list[int]) -> list[tuple[EssaState, EssaState]]:
    """A random path of enabled steps from Init: the (before, after) pairs."""
    state = init(profile)
    pairs = []
    for choice in choices:
        steps = list(enabled_steps(profile, state))
        assert steps, "no step enabled: the spec would deadlock (GuestExtract is always enabled)"
        _, after = steps[choice % len(steps)]
        pairs.append((state, after))
        state = after
    return pairs


@pytest.mark.parametrize("profile", PAPER_PROFILES, ids=profile_id)
@SETTINGS
@given(choices=st.lists(st.integers(min_value=0, max_value=10_000), max_size=80))
def test_paper2007_keeps_every_property(profile: EssaProfile, choices: list[int]) -> None:
    assert not violated_invariants(profile, init(profile))
    for before, after in _walk(profile, choices):
        bad = violated_invariants(profile, after) + violated_action_properties(profile, before, after)
        assert not bad, f"{profile.describe()}: {bad} violated by {before} -> {after}"


@pytest.mark.parametrize("profile", KVM_PROFILES, ids=profile_id)
@SETTINGS
@given(choices=st.lists(st.integers(min_value=0, max_value=10_000), max_size=80))
def test_kvm_violates_only_the_findings(profile: EssaProfile, choices: list[int]) -> None:
    allowed = expected_violations(profile)
    for before, after in _walk(profile, choices):
        bad = set(violated_invariants(profile, after)) - allowed
        bad |= set(violated_action_properties(profile, before, after)) - KVM_VIOLATES_STEPS
        assert not bad, f"{profile.describe()}: {sorted(bad)} violated by {before} -> {after}"


violated_invariants = PROPERTIES.violated_invariants
violated_action_properties = PROPERTIES.violated_action_properties

# --------------------------------------------------------------------------- the instruction

ALL_PROFILES = [
    EssaProfile(impl, storage_keys=impl != "Paper2007", facility147=f, cbrl_size=1, pages=2)
    for impl in ("Paper2007", "KVMClassic", "KVMGmap")
    for f in (False, True)
]


def _r1_encodes(before: EssaState, p: int, r1: int, profile: EssaProfile) -> bool:
    """The R1 byte against the state before, from the variables (sources 1): in the new gmap the
    gmap PTE is what ESSA sees, and without a page table the answer is 0x10 (D97)."""
    pg = before.pages[p]
    kvm, gmap = profile.kvm, profile.impl == "KVMGmap"
    if gmap and not before.pageTable:
        return r1 == 0x10
    usage = {"S": 0x00, "U": 0x04, "P": 0x08, "V": 0x0C}[pg.usage]
    if (pg.gmapPte == "Valid") if gmap else pg.valid:
        content = 0
    elif kvm:
        content = 3 if pg.zbit else 2
    else:
        content = 2 if pg.swapped else 3
    return r1 == content | usage | (0x20 if pg.nodat else 0)


@pytest.mark.parametrize("profile", ALL_PROFILES, ids=profile_id)
@SETTINGS
@given(data=st.data())
def test_instruction_result_byte_exception_and_full_cbrl(
    profile: EssaProfile, data: st.DataObject
) -> None:
    state = init(profile)
    for _ in range(data.draw(st.integers(0, 60), label="steps")):
        if data.draw(st.booleans(), label="instruction?"):
            orc = data.draw(st.integers(0, 15), label="orc")
            p = data.draw(st.integers(0, profile.pages - 1), label="page")
            result = essa(profile, state, orc, p)
            if isinstance(result, Refused):
                # Only a discard that finds the CBRL full; the host empties it, then it runs.
                assert profile.kvm and len(state.cbrl) == profile.cbrl_size, result
                emptied = state
                while emptied.cbrl:
                    t = step(profile, emptied, "HostProcessCBRL")
                    assert not isinstance(t, Refused)
                    emptied = t
                result = essa(profile, emptied, orc, p)
                assert not isinstance(result, Refused)
                state = emptied
            after, r1 = result
            exception = orc > 7 or (
                orc == 7 and (not profile.facility147 or profile.impl == "Paper2007"))
            assert isinstance(r1, SpecificationException) == exception
            if isinstance(r1, SpecificationException):
                assert r1.orc == orc and r1.code == 6
                assert after == state._replace(lastOp=after.lastOp)
                assert after.lastOp.outcome == "SpecificationException"
                assert after.lastOp.result == NO_VALUE
            else:
                assert _r1_encodes(state, p, r1, profile), (state, orc, p, r1)
                outcome = "ExceptionIndication" if r1 == 0x10 else "Done"
                assert after.lastOp == (("ESSA", p, orc, r1, outcome, NO_VALUE))
                # The guest's view is the caller's: untouched.
                assert [(a.owed, a.belief, a.modified) for a in after.pages] == [
                    (b.owed, b.belief, b.modified) for b in state.pages
                ]
            assert after.lastOp.orc == min(orc, 8)
        else:
            steps = list(enabled_steps(profile, state))
            _, after = steps[data.draw(st.integers(0, len(steps) - 1), label="step")]
        for name in ("EssaTypeOK",):
            assert INVARIANTS[name](profile, after), (name, state, after)
        broken = set(violated_action_properties(profile, state, after))
        assert not broken - expected_step_violations(profile), (state, after)
        state = after


def test_instruction_rejects_malformed_requests() -> None:
    profile = EssaProfile("KVMGmap", pages=2)
    s = init(profile)
    for orc, page in ((-1, 0), (16, 0), (0, 2), (0, -1), (True, 0)):
        with pytest.raises(ValueError):
            essa(profile, s, orc, page)
    for action, page, orc in (("GuestMakeVolatile", 0, 5), ("GuestFree", 0, 2),
                              ("Migrate", 0, NO_VALUE), ("HostReclaim", NO_PAGE, NO_VALUE),
                              ("SetStable", 0, NO_VALUE)):  # fmt: skip
        with pytest.raises(ValueError):
            step(profile, s, action, page, orc)


# --------------------------------------------------------------------------- the findings

# (finding, the steps after Init as (action, page, orc), the R1 byte of each ESSA step (None for
# the others), the property the last step violates). From docs/findings.md.
Steps = list[tuple[str, int, int]]
W, WB, RC, CB, RD = (("GuestWrite", 0, NO_VALUE), ("GuestWriteback", 0, NO_VALUE),
                     ("HostReclaim", 0, NO_VALUE), ("HostProcessCBRL", NO_PAGE, NO_VALUE),
                     ("GuestRead", 0, NO_VALUE))  # fmt: skip
MV3, MV4 = ("GuestMakeVolatile", 0, 3), ("GuestMakeVolatile", 0, 4)
MS, EX = ("GuestMakeStable", 0, NO_VALUE), ("GuestExtract", 0, NO_VALUE)
MIGRATE, FREE = ("Migrate", NO_PAGE, NO_VALUE), ("GuestFree", 0, NO_VALUE)

FINDINGS: list[tuple[str, str, bool, Steps, list[int | None], str]] = [
    # (id, Impl, storage keys, steps, R1 bytes, violated property)
    ("F1-KVMClassic", "KVMClassic", True, [MV3, MIGRATE, MS], [0x02, None, 0x0E],
     "GuestStableBeliefInv"),
    # A new gmap VM has no page table: a read allocates it first (D97).
    ("F1-KVMGmap", "KVMGmap", True, [RD, MV3, MIGRATE, MS], [None, 0x00, None, 0x0E],
     "GuestStableBeliefInv"),
    *((f"F2-{impl}", impl, True, [W, WB, RC, MV3, CB, RD], [None, None, None, 0x02, None, None],
       "ReadReturnsOwedInv") for impl in ("KVMClassic", "KVMGmap")),
    *((f"F3-{impl}", impl, False, [W, RC, MV4, CB], [None, None, 0x02, None],
       "ModifiedPContentKeptInv") for impl in ("KVMClassic", "KVMGmap")),
    *((f"F4-{impl}", impl, True, [W, RC, FREE], [None, None, 0x02], "ReportedZeroReadsZeroInv")
      for impl in ("KVMClassic", "KVMGmap")),
]  # fmt: skip


def _run(profile: EssaProfile, steps: Steps) -> list[EssaState]:
    states = [init(profile)]
    for action, page, orc in steps:
        t = step(profile, states[-1], action, page, orc)
        assert not isinstance(t, Refused), f"{profile.describe()}: {t}"
        states.append(t)
    return states


@pytest.mark.parametrize(("impl", "keys", "steps", "r1", "prop"), [f[1:] for f in FINDINGS],
                         ids=[f[0] for f in FINDINGS])  # fmt: skip
def test_finding_reproduces(
    impl: str, keys: bool, steps: Steps, r1: list[int | None], prop: str
) -> None:
    profile = EssaProfile(impl, storage_keys=keys, facility147=True)
    states = _run(profile, steps)
    assert [s.lastOp.result if s.lastOp.orc != NO_VALUE else None for s in states[1:]] == r1
    # Violated by the last step, and by none before (each finding's model checks this one
    # property, and its counterexample is shortest; others may already fail on the way, as
    # ReportedZeroReadsZeroInv does once a swapped page is queued in F2 and F3).
    assert prop in violated_invariants(profile, states[-1])
    for s in states[:-1]:
        assert INVARIANTS[prop](profile, s), s


def test_f3_needs_no_storage_keys() -> None:
    """With storage keys GC holds the change bit: ORC 4 keeps the written page and queues
    nothing (MCESSA_KVM*Keys)."""
    for impl in ("KVMClassic", "KVMGmap"):
        profile = EssaProfile(impl, storage_keys=True, facility147=True)
        states = _run(profile, [W, RC, MV4])
        assert not states[-1].cbrl and states[-1].pages[0].usage == "S"
        assert not violated_invariants(profile, states[-1])
        assert isinstance(step(profile, states[-1], *CB), Refused)


def test_the_2007_model_keeps_the_guest_assumptions_on_the_same_steps() -> None:
    """The same steps under the paper's machine (no CBRL, no migration): nothing breaks, and
    where KVM reads zeros the 2007 guest gets a discard fault."""
    profile = EssaProfile("Paper2007")
    f1 = _run(profile, [MV3, MS])  # ORC 6 on Vz fails: the guest drops the page
    assert f1[-1].lastOp.result == 0x0F and f1[-1].pages[0].belief == "U"
    f2 = _run(profile, [W, WB, RC, MV3, RD])  # Sp -> Vz at once, then the discard fault
    assert f2[-1].lastOp.outcome == "DiscardFault"
    f3 = _run(profile, [W, RC, MV4])  # a dirty Sp stays S
    assert f3[-1].pages[0].usage == "S" and f3[-1].pages[0].swapped
    f4 = _run(profile, [W, RC, FREE])  # Sp -> Uz drops the content at once
    assert not f4[-1].pages[0].swapped and f4[-1].pages[0].data == 0
    for states in (f1, f2, f3, f4):
        for before, after in zip(states, states[1:]):
            assert not violated_invariants(profile, after), after
            assert not violated_action_properties(profile, before, after)
    assert isinstance(step(profile, f1[-1], *MIGRATE), Refused)


# --------------------------------------------------------------------------- exhaustively

GRAPH_PROFILES = [
    EssaProfile("Paper2007"),
    *(EssaProfile(impl, storage_keys=k, facility147=True)
      for impl in ("KVMClassic", "KVMGmap") for k in (True, False)),
]  # fmt: skip


def _violations(profile: EssaProfile) -> tuple[set[str], set[str]]:
    g = ESSA.state_graph(profile)
    invariants = {name for s in g.states for name in violated_invariants(profile, s)}
    actions = {
        name
        for i, s in enumerate(g.states)
        for _label, j in g.edges[i]
        for name in violated_action_properties(profile, s, g.states[j])
    }
    return invariants, actions


@pytest.mark.parametrize("profile", GRAPH_PROFILES, ids=profile_id)
def test_violations_on_the_one_page_graph_are_the_expected(profile: EssaProfile) -> None:
    invariants, actions = _violations(profile)
    assert invariants == expected_violations(profile)
    assert actions == expected_step_violations(profile)


# The refimpl counterparts of model/MCESSA.tla's broken twins: each must be caught.
def _resident_only(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rules, "migrated_content", lambda pg: pg.data if pg.valid else 0)


def _z_carried(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rules, "arrival_z", lambda pg: pg.zbit)


def _ignoring_facility(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rules, "specification_exception", lambda profile, orc: orc > 7)


def _result_without_nodat(mp: pytest.MonkeyPatch) -> None:
    result_byte = rules.result_byte
    mp.setattr(rules, "result_byte", lambda profile, pg: result_byte(profile, pg) & ~rules.NODAT_BIT)


def _gmap_keeps_z(mp: pytest.MonkeyPatch) -> None:
    essa_effect = rules.essa_effect

    def keeps_z(profile: EssaProfile, orc: int, pg: EssaPage) -> rules.Effect:
        e = essa_effect(profile, orc, pg)
        return e._replace(z=e.z or pg.zbit)

    mp.setattr(rules, "essa_effect", keeps_z)


def _discard_fault_in_kvm(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rules, "discard_fault",
               lambda profile, pg: pg.usage == "V" and not pg.valid and not pg.swapped)  # fmt: skip


TWINS: list[tuple[str, Callable[[pytest.MonkeyPatch], None], EssaProfile, str]] = [
    ("BrokenMigration", _resident_only, EssaProfile("KVMClassic", True, True),
     "MigrationKeepsStableContentProp"),
    ("BrokenMigrationArrival", _z_carried, EssaProfile("KVMClassic", True, True),
     "MigrationArrivalProp"),
    ("BrokenSpecificationException", _ignoring_facility, EssaProfile("Paper2007"),
     "SpecificationExceptionProp"),
    ("BrokenResultByte", _result_without_nodat, EssaProfile("KVMClassic", True, True),
     "ResultByteProp"),
    ("BrokenQueuedDiscard", _gmap_keeps_z, EssaProfile("KVMGmap", True, True), "QueuedDiscardProp"),
    ("BrokenAccessOutcome", _discard_fault_in_kvm, EssaProfile("KVMClassic", True, True),
     "AccessOutcomeProp"),
]  # fmt: skip


@pytest.mark.parametrize(("mutate", "profile", "expected"), [t[1:] for t in TWINS],
                         ids=[t[0] for t in TWINS])  # fmt: skip
def test_broken_rules_violate_their_property(
    mutate: Callable[[pytest.MonkeyPatch], None],
    profile: EssaProfile,
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert expected in ACTION_PROPERTIES
    mutate(monkeypatch)
    _, actions = _violations(profile)
    assert expected in actions
