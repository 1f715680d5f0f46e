/*
 * The kernel environment the new gmap's ESSA code (Linux 7.x) is compiled in: the smallest set
 * of types and stubs that lets the definitions conformance/engines/linux/gmap.py lists compile
 * unchanged, taken from a Linux tree at build time.  This file holds no kernel code: every
 * stub is in the stub table of conformance/engines/linux/README.md ("The new gmap") with why it
 * is safe.  The functions declared "host model" below are gmap_harness.c's.
 *
 * Built for s390x (big-endian): the gmap's PTEs and PGSTEs are bit-field unions whose layout
 * only a big-endian target gives right.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's bit operations and atomics, on one thread. */
#include "kernel_bitops.h"

#define __s390x__ 1

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef u64 gfn_t;
typedef u64 gpa_t;
typedef unsigned long hva_t;
typedef u64 kvm_pfn_t;
typedef unsigned long phys_addr_t;

/* arch/s390/include/asm/page.h keeps these as one-field structs; so do we. */
typedef struct { unsigned long pte; } pte_t;
typedef struct { unsigned long pgprot; } pgprot_t;
typedef struct { unsigned long val; } swp_entry_t;
#define pte_val(x) ((x).pte)
#define pgprot_val(x) ((x).pgprot)
#define __pte(x) ((pte_t){ (x) })
#define __pgprot(x) ((pgprot_t){ (x) })

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PFN_PHYS(x) ((phys_addr_t)(x) << PAGE_SHIFT)
#define gfn_to_gpa(gfn) ((gpa_t)(gfn) << PAGE_SHIFT)
#define gpa_to_gfn(gpa) ((gfn_t)((gpa) >> PAGE_SHIFT))

/* Compiler, concurrency: one thread, so locks, barriers and preemption are no-ops. */
#define likely(x) (x)
#define unlikely(x) (x)
#define __must_check
#undef __always_inline
#define __always_inline inline
#define __packed __attribute__((packed))
#define barrier() do { } while (0)
#define cpu_relax() do { } while (0)
#define WRITE_ONCE(x, v) ((x) = (v))
#define READ_ONCE(x) (x)
#define WARN_ON_ONCE(x) (x)
#define WARN_ONCE(c, ...) ((void)(c))
#define BUG_ON(x) do { if (x) abort(); } while (0)
#define lockdep_assert_held(l) do { (void)(l); } while (0)
#define lockdep_assert_not_held(l) do { (void)(l); } while (0)
#define mmap_assert_locked(mm) do { (void)(mm); } while (0)
#define mmap_read_lock(mm) do { (void)(mm); } while (0)
#define mmap_read_unlock(mm) do { (void)(mm); } while (0)
#define pte_unmap_unlock(p, l) do { (void)(p); (void)(l); } while (0)
/* A scoped guard runs its statement once, the lock held (here: no lock). */
#define scoped_guard(type, lock) if (((void)(lock), 1))
#define VCPU_EVENT(vcpu, level, ...) do { (void)(vcpu); } while (0)
#define EXPORT_SYMBOL_GPL(x)
#define min(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ERR_OR_NULL(p) ((p) == NULL || (unsigned long)(p) >= (unsigned long)-4095)
#define need_resched() 0
typedef int spinlock_t;
typedef int rwlock_t;
typedef struct { int refs; } refcount_t;
struct list_head { struct list_head *next, *prev; };
struct radix_tree_root { void *rnode; };
/* The PGSTE lock bit and the PTE's unused bit are set by an atomic OR (one thread here). */
static inline unsigned long __atomic64_or_barrier(unsigned long bits, unsigned long *ptr)
{
	unsigned long old = *ptr;
	*ptr = old | bits;
	return old;
}
#define __atomic64_or(bits, ptr) ((void)__atomic64_or_barrier((bits), (unsigned long *)(ptr)))
/* A compare-and-swap of a table entry; on failure the current value is returned in *old. */
#define arch_try_cmpxchg(ptr, oldp, new) ({ \
	__typeof__(*(ptr)) _cur = *(ptr); bool _ok = _cur == *(oldp); \
	if (_ok) *(ptr) = (new); else *(oldp) = _cur; _ok; })

/* Memory: user space addresses stand for the kernel's, and physical is virtual. */
#define virt_to_phys(p) ((unsigned long)(uintptr_t)(p))
#define phys_to_virt(x) ((void *)(uintptr_t)(x))
#define __pa(p) virt_to_phys(p)
static inline void memset64(u64 *p, u64 v, size_t n) { while (n--) *p++ = v; }
#define __arch_set_page_dat(p, n) do { (void)(p); (void)(n); } while (0)
/* The page-table cache is filled before every walk that may allocate: no page allocator. */
#define __get_free_page(gfp) 0UL
#define __get_free_pages(gfp, order) 0UL
#define free_page(p) do { (void)(p); } while (0)
#define GFP_KVM_S390_MMU_CACHE 0
#define CRST_ALLOC_ORDER 2

/* The machine: no EDAT-2 (CRDTE), no TLB-guest IPTE option; one CPU. Neither CRDTE nor CSPG is
 * reached: the one segment table entry is exchanged while invalid (compare-and-swap). */
