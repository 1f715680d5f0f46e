"""conformance/engines/essa-rs: the ESSA engine in Rust written from PROTOCOL.md alone. It passes
run and is identified by classify for each Impl (one constant set here; bench/heldout_bench.py and
its README run every one), and its held-out bug switch refuses a name it does not know."""

from __future__ import annotations

import io
import os
import subprocess

import pytest

from conformance.cli import main


ONE_SET = ["--no-storage-keys", "--no-facility147", "--cbrl-size", "1"]


@pytest.mark.parametrize("impl", ["Paper2007", "KVMClassic", "KVMGmap"])
def test_the_rust_engine_conforms_and_is_identified(impl: str, rs_engine: str) -> None:
    cmd = f"{rs_engine} --impl {impl}"
    out = io.StringIO()
    assert main(["run", "--machine", "ESSA", "--engine", cmd, "--quiet", "--no-tlc", *ONE_SET],
                out) == 0, out.getvalue()  # fmt: skip
    out = io.StringIO()
    assert main(["classify", "--engine", cmd, *ONE_SET, "--pages", "1"], out) == 0, out.getvalue()
    assert f"identified as {impl}" in out.getvalue()


def test_an_unknown_bug_name_stops_the_engine(rs_engine: str) -> None:
    p = subprocess.run([rs_engine], input="", capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, ESSA_RS_BUG="no-such-bug"))  # fmt: skip
    assert p.returncode == 2 and "no-such-bug" in p.stderr
