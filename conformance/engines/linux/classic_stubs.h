/*
 * The kernel environment the classic KVM functions are compiled in: the smallest set of types
 * and stubs that lets pgste_perform_essa, the ptep_* and pgste_* helpers, the guest storage-key
 * functions, __gmap_zap, __do_essa, handle_essa and the CMMA reset (s390_reset_cmma) compile
 * unchanged, taken from a Linux tree
 * at build time (conformance/engines/linux/kernels.py lists them).  This file holds no kernel
 * code: every stub is in the table of conformance/engines/linux/README.md with why it is safe.
 *
 * The host model (classic_harness.c) provides the functions declared "host model" below.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's bit operations and atomics, on one thread. */
#include "kernel_bitops.h"

#define CONFIG_PGSTE 1
#define __s390x__ 1

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef unsigned long gfn_t;

/* arch/s390/include/asm/page.h keeps these as one-field structs; so do we. */
typedef struct { unsigned long pte; } pte_t;
typedef struct { unsigned long pgste; } pgste_t;
typedef struct { unsigned long pgprot; } pgprot_t;
typedef struct { unsigned long pmd; } pmd_t;
typedef struct { unsigned long val; } swp_entry_t;
#define pte_val(x) ((x).pte)
#define pgste_val(x) ((x).pgste)
#define pgprot_val(x) ((x).pgprot)
#define pmd_val(x) ((x).pmd)
#define __pte(x) ((pte_t){ (x) })
#define __pgste(x) ((pgste_t){ (x) })
#define __pgprot(x) ((pgprot_t){ (x) })

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PMD_SHIFT 20 /* a segment: one page table of 256 entries maps 1 MB */
#define PMD_SIZE (1UL << PMD_SHIFT)
#define PMD_MASK (~(PMD_SIZE - 1))
#define HPAGE_MASK PMD_MASK

/* Compiler and concurrency: one thread, so locks, barriers and preemption are no-ops. */
#define likely(x) (x)
#define unlikely(x) (x)
#define barrier() do { } while (0)
#define WRITE_ONCE(x, v) ((x) = (v))
#define READ_ONCE(x) (x)
/* the condition's value, without a warning where the statement drops it */
#define WARN_ON_ONCE(x) ({ bool __warned = !!(x); __warned; })
#define WARN_ON(x) WARN_ON_ONCE(x)
#define VM_BUG_ON(x) do { (void)(x); } while (0)
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)
#define preempt_disable() do { } while (0)
#define preempt_enable() do { } while (0)
typedef int spinlock_t;
#define spin_unlock(l) do { (void)(l); } while (0)
#define pte_unmap_unlock(p, l) do { (void)(p); (void)(l); } while (0)
#define mmap_read_lock(mm) do { (void)(mm); } while (0)
#define mmap_read_unlock(mm) do { (void)(mm); } while (0)
#define mmap_write_lock(mm) do { (void)(mm); } while (0)
#define mmap_write_unlock(mm) do { (void)(mm); } while (0)
#define srcu_read_lock(s) ((void)(s), 0)
#define srcu_read_unlock(s, i) do { (void)(s); (void)(i); } while (0)
#define VCPU_EVENT(vcpu, level, ...) do { (void)(vcpu); } while (0)
/* The PGSTE lock bit is taken by an atomic OR that returns the old value. */
static inline unsigned long __atomic64_or_barrier(unsigned long bits, unsigned long *ptr)
{
	unsigned long old = *ptr;
	*ptr = old | bits;
	return old;
}

/* The machine: enhanced suppression-on-protection (every machine since z10), no TLB-guest
 * or local-clearing IPTE options, so the plain IPTE path is taken. */
#define MACHINE_HAS_ESOP 1
#define MACHINE_HAS_TLB_LC 0
#define MACHINE_HAS_TLB_GUEST 0

/* The host's memory management, as the functions see it. */
struct mm_struct {
	struct {
		int has_pgste, uses_skeys, uses_cmm, alloc_pgste;
		atomic_t flush_count, protected_count;
		unsigned long asce, gmap_asce;
	} context;
};
struct vm_area_struct { struct mm_struct *vm_mm; };
struct folio;
struct page;
struct gmap { struct mm_struct *mm; int guest_to_host; };

