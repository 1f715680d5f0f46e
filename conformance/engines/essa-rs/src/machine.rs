//! The ESSA machine of conformance/PROTOCOL.md ("The ESSA machine"): the host's state of
//! every page, the CBRL, and what each request does to them under each Impl.

use crate::bugs::Bug;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Impl {
    Paper2007,
    KVMClassic,
    KVMGmap,
}

impl Impl {
    pub fn parse(s: &str) -> Option<Impl> {
        match s {
            "Paper2007" => Some(Impl::Paper2007),
            "KVMClassic" => Some(Impl::KVMClassic),
            "KVMGmap" => Some(Impl::KVMGmap),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Impl::Paper2007 => "Paper2007",
            Impl::KVMClassic => "KVMClassic",
            Impl::KVMGmap => "KVMGmap",
        }
    }
    fn is_kvm(self) -> bool {
        self != Impl::Paper2007
    }
}

/// The guest's usage state; the discriminant is the R1 byte's usage bits (0x0C).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Usage {
    S = 0x00,
    U = 0x04,
    P = 0x08,
    V = 0x0C,
}

impl Usage {
    fn name(self) -> &'static str {
        match self {
            Usage::S => "S",
            Usage::U => "U",
            Usage::P => "P",
            Usage::V => "V",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GmapPte {
    Valid,
    Aged,
    Empty,
}

impl GmapPte {
    fn name(self) -> &'static str {
        match self {
            GmapPte::Valid => "Valid",
            GmapPte::Aged => "Aged",
            GmapPte::Empty => "Empty",
        }
    }
}

/// The pre-2026 gmap bugs a profile may ask for (`Bugs`).
pub const GMAP_BUGS: [&str; 3] = ["StickyZero", "CBRLGuestAddress", "StaleUnusedBit"];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    pub imp: Impl,
    pub storage_keys: bool,
    pub facility147: bool,
    pub cbrl_size: usize,
    pub sticky_zero: bool,
    pub cbrl_guest_address: bool,
    pub stale_unused_bit: bool,
    pub prebuilt_page_tables: bool,
    pub machine_interprets_essa: bool,
    pub modern_guest: bool,
    pub cmma_enabled: bool,
    pub pages: usize,
}

impl Profile {
    pub fn bug_names(&self) -> Vec<&'static str> {
        let on = [self.sticky_zero, self.cbrl_guest_address, self.stale_unused_bit];
        GMAP_BUGS.iter().zip(on).filter(|(_, b)| *b).map(|(n, _)| *n).collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Page {
    pub usage: Usage,
    pub valid: bool,
    pub swapped: bool,
    pub zbit: bool,
    pub nodat: bool,
    pub dirty: bool,
    pub gc: bool,
    pub gmap_pte: GmapPte,
    pub pte_unused: bool,
    pub content: u64,
}

const FRESH: Page = Page {
    usage: Usage::S,
    valid: false,
    swapped: false,
    zbit: false,
    nodat: false,
    dirty: false,
    gc: false,
    gmap_pte: GmapPte::Empty,
    pte_unused: false,
    content: 0,
};

/// A step request, checked against PROTOCOL.md's ranges.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Essa {
        page: Option<usize>,
        orc: u8,
        problem_state: bool,
        beyond_memory: bool,
    },
    HostReclaim(usize),
    HostProcessCBRL,
    Migrate,
    Read(usize),
    Write(usize, u64),
    Writeback(usize),
    HostUnmapGmap(usize),
    HostAge(usize),
    HostResetCMMA,
}

/// What a step replies besides the pages.
pub struct Outcome {
    pub outcome: &'static str,
    pub result: Option<u8>,
    pub value: Option<u64>,
    pub reason: Option<&'static str>,
}

fn done() -> Outcome {
    Outcome {
        outcome: "Done",
        result: None,
        value: None,
        reason: None,
    }
}

fn plain(outcome: &'static str) -> Outcome {
    Outcome {
        outcome,
        result: None,
        value: None,
        reason: None,
    }
}

fn refused(reason: &'static str) -> Outcome {
    Outcome {
        outcome: "Refused",
        result: None,
        value: None,
        reason: Some(reason),
    }
}

/// The decision of one ESSA table row.
struct Row {
    usage: Option<Usage>,
    nodat: Option<bool>,
    zbit: Option<bool>,
    append: bool,
    drop: bool,
    /// Paper2007 ORC 5: the page is paged in.
    page_in: bool,
}

