"""make kernel-check as a maintainer's gate: a planted kernel regression fails it with one report
in the kernel's terms and a one-line summary; harmless signature changes are taken; a helper the
harness lacks is named with the file to add it to; the ESSA code is found by function; old builds
are pruned. The kernel tests plant their regressions into a copy of the unpacked tree under
tmp_path (no kernel code is in this repository).

Costs (measured on 2 busy cores): the tests without the toolchain 0.3 s in all (the stand-in
harness included); with it, 8 s in all: a compile per planted tree (three trees, the third
failing), one-profile checks of the broken tree (classify stops at its first divergence), two
replays, and two before/after comparisons of 200 random programs."""

from __future__ import annotations

import io
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from conformance.engines.linux import check
from conformance.engines.linux.extract import ExtractError, Want, extract, harmless
from conformance.engines.linux.kernels import (
    APT_PACKAGES, DEFAULT_TARBALL, HARNESSES, PGTABLE_C, build, compile_error, implementation,
    prune, toolchain_missing,
)  # fmt: skip

SIG = ("int pgste_perform_essa(struct mm_struct *mm, unsigned long hva, int orc, "
       "unsigned long *oldpte, unsigned long *oldpgste)")  # fmt: skip


def test_harmless_signature_changes_are_taken_and_real_ones_are_not() -> None:
    name = "pgste_perform_essa"
    assert harmless(SIG, SIG.replace("int orc", "unsigned int orc"), name)
    assert harmless(SIG, SIG.replace("int orc", "const unsigned orc"), name)
    assert harmless(SIG, SIG.replace("*oldpte", "*old_pte"), name)  # a parameter renamed
    assert harmless("static inline int f(pte_t pte)", "static __always_inline int f(pte_t p)", "f")
    assert not harmless(SIG, SIG.replace(", int orc", ""), name)  # a parameter removed
    assert not harmless(SIG, SIG.replace("int orc", "long orc"), name)  # another width
    assert not harmless(SIG, SIG.replace("unsigned long *oldpte", "unsigned long oldpte"), name)
    assert not harmless(SIG, SIG.replace("struct mm_struct", "struct gmap"), name)


def test_extract_takes_a_harmless_change_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "a.c").write_text(SIG.replace("int orc", "unsigned int orc") + "\n{\n\treturn 0;\n}\n")
    notes: list[str] = []
    (text,) = extract(tmp_path, [Want("a.c", "pgste_perform_essa", signature=SIG)], notes)
    assert "unsigned int orc" in text
    assert notes and "differs harmlessly" in notes[0] and "unsigned int orc" in notes[0]
    (tmp_path / "a.c").write_text(SIG.replace(", int orc", "") + "\n{\n\treturn 0;\n}\n")
    with pytest.raises(ExtractError, match="the signature of pgste_perform_essa changed"):
        extract(tmp_path, [Want("a.c", "pgste_perform_essa", signature=SIG)], notes)


def test_a_compiler_error_names_the_helper_and_the_file_to_add_it_to() -> None:
    stderr = (
        "In file included from x.c:1:\n"
        "arch/s390/mm/pgtable.c: In function \u2018pgste_perform_essa\u2019:\n"
        "arch/s390/mm/pgtable.c:1050:13: error: implicit declaration of function \u2018test_bit\u2019 "
        "[-Werror=implicit-function-declaration]\n"
        "arch/s390/mm/pgtable.c:1060:9: error: \u2018_PGSTE_GPS_NEW\u2019 undeclared (first use in this function)\n"
        "arch/s390/kvm/priv.c: In function 'handle_essa':\n"
        "arch/s390/kvm/priv.c:1300:20: error: 'struct kvm_s390_sie_block' has no member named 'cbrlo2'\n"
    )  # fmt: skip
    msg = compile_error(stderr, HARNESSES["classic"], "6.13.0", Path("/tree"))
    assert ("- pgste_perform_essa (arch/s390/mm/pgtable.c) calls test_bit: add a stub for the "
            "helper test_bit in conformance/engines/linux/classic_stubs.h") in msg
    assert "uses _PGSTE_GPS_NEW: add a definition of _PGSTE_GPS_NEW" in msg
    assert ("handle_essa (arch/s390/kvm/priv.c) uses cbrlo2 of struct kvm_s390_sie_block: add "
            "the member cbrlo2 to struct kvm_s390_sie_block") in msg
    assert msg.rstrip().endswith("has no member named 'cbrlo2'")  # the compiler's own lines


