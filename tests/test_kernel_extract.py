"""The extractor of conformance/engines/linux: it takes functions and macros out of C text
unchanged, and names the function and the file when a kernel moved or changed one. The C here
is written for the tests (no kernel code), in the kernel's layouts."""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

import pytest

from conformance.engines.linux.extract import (
    MACRO, VARIABLE, ExtractError, Want, extract, find_function, find_macro, find_variable,
    normalise, unpack, version,
)  # fmt: skip
from conformance.engines.linux import check
from conformance.engines.linux.kernels import build, implementation, toolchain_missing

C = """\
/* a comment with a brace { and perform(int x) */
#define FLAG_A 0x400  /* the first flag */
#define TWO_LINES(x) \\
\t((x) + FLAG_A)

static inline int helper(int a)
{
\treturn a + 1; /* } not the end */
}

/**
 * perform - documented above, the comment is not part of the definition
 */
int perform(struct mm *mm, unsigned long hva,
\t    int orc)
{
\tconst char *s = "{ not a brace";
\tif (orc)
\t\treturn helper(orc);
\treturn 0;
}

int caller(void)
{
\treturn perform(0, 0, 1);
}
"""


def test_a_function_is_taken_whole_with_its_signature() -> None:
    body, signature, line = find_function(C, "perform")
    assert body.startswith("int perform(struct mm *mm")
    assert body.rstrip().endswith("}") and 'const char *s = "{ not a brace";' in body
    assert "documented above" not in body
    assert signature == "int perform(struct mm *mm, unsigned long hva, int orc)"
    assert C.splitlines()[line - 1].startswith("int perform(")


def test_braces_in_comments_and_strings_do_not_end_a_body() -> None:
    body, _, _ = find_function(C, "helper")
    assert body == "static inline int helper(int a)\n{\n\treturn a + 1; /* } not the end */\n}\n"


def test_a_call_is_not_a_definition() -> None:
    with pytest.raises(ExtractError, match="no definition of missing"):
        find_function("int f(void)\n{\n\treturn missing(1);\n}\n", "missing")
    body, _, _ = find_function(C, "caller")
    assert "return perform(0, 0, 1);" in body


def test_macros_with_continuation_lines() -> None:
    assert find_macro(C, "FLAG_A") == "#define FLAG_A 0x400  /* the first flag */\n"
    assert find_macro(C, "TWO_LINES") == "#define TWO_LINES(x) \\\n\t((x) + FLAG_A)\n"
    with pytest.raises(ExtractError, match="no #define of FLAG_B"):
        find_macro(C, "FLAG_B")


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "arch").mkdir(parents=True)
    (tmp_path / "arch" / "x.c").write_text(C)
    (tmp_path / "Makefile").write_text("VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 117\n"
                                       "EXTRAVERSION =\nNAME = Test\n")  # fmt: skip
    return tmp_path