/* KVM's structures, with the fields the ESSA intercept uses. */
struct kvm_s390_sie_block {
	unsigned long cbrlo;
	u32 ipb;
	u8 ecb2;
	struct { unsigned long mask, addr; } gpsw;
};
struct kvm_run { struct { struct { unsigned long gprs[16]; } regs; } s; };
/* KVM's memslots (include/linux/kvm_host.h), with the members the CMMA migration code and the
 * memslot hooks use: up to MAX_SLOTS memslots, kept in a red-black tree by gfn (the host
 * model's rb_first, rb_last, rb_next and ____gfn_to_memslot walk it). */
struct rb_node { struct rb_node *rb_parent, *rb_left, *rb_right; };
struct rb_root { struct rb_node *rb_node; };
typedef unsigned long gpa_t;
struct kvm_memory_slot {
	unsigned long base_gfn, npages;
	unsigned long *dirty_bitmap;
	unsigned long userspace_addr;
	u32 flags;
	short id;
	struct rb_node gfn_node[2];
};
struct kvm_memslots { struct rb_root gfn_tree; int node_idx; int nslots; };
enum kvm_mr_change { KVM_MR_CREATE, KVM_MR_DELETE, KVM_MR_MOVE, KVM_MR_FLAGS_ONLY };
#define KVM_MEM_LOG_DIRTY_PAGES (1UL << 0)
#define KVM_S390_NO_MEM_LIMIT (-1UL)
struct kvm {
	struct mm_struct *mm;
	int srcu;
	struct kvm_memslots slots;
	struct {
		int use_cmma, migration_mode;
		atomic64_t cmma_dirty_pages;
		unsigned long facility147;
		unsigned long mem_limit;
		struct gmap *gmap;
	} arch;
};
struct kvm_vcpu {
	struct kvm *kvm;
	struct kvm_run *run;
	struct {
		struct kvm_s390_sie_block *sie_block;
		struct gmap *gmap;
	} arch;
	struct { unsigned long instruction_essa; } stat;
};

#define PSW_MASK_PSTATE 0x0001000000000000UL
#define IS_ERR_VALUE_HVA (~0UL)

/* The generic page walk (include/linux/pagewalk.h), with the members the CMMA reset sets:
 * walk_page_range (host model) calls pte_entry once per PTE of the VMA. */
struct mm_walk;
enum page_walk_lock { PGWALK_RDLOCK = 0, PGWALK_WRLOCK = 1, PGWALK_WRLOCK_VERIFY = 2 };
struct mm_walk_ops {
	int (*pte_entry)(pte_t *pte, unsigned long addr, unsigned long next, struct mm_walk *walk);
	enum page_walk_lock walk_lock;
};
struct mm_walk { const struct mm_walk_ops *ops; struct mm_struct *mm; void *private; };
/* The top of the user address space: the walk's range is all of it. */
#define TASK_SIZE (~0UL & PAGE_MASK)

/* ---- host model (classic_harness.c) ---- */
struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr);
pte_t *get_locked_pte(struct mm_struct *mm, unsigned long addr, spinlock_t **ptl);
unsigned long gfn_to_hva(struct kvm *kvm, unsigned long gfn);
struct kvm_memory_slot *gfn_to_memslot(struct kvm *kvm, unsigned long gfn);
int kvm_s390_inject_program_int(struct kvm_vcpu *vcpu, u16 code);
void kvm_s390_retry_instr(struct kvm_vcpu *vcpu);
unsigned char page_get_storage_key(unsigned long addr);
void page_set_storage_key(unsigned long addr, unsigned char key, int nq);
void __ptep_ipte(unsigned long addr, pte_t *ptep, unsigned long opt, unsigned long asce, int local);
void free_swap_and_cache(swp_entry_t entry);
void *radix_tree_lookup(int *root, unsigned long index);
void harness_cbrl_append(struct gmap *gmap, unsigned long gaddr);
int pmd_lookup(struct mm_struct *mm, unsigned long addr, pmd_t **pmdp);
pte_t *pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmd, unsigned long addr, spinlock_t **ptl);
int walk_page_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		    const struct mm_walk_ops *ops, void *private);

