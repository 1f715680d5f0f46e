/*
 * The host model around the classic KVM ESSA code (compiled after the kernel's definitions,
 * see kernels.py).  It is the smallest host that lets the kernel's own functions run: one page
 * table of PTRS_PER_PTE entries with the PGSTEs after the PTEs (as the kernel lays them out),
 * one frame per guest page, a swap slot per page, real storage keys, and the CBRL.  Every
 * decision about page states is the kernel's: ESSA is handle_essa (and __do_essa,
 * pgste_perform_essa); reclaim is ptep_xchg_direct plus the _PAGE_UNUSED test of
 * mm/rmap.c's try_to_unmap_one; fault-in is set_pte_at (ptep_set_pte_at); CBRL processing
 * is __gmap_zap (ptep_zap_unused); the guest's storage-key instructions are
 * get_guest_storage_key / set_guest_storage_key; the CMMA reset is s390_reset_cmma (its page
 * walk, walk_page_range, is the host model's); migration is kvm-s390.c's
 * kvm_s390_vm_start_migration, kvm_s390_get_cmma_bits (rounds of KVM_S390_GET_CMMA_BITS, the
 * second dirty bitmap __do_essa marks) and kvm_s390_set_cmma_bits on the destination, with
 * QEMU's RAM and storage-key streams.
 *
 * It speaks a line protocol with conformance/engines/linux/engine.py (which speaks the JSON of
 * PROTOCOL.md's ESSA mode):
 *   hello SK F147 CBRLSIZE PAGES [CMMA [MIG]]  ->  ok   (CMMA 0: the VM has CMMA off; MIG 1:
 *                                        each page's field ends in its CMMA-dirty bit; MIG 2:
 *                                        that and the VMM's requests below)
 *   layout N B0 P0 F0 ... BN-1 PN-1 FN-1  ->  ok   (N <= MAX_SLOTS memslots: slot s at base gfn
 *                                        Bs, Ps pages (the pages are numbered slot by slot,
 *                                        P0 + ... = PAGES), Fs 0 absent at boot, 1 present, 2
 *                                        present with dirty logging; default: one slot of
 *                                        every page at gfn 0, with logging)
 *   reset                                ->  ok
 *   essa P ORC [PSTATE] | essabeyond ORC | reclaim P | cbrl | migrate | migstart | migsend P |
 *   switch (migrate, in migration mode only) |
 *   resetcmma | read P | write P V | writeback P | refuse
 *   (MIG 2:) migstop | get START COUNT | peek START COUNT | slotcreate S LOG | slotdelete S |
 *   slotlog S LOG | switch (the destination takes what the GETs sent)
 *     -> OUTCOME RESULT VALUE then, per page, USAGE VALID SWAPPED Z NODAT GC DIRTY (e.g.
 *        "S010001"); DIRTY, the guest's change bit as get_guest_storage_key reports it, is "-"
 *        in a VM without storage keys (the host keeps no change bit for it); then, after MIG 1,
 *        the page's bit in the second dirty bitmap; VALUE of migsend is the CMMA value sent;
 *        after MIG 2 then "| M U" (kvm->arch.migration_mode, mm->context.uses_cmm) and, for get
 *        and peek, "START COUNT REMAINING V0 V1 ..." of KVM_S390_GET_CMMA_BITS (RESULT: its
 *        return code; OUTCOME Refused when negative)
 *   save N | restore N  ->  ok   (keep the whole host state in slot N < MAX_SNAPSHOTS, or go
 *                                back to it: a request sequence's prefix is then run once)
 *   explain  ->  what the last request did, in the kernel's terms, over several lines:
 *     note TEXT                      what the harness did beside the kernel (a rollback, a
 *                                    refusal before any kernel call), if anything
 *     page P before|after pte=0x... [NAMES] pgste=0x... [NAMES] [key=0x.. [NAMES]]
 *                                    the raw PTE, PGSTE (and storage key) of each page before
 *                                    and after it, decoded with the kernel's macro names
 *     cbrl before|after N: GADDR...  the harness's CBRL
 *     dirty before|after ...         kvm->arch.migration_mode (after only), cmma_dirty_pages and
 *                                    the second dirty bitmap's bit of each page
 *     call DEPTH CHANGED NAME        each kernel function it ran, in call order (DEPTH among
 *                                    kernel functions; CHANGED 1 if a PTE, PGSTE (but the lock
 *                                    bit), the CBRL or the second dirty bitmap or its count
 *                                    differed after it)
 *     end
 * RESULT and VALUE are -1 when there is none.  An error is "error MESSAGE".
 */
#define MAX_PAGES 384
#define MAX_CBRL 64
#define MAX_SLOTS 3
/* Each memslot's pages in page tables of their own (a memslot starts on a segment). */
#define MAX_TABLES 4  /* the selftest's layout at kernel-check's sizes needs 3 */
#define BITMAP_LONGS ((MAX_PAGES + 63) / 64)
/* Memslot s's page k is at host virtual address HVA_BASE + s * SLOT_SPAN + k * PAGE_SIZE. */
#define HVA_BASE 0x40000000UL
#define SLOT_SPAN 0x10000000UL

struct host {
	unsigned long frame_data[MAX_PAGES];  /* frame p backs page p while it is resident */
	unsigned char skey[MAX_PAGES];        /* the real storage key of frame p */
	unsigned long swap_data[MAX_PAGES + 1]; /* swap slot p + 1 holds page p's copy */
	unsigned long cbrl[MAX_CBRL];         /* the persistent CBRL, oldest first */
	int ncbrl;
	unsigned long appended[MAX_CBRL];     /* what the last handle_essa queued */
	int nappended;
	unsigned long cmma_dirty[MAX_SLOTS][BITMAP_LONGS];  /* each memslot's second dirty bitmap */
	unsigned char sent[MAX_PAGES];  /* the destination's (QEMU's) CMMA values, as last sent */
	int present[MAX_SLOTS];       /* memslot s is in KVM's memslots */
	unsigned long seg_gaddr[MAX_SLOTS * 4], seg_hva[MAX_SLOTS * 4];  /* the gmap's segments */
	int nsegs;
	int last_get_remaining;       /* the last answer was a GET's, with this remaining (else -1) */
	int zapped;   /* free_swap_and_cache was called (CBRL processing freed a swap copy) */
	int pic;      /* the program interruption the last instruction raised, 0 if none */
	int migrated;
	struct mm_struct mm;
	struct gmap gmap;
	struct kvm kvm;
	struct kvm_run run;
	struct kvm_s390_sie_block sie;
	struct kvm_memory_slot slot[MAX_SLOTS];
	struct vm_area_struct vma;
	struct kvm_vcpu vcpu;
	/* page tables: PTEs, then their PGSTEs: the kernel finds a PGSTE at ptep + PTRS_PER_PTE.
	 * Last: a saved state holds the tables the layout uses (state_size). */
	pte_t tables[MAX_TABLES][2 * PTRS_PER_PTE];
};