const KEEP: Row = Row {
    usage: None,
    nodat: None,
    zbit: None,
    append: false,
    drop: false,
    page_in: false,
};

pub struct Machine {
    pub prof: Profile,
    pub pages: Vec<Page>,
    cbrl: Vec<usize>,
    /// The VM has migrated (a VMM's second migration starts from a destination that may).
    pub migrated: bool,
    page_table: bool,
    bug: Option<Bug>,
    /// Steps performed since the last reset.
    steps: u64,
    planted: Planted,
}

/// State only the planted bugs use (BUGS.md); the correct engine never reads it.
#[derive(Default)]
struct Planted {
    /// The page of the previous ESSA (cbrl-appends-stale-gfn).
    cached_gfn: usize,
    /// A four-slot ring holding the CBRL (cbrl-ring-wrap).
    ring: [usize; 4],
    ring_head: usize,
    ring_tail: usize,
    /// Swap slots never given back (swap-slot-leak).
    swap_leaked: usize,
    /// Reclaims that went to swap since the reset (reclaim-batch-8th).
    swap_reclaims: u64,
    /// HostAge requests per page since the reset (age-generation-unmap).
    ages: Vec<u32>,
    /// Faults that took a fresh frame since the reset, and the content last dropped
    /// (zero-pool-stale-frame).
    fresh_faults: u64,
    stale_frame: u64,
}

/// The ring slot the n-th append writes (cbrl-ring-wrap: after the first lap the write index
/// wraps to 1, the read index to 0).
fn ring_write_slot(n: usize) -> usize {
    if n < 4 {
        n
    } else {
        1 + (n - 4) % 3
    }
}

impl Machine {
    pub fn new(prof: Profile, bug: Option<Bug>) -> Machine {
        let mut m = Machine {
            prof,
            pages: Vec::new(),
            cbrl: Vec::new(),
            migrated: false,
            page_table: false,
            bug,
            steps: 0,
            planted: Planted::default(),
        };
        m.reset();
        m
    }

    fn bug(&self, b: Bug) -> bool {
        self.bug == Some(b)
    }

    pub fn reset(&mut self) {
        self.pages = vec![FRESH; self.prof.pages];
        if !self.bug(Bug::ResetKeepsCbrl) {
            self.cbrl.clear();
        }
        if !self.bug(Bug::ResetKeepsMigrated) {
            self.migrated = false;
        }
        self.page_table = self.prof.imp == Impl::KVMGmap && self.prof.prebuilt_page_tables;
        self.steps = 0;
        self.planted = Planted {
            ages: vec![0; self.prof.pages],
            ..Planted::default()
        };
    }

    /// Whether ESSA sees the page as resident: the host frame, or under the gmap its PTE.
    fn essa_valid(&self, p: usize) -> bool {
        let pg = &self.pages[p];
        match self.prof.imp {
            Impl::KVMGmap => pg.gmap_pte == GmapPte::Valid,
            _ => pg.valid,
        }
    }

    /// The R1 byte of page `p` as it is now.
    fn r1(&self, p: usize) -> u8 {
        let pg = &self.pages[p];
        let content = match self.prof.imp {
            Impl::Paper2007 => {
                if pg.valid {
                    0
                } else if pg.swapped {
                    2
                } else {
                    3
                }
            }
            _ => {
                if self.essa_valid(p) {
                    0
                } else if pg.zbit {
                    3
                } else {
                    2
                }
            }
        };
        let usage = if self.bug(Bug::R1UsageFromEvenPage) {
            self.pages[p & !1].usage
        } else {
            pg.usage
        };
        let nodat_bit = if self.bug(Bug::F147R1NodatBit0x10) { 0x10 } else { 0x20 };
        content | usage as u8 | if pg.nodat { nodat_bit } else { 0 }
    }