def _tree(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    (root / "Makefile").write_text("VERSION = 7\nPATCHLEVEL = 2\nSUBLEVEL = 0\n")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_the_essa_code_is_found_by_function_wherever_it_is(tmp_path: Path) -> None:
    body = "(int orc)\n{\n\treturn orc;\n}\n"
    moved = _tree(tmp_path / "moved", {"arch/s390/kvm/gmap/cmma.c": "int dat_perform_essa" + body,
                                       "arch/s390/kvm/gmap/other.c": "int f(void);\n"})
    assert implementation(moved) == ("gmap", "dat_perform_essa in arch/s390/kvm/gmap/cmma.c")
    classic = _tree(tmp_path / "classic", {"arch/s390/kvm/essa.c": "int pgste_perform_essa" + body})
    assert implementation(classic) == ("classic", "pgste_perform_essa in arch/s390/kvm/essa.c")
    # a declaration or a call is not a definition: such a tree has no harness, and is told so
    none = _tree(tmp_path / "none", {"arch/s390/kvm/dat.c": "int dat_perform_essa(int orc);\n"})
    with pytest.raises(ExtractError, match=r"defines neither dat_perform_essa nor "
                       r"pgste_perform_essa in any file under arch/s390: no harness can build"):
        implementation(none)


def test_prune_keeps_the_most_recently_used_builds(tmp_path: Path) -> None:
    now = time.time()
    for i in range(6):
        d = tmp_path / ("6.1.0" if i < 3 else "6.12.0") / f"classic-{i:016x}"
        d.mkdir(parents=True)
        os.utime(d, (now - 100 + i, now - 100 + i))
    (tmp_path / "src" / "linux-source-6.12-x").mkdir(parents=True)
    removed = prune(tmp_path, keep=2)
    assert sorted(d.name for d in removed) == [f"classic-{i:016x}" for i in range(4)]
    assert not (tmp_path / "6.1.0").exists()  # emptied: removed too
    assert sorted(d.name for d in (tmp_path / "6.12.0").iterdir()) == ["classic-0000000000000004",
                                                                      "classic-0000000000000005"]
    assert (tmp_path / "src" / "linux-source-6.12-x").is_dir()  # the unpacked trees are not builds


def test_only_spells_a_constant_set() -> None:
    assert check.parse_only("StorageKeys=1, facility147=0,cbrl_size=2,CMMAEnabled=yes") == \
        check.EssaProfileRequest(storage_keys=True, facility147=False, cbrl_size=2, cmma_enabled=True)
    with pytest.raises(Exception, match="expected NAME=VALUE"):
        check.parse_only("Nope=1")


# ------------------------------------------------------------------ with the toolchain

_missing = toolchain_missing() or (
    "" if os.environ.get("KERNEL_SRC") or DEFAULT_TARBALL.is_file()
    else f"no KERNEL_SRC and no {DEFAULT_TARBALL}: apt-get install {' '.join(APT_PACKAGES)}"
)  # fmt: skip
needs_kernel = pytest.mark.skipif(bool(_missing), reason=f"the kernel's ESSA code: {_missing}")


def _planted(tmp_path: Path, name: str, old: str, new: str, path: str = PGTABLE_C) -> Path:
    """A copy of the unpacked tree (only arch/s390 and the Makefile) with ``old`` replaced by
    ``new`` in ``path``, once."""
    tree = build("classic").tree
    copy = tmp_path / name
    shutil.copytree(tree / "arch" / "s390", copy / "arch" / "s390")
    shutil.copy(tree / "Makefile", copy / "Makefile")
    f = copy / path
    text = f.read_text()
    assert text.count(old) == 1, f"{old!r} is not once in {path}"
    f.write_text(text.replace(old, new))
    return copy


#: Linux 6.12's ESSA_SET_STABLE case clears the usage and N; the regression leaves N set.
SET_STABLE = "pgstev &= ~(_PGSTE_GPS_USAGE_MASK | _PGSTE_GPS_NODAT);\n\t\tpgstev |= _PGSTE_GPS_USAGE_STABLE;"
BROKEN_SET_STABLE = "pgstev &= ~_PGSTE_GPS_USAGE_MASK;\n\t\tpgstev |= _PGSTE_GPS_USAGE_STABLE;"
ONE = "StorageKeys=0,Facility147=1,CBRLSize=1,CMMAEnabled=1"


@needs_kernel
def test_a_planted_regression_fails_the_gate_in_the_kernels_terms(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    broken = _planted(tmp_path, "linux", SET_STABLE, BROKEN_SET_STABLE)
    out = io.StringIO()
    status = check.main(["--kernel-src", str(broken), "--only", ONE, "--out", str(tmp_path / "out")], out)
    text = out.getvalue()
    assert status == 1, text
    lines = text.rstrip().splitlines()
    assert lines[-1] == ("kernel-check: 1 of 1 profiles diverge; first: ESSA ORC 1 "
                         "(ESSA_SET_STABLE) page 0: pages[0].nodat is True where the spec says "
                         "False (pgste_perform_essa)")
    assert text.count("DIVERGENCE at step") == 1
    # the step in the kernel's terms: the raw PGSTE before and after, decoded, and the calls
    assert ("page 0 before pte=0x0000000000000400 [pte_none: _PAGE_INVALID] "
            "pgste=0x0000000040000000 [_PGSTE_GPS_USAGE_STABLE|_PGSTE_GPS_NODAT]") in text
    assert "page 0 after pte=0x0000000000000400 [pte_none: _PAGE_INVALID] pgste=0x0000000040000000" in text
    assert "kernel function: pgste_perform_essa" in text
    assert "\n  handle_essa\n    __do_essa\n      kvm_s390_get_regs_rre\n      pgste_perform_essa\n" in text
    assert "CBRL before 0:" in text
    # --report-only reports the same and exits 0
    assert check.main(["--kernel-src", str(broken), "--only", ONE, "--out", str(tmp_path / "out"),
                       "--report-only"], io.StringIO()) == 0  # fmt: skip
    # the saved trace, replayed on the kernel: the broken tree diverges, the fixed one conforms
    trace = next((tmp_path / "out").rglob("trace.jsonl"))
    assert f"REPLAY={trace}" in text
    replayed = io.StringIO()
    assert check.main(["--kernel-src", str(broken), "--replay", str(trace)], replayed) == 1
    assert replayed.getvalue().rstrip().splitlines()[-1].endswith(
        "at step 2: ESSA ORC 1 (ESSA_SET_STABLE) page 0: pages[0].nodat is True where the spec "
        "says False (pgste_perform_essa)")
    fixed = io.StringIO()
    assert check.main(["--replay", str(trace)], fixed) == 0
    assert "the kernel now answers Done R1=0x22 (S, preserved, N) [S; S]" in fixed.getvalue()
    assert "conforms to KVMClassic on" in fixed.getvalue()
    # before/after: the fixed and the broken tree through the same (random) programs
    base, patched = build("classic"), build("classic", str(broken))
    compared = io.StringIO()
    assert check.compare(base, patched, "classic", compared, only=check.parse_only(ONE),
                         tours=False) == 1  # fmt: skip
    text = compared.getvalue()
    assert "ESSA ORC 1 (ESSA_SET_STABLE) page 0: pages[0].nodat differ" in text
    assert re.search(r"\nbase: +Done R1=.* no nodat!", text)
    assert re.search(r"\npatched: +Done R1=[^\n]*(?<!no) nodat!", text)
    assert text.rstrip().splitlines()[-1].startswith("kernel-check: the trees answer differently")
    same = io.StringIO()
    assert check.compare(base, base, "classic", same, only=check.parse_only(ONE), tours=False) == 0
    assert same.getvalue().rstrip().endswith("0 divergences") or "answer alike" in same.getvalue()
    capsys.readouterr()


@needs_kernel
def test_a_refusal_is_spelled_out_as_what_the_harness_did() -> None:
    from conformance.engines.linux.engine import ClassicKernelEngine
    from conformance.essa import EssaRequest
    from refimpl.essa import EssaProfile

    engine = ClassicKernelEngine()
    try:
        profile = check.EssaProfileRequest(impl="KVMClassic", storage_keys=True, facility147=False,
                                           cbrl_size=1, pages=2).profile(2)  # fmt: skip
        assert isinstance(profile, EssaProfile)
        terms = engine.explain(profile, [EssaRequest("ESSA", 0, 3), EssaRequest("ESSA", 1, 3)])
    finally:
        engine.close()
    text = "\n".join(terms)
    assert ("the harness: the CBRL was full (1 of 1 entries; handle_essa queued 1 more): the "
            "harness rolled the ESSA back (host state restored from a snapshot taken before "
            "handle_essa)") in text
    assert "CBRL before 1: 0x0\nCBRL after 1: 0x0" in text
    assert "key=0x00 []" in text  # a VM with storage keys shows the frame's key


@needs_kernel
def test_a_harmless_signature_change_builds_and_a_missing_helper_is_named(tmp_path: Path) -> None:
    unsigned = _planted(tmp_path, "unsigned", "unsigned long hva, int orc,",
                        "unsigned long hva, unsigned int orc,")  # fmt: skip
    notes: list[str] = []
    built = build("classic", str(unsigned), notes)
    assert built.binary.is_file()
    assert any("the signature of pgste_perform_essa differs harmlessly" in n for n in notes)
    assert not any(n.startswith("compiler:") for n in notes), notes  # no warning on a build
    helper = _planted(tmp_path, "helper", SET_STABLE,
                      "if (kvm_s390_pv_cpu_is_protected(NULL))\n\t\t\tpgstev = 0;\n\t\t"
                      + SET_STABLE)  # fmt: skip
    with pytest.raises(RuntimeError) as exc:
        build("classic", str(helper))
    # A helper of KVM's own (the common bitops and atomics are the harness's, kernel_bitops.h).
    assert ("pgste_perform_essa (arch/s390/mm/pgtable.c) calls kvm_s390_pv_cpu_is_protected: add a "
            "stub for the helper kvm_s390_pv_cpu_is_protected in "
            "conformance/engines/linux/classic_stubs.h") in str(exc.value)


FAKE_HARNESS = """\
import sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    log.write(line)
    log.flush()
    op = line.split()[0]
    if op in ("hello", "reset", "save", "restore"):
        print("ok" if op in ("hello", "reset") or SNAPSHOTS else "error cannot do: " + line.strip())
    else:
        print("Done -1 -1 S10000-")
    sys.stdout.flush()
"""


@pytest.mark.parametrize("snapshots", [True, False])
def test_the_engine_pipelines_and_saves_states_only_for_a_harness_that_can(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snapshots: bool) -> None:  # fmt: skip
    """A second harness (e.g. the new gmap's) is one more entry of kernels.HARNESSES: the engine
    sends it save/restore only if the entry says it answers them. The harness here is a stand-in
    speaking the line protocol (no kernel code), logging what it reads."""
    import sys
    from dataclasses import replace

    from conformance.engines.linux import engine as engine_module
    from conformance.engines.linux.kernels import Built
    from conformance.essa import EssaRequest

    script = tmp_path / "fake.py"
    script.write_text(f"SNAPSHOTS = {snapshots}\n" + FAKE_HARNESS)
    log = tmp_path / "log"
    monkeypatch.setitem(HARNESSES, "fake", replace(HARNESSES["classic"], name="fake",
                                                   trace=False, snapshots=snapshots))  # fmt: skip
    monkeypatch.setitem(engine_module.IMPL, "fake", "KVMClassic")
    engine = engine_module.KernelEssaEngine("fake")
    engine.built = Built(script, (sys.executable, str(script), str(log)), "0.0", tmp_path)
    a, b, c = EssaRequest("Write", 0), EssaRequest("HostReclaim", 0), EssaRequest("Read", 0)
    # shared prefixes: the fourth starts after (a, b), saved while the third ran; the last is known
    programs = [(a, b), (a, c), (a, b, c), (a, b, a), (a, c)]
    try:
        engine.hello(check.EssaProfileRequest(pages=1))
        replies = list(engine.exchange(programs))
        assert engine.explain(check.EssaProfileRequest(pages=1).profile(1), [a]) == [
            "(the fake harness does not show a step in the kernel's terms)"]
    finally:
        engine.close()
    assert [r is None for r in replies] == [True, False, False] * 2 + [True, False, False, False] * 2 + [True, False, False]
    sent = log.read_text().splitlines()
    assert ("restore 1" in sent) == ("save 1" in sent) == snapshots
    assert not snapshots or sent[sent.index("restore 1") + 1] == "write 0 1"
    assert sent.count("write 0 1") == (4 if snapshots else 5)  # the fourth's prefix restored or replayed
    assert engine.memoized == (4 if snapshots else 2)
