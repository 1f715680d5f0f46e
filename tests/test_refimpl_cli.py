"""``python -m refimpl run``: operation files in, a table of steps out, clear errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from refimpl.cli import main
from refimpl.pagestates.program import ProgramError, Request, parse_program

REPO = Path(__file__).resolve().parents[1]

PROGRAM = """\
# page 0 becomes volatile and is discarded; page 1 is written and read
SetVolatile 0
Write 1 5          # waits: page 1 is Sz, so the step is refused
HostZeroFill 1
Write 1 5
Read 1
HostDiscard 0      # already Vz: nothing to discard, refused
Read 0
HostPreserve 1
SetUnused 1
Read 1
"""


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(args, out)
    captured = capsys.readouterr()
    return code, out.getvalue(), captured.err


def rows(table: str) -> list[list[str]]:
    """The table's rows split on runs of two or more spaces."""
    import re

    return [re.split(r"\s{2,}", line.strip()) for line in table.splitlines()[2:] if line.strip()]


def test_run_text_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "ops.txt"
    f.write_text(PROGRAM)
    code, out, err = run_cli(["run", str(f)], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Full, host service, AddressingException, 2 pages, values {0, 5}"
    assert lines[1].split() == ["step", "operation", "outcome", "page", "0", "page", "1"]
    table = rows(out.split("\n\nrefused")[0])
    assert table[0] == ["0", "Init", "-", "Sz", "Sz"]
    assert table[1] == ["1", "SetVolatile 0", "Done", "Vz", "Sz"]
    assert table[2] == ["2", "Write 1 5", "refused (1)", "Vz", "Sz"]
    assert table[4] == ["4", "Write 1 5", "Done", "Vz", "Sr dirty"]
    assert table[5] == ["5", "Read 1", "Value 5", "Vz", "Sr dirty"]
    assert table[6] == ["6", "HostDiscard 0", "refused (2)", "Vz", "Sr dirty"]
    assert table[7] == ["7", "Read 0", "DiscardFault", "Vz", "Sr dirty"]
    assert table[8] == ["8", "HostPreserve 1", "Done", "Vz", "Sp dirty"]
    assert table[9] == ["9", "SetUnused 1", "Done", "Vz", "Uz"]
    assert table[10] == ["10", "Read 1", "AddressingException", "Vz", "Uz"]
    assert "(1) step 2 (Write 1 5, line 3): page is Sz: the access waits" in out
    assert "(2) step 6 (HostDiscard 0, line 7): page is Vz: nothing to discard" in out


def test_run_json_from_stdin_with_profile_options(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ops = [
        {"op": "HostZeroFill", "page": 0},
        {"op": "Write", "page": 0, "arg": 3},
        {"op": "SetUnused", "page": 0},
        {"op": "Read", "page": 0},
        {"op": "SetPotentialVolatile", "page": 0},
        {"op": "Extract", "page": 0},
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(ops)))
    code, out, _ = run_cli(
        ["run", "--variant", "NoP", "--direct", "--unused-access", "ReadsZero", "--pages", "2",
         "-"],  # fmt: skip
        capsys,
    )
    assert code == 0
    table = rows(out.split("\n\nrefused")[0])
    assert out.startswith("NoP, direct, ReadsZero, 2 pages, values {0, 3}")
    # The change bit stays: the guest changed only the usage.
    assert table[3] == ["3", "SetUnused 0", "Done", "Ur dirty", "Sz"]
    assert table[4] == ["4", "Read 0", "Value 0", "Ur dirty", "Sz"]  # ReadsZero: not the 3
    assert table[5][2] == "refused (1)"  # no P in NoP
    assert table[6] == ["6", "Extract 0", "Ur", "Ur dirty", "Sz"]
    assert "no potentially volatile (P) usage" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SetStable 0\nFrobnicate 1\n", "x.ops:2: unknown operation 'Frobnicate'"),
        ("\n\nRead\n", "x.ops:3: Read needs a page"),
        ("Write 0\n", "x.ops:1: Write needs a value"),
        ("Read 0 1\n", "x.ops:1: Read takes a page and no value"),
        ("Read zero\n", "x.ops:1: Read: the page must be a number"),
        ("Write 0 -3\n", "x.ops:1: Write: the value must be a number"),
        ("Write 0 1 2\n", "x.ops:1: too many words"),
        ('[{"op": "Read", "page": 0},\n {"op": "Read"}]', "x.ops:2: item 1: no page"),
        ('[{"op": "Read", "page": 0},\n\n {"op": "Read", "page": 0, "value": 1}]',
         "x.ops:3: item 1: unknown keys ['value']"),
        ('[{"op": "Read", "page": 0}\n {"op": "Read"}]', "x.ops:2: not valid JSON"),
        ('{"op": "Read"}', "x.ops:1: unknown operation"),
        ('[1]', "x.ops:1: item 0: expected an object"),
    ],
)
def test_bad_input_names_the_line(text: str, message: str) -> None:
    with pytest.raises(ProgramError) as exc:
        parse_program(text, "x.ops")
    assert message in str(exc.value)