#define cpu_has_edat2() 0
#define machine_has_tlb_guest() 0
static inline bool crdte(unsigned long old, unsigned long new, void *table, unsigned long dtt,
			 unsigned long address, unsigned long asce)
{
	(void)old; (void)new; (void)table; (void)dtt; (void)address; (void)asce;
	abort();
}
static inline bool cspg(unsigned long *ptr, unsigned long old, unsigned long new)
{
	(void)ptr; (void)old; (void)new;
	abort();
}
/* struct page: no page cache, no dirty accounting of host pages. */
struct page;
#define pfn_to_page(pfn) ((struct page *)0)
#define SetPageDirty(page) do { (void)(page); } while (0)

/* Architecture constants (Principles of Operation; asm/page-states.h, asm/kvm_host.h). */
#define ESSA_GET_STATE 0
#define ESSA_SET_STABLE 1
#define ESSA_SET_UNUSED 2
#define ESSA_SET_VOLATILE 3
#define ESSA_SET_POT_VOLATILE 4
#define ESSA_SET_STABLE_RESIDENT 5
#define ESSA_SET_STABLE_IF_RESIDENT 6
#define ESSA_SET_STABLE_NODAT 7
#define PGM_OPERATION 0x01
#define PGM_PRIVILEGED_OP 0x02
#define PGM_ADDRESSING 0x05
#define PGM_SPECIFICATION 0x06
#define ECB2_CMMA 0x80
#define PSW_MASK_PSTATE 0x0001000000000000UL
#define _PAGE_CHANGED 0x02
#define _PAGE_REFERENCED 0x04

/* The host's memory management, as the functions see it. */
struct mm_struct { int users; };
struct vm_area_struct { struct mm_struct *vm_mm; };
struct folio;
typedef swp_entry_t softleaf_t;
/* Every software leaf entry here is a swap entry the harness made (no migration entries). */
#define softleaf_from_pte(pte) __pte_to_swp_entry(pte)
#define softleaf_is_swap(e) ((void)(e), 1)
#define softleaf_is_migration(e) ((void)(e), 0)
#define softleaf_to_folio(e) ((struct folio *)0)
#define mm_counter(f) 0
#define MM_SWAPENTS 0
#define dec_mm_counter(mm, c) do { (void)(mm); } while (0)
#define is_vm_hugetlb_page(vma) ((void)(vma), 0)
#define IS_ERR_VALUE_HVA (~0UL)
#define kvm_is_error_hva(hva) ((hva) == IS_ERR_VALUE_HVA)

/* dat.h declares it ahead of its function-pointer typedef: a declaration, no definition. */
struct dat_walk;

/* KVM's structures, with the fields the ESSA intercept uses. */
struct gmap;
struct kvm_s390_mmu_cache;
struct kvm_s390_sie_block {
	unsigned long cbrlo;
	u32 ipb;
	u8 ecb2;
	struct { unsigned long mask, addr; } gpsw;
};
struct kvm_run { struct { struct { unsigned long gprs[16]; } regs; } s; };
struct kvm {
	struct mm_struct *mm;
	int srcu;
	rwlock_t mmu_lock;
	struct {
		int use_cmma, migration_mode;
		atomic64_t cmma_dirty_pages;
		unsigned long facility147;
	} arch;
};
struct kvm_vcpu {
	struct kvm *kvm;
	struct kvm_run *run;
	struct {
		struct kvm_s390_sie_block *sie_block;
		struct gmap *gmap;
		struct kvm_s390_mmu_cache *mc;
	} arch;
	struct { unsigned long instruction_essa; } stat;
};
/* kvm-s390.h: the RRE instruction's register numbers, from IPB. */
static inline void kvm_s390_get_regs_rre(struct kvm_vcpu *vcpu, int *r1, int *r2)
{
	*r1 = (vcpu->arch.sie_block->ipb & 0x00f00000) >> 20;
	*r2 = (vcpu->arch.sie_block->ipb & 0x000f0000) >> 16;
}
#define test_kvm_facility(kvm, nr) ((nr) == 147 && (kvm)->arch.facility147)

/* ---- host model (gmap_harness.c) ---- */
int kvm_s390_inject_program_int(struct kvm_vcpu *vcpu, u16 code);
void kvm_s390_retry_instr(struct kvm_vcpu *vcpu);
unsigned char page_get_storage_key(unsigned long addr);
void page_set_storage_key(unsigned long addr, unsigned char key, int nq);
void __ptep_ipte(unsigned long addr, void *ptep, unsigned long opt, unsigned long asce, int local);
struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr);
pte_t *try_get_locked_pte(struct mm_struct *mm, unsigned long vmaddr, spinlock_t **ptl);
void swap_put_entries_direct(swp_entry_t entry, int nr);
hva_t gpa_to_hva(struct kvm *kvm, gpa_t gpa);
void harness_cbrl_append(struct kvm_vcpu *vcpu, unsigned long *cbrl, int len);
/* gmap.c: prefix and shadow-table (vsie) notification; neither prefix_notif nor vsie_notif is
 * ever set here, so _gmap_ptep_xchg never calls them. */
bool _gmap_unmap_prefix(struct gmap *gmap, gfn_t gfn, gfn_t end, bool hint);
void _gmap_handle_vsie_unshadow_event(struct gmap *parent, gfn_t gfn);
