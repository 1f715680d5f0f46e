"""make kernel-check's parts that need no toolchain: the random drive (against the reference
engines) and the parsing of the harness's reply lines."""

from __future__ import annotations

import pytest

from conformance.engines.linux.check import drive
from conformance.engines.linux.engine import parse_reply
from conformance.essa import EssaProfileRequest, HostPage, KVMClassicEngine, LyingR1Engine
from conformance.protocol import EngineFault
from refimpl.essa import EssaProfile

PROFILE = EssaProfile("KVMClassic", storage_keys=True, facility147=True, cbrl_size=1, pages=2)


def test_the_drive_finds_nothing_in_the_reference_itself() -> None:
    engine = KVMClassicEngine()
    engine.hello(EssaProfileRequest.of(PROFILE))
    steps, found = drive(engine, PROFILE, 600, seed=1)
    assert steps >= 600 and found == []


def test_the_drive_finds_a_lying_r1_byte_with_a_short_report() -> None:
    engine = LyingR1Engine()
    engine.hello(EssaProfileRequest.of(PROFILE))
    _, found = drive(engine, PROFILE, 600, seed=1)
    assert found, "an engine reporting R1 after the operation must diverge"
    first = found[0]
    assert first.program[-1].op == "ESSA" and first.expected.result != first.observed.result
    assert first.report().startswith(first.program[0].describe())


def test_parse_reply() -> None:
    r = parse_reply("Done 15 -1 V011010 S100001\n", 2, "ESSA")
    assert (r.outcome, r.result, r.value) == ("Done", 15, -1)
    assert r.pages == (HostPage("V", False, True, True, False, dirty=False, gc=True),
                       HostPage("S", True, False, False, False, dirty=True, gc=False))
    refused = parse_reply("Refused -1 -1 S00000-", 1, "HostReclaim")
    assert refused.reason == "the page is not resident" and refused.pages[0].dirty is None
    for bad in ("error cannot do: x", "Done 0 -1 S00000", "Done 0 -1 X000000", "Done 0 -1",
                "Done 0 -1 S00000x"):
        with pytest.raises(EngineFault):
            parse_reply(bad, 1)
