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
    Essa { page: Option<usize>, orc: u8, problem_state: bool, beyond_memory: bool },
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
    Outcome { outcome: "Done", result: None, value: None, reason: None }
}

fn plain(outcome: &'static str) -> Outcome {
    Outcome { outcome, result: None, value: None, reason: None }
}

fn refused(reason: &'static str) -> Outcome {
    Outcome { outcome: "Refused", result: None, value: None, reason: Some(reason) }
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

const KEEP: Row = Row { usage: None, nodat: None, zbit: None, append: false, drop: false, page_in: false };

pub struct Machine {
    pub prof: Profile,
    pub pages: Vec<Page>,
    cbrl: Vec<usize>,
    migrated: bool,
    page_table: bool,
    bug: Option<Bug>,
    /// Steps performed since the last reset (for the planted bugs that need many steps).
    steps: u64,
}

impl Machine {
    pub fn new(prof: Profile, bug: Option<Bug>) -> Machine {
        let mut m = Machine { prof, pages: Vec::new(), cbrl: Vec::new(), migrated: false, page_table: false, bug, steps: 0 };
        m.reset();
        m
    }

    fn bug(&self, b: Bug) -> bool {
        self.bug == Some(b)
    }

    pub fn reset(&mut self) {
        self.pages = vec![FRESH; self.prof.pages];
        self.cbrl.clear();
        self.migrated = false;
        self.page_table = self.prof.imp == Impl::KVMGmap && self.prof.prebuilt_page_tables;
        self.steps = 0;
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
        content | pg.usage as u8 | if pg.nodat { 0x20 } else { 0 }
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
                    1 => Row { usage: set(Usage::S), zbit: clear, ..KEEP },
                    5 => Row { usage: set(Usage::S), zbit: clear, page_in: true, ..KEEP },
                    2 => Row { usage: set(Usage::U), zbit: clear, drop: out_swapped, ..KEEP },
                    3 => Row { usage: set(Usage::V), zbit: clear, drop: out_swapped, ..KEEP },
                    4 => {
                        if !pg.valid && !pg.swapped {
                            Row { usage: set(Usage::V), zbit: clear, ..KEEP }
                        } else if out_swapped && pg.dirty {
                            Row { usage: set(Usage::S), zbit: clear, ..KEEP }
                        } else if out_swapped {
                            Row { usage: set(Usage::V), zbit: clear, drop: true, ..KEEP }
                        } else {
                            Row { usage: set(Usage::P), zbit: clear, ..KEEP }
                        }
                    }
                    6 => {
                        if pg.usage == Usage::V && !pg.valid && !pg.swapped {
                            Row { zbit: clear, ..KEEP }
                        } else {
                            Row { usage: set(Usage::S), zbit: clear, ..KEEP }
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
                    1 => Row { usage: set(Usage::S), nodat: Some(false), zbit: kept_z, ..KEEP },
                    2 | 3 => {
                        let u = if orc == 2 { Usage::U } else { Usage::V };
                        if valid {
                            Row { usage: set(u), zbit: kept_z, ..KEEP }
                        } else {
                            Row { usage: set(u), zbit: Some(true), append: true, ..KEEP }
                        }
                    }
                    4 => {
                        if valid {
                            Row { usage: set(Usage::P), zbit: kept_z, ..KEEP }
                        } else if pg.zbit {
                            Row { usage: set(Usage::V), zbit: if gmap { Some(false) } else { Some(true) }, ..KEEP }
                        } else if !pg.gc {
                            Row { usage: set(Usage::V), zbit: Some(true), append: true, ..KEEP }
                        } else if gmap {
                            Row { zbit: Some(false), ..KEEP }
                        } else {
                            Row { usage: set(Usage::S), ..KEEP }
                        }
                    }
                    5 => Row { usage: set(Usage::S), zbit: kept_z, ..KEEP },
                    6 => {
                        if valid {
                            Row { usage: set(Usage::S), zbit: kept_z, ..KEEP }
                        } else {
                            Row { zbit: kept_z, ..KEEP }
                        }
                    }
                    7 => Row { usage: set(Usage::S), nodat: Some(true), zbit: kept_z, ..KEEP },
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
        if beyond_memory {
            return if imp == Impl::KVMGmap {
                Outcome { result: Some(0x10), ..done() }
            } else {
                plain("AddressingException")
            };
        }
        if orc >= 8 || (orc == 7 && (!self.prof.facility147 || imp == Impl::Paper2007)) {
            return plain("SpecificationException");
        }
        if imp == Impl::KVMGmap && !self.page_table {
            return Outcome { result: Some(0x10), ..done() };
        }
        let p = page.expect("an ESSA within memory names a page");
        let row = self.row(p, orc);
        if row.append && self.cbrl.len() >= self.prof.cbrl_size {
            return refused("the CBRL is full: the instruction intercepts and the host must process the list");
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
            pg.swapped = false;
            pg.content = 0;
        }
        if row.page_in {
            pg.valid = true;
            pg.swapped = false;
        }
        if row.append {
            self.cbrl.push(p);
        }
        Outcome { result: Some(result), ..done() }
    }

    fn host_reclaim(&mut self, p: usize) -> Outcome {
        let imp = self.prof.imp;
        let keys = self.prof.storage_keys;
        let sticky = self.prof.sticky_zero;
        let pg = &mut self.pages[p];
        if !pg.valid {
            return refused("the page is not resident");
        }
        let (usage, to_swap) = match imp {
            Impl::Paper2007 => match (pg.usage, pg.dirty) {
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
        pg.usage = usage;
        pg.valid = false;
        pg.swapped = to_swap;
        if !to_swap {
            pg.content = 0;
        }
        if imp.is_kvm() && keys {
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

    fn host_process_cbrl(&mut self) -> Outcome {
        if self.cbrl.is_empty() {
            return refused("the CBRL is empty");
        }
        let p = self.cbrl.remove(0);
        let gmap = self.prof.imp == Impl::KVMGmap;
        let pg = &self.pages[p];
        let not_present = !pg.valid || (gmap && pg.gmap_pte == GmapPte::Empty);
        let wants_zap = not_present && (pg.usage == Usage::U || pg.zbit);
        if !wants_zap {
            return plain("Kept");
        }
        if gmap && self.prof.cbrl_guest_address {
            // The zap goes to the host address equal to the guest's absolute address,
            // where none of the modelled pages lives.
            return Outcome { reason: Some("zapped the host page at the guest absolute address"), ..plain("Kept") };
        }
        let pg = &mut self.pages[p];
        if !pg.valid && pg.swapped {
            pg.swapped = false;
            pg.content = 0;
            plain("Zapped")
        } else {
            plain("Kept")
        }
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
        for pg in self.pages.iter_mut() {
            let content = if pg.valid || pg.swapped { pg.content } else { 0 };
            pg.content = content;
            pg.valid = content != 0;
            pg.swapped = false;
            pg.zbit = false;
            pg.gc = keys && pg.dirty;
            if gmap {
                pg.gmap_pte = GmapPte::Empty;
                pg.pte_unused = false;
            }
        }
        self.cbrl.clear();
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
        let pg = &mut self.pages[p];
        if faults {
            if !(imp == Impl::KVMGmap && sticky) {
                pg.zbit = false;
            }
            if !pg.valid {
                pg.swapped = false;
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
            None => Outcome { value: Some(pg.content), ..plain("Value") },
        }
    }

    fn writeback(&mut self, p: usize) -> Outcome {
        let imp = self.prof.imp;
        let keys = self.prof.storage_keys;
        let pg = &mut self.pages[p];
        pg.dirty = false;
        if imp.is_kvm() && keys {
            pg.gc = false;
            if imp == Impl::KVMGmap {
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
        let pg = &mut self.pages[p];
        let applies = if aging { pg.gmap_pte == GmapPte::Valid } else { pg.gmap_pte != GmapPte::Empty };
        if !applies {
            return refused(if aging { "the gmap PTE is not valid" } else { "the gmap PTE is empty" });
        }
        if !sticky {
            pg.zbit = false;
        }
        if keys {
            pg.gc = pg.dirty;
        }
        if aging {
            pg.gmap_pte = GmapPte::Aged;
        } else {
            // The unmap decides `_PAGE_UNUSED` afresh: set for a U page, cleared otherwise
            // (only the bug lets it outlive the unmap into a reuse).
            if stale {
                pg.pte_unused = pg.usage == Usage::U;
            }
            pg.gmap_pte = GmapPte::Empty;
        }
        done()
    }

    fn reset_cmma(&mut self) -> Outcome {
        if !self.prof.imp.is_kvm() {
            return refused("the 2007 model has no CMMA reset");
        }
        for pg in self.pages.iter_mut() {
            pg.usage = Usage::S;
            pg.nodat = false;
        }
        done()
    }

    pub fn step(&mut self, op: Op) -> Outcome {
        self.steps += 1;
        match op {
            Op::Essa { page, orc, problem_state, beyond_memory } => self.essa(page, orc, problem_state, beyond_memory),
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

    /// The `pages` array of a reply.
    pub fn write_pages(&self, out: &mut String) {
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
                out.push_str(&format!(", \"gmapPte\": \"{}\", \"pteUnused\": {}", pg.gmap_pte.name(), pg.pte_unused));
            }
            out.push('}');
        }
        out.push(']');
    }
}