def test_extract_names_file_and_function_when_a_signature_changed(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    want = Want("arch/x.c", "perform", signature="int perform(struct mm *mm, unsigned long hva)")
    with pytest.raises(ExtractError) as exc:
        extract(root, [want])
    msg = str(exc.value)
    assert "arch/x.c" in msg and "the signature of perform changed" in msg
    assert "int perform(struct mm *mm, unsigned long hva, int orc)" in msg


def test_extract_names_file_and_function_when_one_moved(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with pytest.raises(ExtractError, match=r"arch/x.c: no definition of gone: the kernel moved"):
        extract(root, [Want("arch/x.c", "gone")])
    with pytest.raises(ExtractError, match=r"arch/y.c is not in the kernel tree"):
        extract(root, [Want("arch/y.c", "perform")])


def test_extract_keeps_order_and_marks_origin(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    sig = "int perform(struct mm *mm,\n unsigned long hva, int orc)"
    parts = extract(root, [Want("arch/x.c", "FLAG_A", MACRO), Want("arch/x.c", "helper"),
                           Want("arch/x.c", "perform", signature=sig)])  # fmt: skip
    assert [p.splitlines()[0] for p in parts] == [
        "/* arch/x.c: FLAG_A */", "/* arch/x.c: helper */", "/* arch/x.c: perform */"]
    assert '#line 14 "arch/x.c"' in parts[2]


def test_version_of_a_tree(tmp_path: Path) -> None:
    assert version(_tree(tmp_path)) == "6.12.117"


def test_normalise() -> None:
    assert normalise("int  f( int a,\n\t int b )") == "int f(int a, int b)"


def test_unpack_takes_only_the_named_files_once(tmp_path: Path) -> None:
    src = _tree(tmp_path / "linux-source-9.9")
    (src / "arch" / "unneeded.c").write_text("int u;\n")
    tarball = tmp_path / "linux-source-9.9.tar.xz"
    with tarfile.open(tarball, "w:xz") as tf:
        tf.add(src, arcname="linux-source-9.9")
    root = unpack(tarball, ["arch/x.c"], tmp_path / "cache")
    assert root == tmp_path / "cache" / "linux-source-9.9"
    assert (root / "arch" / "x.c").read_text() == C and (root / "Makefile").is_file()
    assert not (root / "arch" / "unneeded.c").exists()
    tarball.unlink()  # a second call finds the files without the tarball
    assert unpack(tarball, ["arch/x.c"], tmp_path / "cache") == root


def test_unpack_says_which_file_is_missing(tmp_path: Path) -> None:
    src = _tree(tmp_path / "linux-source-9.9")
    tarball = tmp_path / "k.tar.xz"
    subprocess.run(["tar", "-cJf", str(tarball), "-C", str(tmp_path), "linux-source-9.9"], check=True)
    with pytest.raises(ExtractError, match="arch/nope.c"):
        unpack(tarball, ["arch/nope.c"], tmp_path / "cache")
    assert src.is_dir()


def _fake_tree(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    (root / "Makefile").write_text("VERSION = 7\nPATCHLEVEL = 1\nSUBLEVEL = 0\n")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_the_tree_says_which_essa_code_it_has(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gmap = _fake_tree(tmp_path / "gmap", {"arch/s390/kvm/dat.c": "int dat_perform_essa(int orc)\n{\n\treturn orc;\n}\n"})
    classic = _fake_tree(tmp_path / "classic", {"arch/s390/mm/pgtable.c": "int pgste_perform_essa(int orc)\n{\n\treturn orc;\n}\n"})
    assert implementation(gmap) == ("gmap", "dat_perform_essa in arch/s390/kvm/dat.c")
    assert implementation(classic) == ("classic", "pgste_perform_essa in arch/s390/mm/pgtable.c")
    with pytest.raises(ExtractError, match="defines neither dat_perform_essa nor pgste_perform_essa in any file under arch/s390"):
        implementation(_fake_tree(tmp_path / "none", {"arch/s390/kvm/dat.c": "int dat_perform_essa(int orc);\n"}))
    # make kernel-check names what it found, and why it cannot go on
    assert check.main(["--kernel-src", str(gmap)]) == 3
    err = capsys.readouterr().err
    assert "the tree has the gmap ESSA code (dat_perform_essa in arch/s390/kvm/dat.c)" in err
    # the gmap harness names every file the tree lacks
    assert "cannot build the gmap harness" in err and "lacks arch/s390/include/asm/dat-bits.h" in err
    assert "arch/s390/kvm/priv.c or arch/s390/kvm/s390/priv.c or arch/s390/kvm/gmap/cmma.c" in err
    if not toolchain_missing():  # the classic harness refuses the gmap tree by name
        with pytest.raises(ExtractError, match="has the gmap ESSA code, dat_perform_essa"):
            build("classic", str(gmap))


WALK = """\
static int callback(int *pte, unsigned long addr)
{
\treturn use(pte, addr); /* ops = { not this } */
}

static const struct walk_ops the_ops = {
\t.entry\t\t= callback,
\t.lock\t\t= LOCK_W,
};

void user(void)
{
\tstruct walk_ops local = { .entry = callback };
\twalk(&the_ops, &local);
}
"""


def test_a_variable_is_taken_with_its_initializer(tmp_path: Path) -> None:
    body, line = find_variable(WALK, "the_ops")
    assert body == ("static const struct walk_ops the_ops = {\n\t.entry\t\t= callback,\n"
                    "\t.lock\t\t= LOCK_W,\n};\n")  # fmt: skip
    assert WALK.splitlines()[line - 1].startswith("static const struct walk_ops the_ops")
    with pytest.raises(ExtractError, match="no definition of the variable local"):
        find_variable(WALK, "local")  # inside a body: not a definition at the top level
    (tmp_path / "w.c").write_text(WALK)
    (out,) = extract(tmp_path, [Want("w.c", "the_ops", VARIABLE)])
    assert out.startswith('/* w.c: the_ops */\n#line 6 "w.c"\nstatic const struct walk_ops')