    fn row(&self, p: usize, orc: u8) -> Row {
        let pg = &self.pages[p];
        let valid = self.essa_valid(p);
        let set = |u: Usage| Some(u);
        match self.prof.imp {
            Impl::Paper2007 => {
                let clear = Some(false);
                let out_swapped = !pg.valid && pg.swapped;
                match orc {
                    1 => Row {
                        usage: set(Usage::S),
                        zbit: clear,
                        ..KEEP
                    },
                    5 => Row {
                        usage: set(Usage::S),
                        zbit: clear,
                        page_in: true,
                        ..KEEP
                    },
                    2 => Row {
                        usage: set(Usage::U),
                        zbit: clear,
                        drop: out_swapped,
                        ..KEEP
                    },
                    3 => Row {
                        usage: set(Usage::V),
                        zbit: clear,
                        drop: out_swapped,
                        ..KEEP
                    },
                    4 => {
                        if !pg.valid && !pg.swapped {
                            Row {
                                usage: set(Usage::V),
                                zbit: clear,
                                ..KEEP
                            }
                        } else if out_swapped && pg.dirty {
                            Row {
                                usage: set(Usage::S),
                                zbit: clear,
                                ..KEEP
                            }
                        } else if out_swapped {
                            Row {
                                usage: set(Usage::V),
                                zbit: clear,
                                drop: true,
                                ..KEEP
                            }
                        } else {
                            Row {
                                usage: set(Usage::P),
                                zbit: clear,
                                ..KEEP
                            }
                        }
                    }
                    6 => {
                        if pg.usage == Usage::V && !pg.valid && !pg.swapped {
                            Row { zbit: clear, ..KEEP }
                        } else {
                            Row {
                                usage: set(Usage::S),
                                zbit: clear,
                                ..KEEP
                            }
                        }
                    }
                    _ => Row { zbit: clear, ..KEEP },
                }
            }
            Impl::KVMClassic | Impl::KVMGmap => {
                let gmap = self.prof.imp == Impl::KVMGmap;
                // The gmap clears Z wherever classic KVM keeps it.
                let kept_z = if gmap { Some(false) } else { None };
                match orc {
                    0 => Row { zbit: kept_z, ..KEEP },
                    1 => {
                        let nodat = if self.bug(Bug::F147Orc1KeepsNodat) {
                            None
                        } else {
                            Some(false)
                        };
                        Row {
                            usage: set(Usage::S),
                            nodat,
                            zbit: kept_z,
                            ..KEEP
                        }
                    }
                    2 | 3 => {
                        let u = if orc == 2 { Usage::U } else { Usage::V };
                        if valid {
                            Row {
                                usage: set(u),
                                zbit: kept_z,
                                ..KEEP
                            }
                        } else {
                            Row {
                                usage: set(u),
                                zbit: Some(true),
                                append: true,
                                ..KEEP
                            }
                        }
                    }
                    4 => {
                        if valid {
                            Row {
                                usage: set(Usage::P),
                                zbit: kept_z,
                                ..KEEP
                            }
                        } else if pg.zbit {
                            Row {
                                usage: set(Usage::V),
                                zbit: if gmap { Some(false) } else { Some(true) },
                                ..KEEP
                            }
                        } else if !pg.gc {
                            Row {
                                usage: set(Usage::V),
                                zbit: Some(true),
                                append: true,
                                ..KEEP
                            }
                        } else if gmap {
                            Row {
                                zbit: Some(false),
                                ..KEEP
                            }
                        } else {
                            Row {
                                usage: set(Usage::S),
                                ..KEEP
                            }
                        }
                    }
                    5 => Row {
                        usage: set(Usage::S),
                        zbit: kept_z,
                        ..KEEP
                    },
                    6 => {
                        if valid {
                            Row {
                                usage: set(Usage::S),
                                zbit: kept_z,
                                ..KEEP
                            }
                        } else {
                            Row { zbit: kept_z, ..KEEP }
                        }
                    }
                    7 => {
                        let usage = if self.bug(Bug::F147Orc7KeepsUsage) {
                            None
                        } else {
                            set(Usage::S)
                        };
                        Row {
                            usage,
                            nodat: Some(true),
                            zbit: kept_z,
                            ..KEEP
                        }
                    }
                    _ => Row { zbit: kept_z, ..KEEP },
                }
            }
        }
    }