/* The CBRL origin page the ESSA intercept writes into (cbrlo: page address | nceo << 3). */
static unsigned long cbrlo_page[512] __attribute__((aligned(4096)));
static struct host H;
static int storage_keys, facility147, cbrl_size = 1, pages = 1, cmma_enabled = 1;
static int report_cmma_dirty;  /* the reply carries each page's second-dirty-bitmap bit */
static int vmm;                /* MIG 2: the VMM's requests, and "| M U" in every reply */

/* The memslot layout (the layout request; kept over a reset): slot s holds pages
 * first[s] .. first[s] + npages[s] - 1 at gfns base[s] ..; at_boot 0 absent, 1 present, 2
 * present with dirty logging. */
static int nslots = 1;
static unsigned long slot_base[MAX_SLOTS], slot_npages[MAX_SLOTS];
static int slot_first[MAX_SLOTS], slot_table[MAX_SLOTS], slot_at_boot[MAX_SLOTS] = { 2 };
static int slot_of_page[MAX_PAGES];
static int ntables = 1;  /* the page tables the layout uses */
/* The bytes of the host state a snapshot keeps: all but the page tables the layout leaves
 * unused. */
#define state_size() (offsetof(struct host, tables) + (size_t)ntables * sizeof(H.tables[0]))

/* The layout's helpers are not traced: state_sig, which the trace hooks call, uses them. */
static NO_TRACE unsigned long hva_of(int p)
{
	int s = slot_of_page[p];
	return HVA_BASE + (unsigned long)s * SLOT_SPAN + (unsigned long)(p - slot_first[s]) * PAGE_SIZE;
}
static NO_TRACE unsigned long gfn_of(int p) { return slot_base[slot_of_page[p]] + (unsigned long)(p - slot_first[slot_of_page[p]]); }
static NO_TRACE unsigned long frame_of(int p) { return (unsigned long)(p + 1) << PAGE_SHIFT; }
static NO_TRACE int page_of_frame(unsigned long addr) { return (int)(addr >> PAGE_SHIFT) - 1; }
static NO_TRACE pte_t *ptep_of(int p)
{
	int s = slot_of_page[p], k = p - slot_first[s];
	return &H.tables[slot_table[s] + k / PTRS_PER_PTE][k % PTRS_PER_PTE];
}
static NO_TRACE unsigned long pgste_of(int p) { return *(unsigned long *)(ptep_of(p) + PTRS_PER_PTE); }
/* The page at guest frame gfn (in the layout, present or not), or -1. */
static NO_TRACE int page_of_gfn(unsigned long gfn)
{
	for (int s = 0; s < nslots; s++)
		if (gfn >= slot_base[s] && gfn < slot_base[s] + slot_npages[s])
			return slot_first[s] + (int)(gfn - slot_base[s]);
	return -1;
}
/* The page at host address addr, or -1. */
static NO_TRACE int page_of_hva(unsigned long addr)
{
	if (addr < HVA_BASE)
		return -1;
	unsigned long s = (addr - HVA_BASE) / SLOT_SPAN, k = (addr - HVA_BASE) % SLOT_SPAN / PAGE_SIZE;
	if (s >= (unsigned long)nslots || k >= slot_npages[s])
		return -1;
	return slot_first[s] + (int)k;
}
/* The page's bit in its memslot's second dirty bitmap (0 while the slot has no bitmap). */
static NO_TRACE int cmma_dirty_bit(int p)
{
	struct kvm_memory_slot *ms = &H.slot[slot_of_page[p]];
	return ms->dirty_bitmap ? test_bit((unsigned long)(p - slot_first[slot_of_page[p]]), ms->dirty_bitmap) : 0;
}

/* ------------------------------------------------------------------ the step's record */

/* Before the step (explain; the rest of the step's record is harness_trace.h's).  Kept
 * outside H: a rollback restores H, not this. */
static unsigned long before_pte[MAX_PAGES], before_pgste[MAX_PAGES];
static unsigned char before_key[MAX_PAGES];
static unsigned long before_cbrl[MAX_CBRL];
static int before_ncbrl;
static unsigned char before_dirty[MAX_PAGES];  /* each page's second-dirty-bitmap bit */
static long before_dirty_pages;     /* and kvm->arch.cmma_dirty_pages */

/* The PTEs, the PGSTEs without the lock bit (taken and released inside every change), the
 * CBRL, and the second dirty bitmap with its count, hashed: a function changed the state when
 * it differs after it. */
static int interpreting;  /* an ESSA outside migration mode: its marks are put back (essa) */
static NO_TRACE unsigned long state_sig(void)
{
	unsigned long h = (unsigned long)H.ncbrl * 1000003UL + (unsigned long)H.nappended;
	if (!interpreting) {
		for (int s = 0; s < nslots; s++)
			for (unsigned long i = 0; i < (slot_npages[s] + 63) / 64; i++)
				h = h * 31 + H.cmma_dirty[s][i];
		h = h * 31 + (unsigned long)H.kvm.arch.cmma_dirty_pages.counter;
		h = h * 31 + (unsigned long)H.kvm.arch.migration_mode * 7 + (unsigned long)H.mm.context.uses_cmm;
	}
	for (int p = 0; p < pages; p++) {
		h = h * 31 + pte_val(*ptep_of(p));
		h = h * 31 + (pgste_of(p) & ~PGSTE_PCL_BIT);
	}
	return h;
}

static NO_TRACE void step_begins(void)
{
	for (int p = 0; p < pages; p++) {
		before_pte[p] = pte_val(*ptep_of(p));
		before_pgste[p] = pgste_of(p);
		before_key[p] = H.skey[p];
		before_dirty[p] = (unsigned char)cmma_dirty_bit(p);
	}
	memcpy(before_cbrl, H.cbrl, sizeof(before_cbrl));
	before_ncbrl = H.ncbrl;
	trace_begin();
	before_dirty_pages = H.kvm.arch.cmma_dirty_pages.counter;
}

/* ------------------------------------------------------------------ the stubs' host side */

struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)
{
	(void)mm;
	return page_of_hva(addr) >= 0 ? &H.vma : NULL;
}

pte_t *get_locked_pte(struct mm_struct *mm, unsigned long addr, spinlock_t **ptl)
{
	(void)mm;
	*ptl = NULL;
	int p = page_of_hva(addr);
	return p < 0 ? NULL : ptep_of(p);
}

int pmd_lookup(struct mm_struct *mm, unsigned long addr, pmd_t **pmdp)
{
	static pmd_t pmd;
	(void)mm;
	*pmdp = &pmd;
	return vma_lookup(mm, addr) ? 0 : -EFAULT;
}

pte_t *pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmd, unsigned long addr, spinlock_t **ptl)
{
	(void)pmd;
	return get_locked_pte(mm, addr, ptl);
}

/* ------------------------------------------------------------------ KVM's memslots */

/* The red-black tree of the memslots by gfn, as lib/rbtree.c leaves it for up to three nodes:
 * one is the root; a second hangs below the first; three are balanced (the middle one the
 * root); rb_erase of a root with two children puts its successor in its place. */
