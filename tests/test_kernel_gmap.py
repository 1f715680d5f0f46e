"""The gmap (Linux 7.x) trees: gmap_tree.py's blob checking on synthetic files (always), and the
gmap harness on real trees when some are given ($GMAP_TREES, a directory of trees such as
/work/gmap-trees/{postfix,prefix-stickyzero,prefix-cbrl,prefix-unused}, or $KERNEL_SRC of a 7.x
tree); CI has none and skips those with the reason."""

from __future__ import annotations

import io
import re
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conformance.essa.classify import Classification
from conformance.engines.linux import gmap_tree
from conformance.engines.linux.gmap_tree import KNOWN, LAYOUTS, blob_id, check, known, layout

SYNTHETIC = b"/* not kernel code: a file written for the test */\nint x;\n"


def test_the_blob_id_is_git_s(tmp_path: Path) -> None:
    f = tmp_path / "f.c"
    f.write_bytes(SYNTHETIC)
    r = subprocess.run(["git", "hash-object", str(f)], capture_output=True, text=True, check=True)
    assert blob_id(SYNTHETIC) == r.stdout.strip()
    # the empty blob's id is well known
    assert blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


def test_an_id_is_known_only_for_its_own_path() -> None:
    k = next(k for k in KNOWN if k.blob)
    assert known(k.path, k.blob + "0" * (40 - len(k.blob))) == k
    assert known(k.path, k.blob[:12]) == k
    assert known("arch/s390/kvm/other.c", k.blob) is None
    assert known(k.path, "0" * 40) is None


def test_every_known_id_is_twelve_hex_digits_at_least() -> None:
    for k in KNOWN:
        assert len(k.blob) >= 12 and set(k.blob) <= set("0123456789abcdef"), k
    # the pre-fix and fixed versions of a file are told apart by their ids
    assert len({(k.path, k.blob) for k in KNOWN}) == len(KNOWN)


def test_files_laid_out_one_by_one_are_checked_and_an_unknown_one_is_named(tmp_path: Path) -> None:
    src = tmp_path / "src.c"
    src.write_bytes(SYNTHETIC)
    out = tmp_path / "tree"
    buf = io.StringIO()
    rc = gmap_tree.main([str(out), f"arch/s390/kvm/dat.c={src}", "--version", "7.1"], buf)
    text = buf.getvalue()
    assert f"arch/s390/kvm/dat.c: blob {blob_id(SYNTHETIC)[:12]} unknown" in text
    # one file is not a layout: the missing ones are named, and the exit status says so
    assert rc == 1 and "no complete gmap layout; missing" in text and "arch/s390/kvm/priv.c" in text
    assert (out / "arch/s390/kvm/dat.c").read_bytes() == SYNTHETIC
    assert "VERSION = 7\nPATCHLEVEL = 1\n" in (out / "Makefile").read_text()


def test_a_complete_layout_from_a_checkout_and_strict_unknown_ids(tmp_path: Path) -> None:
    src = tmp_path / "linux"
    for p in LAYOUTS["7.3"]:
        (src / p).parent.mkdir(parents=True, exist_ok=True)
        (src / p).write_bytes(SYNTHETIC + p.encode())
    (src / "Makefile").write_text("VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 0\nEXTRAVERSION =\n")
    out = tmp_path / "tree"
    buf = io.StringIO()
    assert gmap_tree.main([str(out), "--from", str(src)], buf) == 0
    assert layout(out) == "7.3" and "layout 7.3" in buf.getvalue()
    assert (out / "Makefile").read_text() == (src / "Makefile").read_text()
    assert all(c.known is None for c in check(out))
    assert gmap_tree.main(["--check", str(out), "--strict"], io.StringIO()) == 1


def test_a_known_file_is_reported_with_its_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:  # fmt: skip
    # a synthetic file given a known id (the table is the tool's; the file is not kernel code)
    fake = gmap_tree.Known("arch/s390/kvm/dat.c", blob_id(SYNTHETIC)[:12], "example@0", "a test")
    monkeypatch.setattr(gmap_tree, "KNOWN", (fake,))
    (tmp_path / "arch/s390/kvm").mkdir(parents=True)
    (tmp_path / "arch/s390/kvm/dat.c").write_bytes(SYNTHETIC)
    [c] = check(tmp_path, ["arch/s390/kvm/dat.c"])
    assert c.known == fake and "known: example@0 (a test)" in c.line()


