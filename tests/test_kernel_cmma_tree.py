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
from conformance.essa_migration import MIGRATION_DRIVER, MIGRATION_MACHINE
from conformance.search import search
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


MIGRATION_PROFILE = EssaProfileRequest(impl="KVMClassic", storage_keys=False, facility147=True,
                                       cbrl_size=1, pages=2, prebuilt_page_tables=False)  # fmt: skip


def _migration_engine(engine: KernelEssaEngine) -> KernelEssaEngine:
    engine.machine = MIGRATION_MACHINE
    engine.hello(MIGRATION_PROFILE)
    engine.reset()
    return engine


def test_incremental_migration_is_kvm_s390_c(kernel: ClassicKernelEngine) -> None:
    """In the ESSAMigration mode the harness runs kvm_s390_vm_start_migration,
    kvm_s390_get_cmma_bits (one value per MigrationSend) and, at the switch,
    kvm_s390_set_cmma_bits; the second dirty bitmap is __do_essa's."""
    e = _migration_engine(kernel)
    assert not e.step(EssaRequest("ESSA", 0, 7)).pages[0].cmmaDirty  # interpreted: no mark
    assert [pg.cmmaDirty for pg in e.step(EssaRequest("MigrationStart")).pages] == [True, True]
    sent = e.step(EssaRequest("MigrationSend", 0))
    assert (sent.outcome, sent.value, sent.pages[0].cmmaDirty) == ("Done", 0x40, False)
    assert e.step(EssaRequest("MigrationSend", 0)).outcome == "Refused"  # not dirty: not sent
    assert e.step(EssaRequest("ESSA", 0, 2)).pages[0].cmmaDirty  # __do_essa marks it
    switched = e.step(EssaRequest("Migrate"))
    assert (switched.outcome, switched.pages[0].usage, switched.pages[0].nodat) == ("Done", "U", True)
    assert not any(pg.cmmaDirty for pg in switched.pages)
    profile = EssaProfile(**{**MIGRATION_PROFILE.fields, "bugs": frozenset()})
    lines = kernel.explain(profile, [EssaRequest("MigrationStart"), EssaRequest("MigrationSend", 1)])
    calls = [ln.strip(" *") for ln in lines if ln.startswith("  ")]
    assert calls[:2] == ["kvm_s390_get_cmma_bits", "kvm_s390_get_cmma"], lines
    assert any(ln.startswith("CMMA-dirty after") and "second dirty bitmap: 1 0" in ln
               for ln in lines), lines  # fmt: skip
    lines = kernel.explain(profile, [EssaRequest("MigrationStart"), EssaRequest("Migrate")])
    assert "kvm_s390_set_cmma_bits" in {ln.strip(" *") for ln in lines}, lines


@pytest.mark.parametrize("name", ["essa-dirty-only-when-queued", "essa-dirty-count-inverted",
                                  "get-cmma-keeps-dirty-bit"])
def test_a_regression_in_the_dirty_tracking_diverges_in_the_migration_mode(name: str, tmp_path: Path) -> None:
    engine = planted(name, tmp_path)
    profile = MIGRATION_DRIVER.profiles(MIGRATION_PROFILE, 2)[0]
    try:
        outcomes = search(MIGRATION_DRIVER, engine, [profile], MIGRATION_DRIVER.budget("KVMClassic"),
                          seed=1, cache=None)  # fmt: skip
    finally:
        engine.close()
    assert any(o.status == "diverged" for o in outcomes), [o.note for o in outcomes]


@pytest.mark.parametrize("name, field", [("get-cmma-drops-nodat", "nodat"), ("set-cmma-shift", "nodat")])
def test_a_regression_in_get_or_set_cmma_bits_shows_after_migrate(name: str, field: str, tmp_path: Path) -> None:
    """The ESSA mode's one-shot Migrate is the kernel's start, rounds and set too."""
    engine = planted(name, tmp_path)
    try:
        engine.hello(ONE_PAGE)
        engine.reset()
        engine.step(EssaRequest("ESSA", 0, 7))
        assert not getattr(engine.step(EssaRequest("Migrate")).pages[0], field)
    finally:
        engine.close()