static NO_TRACE void tree_link(int root)
{
	struct rb_node *r = &H.slot[root].gfn_node[0];
	for (int s = 0; s < nslots; s++) {
		struct rb_node *n = &H.slot[s].gfn_node[0];
		n->rb_parent = n->rb_left = n->rb_right = NULL;
	}
	H.kvm.slots.gfn_tree.rb_node = root < 0 ? NULL : r;
	if (root < 0)
		return;
	for (int s = 0; s < nslots; s++) {
		if (!H.present[s] || s == root)
			continue;
		struct rb_node *n = &H.slot[s].gfn_node[0];
		n->rb_parent = r;
		if (H.slot[s].base_gfn < H.slot[root].base_gfn)
			r->rb_left = n;
		else
			r->rb_right = n;
	}
}

static NO_TRACE int tree_root(void)
{
	struct rb_node *r = H.kvm.slots.gfn_tree.rb_node;
	return r ? (int)(container_of(r, struct kvm_memory_slot, gfn_node[0]) - H.slot) : -1;
}

/* s joins (present) or leaves the tree. */
static NO_TRACE void tree_change(int s, int join)
{
	int root = tree_root(), n = 0, order[MAX_SLOTS];
	H.present[s] = join;
	for (int t = 0; t < nslots; t++)
		if (H.present[t])
			order[n++] = t;  /* by gfn: the layout's slots are in gfn order */
	H.kvm.slots.nslots = n;
	if (n == 0)
		root = -1;
	else if (n == 3)
		root = order[1];
	else if (join ? root < 0 : root == s)
		root = join ? s : (n == 2 ? order[1] : order[0]);
	tree_link(root);
}

struct kvm_memory_slot *harness_slot_at(struct kvm_memslots *slots, int i)
{
	(void)slots;
	for (int s = 0; s < nslots; s++)
		if (H.present[s] && i-- == 0)
			return &H.slot[s];
	return NULL;
}

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;
	while (n && n->rb_left)
		n = n->rb_left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;
	while (n && n->rb_right)
		n = n->rb_right;
	return n;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	if (node->rb_right) {
		node = node->rb_right;
		while (node->rb_left)
			node = node->rb_left;
		return (struct rb_node *)node;
	}
	struct rb_node *parent;
	while ((parent = node->rb_parent) && node == parent->rb_right)
		node = parent;
	return parent;
}

/* include/linux/kvm_host.h's search_memslots: down the tree; with approx, the last slot
 * visited when none holds gfn. */
struct kvm_memory_slot *____gfn_to_memslot(struct kvm_memslots *slots, gfn_t gfn, bool approx)
{
	struct kvm_memory_slot *slot = NULL;
	for (struct rb_node *node = slots->gfn_tree.rb_node; node; ) {
		slot = container_of(node, struct kvm_memory_slot, gfn_node[0]);
		if (gfn >= slot->base_gfn) {
			if (gfn < slot->base_gfn + slot->npages)
				return slot;
			node = node->rb_right;
		} else {
			node = node->rb_left;
		}
	}
	return approx ? slot : NULL;
}

unsigned long gfn_to_hva(struct kvm *kvm, unsigned long gfn)
{
	struct kvm_memory_slot *ms = ____gfn_to_memslot(&kvm->slots, gfn, false);
	return ms ? ms->userspace_addr + (gfn - ms->base_gfn) * PAGE_SIZE : IS_ERR_VALUE_HVA;
}

struct kvm_memory_slot *gfn_to_memslot(struct kvm *kvm, unsigned long gfn)
{
	return ____gfn_to_memslot(&kvm->slots, gfn, false);
}

/* The gmap's segment table (gmap.c's gmap_map_segment, gmap_unmap_segment): guest segment to
 * host segment, as the commit hook maps and unmaps a memslot. */
int gmap_map_segment(struct gmap *gmap, unsigned long from, unsigned long to, unsigned long len)
{
	(void)gmap;
	if ((from | to | len) & (PMD_SIZE - 1))
		return -EINVAL;
	for (unsigned long off = 0; off < len && H.nsegs < MAX_SLOTS * 4; off += PMD_SIZE) {
		H.seg_gaddr[H.nsegs] = to + off;
		H.seg_hva[H.nsegs++] = from + off;
	}
	return 0;
}

int gmap_unmap_segment(struct gmap *gmap, unsigned long to, unsigned long len)
{
	(void)gmap;
	for (int i = 0; i < H.nsegs; )
		if (H.seg_gaddr[i] >= to && H.seg_gaddr[i] < to + len) {
			H.seg_gaddr[i] = H.seg_gaddr[H.nsegs - 1];
			H.seg_hva[i] = H.seg_hva[--H.nsegs];
		} else {
			i++;
		}
	return 0;
}

/* The vCPU's side of kvm_s390_sync_request_broadcast, as kvm_s390_handle_requests takes it:
 * START turns ESSA interpretation off (every ESSA intercepted), STOP on again if the VM uses
 * CMMA and CMM was used. */
void kvm_s390_sync_request_broadcast(struct kvm *kvm, int req)
{
	if (req == KVM_REQ_START_MIGRATION)
		H.sie.ecb2 &= ~ECB2_CMMA;
	else if (req == KVM_REQ_STOP_MIGRATION && kvm->arch.use_cmma && kvm->mm->context.uses_cmm)
		H.sie.ecb2 |= ECB2_CMMA;
}

int kvm_s390_inject_program_int(struct kvm_vcpu *vcpu, u16 code)
{
	(void)vcpu;
	H.pic = code;
	return 0;
}

/* Outside migration mode handle_essa enables interpretation and retries; not reached here. */
void kvm_s390_retry_instr(struct kvm_vcpu *vcpu) { (void)vcpu; }

unsigned char page_get_storage_key(unsigned long addr) { return H.skey[page_of_frame(addr)]; }

void page_set_storage_key(unsigned long addr, unsigned char key, int nq)
{
	(void)nq;
	H.skey[page_of_frame(addr)] = key;
}

/* IPTE invalidates the entry (and flushes TLBs, of which there are none here). */
void __ptep_ipte(unsigned long addr, pte_t *ptep, unsigned long opt, unsigned long asce, int local)
{
	(void)addr; (void)opt; (void)asce; (void)local;
	pte_val(*ptep) |= _PAGE_INVALID;
}

void free_swap_and_cache(swp_entry_t entry)
{
	H.swap_data[__swp_offset(entry)] = 0;
	H.zapped = 1;
}

/* mm/pagewalk.c's walk_page_range, for the one VMA: the PTE callback on every PTE of the range
 * it covers, in address order, as walk_pte_range does for a page table under a present PMD
 * (empty PTEs included).  The other callbacks (PMD, hole, ...) are not set by the callers. */
int walk_page_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		    const struct mm_walk_ops *ops, void *private)
{
	struct mm_walk walk = { ops, mm, private };
	for (int p = 0; p < pages; p++) {
		unsigned long addr = hva_of(p);
		if (addr < start || addr >= end || !ops->pte_entry)
			continue;
		int rc = ops->pte_entry(ptep_of(p), addr, addr + PAGE_SIZE, &walk);
		if (rc)
			return rc;
	}
	return 0;
}

/* The gmap's guest-to-host segment lookup. */
void *radix_tree_lookup(int *root, unsigned long index)
{
	(void)root;
	for (int i = 0; i < H.nsegs; i++)
		if (H.seg_gaddr[i] >> PMD_SHIFT == index)
			return (void *)H.seg_hva[i];
	return NULL;
}

