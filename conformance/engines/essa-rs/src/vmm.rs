//! The ESSAMigrationVMM mode (conformance/PROTOCOL.md, "CMMA migration as a VMM drives it"):
//! KVM's CMMA migration as a VMM drives it, around the ESSA machine: migration mode, each
//! page's CMMA-dirty bit and the count of dirty pages, the memslots, `uses_cmm`, the
//! destination's values, and the last answer of a Get or Peek.

#![allow(clippy::needless_range_loop)] // pages, their frames and bits are parallel vectors

use crate::machine::{Machine, Op, Outcome, Usage};

/// KVM_S390_MAX_BIT_DISTANCE.
const MAX_BIT_DISTANCE: u64 = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memslot {
    pub base: u64,
    pub pages: usize,
    pub present: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    Absent,
    Present,
    Deleted,
}

/// A request of the VMM (the ESSA mode's go to the machine).
#[derive(Clone, Copy, Debug)]
pub enum VmmOp {
    Start,
    Stop,
    Get(u64, u64),
    Peek(u64, u64),
    SlotCreate(usize, bool),
    SlotLogging(usize, bool),
    SlotDelete(usize),
    /// The switch; its SET's mask (usage 0x03, N 0x40; QEMU's 0x43 when the request has none).
    Migrate(u8),
    Essa(Op),
}

/// What a Get or Peek answered.
pub struct Answer {
    pub start: u64,
    pub values: Vec<u8>,
    pub remaining: i64,
}

pub struct Vmm {
    pub m: Machine,
    pub memslots: Vec<Memslot>,
    pub slot_delete_fix: bool,
    gfn: Vec<u64>,
    slot_of: Vec<usize>,
    slot: Vec<SlotState>,
    logging: Vec<bool>,
    migrating: bool,
    pub cmma_dirty: Vec<bool>,
    sent: Vec<(Usage, bool)>,
    count: i64,
    uses_cmm: bool,
    /// The last answer: Get or Peek, and its remaining.
    last: Option<(bool, i64)>,
}

fn value(u: Usage, n: bool) -> u8 {
    let code = match u {
        Usage::S => 0,
        Usage::U => 1,
        Usage::P => 2,
        Usage::V => 3,
    };
    code | if n { 0x40 } else { 0 }
}

fn refused(reason: &'static str) -> Outcome {
    Outcome {
        outcome: "Refused",
        result: None,
        value: None,
        reason: Some(reason),
    }
}

fn done() -> Outcome {
    Outcome {
        outcome: "Done",
        result: None,
        value: None,
        reason: None,
    }
}

impl Vmm {
    pub fn new(m: Machine, memslots: Vec<Memslot>, slot_delete_fix: bool) -> Vmm {
        let mut gfn = Vec::new();
        let mut slot_of = Vec::new();
        for (i, s) in memslots.iter().enumerate() {
            for k in 0..s.pages {
                gfn.push(s.base + k as u64);
                slot_of.push(i);
            }
        }
        let mut v = Vmm {
            m,
            memslots,
            slot_delete_fix,
            gfn,
            slot_of,
            slot: Vec::new(),
            logging: Vec::new(),
            migrating: false,
            cmma_dirty: Vec::new(),
            sent: Vec::new(),
            count: 0,
            uses_cmm: true,
            last: None,
        };
        v.reset();
        v
    }

    pub fn reset(&mut self) {
        self.m.reset();
        let n = self.gfn.len();
        self.slot = self
            .memslots
            .iter()
            .map(|s| {
                if s.present {
                    SlotState::Present
                } else {
                    SlotState::Absent
                }
            })
            .collect();
        self.logging = vec![true; self.memslots.len()];
        self.migrating = false;
        self.cmma_dirty = vec![false; n];
        self.sent = vec![(Usage::S, false); n];
        self.count = 0;
        self.uses_cmm = true;
        self.last = None;
    }

    fn in_slot(&self, p: usize) -> bool {
        self.slot[self.slot_of[p]] == SlotState::Present
    }

    /// The page at a guest frame in a present memslot.
    fn backed(&self, g: u64) -> Option<usize> {
        let p = self.gfn.iter().position(|&x| x == g)?;
        if self.in_slot(p) {
            Some(p)
        } else {
            None
        }
    }

