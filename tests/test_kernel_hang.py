"""kernel-check's per-request timeout: a harness whose kernel code never answers (a lock never
released, a loop that never ends) is stopped, with the harness's whole process group, and the
step is reported as a hang naming the request (conformance/engines/linux/engine.py)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from conformance.engines.linux.engine import KernelEssaEngine
from conformance.engines.linux.kernels import Built
from conformance.essa import EssaProfileRequest, EssaRequest
from conformance.protocol import EngineFault

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
