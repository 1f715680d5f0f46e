/*
 * The host model around the new gmap's ESSA code (Linux 7.x), compiled after the kernel's
 * definitions (conformance/engines/linux/gmap.py lists them).  It is the smallest host that
 * lets the kernel's own functions run: KVM's gmap (one segment table, the page table of the
 * memslot's one 1 MB segment, created by the kernel's dat_entry_walk), the host process's page
 * table (plain PTEs, no PGSTEs: the new gmap keeps those beside its own PTEs), one frame per
 * guest page, a swap slot per page, real storage keys, and the CBRL.  Every decision about page
 * states is the kernel's: ESSA is handle_essa (__do_essa, dat_perform_essa); the guest's faults
 * and every change of a gmap PTE go through _gmap_ptep_xchg (__dat_ptep_xchg); CBRL processing
 * is _essa_clear_cbrl (gmap_helper_zap_one_page); KVM's MMU notifier marks the host PTE of an
 * unused page with gmap_helper_try_set_pte_unused; core mm sets host PTEs with set_pte; the
 * guest's storage-key instructions are dat_get_storage_key / dat_cond_set_storage_key;
 * migration is dat_peek_cmma / dat_set_cmma_bits; the CMMA reset is dat_reset_cmma.
 *
 * Line protocol with conformance/engines/linux/engine.py:
 *   hello SK F147 CBRLSIZE PAGES CMMA PREBUILT  ->  ok   (PREBUILT 1: the gmap page table
 *                                                        exists from the start)
 *   reset                                      ->  ok
 *   essa P ORC [PSTATE] | essabeyond ORC | reclaim P | unmap P | age P | cbrl | migrate |
 *   resetcmma | read P | write P V | writeback P
 *     -> OUTCOME RESULT VALUE then, per page, USAGE VALID SWAPPED Z NODAT GC DIRTY GMAPPTE
 *        UNUSED (e.g. "S010001V0"): DIRTY is "-" without storage keys; GMAPPTE is V (valid),
 *        A (aged: invalid but present) or E (empty); UNUSED is _PAGE_UNUSED on a present host PTE
 *   save N | restore N  ->  ok   (keep the whole host state in slot N, or go back to it)
 *   explain  ->  what the last request did, in the kernel's terms, over several lines:
 *     note TEXT                      what the harness did beside the kernel (a rollback, a
 *                                    refusal before any kernel call, the host's own choices)
 *     page P before|after gmap pte=0x... [NAMES] pgste=0x... [NAMES] host pte=0x... [NAMES]
 *                         [key=0x.. [NAMES]]
 *                                    each page's gmap PTE and PGSTE decoded with the fields of
 *                                    dat.h's union pte and union pgste (pte.h.i, pte.s.pr,
 *                                    pgste.usage, pgste.zero, ...), the host PTE with
 *                                    asm/pgtable.h's macro names, the storage key with union
 *                                    skey's fields
 *     cbrl before|after N: GADDR...  the harness's CBRL
 *     call DEPTH CHANGED NAME        each kernel function it ran (harness_trace.h)
 *     end
 * RESULT and VALUE are -1 when there is none.  An error is "error MESSAGE".
 */

#define MAX_PAGES 64
#define MAX_CBRL 512
/* The memslot: guest frames 0 .. 255, the first 1 MB segment (the gmap's page tables map whole
 * segments); the modelled pages are its first PAGES frames. */
#define SLOT_PAGES 256
/* Guest page p is at host address HVA_BASE + p * PAGE_SIZE.  The host layout is the harness's
 * choice (QEMU maps guest RAM wherever mmap puts it); one page above 0 puts the host page of
 * guest page p - 1 at the host address equal to page p's guest absolute address, so a zap
 * aimed at a guest absolute address (CBRLGuestAddress) lands on a page the reply shows. */
#define HVA_BASE PAGE_SIZE