def test_bad_input_exits_2_with_the_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "bad.ops"
    f.write_text("SetStable 0\nRead 4\n")
    code, out, err = run_cli(["run", "--pages", "2", str(f)], capsys)
    assert code == 2 and out == ""
    assert err == f"error: {f}:2: Read 4: page 4 is not one of 0 .. 1 (--pages 2)\n"
    code, _, err = run_cli(["run", str(tmp_path / "missing.ops")], capsys)
    assert code == 2 and "cannot read" in err and "missing.ops" in err
    code, _, err = run_cli(["run", "--variant", "ZVMPrototype", "--direct", str(f)], capsys)
    assert code == 2 and "requires host_service=True" in err


def test_parse_program_text_and_json_agree() -> None:
    text = parse_program("SetVolatile 0\nWrite 1 5 # c\n")
    js = parse_program('[{"op": "SetVolatile", "page": 0}, {"op": "Write", "page": 1, "arg": 5}]')
    assert [r[:3] for r in text] == [r[:3] for r in js] == [("SetVolatile", 0, -1), ("Write", 1, 5)]
    assert text[1] == Request("Write", 1, 5, 2)


def test_module_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "refimpl", "run", "-"], input="Extract 0\n", capture_output=True,
        text=True, cwd=REPO, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Extract 0" in proc.stdout and "Sz" in proc.stdout


def test_equal_rejects_bad_options_before_running_tlc(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["equal", "--override", "Discardable"], capsys)
    assert code == 2 and "--override Discardable: expected OPERATOR=TWIN" in err
    code, _, err = run_cli(["equal", "--variant", "NoVp", "--direct"], capsys)
    assert code == 2 and "allow no profile" in err


@pytest.mark.parametrize(
    "data,message",
    [(b"\x89PNG\r\n\x1a\n\xff\xfe", "is not UTF-8 text (byte 0x89 at offset 0)"),
     (b"Extract 0\n\x00\x00", "NUL bytes")],
    ids=["undecodable", "nul"],
)
@pytest.mark.parametrize("via", ["file", "stdin"])
def test_binary_input_is_a_clear_error(data: bytes, message: str, via: str, tmp_path: Path) -> None:
    path = tmp_path / "ops.bin"
    path.write_bytes(data)
    proc = subprocess.run(
        [sys.executable, "-m", "refimpl", "run", str(path) if via == "file" else "-"],
        input=data if via == "stdin" else None, capture_output=True, cwd=REPO, check=False,
    )  # fmt: skip
    err = proc.stderr.decode()
    assert proc.returncode == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "override,message",
    [("Discardable=NoSuchTwin", "MCGraph.tla defines no NoSuchTwin (its twins: "
      "DiscardableIgnoringDirty, SSINDAlwaysSucceeds)"),
     ("NoSuchOperator=DiscardableIgnoringDirty", "PageStates.tla defines no operator NoSuchOperator")],
)  # fmt: skip
def test_bad_override_is_a_usage_error_not_a_difference(
    override: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["equal", "--pages", "1", "--override", override], capsys)
    assert (code, out) == (2, "")  # refused before TLC runs: no table
    assert f"--override {override}: {message}" in err
