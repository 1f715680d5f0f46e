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
 *                                        each page's field ends in its CMMA-dirty bit)
 *   reset                                ->  ok
 *   essa P ORC [PSTATE] | essabeyond ORC | reclaim P | cbrl | migrate | migstart | migsend P |
 *   switch (migrate, in migration mode only) |
 *   resetcmma | read P | write P V | writeback P | refuse
 *     -> OUTCOME RESULT VALUE then, per page, USAGE VALID SWAPPED Z NODAT GC DIRTY (e.g.
 *        "S010001"); DIRTY, the guest's change bit as get_guest_storage_key reports it, is "-"
 *        in a VM without storage keys (the host keeps no change bit for it); then, after MIG 1,
 *        the page's bit in the second dirty bitmap; VALUE of migsend is the CMMA value sent
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
#define MAX_PAGES 64
#define MAX_CBRL 512
/* Guest page p is at host virtual address HVA_BASE + p * PAGE_SIZE, in one segment. */
#define HVA_BASE 0x40000000UL

struct host {
	/* PTEs, then their PGSTEs: the kernel finds a PGSTE at ptep + PTRS_PER_PTE. */
	pte_t table[2 * PTRS_PER_PTE];
	unsigned long frame_data[MAX_PAGES];  /* frame p backs page p while it is resident */
	unsigned char skey[MAX_PAGES];        /* the real storage key of frame p */
	unsigned long swap_data[MAX_PAGES + 1]; /* swap slot p + 1 holds page p's copy */
	unsigned long cbrl[MAX_CBRL];         /* the persistent CBRL, oldest first */
	int ncbrl;
	unsigned long appended[MAX_CBRL];     /* what the last handle_essa queued */
	int nappended;
	unsigned long cmma_dirty[(MAX_PAGES + 63) / 64];  /* the memslot's second dirty bitmap */
	unsigned char sent[MAX_PAGES];  /* the destination's (QEMU's) CMMA values, as last sent */
	int zapped;   /* free_swap_and_cache was called (CBRL processing freed a swap copy) */
	int pic;      /* the program interruption the last instruction raised, 0 if none */
	int migrated;
	struct mm_struct mm;
	struct gmap gmap;
	struct kvm kvm;
	struct kvm_run run;
	struct kvm_s390_sie_block sie;
	struct kvm_memory_slot slot;
	struct vm_area_struct vma;
	struct kvm_vcpu vcpu;
};

/* The CBRL origin page the ESSA intercept writes into (cbrlo: page address | nceo << 3). */
static unsigned long cbrlo_page[512] __attribute__((aligned(4096)));
static struct host H;
static int storage_keys, facility147, cbrl_size = 1, pages = 1, cmma_enabled = 1;
static int report_cmma_dirty;  /* the reply carries each page's second-dirty-bitmap bit */

static unsigned long hva_of(int p) { return HVA_BASE + (unsigned long)p * PAGE_SIZE; }
static unsigned long frame_of(int p) { return (unsigned long)(p + 1) << PAGE_SHIFT; }
static int page_of_frame(unsigned long addr) { return (int)(addr >> PAGE_SHIFT) - 1; }
static pte_t *ptep_of(int p) { return &H.table[p]; }
static unsigned long pgste_of(int p) { return *(unsigned long *)(ptep_of(p) + PTRS_PER_PTE); }

/* ------------------------------------------------------------------ the step's record */

/* Before the step (explain; the rest of the step's record is harness_trace.h's).  Kept
 * outside H: a rollback restores H, not this. */
static unsigned long before_pte[MAX_PAGES], before_pgste[MAX_PAGES];
static unsigned char before_key[MAX_PAGES];
static unsigned long before_cbrl[MAX_CBRL];
static int before_ncbrl;
static unsigned long before_dirty;  /* the second dirty bitmap's first word */
static long before_dirty_pages;     /* and kvm->arch.cmma_dirty_pages */

/* The PTEs, the PGSTEs without the lock bit (taken and released inside every change), the
 * CBRL, and the second dirty bitmap with its count, hashed: a function changed the state when
 * it differs after it. */
static int interpreting;  /* an ESSA outside migration mode: its marks are put back (essa) */
static NO_TRACE unsigned long state_sig(void)
{
	unsigned long h = (unsigned long)H.ncbrl * 1000003UL + (unsigned long)H.nappended;
	if (!interpreting) {
		h = h * 31 + H.cmma_dirty[0];
		h = h * 31 + (unsigned long)H.kvm.arch.cmma_dirty_pages.counter;
	}
	for (int p = 0; p < pages; p++) {
		h = h * 31 + pte_val(H.table[p]);
		h = h * 31 + (pte_val(H.table[p + PTRS_PER_PTE]) & ~PGSTE_PCL_BIT);
	}
	return h;
}