    fn essa(&mut self, page: Option<usize>, orc: u8, problem_state: bool, beyond_memory: bool) -> Outcome {
        let imp = self.prof.imp;
        if !self.prof.cmma_enabled {
            return plain("OperationException");
        }
        if problem_state {
            return plain("PrivilegedOperation");
        }
        let last_page = page == Some(self.prof.pages - 1);
        if beyond_memory || (self.bug(Bug::EssaLastPageAddressing) && last_page) {
            return if imp == Impl::KVMGmap {
                Outcome {
                    result: Some(0x10),
                    ..done()
                }
            } else {
                plain("AddressingException")
            };
        }
        if orc >= 8 || (orc == 7 && (!self.prof.facility147 || imp == Impl::Paper2007)) {
            return plain("SpecificationException");
        }
        if imp == Impl::KVMGmap && !self.page_table {
            return Outcome {
                result: Some(0x10),
                ..done()
            };
        }
        let p = page.expect("an ESSA within memory names a page");
        if self.bug(Bug::EssaPage0WalkFails) && p == 0 {
            return Outcome {
                result: Some(if orc != 0 { 0x10 } else { 0 }),
                ..done()
            };
        }
        let mut row = self.row(p, orc);
        if self.bug(Bug::CbrlDedup) && row.append && self.cbrl.contains(&p) {
            row.append = false;
        }
        let size = self.prof.cbrl_size;
        let capacity = if self.bug(Bug::Cbrl2ReservedSlot) && size > 1 {
            size - 1
        } else {
            size
        };
        if row.append && self.cbrl.len() >= capacity {
            return refused("the CBRL is full: the instruction intercepts and the host must process the list");
        }
        if self.bug(Bug::Cbrl2ZbitOnSecondAppendLost) && row.append && !self.cbrl.is_empty() {
            row.zbit = None;
        }
        let result = self.r1(p);
        let pg = &mut self.pages[p];
        if let Some(u) = row.usage {
            pg.usage = u;
        }
        if let Some(n) = row.nodat {
            pg.nodat = n;
        }
        if let Some(z) = row.zbit {
            pg.zbit = z;
        }
        if row.drop {
            // A discard makes the content logically zero and resets the change bit (z/VM).
            self.planted.stale_frame = pg.content;
            pg.swapped = false;
            pg.content = 0;
            pg.dirty = false;
        }
        if row.page_in {
            pg.valid = true;
            pg.swapped = false;
        }
        if row.append {
            let entry = if self.bug(Bug::CbrlAppendsStaleGfn) {
                self.planted.cached_gfn
            } else {
                p
            };
            if self.bug(Bug::Cbrl2SecondEntryOverwrites) && !self.cbrl.is_empty() {
                let last = self.cbrl.len() - 1;
                self.cbrl[last] = entry;
            } else {
                self.cbrl.push(entry);
            }
            if self.bug(Bug::CbrlRingWrap) {
                let slot = ring_write_slot(self.planted.ring_tail);
                self.planted.ring[slot] = entry;
                self.planted.ring_tail += 1;
            }
        }
        self.planted.cached_gfn = p;
        Outcome {
            result: Some(result),
            ..done()
        }
    }