struct host {
	struct crst_table segtab __attribute__((aligned(16384)));  /* the gmap's segment table */
	struct page_table pt __attribute__((aligned(4096)));       /* its page table, once made */
	struct kvm_s390_mmu_cache mc;   /* holds pt until dat_entry_walk allocates it */
	pte_t hpte[SLOT_PAGES];         /* the host process's PTEs for the memslot */
	unsigned long frame_data[MAX_PAGES];
	unsigned char skey[MAX_PAGES];  /* the real storage key of frame p */
	unsigned long swap_data[MAX_PAGES + 1];  /* swap slot p + 1 holds page p's copy */
	unsigned long cbrl[MAX_CBRL];   /* the persistent CBRL, oldest first */
	int ncbrl;
	unsigned long appended[MAX_CBRL];
	int nappended;
	int zapped;   /* the page whose swap copy swap_put_entries_direct freed, or -1 */
	int pic;
	int migrated;
	struct mm_struct mm;
	struct vm_area_struct vma;
	struct gmap gmap;
	struct kvm kvm;
	struct kvm_run run;
	struct kvm_s390_sie_block sie;
	struct kvm_vcpu vcpu;
};

static unsigned long cbrlo_page[512] __attribute__((aligned(4096)));
static struct host H;
static int storage_keys, facility147, cbrl_size = 1, pages = 1, cmma_enabled = 1, prebuilt;

/* ------------------------------------------------------------------ the step's record */

/* Before the step (explain; the rest of the step's record is harness_trace.h's).  Kept
 * outside H: a rollback restores H, not this. */
static unsigned long before_hpte[MAX_PAGES], before_gpte[MAX_PAGES], before_pgste[MAX_PAGES];
static int before_table;  /* the gmap page table existed */
static unsigned char before_key[MAX_PAGES];
static unsigned long before_cbrl[MAX_CBRL];
static int before_ncbrl;

/* The segment entry, the gmap PTEs, their PGSTEs without the lock bit, the host PTEs and the
 * CBRL, hashed (read directly: a kernel walk here would be traced itself). */
static NO_TRACE unsigned long state_sig(void)
{
	unsigned long h = (unsigned long)H.ncbrl * 1000003UL + (unsigned long)H.nappended;
	h = h * 31 + H.segtab.crstes[0].val;
	for (int p = 0; p < pages; p++) {
		h = h * 31 + pte_val(H.hpte[p]);
		h = h * 31 + H.pt.ptes[p].val;
		h = h * 31 + (H.pt.pgstes[p].val & ~PGSTE_PCL_BIT);
	}
	return h;
}

/* The gmap page table exists: the memslot's segment entry is no longer empty. */
static NO_TRACE int has_table(void) { return H.segtab.crstes[0].val != _PMD_EMPTY.val; }

static NO_TRACE void step_begins(void)
{
	before_table = has_table();
	for (int p = 0; p < pages; p++) {
		before_hpte[p] = pte_val(H.hpte[p]);
		before_gpte[p] = H.pt.ptes[p].val;
		before_pgste[p] = H.pt.pgstes[p].val;
		before_key[p] = H.skey[p];
	}
	memcpy(before_cbrl, H.cbrl, sizeof(before_cbrl));
	before_ncbrl = H.ncbrl;
	trace_begin();
}

static unsigned long hva_of(int p) { return HVA_BASE + (unsigned long)p * PAGE_SIZE; }
static unsigned long frame_of(int p) { return (unsigned long)(p + 1) << PAGE_SHIFT; }
static int page_of_frame(unsigned long addr) { return (int)(addr >> PAGE_SHIFT) - 1; }

/* ------------------------------------------------------------------ the stubs' host side */

int kvm_s390_inject_program_int(struct kvm_vcpu *vcpu, u16 code)
{
	(void)vcpu;
	H.pic = code;
	return 0;
}

/* Outside migration mode handle_essa enables interpretation and retries; not reached here. */
void kvm_s390_retry_instr(struct kvm_vcpu *vcpu) { (void)vcpu; }

unsigned char page_get_storage_key(unsigned long addr)
{
	int p = page_of_frame(addr);
	return p >= 0 && p < MAX_PAGES ? H.skey[p] : 0;
}

void page_set_storage_key(unsigned long addr, unsigned char key, int nq)
{
	int p = page_of_frame(addr);
	(void)nq;
	if (p >= 0 && p < MAX_PAGES)
		H.skey[p] = key;
}

/* IPTE invalidates the entry (and flushes TLBs, of which there are none here). */
void __ptep_ipte(unsigned long addr, void *ptep, unsigned long opt, unsigned long asce, int local)
{
	(void)addr; (void)opt; (void)asce; (void)local;
	*(unsigned long *)ptep |= _PAGE_INVALID;
}

