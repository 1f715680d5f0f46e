"""The Linux kernel's own classic KVM ESSA code, built from KERNEL_SRC or Debian's
linux-source-6.12 for s390x and run under qemu-s390x, through the conformance suite.
Skipped, with the reason, where the toolchain or the kernel source is absent."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator
from typing import Final

import pytest

from conformance.essa.classify import Classification, classify
from conformance.engines.linux.engine import ClassicKernelEngine, KernelEssaEngine
from conformance.engines.linux.kernels import APT_PACKAGES, DEFAULT_TARBALL, build, toolchain_missing
from conformance.essa import EssaJsonLinesEngine, EssaProfileRequest, EssaRequest
from conformance.protocol import EngineFault

_missing = toolchain_missing() or (
    "" if os.environ.get("KERNEL_SRC") or DEFAULT_TARBALL.is_file()
    else f"no KERNEL_SRC and no {DEFAULT_TARBALL}: apt-get install {' '.join(APT_PACKAGES)}"
)  # fmt: skip
pytestmark = pytest.mark.skipif(bool(_missing), reason=f"the kernel's ESSA code: {_missing}")


@pytest.fixture(scope="module", autouse=True)
def _built() -> None:
    """The harness is built (on a fresh clone: the tarball unpacked and compiled, tens of seconds)
    before any test starts an engine, so a JSON-lines engine's first reply is not held up by the
    build beyond its reply timeout."""
    build("classic")


#: What kernel-check's classify keeps fixed for classic code (D121): the gmap's page tables.
CLASSIC: Final = {"prebuilt_page_tables": False}


@pytest.fixture
def kernel() -> Iterator[ClassicKernelEngine]:
    engine = ClassicKernelEngine()
    yield engine
    engine.close()


def test_the_classic_kernel_code_is_kvm_classic_without_storage_keys(kernel: ClassicKernelEngine) -> None:
    c = classify(kernel, EssaProfileRequest(storage_keys=False, facility147=True, cbrl_size=1, pages=2, **CLASSIC))
    assert c.matched == ("KVMClassic",), [v.divergence for v in c.verdicts]
    assert c.engine.name.startswith("Linux ")


def test_with_storage_keys_the_guests_sske_resets_gc(kernel: ClassicKernelEngine) -> None:
    """Bug (b) of D100, observed in the kernel and now the spec's rule (D98): set_guest_storage_key
    clears the PGSTE's GC with the key's change bit, so a later ORC 4 on the page, which is not
    resident, discards it (V, Z set). With storage keys the classic code is KVMClassic too."""
    kernel.hello(EssaProfileRequest(impl="KVMClassic", storage_keys=True, facility147=False, cbrl_size=1, pages=1))
    kernel.reset()
    kernel.step(EssaRequest("Write", 0))
    reclaimed = kernel.step(EssaRequest("HostReclaim", 0)).pages[0]
    assert (reclaimed.gc, reclaimed.dirty, reclaimed.swapped) == (True, True, True)
    written_back = kernel.step(EssaRequest("Writeback", 0)).pages[0]
    assert (written_back.gc, written_back.dirty) == (False, False)
    essa = kernel.step(EssaRequest("ESSA", 0, 4))
    assert (essa.result, essa.pages[0].usage, essa.pages[0].zbit) == (2, "V", True)
    c = classify(kernel, EssaProfileRequest(storage_keys=True, facility147=False, cbrl_size=1, pages=1, **CLASSIC))
    assert c.matched == ("KVMClassic",), [v.divergence for v in c.verdicts if v.profile.impl == "KVMClassic"]


def test_a_discard_on_a_full_cbrl_is_rolled_back_and_refused(kernel: ClassicKernelEngine) -> None:
    kernel.hello(EssaProfileRequest(impl="KVMClassic", storage_keys=False, facility147=False, cbrl_size=1, pages=2))
    kernel.reset()
    first = kernel.step(EssaRequest("ESSA", 0, 3))
    assert (first.outcome, first.result, first.pages[0].zbit) == ("Done", 2, True)
    full = kernel.step(EssaRequest("ESSA", 1, 2))
    assert full.outcome == "Refused"
    assert full.pages[1] == first.pages[1]  # page 1's PGSTE is as it was before the ESSA
    assert kernel.step(EssaRequest("HostProcessCBRL")).outcome == "Kept"  # no swap copy to free
    again = kernel.step(EssaRequest("ESSA", 1, 2))
    assert (again.outcome, again.pages[1].usage, again.pages[1].zbit) == ("Done", "U", True)


def test_over_json_lines() -> None:
    command = shlex.join([sys.executable, "-m", "conformance.engines.linux"])
    engine = EssaJsonLinesEngine(command)
    try:
        c = classify(engine, EssaProfileRequest(storage_keys=False, facility147=False, cbrl_size=1, pages=1,
                                                cmma_enabled=True, **CLASSIC))
    finally:
        engine.close()
    assert c.matched == ("KVMClassic",)


def test_memoized_replies_are_what_the_harness_answers() -> None:
    """D121: the engine asks the harness only for request sequences it has not run; classify
    gives the same verdicts, step for step, with every request sent."""
    request = EssaProfileRequest(storage_keys=True, facility147=True, cbrl_size=1, pages=1,
                                 cmma_enabled=True, **CLASSIC)  # fmt: skip
    memo, plain = ClassicKernelEngine(), KernelEssaEngine("classic", memo=False)
    try:
        with_memo, without = classify(memo, request), classify(plain, request)
    finally:
        memo.close()
        plain.close()
    def seen(c: Classification) -> list[tuple[object, ...]]:  # a divergence's error is an exception
        return [(v.profile, v.sequences, v.steps, v.divergence and v.divergence[:6]) for v in c.verdicts]

    assert seen(with_memo) == seen(without) and with_memo.identified == "KVMClassic"
    assert memo.memoized > 0 and memo.sent < plain.sent and plain.memoized == 0
    assert memo.round_trips < plain.round_trips / 3


def test_a_replay_that_answers_otherwise_is_a_fault(kernel: ClassicKernelEngine) -> None:
    kernel.hello(EssaProfileRequest(impl="KVMClassic", storage_keys=False, facility147=False, cbrl_size=1, pages=1))
    kernel.reset()
    kernel.step(EssaRequest("Write", 0))
    kernel.reset()
    kernel.step(EssaRequest("Write", 0))  # answered from the memo: the harness did not run it
    assert (kernel.sent, kernel.memoized) == (1, 1)
    # pretend the harness answered "Write 0" otherwise before, then make it replay it
    answer, reply, after = kernel._root["write 0 1"]
    kernel._root["write 0 1"] = ("Done -1 -1 U100000-\n", reply, after)
    kernel.step(EssaRequest("Read", 0))  # the harness is still after the first Write: no replay
    kernel.reset()
    with pytest.raises(EngineFault, match="nondeterministic"):
        kernel.step(EssaRequest("Write", 0))
        kernel.step(EssaRequest("HostReclaim", 0))