# ------------------------------------------------------------------ finding the code by function

from conformance.engines.linux.extract import FUNCTION, TYPE, ExtractError, Want  # noqa: E402
from conformance.engines.linux.gmap import DAT_C, PRIV_C, resolve  # noqa: E402

FUNCTION_C = "int {name}(int orc)\n{{\n\treturn orc;\n}}\n"  # a definition written for the test
WANTS = (Want(DAT_C, "dat_perform_essa", FUNCTION), Want(DAT_C, "union pte", TYPE),
         Want(PRIV_C, "__do_essa", FUNCTION))  # fmt: skip


def _tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


@pytest.mark.parametrize("layout", ["7.0", "7.3", "cmma", "split"])
def test_each_definition_is_found_in_the_tree_s_own_layout(tmp_path: Path, layout: str) -> None:
    dat = "arch/s390/kvm/dat.c" if layout == "7.0" else "arch/s390/kvm/gmap/dat.c"
    essa = "arch/s390/kvm/gmap/cmma.c" if layout == "cmma" else dat
    priv = "arch/s390/kvm/s390/priv.c" if layout == "split" else PRIV_C
    files = {dat: "union pte {\n\tunsigned long val;\n};\n",
             priv: FUNCTION_C.format(name="__do_essa")}  # fmt: skip
    files[essa] = files.get(essa, "") + FUNCTION_C.format(name="dat_perform_essa")
    got = {w.name: w.path for w in resolve(_tree(tmp_path, files), WANTS)}
    assert got == {"dat_perform_essa": essa, "union pte": dat, "__do_essa": priv}


