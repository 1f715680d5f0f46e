"""The reference implementation's API: named transitions of the spec, refusals, bad requests.

The exhaustive comparison with TLC (test_refimpl_equality.py) is what proves the machine equal
to the spec; these tests pin the behaviour a reader looks up, with the spec's decision they show.
"""

from __future__ import annotations

import pytest

import refimpl
from refimpl import NO_PAGE, NO_VALUE, Machine, Profile, ProfileError, Refused, State
from refimpl.pagestates import rules
from refimpl.pagestates.profile import all_profiles
from refimpl.pagestates.state import show_state


def run(profile: Profile, *steps: tuple[str, int] | tuple[str, int, int]) -> State:
    """Perform the steps from Init; every one must be enabled."""
    m = Machine(profile)
    s = m.init()
    for st in steps:
        result = m.step(s, *st)
        assert not isinstance(result, Refused), f"{st} refused in {show_state(s)}: {result.reason}"
        s = result
    return s


FULL = Profile("Full", True, "AddressingException", pages=2)
DIRECT = Profile("Full", False, "ReadsZero", pages=2)


def test_init_is_sz_everywhere_with_the_spec_variables() -> None:
    s = refimpl.init(FULL)
    assert s.usage == ("S", "S") and s.resid == ("z", "z")
    assert s.dirty == (False, False) and s.data == (0, 0) and s.intended == (0, 0)
    assert s.modified == (False, False)
    assert s.lastOp == ("Init", NO_PAGE, NO_VALUE, "None", NO_VALUE)
    assert s.names() == ("Sz", "Sz")


def test_write_then_read_returns_the_value() -> None:
    s = run(FULL, ("HostZeroFill", 1), ("Write", 1, 1))
    assert s.names() == ("Sz", "Sr") and s.dirty == (False, True) and s.intended == (0, 1)
    assert s.lastOp == ("Write", 1, 1, "Done", NO_VALUE)
    r = refimpl.step(FULL, s, "Read", 1)
    assert isinstance(r, State) and r.lastOp == ("Read", 1, NO_VALUE, "Value", 1)


def test_access_to_a_non_resident_page_waits_for_the_host() -> None:
    s = refimpl.init(FULL)
    r = refimpl.step(FULL, s, "Read", 0)
    assert isinstance(r, Refused) and "HostZeroFill" in r.reason
    s = run(FULL, ("HostZeroFill", 0), ("HostPreserve", 0))
    assert isinstance(refimpl.step(FULL, s, "Write", 0, 1), Refused)
    assert isinstance(refimpl.step(FULL, s, "HostPageIn", 0), State)


@pytest.mark.parametrize(("profile", "name"), [(FULL, "Uz"), (DIRECT, "Up")])
def test_set_unused_on_a_preserved_page_frees_it_only_with_a_host_service(
    profile: Profile, name: str
) -> None:
    s = run(profile, ("HostZeroFill", 0), ("Write", 0, 1), ("HostPreserve", 0), ("SetUnused", 0))
    assert s.names()[0] == name and s.intended[0] == NO_VALUE and not s.modified[0]


def test_discard_fault_and_set_stable_if_not_discarded() -> None:
    s = run(FULL, ("HostZeroFill", 0), ("SetVolatile", 0), ("HostDiscard", 0))
    assert s.names()[0] == "Vz"
    assert run_one(FULL, s, "Read", 0).lastOp.outcome == "DiscardFault"
    failed = run_one(FULL, s, "SetStableIfNotDiscarded", 0)
    assert failed.lastOp.outcome == "Failure" and failed.pages == s.pages
    # D5, D425: a discarded page made stable is logically zero, and the guest, which cannot tell
    # a kept page from a lost one after an unconditional SetStable, is owed nothing
    made = run_one(FULL, s, "SetStable", 0)
    assert made.names()[0] == "Sz" and made.intended[0] == NO_VALUE
    assert made.requested[0] == "S" and s.requested[0] == "V"


def run_one(profile: Profile, s: State, op: str, page: int, arg: int = NO_VALUE) -> State:
    r = refimpl.step(profile, s, op, page, arg)
    assert isinstance(r, State), r
    return r


def test_host_discard_only_discardable_pages() -> None:
    s = run(FULL, ("HostZeroFill", 0), ("SetPotentialVolatile", 0), ("Write", 0, 1))
    r = refimpl.step(FULL, s, "HostDiscard", 0)
    assert isinstance(r, Refused) and "dirty" in r.reason
    clean = run_one(FULL, s, "ClearDirty", 0)
    assert run_one(FULL, clean, "HostDiscard", 0).names()[0] == "Pz"
    assert isinstance(refimpl.step(FULL, run(FULL, ("HostZeroFill", 0)), "HostDiscard", 0), Refused)


