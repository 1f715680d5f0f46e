"""The gmap (Linux 7.x) trees: gmap_tree.py's blob checking on synthetic files (always), and the
gmap harness on real trees when some are given ($GMAP_TREES, a directory of trees such as
/work/gmap-trees/{postfix,prefix-stickyzero,prefix-cbrl,prefix-unused}, or $KERNEL_SRC of a 7.x
tree); CI has none and skips those with the reason."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

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