/* handle_essa's loop over the CBRL, redirected: the entries are kept for HostProcessCBRL. */
void harness_cbrl_append(struct gmap *gmap, unsigned long gaddr)
{
	(void)gmap;
	H.appended[H.nappended++] = gaddr;
}

/* ------------------------------------------------------------------ the host model */

/* A memslot change as kvm_main.c's __kvm_set_memory_region makes it (kvm_set_memslot): the
 * dirty bitmap (kvm_prepare_memory_region: a new zeroed one when logging starts, none without
 * logging, the old one kept), the kernel's kvm_arch_prepare_memory_region (which may refuse),
 * the slot put into or taken out of the memslots, the kernel's kvm_arch_commit_memory_region,
 * and the old bitmap freed (kvm_free_memslot, kvm_destroy_dirty_bitmap).  The hooks see the
 * memslot at a whole number of segments, as a VMM makes it (the harness's slot holds only the
 * modelled pages). */
static int slot_change(int s, enum kvm_mr_change change, int log)
{
	struct kvm_memory_slot old = H.slot[s], new = H.slot[s], hook_old, hook_new;
	unsigned long segment_pages = PMD_SIZE / PAGE_SIZE;
	if (change != KVM_MR_DELETE) {
		new.flags = log ? KVM_MEM_LOG_DIRTY_PAGES : 0;
		if (!log)
			new.dirty_bitmap = NULL;
		else if (change == KVM_MR_CREATE || !old.dirty_bitmap) {
			memset(H.cmma_dirty[s], 0, sizeof(H.cmma_dirty[s]));
			new.dirty_bitmap = H.cmma_dirty[s];
		}
	}
	hook_old = old, hook_new = new;
	hook_old.npages = hook_new.npages = (new.npages + segment_pages - 1) / segment_pages * segment_pages;
	int rc = kvm_arch_prepare_memory_region(&H.kvm, change == KVM_MR_CREATE ? NULL : &hook_old,
						change == KVM_MR_DELETE ? NULL : &hook_new, change);
	if (rc)
		return rc;
	if (change == KVM_MR_DELETE) {
		tree_change(s, 0);
	} else {
		struct rb_node node = H.slot[s].gfn_node[0];
		H.slot[s] = new;
		H.slot[s].gfn_node[0] = node;
		if (change == KVM_MR_CREATE)
			tree_change(s, 1);
	}
	kvm_arch_commit_memory_region(&H.kvm, change == KVM_MR_CREATE ? NULL : &hook_old,
				      change == KVM_MR_DELETE ? NULL : &hook_new, change);
	if (old.dirty_bitmap && (change == KVM_MR_DELETE || !H.slot[s].dirty_bitmap)) {
		memset(H.cmma_dirty[s], 0, sizeof(H.cmma_dirty[s]));
		H.slot[s].dirty_bitmap = NULL;
	}
	return 0;
}

/* The guest's first ESSA on a VM with CMMA: the machine intercepts it (ECB2_CMMA is off in a
 * new vCPU's SIE block) and the kernel's handle_essa, outside migration mode, sets
 * mm->context.uses_cmm and ECB2_CMMA and has the instruction retried. */
static void first_essa_intercept(void)
{
	H.sie.ipb = ((u32)ESSA_GET_STATE << 28) | (1u << 20) | (2u << 16);
	H.run.s.regs.gprs[2] = 0;
	handle_essa(&H.vcpu);
	H.pic = 0;
}

/* A fresh VM (the source at a reset, the destination at the switch): the layout's memslots
 * at boot, made by the memslot path (slot_change), nothing used yet.  mm->context.uses_cmm is
 * 0 in a new VM; the source's guest then issues its first ESSA (first_essa_intercept), so its
 * kernel sets it; the destination's kernel sets it in kvm_s390_set_cmma_bits. */
static void vm_reset(int source)
{
	memset(&H, 0, sizeof(H));
	for (int t = 0; t < MAX_TABLES; t++)  /* fresh page tables: empty PTEs, zero PGSTEs */
		for (int i = 0; i < PTRS_PER_PTE; i++)
			pte_val(H.tables[t][i]) = _PAGE_INVALID;
	H.mm.context.has_pgste = 1;
	H.mm.context.uses_skeys = storage_keys;
	H.mm.context.uses_cmm = 0;
	H.vma.vm_mm = &H.mm;
	H.gmap.mm = &H.mm;
	H.kvm.mm = &H.mm;
	H.kvm.arch.use_cmma = cmma_enabled;  /* handle_essa: PIC 1 when CMMA is off */
	/* not in migration mode (kvm_s390_vm_start_migration turns it on); the host model's essa
	 * has every ESSA emulated by __do_essa all the same */
	H.kvm.arch.migration_mode = 0;
	H.kvm.arch.facility147 = (unsigned long)facility147;
	H.kvm.arch.mem_limit = KVM_S390_NO_MEM_LIMIT;
	H.kvm.arch.gmap = &H.gmap;
	H.vcpu.kvm = &H.kvm;
	H.vcpu.run = &H.run;
	H.vcpu.arch.sie_block = &H.sie;
	H.vcpu.arch.gmap = &H.gmap;
	H.sie.cbrlo = (unsigned long)(uintptr_t)cbrlo_page;
	H.last_get_remaining = -1;
	for (int s = 0; s < nslots; s++) {
		H.slot[s].id = (short)s;
		H.slot[s].base_gfn = slot_base[s];
		H.slot[s].npages = slot_npages[s];
		H.slot[s].userspace_addr = HVA_BASE + (unsigned long)s * SLOT_SPAN;
		if (slot_at_boot[s])
			slot_change(s, KVM_MR_CREATE, slot_at_boot[s] == 2);
	}
	if (source && cmma_enabled)
		first_essa_intercept();
}

static void host_reset(void) { vm_reset(1); }

/* The saved states are of one layout's size: a new profile or layout drops them. */
static void drop_snapshots(void)
{
	for (int i = 0; i < MAX_SNAPSHOTS; i++) {
		free(snapshots[i]);
		snapshots[i] = NULL;
	}
}

/* The layout request: the memslots (see the header).  The pages' page tables are laid out
 * slot by slot. */
static int set_layout(const char *line)
{
	char *end;
	const char *at = line;
	long v[1 + 3 * MAX_SLOTS];
	int n = 0;
	while (n < 1 + 3 * MAX_SLOTS) {
		long x = strtol(at, &end, 10);
		if (end == at)
			break;
		v[n++] = x;
		at = end;
	}
	if (n < 1 || v[0] < 1 || v[0] > MAX_SLOTS || n != 1 + 3 * v[0])
		return -1;
	int total = 0, tables = 0;
	for (int s = 0; s < v[0]; s++) {
		long base = v[1 + 3 * s], np = v[2 + 3 * s], at_boot = v[3 + 3 * s];
		if (base < 0 || np < 1 || at_boot < 0 || at_boot > 2 || (base & 255) ||
		    (s && base < (long)(slot_base[s - 1] + slot_npages[s - 1])) || total + np > MAX_PAGES)
			return -1;
		slot_base[s] = (unsigned long)base, slot_npages[s] = (unsigned long)np;
		slot_at_boot[s] = (int)at_boot, slot_first[s] = total, slot_table[s] = tables;
		for (int k = 0; k < np; k++)
			slot_of_page[total + k] = s;
		total += (int)np;
		tables += (int)((np + PTRS_PER_PTE - 1) / PTRS_PER_PTE);
	}
	if (total != pages || tables > MAX_TABLES)
		return -1;
	drop_snapshots();
	nslots = (int)v[0];
	ntables = tables;
	return 0;
}