    fn host_reclaim(&mut self, p: usize) -> Outcome {
        let imp = self.prof.imp;
        let keys = self.prof.storage_keys;
        let sticky = self.prof.sticky_zero;
        let npages = self.prof.pages;
        if !self.pages[p].valid || (self.bug(Bug::ReclaimLastPageRefused) && p + 1 == npages) {
            return refused("the page is not resident");
        }
        // Paper2007 decides a P page by its change bit.
        let key_dirty = if self.bug(Bug::P2007ReclaimDirtyOfPage0) {
            self.pages[0].dirty
        } else {
            self.pages[p].dirty
        };
        let pg = &self.pages[p];
        let (usage, to_swap) = match imp {
            Impl::Paper2007 => match (pg.usage, key_dirty) {
                (Usage::S, _) => (Usage::S, true),
                (Usage::U, _) => (Usage::U, false),
                (Usage::V, _) => (Usage::V, false),
                (Usage::P, false) => (Usage::V, false),
                (Usage::P, true) => (Usage::S, true),
            },
            Impl::KVMClassic => (pg.usage, pg.usage != Usage::U),
            Impl::KVMGmap => {
                let drop = pg.pte_unused || (pg.usage == Usage::U && pg.gmap_pte != GmapPte::Empty);
                (pg.usage, !drop)
            }
        };
        if to_swap && self.bug(Bug::SwapSlotLeak) {
            // One swap slot per page and three spare; a leaked slot is never given back.
            let used = self.pages.iter().filter(|q| q.swapped).count() + self.planted.swap_leaked;
            if used + 1 > npages + 3 {
                return refused("no free swap slot");
            }
        }
        let mut swap_copy = self.pages[p].content;
        if to_swap && self.bug(Bug::ReclaimBatch8th) {
            // The last page of a batch of eight is written to swap before its data is copied.
            self.planted.swap_reclaims += 1;
            #[allow(clippy::manual_is_multiple_of)]
            let batch_end = self.planted.swap_reclaims % 8 == 0;
            if batch_end {
                swap_copy = 0;
            }
        }
        if !to_swap {
            self.planted.stale_frame = self.pages[p].content;
            if self.bug(Bug::ReclaimDropsNeighbourSwap) && p + 1 < npages {
                // The swap range freed is [p, p + 1] instead of [p, p + 1).
                let next = &mut self.pages[p + 1];
                if !next.valid && next.swapped {
                    next.swapped = false;
                    next.content = 0;
                }
            }
        }
        let copy_gc = imp.is_kvm() && keys && !self.bug(Bug::KeysReclaimGcNotCopied);
        let pg = &mut self.pages[p];
        pg.usage = usage;
        pg.valid = false;
        pg.swapped = to_swap;
        pg.content = if to_swap { swap_copy } else { 0 };
        if !to_swap && imp == Impl::Paper2007 {
            // The 2007 host's discard resets the change bit; KVM keeps the key.
            pg.dirty = false;
        }
        if copy_gc {
            pg.gc = pg.dirty;
        }
        if imp == Impl::KVMGmap {
            if pg.gmap_pte != GmapPte::Empty && !sticky {
                pg.zbit = false;
            }
            pg.gmap_pte = GmapPte::Empty;
            pg.pte_unused = false;
        }
        done()
    }

    /// The zap of one CBRL entry: `Zapped` or `Kept`.
    fn zap_entry(&mut self, p: usize) -> Outcome {
        let gmap = self.prof.imp == Impl::KVMGmap;
        if self.bug(Bug::CbrlPage0Sentinel) && p == 0 {
            // A zero entry is taken for an unused slot of the list.
            return plain("Kept");
        }
        let pg = &self.pages[p];
        let not_present = !pg.valid || (gmap && pg.gmap_pte == GmapPte::Empty);
        let wants_zap = not_present && (pg.usage == Usage::U || pg.zbit);
        if !wants_zap {
            return plain("Kept");
        }
        if gmap && self.prof.cbrl_guest_address {
            // The zap goes to the host address equal to the guest's absolute address,
            // where none of the modelled pages lives.
            return Outcome {
                reason: Some("zapped the host page at the guest absolute address"),
                ..plain("Kept")
            };
        }
        let pg = &mut self.pages[p];
        if !pg.valid && pg.swapped {
            self.planted.stale_frame = pg.content;
            pg.swapped = false;
            pg.content = 0;
            plain("Zapped")
        } else {
            plain("Kept")
        }
    }

    fn host_process_cbrl(&mut self) -> Outcome {
        if self.cbrl.is_empty() {
            return refused("the CBRL is empty");
        }
        if self.bug(Bug::Cbrl2ProcessZapsAll) {
            // The whole list in one go, as handle_essa does, answering for the first entry.
            let entries: Vec<usize> = self.cbrl.drain(..).collect();
            let mut first = None;
            for p in entries {
                let o = self.zap_entry(p);
                first.get_or_insert(o);
            }
            return first.expect("the list was not empty");
        }
        if self.bug(Bug::CbrlKeptEntryStays) {
            let p = self.cbrl[0];
            let o = self.zap_entry(p);
            if o.outcome == "Zapped" {
                self.cbrl.remove(0);
            }
            return o;
        }
        let p = if self.bug(Bug::CbrlProcessTakesNewest) {
            self.cbrl.pop().expect("the list is not empty")
        } else {
            let first = self.cbrl.remove(0);
            if self.bug(Bug::CbrlRingWrap) {
                let slot = self.planted.ring_head % 4;
                self.planted.ring_head += 1;
                self.planted.ring[slot]
            } else {
                first
            }
        };
        self.zap_entry(p)
    }