#: Each layout of the new gmap's code (gmap_tree.LAYOUTS): where its ESSA function is, and the
#: text around it (7.3 compiles dat_perform_essa only for the s390 host's KVM).
GUARDED = "#if KVM_S390_MANAGES_S390_GUEST\n{}#endif /* KVM_S390_MANAGES_S390_GUEST */\n"
DETECTED = {
    "7.0": ("arch/s390/kvm/dat.c", "{}", ""),
    "7.3": ("arch/s390/kvm/gmap/dat.c", GUARDED,
            ", under #if KVM_S390_MANAGES_S390_GUEST (1 in s390's asm/kvm_host.h: the s390 host's "
            "KVM, which the harness builds; 0 where KVM runs s390 guests on another host)"),
    "cmma": ("arch/s390/kvm/gmap/cmma.c", "{}", ""),
    "split": ("arch/s390/kvm/gmap/dat.c", GUARDED,
              ", under #if KVM_S390_MANAGES_S390_GUEST (1 in s390's asm/kvm_host.h: the s390 "
              "host's KVM, which the harness builds; 0 where KVM runs s390 guests on another "
              "host)"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(gmap_tree.LAYOUTS))
def test_every_layout_is_detected_by_its_function_and_a_gap_is_named(
        tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Each layout's tree (synthetic files: the ESSA function where the layout has it, every
    other file of the layout but one): kernel-check names the gmap code and its file, then
    refuses the build naming the file the tree lacks, with every place it looked."""
    from conformance.engines.linux import check
    from conformance.engines.linux.kernels import implementation

    where, around, note = DETECTED[name]
    files = {p: "/* a file written for the test */\n" for p in gmap_tree.LAYOUTS[name]}
    files[where] = around.format(FUNCTION_C.format(name="dat_perform_essa"))
    gmap_h = next(p for p in files if p.endswith("gmap.h"))
    del files[gmap_h]  # the tree lacks _gmap_ptep_xchg's header
    tree = _tree(tmp_path, files)
    (tree / "Makefile").write_text("VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 0\n")
    assert implementation(tree) == ("gmap", f"dat_perform_essa in {where}{note}")
    assert check.main(["--kernel-src", str(tree)]) == check.EXIT_BUILD
    err = capsys.readouterr().err
    assert f"the tree has the gmap ESSA code (dat_perform_essa in {where}{note})" in err
    assert re.search(r"cannot build the gmap harness: the kernel tree \S+ lacks "
                     r"arch/s390/kvm/gmap.h or arch/s390/kvm/gmap/gmap.h: the gmap harness takes "
                     r"definitions from each", err), err  # fmt: skip


def test_a_tree_without_the_files_is_refused_naming_each(tmp_path: Path) -> None:
    tree = _tree(tmp_path, {"arch/s390/kvm/dat.c": FUNCTION_C.format(name="dat_perform_essa")})
    with pytest.raises(ExtractError, match=r"lacks arch/s390/kvm/priv.c or arch/s390/kvm/s390/priv.c "
                       r"or arch/s390/kvm/gmap/cmma.c"):
        resolve(tree, WANTS)
    tree = _tree(tmp_path, {PRIV_C: FUNCTION_C.format(name="__do_essa")})
    with pytest.raises(ExtractError, match=r"no type union pte in arch/s390/kvm/dat.c: the kernel moved"):
        resolve(tree, WANTS)


# ------------------------------------------------------------------ the kernel's own code

GMAP_TREES = os.environ.get("GMAP_TREES", "")
#: What each tree gmap_tree.py lays out (README.md of conformance/engines/linux, "The new gmap")
#: is: the fixed code, and the code before each 2026 fix.
EXPECTED = {"postfix": "KVMGmap", "prefix-stickyzero": "KVMGmap with bug StickyZero",
            "prefix-cbrl": "KVMGmap with bug CBRLGuestAddress",
            "prefix-unused": "KVMGmap with bug StaleUnusedBit"}  # fmt: skip


def _trees() -> list[tuple[str, Path]]:
    if GMAP_TREES:
        return [(name, Path(GMAP_TREES) / name) for name in EXPECTED
                if (Path(GMAP_TREES) / name).is_dir()]  # fmt: skip
    src = os.environ.get("KERNEL_SRC", "")
    if src and gmap_tree.layout(Path(src)) is not None:
        return [("KERNEL_SRC", Path(src))]
    return []


def _skip_reason() -> str:
    from conformance.engines.linux.kernels import toolchain_missing

    if not _trees():
        return ("no gmap (Linux 7.x) tree: set GMAP_TREES to a directory of trees laid out by "
                "python -m conformance.engines.linux.gmap_tree, or KERNEL_SRC to a 7.x tree")
    return toolchain_missing()


#: Where each pre-fix tree first parts from the fixed code (classify's shortest sequences):
#: the request and the page field the kernel leaves wrong.
FIRST_DIVERGENCE = {"prefix-stickyzero": ("Read", "zbit"),
                    "prefix-cbrl": ("HostProcessCBRL", "swapped"),
                    "prefix-unused": ("HostUnmapGmap", "pteUnused")}  # fmt: skip


def _classify(tree: Path) -> Classification:
    from conformance.essa.classify import classify
    from conformance.essa import EssaProfileRequest
    from conformance.engines.linux.engine import KernelEssaEngine

    engine = KernelEssaEngine("gmap", str(tree))
    # one constant set, one page: each bug shows there (PROTOCOL.md, "run and classify")
    request = EssaProfileRequest(pages=1, storage_keys=False, facility147=True, cbrl_size=1,
                                 prebuilt_page_tables=False, cmma_enabled=True)  # fmt: skip
    try:
        return classify(engine, request)
    finally:
        engine.close()


_CLASSIFIED: dict[Path, Classification] = {}


def _classified(tree: Path) -> Classification:
    if tree not in _CLASSIFIED:
        _CLASSIFIED[tree] = _classify(tree)
    return _CLASSIFIED[tree]


def _identification_cases() -> list[object]:
    return list(_trees()) or [("none", Path("/nonexistent"))]


@pytest.mark.skipif(bool(_skip_reason()), reason=_skip_reason() or "")
@pytest.mark.parametrize("name,tree", _identification_cases())
def test_classify_tells_the_fixed_gmap_from_each_pre_fix_one(name: str, tree: Path) -> None:
    c = _classified(tree)
    if name in EXPECTED:
        assert c.identified == EXPECTED[name], c.matched
    else:  # a 7.x KERNEL_SRC: identified as the gmap code, fixed or not
        assert c.identified is not None and c.identified.startswith("KVMGmap"), c.matched


@pytest.mark.skipif(bool(_skip_reason()), reason=_skip_reason() or "")
@pytest.mark.parametrize("name,tree", [t for t in _trees() if t[0] in FIRST_DIVERGENCE]
                         or [("none", Path("/nonexistent"))])  # fmt: skip
def test_each_pre_fix_tree_parts_from_the_fixed_code_at_its_bug(name: str, tree: Path) -> None:
    c = _classified(tree)
    fixed = next(v for v in c.verdicts if v.profile.impl == "KVMGmap" and not v.profile.bugs)
    d = fixed.divergence
    assert d is not None, "the pre-fix tree gave the fixed code's replies"
    op, field = FIRST_DIVERGENCE[name]
    assert d.request.op == op
    assert getattr(d.observed.pages[0], field) != getattr(d.expected.pages[0], field)


# ------------------------------------------------------------------ reports in the kernel's terms

#: Each 2026 bug's shortest trace from a reset (classify's, docs/kernel.md's table) and what its
#: last step shows in the new gmap's own terms on the pre-fix tree: the request's line of the
#: report, and lines of the step replayed on the harness.
BUG_STEPS = {
    "prefix-stickyzero": (
        [("Migrate", -1, -1), ("ESSA", 0, 2), ("Read", 0, -1)],
        "Read 0: pages[0].zbit is True where the spec says False (_gmap_ptep_xchg)",
        # the fault maps the page through _gmap_ptep_xchg, which leaves pgste.zero set
        [r"page 0 before gmap pte=0x[0-9a-f]+ \[_PTE_EMPTY: pte\.h\.i\] pgste=0x[0-9a-f]+ "
         r"\[pgste\.usage=PGSTE_GPS_USAGE_UNUSED\|pgste\.zero",
         r"page 0 after gmap pte=0x[0-9a-f]+ \[frame 0x1000: pte\.s\.pr[^\]]*\] "
         r"pgste=0x[0-9a-f]+ \[pgste\.usage=PGSTE_GPS_USAGE_UNUSED\|pgste\.zero",
         r"\n  _gmap_ptep_xchg \*\n(    .*\n)*    __dat_ptep_xchg \*"]),
    "prefix-cbrl": (
        [("Read", 0, -1), ("HostReclaim", 0, -1), ("ESSA", 0, 2), ("HostProcessCBRL", -1, -1)],
        ("HostProcessCBRL: outcome is Kept where the spec says Zapped; pages[0].swapped is True "
         "where the spec says False (gmap_helper_zap_one_page)"),
        # _essa_clear_cbrl hands the guest address to the zap as if it were a host address
        [r"the harness: the CBRL's head, guest address 0x0 \(host address 0x1000 by the "
         r"memslot\), went to _essa_clear_cbrl\. gmap_helper_zap_one_page looked up host "
         r"address 0x0: no VMA, nothing zapped\. swap_put_entries_direct was not called\.",
         r"page 0 after gmap [^\n]* host pte=0x[0-9a-f]+ \[swap type 0 offset 1: ",
         r"CBRL before 1: 0x0\nCBRL after 0:",
         r"\n  _essa_clear_cbrl\n(    .*\n)*    gmap_helper_zap_one_page\n"]),
    "prefix-unused": (
        [("Read", 0, -1), ("ESSA", 0, 2), ("HostUnmapGmap", 0, -1)],
        "HostUnmapGmap 0: pages[0].pteUnused is True where the spec says False (gmap_helper_try_set_pte_unused)",
        # the host PTE is marked unused, then set again by set_pte, which keeps the mark
        [r"the harness: KVM's MMU notifier emptied the gmap PTE by _gmap_ptep_xchg; pgste\.usage "
         r"was PGSTE_GPS_USAGE_UNUSED, so it called gmap_helper_try_set_pte_unused on the host "
         r"PTE\. Core mm then set the host PTE again by set_pte",
         r"page 0 before [^\n]* host pte=0x[0-9a-f]+ \[frame 0x1000: _PAGE_PRESENT",
         r"page 0 after gmap pte=0x[0-9a-f]+ \[_PTE_EMPTY: pte\.h\.i\] [^\n]* host "
         r"pte=0x[0-9a-f]+ \[frame 0x1000: _PAGE_UNUSED\|_PAGE_PRESENT",
         r"\n  gmap_helper_try_set_pte_unused \*\n(  .*\n)*  set_pte(\n|$)"]),
}  # fmt: skip


def _requests(steps: list[tuple[str, int, int]]) -> list[object]:
    from conformance.essa import NONE, EssaRequest

    return [EssaRequest(op, NONE if page < 0 else page, NONE if orc < 0 else orc)
            for op, page, orc in steps]  # fmt: skip


@pytest.mark.skipif(bool(_skip_reason()), reason=_skip_reason() or "")
@pytest.mark.parametrize("name,tree", [t for t in _trees() if t[0] in BUG_STEPS]
                         or [("none", Path("/nonexistent"))])  # fmt: skip
def test_a_pre_fix_divergence_is_reported_in_the_new_gmap_s_terms(name: str, tree: Path) -> None:
    """The bug's trace driven against the fixed profile: the driver's divergence, then the
    step as kernel-check reports it (check.Finding, check.kernel_terms): the gmap PTE, PGSTE
    and host PTE before and after with dat.h's and pgtable.h's names, the CBRL, the harness's
    own doing, and the kernel functions the step ran."""
    from conformance.driver import Divergence, Drive
    from conformance.essa import ESSA_DRIVER, EssaProfileRequest
    from conformance.engines.linux import check
    from conformance.engines.linux.kernels import build

    steps, headline, patterns = BUG_STEPS[name]
    profile = EssaProfileRequest(impl="KVMGmap", pages=1, storage_keys=False, facility147=True,
                                 cbrl_size=1, prebuilt_page_tables=False, cmma_enabled=True,
                                 machine_interprets_essa=False).profile(1)  # fmt: skip
    built = build("gmap", str(tree))
    engine = check._engine(built, "gmap", memo=False)
    try:
        engine.hello(EssaProfileRequest.of(profile))
        drive: Drive[Any, Any, Any, Any] = Drive(ESSA_DRIVER, engine, profile)
        drive.reset()
        with pytest.raises(Divergence) as exc:
            for request in _requests(steps):
                drive.step(request)
    finally:
        engine.close()
    error = exc.value
    assert len(error.steps) == len(steps), "the pre-fix code parted from the fix before its bug"
    failure = check.Failure.of("run", error)
    finding = check.Finding(failure.key, "run", failure, "", [profile])
    finding.kernel = check.kernel_terms(built, "gmap", finding)
    text = "\n".join(finding.kernel)
    assert finding.kernel[0] == (f"In the kernel's terms (the step replayed on the gmap harness, "
                                 f"Linux {built.kernel}):")  # fmt: skip
    assert finding.headline() == headline
    for pattern in patterns:
        assert re.search(pattern, text), f"{pattern!r} not in:\n{text}"
    # the fixed tree, where there is one, takes the same steps as the spec does
    fixed = tree.parent / "postfix"
    if fixed.is_dir():
        engine = check._engine(build("gmap", str(fixed)), "gmap", memo=False)
        try:
            engine.hello(EssaProfileRequest.of(profile))
            fixed_drive: Drive[Any, Any, Any, Any] = Drive(ESSA_DRIVER, engine, profile)
            fixed_drive.reset()
            for request in _requests(steps):
                fixed_drive.step(request)
        finally:
            engine.close()


def test_kernel_check_runs_the_fixed_gmap_profile_only() -> None:
    """run takes the fixed KVMGmap under every constant set, not each pre-fix profile too: a
    pre-fix tree is to diverge from the fixed profile, and each Bugs profile would repeat the
    constant set's classify and run (kernel-check's workers take one profile each)."""
    from conformance.essa import ESSA_DRIVER, EssaProfileRequest
    from conformance.engines.linux.check import PAGES, fixed_request

    profiles = ESSA_DRIVER.profiles(fixed_request("KVMGmap"), PAGES)
    assert profiles and all(p.impl == "KVMGmap" and not p.bugs for p in profiles)
    everything = ESSA_DRIVER.profiles(EssaProfileRequest(impl="KVMGmap"), PAGES)
    assert len(everything) == 4 * len(profiles)  # the fixed code and the code before each fix
    # a worker's one constant set is one profile
    one = EssaProfileRequest.of(profiles[0]).without("bugs", "pages")
    assert ESSA_DRIVER.profiles(fixed_request("KVMGmap", one), PAGES) == [profiles[0]]