/* The host address the kernel last looked a VMA up for (explain's note of a zap), or -1. */
static unsigned long looked_up = -1UL;

/* The host process maps the memslot at HVA_BASE, one VMA. */
struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)
{
	(void)mm;
	looked_up = addr;
	return addr >= HVA_BASE && addr < HVA_BASE + SLOT_PAGES * PAGE_SIZE ? &H.vma : NULL;
}

/* The host page-table walk to a PTE: the memslot's PTEs; none elsewhere. */
pte_t *try_get_locked_pte(struct mm_struct *mm, unsigned long vmaddr, spinlock_t **ptl)
{
	*ptl = NULL;
	if (!vma_lookup(mm, vmaddr))
		return NULL;
	return &H.hpte[(vmaddr - HVA_BASE) >> PAGE_SHIFT];
}

/* The swap slot is freed: the page whose copy it held is recorded. */
void swap_put_entries_direct(swp_entry_t entry, int nr)
{
	unsigned long slot = __swp_offset(entry);
	(void)nr;
	if (slot >= 1 && slot <= MAX_PAGES) {
		H.swap_data[slot] = 0;
		H.zapped = (int)slot - 1;
	}
}

/* The memslot: guest absolute address to host virtual address. */
hva_t gpa_to_hva(struct kvm *kvm, gpa_t gpa)
{
	(void)kvm;
	return gpa_to_gfn(gpa) < SLOT_PAGES ? HVA_BASE + gpa : IS_ERR_VALUE_HVA;
}

/* handle_essa's CBRL, kept for HostProcessCBRL instead of cleared at once. */
void harness_cbrl_append(struct kvm_vcpu *vcpu, unsigned long *cbrl, int len)
{
	(void)vcpu;
	for (int i = 0; i < len; i++)
		H.appended[H.nappended++] = cbrl[i];
}

bool _gmap_unmap_prefix(struct gmap *gmap, gfn_t gfn, gfn_t end, bool hint)
{
	(void)gmap; (void)gfn; (void)end; (void)hint;
	abort();  /* no prefix notification is ever set */
}

void _gmap_handle_vsie_unshadow_event(struct gmap *parent, gfn_t gfn)
{
	(void)parent; (void)gfn;
	abort();  /* no shadow tables */
}

/* A large page is never split: one segment table, no large pages. */
static int dat_split_crste(struct kvm_s390_mmu_cache *mc, union crste *crstep, gfn_t gfn,
			   union asce asce, bool uses_skeys)
{
	(void)mc; (void)crstep; (void)gfn; (void)asce; (void)uses_skeys;
	abort();
}

/* ------------------------------------------------------------------ the host model */

/* The gmap PTE of guest frame gfn, by the kernel's walk; with alloc the walk creates the page
 * table (as a fault, SSKE or SET_CMMA_BITS does); NULL when there is none. */
static union pte *gmap_ptep(gfn_t gfn, int alloc)
{
	union crste *crstep;
	union pte *ptep;
	if (dat_entry_walk(alloc ? &H.mc : NULL, gfn, H.gmap.asce, alloc ? DAT_WALK_ALLOC : 0,
			   TABLE_TYPE_PAGE_TABLE, &crstep, &ptep))
		return NULL;
	return ptep;
}

static void host_reset(void)
{
	memset(&H, 0, sizeof(H));
	/* gmap_new and the memslot (dat_create_slot): every segment a hole but the slot's, which is
	 * empty: no page table yet */
	for (int i = 0; i < _CRST_ENTRIES; i++)
		H.segtab.crstes[i] = _CRSTE_HOLE(TABLE_TYPE_SEGMENT);
	H.segtab.crstes[0] = _PMD_EMPTY;
	union asce asce = { .val = virt_to_phys(&H.segtab) };
	asce.dt = ASCE_TYPE_SEGMENT;
	asce.tl = 3;
	H.gmap.asce = asce;
	H.gmap.kvm = &H.kvm;
	set_bit(GMAP_FLAG_USES_CMM, &H.gmap.flags);
	if (storage_keys)
		set_bit(GMAP_FLAG_USES_SKEYS, &H.gmap.flags);
	H.mc.pts[0] = &H.pt;
	H.mc.n_pts = 1;
	for (int i = 0; i < SLOT_PAGES; i++)  /* the host's empty PTEs */
		pte_val(H.hpte[i]) = _PAGE_INVALID;
	H.vma.vm_mm = &H.mm;
	H.kvm.mm = &H.mm;
	H.kvm.arch.use_cmma = cmma_enabled;
	H.kvm.arch.migration_mode = 1;  /* every ESSA intercepted and emulated by __do_essa */
	H.kvm.arch.facility147 = (unsigned long)facility147;
	H.vcpu.kvm = &H.kvm;
	H.vcpu.run = &H.run;
	H.vcpu.arch.sie_block = &H.sie;
	H.vcpu.arch.gmap = &H.gmap;
	H.vcpu.arch.mc = &H.mc;
	H.sie.cbrlo = (unsigned long)(uintptr_t)cbrlo_page;
	H.zapped = -1;
	if (prebuilt)
		gmap_ptep(0, 1);
}

