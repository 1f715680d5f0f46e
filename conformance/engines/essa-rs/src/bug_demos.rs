//! For each planted bug, the shortest request sequence BUGS.md gives: replayed on the engine
//! with and without the bug, the replies must agree on every step but the last and differ
//! there (a check of the catalogue against this engine, not against the suite).

use crate::bugs::{Bug, ALL};
use crate::machine::{Impl, Machine, Op, Outcome, Profile};

/// name, profile ("KVMClassic keys f147 cbrl2 prebuilt 2p"), sequence ("Write 0; Reclaim 0").
pub const DEMOS: [(&str, &str, &str); 38] = [
    (
        "cbrl-page0-sentinel",
        "KVMClassic 1p",
        "Write 0; Reclaim 0; ESSA 0 3; ProcessCBRL",
    ),
    ("reclaim-last-page-refused", "KVMClassic 1p", "Read 0; Reclaim 0"),
    ("fault-page0-keeps-swapped", "Paper2007 1p", "Read 0; Reclaim 0; Read 0"),
    ("essa-last-page-addressing", "KVMClassic 2p", "ESSA 1 0"),
    ("essa-page0-walk-fails", "KVMClassic 1p", "ESSA 0 1"),
    ("r1-usage-from-even-page", "Paper2007 2p", "ESSA 0 2; ESSA 1 0"),
    ("fault-clears-neighbour-zbit", "KVMClassic 2p", "ESSA 1 3; Read 0"),
    (
        "cbrl-appends-stale-gfn",
        "KVMClassic 2p",
        "Write 1; Reclaim 1; ESSA 1 3; ProcessCBRL",
    ),
    ("migrate-stale-content", "KVMClassic 2p", "Write 0; Migrate"),
    (
        "reclaim-drops-neighbour-swap",
        "KVMClassic 2p",
        "Write 1; Reclaim 1; Write 0; ESSA 0 2; Reclaim 0",
    ),
    (
        "p2007-reclaim-dirty-of-page0",
        "Paper2007 2p",
        "Write 0; Read 1; ESSA 1 4; Reclaim 1",
    ),
    ("reset-cmma-skips-last", "KVMClassic 1p", "ESSA 0 2; ResetCMMA"),
    ("reset-keeps-cbrl", "KVMClassic 1p", "ESSA 0 3; reset; ESSA 0 3"),
    ("reset-keeps-migrated", "KVMClassic 1p", "Migrate; reset; Migrate"),
    (
        "cbrl-kept-entry-stays",
        "KVMClassic 1p",
        "ESSA 0 3; ProcessCBRL; ProcessCBRL",
    ),
    (
        "migrate-cbrl-not-emptied",
        "KVMClassic 1p",
        "ESSA 0 3; Migrate; ProcessCBRL",
    ),
    ("migrate-skips-last-page", "KVMClassic 1p", "ESSA 0 3; Migrate"),
    ("cbrl-dedup", "KVMClassic 1p", "ESSA 0 3; ESSA 0 3"),
    (
        "cbrl-process-takes-newest",
        "KVMClassic cbrl2 2p",
        "Write 1; Reclaim 1; ESSA 0 3; ESSA 1 3; ProcessCBRL",
    ),
    ("keys-reclaim-gc-not-copied", "KVMClassic keys 1p", "Write 0; Reclaim 0"),
    (
        "keys-writeback-keeps-gc",
        "KVMClassic keys 1p",
        "Write 0; Reclaim 0; Writeback 0",
    ),
    ("keys-migrate-gc-cleared", "KVMClassic keys 1p", "Write 0; Migrate"),
    ("keys-age-clears-dirty", "KVMGmap keys 1p", "Write 0; Age 0"),
    (
        "keys-writeback-no-pagetable",
        "KVMGmap keys 1p",
        "Writeback 0; ESSA 0 0",
    ),
    ("f147-orc7-keeps-usage", "KVMClassic f147 1p", "ESSA 0 2; ESSA 0 7"),
    ("f147-orc1-keeps-nodat", "KVMClassic f147 1p", "ESSA 0 7; ESSA 0 1"),
    (
        "f147-reset-cmma-keeps-nodat",
        "KVMClassic f147 1p",
        "ESSA 0 7; ResetCMMA",
    ),
    ("f147-migrate-drops-nodat", "KVMClassic f147 1p", "ESSA 0 7; Migrate"),
    ("f147-r1-nodat-bit-0x10", "KVMClassic f147 1p", "ESSA 0 7; ESSA 0 0"),
    ("cbrl2-reserved-slot", "KVMClassic cbrl2 1p", "ESSA 0 3; ESSA 0 3"),
    (
        "cbrl2-second-entry-overwrites",
        "KVMClassic cbrl2 1p",
        "ESSA 0 3; ESSA 0 3; ProcessCBRL; ProcessCBRL",
    ),
    (
        "cbrl2-process-zaps-all",
        "KVMClassic cbrl2 1p",
        "ESSA 0 3; ESSA 0 3; ProcessCBRL; ProcessCBRL",
    ),
    (
        "cbrl2-zbit-on-second-append-lost",
        "KVMClassic cbrl2 2p",
        "ESSA 0 3; ESSA 1 3",
    ),
    (
        "cbrl-ring-wrap",
        "KVMClassic 2p",
        "ESSA 1 3; ProcessCBRL; ESSA 1 3; ProcessCBRL; ESSA 1 3; ProcessCBRL; ESSA 1 3; ProcessCBRL; \
         Write 0; Reclaim 0; ESSA 0 3; ProcessCBRL",
    ),
    (
        "swap-slot-leak",
        "KVMClassic 1p",
        "Read 0; Reclaim 0; Read 0; Reclaim 0; Read 0; Reclaim 0; Read 0; Reclaim 0; Read 0; Reclaim 0",
    ),
    (
        "age-generation-unmap",
        "KVMGmap 1p",
        "Read 0; Age 0; Read 0; Age 0; Read 0; Age 0; Read 0; Age 0; Read 0; Age 0",
    ),
    (
        "reclaim-batch-8th",
        "KVMClassic 1p",
        "Write 0; Reclaim 0; Read 0; Reclaim 0; Read 0; Reclaim 0; Read 0; Reclaim 0; Read 0; Reclaim 0; \
         Read 0; Reclaim 0; Read 0; Reclaim 0; Read 0; Reclaim 0; Read 0",
    ),
    (
        "zero-pool-stale-frame",
        "KVMClassic 1p",
        "ESSA 0 2; Write 0; Reclaim 0; Write 0; Reclaim 0; Write 0; Reclaim 0; Write 0; Reclaim 0; \
         Write 0; Reclaim 0; Write 0; Reclaim 0; Write 0; Reclaim 0; Write 0; Reclaim 0; Read 0",
    ),
];

