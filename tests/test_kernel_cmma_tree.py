"""The CMMA reset and CMMA migration of the classic harness run the kernel's own code
(kvm-s390.c, gmap.c, priv.c): s390_reset_cmma and its page walk's callback, and a regression
planted in them changes what the harness answers. Skipped, with the reason, where the toolchain
or the kernel source is absent."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.engines.linux.engine import ClassicKernelEngine, KernelEssaEngine
from conformance.engines.linux.kernels import APT_PACKAGES, DEFAULT_TARBALL, toolchain_missing
from conformance.engines.linux import regressions
from conformance.essa import EssaProfileRequest, EssaRequest
from refimpl.essa import EssaProfile

_missing = toolchain_missing() or (
    "" if os.environ.get("KERNEL_SRC") or DEFAULT_TARBALL.is_file()
    else f"no KERNEL_SRC and no {DEFAULT_TARBALL}: apt-get install {' '.join(APT_PACKAGES)}"
)  # fmt: skip
pytestmark = pytest.mark.skipif(bool(_missing), reason=f"the kernel's ESSA code: {_missing}")

ONE_PAGE = EssaProfileRequest(impl="KVMClassic", storage_keys=False, facility147=True, cbrl_size=1,
                              pages=1, prebuilt_page_tables=False)  # fmt: skip


def planted(name: str, tmp_path: Path) -> KernelEssaEngine:
    """An engine on a copy of the tree with the catalogue's regression ``name`` planted."""
    catalogue = regressions.load()
    (r,) = [x for x in catalogue if x.name == name]
    tree = tmp_path / "linux"
    regressions._copy(regressions.base_tree(None), catalogue, tree)
    (tree / r.file).write_text(regressions.apply((tree / r.file).read_text(), r))
    return KernelEssaEngine("classic", str(tree))


@pytest.fixture
def kernel() -> Iterator[ClassicKernelEngine]:
    engine = ClassicKernelEngine()
    yield engine
    engine.close()


def test_the_cmma_reset_is_the_kernels_walk(kernel: ClassicKernelEngine) -> None:
    """HostResetCMMA is s390_reset_cmma: its page walk calls __s390_reset_cmma on the PTE,
    which calls ptep_zap_unused with reset set; an unused no-DAT page comes back stable."""
    kernel.hello(ONE_PAGE)
    kernel.reset()
    assert kernel.step(EssaRequest("ESSA", 0, 7)).pages[0].nodat
    assert kernel.step(EssaRequest("ESSA", 0, 2)).pages[0].usage == "U"
    after = kernel.step(EssaRequest("HostResetCMMA"))
    assert (after.outcome, after.pages[0].usage, after.pages[0].nodat) == ("Done", "S", False)
    profile = EssaProfile(**{**ONE_PAGE.fields, "bugs": frozenset()})
    lines = kernel.explain(profile, [EssaRequest("ESSA", 0, 2), EssaRequest("HostResetCMMA")])
    tree = [ln.rstrip(" *") for ln in lines[lines.index(next(ln for ln in lines if "by call depth" in ln)) + 1:]]
    assert tree[:3] == ["  s390_reset_cmma", "    __s390_reset_cmma", "      ptep_zap_unused"], lines

def test_a_regression_in_the_reset_walk_changes_the_reply(tmp_path: Path) -> None:
    """reset-cmma-walk-zaps-instead (reset 0): the unused page stays unused."""
    engine = planted("reset-cmma-walk-zaps-instead", tmp_path)
    try:
        engine.hello(ONE_PAGE)
        engine.reset()
        engine.step(EssaRequest("ESSA", 0, 2))
        assert engine.step(EssaRequest("HostResetCMMA")).pages[0].usage == "U"
    finally:
        engine.close()