/* The default layout: one memslot of every page at gfn 0, with dirty logging. */
static void default_layout(void)
{
	drop_snapshots();
	nslots = 1;
	slot_base[0] = 0, slot_npages[0] = (unsigned long)pages, slot_at_boot[0] = 2;
	slot_first[0] = 0;
	for (int p = 0; p < pages; p++)
		slot_of_page[p] = 0;
	slot_table[0] = 0;
	ntables = (pages + PTRS_PER_PTE - 1) / PTRS_PER_PTE;
}

/* A page fault on an invalid PTE: swap in, or a fresh zero page, installed by set_pte_at. */
static void fault_in(int p)
{
	pte_t pte = *ptep_of(p);
	if (!(pte_val(pte) & _PAGE_INVALID))
		return;
	unsigned long data = 0;
	if (pte_swap(pte)) {
		unsigned long slot = __swp_offset(__pte_to_swp_entry(pte));
		data = H.swap_data[slot];
		H.swap_data[slot] = 0;  /* the swap copy is freed once the page is in */
	}
	H.frame_data[p] = data;
	ptep_set_pte_at(&H.mm, hva_of(p), ptep_of(p),
			__pte(frame_of(p) | _PAGE_PRESENT | _PAGE_READ | _PAGE_WRITE | _PAGE_YOUNG |
			      _PAGE_DIRTY));
}

static const char *reclaim(int p)
{
	pte_t *ptep = ptep_of(p);
	if (pte_val(*ptep) & _PAGE_INVALID) {
		snprintf(note, sizeof(note), "the PTE has _PAGE_INVALID: there is nothing to reclaim, "
			 "the harness called no kernel function");
		return "Refused";
	}
	/* try_to_unmap_one: ptep_clear_flush, then drop an unused page or swap it out */
	pte_t old = ptep_xchg_direct(&H.mm, hva_of(p), ptep, __pte(_PAGE_INVALID));
	if (!pte_unused(old)) {
		H.swap_data[p + 1] = H.frame_data[p];
		ptep_set_pte_at(&H.mm, hva_of(p), ptep, mk_swap_pte(0, (unsigned long)p + 1));
	}
	H.frame_data[p] = 0;
	return "Done";
}

static const char *process_cbrl(void)
{
	if (H.ncbrl == 0) {
		snprintf(note, sizeof(note), "the CBRL is empty: the harness called no kernel function");
		return "Refused";
	}
	unsigned long gaddr = H.cbrl[0];
	memmove(H.cbrl, H.cbrl + 1, (size_t)(H.ncbrl - 1) * sizeof(H.cbrl[0]));
	H.ncbrl--;
	H.zapped = 0;
	__gmap_zap(&H.gmap, gaddr);
	snprintf(note, sizeof(note), "the CBRL's head, guest address 0x%lx, went to __gmap_zap; "
		 "free_swap_and_cache was %scalled", gaddr, H.zapped ? "" : "not ");
	return H.zapped ? "Zapped" : "Kept";
}

/* ESSA as KVM emulates it: handle_essa with the ORC in IPB, R1 = 1, R2 = 2 holding the guest
 * address.  A discard it queues on a full CBRL is rolled back and refused (the machine
 * intercepts first and the host empties the list).  Outside migration mode the machine
 * interprets ESSA itself (handle_essa would turn interpretation on and retry): the harness
 * has __do_essa emulate it in migration mode all the same, and then puts the second dirty
 * bitmap, its count and the mode back, as the machine's interpretation touches neither. */
static const char *essa(unsigned long gfn, int orc, int problem_state, long *result)
{
	struct host saved = H;
	int mode = H.kvm.arch.migration_mode;
	/* the machine intercepts ESSA while ECB2_CMMA is off in the SIE block (a new vCPU; in
	 * migration mode, after the kernel's KVM_REQ_START_MIGRATION), else interprets it */
	int intercepted = !(H.sie.ecb2 & ECB2_CMMA);
	H.sie.ipb = ((u32)orc << 28) | (1u << 20) | (2u << 16);
	/* handle_essa's first check: the guest PSW's problem-state bit (privileged operation) */
	H.sie.gpsw.mask = problem_state ? PSW_MASK_PSTATE : 0;
	H.run.s.regs.gprs[2] = gfn << PAGE_SHIFT;
	H.run.s.regs.gprs[1] = 0;
	H.pic = 0;
	H.nappended = 0;
	/* intercepted: the kernel's handle_essa; in migration mode __do_essa emulates it, outside
	 * it sets uses_cmm and ECB2_CMMA and retries the instruction, which the machine then
	 * interprets */
	if (intercepted)
		handle_essa(&H.vcpu);
	int interpreted = !intercepted || !mode;
	if (H.pic == 0 && interpreted) {
		H.kvm.arch.migration_mode = 1;
		interpreting = 1;
		for (int s = 0; s < nslots; s++)  /* the marks are put back: any bitmap will do */
			if (!H.slot[s].dirty_bitmap)
				H.slot[s].dirty_bitmap = H.cmma_dirty[s];
		handle_essa(&H.vcpu);
	}
	H.sie.gpsw.mask = 0;
	interpreting = 0;
	if (interpreted) {
		H.kvm.arch.migration_mode = mode;
		memcpy(H.cmma_dirty, saved.cmma_dirty, sizeof(H.cmma_dirty));
		for (int s = 0; s < nslots; s++)
			H.slot[s].dirty_bitmap = saved.slot[s].dirty_bitmap;
		H.kvm.arch.cmma_dirty_pages = saved.kvm.arch.cmma_dirty_pages;
	}
	if (H.pic != 0) {
		/* a program interruption: the instruction is suppressed, nothing it did stays */
		int pic = H.pic;
		H = saved;
		note_essa_rollback(pic, 0, 0, 0);
		return pic_outcome(pic);
	}
	if (H.ncbrl + H.nappended > cbrl_size) {
		int queued = H.nappended;
		H = saved;
		note_essa_rollback(0, H.ncbrl, cbrl_size, queued);
		return "Refused";
	}
	memcpy(H.cbrl + H.ncbrl, H.appended, (size_t)H.nappended * sizeof(H.cbrl[0]));
	H.ncbrl += H.nappended;
	*result = (long)(H.run.s.regs.gprs[1] & 0xff);
	return "Done";
}

/* The CMMA reset of the VM (KVM_S390_VM_MEM_CLR_CMMA): the kernel's s390_reset_cmma, whose
 * page walk calls __s390_reset_cmma on every PTE. */
static const char *reset_cmma(void)
{
	s390_reset_cmma(&H.mm);
	return "Done";
}