/* Core mm makes the host page present: swap in, or a fresh zero page; a new PTE (core mm's
 * set_ptes, which sets it by set_pte). */
static void host_fault(int p)
{
	pte_t *h = &H.hpte[p];
	if (pte_present(*h))
		return;
	unsigned long data = 0;
	if (pte_swap(*h)) {
		unsigned long slot = __swp_offset(__pte_to_swp_entry(*h));
		data = H.swap_data[slot];
		H.swap_data[slot] = 0;
	}
	H.frame_data[p] = data;
	set_pte(h, __pte(frame_of(p) | _PAGE_PRESENT | _PAGE_READ | _PAGE_WRITE | _PAGE_YOUNG |
			 _PAGE_DIRTY));
}

/* The guest's access faults unless its gmap PTE is valid: the host page is made present, the
 * page table made if need be, and the gmap PTE set through _gmap_ptep_xchg, writable and dirty
 * (as a write fault maps it, so a later store needs no second fault). */
static void guest_fault(int p)
{
	union pte *ptep = gmap_ptep(p, 0);
	if (ptep && ptep->s.pr && !ptep->h.i)
		return;
	host_fault(p);
	ptep = gmap_ptep(p, 1);
	union pgste pgste = pgste_get_lock(ptep);
	pgste = _gmap_ptep_xchg(&H.gmap, ptep, _pte(frame_of(p) >> PAGE_SHIFT, true, true, false),
				pgste, p, true);
	pgste_set_unlock(ptep, pgste);
}

/* KVM's MMU notifier, before core mm changes a host PTE: the present gmap PTE is emptied
 * through _gmap_ptep_xchg, and the host PTE of an unused page marked _PAGE_UNUSED. */
static void mmu_notifier(int p)
{
	union pte *ptep = gmap_ptep(p, 0);
	if (!ptep || !ptep->s.pr)
		return;
	union pgste pgste = pgste_get_lock(ptep);
	int unused = pgste.usage == PGSTE_GPS_USAGE_UNUSED;
	pgste = _gmap_ptep_xchg(&H.gmap, ptep, _PTE_EMPTY, pgste, p, true);
	pgste_set_unlock(ptep, pgste);
	note_add("KVM's MMU notifier emptied the gmap PTE by _gmap_ptep_xchg; pgste.usage was %s, "
		 "so it %s gmap_helper_try_set_pte_unused on the host PTE.",
		 unused ? "PGSTE_GPS_USAGE_UNUSED" : "not PGSTE_GPS_USAGE_UNUSED",
		 unused ? "called" : "did not call");
	if (unused)
		gmap_helper_try_set_pte_unused(&H.mm, hva_of(p));
}

/* try_to_unmap_one: the notifier, the PTE cleared, then an unused page dropped, else swapped. */
static const char *reclaim(int p)
{
	pte_t *h = &H.hpte[p];
	if (!pte_present(*h)) {
		snprintf(note, sizeof(note), "the host PTE is not present: there is nothing to reclaim, "
			 "the harness called no kernel function");
		return "Refused";
	}
	mmu_notifier(p);
	pte_t old = *h;
	pte_clear(&H.mm, hva_of(p), h);
	note_add("try_to_unmap_one cleared the host PTE; it had %s_PAGE_UNUSED, so the page was %s.",
		 pte_unused(old) ? "" : "no ", pte_unused(old) ? "dropped, its contents lost"
		 : "swapped out (set_pte of a swap PTE)");
	if (!pte_unused(old)) {
		H.swap_data[p + 1] = H.frame_data[p];
		set_pte(h, mk_swap_pte(0, (unsigned long)p + 1));
	}
	H.frame_data[p] = 0;
	return "Done";
}

