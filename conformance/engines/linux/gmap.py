"""What the gmap harness takes from a Linux 7.x tree (the new gmap's ESSA code), and where.

:data:`GMAP` lists, in the order they are compiled, the kernel definitions the gmap harness is
made of: the types of ``asm/dat-bits.h`` and ``kvm/dat.h`` (big-endian bit-field unions), the
page-table walk, the PTE exchange and the storage-key functions of ``kvm/dat.c``,
``dat_perform_essa``, ``_gmap_ptep_xchg`` of ``kvm/gmap.h``, the host helpers of
``mm/gmap_helpers.c``, ``set_pte`` and the PTE bits of ``asm/pgtable.h``, and ``__do_essa``,
``_essa_clear_cbrl``, ``handle_essa`` of ``kvm/priv.c``. Each is named by its 7.0 file;
:func:`resolve` finds it in the tree's own layout (7.0-7.2 ``arch/s390/kvm/dat.c``, 7.3
``arch/s390/kvm/gmap/dat.c``, or ``gmap/cmma.c``; ``priv.c`` also in ``arch/s390/kvm/s390/``),
by the function, not by the file, and names every file it looked in when a tree lacks one.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Final

from .extract import FUNCTION, MACRO, TYPE, ExtractError, Want, find_function, find_macro, find_type
from .extract import read_source

DAT_BITS_H: Final = "arch/s390/include/asm/dat-bits.h"
PGTABLE_H: Final = "arch/s390/include/asm/pgtable.h"
DAT_H: Final = "arch/s390/kvm/dat.h"
DAT_C: Final = "arch/s390/kvm/dat.c"
GMAP_H: Final = "arch/s390/kvm/gmap.h"
HELPERS_C: Final = "arch/s390/mm/gmap_helpers.c"
PRIV_C: Final = "arch/s390/kvm/priv.c"

#: Where each 7.0 file's definitions may be in other layouts, in the order they are tried.
CANDIDATES: Final[dict[str, tuple[str, ...]]] = {
    DAT_C: (DAT_C, "arch/s390/kvm/gmap/dat.c", "arch/s390/kvm/gmap/cmma.c"),
    DAT_H: (DAT_H, "arch/s390/kvm/gmap/dat.h", "arch/s390/kvm/gmap/cmma.h"),
    GMAP_H: (GMAP_H, "arch/s390/kvm/gmap/gmap.h"),
    PRIV_C: (PRIV_C, "arch/s390/kvm/s390/priv.c", "arch/s390/kvm/gmap/cmma.c"),
}


def _t(path: str, *names: str) -> list[Want]:
    return [Want(path, n, TYPE) for n in names]


def _m(path: str, *names: str) -> list[Want]:
    return [Want(path, n, MACRO) for n in names]


def _f(path: str, *names: str) -> list[Want]:
    return [Want(path, n, FUNCTION) for n in names]


def _s(path: str, name: str, signature: str) -> Want:
    return Want(path, name, FUNCTION, signature)


#: The gmap implementation (the "KVM: s390: New gmap code" series; Linux 7.x). The functions the
#: harness calls or whose text the 2026 fixes changed are taken with their signatures checked.
GMAP: Final[tuple[Want, ...]] = (
    *_t(DAT_BITS_H, "union vaddress", "union asce", "enum {ASCE_TYPE_SEGMENT}",
        "union region1_table_entry", "union region2_table_entry",
        "struct region3_table_entry_fc0", "struct region3_table_entry_fc1",
        "union region3_table_entry", "struct segment_table_entry_fc0",
        "struct segment_table_entry_fc1", "union segment_table_entry", "union page_table_entry",
        "enum {TABLE_TYPE_SEGMENT}"),
    *_m(PGTABLE_H, "_PAGE_NOEXEC", "_PAGE_PROTECT", "_PAGE_INVALID", "_PAGE_LARGE",
        "_PAGE_PRESENT", "_PAGE_YOUNG", "_PAGE_DIRTY", "_PAGE_READ", "_PAGE_WRITE",
        "_PAGE_SPECIAL", "_PAGE_UNUSED", "_PAGE_SW_BITS", "_ASCE_ORIGIN", "_REGION_ENTRY_ORIGIN",
        "_REGION_ENTRY_LENGTH", "_REGION3_ENTRY_ORIGIN_LARGE", "_SEGMENT_ENTRY_ORIGIN_LARGE",
        "_SEGMENT_ENTRY_ORIGIN", "_CRST_ENTRIES", "_PAGE_ENTRIES", "_CRST_TABLE_SIZE",
        "_PAGE_TABLE_SIZE", "_REGION3_SHIFT", "_SEGMENT_SHIFT", "_REGION3_SIZE", "_SEGMENT_SIZE",
        "_REGION3_MASK", "_SEGMENT_MASK", "PTRS_PER_PTE", "IPTE_GLOBAL", "IPTE_LOCAL",
        "IPTE_NODAT", "IPTE_GUEST_ASCE", "__SWP_OFFSET_MASK", "__SWP_OFFSET_SHIFT",
        "__SWP_TYPE_MASK", "__SWP_TYPE_SHIFT", "__pte_to_swp_entry"),
    *_f(PGTABLE_H, "clear_pte_bit", "set_pte_bit", "pte_present", "pte_none", "pte_swap",
        "pte_unused"),
    _s(PGTABLE_H, "set_pte", "static inline void set_pte(pte_t *ptep, pte_t pte)"),
    *_f(PGTABLE_H, "pte_clear", "mk_swap_pte", "__swp_offset"),
    *_t(DAT_H, "enum {_DAT_TOKEN_NONE}"),
    *_m(DAT_H, "_CRSTE_TOK", "_CRSTE_PIC", "_CRSTE_HOLE", "_CRSTE_EMPTY", "_PMD_EMPTY",
        "_PTE_TOK", "_PTE_EMPTY", "TABLE_TYPE_PAGE_TABLE"),
    *_t(DAT_H, "enum dat_walk_flags"),
    *_m(DAT_H, "DAT_WALK_LEAF_ALLOC", "_PAGE_SD", "PGSTE_PCL_BIT"),
    *_t(DAT_H, "enum pgste_gps_usage", "union pte", "union pgste", "union pmd", "union pud",
        "union p4d", "union pgd", "union crste", "union skey", "struct segment_table",
        "struct region3_table", "struct region2_table", "struct region1_table",
        "struct crst_table", "struct page_table", "typedef dat_walk_op", "struct dat_walk_ops",
        "struct dat_walk"),
    *_f(DAT_H, "_pte"),
    *_t(DAT_H, "union essa_state"),
    *_m(DAT_H, "KVM_S390_MMU_CACHE_N_CRSTS", "KVM_S390_MMU_CACHE_N_PTS",
        "KVM_S390_MMU_CACHE_N_RMAPS"),
    *_t(DAT_H, "struct kvm_s390_mmu_cache"),
    *_f(DAT_H, "kvm_s390_mmu_cache_alloc_pt", "crste_table_start", "crdte_crste",
        "dat_init_pgstes", "dat_init_page_table", "asce_end"),
    *_m(DAT_H, "_CRSTE", "_CRSTEP"),
    *_f(DAT_H, "asce_contains_gfn", "is_pmd", "pmd_origin_large", "pud_origin_large"),
    *_m(DAT_H, "crste_origin"),
    *_f(DAT_H, "pte_origin", "pgste_of", "pte_hole", "_crste_hole"),
    *_m(DAT_H, "crste_hole"),
    *_f(DAT_H, "large_pud_to_phys", "large_pmd_to_phys", "large_crste_to_phys", "cspg_crste",
        "dereference_pmd", "_dereference_crste"),
    *_m(DAT_H, "dereference_crste"),
    *_f(DAT_H, "dereference_asce", "pgste_get_trylock", "pgste_get_lock", "pgste_set_unlock",
        "dat_free_pt"),
    _s(DAT_C, "dat_crstep_xchg_atomic", "bool __must_check dat_crstep_xchg_atomic(union crste "
       "*crstep, union crste old, union crste new, gfn_t gfn, union asce asce)"),
    *_f(DAT_H, "dat_pmdp_xchg_atomic"),
    *_f(DAT_C, "dat_alloc_pt_noinit", "dat_set_storage_key_from_pgste", "dat_move_storage_key",
        "dat_save_storage_key_into_pgste"),
    _s(DAT_C, "__dat_ptep_xchg", "union pgste __dat_ptep_xchg(union pte *ptep, union pgste pgste, "
       "union pte new, gfn_t gfn, union asce asce, bool uses_skeys)"),
    *_f(DAT_C, "dat_split_ste"),
    _s(DAT_C, "dat_entry_walk", "int dat_entry_walk(struct kvm_s390_mmu_cache *mc, gfn_t gfn, "
       "union asce asce, int flags, int walk_level, union crste **last, union pte **ptepp)"),
    *_f(DAT_C, "dat_pte_walk_range", "dat_crste_walk_range", "_dat_walk_gfn_range"),
    _s(DAT_C, "dat_get_storage_key",
       "int dat_get_storage_key(union asce asce, gfn_t gfn, union skey *skey)"),
    *_f(DAT_C, "dat_update_ptep_sd", "page_cond_set_storage_key"),
    _s(DAT_C, "dat_cond_set_storage_key", "int dat_cond_set_storage_key(struct kvm_s390_mmu_cache "
       "*mmc, union asce asce, gfn_t gfn, union skey skey, union skey *oldkey, bool nq, bool mr, "
       "bool mc)"),
    _s(DAT_C, "dat_perform_essa", "int dat_perform_essa(union asce asce, gfn_t gfn, int orc, "
       "union essa_state *state, bool *dirty)"),
    *_f(DAT_C, "dat_reset_cmma_pte", "dat_reset_cmma"),
    *_t(DAT_C, "struct dat_get_cmma_state"),
    *_f(DAT_C, "__dat_peek_cmma_pte", "__dat_peek_cmma_crste", "dat_peek_cmma"),
    *_t(DAT_C, "struct dat_set_cmma_state"),
    *_f(DAT_C, "__dat_set_cmma_pte", "dat_set_cmma_bits"),
    *_t(GMAP_H, "enum gmap_flags", "struct gmap"),
    *_f(GMAP_H, "uses_skeys", "gmap_handle_vsie_unshadow_event", "gmap_unmap_prefix",
        "pte_needs_unshadow"),
    _s(GMAP_H, "_gmap_ptep_xchg", "static inline union pgste _gmap_ptep_xchg(struct gmap *gmap, "
       "union pte *ptep, union pte newpte, union pgste pgste, gfn_t gfn, bool needs_lock)"),
    *_f(HELPERS_C, "ptep_zap_softleaf_entry"),
    _s(HELPERS_C, "gmap_helper_zap_one_page",
       "void gmap_helper_zap_one_page(struct mm_struct *mm, unsigned long vmaddr)"),
    _s(HELPERS_C, "gmap_helper_try_set_pte_unused",
       "void gmap_helper_try_set_pte_unused(struct mm_struct *mm, unsigned long vmaddr)"),
    _s(PRIV_C, "__do_essa", "static inline int __do_essa(struct kvm_vcpu *vcpu, const int orc)"),
    _s(PRIV_C, "_essa_clear_cbrl",
       "static void _essa_clear_cbrl(struct kvm_vcpu *vcpu, unsigned long *cbrl, int len)"),
    _s(PRIV_C, "handle_essa", "static int handle_essa(struct kvm_vcpu *vcpu)"),
)  # fmt: skip

#: Compiled around the extracted definitions: handle_essa hands its CBRL to the harness's
#: persistent list instead of clearing it at once (the host processes it on HostProcessCBRL,
#: by the kernel's own _essa_clear_cbrl); dat_entry_walk's split of a region or segment
#: *large page* (dat_split_crste) is declared before it and stubbed (one segment table, no
#: large pages: never reached).
BEFORE: Final = {
    "handle_essa": "#define _essa_clear_cbrl harness_cbrl_append\n",
    "dat_entry_walk": "static int dat_split_crste(struct kvm_s390_mmu_cache *mc, union crste "
                      "*crstep, gfn_t gfn, union asce asce, bool uses_skeys);\n",
}  # fmt: skip
AFTER: Final = {"handle_essa": "#undef _essa_clear_cbrl\n"}


#: Kernel functions a report does not blame for a divergence: locks, accessors, the walk to an
#: entry, the one-bit setters, and ``__dat_ptep_xchg``, which exchanges the PTE and PGSTE its
#: caller made (the function that called them decided). ``set_pte`` is not one: the
#: CVE-2026-72412 fix made it clear ``_PAGE_UNUSED``.
HELPERS: Final = frozenset({
    "__dat_ptep_xchg", "dat_save_storage_key_into_pgste",
    "pgste_get_lock", "pgste_set_unlock", "pgste_get_trylock", "pgste_of", "_pte", "pte_origin",
    "pte_hole", "_crste_hole", "pte_present", "pte_none", "pte_swap", "pte_unused",
    "set_pte_bit", "clear_pte_bit", "mk_swap_pte", "__swp_offset", "pte_clear", "uses_skeys",
    "dat_entry_walk", "dereference_asce", "_dereference_crste", "dereference_pmd", "is_pmd",
    "asce_contains_gfn", "asce_end", "crste_table_start", "kvm_s390_mmu_cache_alloc_pt",
    "dat_alloc_pt_noinit", "dat_init_pgstes", "dat_init_page_table", "pmd_origin_large",
    "pud_origin_large", "large_pud_to_phys", "large_pmd_to_phys", "large_crste_to_phys",
    "dat_crstep_xchg_atomic", "dat_pmdp_xchg_atomic", "cspg_crste", "crdte_crste",
    "pte_needs_unshadow",
})  # fmt: skip


def _defines(text: str, want: Want) -> bool:
    try:
        if want.kind == FUNCTION:
            find_function(text, want.name)
        elif want.kind == MACRO:
            find_macro(text, want.name)
        else:
            find_type(text, want.name)
    except ExtractError:
        return False
    return True


def resolve(tree: Path, wants: tuple[Want, ...]) -> tuple[Want, ...]:
    """``wants`` with each path replaced by the file of ``tree`` that defines it: the first of
    :data:`CANDIDATES` (a path without candidates stays). Raises ExtractError naming the
    definition and every file looked in when none has it, or when no candidate file exists."""
    texts: dict[str, str | None] = {}

    def text(path: str) -> str | None:
        if path not in texts:
            texts[path] = read_source(tree, path) if (tree / path).is_file() else None
        return texts[path]

    absent = sorted({" or ".join(CANDIDATES.get(w.path, (w.path,))) for w in wants
                     if all(text(p) is None for p in CANDIDATES.get(w.path, (w.path,)))})  # fmt: skip
    if absent:
        raise ExtractError(f"the kernel tree {tree} lacks {'; '.join(absent)}: the gmap harness "
                           "takes definitions from each (python -m "
                           "conformance.engines.linux.gmap_tree lays a tree out)")  # fmt: skip
    out = []
    for w in wants:
        candidates = CANDIDATES.get(w.path, (w.path,))
        found = next((p for p in candidates if (t := text(p)) is not None and _defines(t, w)),
                     None)  # fmt: skip
        if found is None:
            present = [p for p in candidates if text(p) is not None]
            raise ExtractError(f"no {w.kind} {w.name} in {', '.join(present)}: the kernel moved "
                               f"or renamed it; the gmap harness needs an update for this "
                               f"version")  # fmt: skip
        out.append(w if found == w.path else replace(w, path=found))
    return tuple(out)