    fn migrate(&mut self) -> Outcome {
        if !self.prof.imp.is_kvm() {
            return refused("the 2007 model has no CMMA migration");
        }
        if self.migrated {
            return refused("the VM has migrated already");
        }
        let keys = self.prof.storage_keys;
        let gmap = self.prof.imp == Impl::KVMGmap;
        let stale_content = self.bug(Bug::MigrateStaleContent);
        let gc_cleared = self.bug(Bug::KeysMigrateGcCleared);
        let drops_nodat = self.bug(Bug::F147MigrateDropsNodat);
        let n = if self.bug(Bug::MigrateSkipsLastPage) {
            self.pages.len() - 1
        } else {
            self.pages.len()
        };
        let mut content = 0;
        for pg in self.pages.iter_mut().take(n) {
            if pg.valid || pg.swapped {
                content = pg.content;
            } else if !stale_content {
                content = 0;
            }
            pg.content = content;
            pg.valid = content != 0;
            pg.swapped = false;
            pg.zbit = false;
            pg.gc = keys && pg.dirty && !gc_cleared;
            if drops_nodat {
                pg.nodat = false;
            }
            if gmap {
                pg.gmap_pte = GmapPte::Empty;
                pg.pte_unused = false;
            }
        }
        if !self.bug(Bug::MigrateCbrlNotEmptied) {
            self.cbrl.clear();
            self.planted.ring_head = self.planted.ring_tail;
        }
        self.migrated = true;
        if gmap {
            self.page_table = true;
        }
        done()
    }

    /// Read or Write: the Paper2007 faults, else the access (faulting the page in).
    fn access(&mut self, p: usize, store: Option<u64>) -> Outcome {
        let imp = self.prof.imp;
        let sticky = self.prof.sticky_zero;
        {
            let pg = &self.pages[p];
            if imp == Impl::Paper2007 {
                if pg.usage == Usage::V && !pg.valid && !pg.swapped {
                    return plain("DiscardFault");
                }
                if pg.usage == Usage::U {
                    return plain("AddressingException");
                }
            }
        }
        let faults = match imp {
            Impl::KVMGmap => self.pages[p].gmap_pte != GmapPte::Valid,
            _ => !self.pages[p].valid,
        };
        if faults {
            let clear_z = !(imp == Impl::KVMGmap && sticky);
            if clear_z && self.bug(Bug::FaultClearsNeighbourZbit) && p + 1 < self.pages.len() {
                // The Z bits are cleared over [p, p + 1] instead of [p, p + 1).
                self.pages[p + 1].zbit = false;
            }
            let (was_valid, was_swapped) = (self.pages[p].valid, self.pages[p].swapped);
            if !was_valid && was_swapped && self.bug(Bug::SwapSlotLeak) {
                self.planted.swap_leaked += 1;
            }
            if !was_valid && !was_swapped {
                self.planted.fresh_faults += 1;
            }
            let stale = self.planted.stale_frame;
            let recycled =
                self.bug(Bug::ZeroPoolStaleFrame) && !was_valid && !was_swapped && self.planted.fresh_faults > 8;
            let keeps_swapped = self.bug(Bug::FaultPage0KeepsSwapped) && p == 0;
            let pg = &mut self.pages[p];
            if clear_z {
                pg.zbit = false;
            }
            if !was_valid && !keeps_swapped {
                pg.swapped = false;
            }
            if recycled {
                // The pool of zeroed frames is empty: a recycled frame is handed out unzeroed.
                pg.content = stale;
            }
            pg.valid = true;
            if imp == Impl::KVMGmap {
                pg.gmap_pte = GmapPte::Valid;
            }
        }
        if imp == Impl::KVMGmap {
            self.page_table = true;
        }
        let pg = &mut self.pages[p];
        match store {
            Some(v) => {
                pg.content = v;
                pg.dirty = true;
                done()
            }
            None => Outcome {
                value: Some(pg.content),
                ..plain("Value")
            },
        }
    }

    fn writeback(&mut self, p: usize) -> Outcome {
        let imp = self.prof.imp;
        let keys = self.prof.storage_keys;
        let keeps_gc = self.bug(Bug::KeysWritebackKeepsGc);
        let no_table = self.bug(Bug::KeysWritebackNoPageTable);
        let pg = &mut self.pages[p];
        pg.dirty = false;
        if imp.is_kvm() && keys {
            if !keeps_gc {
                pg.gc = false;
            }
            if imp == Impl::KVMGmap && !no_table {
                self.page_table = true;
            }
        }
        done()
    }