/* Core mm changes the host PTE for a reason other than reclaim: the notifier, then the PTE set
 * again, same frame, by set_pte with its software bits kept (as ptep_xchg_commit sets a PTE
 * derived from the old one). */
static const char *unmap_gmap(int p)
{
	union pte *ptep = gmap_ptep(p, 0);
	if (!ptep || !ptep->s.pr) {
		snprintf(note, sizeof(note), "the gmap PTE is empty (pte.s.pr is 0): nothing to unmap, "
			 "the harness called no kernel function but the walk to it");
		return "Refused";
	}
	mmu_notifier(p);
	if (pte_present(H.hpte[p])) {
		note_add("Core mm then set the host PTE again by set_pte, same frame, its software "
			 "bits kept.");
		set_pte(&H.hpte[p], H.hpte[p]);
	}
	return "Done";
}

/* Aging: the young bit cleared and the invalid bit set; the entry stays present. */
static const char *age(int p)
{
	union pte *ptep = gmap_ptep(p, 0);
	if (!ptep || !ptep->s.pr || ptep->h.i) {
		snprintf(note, sizeof(note), "the gmap PTE is not valid (pte.s.pr is 0 or pte.h.i is "
			 "1): nothing to age, the harness called no kernel function but the walk to it");
		return "Refused";
	}
	union pte new = *ptep;
	new.s.y = 0;
	new.h.i = 1;
	union pgste pgste = pgste_get_lock(ptep);
	pgste = _gmap_ptep_xchg(&H.gmap, ptep, new, pgste, p, true);
	pgste_set_unlock(ptep, pgste);
	return "Done";
}

/* The CBRL's head through the kernel's _essa_clear_cbrl. */
static const char *process_cbrl(void)
{
	if (H.ncbrl == 0) {
		snprintf(note, sizeof(note), "the CBRL is empty: the harness called no kernel function");
		return "Refused";
	}
	unsigned long entry = H.cbrl[0];
	memmove(H.cbrl, H.cbrl + 1, (size_t)(H.ncbrl - 1) * sizeof(H.cbrl[0]));
	H.ncbrl--;
	H.zapped = -1;
	looked_up = -1UL;
	_essa_clear_cbrl(&H.vcpu, &entry, 1);
	snprintf(note, sizeof(note), "the CBRL's head, guest address 0x%lx (host address 0x%lx by "
		 "the memslot), went to _essa_clear_cbrl.", entry, HVA_BASE + entry);
	if (looked_up != -1UL)
		note_add("gmap_helper_zap_one_page looked up host address 0x%lx: %s.", looked_up,
			 vma_lookup(&H.mm, looked_up) ? "the memslot's VMA" : "no VMA, nothing zapped");
	else
		note_add("gmap_helper_zap_one_page was not called.");
	if (H.zapped < 0)
		note_add("swap_put_entries_direct was not called.");
	else
		note_add("swap_put_entries_direct freed the swap copy of page %d (host address 0x%lx).",
			 H.zapped, hva_of(H.zapped));
	if (H.zapped < 0)
		return "Kept";
	return H.zapped == (int)gpa_to_gfn(entry) ? "Zapped" : "ZappedOtherPage";
}

/* ESSA as KVM emulates it: handle_essa with the ORC in IPB, R1 = 1, R2 = 2 holding the guest
 * address.  A discard it queues on a full CBRL is rolled back and refused. */