/* The guest's store: the frame's real storage key gets C and R, as the machine sets them. */
static void store(int p, unsigned long value)
{
	fault_in(p);
	H.frame_data[p] = value;
	H.skey[p] |= _PAGE_CHANGED | _PAGE_REFERENCED;
}

/* The guest resets the change bit of its key: ISKE then SSKE, as KVM's handlers do them.  A
 * guest without storage keys keeps its change bits in its own page tables: nothing to do. */
static void writeback(int p)
{
	unsigned char key;
	if (!storage_keys)
		return;
	get_guest_storage_key(&H.mm, hva_of(p), &key);
	set_guest_storage_key(&H.mm, hva_of(p), key & ~_PAGE_CHANGED, false);
}

/* KVM_S390_VM_MIGRATION_START: the kernel's kvm_s390_vm_start_migration (every page
 * CMMA-dirty, migration mode on).  Refused, with the kernel not called, once the VM has been
 * migrated (the harness migrates once) or while migration mode is on. */
static const char *migration_start(void)
{
	if (H.kvm.arch.migration_mode || (!vmm && H.migrated)) {
		snprintf(note, sizeof(note), "the VM %s: the harness called no kernel function",
			 H.migrated ? "was migrated already" : "is in migration mode already");
		return "Refused";
	}
	int rc = kvm_s390_vm_start_migration(&H.kvm);
	if (rc) {
		snprintf(note, sizeof(note), "kvm_s390_vm_start_migration returned %d", rc);
		return "Refused";
	}
	return "Done";
}

/* One KVM_S390_GET_CMMA_BITS of one value from guest page p (start_gfn p, count 1), as QEMU
 * asks for the next values: the kernel's kvm_s390_get_cmma_bits.  The value is kept in the
 * destination's buffer.  When the kernel sends nothing, or another page's value (p is not
 * CMMA-dirty and the search for the next dirty page went on), the harness rolls the call back
 * and refuses. */
static const char *migration_send(int p, long *value)
{
	struct host saved = H;
	unsigned char byte = 0;
	struct kvm_s390_cmma_log args;
	memset(&args, 0, sizeof(args));
	args.start_gfn = gfn_of(p);
	args.count = 1;
	args.values = (unsigned long)(uintptr_t)&byte;
	int rc = kvm_s390_get_cmma_bits(&H.kvm, &args);
	if (rc < 0 || args.count == 0 || args.start_gfn != gfn_of(p)) {
		unsigned long start = args.start_gfn;
		unsigned count = args.count;
		H = saved;
		snprintf(note, sizeof(note), "kvm_s390_get_cmma_bits(start_gfn %d, count 1) returned "
			 "%d with start_gfn %lu, count %u: not page %d's value; the harness rolled the "
			 "call back (host state restored from a snapshot taken before it)", p, rc,
			 start, count, p);
		return "Refused";
	}
	H.sent[p] = byte;
	*value = byte;
	return "Done";
}

/* The switch, as QEMU does it with the VM stopped: KVM_S390_GET_CMMA_BITS from gfn 0 on, each
 * call resuming after the last value, until it returns no value (at most MAX_ROUNDS calls); RAM
 * and storage keys out; a fresh VM; KVM_S390_SET_CMMA_BITS (mask ~0, as QEMU sets it) of every
 * page's last value, the non-zero pages written in, the keys set.  Outside migration mode the
 * kernel's kvm_s390_vm_start_migration first: ESSA.tla's one-shot Migrate. */
#define MAX_ROUNDS (4 * MAX_PAGES + 4)
static const char *destination(unsigned long mask);
static const char *migrate(void)
{
	unsigned char buf[MAX_PAGES];
	if (H.migrated) {
		snprintf(note, sizeof(note), "the VM was migrated already: the harness migrates once "
			 "and called no kernel function");
		return "Refused";
	}
	if (!H.kvm.arch.migration_mode) {
		int rc = kvm_s390_vm_start_migration(&H.kvm);
		if (rc) {
			snprintf(note, sizeof(note), "kvm_s390_vm_start_migration returned %d", rc);
			return "Refused";
		}
	}
	unsigned long next = 0;
	int rounds = 0;
	for (; rounds < MAX_ROUNDS; rounds++) {
		struct kvm_s390_cmma_log args;
		memset(&args, 0, sizeof(args));
		args.start_gfn = next;
		args.count = (unsigned)pages;
		args.values = (unsigned long)(uintptr_t)buf;
		if (kvm_s390_get_cmma_bits(&H.kvm, &args) < 0 || args.count == 0)
			break;
		for (unsigned i = 0; i < args.count; i++)
			if (page_of_gfn(args.start_gfn + i) >= 0)
				H.sent[page_of_gfn(args.start_gfn + i)] = buf[i];
		next = args.start_gfn + args.count;
	}
	if (rounds == MAX_ROUNDS)
		snprintf(note, sizeof(note), "KVM_S390_GET_CMMA_BITS still returned values after %d "
			 "calls: the harness switched over with the values it had", MAX_ROUNDS);
	return destination(~0UL);
}

/* The switch's second half: RAM and storage keys out, a fresh VM with the source's memslots,
 * KVM_S390_SET_CMMA_BITS with MASK (~0 as QEMU sets it; the VMM's switch may give another, in
 * the bits of a CMMA value, which the SET's mask has 24 bits up) of every page's last value
 * sent, memslot by memslot, the non-zero pages written in, the keys set. */
static const char *destination(unsigned long mask)
{
	unsigned long data[MAX_PAGES];
	unsigned char keys[MAX_PAGES], sent[MAX_PAGES];
	int boot[MAX_SLOTS] = { 0 }, at_boot[MAX_SLOTS];
	memcpy(sent, H.sent, sizeof(sent));
	for (int s = 0; s < nslots; s++)
		boot[s] = H.present[s] ? (H.slot[s].dirty_bitmap ? 2 : 1) : 0;
	for (int p = 0; p < pages; p++) {
		pte_t pte = *ptep_of(p);
		data[p] = !(pte_val(pte) & _PAGE_INVALID) ? H.frame_data[p]
			: pte_swap(pte) ? H.swap_data[__swp_offset(__pte_to_swp_entry(pte))] : 0;
		if (storage_keys)
			get_guest_storage_key(&H.mm, hva_of(p), &keys[p]);
	}
	memcpy(at_boot, slot_at_boot, sizeof(at_boot));
	memcpy(slot_at_boot, boot, sizeof(boot));
	vm_reset(0);
	memcpy(slot_at_boot, at_boot, sizeof(at_boot));
	for (int s = 0; s < nslots; s++) {
		if (!H.present[s])
			continue;
		struct kvm_s390_cmma_log in;
		memset(&in, 0, sizeof(in));
		in.start_gfn = slot_base[s];
		in.count = (unsigned)slot_npages[s];
		in.mask = mask;
		in.values = (unsigned long)(uintptr_t)(sent + slot_first[s]);
		int rc = kvm_s390_set_cmma_bits(&H.kvm, &in);
		if (rc)
			snprintf(note, sizeof(note), "kvm_s390_set_cmma_bits returned %d", rc);
	}
	memcpy(H.sent, sent, sizeof(sent));
	for (int p = 0; p < pages; p++) {
		if (!H.present[slot_of_page[p]])
			continue;
		if (data[p] != 0)  /* QEMU sends zero pages as a flag and does not touch them */
			store(p, data[p]);
		if (storage_keys)
			set_guest_storage_key(&H.mm, hva_of(p), keys[p], false);
	}
	H.migrated = 1;
	return "Done";
}

