"""kernel-check's VMM pass (conformance/engines/linux/vmm_check.py): CMMA migration as a VMM drives
it, through kvm-s390.c's own code, in lockstep with refimpl/essa/vmm.py. The tree conforms (with
F12, which it has), and each of the catalogue's three migration regressions the default check
missed before the pass is caught by it. Skipped, with the reason, where the toolchain or the
kernel source is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.engines.linux import kernels, regressions, vmm_check
from conformance.engines.linux.kernels import APT_PACKAGES, DEFAULT_TARBALL, toolchain_missing

_missing = toolchain_missing() or (
    "" if os.environ.get("KERNEL_SRC") or DEFAULT_TARBALL.is_file()
    else f"no KERNEL_SRC and no {DEFAULT_TARBALL}: apt-get install {' '.join(APT_PACKAGES)}"
)  # fmt: skip
pytestmark = pytest.mark.skipif(bool(_missing), reason=f"the kernel's ESSA code: {_missing}")


def test_the_tree_conforms_and_has_f12() -> None:
    res = vmm_check.check_vmm(kernels.build("classic"), walks=10)
    assert not res.divergences, vmm_check.report(res)
    assert res.slot_delete_fix is False  # F12: the deleted memslot's pages stay in the count
    assert res.selftest == len(vmm_check.SCENARIOS) and res.selftest_instances > 300
    assert "F12" in res.line()


def test_the_harness_answers_a_batched_get_and_the_deleted_memslot_count(tmp_path: Path) -> None:
    """F12 through the kernel's code: after a memslot with a dirty page is deleted, a GET answers
    remaining 1 with no bit set anywhere."""
    m = vmm_check.Lockstep(kernels.build("classic"), vmm_check.LAYOUT, False)
    try:
        assert m.start() is None
        assert m.slot_delete(1) is None
        assert m.get(0, 3) is None
        assert (m.s.answer.start, len(m.s.answer.values), m.s.answer.remaining) == (0, 3, 1)
        assert m.get(3, 3) is None
        assert (m.s.answer.start, m.s.answer.values, m.s.answer.remaining) == (3, (), 1)
    finally:
        m.close()


@pytest.mark.parametrize("name", ["peek-stays-on-first-page", "get-counts-clean-pages",
                                  "set-cmma-leaves-uses-cmm"])  # fmt: skip
def test_the_known_misses_are_caught(name: str, tmp_path: Path) -> None:
    catalogue = regressions.load()
    (r,) = [x for x in catalogue if x.name == name]
    tree = tmp_path / "linux"
    regressions._copy(regressions.base_tree(None), catalogue, tree)
    (tree / r.file).write_text(regressions.apply((tree / r.file).read_text(), r))
    res = vmm_check.check_vmm(kernels.build("classic", str(tree)), walks=0)
    assert res.divergences, f"{name} not caught"
    if name != "set-cmma-leaves-uses-cmm":  # uses_cmm is no reply's field: its reader is named
        # the headline names the function the regression edits (blame.py, D455)
        assert regressions.blamed(res.divergences[0].headline()) == r.function


def test_the_held_out_set_ignoring_the_mask_is_caught(tmp_path: Path) -> None:
    """The held-out set-ignores-user-mask (regressions_heldout.json): kvm_s390_set_cmma_bits
    takes every bit whatever the VMM's mask. The VMM pass's masked switches catch it, and the
    divergence's headline names the SET's mask, the page's field and the kernel's function."""
    catalogue = regressions.load(regressions.HELD_OUT)
    (r,) = [x for x in catalogue if x.name == "set-ignores-user-mask"]
    tree = tmp_path / "linux"
    regressions._copy(regressions.base_tree(None), catalogue, tree)
    (tree / r.file).write_text(regressions.apply((tree / r.file).read_text(), r))
    m = vmm_check.Lockstep(kernels.build("classic", str(tree)), vmm_check.LAYOUT, False)
    try:
        d = vmm_check._run(m, vmm_check._masked_set(m))
    finally:
        m.close()
    assert d is not None, "set-ignores-user-mask not caught"
    assert d.headline().startswith("Migrate (the switch, SET mask 0x03): pages[2].nodat differ")
    assert regressions.blamed(d.headline()) == "kvm_s390_set_cmma_bits"


def test_fail_fast_asks_the_vmm_pass_first_and_stops_at_its_divergence(tmp_path: Path) -> None:
    """kernel-check --fail-fast on a tree with a migration regression (the catalogue's
    peek-stays-on-first-page) ends after the VMM pass, seconds in, with exit 1 and a last line
    that says classify and run were not started."""
    import io

    from conformance.engines.linux import check

    catalogue = regressions.load()
    (r,) = [x for x in catalogue if x.name == "peek-stays-on-first-page"]
    tree = tmp_path / "linux"
    regressions._copy(regressions.base_tree(None), catalogue, tree)
    (tree / r.file).write_text(regressions.apply((tree / r.file).read_text(), r))
    out = io.StringIO()
    junit = tmp_path / "kernel-check.xml"
    status = check.main(["--kernel-src", str(tree), "--harness", "classic", "--fail-fast",
                         "--out", str(tmp_path / "out"), "--junit-xml", str(junit)], out=out)  # fmt: skip
    last = out.getvalue().strip().splitlines()[-1]
    assert status == 1, out.getvalue()
    assert last.startswith("kernel-check: the VMM pass diverges (--fail-fast: classify and run not "
                           "started); first: Peek")  # fmt: skip
    # the CI file carries the verdict too: the VMM pass as a failed case
    assert "<failure" in junit.read_text() and "VMM pass" in junit.read_text()