    /// HostUnmapGmap (`aging` false) or HostAge (`aging` true).
    fn gmap_unmap(&mut self, p: usize, aging: bool) -> Outcome {
        if self.prof.imp != Impl::KVMGmap {
            return refused("only the gmap has a gmap PTE");
        }
        let keys = self.prof.storage_keys;
        let sticky = self.prof.sticky_zero;
        let stale = self.prof.stale_unused_bit;
        let pte = self.pages[p].gmap_pte;
        let applies = if aging {
            pte == GmapPte::Valid
        } else {
            pte != GmapPte::Empty
        };
        if !applies {
            return refused(if aging {
                "the gmap PTE is not valid"
            } else {
                "the gmap PTE is empty"
            });
        }
        let mut unmap = !aging;
        if aging && self.bug(Bug::AgeGenerationUnmap) {
            // The page's generation is never reset by a fault: the fifth aging finds it cold.
            self.planted.ages[p] += 1;
            if self.planted.ages[p] >= 5 {
                unmap = true;
            }
        }
        let moves_dirty = aging && keys && self.bug(Bug::KeysAgeClearsDirty);
        let pg = &mut self.pages[p];
        if !sticky {
            pg.zbit = false;
        }
        if keys {
            pg.gc = pg.dirty;
        }
        if moves_dirty {
            pg.dirty = false;
        }
        if !unmap {
            pg.gmap_pte = GmapPte::Aged;
        } else {
            // The unmap sets `_PAGE_UNUSED` for a U page; with the bug nothing but a reclaim
            // or a migration clears it again, so it outlives the page's reuse.
            if stale && pg.usage == Usage::U {
                pg.pte_unused = true;
            }
            pg.gmap_pte = GmapPte::Empty;
        }
        done()
    }

    fn reset_cmma(&mut self) -> Outcome {
        if !self.prof.imp.is_kvm() {
            return refused("the 2007 model has no CMMA reset");
        }
        let n = if self.bug(Bug::ResetCmmaSkipsLast) {
            self.pages.len() - 1
        } else {
            self.pages.len()
        };
        let keeps_nodat = self.bug(Bug::F147ResetCmmaKeepsNodat);
        for pg in self.pages.iter_mut().take(n) {
            pg.usage = Usage::S;
            if !keeps_nodat {
                pg.nodat = false;
            }
        }
        done()
    }

    pub fn step(&mut self, op: Op) -> Outcome {
        self.steps += 1;
        match op {
            Op::Essa {
                page,
                orc,
                problem_state,
                beyond_memory,
            } => self.essa(page, orc, problem_state, beyond_memory),
            Op::HostReclaim(p) => self.host_reclaim(p),
            Op::HostProcessCBRL => self.host_process_cbrl(),
            Op::Migrate => self.migrate(),
            Op::Read(p) => self.access(p, None),
            Op::Write(p, v) => self.access(p, Some(v)),
            Op::Writeback(p) => self.writeback(p),
            Op::HostUnmapGmap(p) => self.gmap_unmap(p, false),
            Op::HostAge(p) => self.gmap_unmap(p, true),
            Op::HostResetCMMA => self.reset_cmma(),
        }
    }

    /// The `pages` array of a reply, each page with its `cmmaDirty` bit when given.
    pub fn write_pages_with(&self, out: &mut String, cmma_dirty: Option<&[bool]>) {
        let gmap = self.prof.imp == Impl::KVMGmap;
        out.push('[');
        for (i, pg) in self.pages.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&format!(
                "{{\"usage\": \"{}\", \"valid\": {}, \"swapped\": {}, \"zbit\": {}, \"nodat\": {}, \"dirty\": {}, \"gc\": {}",
                pg.usage.name(),
                pg.valid,
                pg.swapped,
                pg.zbit,
                pg.nodat,
                pg.dirty,
                pg.gc
            ));
            if gmap {
                out.push_str(&format!(
                    ", \"gmapPte\": \"{}\", \"pteUnused\": {}",
                    pg.gmap_pte.name(),
                    pg.pte_unused
                ));
            }
            if let Some(d) = cmma_dirty {
                out.push_str(&format!(", \"cmmaDirty\": {}", d[i]));
            }
            out.push('}');
        }
        out.push(']');
    }
}