/* ------------------------------------------------------------------ the VMM's requests */

/* The last KVM_S390_GET_CMMA_BITS's answer, for the reply (MIG 2). */
#define MAX_VALUES 4096
static struct { int valid; unsigned long start; unsigned count; unsigned long remaining;
		unsigned char values[MAX_VALUES]; } answer;

/* KVM_S390_VM_MIGRATION_STOP: the kernel's kvm_s390_vm_stop_migration. */
static const char *migration_stop(long *result)
{
	if (!H.kvm.arch.migration_mode) {
		snprintf(note, sizeof(note), "kvm->arch.migration_mode is 0 (the kernel's "
			 "kvm_s390_vm_stop_migration would do nothing): the harness called no kernel "
			 "function");
		return "Refused";
	}
	*result = kvm_s390_vm_stop_migration(&H.kvm);
	return *result < 0 ? "Refused" : "Done";
}

/* KVM_S390_GET_CMMA_BITS of COUNT values from START, with KVM_S390_CMMA_PEEK or without: the
 * kernel's kvm_s390_get_cmma_bits.  A GET's values go to the destination's buffer (QEMU's). */
static const char *cmma_log(unsigned long start, unsigned count, int peek, long *result)
{
	struct kvm_s390_cmma_log args;
	memset(&args, 0, sizeof(args));
	memset(&answer, 0, sizeof(answer));
	args.start_gfn = start;
	args.count = count;
	args.flags = peek ? KVM_S390_CMMA_PEEK : 0;
	args.values = (unsigned long)(uintptr_t)answer.values;
	int rc = kvm_s390_get_cmma_bits(&H.kvm, &args);
	*result = rc;
	if (rc < 0)
		return "Refused";
	answer.valid = 1;
	answer.start = args.start_gfn;
	answer.count = args.count;
	answer.remaining = args.remaining;
	if (!peek) {
		for (unsigned i = 0; i < args.count; i++)
			if (page_of_gfn(args.start_gfn + i) >= 0)
				H.sent[page_of_gfn(args.start_gfn + i)] = answer.values[i];
		H.last_get_remaining = (int)args.remaining;
	}
	return "Done";
}

/* The VMM's switch: the final GET answered remaining 0 in migration mode; the destination
 * takes what the GETs sent, by a SET with MASK. */
static const char *vmm_switch(unsigned long mask)
{
	if (!H.kvm.arch.migration_mode || H.last_get_remaining != 0) {
		snprintf(note, sizeof(note), "the last request was not a GET that answered remaining 0 "
			 "in migration mode: the harness called no kernel function");
		return "Refused";
	}
	return destination(mask);
}

/* Memslot s created (with dirty logging or without), deleted, or its logging changed. */
static const char *memslot(const char *op, int s, int log, long *result)
{
	if (s < 0 || s >= nslots)
		return NULL;
	enum kvm_mr_change change = !strcmp(op, "slotcreate") ? KVM_MR_CREATE
		: !strcmp(op, "slotdelete") ? KVM_MR_DELETE : KVM_MR_FLAGS_ONLY;
	if ((change == KVM_MR_CREATE) == H.present[s] ||
	    (change == KVM_MR_DELETE && H.kvm.slots.nslots < 2) ||
	    (change == KVM_MR_FLAGS_ONLY && !!H.slot[s].dirty_bitmap == !!log)) {
		snprintf(note, sizeof(note), "memslot %d %s: the harness called no kernel function", s,
			 H.present[s] ? (change == KVM_MR_CREATE ? "exists" : "logs so already")
			 : "does not exist");
		return "Refused";
	}
	*result = slot_change(s, change, log);
	return *result ? "Refused" : "Done";
}

/* ------------------------------------------------------------------ the line protocol */

static void reply(const char *outcome, long result, long value)
{
	printf("%s %ld %ld", outcome, result, value);
	for (int p = 0; p < pages; p++) {
		pte_t pte = *ptep_of(p);
		unsigned long pgstev = pgste_of(p);
		static const char usage[] = "SUPV";
		int valid = !(pte_val(pte) & _PAGE_INVALID);
		char dirty = '-';
		if (storage_keys) {
			unsigned char key = 0;
			get_guest_storage_key(&H.mm, hva_of(p), &key);
			dirty = key & _PAGE_CHANGED ? '1' : '0';
		}
		printf(" %c%d%d%d%d%d%c",
		       usage[(pgstev & _PGSTE_GPS_USAGE_MASK) / _PGSTE_GPS_USAGE_UNUSED], valid,
		       !valid && pte_swap(pte), !!(pgstev & _PGSTE_GPS_ZERO),
		       !!(pgstev & _PGSTE_GPS_NODAT), !!(pgstev & PGSTE_GC_BIT), dirty);
		if (report_cmma_dirty)
			printf("%d", cmma_dirty_bit(p));
	}
	if (vmm) {
		printf(" | %d %d", H.kvm.arch.migration_mode, H.mm.context.uses_cmm);
		if (answer.valid) {
			printf(" %lu %u %lu", answer.start, answer.count, answer.remaining);
			for (unsigned i = 0; i < answer.count; i++)
				printf(" %u", answer.values[i]);
		}
	}
	printf("\n");
	fflush(stdout);
}

static const struct named pgste_bits[] = {
	NAMED(_PGSTE_GPS_ZERO), NAMED(_PGSTE_GPS_NODAT), NAMED(PGSTE_GC_BIT), NAMED(PGSTE_GR_BIT),
	NAMED(PGSTE_HC_BIT), NAMED(PGSTE_HR_BIT), NAMED(PGSTE_UC_BIT), NAMED(PGSTE_FP_BIT),
	NAMED(PGSTE_PCL_BIT), NAMED(PGSTE_IN_BIT), NAMED(PGSTE_VSIE_BIT),
}, usages[] = {
	NAMED(_PGSTE_GPS_USAGE_STABLE), NAMED(_PGSTE_GPS_USAGE_UNUSED),
	NAMED(_PGSTE_GPS_USAGE_POT_VOLATILE), NAMED(_PGSTE_GPS_USAGE_VOLATILE),
}, key_bits[] = {
	NAMED(_PAGE_CHANGED), NAMED(_PAGE_REFERENCED), NAMED(_PAGE_FP_BIT),
};
static void print_page(int p, const char *when, unsigned long ptev, unsigned long pgstev,
		       unsigned char key)
{
	printf("page %d %s ", p, when);
	print_host_pte(ptev);
	printf(" pgste=0x%016lx [", pgstev);
	for (unsigned i = 0; i < COUNT(usages); i++)
		if ((pgstev & _PGSTE_GPS_USAGE_MASK) == usages[i].mask) {
			printf("%s", usages[i].name);
			break;
		}
	print_named(pgstev, pgste_bits, COUNT(pgste_bits), "|");
	if (pgstev & PGSTE_ACC_BITS)
		printf("|PGSTE_ACC_BITS=0x%lx", (pgstev & PGSTE_ACC_BITS) >> 60);
	printf("]");
	if (storage_keys) {
		printf(" key=0x%02x [", key);
		const char *sep = print_named(key, key_bits, COUNT(key_bits), "");
		if (key & _PAGE_ACC_BITS)
			printf("%sACC=%d", sep, (key & _PAGE_ACC_BITS) >> 4);
		printf("]");
	}
	printf("\n");
}