def test_no_pp_preserves_a_dirty_p_page_as_sp_and_never_a_clean_one() -> None:
    nopp = Profile("NoPp", True, "AddressingException", pages=1)
    s = run(nopp, ("HostZeroFill", 0), ("SetPotentialVolatile", 0), ("Write", 0, 1))
    assert run_one(nopp, s, "HostPreserve", 0).names() == ("Sp",)
    clean = run_one(nopp, s, "ClearDirty", 0)
    r = refimpl.step(nopp, clean, "HostPreserve", 0)
    assert isinstance(r, Refused) and "discards it instead" in r.reason


def test_collapsed_machines_have_no_pz() -> None:
    zvm = Profile("ZVMPrototype", True, "AddressingException", pages=1)
    assert run(zvm, ("SetPotentialVolatile", 0)).names() == ("Vz",)
    assert run(FULL, ("SetPotentialVolatile", 0)).names()[0] == "Pz"


def test_no_p_offers_no_set_potential_volatile() -> None:
    nop = Profile("NoP", False, "ReadsZero", pages=1)
    r = refimpl.step(nop, refimpl.init(nop), "SetPotentialVolatile", 0)
    assert isinstance(r, Refused) and "no potentially volatile" in r.reason
    offered = {op for (op, _, _), _ in refimpl.enabled_steps(nop, refimpl.init(nop))}
    assert "SetPotentialVolatile" not in offered and "SetVolatile" in offered


def test_reads_zero_profile_hides_unused_content() -> None:
    s = run(DIRECT, ("HostZeroFill", 0), ("Write", 0, 1), ("SetUnused", 0))
    assert s.names()[0] == "Ur" and s.data[0] == 1  # the frame still holds 1 ...
    assert run_one(DIRECT, s, "Read", 0).lastOp[3:] == ("Value", 0)  # ... the guest sees 0
    assert run_one(DIRECT, s, "Write", 0, 1).lastOp.outcome == "Ignored"
    unused = run(FULL, ("SetUnused", 0))
    assert run_one(FULL, unused, "Read", 0).lastOp.outcome == "AddressingException"


def test_extract_reports_the_two_letter_state() -> None:
    s = run(FULL, ("SetVolatile", 1), ("Extract", 1))
    assert s.lastOp == ("Extract", 1, NO_VALUE, "Vz", NO_VALUE)


@pytest.mark.parametrize(
    ("op", "page", "arg", "message"),
    [
        ("Frobnicate", 0, NO_VALUE, "unknown operation"),
        ("Read", 2, NO_VALUE, "page 2 is not one of 0 .. 1"),
        ("Read", -1, NO_VALUE, "page -1 is not one of"),
        ("Write", 0, 7, "value 7 is not one of the profile's values"),
        ("Write", 0, NO_VALUE, "value -1 is not one of"),
        ("Read", 0, 1, "Read takes no argument"),
    ],
)
def test_malformed_requests_raise(op: str, page: int, arg: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        refimpl.step(FULL, refimpl.init(FULL), op, page, arg)


def test_state_of_another_size_is_rejected() -> None:
    with pytest.raises(ValueError, match="the state has 1 pages, the profile 2"):
        refimpl.step(FULL, refimpl.init(Profile(pages=1)), "Read", 0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "Partial"}, "unknown variant"),
        ({"unused_access": "Arbitrary"}, "unknown unused access"),
        ({"pages": 0}, "positive"),
        ({"values": (1, 2)}, "must contain 0"),
        ({"values": (0, 0)}, "must not repeat"),
        ({"variant": "NoVp", "host_service": False}, "requires host_service=True"),
        ({"variant": "ZVMPrototype", "host_service": False}, "requires host_service=True"),
    ],
)
def test_profiles_the_spec_assumes_away_are_rejected(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ProfileError, match=message):
        Profile(**kwargs)  # type: ignore[arg-type]


def test_every_allowed_profile_is_listed() -> None:
    assert len(all_profiles()) == 18  # Full, OneDiscardedState, NoP: 2 x 2; the rest 1 x 2


def test_a_fresh_machine_sees_a_changed_rule_table(monkeypatch: pytest.MonkeyPatch) -> None:
    s = run(FULL, ("HostZeroFill", 0), ("SetPotentialVolatile", 0), ("Write", 0, 1))
    assert isinstance(Machine(FULL).step(s, "HostDiscard", 0), Refused)
    monkeypatch.setitem(rules.DISCARDABLE, ("P", True), True)
    assert isinstance(Machine(FULL).step(s, "HostDiscard", 0), State)


def test_states_are_values() -> None:
    a = run(FULL, ("HostZeroFill", 0), ("Write", 0, 1))
    b = run(FULL, ("HostZeroFill", 0), ("Write", 0, 1))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.pages = ()  # type: ignore[misc]