static NO_TRACE void step_begins(void)
{
	for (int p = 0; p < pages; p++) {
		before_pte[p] = pte_val(H.table[p]);
		before_pgste[p] = pte_val(H.table[p + PTRS_PER_PTE]);
		before_key[p] = H.skey[p];
	}
	memcpy(before_cbrl, H.cbrl, sizeof(before_cbrl));
	before_ncbrl = H.ncbrl;
	trace_begin();
	before_dirty = H.cmma_dirty[0];
	before_dirty_pages = H.kvm.arch.cmma_dirty_pages.counter;
}

/* ------------------------------------------------------------------ the stubs' host side */

struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)
{
	(void)mm;
	return addr >= HVA_BASE && addr < hva_of(pages) ? &H.vma : NULL;
}

pte_t *get_locked_pte(struct mm_struct *mm, unsigned long addr, spinlock_t **ptl)
{
	(void)mm;
	*ptl = NULL;
	if (addr < HVA_BASE || addr >= hva_of(pages))
		return NULL;
	return ptep_of((int)((addr - HVA_BASE) >> PAGE_SHIFT));
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

unsigned long gfn_to_hva(struct kvm *kvm, unsigned long gfn)
{
	(void)kvm;
	return gfn < (unsigned long)pages ? hva_of((int)gfn) : IS_ERR_VALUE_HVA;
}

struct kvm_memory_slot *gfn_to_memslot(struct kvm *kvm, unsigned long gfn)
{
	(void)kvm;
	return gfn < (unsigned long)pages ? &H.slot : NULL;
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

/* The gmap maps the guest's segment 0 to the segment at HVA_BASE. */
void *radix_tree_lookup(int *root, unsigned long index)
{
	(void)root;
	return index == 0 ? (void *)HVA_BASE : NULL;
}

/* handle_essa's loop over the CBRL, redirected: the entries are kept for HostProcessCBRL. */
void harness_cbrl_append(struct gmap *gmap, unsigned long gaddr)
{
	(void)gmap;
	H.appended[H.nappended++] = gaddr;
}

/* ------------------------------------------------------------------ the host model */

static void host_reset(void)
{
	memset(&H, 0, sizeof(H));
	for (int i = 0; i < PTRS_PER_PTE; i++)  /* a fresh page table: empty PTEs, zero PGSTEs */
		pte_val(H.table[i]) = _PAGE_INVALID;
	H.mm.context.has_pgste = 1;
	H.mm.context.uses_skeys = storage_keys;
	H.mm.context.uses_cmm = 1;
	H.vma.vm_mm = &H.mm;
	H.gmap.mm = &H.mm;
	H.kvm.mm = &H.mm;
	H.kvm.arch.use_cmma = cmma_enabled;  /* handle_essa: PIC 1 when CMMA is off */
	/* not in migration mode (kvm_s390_vm_start_migration turns it on); the host model's essa
	 * has every ESSA emulated by __do_essa all the same */
	H.kvm.arch.migration_mode = 0;
	H.kvm.arch.facility147 = (unsigned long)facility147;
	H.slot.dirty_bitmap = H.cmma_dirty;
	H.slot.npages = (unsigned long)pages;
	H.kvm.slots.nslots = 1;
	H.kvm.slots.slot = &H.slot;
	H.kvm.slots.gfn_tree.rb_node = &H.slot.gfn_node[0];
	H.vcpu.kvm = &H.kvm;
	H.vcpu.run = &H.run;
	H.vcpu.arch.sie_block = &H.sie;
	H.vcpu.arch.gmap = &H.gmap;
	H.sie.cbrlo = (unsigned long)(uintptr_t)cbrlo_page;
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
static const char *essa(int p, int orc, int problem_state, long *result)
{
	struct host saved = H;
	int interpreted = !H.kvm.arch.migration_mode;
	H.kvm.arch.migration_mode = 1;
	interpreting = interpreted;
	H.sie.ipb = ((u32)orc << 28) | (1u << 20) | (2u << 16);
	/* handle_essa's first check: the guest PSW's problem-state bit (privileged operation) */
	H.sie.gpsw.mask = problem_state ? PSW_MASK_PSTATE : 0;
	H.run.s.regs.gprs[2] = (unsigned long)p << PAGE_SHIFT;
	H.run.s.regs.gprs[1] = 0;
	H.pic = 0;
	H.nappended = 0;
	handle_essa(&H.vcpu);
	H.sie.gpsw.mask = 0;
	interpreting = 0;
	if (interpreted) {
		H.kvm.arch.migration_mode = 0;
		memcpy(H.cmma_dirty, saved.cmma_dirty, sizeof(H.cmma_dirty));
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
	if (H.migrated || H.kvm.arch.migration_mode) {
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
	args.start_gfn = (unsigned long)p;
	args.count = 1;
	args.values = (unsigned long)(uintptr_t)&byte;
	int rc = kvm_s390_get_cmma_bits(&H.kvm, &args);
	if (rc < 0 || args.count == 0 || args.start_gfn != (unsigned long)p) {
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
static const char *migrate(void)
{
	unsigned long data[MAX_PAGES];
	unsigned char keys[MAX_PAGES], sent[MAX_PAGES], buf[MAX_PAGES];
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
		for (unsigned i = 0; i < args.count && args.start_gfn + i < (unsigned long)pages; i++)
			H.sent[args.start_gfn + i] = buf[i];
		next = args.start_gfn + args.count;
	}
	if (rounds == MAX_ROUNDS)
		snprintf(note, sizeof(note), "KVM_S390_GET_CMMA_BITS still returned values after %d "
			 "calls: the harness switched over with the values it had", MAX_ROUNDS);
	memcpy(sent, H.sent, sizeof(sent));
	for (int p = 0; p < pages; p++) {
		pte_t pte = *ptep_of(p);
		data[p] = !(pte_val(pte) & _PAGE_INVALID) ? H.frame_data[p]
			: pte_swap(pte) ? H.swap_data[__swp_offset(__pte_to_swp_entry(pte))] : 0;
		if (storage_keys)
			get_guest_storage_key(&H.mm, hva_of(p), &keys[p]);
	}
	host_reset();
	struct kvm_s390_cmma_log in;
	memset(&in, 0, sizeof(in));
	in.start_gfn = 0;
	in.count = (unsigned)pages;
	in.mask = ~0UL;
	in.values = (unsigned long)(uintptr_t)sent;
	int rc = kvm_s390_set_cmma_bits(&H.kvm, &in);
	if (rc)
		snprintf(note, sizeof(note), "kvm_s390_set_cmma_bits returned %d", rc);
	memcpy(H.sent, sent, sizeof(sent));
	for (int p = 0; p < pages; p++) {
		if (data[p] != 0)  /* QEMU sends zero pages as a flag and does not touch them */
			store(p, data[p]);
		if (storage_keys)
			set_guest_storage_key(&H.mm, hva_of(p), keys[p], false);
	}
	H.migrated = 1;
	return "Done";
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
			printf("%d", test_bit((unsigned long)p, H.cmma_dirty));
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
		print_page(p, "after", pte_val(H.table[p]), pgste_of(p), H.skey[p]);
	for (int when = 0; when < 2; when++) {
		unsigned long bits = when ? H.cmma_dirty[0] : before_dirty;
		printf("dirty %s migration_mode=%d cmma_dirty_pages=%ld second dirty bitmap:",
		       when ? "after" : "before", when ? H.kvm.arch.migration_mode : -1,
		       when ? (long)H.kvm.arch.cmma_dirty_pages.counter : before_dirty_pages);
		for (int p = 0; p < pages; p++)
			printf(" %d", (int)((bits >> p) & 1));
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
			if (d < 1 || d > MAX_PAGES || d > PTRS_PER_PTE || c < 1 || c > MAX_CBRL || e > 1) {
				printf("error pages 1..%d and CBRL size 1..%d\n", MAX_PAGES, MAX_CBRL);
				fflush(stdout);
				continue;
			}
			storage_keys = a, facility147 = b, cbrl_size = c, pages = d;
			cmma_enabled = e < 0 ? 1 : e;
			report_cmma_dirty = f == 1;
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
			out = essa(pages, a, 0, &result);
		} else if (!page_ok) {
			out = NULL;
		} else if (!strcmp(op, "essa")) {
			out = essa(a, b, c == 1, &result);
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
		if (out == NULL) {
			printf("error cannot do: %s", line);
			fflush(stdout);
			continue;
		}
		reply(out, result, value);
	}
	return 0;
}