static void explain(void)
{
	explain_note();
	for (int p = 0; p < pages; p++)
		print_page(p, "before", before_pte[p], before_pgste[p], before_key[p]);
	for (int p = 0; p < pages; p++)
		print_page(p, "after", pte_val(*ptep_of(p)), pgste_of(p), H.skey[p]);
	for (int when = 0; when < 2; when++) {
		printf("dirty %s migration_mode=%d cmma_dirty_pages=%ld second dirty bitmap:",
		       when ? "after" : "before", when ? H.kvm.arch.migration_mode : -1,
		       when ? (long)H.kvm.arch.cmma_dirty_pages.counter : before_dirty_pages);
		for (int p = 0; p < pages; p++)
			printf(" %d", when ? cmma_dirty_bit(p) : before_dirty[p]);
		if (when && nslots > 1) {
			printf(" memslots:");
			for (int s = 0; s < nslots; s++)
				printf(" %s", !H.present[s] ? "absent" : H.slot[s].dirty_bitmap ? "logging" : "present");
		}
		if (when)
			printf(" uses_cmm=%d", H.mm.context.uses_cmm);
		printf("\n");
	}
	explain_end(before_cbrl, before_ncbrl, H.cbrl, H.ncbrl);
}

int main(void)
{
	char line[256], op[32];
	host_reset();
	while (fgets(line, sizeof(line), stdin)) {
		int a = -1, b = -1, c = -1, d = -1, e = -1, f = -1;
		if (sscanf(line, "%31s %d %d %d %d %d %d", op, &a, &b, &c, &d, &e, &f) < 1)
			continue;
		int page_ok = a >= 0 && a < pages;
		long result = -1, value = -1;
		const char *out = NULL;
		if (!strcmp(op, "hello")) {
			if (d < 1 || d > MAX_PAGES || c < 1 || c > MAX_CBRL || e > 1 || f > 2) {
				printf("error pages 1..%d and CBRL size 1..%d\n", MAX_PAGES, MAX_CBRL);
				fflush(stdout);
				continue;
			}
			storage_keys = a, facility147 = b, cbrl_size = c, pages = d;
			cmma_enabled = e < 0 ? 1 : e;
			report_cmma_dirty = f >= 1;
			vmm = f == 2;
			default_layout();
			host_reset();
			printf("ok\n");
			fflush(stdout);
			continue;
		} else if (!strcmp(op, "layout")) {
			int bad = set_layout(line + strlen("layout"));
			printf(bad ? "error layout: at most %d memslots on segments, %d pages\n" : "ok\n",
			       MAX_SLOTS, pages);
			if (bad)
				default_layout();
			host_reset();
			fflush(stdout);
			continue;
		} else if (common_request(op, a, &H, state_size())) {
			continue;
		}
		step_begins();
		answer.valid = 0;
		int was_get_remaining = H.last_get_remaining;
		H.last_get_remaining = -1;
		/* a request of the guest on a page outside every present memslot: refused */
		int page_op = !strcmp(op, "essa") || !strcmp(op, "reclaim") || !strcmp(op, "read") ||
			      !strcmp(op, "write") || !strcmp(op, "writeback");
		if (page_ok && page_op && !H.present[slot_of_page[a]]) {
			snprintf(note, sizeof(note), "page %d is in memslot %d, which is not present: the "
				 "harness called no kernel function", a, slot_of_page[a]);
			out = "Refused";
			op[0] = 0;
		}
		if (out != NULL) {
			;
		} else if (!strcmp(op, "cbrl")) {
			out = process_cbrl();
		} else if (!strcmp(op, "migrate")) {
			out = migrate();
		} else if (!strcmp(op, "switch") && vmm) {
			H.last_get_remaining = was_get_remaining;
			/* switch [MASK]: MASK in a CMMA value's bits (0x43 every bit the SET keeps),
			 * shifted into the PGSTE's; none given: ~0, QEMU's */
			out = vmm_switch(a < 0 ? ~0UL : (unsigned long)a << 24);
		} else if (!strcmp(op, "migstop") && vmm) {
			out = migration_stop(&result);
		} else if ((!strcmp(op, "get") || !strcmp(op, "peek")) && vmm && a >= 0 && b >= 0 &&
			   b <= MAX_VALUES) {
			out = cmma_log((unsigned long)a, (unsigned)b, op[0] == 'p', &result);
		} else if (!strncmp(op, "slot", 4) && vmm) {
			out = memslot(op, a, b == 1, &result);
		} else if (!strcmp(op, "switch")) {
			/* the incremental migration's switch: only in migration mode */
			if (H.kvm.arch.migration_mode) {
				out = migrate();
			} else {
				out = "Refused";
				snprintf(note, sizeof(note), "kvm->arch.migration_mode is 0: no migration "
					 "to switch over; the harness called no kernel function");
			}
		} else if (!strcmp(op, "migstart")) {
			out = migration_start();
		} else if (!strcmp(op, "migsend") && page_ok) {
			out = migration_send(a, &value);
		} else if (!strcmp(op, "refuse")) {
			out = "Refused";  /* a request the host cannot take: the state as it is */
			snprintf(note, sizeof(note), "a request of the new gmap's own PTEs, which the "
				 "classic code has not: the harness did nothing");
		} else if (!strcmp(op, "resetcmma")) {
			out = reset_cmma();
		} else if (!strcmp(op, "essabeyond")) {
			/* an address beyond guest memory: the frame after the last page */
			out = essa(slot_base[nslots - 1] + slot_npages[nslots - 1], a, 0, &result);
		} else if (!page_ok) {
			out = NULL;
		} else if (!strcmp(op, "essa")) {
			out = essa(gfn_of(a), b, c == 1, &result);
		} else if (!strcmp(op, "reclaim")) {
			out = reclaim(a);
		} else if (!strcmp(op, "read")) {
			fault_in(a);
			H.skey[a] |= _PAGE_REFERENCED;
			value = (long)H.frame_data[a];
			out = "Value";
		} else if (!strcmp(op, "write")) {
			store(a, (unsigned long)b);
			out = "Done";
		} else if (!strcmp(op, "writeback")) {
			writeback(a);
			out = "Done";
		}
		trace_end();
		/* a refused request (but a peek) leaves the last GET's answer for the switch */
		if (out && !strcmp(out, "Refused") && strcmp(op, "peek") && H.last_get_remaining < 0)
			H.last_get_remaining = was_get_remaining;
		if (out == NULL) {
			printf("error cannot do: %s", line);
			fflush(stdout);
			continue;
		}
		reply(out, result, value);
	}
	return 0;
}
