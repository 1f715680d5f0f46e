"""conformance/PROTOCOL.md's messages are what the driver sends and accepts (D160).

The step sessions of both modes and the ESSA tables are checked by tests/test_conformance_protocol.py
and tests/test_conformance_essa.py. Here the other examples: the hellos, reset, step requests and
error replies, through the real JSON-lines transport and an engine that records what it receives
and answers with the document's replies; the in-process example, run; and both trace logs,
validated with the oracle and TLC by `conformance validate`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.essa import EssaJsonLinesEngine, EssaProfileRequest
from conformance.jsonlines import JsonLinesEngine
from conformance.protocol import OPERATIONS, EngineFault, ProfileRequest, Reply, Unsupported
from conformance.pagestates import PAGESTATES_DRIVER, Ask
from refimpl.core.package import REPO_ROOT

PROTOCOL = REPO_ROOT / "conformance" / "PROTOCOL.md"


def blocks(language: str) -> list[str]:
    """The text of every fenced block of PROTOCOL.md in the given language, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```\n", PROTOCOL.read_text(encoding="utf-8"), re.S | re.M)


def messages(first: str) -> list[dict[str, Any]]:
    """The JSON messages of the one json block whose text starts with ``first``, a message to a
    line or one spread over several lines."""
    found = [b for b in blocks("json") if b.startswith(first)]
    assert len(found) == 1, f"{len(found)} json blocks of PROTOCOL.md start with {first!r}"
    text = found[0]
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


#: An engine that appends each request line to a log and answers each kind of request with the
#: reply given on its command line (the reply's id set to the request's).
RECORDER = """
import json, sys
log, replies = sys.argv[1], json.loads(sys.argv[2])
for line in sys.stdin:
    with open(log, "a") as f:
        f.write(line)
    request = json.loads(line)
    reply = dict(replies[request["type"]], id=request["id"])
    print(json.dumps(reply), flush=True)
"""


def recorder(tmp_path: Path, replies: dict[str, dict[str, Any]]) -> tuple[list[str], Path]:
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER)
    log = tmp_path / "requests.jsonl"
    return [sys.executable, str(script), str(log), json.dumps(replies)], log


def sent(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_the_hello_reset_and_step_examples(tmp_path: Path) -> None:
    hellos = messages('{"type": "hello", "id": 0, "version": 1}')
    reply = messages('{"id": 0, "version": 1, "engine": "my-engine 2.1"')[0]
    step_reply = {"state": "Sr", "dirty": True, "outcome": "Done"}
    command, log = recorder(tmp_path, {"hello": reply, "reset": {}, "step": step_reply})
    engine = JsonLinesEngine(command)
    # The first hello asks for nothing: the engine's announced profile is taken as it is.
    assert engine.hello(ProfileRequest()).profile == ProfileRequest("NoPp", True, "ReadsZero", 2)
    # The second asks for what the reply announces; each hello restarts the engine (ids from 0).
    info = engine.hello(ProfileRequest("NoPp", True, "ReadsZero", 2))
    assert info.profile == ProfileRequest("NoPp", True, "ReadsZero", 2)
    assert info.ops == tuple(op for op in OPERATIONS if op != "ClearDirty")
    engine.reset()
    for request in messages('{"type": "step", "id": 7'):
        engine.step(request["op"], request["page"], request.get("arg", -1))
    engine.close()
    got = sent(log)
    assert got[0] == hellos[0] and got[1] == hellos[1]
    assert got[2] == messages('{"type": "reset"')[0]
    steps = messages('{"type": "step", "id": 7')
    assert [{k: v for k, v in m.items() if k != "id"} for m in got[3:]] == \
        [{k: v for k, v in m.items() if k != "id"} for m in steps]  # fmt: skip


def test_the_error_examples(tmp_path: Path) -> None:
    unsupported = messages('{"id": 0, "error": "Unsupported"')[0]
    command, _ = recorder(tmp_path, {"hello": unsupported})
    with pytest.raises(Unsupported, match="this engine implements the z/VM prototype only"):
        JsonLinesEngine(command).hello(ProfileRequest("Full"))
    hello_reply = messages('{"id": 0, "version": 1, "engine": "my-engine 2.1"')[0]
    bad_request = messages('{"id": 9, "error": "BadRequest"')[0]
    (tmp_path / "second").mkdir()
    command, _ = recorder(tmp_path / "second", {"hello": hello_reply, "step": bad_request})
    engine = JsonLinesEngine(command)
    engine.hello(ProfileRequest())
    try:
        with pytest.raises(EngineFault, match="BadRequest: unknown operation") as fault:
            engine.step("Read", 0, -1)
        assert fault.value.kind == "error reply"
    finally:
        engine.close()


def test_the_essa_hello_examples(tmp_path: Path) -> None:
    request = messages('{"type": "hello", "id": 0, "version": 1, "machine": "ESSA"')[0]
    reply = messages('{"id": 0, "version": 1, "machine": "ESSA", "engine": "my KVM harness"')[0]
    command, log = recorder(tmp_path, {"hello": reply})
    engine = EssaJsonLinesEngine(command)
    try:
        info = engine.hello(EssaProfileRequest.from_json(request["profile"]))
    finally:
        engine.close()
    assert sent(log) == [request]
    assert info.name == "my KVM harness"
    assert info.profile == EssaProfileRequest.from_json(reply["profile"])


def test_the_in_process_example_is_an_engine_the_driver_accepts() -> None:
    """The in-process transport's example (an engine that answers Done, Sr to everything) is
    defined, greeted by the driver with its profile, and answers a step with a Reply."""
    [code] = blocks("python")
    namespace: dict[str, Any] = {}
    exec(compile(code, "PROTOCOL.md", "exec"), namespace)
    name, connected = PAGESTATES_DRIVER.connect(namespace["MyEngine"](), Ask(ProfileRequest()))
    assert connected.profile.variant == "Full" and connected.profile.pages == 2
    assert namespace["MyEngine"]().step("Read", 0, -1) == Reply("Sr", False, "Done")


@pytest.mark.parametrize("machine", ["PageStates", "ESSA"])
def test_the_trace_log_examples_validate(machine: str, tmp_path: Path) -> None:
    """Both trace logs are behaviours of the spec, by the oracle and by TLC."""
    first = '{"version": 1, "profile"' if machine == "PageStates" else '{"version": 1, "machine": "ESSA"'
    [text] = [b for b in blocks("json") if b.startswith(first)]
    log = tmp_path / "trace.jsonl"
    log.write_text(text)
    done = subprocess.run([sys.executable, "-m", "conformance", "validate", "--machine", machine, str(log)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "TLC: the trace is a behaviour of" in done.stdout


def test_the_essa_request_examples_are_what_the_driver_sends() -> None:
    """Each ESSA-mode request of the "Requests" example is read as the request it shows, and
    written back exactly as the document has it (the transport sends ``to_json``)."""
    from conformance.essa import essa_request

    lines = messages('{"type": "step", "id": 4, "op": "ESSA", "page": 0, "orc": 3}\n{"type": "step", "id": 5')
    assert len(lines) == 12
    for line in lines:
        assert essa_request(line, 1).to_json(line["id"]) == line
