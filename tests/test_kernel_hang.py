"""kernel-check's per-request timeout: a harness whose kernel code never answers (a lock never
released, a loop that never ends) is stopped, with the harness's whole process group, and the
step is reported as a hang naming the request and the kernel function it spins in
(conformance/engines/linux/engine.py, harness_trace.h's shared record); Ctrl-C stops the
harnesses. The shared record also says which kernel functions the requests entered."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance.engines.linux.engine import KernelEssaEngine
from conformance.engines.linux.extract import FUNCTION
from conformance.engines.linux.kernels import HARNESSES, Built
from conformance.essa import EssaProfileRequest, EssaRequest
from conformance.protocol import EngineFault
from test_kernel_gate import ONE, _planted, needs_kernel

#: A stand-in for the harness: it answers the hello, then never answers the first request (as
#: the kernel's code would after a pgste lock it never released), and has started a child that
#: must go with it.
HANGS = r"""
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(child.pid, file=sys.stderr, flush=True)
for line in sys.stdin:
    if line.startswith("hello"):
        print("ok", flush=True)
    else:
        while True:
            time.sleep(1)
"""


def test_a_request_that_never_returns_is_a_hang(tmp_path: Path) -> None:
    script = tmp_path / "hangs.py"
    script.write_text(HANGS)
    engine = KernelEssaEngine("classic", memo=False)
    engine.built = Built(script, (sys.executable, str(script)), "6.12 (test)", tmp_path)
    engine._dog.timeout = 1.0
    engine.hello(EssaProfileRequest(impl="KVMClassic", pages=1))
    t0 = time.monotonic()
    with pytest.raises(EngineFault) as caught:
        engine.step(EssaRequest("ESSA", 0, 1))
    assert caught.value.kind == "hang"
    assert "did not answer" in caught.value.message and "essa" in caught.value.message.lower()
    assert time.monotonic() - t0 < 30
    engine.close()  # the stopped harness is reaped, not waited for


#: A stand-in started by a driver process that Ctrl-C interrupts while it waits for an answer.
WAITS = r"""
import sys
from pathlib import Path
from conformance.engines.linux.engine import KernelEssaEngine
from conformance.engines.linux.kernels import Built
from conformance.essa import EssaProfileRequest, EssaRequest
script = Path(sys.argv[1])
engine = KernelEssaEngine("classic", memo=False)
engine.built = Built(script, (sys.executable, str(script)), "6.12 (test)", script.parent)
engine.hello(EssaProfileRequest(impl="KVMClassic", pages=1))
print(engine._proc.pid, flush=True)
try:
    engine.step(EssaRequest("ESSA", 0, 1))
finally:
    engine.close()
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie has ended
        return f.read().split(")")[-1].split()[0] != "Z"


def test_ctrl_c_stops_the_harness_and_what_it_started(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the terminal's process group) while the harness spins: the driver ends
    at once, and the harness, in a session of its own, goes with it, children included."""
    script = tmp_path / "hangs.py"
    script.write_text(HANGS)
    driver = tmp_path / "driver.py"
    driver.write_text(WAITS)
    p = subprocess.Popen([sys.executable, str(driver), str(script)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         cwd=Path(__file__).resolve().parents[1])  # fmt: skip
    assert p.stdout is not None and p.stderr is not None
    harness = int(p.stdout.readline())
    child = int(p.stderr.readline())
    time.sleep(1.0)  # the request is sent; the harness never answers
    t0 = time.monotonic()
    os.killpg(p.pid, signal.SIGINT)
    p.wait(timeout=30)
    assert time.monotonic() - t0 < 10
    assert "KeyboardInterrupt" in p.stderr.read()
    deadline = time.monotonic() + 10
    while (_alive(harness) or _alive(child)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(harness) and not _alive(child)


# ------------------------------------------------------------------ a real lock leak

#: Linux 6.12's ESSA_GET_STATE case, and a regression that returns without pgste_set_unlock:
#: the next pgste_get_lock of the page spins for ever.
GET_STATE = "\tcase ESSA_GET_STATE:\n\t\tbreak;"
LEAKS_THE_LOCK = "\tcase ESSA_GET_STATE:\n\t\tpte_unmap_unlock(ptep, ptl);\n\t\treturn res;"


@needs_kernel
def test_a_lock_leak_is_a_hang_in_the_kernel_function_that_spins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    from conformance.engines.linux import check, engine

    broken = _planted(tmp_path, "linux", GET_STATE, LEAKS_THE_LOCK)
    monkeypatch.setattr(engine, "REQUEST_TIMEOUT", 3.0)
    t0 = time.monotonic()
    status = check.main(["--kernel-src", str(broken), "--only", ONE, "--jobs", "1",
                         "--out", str(tmp_path / "out")], io.StringIO())  # fmt: skip
    err = capsys.readouterr().err
    assert status == 3, err
    assert "ENGINE FAULT (hang)" in err and "did not answer" in err
    # the request, and the kernel function it spins in with its callers
    assert re.search(r"in the kernel function pgste_get_lock \(called by \w+", err), err
    assert time.monotonic() - t0 < 120


@needs_kernel
def test_the_harness_says_which_kernel_functions_a_request_entered() -> None:
    e = KernelEssaEngine("classic", memo=False)
    e.hello(EssaProfileRequest(impl="KVMClassic", pages=2))
    e.step(EssaRequest("ESSA", 0, 1))
    e.close()
    taken = {w.name for w in HARNESSES["classic"].wants if w.kind == FUNCTION}
    assert set(e.functions) == taken
    assert {"handle_essa", "__do_essa", "pgste_perform_essa"} <= e.entered
    assert "kvm_s390_peek_cmma" not in e.entered and "kvm_s390_peek_cmma" in e.functions
