"""The conformance protocol's vocabulary: replies and hellos are checked field by field, and the
examples of conformance/PROTOCOL.md are what the reference implementation and the C engine say."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conformance.c_engine import ensure_built
from conformance.pagestates.engine import ReferenceEngine
from conformance.jsonlines import JsonLinesEngine
from conformance.protocol import (
    OPERATIONS, ProfileRequest, ProtocolError, Reply, check_hello, check_reply, check_ops,
    variant_has_state,
)  # fmt: skip
from conformance.driver import Drive
from conformance.pagestates import PAGESTATES_DRIVER, Ask, PageReply, Step

PROTOCOL = Path(__file__).resolve().parents[1] / "conformance" / "PROTOCOL.md"


def test_a_well_formed_reply_is_read_with_the_spec_defaults() -> None:
    assert check_reply("Read", {"id": 1, "state": "Sr", "dirty": True, "outcome": "Value", "value": 1}) == Reply("Sr", True, "Value", 1)
    assert check_reply("Write", {"state": "Sr", "dirty": True, "outcome": "Done"}).value == -1
    assert check_reply("Extract", {"state": "Vz", "dirty": False, "outcome": "Vz"}).outcome == "Vz"
    assert check_reply("Read", {"state": "Sz", "dirty": False, "outcome": "Refused", "reason": "waits"}).reason == "waits"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ({"dirty": True, "outcome": "Done"}, 'no "state"'),
        ({"state": "Xr", "dirty": True, "outcome": "Done"}, 'unknown state "Xr"'),
        ({"state": 5, "dirty": True, "outcome": "Done"}, "two-letter state"),
        ({"state": "Sr", "dirty": "yes", "outcome": "Done"}, '"dirty" must be true or false, not "yes"'),
        ({"state": "Sr", "dirty": 1, "outcome": "Done"}, '"dirty" must be true or false'),
        ({"state": "Sr", "dirty": True, "outcome": "Fine"}, 'unknown outcome "Fine"'),
        ({"state": "Sr", "dirty": True, "outcome": "Value"}, 'outcome "Value" needs "value"'),
        ({"state": "Sr", "dirty": True, "outcome": "Value", "value": -3}, "non-negative"),
        ({"state": "Sr", "dirty": True, "outcome": "Value", "value": True}, "non-negative integer"),
        ({"state": "Sr", "dirty": True, "outcome": "Done", "value": 4}, '"value" is only for outcome "Value"'),
        ({"state": "Sr", "dirty": True, "outcome": "Done", "dirt": True}, "unknown field(s) dirt"),
        ([1, 2], "must be an object"),
    ],
)
def test_a_malformed_reply_is_rejected_saying_what_is_wrong(reply: object, message: str) -> None:
    with pytest.raises(ProtocolError, match=re.escape(message)):
        check_reply("Read", reply)


def test_extract_answers_with_a_state_name() -> None:
    with pytest.raises(ProtocolError, match='unknown state "Done" in "outcome"'):
        check_reply("Extract", {"state": "Sr", "dirty": False, "outcome": "Done"})


def test_hello_needs_version_1_and_known_names() -> None:
    info = check_hello({"id": 0, "version": 1, "engine": "x", "profile": {"Variant": "NoP", "Pages": 3}})
    assert info.profile == ProfileRequest("NoP", None, None, 3) and info.ops == OPERATIONS
    for bad, message in [
        ({"version": 2}, "protocol version 2"),
        ({"version": 1, "profile": {"Variant": "Half"}}, "unknown Variant"),
        ({"version": 1, "profile": {"Pages": 0}}, "positive integer"),
        ({"version": 1, "profile": {"Colour": "red"}}, "unknown field(s) Colour"),
        ({"version": 1, "profile": {"HostService": "yes"}}, "true or false"),
    ]:
        with pytest.raises(ProtocolError, match=re.escape(message)):
            check_hello(bad)


def test_only_clear_dirty_may_be_left_out() -> None:
    without = [op for op in OPERATIONS if op != "ClearDirty"]
    assert check_ops(without) == tuple(without)
    with pytest.raises(ProtocolError, match="leaves out HostDiscard"):
        check_ops([op for op in OPERATIONS if op != "HostDiscard"])
    with pytest.raises(ProtocolError, match="unknown operation"):
        check_ops([*OPERATIONS, "Balloon"])


def test_a_profile_request_merges_and_names_its_conflicts() -> None:
    asked = ProfileRequest("Full", None, "ReadsZero", None)
    announced = ProfileRequest("NoP", True, "ReadsZero", 2)
    assert asked.conflicts(announced) == ['Variant: "Full", not "NoP"']
    assert asked.merged(announced) == ProfileRequest("Full", True, "ReadsZero", 2)


def test_variant_states_are_the_specs() -> None:
    assert not variant_has_state("ZVMPrototype", "Up") and not variant_has_state("OneDiscardedState", "Pz")
    assert not variant_has_state("NoP", "Pr") and variant_has_state("Full", "Pp")


def _protocol_example() -> list[tuple[dict[str, object], dict[str, object]]]:
    """The request/reply pairs of PROTOCOL.md's step example."""
    # The compact lines of the example session (the other examples are spaced out).
    lines = [
        ln for ln in PROTOCOL.read_text().splitlines()
        if ln.startswith('{"type":"step"') or re.match(r'\{"id":\d', ln)
    ]  # fmt: skip
    pairs = [(json.loads(a), json.loads(b)) for a, b in zip(lines[::2], lines[1::2])]
    assert len(pairs) >= 15
    return pairs


@pytest.mark.parametrize("engine", ["reference", "C"])
def test_the_protocol_examples_are_what_the_engines_answer(engine: str) -> None:
    e = ReferenceEngine() if engine == "reference" else JsonLinesEngine(str(ensure_built()))
    _, profile = PAGESTATES_DRIVER.connect(e, Ask(ProfileRequest("Full", True, "AddressingException", 2)))
    drive: Drive[object, object, Step, PageReply] = Drive(PAGESTATES_DRIVER, e, profile)
    drive.reset()
    try:
        for request, expected in _protocol_example():
            arg = request.get("arg", -1)
            assert isinstance(arg, int)
            reply = drive.step(Step(str(request["op"]), int(request["page"]), arg))  # type: ignore[call-overload]
            want = PageReply.of(check_reply(str(request["op"]), expected))
            assert reply._replace(reason="") == want._replace(reason=""), request
    finally:
        e.close()