pub fn profile(spec: &str) -> Profile {
    let mut p = Profile {
        imp: Impl::Paper2007,
        storage_keys: false,
        facility147: false,
        cbrl_size: 1,
        sticky_zero: false,
        cbrl_guest_address: false,
        stale_unused_bit: false,
        prebuilt_page_tables: false,
        machine_interprets_essa: false,
        modern_guest: false,
        cmma_enabled: true,
        pages: 1,
    };
    for w in spec.split_whitespace() {
        match w {
            "keys" => p.storage_keys = true,
            "f147" => p.facility147 = true,
            "cbrl2" => p.cbrl_size = 2,
            "prebuilt" => p.prebuilt_page_tables = true,
            w if w.ends_with('p') && w[..w.len() - 1].parse::<usize>().is_ok() => {
                p.pages = w[..w.len() - 1].parse().unwrap()
            }
            w => p.imp = Impl::parse(w).unwrap_or_else(|| panic!("bad profile word {w}")),
        }
    }
    p
}

/// One request of a sequence; `None` is a reset.
pub fn request(text: &str) -> Option<Op> {
    let w: Vec<&str> = text.split_whitespace().collect();
    let n = |i: usize| w[i].parse::<usize>().unwrap();
    Some(match w[0] {
        "reset" => return None,
        "ESSA" => Op::Essa {
            page: Some(n(1)),
            orc: n(2) as u8,
            problem_state: false,
            beyond_memory: false,
        },
        "Reclaim" => Op::HostReclaim(n(1)),
        "ProcessCBRL" => Op::HostProcessCBRL,
        "Migrate" => Op::Migrate,
        "Read" => Op::Read(n(1)),
        "Write" => Op::Write(n(1), if w.len() > 2 { n(2) as u64 } else { 1 }),
        "Writeback" => Op::Writeback(n(1)),
        "Unmap" => Op::HostUnmapGmap(n(1)),
        "Age" => Op::HostAge(n(1)),
        "ResetCMMA" => Op::HostResetCMMA,
        other => panic!("bad request {other}"),
    })
}

/// What the driver compares of a reply: outcome, result, value and the reported pages.
fn render(m: &Machine, o: &Outcome) -> String {
    let mut s = format!("{} {:?} {:?} ", o.outcome, o.result, o.value);
    m.write_pages_with(&mut s, None);
    s
}

/// The replies of a sequence; a reset replies "reset".
pub fn replay(prof: &Profile, bug: Option<Bug>, seq: &str) -> Vec<String> {
    let mut m = Machine::new(prof.clone(), bug);
    seq.split(';')
        .map(|r| match request(r) {
            None => {
                m.reset();
                "reset".to_string()
            }
            Some(op) => {
                let o = m.step(op);
                render(&m, &o)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bug_has_a_demo_that_first_diverges_at_its_last_step() {
        assert_eq!(DEMOS.len(), ALL.len());
        for ((name, bug), (dname, prof, seq)) in ALL.iter().zip(DEMOS.iter()) {
            assert_eq!(name, dname);
            let prof = profile(prof);
            let good = replay(&prof, None, seq);
            let bad = replay(&prof, Some(*bug), seq);
            let last = good.len() - 1;
            for i in 0..last {
                assert_eq!(good[i], bad[i], "{name}: step {} differs already", i + 1);
            }
            assert_ne!(good[last], bad[last], "{name}: the last step does not differ");
        }
    }
}
