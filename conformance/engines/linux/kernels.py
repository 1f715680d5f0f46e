"""What each harness takes from the kernel, and building it for s390x.

:data:`CLASSIC` lists, in the order they are compiled, the kernel definitions the classic KVM
harness is made of (the ESSA instruction's software path and everything it calls down to the
PGSTE). :func:`build` finds the tree (``KERNEL_SRC``, else Debian's linux-source tarball),
extracts them (:mod:`.extract`), compiles them with the stubs and the host model for s390x, and
caches the binary under ``.cache/linux/<kernel version>/`` keyed by a hash of everything that
went in, so a second build costs nothing.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from . import gmap
from .extract import (
    FUNCTION, MACRO, TYPE, VARIABLE, ExtractError, Want, extract, find_function, read_source, unpack, version,
)  # fmt: skip

HERE: Final = Path(__file__).resolve().parent
REPO: Final = HERE.parents[2]
CACHE: Final = Path(os.environ.get("CMMA_CACHE", REPO / ".cache")) / "linux"
#: Debian's kernel source package, the default tree ($KERNEL_TARBALL names another tarball).
DEFAULT_TARBALL: Final = Path(os.environ.get("KERNEL_TARBALL", "/usr/src/linux-source-6.12.tar.xz"))
CC: Final = os.environ.get("S390X_CC", "s390x-linux-gnu-gcc")
QEMU: Final = os.environ.get("QEMU_S390X", "qemu-s390x")
#: The Debian packages that provide the toolchain and the default tree. The C library headers
#: (libc6-dev-s390x-cross) are only a Recommends of the compiler, which an install with
#: --no-install-recommends drops: without them no harness compiles (bits/wordsize.h).
APT_PACKAGES: Final = ("gcc-s390x-linux-gnu", "libc6-dev-s390x-cross", "qemu-user", "linux-source-6.12")
#: The headers the harness needs from the cross C library; the probe preprocesses them.
LIBC_HEADERS: Final = ("bits/wordsize.h", "stdint.h", "stdio.h", "stdlib.h", "string.h")

PGTABLE_H: Final = "arch/s390/include/asm/pgtable.h"
PAGE_H: Final = "arch/s390/include/asm/page.h"
PAGE_STATES_H: Final = "arch/s390/include/asm/page-states.h"
KVM_HOST_H: Final = "arch/s390/include/asm/kvm_host.h"
KVM_S390_H: Final = "arch/s390/kvm/kvm-s390.h"
PGTABLE_C: Final = "arch/s390/mm/pgtable.c"
GMAP_C: Final = "arch/s390/mm/gmap.c"
PRIV_C: Final = "arch/s390/kvm/priv.c"
DAT_C: Final = "arch/s390/kvm/dat.c"
KVM_S390_C: Final = "arch/s390/kvm/kvm-s390.c"
UAPI_KVM_H: Final = "arch/s390/include/uapi/asm/kvm.h"


def _macros(path: str, *names: str) -> list[Want]:
    return [Want(path, n, MACRO) for n in names]


def _f(path: str, name: str, signature: str) -> Want:
    return Want(path, name, FUNCTION, signature)


#: The classic implementation (PGSTEs in the host's page tables; Linux 4.13 .. 6.x).
CLASSIC: Final[tuple[Want, ...]] = (
    *_macros(PGTABLE_H, "_PAGE_PROTECT", "_PAGE_INVALID", "_PAGE_PRESENT", "_PAGE_YOUNG",
             "_PAGE_DIRTY", "_PAGE_READ", "_PAGE_WRITE", "_PAGE_UNUSED", "_PAGE_ENTRIES",
             "PTRS_PER_PTE", "PGSTE_ACC_BITS", "PGSTE_FP_BIT", "PGSTE_PCL_BIT", "PGSTE_HR_BIT",
             "PGSTE_HC_BIT", "PGSTE_GR_BIT", "PGSTE_GC_BIT", "PGSTE_UC_BIT", "PGSTE_IN_BIT",
             "PGSTE_VSIE_BIT", "_PGSTE_GPS_ZERO", "_PGSTE_GPS_NODAT", "_PGSTE_GPS_USAGE_MASK",
             "_PGSTE_GPS_USAGE_STABLE", "_PGSTE_GPS_USAGE_UNUSED", "_PGSTE_GPS_USAGE_POT_VOLATILE",
             "_PGSTE_GPS_USAGE_VOLATILE", "IPTE_GLOBAL", "IPTE_LOCAL", "IPTE_NODAT",
             "IPTE_GUEST_ASCE", "__SWP_OFFSET_MASK", "__SWP_OFFSET_SHIFT", "__SWP_TYPE_MASK",
             "__SWP_TYPE_SHIFT", "__pte_to_swp_entry"),
    *_macros(PAGE_H, "_PAGE_CHANGED", "_PAGE_REFERENCED", "_PAGE_FP_BIT", "_PAGE_ACC_BITS"),
    *_macros(PAGE_STATES_H, "ESSA_GET_STATE", "ESSA_SET_STABLE", "ESSA_SET_UNUSED",
             "ESSA_SET_VOLATILE", "ESSA_SET_POT_VOLATILE", "ESSA_SET_STABLE_RESIDENT",
             "ESSA_SET_STABLE_IF_RESIDENT", "ESSA_SET_STABLE_NODAT", "ESSA_MAX"),
    *_macros(KVM_HOST_H, "ECB2_CMMA", "PGM_OPERATION", "PGM_PRIVILEGED_OP", "PGM_ADDRESSING",
             "PGM_SPECIFICATION"),
    _f(PGTABLE_H, "mm_has_pgste", "static inline int mm_has_pgste(struct mm_struct *mm)"),
    _f(PGTABLE_H, "clear_pte_bit", "static inline pte_t clear_pte_bit(pte_t pte, pgprot_t prot)"),
    _f(PGTABLE_H, "set_pte_bit", "static inline pte_t set_pte_bit(pte_t pte, pgprot_t prot)"),
    _f(PGTABLE_H, "mm_uses_skeys", "static inline int mm_uses_skeys(struct mm_struct *mm)"),
    _f(PGTABLE_H, "pte_present", "static inline int pte_present(pte_t pte)"),
    _f(PGTABLE_H, "pte_none", "static inline int pte_none(pte_t pte)"),
    _f(PGTABLE_H, "pte_swap", "static inline int pte_swap(pte_t pte)"),
    _f(PGTABLE_H, "pte_unused", "static inline int pte_unused(pte_t pte)"),
    _f(PGTABLE_H, "set_pte", "static inline void set_pte(pte_t *ptep, pte_t pte)"),
    _f(PGTABLE_H, "pte_clear",
       "static inline void pte_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)"),
    _f(PGTABLE_H, "mk_swap_pte",
       "static inline pte_t mk_swap_pte(unsigned long type, unsigned long offset)"),
    _f(PGTABLE_H, "__swp_offset", "static inline unsigned long __swp_offset(swp_entry_t entry)"),
    _f(KVM_S390_H, "kvm_s390_get_regs_rre",
       "static inline void kvm_s390_get_regs_rre(struct kvm_vcpu *vcpu, int *r1, int *r2)"),
    _f(PGTABLE_C, "ptep_ipte_local", "static inline void ptep_ipte_local(struct mm_struct *mm, "
       "unsigned long addr, pte_t *ptep, int nodat)"),
    _f(PGTABLE_C, "ptep_ipte_global", "static inline void ptep_ipte_global(struct mm_struct *mm, "
       "unsigned long addr, pte_t *ptep, int nodat)"),
    _f(PGTABLE_C, "ptep_flush_direct", "static inline pte_t ptep_flush_direct(struct mm_struct "
       "*mm, unsigned long addr, pte_t *ptep, int nodat)"),
    _f(PGTABLE_C, "pgste_get_lock", "static inline pgste_t pgste_get_lock(pte_t *ptep)"),
    _f(PGTABLE_C, "pgste_set_unlock",
       "static inline void pgste_set_unlock(pte_t *ptep, pgste_t pgste)"),
    _f(PGTABLE_C, "pgste_get", "static inline pgste_t pgste_get(pte_t *ptep)"),
    _f(PGTABLE_C, "pgste_update_all", "static inline pgste_t pgste_update_all(pte_t pte, "
       "pgste_t pgste, struct mm_struct *mm)"),
    _f(PGTABLE_C, "pgste_set_key", "static inline void pgste_set_key(pte_t *ptep, pgste_t pgste, "
       "pte_t entry, struct mm_struct *mm)"),
    _f(PGTABLE_C, "pgste_set_pte",
       "static inline pgste_t pgste_set_pte(pte_t *ptep, pgste_t pgste, pte_t entry)"),
    _f(PGTABLE_C, "pgste_pte_notify", "static inline pgste_t pgste_pte_notify(struct mm_struct "
       "*mm, unsigned long addr, pte_t *ptep, pgste_t pgste)"),
    _f(PGTABLE_C, "ptep_xchg_start", "static inline pgste_t ptep_xchg_start(struct mm_struct *mm, "
       "unsigned long addr, pte_t *ptep)"),
    _f(PGTABLE_C, "ptep_xchg_commit", "static inline pte_t ptep_xchg_commit(struct mm_struct *mm, "
       "unsigned long addr, pte_t *ptep, pgste_t pgste, pte_t old, pte_t new)"),
    _f(PGTABLE_C, "ptep_xchg_direct", "pte_t ptep_xchg_direct(struct mm_struct *mm, unsigned long "
       "addr, pte_t *ptep, pte_t new)"),
    _f(PGTABLE_C, "ptep_set_pte_at", "void ptep_set_pte_at(struct mm_struct *mm, unsigned long "
       "addr, pte_t *ptep, pte_t entry)"),
    _f(PGTABLE_C, "ptep_zap_swap_entry",
       "static void ptep_zap_swap_entry(struct mm_struct *mm, swp_entry_t entry)"),
    _f(PGTABLE_C, "ptep_zap_unused", "void ptep_zap_unused(struct mm_struct *mm, unsigned long "
       "addr, pte_t *ptep, int reset)"),
    _f(PGTABLE_C, "set_guest_storage_key", "int set_guest_storage_key(struct mm_struct *mm, "
       "unsigned long addr, unsigned char key, bool nq)"),
    _f(PGTABLE_C, "get_guest_storage_key", "int get_guest_storage_key(struct mm_struct *mm, "
       "unsigned long addr, unsigned char *key)"),
    _f(PGTABLE_C, "pgste_perform_essa", "int pgste_perform_essa(struct mm_struct *mm, unsigned "
       "long hva, int orc, unsigned long *oldpte, unsigned long *oldpgste)"),
    _f(PGTABLE_C, "set_pgste_bits", "int set_pgste_bits(struct mm_struct *mm, unsigned long hva, "
       "unsigned long bits, unsigned long value)"),
    _f(PGTABLE_C, "get_pgste",
       "int get_pgste(struct mm_struct *mm, unsigned long hva, unsigned long *pgstep)"),
    _f(GMAP_C, "__gmap_zap", "void __gmap_zap(struct gmap *gmap, unsigned long gaddr)"),
    # the CMMA reset (KVM_S390_VM_MEM_CLR_CMMA): the page walk's callback, its ops, the walk
    _f(GMAP_C, "__s390_reset_cmma", "static int __s390_reset_cmma(pte_t *pte, unsigned long "
       "addr, unsigned long next, struct mm_walk *walk)"),
    Want(GMAP_C, "reset_cmma_walk_ops", VARIABLE),
    _f(GMAP_C, "s390_reset_cmma", "void s390_reset_cmma(struct mm_struct *mm)"),
    # CMMA migration (KVM_S390_VM_MIGRATION_START, KVM_S390_GET/SET_CMMA_BITS)
    Want(UAPI_KVM_H, "struct kvm_s390_cmma_log", TYPE),
    *_macros(UAPI_KVM_H, "KVM_S390_CMMA_PEEK"),
    *_macros(KVM_S390_C, "KVM_S390_MAX_BIT_DISTANCE", "KVM_S390_CMMA_SIZE_MAX"),
    _f(KVM_S390_H, "kvm_s390_get_gfn_end",
       "static inline unsigned long kvm_s390_get_gfn_end(struct kvm_memslots *slots)"),
    _f(KVM_S390_C, "kvm_s390_vm_start_migration",
       "static int kvm_s390_vm_start_migration(struct kvm *kvm)"),
    _f(KVM_S390_C, "kvm_s390_peek_cmma", "static int kvm_s390_peek_cmma(struct kvm *kvm, struct "
       "kvm_s390_cmma_log *args, u8 *res, unsigned long bufsize)"),
    _f(KVM_S390_C, "gfn_to_memslot_approx", "static struct kvm_memory_slot "
       "*gfn_to_memslot_approx(struct kvm_memslots *slots, gfn_t gfn)"),
    _f(KVM_S390_C, "kvm_s390_next_dirty_cmma", "static unsigned long kvm_s390_next_dirty_cmma("
       "struct kvm_memslots *slots, unsigned long cur_gfn)"),
    _f(KVM_S390_C, "kvm_s390_get_cmma", "static int kvm_s390_get_cmma(struct kvm *kvm, struct "
       "kvm_s390_cmma_log *args, u8 *res, unsigned long bufsize)"),
    _f(KVM_S390_C, "kvm_s390_get_cmma_bits",
       "static int kvm_s390_get_cmma_bits(struct kvm *kvm, struct kvm_s390_cmma_log *args)"),
    _f(KVM_S390_C, "kvm_s390_set_cmma_bits", "static int kvm_s390_set_cmma_bits(struct kvm *kvm, "
       "const struct kvm_s390_cmma_log *args)"),
    _f(KVM_S390_C, "kvm_s390_vm_stop_migration",
       "static int kvm_s390_vm_stop_migration(struct kvm *kvm)"),
    # the memslot hooks (KVM_SET_USER_MEMORY_REGION): a memslot created, deleted or changed
    _f(KVM_S390_C, "kvm_arch_prepare_memory_region", "int kvm_arch_prepare_memory_region("
       "struct kvm *kvm, const struct kvm_memory_slot *old, struct kvm_memory_slot *new, "
       "enum kvm_mr_change change)"),
    _f(KVM_S390_C, "kvm_arch_commit_memory_region", "void kvm_arch_commit_memory_region("
       "struct kvm *kvm, struct kvm_memory_slot *old, const struct kvm_memory_slot *new, "
       "enum kvm_mr_change change)"),
    _f(PRIV_C, "__do_essa", "static inline int __do_essa(struct kvm_vcpu *vcpu, const int orc)"),
    _f(PRIV_C, "handle_essa", "static int handle_essa(struct kvm_vcpu *vcpu)"),
)  # fmt: skip

#: Compiled between the extracted definitions: handle_essa's CBRL loop appends to the harness's
#: persistent list instead of zapping at once (the host processes it on HostProcessCBRL).
_BEFORE: Final = {"handle_essa": "#define __gmap_zap harness_cbrl_append\n"}
_AFTER: Final = {"handle_essa": "#undef __gmap_zap\n"}


@dataclass(frozen=True)
class Harness:
    """One implementation's harness: its name, what it takes from the kernel, its own files;
    optionally text compiled before and after a definition (else :data:`_BEFORE`, :data:`_AFTER`),
    and a resolver that finds each definition's file in the tree's own layout."""

    name: str
    wants: tuple[Want, ...]
    stubs: Path
    host: Path
    #: The host records the kernel functions each step runs (-finstrument-functions, and the
    #: address table :func:`source` appends); it defines the hooks and ``struct harness_fn``,
    #: and answers the line protocol's ``explain`` (the last request in the kernel's terms).
    trace: bool = False
    #: The host answers ``save N`` and ``restore N`` (its whole state kept in, or taken back
    #: from, one of the engine's :data:`~.engine.SNAPSHOTS` slots).
    snapshots: bool = False
    #: Kernel functions a report does not blame for a divergence (locks, one-bit setters):
    #: the function that called them decided.
    helpers: frozenset[str] = frozenset()

    #: Text compiled before and after a taken definition (by its name), and a function that
    #: finds each wanted definition in the tree's own layout (the gmap's files moved between
    #: versions); None: the wants' paths as they are, a moved function found by locate().
    before: dict[str, str] | None = None
    after: dict[str, str] | None = None
    resolve: Callable[[Path, tuple[Want, ...]], tuple[Want, ...]] | None = None


HARNESSES: Final[dict[str, Harness]] = {
    "classic": Harness("classic", CLASSIC, HERE / "classic_stubs.h", HERE / "classic_harness.c",
                       trace=True, snapshots=True, helpers=frozenset({
                           "pgste_get_lock", "pgste_set_unlock", "pgste_get", "pgste_set_pte",
                           "pgste_set_key", "pgste_update_all", "pgste_pte_notify", "set_pte",
                           "pte_clear", "set_pte_bit", "clear_pte_bit", "mk_swap_pte",
                           "ptep_xchg_start", "ptep_flush_direct",
                           "ptep_ipte_local", "ptep_ipte_global", "kvm_s390_get_regs_rre",
                           "mm_has_pgste", "mm_uses_skeys", "pte_present", "pte_none",
                           "pte_swap", "pte_unused", "__swp_offset", "gfn_to_memslot_approx",
                           "kvm_s390_next_dirty_cmma", "kvm_s390_get_gfn_end",
                           # sets the PGSTE bits its caller's mask names: the caller's decision
                           "set_pgste_bits"})),
    # the new gmap (Linux 7.x): gmap.py, gmap_stubs.h, gmap_harness.c
    "gmap": Harness("gmap", gmap.GMAP, HERE / "gmap_stubs.h", HERE / "gmap_harness.c",
                    trace=True, snapshots=True, helpers=gmap.HELPERS,
                    before=gmap.BEFORE, after=gmap.AFTER, resolve=gmap.resolve),
}


#: How a tree's ESSA code is recognised: the function that performs ESSA on a PGSTE, and the
#: file it was in when the harness was written. The new gmap (the "KVM: s390: Switch to new
#: gmap" series, Linux 7.x) keeps the PGSTEs beside KVM's own guest page tables
#: (dat_perform_essa); before it, in the host's (pgste_perform_essa). The file is only where to
#: look first: the function is searched for in every file under :data:`SEARCHED` (newer trees
#: moved it, e.g. to arch/s390/kvm/gmap/).
IMPLEMENTATIONS: Final = (("gmap", DAT_C, "dat_perform_essa"),
                          ("classic", PGTABLE_C, "pgste_perform_essa"))  # fmt: skip
#: Where a tree's ESSA code is searched for.
SEARCHED: Final = "arch/s390"


def defining(tree: Path, function: str, hint: str = "") -> str | None:
    """The file (relative to ``tree``) that defines ``function``: ``hint`` if it does, else the
    first .c or .h file under :data:`SEARCHED` that does, in path order; None if none does."""
    if hint and (tree / hint).is_file():
        try:
            find_function(read_source(tree, hint), function)
            return hint
        except ExtractError:
            pass
    root = tree / SEARCHED
    for f in sorted(root.rglob("*.[ch]")) if root.is_dir() else []:
        text = f.read_text(encoding="utf-8", errors="replace")
        if function not in text:
            continue
        try:
            find_function(text, function)
        except ExtractError:
            continue
        return str(f.relative_to(tree))
    return None


#: Preprocessor conditions the ESSA code is known to be compiled under, and what they are.
GUARDS: Final = {"#if KVM_S390_MANAGES_S390_GUEST": "1 in s390's asm/kvm_host.h: the s390 host's "
                 "KVM, which the harness builds; 0 where KVM runs s390 guests on another host"}


def conditions(text: str, line: int) -> list[str]:
    """The preprocessor conditions line ``line`` (from 1) of ``text`` is compiled under,
    outermost first, as written (``#if X``, ``#ifdef X``; an ``#else`` branch as ``#else of
    #if X``); an include guard (``#ifndef X`` then ``#define X``) is left out."""
    lines = text.splitlines()
    stack: list[str] = []
    for i, raw in enumerate(lines[:line - 1]):
        m = re.match(r"\s*#\s*(ifdef|ifndef|if|elif|else|endif)\b(.*)", raw)
        if m is None:
            continue
        kw, rest = m.group(1), re.sub(r"/\*.*?\*/|//.*", "", m.group(2)).strip()
        if kw in ("if", "ifdef", "ifndef"):
            guard = kw == "ifndef" and i + 1 < len(lines) and re.match(
                rf"\s*#\s*define\s+{re.escape(rest)}\b", lines[i + 1]) is not None  # fmt: skip
            stack.append("" if guard else f"#{kw} {rest}")
        elif stack and stack[-1]:
            if kw == "endif":
                stack.pop()
            else:
                stack[-1] = f"#else of {stack[-1]}" if kw == "else" else f"#elif {rest}"
        elif stack and kw == "endif":
            stack.pop()
    return [c for c in stack if c]


def implementation(tree: Path) -> tuple[str, str]:
    """Which ESSA implementation the kernel tree has, ``gmap`` or ``classic``, and where:
    ``pgste_perform_essa in arch/s390/mm/pgtable.c``. Raises ExtractError when it has
    neither, naming what was searched for."""
    for name, path, function in IMPLEMENTATIONS:
        found = defining(tree, function, path)
        if found is not None:
            text = read_source(tree, found)
            under = conditions(text, find_function(text, function)[2])
            return name, f"{function} in {found}" + "".join(
                f", under {c} ({GUARDS.get(c, 'taken whatever it is')})" for c in under)
    raise ExtractError(f"{tree} defines neither " + " nor ".join(
        function for _, _, function in IMPLEMENTATIONS) + f" in any file under {SEARCHED}: no "
        "harness can build it (kernels.IMPLEMENTATIONS names the function each harness needs)")  # fmt: skip


def detect(kernel_src: str | None = None) -> tuple[str, str]:
    """The implementation of ``kernel_src`` (or $KERNEL_SRC, else Debian's tarball's
    arch/s390) and where its ESSA function is (:func:`implementation`). Raises ExtractError."""
    return implementation(kernel_tree(HARNESSES["classic"], kernel_src))


@dataclass(frozen=True)
class Built:
    """A built harness: the binary, the command that runs it, the kernel version and tree."""

    binary: Path
    command: tuple[str, ...]
    kernel: str
    tree: Path


def toolchain_missing() -> str:
    """Why the s390x toolchain cannot be used here, or "" when it can: the compiler, qemu-s390x,
    and the cross C library's headers (asked of the compiler itself, so a compiler with another
    sysroot is judged by what it finds)."""
    missing = [t for t in (CC, QEMU) if shutil.which(t) is None]
    if missing:
        return (f"{' and '.join(missing)} not found: apt-get install "
                f"{' '.join(APT_PACKAGES)}")  # fmt: skip
    return _headers_missing(CC)


@functools.lru_cache(maxsize=None)
def _headers_missing(cc: str) -> str:
    probe = "".join(f"#include <{h}>\n" for h in LIBC_HEADERS)
    # the preprocessed text on the pipe, never ``-o /dev/null``: a failing cpp removes its output
    # file, and run as root that is /dev/null itself
    r = subprocess.run([cc, "-E", "-x", "c", "-"], input=probe,
                       capture_output=True, text=True)  # fmt: skip
    if r.returncode == 0:
        return ""
    first = next((line for line in r.stderr.splitlines() if "error" in line), r.stderr.strip())
    return (f"{cc} finds no s390x C library headers ({first.strip()}): "
            f"apt-get install libc6-dev-s390x-cross")


def kernel_tree(harness: Harness, kernel_src: str | None = None) -> Path:
    """The kernel tree: ``kernel_src`` (or $KERNEL_SRC), else the needed files of the Debian
    tarball (all of arch/s390, where the ESSA code is searched for), unpacked once under
    .cache/linux/src/."""
    src = kernel_src if kernel_src is not None else os.environ.get("KERNEL_SRC")
    if src:
        root = Path(src)
        if not root.is_dir():
            raise ExtractError(f"KERNEL_SRC={src} is not a directory")
        return root
    if harness.resolve is not None:  # the gmap harness: no packaged tree has the new gmap
        raise ExtractError(f"the {harness.name} harness needs a Linux 7.x tree: set KERNEL_SRC "
                           "(python -m conformance.engines.linux.gmap_tree lays one out)")  # fmt: skip
    # tar takes a directory's files with it, and then misses each of them named again
    paths = sorted({SEARCHED, *(w.path for w in harness.wants
                                if not w.path.startswith(SEARCHED + "/"))})  # fmt: skip
    name = DEFAULT_TARBALL.name.split(".tar")[0]
    dest = CACHE / "src" / f"{name}-{tarball_digest(DEFAULT_TARBALL)}"
    root = unpack(DEFAULT_TARBALL, paths, dest)
    # an earlier version of the same package, unpacked before: not used again
    for old in dest.parent.glob(f"{name}-" + "[0-9a-f]" * 16):
        if old != dest and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    return root


def tarball_digest(tarball: Path) -> str:
    """The first 16 hex digits of the tarball's SHA-256: the unpacked files are kept under it, so
    a new package version (the same file name) is unpacked again. The digest is kept beside, keyed
    by the file's size and time, so it is computed once per tarball."""
    if not tarball.is_file():
        raise ExtractError(f"no kernel source tarball {tarball}")
    st = tarball.stat()
    stamp = f"{tarball.resolve()} {st.st_size} {st.st_mtime_ns}"
    memo = CACHE / "src" / (tarball.name + ".sha256")
    if memo.is_file():
        kept, _, digest = memo.read_text().rpartition(" ")
        if kept == stamp:
            return digest.strip()
    h = hashlib.sha256()
    with tarball.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    digest = h.hexdigest()[:16]
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text(f"{stamp} {digest}\n")
    return digest


def locate(tree: Path, wants: tuple[Want, ...], notes: list[str]) -> tuple[Want, ...]:
    """``wants`` with each function the tree moved to another file under :data:`SEARCHED`
    taken from there (a line in ``notes`` says so); one it no longer defines anywhere is left
    for :func:`extract` to name."""
    out = []
    texts: dict[str, str] = {}
    for w in wants:
        if w.kind == FUNCTION and (tree / w.path).is_file():
            text = texts.setdefault(w.path, read_source(tree, w.path))
            if w.name in text:
                try:
                    find_function(text, w.name)
                    out.append(w)
                    continue
                except ExtractError:
                    pass
        if w.kind == FUNCTION:
            found = defining(tree, w.name)
            if found is not None and found != w.path:
                notes.append(f"{w.name} moved from {w.path} to {found}: taken from there")
                w = Want(found, w.name, w.kind, w.signature)
        out.append(w)
    return tuple(out)


def source(harness: Harness, tree: Path, notes: list[str] | None = None) -> str:
    """The one C file that is compiled: the stubs, the kernel's definitions, the host model,
    and (for a harness that traces) the table of the kernel functions by address."""
    notes = [] if notes is None else notes
    wants = (locate(tree, harness.wants, notes) if harness.resolve is None
             else harness.resolve(tree, harness.wants))  # fmt: skip
    parts = [f'#include "{harness.stubs}"\n']
    before = _BEFORE if harness.before is None else harness.before
    after = _AFTER if harness.after is None else harness.after
    for want, text in zip(wants, extract(tree, wants, notes), strict=True):
        parts += [before.get(want.name, ""), text, after.get(want.name, "")]
    if harness.trace:  # the step's record, explain and the saved states, shared by the harnesses
        parts.append(f'#line 1 "{TRACE_H}"\n' + TRACE_H.read_text())
    parts.append(f'#line 1 "{harness.host}"\n' + harness.host.read_text())
    if harness.trace:
        names = [w.name for w in wants if w.kind == FUNCTION]
        parts.append("\n/* the kernel functions taken, by address (kernels.source) */\n"
                     "const struct harness_fn harness_fns[] = {\n"
                     + "".join(f'\t{{ (void *)&{n}, "{n}" }},\n' for n in names)
                     + f"}};\nconst int harness_nfns = {len(names)};\n")  # fmt: skip
    return "".join(parts)


#: What every harness that traces compiles before its host model (harness_trace.h's header).
TRACE_H: Final = HERE / "harness_trace.h"
#: The kernel's common bit operations and atomics, which both harnesses' stubs include.
BITOPS_H: Final = HERE / "kernel_bitops.h"

#: The compiler's options: -finstrument-functions for a harness that traces the kernel
#: functions a step runs (every entry and exit, inlined ones included, calls its hooks).
CFLAGS: Final = ("-O1", "-std=gnu11", "-static", "-Wall", "-Werror=implicit-function-declaration",
                 "-Wno-unused-function", "-Wno-unused-variable", "-Wno-unused-but-set-variable")
TRACE_CFLAGS: Final = ("-finstrument-functions",)
#: Builds kept in the cache (the most recently used; older ones are removed after a build). Six:
#: a test run makes up to three (planted trees), and a build in use must not be removed.
KEEP_BUILDS: Final = 6


def build(name: str = "classic", kernel_src: str | None = None,
          notes: list[str] | None = None) -> Built:  # fmt: skip
    """Build (or find cached) the harness ``name`` from the kernel tree. Raises ExtractError
    (the tree lacks or changed a definition) or RuntimeError (the toolchain, or a compiler
    error: the helper or type the harness lacks is named). ``notes`` gets what was tolerated
    (a harmless signature change, a moved function) and the compiler's warnings."""
    why = toolchain_missing()
    if why:
        raise RuntimeError(why)
    # One build at a time per cache: test workers and parallel runs would otherwise unpack the
    # tarball and compile into the same directory at once.
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build(name, kernel_src, [] if notes is None else notes)


def _build(name: str, kernel_src: str | None, notes: list[str]) -> Built:
    harness = HARNESSES[name]
    tree = kernel_tree(harness, kernel_src)
    has, where = implementation(tree)
    if has != name:
        missing = "" if has in HARNESSES else (
            f"; there is no {has} harness yet (conformance/engines/linux/README.md, "
            f"\"The new gmap\")")  # fmt: skip
        raise ExtractError(f"Linux {version(tree)} ({tree}) has the {has} ESSA code, "
                           f"{where}, not the {name} one{missing}")  # fmt: skip
    kernel = version(tree)
    text = source(harness, tree, notes)
    flags = [*CFLAGS, *(TRACE_CFLAGS if harness.trace else ())]
    # the stubs are #included by path (and include kernel_bitops.h): their text goes into the key
    digest = hashlib.sha256("\0".join([text, harness.stubs.read_text(), BITOPS_H.read_text(), CC,
                                       *flags]).encode()
                            ).hexdigest()[:16]  # fmt: skip
    out = CACHE / kernel / f"{name}-{digest}"
    binary = out / f"essa-{name}"
    if binary.is_file():
        os.utime(out)  # most recently used: kept by prune
        return Built(binary, _runner(binary), kernel, tree)
    out.mkdir(parents=True, exist_ok=True)
    c_file = out / f"{name}.c"
    c_file.write_text(text)
    r = subprocess.run([CC, *flags, "-o", str(binary), str(c_file)], capture_output=True,
                       text=True)  # fmt: skip
    if r.returncode != 0:
        shutil.rmtree(out, ignore_errors=True)
        raise RuntimeError(compile_error(r.stderr, harness, kernel, tree))
    notes += [f"compiler: {line}" for line in r.stderr.splitlines() if "warning:" in line]
    prune(CACHE)
    return Built(binary, _runner(binary), kernel, tree)


def prune(cache: Path, keep: int = KEEP_BUILDS) -> list[Path]:
    """Remove all but the ``keep`` most recently used builds under ``cache`` (each
    <version>/<harness>-<digest>/), and version directories left empty. Returns the removed."""
    builds = [d for v in cache.iterdir() if v.is_dir() and v.name != "src"
              for d in v.iterdir() if d.is_dir()]  # fmt: skip
    builds.sort(key=lambda d: d.stat().st_mtime, reverse=True)
    removed = builds[keep:]
    for d in removed:
        shutil.rmtree(d, ignore_errors=True)
    for v in cache.iterdir():
        if v.is_dir() and v.name != "src" and not any(v.iterdir()):
            v.rmdir()
    return removed


_Q: Final = "[\u2018\u2019'`\"]"  # gcc quotes names with ‘’ (UTF-8) or '' (C locale)


def compile_error(stderr: str, harness: Harness, kernel: str, tree: Path) -> str:
    """The compiler's errors as what to do: each helper, constant, type or member the tree's
    code uses and the harness lacks, named with the kernel function that uses it and the file
    to add it to; then the compiler's own last lines."""
    stubs = harness.stubs.relative_to(REPO) if harness.stubs.is_relative_to(REPO) else harness.stubs
    todo: dict[str, str] = {}
    function = ""
    for line in stderr.splitlines():
        m = re.search(rf"(?:In|in) function {_Q}(\w+){_Q}", line)
        if m:
            function = m.group(1)
        where = re.match(r"([^:\s]+):\d+", line)
        site = f"{function} ({where.group(1)})" if function and where else (function or "the harness")
        for pattern, what in (
            (rf"implicit declaration of function {_Q}(\w+){_Q}", "calls {0}: add a stub for the helper {0}"),
            (rf"undefined reference to {_Q}(\w+){_Q}", "calls {0}: add a definition of the helper {0}"),
            (rf"{_Q}(\w+){_Q} undeclared", "uses {0}: add a definition of {0} (or take the macro from the tree in kernels.py)"),
            (rf"unknown type name {_Q}(\w+){_Q}", "uses the type {0}: add it"),
            (rf"{_Q}(struct \w+){_Q} has no member named {_Q}(\w+){_Q}", "uses {1} of {0}: add the member {1} to {0}"),
        ):  # fmt: skip
            m = re.search(pattern, line)
            if m:
                todo.setdefault(m.group(0), f"- {site} {what.format(*m.groups())} in {stubs}")
    head = f"compiling the {harness.name} harness against Linux {kernel} ({tree}) failed"
    if todo:
        head += (f": the tree's code needs what the harness does not provide (each stub goes "
                 f"into the README's Stubs table, with why it is safe):\n" + "\n".join(todo.values()))
    tail = "\n".join(stderr.strip().splitlines()[-30:])
    return f"{head}\n\nthe compiler's last lines:\n{tail}"


def _runner(binary: Path) -> tuple[str, ...]:
    """Natively on s390x, else under qemu-s390x."""
    if os.uname().machine == "s390x":
        return (str(binary),)
    return (QEMU, str(binary))