static const char *essa(gfn_t gfn, int orc, int problem_state, long *result)
{
	static struct host saved;
	saved = H;
	H.sie.ipb = ((u32)orc << 28) | (1u << 20) | (2u << 16);
	H.sie.gpsw.mask = problem_state ? PSW_MASK_PSTATE : 0;
	H.run.s.regs.gprs[2] = gfn << PAGE_SHIFT;
	H.run.s.regs.gprs[1] = 0;
	H.pic = 0;
	H.nappended = 0;
	handle_essa(&H.vcpu);
	H.sie.gpsw.mask = 0;
	if (H.pic != 0) {
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

/* The guest's store: the frame's real storage key gets C and R, as the machine sets them. */
static void store(int p, unsigned long value)
{
	guest_fault(p);
	H.frame_data[p] = value;
	H.skey[p] |= _PAGE_CHANGED | _PAGE_REFERENCED;
}

/* The guest resets the change bit of its key: ISKE, then SSKE of the key without C, as KVM's
 * handlers do them (handle_sske: dat_cond_set_storage_key, no NQ, MR or MC). */
static void writeback(int p)
{
	union skey key, old;
	if (!storage_keys)
		return;
	dat_get_storage_key(H.gmap.asce, p, &key);
	key.c = 0;
	dat_cond_set_storage_key(&H.mc, H.gmap.asce, p, key, &old, false, false, false);
}

/* KVM_S390_GET_CMMA_BITS (peek), RAM and storage keys out; a fresh VM; KVM_S390_SET_CMMA_BITS
 * (usage and no-DAT), the non-zero pages written into host memory by QEMU, the keys set by
 * SSKE's path (dat_cond_set_storage_key). */
static const char *migrate(void)
{
	u8 bits[SLOT_PAGES] = { 0 };
	unsigned long data[MAX_PAGES];
	union skey keys[MAX_PAGES];
	unsigned int count = (unsigned int)pages;
	if (H.migrated) {
		snprintf(note, sizeof(note), "the VM was migrated already: the harness migrates once "
			 "and called no kernel function");
		return "Refused";
	}
	dat_peek_cmma(0, H.gmap.asce, &count, bits);
	for (int p = 0; p < pages; p++) {
		pte_t h = H.hpte[p];
		data[p] = pte_present(h) ? H.frame_data[p]
			: pte_swap(h) ? H.swap_data[__swp_offset(__pte_to_swp_entry(h))] : 0;
		keys[p].skey = 0;
		if (storage_keys)
			dat_get_storage_key(H.gmap.asce, p, &keys[p]);
	}
	host_reset();
	dat_set_cmma_bits(&H.mc, H.gmap.asce, 0, (unsigned long)pages, 0x43000000UL, bits);
	for (int p = 0; p < pages; p++) {
		if (data[p] != 0) {  /* QEMU sends zero pages as a flag and does not touch them */
			host_fault(p);
			H.frame_data[p] = data[p];
			H.skey[p] |= _PAGE_CHANGED | _PAGE_REFERENCED;
		}
		if (storage_keys) {
			union skey old;
			dat_cond_set_storage_key(&H.mc, H.gmap.asce, p, keys[p], &old, false, false,
						 false);
		}
	}
	H.migrated = 1;
	return "Done";
}

/* ------------------------------------------------------------------ the line protocol */

static void reply(const char *outcome, long result, long value)
{
	printf("%s %ld %ld", outcome, result, value);
	for (int p = 0; p < pages; p++) {
		pte_t h = H.hpte[p];
		union pte *ptep = gmap_ptep(p, 0);
		union pgste pgste = { .val = 0 };
		static const char usage[] = "SUPV";
		char dirty = '-', gpte = 'E';
		if (ptep) {
			pgste = *pgste_of(ptep);
			gpte = !ptep->s.pr ? 'E' : ptep->h.i ? 'A' : 'V';
		}
		if (storage_keys) {
			union skey key;
			dat_get_storage_key(H.gmap.asce, p, &key);
			dirty = key.c ? '1' : '0';
		}
		int valid = pte_present(h) != 0;
		printf(" %c%d%d%d%d%d%c%c%d", usage[pgste.usage], valid, !valid && pte_swap(h),
		       (int)pgste.zero, (int)pgste.nodat, (int)pgste.gc, dirty, gpte,
		       valid && pte_unused(h) ? 1 : 0);
	}
	printf("\n");
	fflush(stdout);
}

static const struct named usages[] = {
	NAMED(PGSTE_GPS_USAGE_STABLE), NAMED(PGSTE_GPS_USAGE_UNUSED),
	NAMED(PGSTE_GPS_USAGE_POT_VOLATILE), NAMED(PGSTE_GPS_USAGE_VOLATILE),
};

/* A bit-field of a local union named var, by the kernel's name for it ("pgste.zero"). */
#define FIELD(var, f) do { if ((var).f) printf("%s%s", sep, #var "." #f), sep = "|"; } while (0)

static void print_page(int p, const char *when, int table, unsigned long gptev,
		       unsigned long pgstev, unsigned long hptev, unsigned char key)
{
	printf("page %d %s gmap ", p, when);
	if (!table) {
		printf("pte none (the segment has no page table: the PMD is _PMD_EMPTY)");
	} else {
		union pte pte = { .val = gptev };
		union pgste pgste = { .val = pgstev };
		const char *sep = "";
		printf("pte=0x%016lx [", gptev);
		if (pte.val == _PTE_EMPTY.val)
			printf("_PTE_EMPTY: ");
		else if (pte.s.pr)
			printf("frame 0x%lx: ", (unsigned long)pte.h.pfra << PAGE_SHIFT);
		FIELD(pte, h.i); FIELD(pte, h.p); FIELD(pte, h.z); FIELD(pte, h.iep);
		FIELD(pte, s.pr); FIELD(pte, s.y); FIELD(pte, s.d); FIELD(pte, s.r); FIELD(pte, s.w);
		FIELD(pte, s.s); FIELD(pte, s.u); FIELD(pte, s.sd);
		printf("] pgste=0x%016lx [pgste.usage=%s", pgstev, usages[pgste.usage].name);
		sep = "|";
		FIELD(pgste, zero); FIELD(pgste, nodat); FIELD(pgste, gc); FIELD(pgste, gr);
		FIELD(pgste, hc); FIELD(pgste, hr); FIELD(pgste, fp); FIELD(pgste, pcl);
		FIELD(pgste, cmma_d); FIELD(pgste, prefix_notif); FIELD(pgste, vsie_notif);
		FIELD(pgste, vsie_gmem);
		if (pgste.acc)
			printf("|pgste.acc=%d", (int)pgste.acc);
		printf("]");
	}
	printf(" host ");
	print_host_pte(hptev);
	if (storage_keys) {
		union skey skey = { .skey = key };
		const char *sep = "";
		printf(" key=0x%02x [", key);
		FIELD(skey, c); FIELD(skey, r); FIELD(skey, fp);
		if (skey.acc)
			printf("%sskey.acc=%d", sep, (int)skey.acc);
		printf("]");
	}
	printf("\n");
}

static void explain(void)
{
	explain_note();
	for (int p = 0; p < pages; p++)
		print_page(p, "before", before_table, before_gpte[p], before_pgste[p], before_hpte[p],
			   before_key[p]);
	for (int p = 0; p < pages; p++)
		print_page(p, "after", has_table(), H.pt.ptes[p].val, H.pt.pgstes[p].val,
			   pte_val(H.hpte[p]), H.skey[p]);
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
			if (d < 1 || d > MAX_PAGES || c < 1 || c > MAX_CBRL || e > 1 || f > 1) {
				printf("error pages 1..%d and CBRL size 1..%d\n", MAX_PAGES, MAX_CBRL);
				fflush(stdout);
				continue;
			}
			storage_keys = a, facility147 = b, cbrl_size = c, pages = d;
			cmma_enabled = e < 0 ? 1 : e;
			prebuilt = f < 0 ? 0 : f;
			host_reset();
			printf("ok\n");
			fflush(stdout);
			continue;
		} else if (common_request(op, a, &H, sizeof(H))) {
			continue;
		}
		step_begins();
		if (!strcmp(op, "cbrl")) {
			out = process_cbrl();
		} else if (!strcmp(op, "migrate")) {
			out = migrate();
		} else if (!strcmp(op, "resetcmma")) {
			dat_reset_cmma(H.gmap.asce, 0);
			out = "Done";
		} else if (!strcmp(op, "essabeyond")) {
			/* an address beyond guest memory: the first frame after the memslot */
			out = essa(SLOT_PAGES, a, 0, &result);
		} else if (!page_ok) {
			out = NULL;
		} else if (!strcmp(op, "essa")) {
			out = essa((gfn_t)a, b, c == 1, &result);
		} else if (!strcmp(op, "reclaim")) {
			out = reclaim(a);
		} else if (!strcmp(op, "unmap")) {
			out = unmap_gmap(a);
		} else if (!strcmp(op, "age")) {
			out = age(a);
		} else if (!strcmp(op, "read")) {
			guest_fault(a);
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
		if (out == NULL) {
			printf("error cannot do: %s", line);
			fflush(stdout);
			continue;
		}
		reply(out, result, value);
	}
	return 0;
}
