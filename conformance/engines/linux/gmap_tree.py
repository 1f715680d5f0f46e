"""Lay out a gmap (Linux 7.x) kernel tree for the gmap harness, and check its files' git blob ids.

The gmap harness needs only a few files of a 7.x tree (:data:`FILES`). They come from a real
checkout (``--from ~/linux``, or $KERNEL_SRC) or one by one (``PATH=FILE``, e.g. a file read from
a public repository at a pinned commit). Every file laid out is hashed as git hashes a blob
(``git hash-object``) and looked up in :data:`KNOWN`, the ids of the files the post-fix and the
three pre-fix trees were assembled from (conformance/engines/linux/README.md, "The new gmap");
a file whose id is not there is reported as unknown (a tree of another version is not wrong, but
its verdicts are its own). No kernel code is in this repository: the tree goes where ``OUT`` says,
outside it.

    python -m conformance.engines.linux.gmap_tree OUT [--from TREE] [--version 7.1] [PATH=FILE ...]
    python -m conformance.engines.linux.gmap_tree --check TREE
    python -m conformance.engines.linux.gmap_tree --git COMMIT OUT

``--git`` prints the shell commands that lay the tree out of a kernel git clone at COMMIT (run in
the clone): ``git show COMMIT:PATH`` for each file of :data:`FILES` the commit has, its Makefile,
then ``--check`` of the tree; nothing is run.

Exit status: 0 when every file is laid out (or, with ``--check``, present), 1 when one is missing,
2 on a bad command line. ``--strict`` also exits 1 when a file's blob id is unknown.
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

#: What the gmap harness reads, for each layout: 7.0 .. 7.2 keep the gmap code in arch/s390/kvm/;
#: 7.3 moved it to arch/s390/kvm/gmap/ (and a published series moves the ESSA code on to
#: gmap/cmma.c); torvalds/linux @ 1526a27e7930 moves the rest of s390's KVM to arch/s390/kvm/s390/
#: ("split": priv.c there). :func:`layout` finds which one a tree has.
HOST: Final = ("arch/s390/mm/gmap_helpers.c", "arch/s390/include/asm/pgtable.h",
               "arch/s390/include/asm/dat-bits.h")  # fmt: skip
COMMON: Final = ("arch/s390/kvm/priv.c", *HOST)
GMAP_DIR: Final = ("arch/s390/kvm/gmap/dat.c", "arch/s390/kvm/gmap/dat.h", "arch/s390/kvm/gmap/gmap.h")
LAYOUTS: Final[dict[str, tuple[str, ...]]] = {
    "7.0": ("arch/s390/kvm/dat.c", "arch/s390/kvm/dat.h", "arch/s390/kvm/gmap.h", *COMMON),
    "7.3": (*GMAP_DIR, *COMMON),
    "cmma": ("arch/s390/kvm/gmap/cmma.c", *GMAP_DIR, *COMMON),
    "split": (*GMAP_DIR, "arch/s390/kvm/s390/priv.c", *HOST),
}  # fmt: skip
#: Every file any layout reads (what ``--from`` copies when present).
FILES: Final = tuple(dict.fromkeys(p for files in LAYOUTS.values() for p in files))


@dataclass(frozen=True)
class Known:
    """A file version the trees were assembled from: its blob id (a prefix of at least 12 hex
    digits), where it was read and what it is."""

    path: str
    blob: str
    source: str
    role: str


_GREGKH_POST = "gregkh/linux@37f32d5ab83968d63cfba6092ecaae3e582db964"
_GREGKH_PRE = "gregkh/linux@2d505c290667eba67352c5db303ec92b7de860ad"
_TORVALDS = "torvalds/linux@42d3b66d4cdbacfc9d120d2301b8de89cc29a914"
_DEBIAN = "Debian linux-source-6.12 6.12.117-1~deb12u1, arch/s390/include/asm/pgtable.h"
_UNUSED_FIX = ("[PATCH v5 1/9] s390/mm: Fix handling of _PAGE_UNUSED pte bit (2026-06-22; "
               "upstream d4bb00704a66, 2d8c78fd98b1)")  # fmt: skip

#: The blob ids of the files of the four assembled trees (README.md, "The new gmap").
KNOWN: Final[tuple[Known, ...]] = (
    Known("arch/s390/kvm/dat.c", "4a41c0247ffa", _GREGKH_POST, "every tree"),
    Known("arch/s390/kvm/dat.h", "873e13ac5a27", _GREGKH_PRE, "every tree"),
    Known("arch/s390/kvm/gmap.h", "742e42a31744", _GREGKH_POST,
          "fixed: _gmap_ptep_xchg clears pgste.zero (KVM: s390: Properly reset zero bit in PGSTE)"),
    Known("arch/s390/kvm/gmap.h", "6e51ec6066b4", _GREGKH_PRE,
          "pre-fix StickyZero: _gmap_ptep_xchg keeps pgste.zero"),
    Known("arch/s390/kvm/priv.c", "447ec7ed423d",
          "gregkh/linux@ca42c16638d5570c44842ff68a772c62e6dd0124",
          "fixed: _essa_clear_cbrl zaps the host virtual address"),
    Known("arch/s390/kvm/priv.c", "cc0553da14cb",
          "gregkh/linux@ca42c16638d5570c44842ff68a772c62e6dd0124 with the fix reverted (the "
          "ESSA code of torvalds/linux@42d3b66d4cdbacfc9d120d2301b8de89cc29a914)",
          "pre-fix CBRLGuestAddress: _essa_clear_cbrl zaps the guest absolute address"),
    Known("arch/s390/mm/gmap_helpers.c", "2d65c9bd5ec7",
          "gregkh/linux@89fa757931dc0bcd64ef22b28d1d5ad00c5d02f4 + " + _UNUSED_FIX,
          "fixed: gmap_helper_try_set_pte_unused marks present PTEs only"),
    Known("arch/s390/mm/gmap_helpers.c", "396207163ca6",
          "gregkh/linux@89fa757931dc0bcd64ef22b28d1d5ad00c5d02f4",
          "pre-fix StaleUnusedBit: gmap_helper_try_set_pte_unused marks any PTE"),
    # the patch's own base and result (its index line): another version of the file
    Known("arch/s390/mm/gmap_helpers.c", "60023b6fdcb1", _UNUSED_FIX + ", as posted",
          "fixed (the patch's own result)"),
    Known("arch/s390/mm/gmap_helpers.c", "1cfe4724fbe2", _UNUSED_FIX + ", its base",
          "pre-fix StaleUnusedBit (the patch's own base)"),
    Known("arch/s390/include/asm/pgtable.h", "d03663483f76", _UNUSED_FIX + ", as posted",
          "fixed: set_pte clears _PAGE_UNUSED of a present PTE (the patch's own result)"),
    Known("arch/s390/include/asm/pgtable.h", "ca376a9b8e41", _UNUSED_FIX + ", its base",
          "pre-fix StaleUnusedBit: set_pte keeps _PAGE_UNUSED (the patch's own base)"),
    Known("arch/s390/include/asm/dat-bits.h", "c40874e0e426", _TORVALDS, "every tree"),
    # no 7.x pgtable.h is stored: Debian's linux-source-6.12 (6.12.117-1~deb12u1) has the same
    # set_pte as the patch's base (its context lines), and the patch's set_pte hunk applies to it
    Known("arch/s390/include/asm/pgtable.h", "cf5a6af9cf41", _DEBIAN,
          "pre-fix StaleUnusedBit: set_pte keeps _PAGE_UNUSED"),
    Known("arch/s390/include/asm/pgtable.h", "812d7a00b314", _DEBIAN + " + the set_pte hunk of "
          + _UNUSED_FIX, "fixed: set_pte clears _PAGE_UNUSED of a present PTE"),
)  # fmt: skip


def blob_id(data: bytes) -> str:
    """The git blob id of ``data`` (what ``git hash-object`` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def known(path: str, blob: str) -> Known | None:
    """The known version of ``path`` with blob id ``blob`` (full or abbreviated), or None. A known
    entry without an id matches nothing."""
    for k in KNOWN:
        if k.path == path and k.blob and (blob.startswith(k.blob) or k.blob.startswith(blob)):
            return k
    return None


def layout(tree: Path) -> str | None:
    """Which layout of :data:`LAYOUTS` ``tree`` has (the most specific whose files all exist),
    or None."""
    for name in ("cmma", "split", "7.3", "7.0"):
        if all((tree / p).is_file() for p in LAYOUTS[name]):
            return name
    return None


def missing(tree: Path) -> list[str]:
    """The files of the nearest layout that ``tree`` lacks (empty when one is complete)."""
    gaps = {name: [p for p in files if not (tree / p).is_file()] for name, files in LAYOUTS.items()}
    return min(gaps.values(), key=len)


@dataclass(frozen=True)
class Checked:
    """One file of a tree: its path, blob id and the known version it is (None: unknown)."""

    path: str
    blob: str
    known: Known | None

    def line(self) -> str:
        if self.known is None:
            return f"{self.path}: blob {self.blob[:12]} unknown"
        k = self.known
        return f"{self.path}: blob {self.blob[:12]} known: {k.source} ({k.role})"


def check(tree: Path, paths: Iterable[str] = FILES) -> list[Checked]:
    """Every file of ``paths`` that ``tree`` has, with its blob id and known version."""
    out = []
    for p in paths:
        f = tree / p
        if f.is_file():
            b = blob_id(f.read_bytes())
            out.append(Checked(p, b, known(p, b)))
    return out


def lay_out(out: Path, files: dict[str, Path], version: str | None = None) -> list[Checked]:
    """Copy ``files`` (tree path -> source file) into the tree ``out``, write its top Makefile
    (the version, which the harness's cache is keyed by; copied when ``files`` has one), and
    return the checked files."""
    for p, src in files.items():
        dest = out / p
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
    if "Makefile" not in files:
        out.mkdir(parents=True, exist_ok=True)
        (out / "Makefile").write_text(makefile(version or "7.0"))
    return check(out, [p for p in files if p != "Makefile"])


def makefile(version: str) -> str:
    """A top Makefile naming ``version`` (``7.1``, ``7.1.0``, ``7.1-postfix``: the part after the
    dash is the EXTRAVERSION, default ``-gmap``), which is all the harness reads of it."""
    numbers, dash, extra = version.partition("-")
    major, minor, sub = ([*numbers.split("."), "0", "0"])[:3]
    if not (major.isdigit() and minor.isdigit() and sub.isdigit()):
        raise ValueError(f"not a kernel version: {version}")
    return (f"VERSION = {major}\nPATCHLEVEL = {minor}\nSUBLEVEL = {sub}\n"
            f"EXTRAVERSION = -{extra if dash else 'gmap'}\n")  # fmt: skip


def git_commands(commit: str, out: Path) -> list[str]:
    """The commands that lay out ``out`` from a kernel git clone at ``commit`` (run in the
    clone): each file any layout reads, where the commit has it, then the Makefile, then the
    check of the tree's blob ids and layout."""
    q = shlex.quote
    lines = [f"mkdir -p {q(str(out))}"]
    for p in (*FILES, "Makefile"):
        dest = q(str(out / p))
        lines.append(f"git cat-file -e {q(f'{commit}:{p}')} 2>/dev/null && mkdir -p "
                     f"{q(str((out / p).parent))} && git show {q(f'{commit}:{p}')} > {dest}")  # fmt: skip
    lines.append(f"python -m conformance.engines.linux.gmap_tree --check {q(str(out))}")
    return lines


def report(checked: Sequence[Checked], tree: Path, out: TextIO) -> int:
    """Print each file's line and the layout; the number of unknown files."""
    for c in checked:
        print(c.line(), file=out)
    name = layout(tree)
    if name is None:
        print(f"{tree}: no complete gmap layout; missing {', '.join(missing(tree))}", file=out)
    else:
        print(f"{tree}: layout {name} (the files of {', '.join(LAYOUTS[name][:2])}, ...)", file=out)
    return sum(c.known is None for c in checked)


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.engines.linux.gmap_tree",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    parser.add_argument("out", nargs="?", type=Path, help="the tree to lay out (outside the repo)")
    parser.add_argument("files", nargs="*", metavar="PATH=FILE",
                        help="a file of the tree, e.g. arch/s390/kvm/dat.c=/tmp/dat.c")
    parser.add_argument("--from", dest="src", type=Path,
                        help="a kernel checkout to copy the files from (default: $KERNEL_SRC)")
    parser.add_argument("--version", help="the version the tree's Makefile names when no Makefile "
                        "is given (e.g. 7.1 or 7.1-postfix; the harness's cache is keyed by it)")
    parser.add_argument("--check", type=Path, metavar="TREE", help="only check TREE's files")
    parser.add_argument("--git", metavar="COMMIT",
                        help="print the commands that lay OUT out of a kernel git clone at COMMIT "
                             "(git show COMMIT:PATH for each file, then --check OUT); run them in "
                             "the clone")  # fmt: skip
    parser.add_argument("--strict", action="store_true", help="exit 1 on an unknown blob id")
    args = parser.parse_intermixed_args(argv)
    if args.check is not None:
        checked = check(args.check)
        unknown = report(checked, args.check, out)
        return 1 if layout(args.check) is None or (args.strict and unknown) else 0
    if args.out is None:
        parser.error("name the tree to lay out (OUT), or --check TREE")
    if args.git is not None:
        print("\n".join(git_commands(args.git, args.out.resolve())), file=out)
        return 0
    files: dict[str, Path] = {}
    src = args.src
    if src is None and not args.files:
        import os
        src = Path(os.environ["KERNEL_SRC"]) if os.environ.get("KERNEL_SRC") else None
    if src is not None:
        if not src.is_dir():
            parser.error(f"{src} is not a directory")
        files.update({p: src / p for p in (*FILES, "Makefile") if (src / p).is_file()})
    for spec in args.files:
        path, eq, file = spec.partition("=")
        if not eq or not Path(file).is_file():
            parser.error(f"{spec}: give PATH=FILE with an existing FILE")
        files[path] = Path(file)
    if not files:
        parser.error("no files: give --from TREE, $KERNEL_SRC or PATH=FILE")
    checked = lay_out(args.out, files, args.version)
    unknown = report(checked, args.out, out)
    return 1 if layout(args.out) is None or (args.strict and unknown) else 0


if __name__ == "__main__":
    sys.exit(main())
