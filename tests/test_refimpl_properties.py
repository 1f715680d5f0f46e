"""The properties of PageStateProperties.tla hold on the reference implementation.

Random operation sequences (hypothesis), for every profile: after every step every invariant
holds, and every step satisfies every action property. Two kinds of sequence: one that always
picks an enabled step (so it goes deep), and one of arbitrary requests (so refusals are
exercised: a refused step must be exactly one the machine does not offer, and change nothing).
The same properties are then checked exhaustively on the one-page graphs, and shown to catch
the refimpl counterparts of the spec's broken twins.

Settings: ``REFIMPL_HYPOTHESIS_PROFILE=refimpl-deep`` for many more examples than CI runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refimpl.pagestates import rules
from refimpl.pagestates import PAGE_STATES
from refimpl.pagestates.machine import Machine, Refused
from refimpl.pagestates.profile import Profile, all_profiles
from refimpl.pagestates.properties import (
    ACTION_PROPERTIES, INVARIANTS, PROPERTIES,
)  # fmt: skip
from refimpl.pagestates.state import INIT_LAST_OP, INIT_PAGE, OPS, Page, State

# Both inherit the profile tests/conftest.py loaded (D107): derandomized without a database when
# CI is set, the example database otherwise.
settings.register_profile(
    "refimpl-ci", max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "refimpl-deep", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SETTINGS = settings.get_profile(os.environ.get("REFIMPL_HYPOTHESIS_PROFILE", "refimpl-ci"))



violated_invariants = PROPERTIES.violated_invariants
violated_action_properties = PROPERTIES.violated_action_properties

def profile_id(p: Profile) -> str:
    service = "hs" if p.host_service else "direct"
    return f"{p.variant}-{service}-{p.unused_access}-{p.pages}p-{len(p.values)}v"


# Random sequences on two and three pages with three values; one page is covered exhaustively.
PROFILES = [p for n in (2, 3) for p in all_profiles(pages=n, values=(0, 1, 2))]


def check_step(profile: Profile, before: State, after: State) -> None:
    bad = violated_invariants(profile, after) + violated_action_properties(profile, before, after)
    assert not bad, f"{profile.describe()}: {bad} violated by {before} -> {after}"


@pytest.mark.parametrize("profile", PROFILES, ids=profile_id)
@SETTINGS
@given(choices=st.lists(st.integers(min_value=0, max_value=10_000), max_size=80))
def test_invariants_hold_along_enabled_steps(profile: Profile, choices: list[int]) -> None:
    m = Machine(profile)
    state = m.init()
    assert not violated_invariants(profile, state)
    for choice in choices:
        steps = list(m.enabled_steps(state))
        assert steps, "no step enabled: the spec would deadlock (Extract is always enabled)"
        _, after = steps[choice % len(steps)]
        check_step(profile, state, after)
        state = after


def _requests(profile: Profile) -> st.SearchStrategy[list[tuple[str, int, int]]]:
    def one(op: str) -> st.SearchStrategy[tuple[str, int, int]]:
        args = st.sampled_from(profile.values) if op == "Write" else st.just(-1)
        return st.tuples(st.just(op), st.integers(0, profile.pages - 1), args)

    return st.lists(st.sampled_from(OPS).flatmap(one), max_size=80)


@pytest.mark.parametrize("profile", PROFILES, ids=profile_id)
@SETTINGS
@given(data=st.data())
def test_invariants_hold_and_refusals_are_exact(profile: Profile, data: st.DataObject) -> None:
    m = Machine(profile)
    state = m.init()
    for op, page, arg in data.draw(_requests(profile)):
        offered = {s: t for s, t in m.enabled_steps(state)}
        result = m.step(state, op, page, arg)
        if isinstance(result, Refused):
            assert (op, page, arg) not in offered, f"refused an enabled step: {result}"
            assert result.reason
            continue
        assert offered.get((op, page, arg)) == result, "step and enabled_steps disagree"
        check_step(profile, state, result)
        state = result


@pytest.mark.parametrize("profile", all_profiles(pages=1), ids=profile_id)
def test_properties_hold_on_every_reachable_state_and_step(profile: Profile) -> None:
    g = PAGE_STATES.state_graph(profile)
    for i, s in enumerate(g.states):
        assert not violated_invariants(profile, s), s
        for _op, j in g.edges[i]:
            assert not violated_action_properties(profile, s, g.states[j]), (s, g.states[j])


# The refimpl counterparts of model/MCPageStates_Twins.tla's twins: each must be caught.
def _discard_ignoring_dirty(mp: pytest.MonkeyPatch) -> None:
    mp.setitem(rules.DISCARDABLE, ("P", True), True)


def _ssind_always(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rules, "ssind_succeeds", lambda u, r: True)


def _page_in_forgets_dirty(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(rules, "page_in_dirty", lambda d: False)


def _guest_pages_in(mp: pytest.MonkeyPatch) -> None:
    def paging_in(r: str, target: str) -> str:
        return "r" if target == "S" and r == "p" else r

    mp.setattr(rules, "primitive_residency", paging_in)


def _discarded_reads_zero(mp: pytest.MonkeyPatch) -> None:
    real = rules.access_outcome

    def broken(profile: Profile, u: str, r: str, x: int) -> tuple[str, int]:
        kind, value = real(profile, u, r, x)
        return ("Value", 0) if kind == "DiscardFault" else (kind, value)

    mp.setattr(rules, "access_outcome", broken)


def _volatile_answers_success(mp: pytest.MonkeyPatch) -> None:
    real = rules.apply_primitive

    def broken(profile: Profile, pg: Page, target: str, outcome: str, op: str = "") -> rules.Effect:
        return real(profile, pg, target, "Success" if target == "V" else outcome, op)

    mp.setattr(rules, "apply_primitive", broken)


def _volatile_keeps_usage(mp: pytest.MonkeyPatch) -> None:
    real = rules.primitive_result

    def broken(profile: Profile, pg: Page, target: str) -> rules.Target:
        res = real(profile, pg, target)
        return res._replace(u=pg.usage) if target == "V" else res

    mp.setattr(rules, "primitive_result", broken)


def _discard_shows_p_as_v(mp: pytest.MonkeyPatch) -> None:
    # A full machine (Pz exists) whose discard collapses P to V, as only OneDiscardedState may.
    mp.setattr(rules, "discard", lambda f, u: rules.Target("V" if u == "P" else u, "z", True))


def _extract_misnames_pr(mp: pytest.MonkeyPatch) -> None:
    real = rules.extract

    def broken(pg: Page) -> rules.Result:
        eff = real(pg)
        return eff._replace(outcome="Vr") if pg.name == "Pr" else eff

    mp.setattr(rules, "extract", broken)


TWINS: list[tuple[str, Callable[[pytest.MonkeyPatch], None], str]] = [
    ("PrimitiveUsage", _volatile_keeps_usage, "PrimitiveSetsUsageProp"),
    ("HostUsage", _discard_shows_p_as_v, "HostKeepsUsageProp"),
    ("ExtractName", _extract_misnames_pr, "ExtractReportsStateProp"),
    ("DiscardDirtyP", _discard_ignoring_dirty, "HostDiscardsOnlyDiscardableProp"),
    ("SSIND", _ssind_always, "SetStableIfNotDiscardedProp"),
    ("PageInDirty", _page_in_forgets_dirty, "StableContentKeptInv"),
    ("GuestResidency", _guest_pages_in, "GuestKeepsResidencyProp"),
    ("ReadResult", _discarded_reads_zero, "ReadResultInv"),
    ("PrimitiveOutcome", _volatile_answers_success, "PrimitiveOutcomeInv"),
]


@pytest.mark.parametrize(("mutate", "expected"), [t[1:] for t in TWINS], ids=[t[0] for t in TWINS])
def test_broken_rules_violate_their_property(
    mutate: Callable[[pytest.MonkeyPatch], None], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert expected in INVARIANTS or expected in ACTION_PROPERTIES
    mutate(monkeypatch)
    profile = Profile("Full", True, "AddressingException", pages=1)
    g = PAGE_STATES.state_graph(profile)
    violated = {name for s in g.states for name in violated_invariants(profile, s)}
    violated |= {
        name
        for i, s in enumerate(g.states)
        for _op, j in g.edges[i]
        for name in violated_action_properties(profile, s, g.states[j])
    }
    assert expected in violated


@pytest.mark.parametrize(
    ("op", "outcome"), [("Init", "Done"), ("SetStable", "None"), ("Write", "None")]
)
def test_primitive_outcome_inv_says_every_step_answers(op: str, outcome: str) -> None:
    """'None' is Init's observation alone (D330): Init answering, or a step not answering, breaks
    PrimitiveOutcomeInv, as the spec's third conjunct says."""
    profile = Profile("Full", True, "AddressingException", pages=1)
    ok = State((INIT_PAGE,), INIT_LAST_OP)
    assert INVARIANTS["PrimitiveOutcomeInv"](profile, ok)
    page = 0 if op != "Init" else INIT_LAST_OP.page
    bad = State((INIT_PAGE,), INIT_LAST_OP._replace(op=op, page=page, outcome=outcome))
    assert not INVARIANTS["PrimitiveOutcomeInv"](profile, bad)
