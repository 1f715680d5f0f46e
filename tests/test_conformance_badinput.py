"""Bad input: an engine that misbehaves on the wire gets a report naming the step and the problem
(with a timeout for a hang), and the trace so far is saved; a malformed trace file for
`validate` gets an error with its line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conformance.cli import EXIT_FAULT, EXIT_USAGE, main
from conformance.driver import Drive, Fault, report, run_hypothesis, run_programs
from conformance.pagestates.engine import ReferenceEngine
from conformance.jsonlines import JsonLinesEngine
from conformance.pagestates import PAGESTATES_DRIVER, Ask
from conformance.protocol import EngineFault, ProfileRequest, Reply
from conformance.pagestates.trace import TraceFormatError, read_trace

BAD_ENGINE = Path(__file__).resolve().parent / "fixtures" / "conformance" / "bad_engine.py"


def _bad(mode: str, at: int = 3, timeout: float = 5.0) -> JsonLinesEngine:
    return JsonLinesEngine([sys.executable, str(BAD_ENGINE), mode, str(at)], timeout=timeout)


@pytest.mark.parametrize(
    ("mode", "kind", "words"),
    [
        ("malformed", "malformed", "is not JSON"),
        ("wrongtype", "protocol", '"dirty" must be true or false, not "yes"'),
        ("unknownstate", "protocol", 'unknown state "Xr"'),
        ("extra", "extra output", "more than one line for one request"),
        ("wrongid", "extra output", "answers request"),
        ("crash", "crash", "exit status 3; its last words on stderr: bad engine: segmentation fault"),
        ("nonewline", "crash", "without a newline"),
        ("errorreply", "error reply", "Internal: page table corrupted"),
        ("hang", "hang", "no reply within 3 s; the engine was stopped"),
    ],
)
def test_a_misbehaving_engine_is_reported_at_the_step(mode: str, kind: str, words: str) -> None:
    # 3 s: the timeout also covers the hello, and a Python engine can take a second to start on
    # a loaded machine (0.3 s failed there).
    engine = _bad(mode, timeout=3.0 if mode == "hang" else 5.0)
    try:
        _, profile = PAGESTATES_DRIVER.connect(engine, Ask(ProfileRequest()))
        drive = Drive(PAGESTATES_DRIVER, engine, profile)
        outcome = run_programs(drive, PAGESTATES_DRIVER.tours(profile))
    finally:
        engine.close()
    assert outcome.status == "fault"
    err = outcome.error
    assert isinstance(err, Fault)
    assert err.fault.kind == kind
    assert words in err.fault.message
    # The tour resets before each program: the third step overall is the first of the third.
    assert err.where == "step 1 (SetVolatile 0)"
    # Extra output comes after a reply the engine did give: that reply is shown, not "(no
    # reply)"; every other fault leaves the step without one.
    assert (err.steps[-1].observed is not None) == (mode == "extra")
    if mode == "extra":
        assert err.steps[-1].differs == []
        assert "(no reply)" not in report(PAGESTATES_DRIVER, err, engine="bad")


def test_a_hello_in_another_version_is_refused_plainly() -> None:
    engine = _bad("badversion")
    try:
        with pytest.raises(EngineFault, match="protocol version 2; this driver speaks 1"):
            PAGESTATES_DRIVER.connect(engine, Ask(ProfileRequest()))
    finally:
        engine.close()


def test_a_command_that_does_not_exist_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Found before any engine starts: the command line's mistake (2), not an engine fault (3)."""
    code = main(["run", "--engine", str(tmp_path / "no-such-engine"), "--no-database"])
    captured = capsys.readouterr()
    assert code == EXIT_USAGE and captured.out == ""
    assert captured.err == f"error: --engine: {tmp_path / 'no-such-engine'} does not exist: build the engine or give its path\n"