#define is_vm_hugetlb_page(vma) ((void)(vma), 0)
#define kvm_is_error_hva(hva) ((hva) == IS_ERR_VALUE_HVA)
#define phys_to_virt(x) ((void *)(uintptr_t)(x))
/* The second dirty bitmap: the harness's memslot has only the second half (the first is x86's). */
#define kvm_second_dirty_bitmap(ms) ((ms)->dirty_bitmap)
#define kvm_dirty_bitmap_bytes(ms) ((((ms)->npages + BITS_PER_LONG - 1) / BITS_PER_LONG) * 8)
/* KVM's memslots: the host model's tree of up to MAX_SLOTS slots (kvm_memslots,
 * kvm_for_each_memslot in gfn order, ____gfn_to_memslot as include/linux/kvm_host.h's
 * search_memslots, the red-black tree's rb_first, rb_last, rb_next). */
struct kvm_memory_slot *harness_slot_at(struct kvm_memslots *slots, int i);
struct kvm_memory_slot *____gfn_to_memslot(struct kvm_memslots *slots, gfn_t gfn, bool approx);
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
#define kvm_memslots(kvm) (&(kvm)->slots)
#define kvm_memslots_empty(slots) ((slots)->nslots == 0)
#define kvm_for_each_memslot(ms, bkt, slots) \
	for ((bkt) = 0; ((ms) = harness_slot_at((slots), (bkt))) != NULL; (bkt)++)
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
/* The memslot hooks (kvm_arch_prepare_memory_region, kvm_arch_commit_memory_region): no
 * user-controlled VM, no protected VM; the segment mapping of the gmap is the host model's. */
#define kvm_is_ucontrol(kvm) ((void)(kvm), 0)
#define kvm_s390_pv_get_handle(kvm) ((void)(kvm), 0UL)
#define WARN(cond, ...) ({ bool __warned = !!(cond); __warned; })
#define pr_warn(...) do { } while (0)
#define fallthrough __attribute__((__fallthrough__))
int gmap_map_segment(struct gmap *gmap, unsigned long from, unsigned long to, unsigned long len);
int gmap_unmap_segment(struct gmap *gmap, unsigned long to, unsigned long len);
/* kvm_s390_vm_start_migration and kvm_s390_vm_stop_migration ask each vCPU to turn ESSA
 * interpretation off or on again: the host model's one vCPU takes the request as
 * kvm_s390_handle_requests does (ECB2_CMMA in its SIE block). */
#define KVM_REQ_START_MIGRATION 1
#define KVM_REQ_STOP_MIGRATION 2
void kvm_s390_sync_request_broadcast(struct kvm *kvm, int req);
/* The ioctls' user buffers are the harness's own memory; vmalloc is malloc. */
#define __user
#define vmalloc(n) malloc(n)
#define vfree(p) free(p)
#define copy_to_user(to, from, n) (memcpy((to), (from), (n)), 0UL)
#define copy_from_user(to, from, n) (memcpy((to), (from), (n)), 0UL)
#define array_size(a, b) ((a) * (b))
#define min(a, b) ({ __auto_type _a = (a); __auto_type _b = (b); _a < _b ? _a : _b; })
/* include/uapi/linux/kvm.h (not under arch/s390): the storage-key and CMMA ioctls' limit. */
#define KVM_S390_SKEYS_MAX 1048576
#define test_kvm_facility(kvm, nr) ((nr) == 147 && (kvm)->arch.facility147)
/* A PGSTE with the IPTE-notify or VSIE bit would notify shadow tables; none exist here. */
#define ptep_notify(mm, addr, ptep, bits) do { } while (0)
/* Swap entries: the PTE's own encoding (mk_swap_pte), without the generic type remapping. */
#define pte_to_swp_entry(pte) __pte_to_swp_entry(pte)
#define non_swap_entry(e) ((void)(e), 0)
#define is_migration_entry(e) ((void)(e), 0)
#define pfn_swap_entry_folio(e) ((struct folio *)0)   /* 6.12 */
#define pfn_swap_entry_to_page(e) ((struct page *)0)  /* 6.1 */
#define dec_mm_counter(mm, c) do { (void)(mm); } while (0)
#define mm_counter(f) 0
#define MM_SWAPENTS 0
#define pmd_lock(mm, pmdp) ((void)(pmdp), (spinlock_t *)0)
#define pmd_present(pmd) 1
#define pmd_leaf(pmd) 0   /* 6.12: no huge pages */
#define pmd_large(pmd) 0  /* 6.1 */
#define cpumask_equal(a, b) 0
#define mm_cpumask(mm) 0
#define cpumask_of(cpu) 0
#define smp_processor_id() 0
