"""The gmap (Linux 7.x) trees: gmap_tree.py's blob checking on synthetic files (always), and the
gmap harness on real trees when some are given ($GMAP_TREES, a directory of trees such as
/work/gmap-trees/{postfix,prefix-stickyzero,prefix-cbrl,prefix-unused}, or $KERNEL_SRC of a 7.x
tree); CI has none and skips those with the reason."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

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


@pytest.mark.parametrize("layout", ["7.0", "7.3", "cmma"])
def test_each_definition_is_found_in_the_tree_s_own_layout(tmp_path: Path, layout: str) -> None:
    dat = {"7.0": "arch/s390/kvm/dat.c", "7.3": "arch/s390/kvm/gmap/dat.c",
           "cmma": "arch/s390/kvm/gmap/dat.c"}[layout]  # fmt: skip
    essa = "arch/s390/kvm/gmap/cmma.c" if layout == "cmma" else dat
    files = {dat: "union pte {\n\tunsigned long val;\n};\n",
             PRIV_C: FUNCTION_C.format(name="__do_essa")}  # fmt: skip
    files[essa] = files.get(essa, "") + FUNCTION_C.format(name="dat_perform_essa")
    got = {w.name: w.path for w in resolve(_tree(tmp_path, files), WANTS)}
    assert got == {"dat_perform_essa": essa, "union pte": dat, "__do_essa": PRIV_C}


def test_a_tree_without_the_files_is_refused_naming_each(tmp_path: Path) -> None:
    tree = _tree(tmp_path, {"arch/s390/kvm/dat.c": FUNCTION_C.format(name="dat_perform_essa")})
    with pytest.raises(ExtractError, match=r"lacks arch/s390/kvm/priv.c or arch/s390/kvm/gmap/cmma.c"):
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