def test_the_cli_saves_the_trace_so_far(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    command = f"{sys.executable} {BAD_ENGINE} crash 4"
    code = main(["run", "--engine", command, "--out", str(tmp_path), "--no-database", "--quiet",
                 "--no-tour", "--seed", "0"])
    out = capsys.readouterr().out
    assert code == EXIT_FAULT
    assert "ENGINE FAULT (crash) at step 4" in out and "the trace so far" in out
    assert "profile Full-hs-AddressingException" in out
    saved = next(tmp_path.glob("*/*/trace.jsonl"))  # <engine key>/<profile>/
    lines = saved.read_text().splitlines()
    header = json.loads(lines[0])
    assert "fault" in header["meta"] and "crash" in header["meta"]["fault"]
    # The three steps before the crash, each with the engine's reply.
    assert [json.loads(ln)["outcome"] for ln in lines[1:]] and len(lines) - 1 == 3
    assert (saved.parent / "trace.itf.json").is_file() and (saved.parent / "ConformanceTrace.tla").is_file()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("", "empty"),
        ('{"version": 1}\n', ":1:"),
        ('{"version": 1, "profile": {"Variant": "Full", "HostService": true, "UnusedAccess": "AddressingException", "Pages": 2}}\n'
         '{"op": "HostZeroFill", "page": 0, "outcome": "Done", "state": "Sr", "dirty": false}\n'
         '{"op": "Write", "page": 0, "arg": 1, "outcome": "Done", "state": "Sr", "dirty": tru}\n', ":3: not JSON"),
        ('{"version": 1, "profile": {"Variant": "Full", "HostService": true, "UnusedAccess": "AddressingException", "Pages": 2}}\n'
         '\n{"op": "Fly", "page": 0, "outcome": "Done", "state": "Sr", "dirty": false}\n', ':3: "op" must be one of'),
        ('{"version": 1, "profile": {"Variant": "Full", "HostService": true, "UnusedAccess": "AddressingException", "Pages": 2}}\n'
         '{"op": "Read", "page": 7, "outcome": "Done", "state": "Sr", "dirty": false}\n', ':2: "page" must be a page number 0 .. 1'),
        ('{"version": 1, "profile": {"Variant": "Full"}}\n', "did not announce HostService"),
        ('{"states": [{}, {"usage": {"#map": []}}]}', "state 1: no resid, dirty, lastOp"),
    ],
)
def test_a_malformed_trace_file_is_an_error_with_its_line(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(text)
    with pytest.raises(TraceFormatError) as info:
        fallback = ProfileRequest("Full", True, "AddressingException", 2) if "states" in text else ProfileRequest()
        read_trace(path, fallback)
    assert where in str(info.value)


def test_validate_reports_a_malformed_file_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text('{"version": 1, "profile": {}}\nnot json\n')
    assert main(["validate", str(path), "--variant", "Full", "--host-service",
                 "--unused-access", "ReadsZero", "--pages", "1"]) == EXIT_USAGE
    assert f"{path}:2: not JSON" in capsys.readouterr().err


def test_validate_of_a_binary_file_is_one_sentence(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(bytes(range(256)))
    for machine in ("PageStates", "ESSA"):
        assert main(["validate", str(path), "--machine", machine, "--no-tlc"]) == EXIT_USAGE
        err = capsys.readouterr().err
        assert err.startswith(f"error: {path}: not a trace file: byte ") and "UTF-8" in err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1


class _Nondeterministic(ReferenceEngine):
    """Answers one Extract in 40 wrongly, counting across resets: a replay differs."""

    calls = 0

    def step(self, op: str, page: int, arg: int) -> Reply:
        reply = super().step(op, page, arg)
        if op == "Extract":
            type(self).calls += 1
            if type(self).calls % 40 == 0:
                return reply._replace(outcome="Ur" if reply.outcome != "Ur" else "Sr")
        return reply


def test_a_nondeterministic_engine_is_called_so() -> None:
    engine = _Nondeterministic()
    _, profile = PAGESTATES_DRIVER.connect(engine, Ask(ProfileRequest()))
    outcome = run_hypothesis(Drive(PAGESTATES_DRIVER, engine, profile), seed=0)
    # The shrinker replays the failing program, which does not diverge again: said plainly.
    assert outcome.status == "diverged"
    assert "not deterministic" in outcome.note