    /// One past the highest frame of a present memslot (kvm_s390_get_gfn_end).
    fn mem_end(&self) -> u64 {
        (0..self.gfn.len())
            .filter(|&p| self.in_slot(p))
            .map(|p| self.gfn[p] + 1)
            .max()
            .unwrap_or(0)
    }

    /// kvm_s390_next_dirty_cmma: the first dirty frame at or after cur (from 0 past the end).
    fn next_dirty(&self, d: &[bool], cur: u64) -> u64 {
        let end = self.mem_end();
        let from = if cur >= end { 0 } else { cur };
        for p in 0..self.gfn.len() {
            if self.gfn[p] >= from && self.in_slot(p) && d[p] {
                return self.gfn[p];
            }
        }
        end
    }

    fn attr(&self, p: usize) -> u8 {
        let pg = &self.m.pages[p];
        value(pg.usage, pg.nodat)
    }

    pub fn step(&mut self, op: VmmOp) -> (Outcome, Option<Answer>) {
        match op {
            VmmOp::Start => {
                if self.migrating {
                    return (refused("migration mode is on"), None);
                }
                self.last = None;
                let all_log = (0..self.slot.len()).all(|s| self.slot[s] != SlotState::Present || self.logging[s]);
                if !all_log {
                    return (refused("a memslot does not log dirty pages (EINVAL)"), None);
                }
                self.migrating = true;
                for p in 0..self.gfn.len() {
                    self.cmma_dirty[p] = self.in_slot(p);
                }
                self.count = self.cmma_dirty.iter().filter(|&&d| d).count() as i64;
                (done(), None)
            }
            VmmOp::Stop => {
                if !self.migrating {
                    return (refused("migration mode is off"), None);
                }
                self.migrating = false;
                self.last = None;
                (done(), None)
            }
            VmmOp::Get(start, count) => self.get(start, count),
            VmmOp::Peek(start, count) => self.peek(start, count),
            VmmOp::SlotCreate(s, log) => {
                if self.slot[s] != SlotState::Absent {
                    return (refused("the memslot exists or was deleted"), None);
                }
                self.slot[s] = SlotState::Present;
                self.logging[s] = log;
                self.migrating = self.migrating && log;
                self.last = None;
                (done(), None)
            }
            VmmOp::SlotLogging(s, log) => {
                if self.slot[s] != SlotState::Present || self.logging[s] == log {
                    return (refused("no such memslot, or its logging is already so"), None);
                }
                self.logging[s] = log;
                self.migrating = self.migrating && log;
                self.last = None;
                (done(), None)
            }
            VmmOp::SlotDelete(s) => {
                let present = self.slot.iter().filter(|&&x| x == SlotState::Present).count();
                if self.slot[s] != SlotState::Present || present < 2 {
                    return (refused("no such memslot, or the last one"), None);
                }
                self.slot[s] = SlotState::Deleted;
                let mut gone = 0;
                for p in 0..self.gfn.len() {
                    if self.slot_of[p] == s && self.cmma_dirty[p] {
                        self.cmma_dirty[p] = false;
                        gone += 1;
                    }
                }
                if self.slot_delete_fix {
                    self.count -= gone;
                }
                self.last = None;
                (done(), None)
            }
            VmmOp::Migrate(mask) => self.switch(mask),
            VmmOp::Essa(op) => self.guest(op),
        }
    }

    fn get(&mut self, start: u64, count: u64) -> (Outcome, Option<Answer>) {
        if !self.migrating {
            self.last = None;
            return (refused("migration mode is off (EINVAL)"), None);
        }
        if !self.uses_cmm || self.count == 0 {
            self.last = Some((true, 0));
            let a = Answer {
                start: 0,
                values: Vec::new(),
                remaining: 0,
            };
            return (done(), Some(a));
        }
        let mut d = self.cmma_dirty.clone();
        let first = self.next_dirty(&d, start);
        if self.backed(first).is_none() {
            self.last = Some((true, self.count));
            let a = Answer {
                start: first,
                values: Vec::new(),
                remaining: self.count,
            };
            return (done(), Some(a));
        }
        let end = self.mem_end();
        let mut n = self.count;
        let mut values = Vec::new();
        let mut cur = first;
        let mut next = self.next_dirty(&d, first + 1);
        loop {
            let p = self.backed(cur).expect("a frame of the batch is backed");
            if d[p] {
                n -= 1;
            }
            d[p] = false;
            values.push(self.attr(p));
            let pg = &self.m.pages[p];
            self.sent[p] = (pg.usage, pg.nodat);
            if values.len() as u64 >= count || next > cur + MAX_BIT_DISTANCE {
                break;
            }
            if cur == next {
                next = self.next_dirty(&d, cur + 1);
            }
            if next >= end || next < first || next - first >= count || self.backed(cur + 1).is_none() {
                break;
            }
            cur += 1;
        }
        self.cmma_dirty = d;
        self.count = n;
        self.last = Some((true, n));
        (
            done(),
            Some(Answer {
                start: first,
                values,
                remaining: n,
            }),
        )
    }

    fn peek(&mut self, start: u64, count: u64) -> (Outcome, Option<Answer>) {
        if self.uses_cmm && self.backed(start).is_none() {
            self.last = None;
            return (refused("no memslot at start_gfn (EFAULT)"), None);
        }
        self.last = Some((false, 0));
        if !self.uses_cmm {
            return (
                done(),
                Some(Answer {
                    start: 0,
                    values: Vec::new(),
                    remaining: 0,
                }),
            );
        }
        let mut values = Vec::new();
        let mut g = start;
        while (values.len() as u64) < count {
            match self.backed(g) {
                Some(p) => values.push(self.attr(p)),
                None => break,
            }
            g += 1;
        }
        let remaining = if self.migrating { self.count } else { 0 };
        (
            done(),
            Some(Answer {
                start,
                values,
                remaining,
            }),
        )
    }

    /// The destination, every PGSTE S without N, takes of each value sent the bits the SET's
    /// mask selects (kvm_s390_set_cmma_bits: `mask &= _PGSTE_GPS_USAGE_MASK | _PGSTE_GPS_NODAT`).
    fn switch(&mut self, mask: u8) -> (Outcome, Option<Answer>) {
        if !(self.migrating && self.last == Some((true, 0))) {
            return (refused("the final GET has not answered remaining 0"), None);
        }
        let before: Vec<(Usage, bool)> = self.m.pages.iter().map(|pg| (pg.usage, pg.nodat)).collect();
        self.m.migrated = false;
        let o = self.m.step(Op::Migrate);
        for p in 0..self.gfn.len() {
            let (u, n) = if self.in_slot(p) {
                let (su, sn) = self.sent[p];
                let u = if mask & 0x03 == 0x03 { su } else { Usage::S };
                (u, sn && mask & 0x40 != 0)
            } else {
                before[p]
            };
            self.m.pages[p].usage = u;
            self.m.pages[p].nodat = n;
        }
        let n = self.gfn.len();
        self.migrating = false;
        self.cmma_dirty = vec![false; n];
        self.sent = vec![(Usage::S, false); n];
        self.count = 0;
        self.uses_cmm = true;
        self.last = None;
        (o, None)
    }

    /// A request of the ESSA mode: refused on a page outside a present memslot; an ESSA
    /// carried out marks its page in migration mode and sets uses_cmm outside it.
    fn guest(&mut self, op: Op) -> (Outcome, Option<Answer>) {
        let page = match op {
            Op::Essa { page, .. } => page,
            Op::HostReclaim(p) | Op::Read(p) | Op::Write(p, _) | Op::Writeback(p) => Some(p),
            Op::HostUnmapGmap(p) | Op::HostAge(p) => Some(p),
            Op::HostProcessCBRL => None,
            Op::Migrate | Op::HostResetCMMA => return (refused("not a request of this mode"), None),
        };
        if let Some(p) = page {
            if !self.in_slot(p) {
                return (refused("the page is in no present memslot"), None);
            }
        }
        let o = self.m.step(op);
        if o.outcome == "Refused" {
            return (o, None);
        }
        self.last = None;
        if let (
            Op::Essa {
                orc,
                problem_state: false,
                ..
            },
            Some(p),
        ) = (op, page)
        {
            let carried_out = o.outcome == "Done" && o.result != Some(0x10);
            if carried_out && (1..=7).contains(&orc) && self.migrating && !self.cmma_dirty[p] {
                self.cmma_dirty[p] = true;
                self.count += 1;
            }
            if carried_out && orc <= 7 && !self.migrating {
                self.uses_cmm = true;
            }
        }
        (o, None)
    }
}
