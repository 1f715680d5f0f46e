//! Planted engine bugs, each switched on by `ESSA_RS_BUG=<name>` (BUGS.md). None is on by
//! default; an unknown name stops the engine at start-up.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    // One page index only.
    CbrlPage0Sentinel,
    ReclaimLastPageRefused,
    FaultPage0KeepsSwapped,
    EssaLastPageAddressing,
    EssaPage0WalkFails,
    // Cross-page leaks.
    R1UsageFromEvenPage,
    FaultClearsNeighbourZbit,
    CbrlAppendsStaleGfn,
    MigrateStaleContent,
    ReclaimDropsNeighbourSwap,
    P2007ReclaimDirtyOfPage0,
    // Bulk operations that skip or repeat entries.
    ResetCmmaSkipsLast,
    ResetKeepsCbrl,
    ResetKeepsMigrated,
    CbrlKeptEntryStays,
    MigrateCbrlNotEmptied,
    MigrateSkipsLastPage,
    CbrlDedup,
    CbrlProcessTakesNewest,
    // Bits kept or cleared wrongly only with storage keys, facility 147, or CBRL size 2.
    KeysReclaimGcNotCopied,
    KeysWritebackKeepsGc,
    KeysMigrateGcCleared,
    KeysAgeClearsDirty,
    KeysWritebackNoPageTable,
    F147Orc7KeepsUsage,
    F147Orc1KeepsNodat,
    F147ResetCmmaKeepsNodat,
    F147MigrateDropsNodat,
    F147R1NodatBit0x10,
    Cbrl2ReservedSlot,
    Cbrl2SecondEntryOverwrites,
    Cbrl2ProcessZapsAll,
    Cbrl2ZbitOnSecondAppendLost,
    // Bugs that need ten steps or more.
    CbrlRingWrap,
    SwapSlotLeak,
    AgeGenerationUnmap,
    ReclaimBatch8th,
    ZeroPoolStaleFrame,
}

pub const ALL: [(&str, Bug); 38] = [
    ("cbrl-page0-sentinel", Bug::CbrlPage0Sentinel),
    ("reclaim-last-page-refused", Bug::ReclaimLastPageRefused),
    ("fault-page0-keeps-swapped", Bug::FaultPage0KeepsSwapped),
    ("essa-last-page-addressing", Bug::EssaLastPageAddressing),
    ("essa-page0-walk-fails", Bug::EssaPage0WalkFails),
    ("r1-usage-from-even-page", Bug::R1UsageFromEvenPage),
    ("fault-clears-neighbour-zbit", Bug::FaultClearsNeighbourZbit),
    ("cbrl-appends-stale-gfn", Bug::CbrlAppendsStaleGfn),
    ("migrate-stale-content", Bug::MigrateStaleContent),
    ("reclaim-drops-neighbour-swap", Bug::ReclaimDropsNeighbourSwap),
    ("p2007-reclaim-dirty-of-page0", Bug::P2007ReclaimDirtyOfPage0),
    ("reset-cmma-skips-last", Bug::ResetCmmaSkipsLast),
    ("reset-keeps-cbrl", Bug::ResetKeepsCbrl),
    ("reset-keeps-migrated", Bug::ResetKeepsMigrated),
    ("cbrl-kept-entry-stays", Bug::CbrlKeptEntryStays),
    ("migrate-cbrl-not-emptied", Bug::MigrateCbrlNotEmptied),
    ("migrate-skips-last-page", Bug::MigrateSkipsLastPage),
    ("cbrl-dedup", Bug::CbrlDedup),
    ("cbrl-process-takes-newest", Bug::CbrlProcessTakesNewest),
    ("keys-reclaim-gc-not-copied", Bug::KeysReclaimGcNotCopied),
    ("keys-writeback-keeps-gc", Bug::KeysWritebackKeepsGc),
    ("keys-migrate-gc-cleared", Bug::KeysMigrateGcCleared),
    ("keys-age-clears-dirty", Bug::KeysAgeClearsDirty),
    ("keys-writeback-no-pagetable", Bug::KeysWritebackNoPageTable),
    ("f147-orc7-keeps-usage", Bug::F147Orc7KeepsUsage),
    ("f147-orc1-keeps-nodat", Bug::F147Orc1KeepsNodat),
    ("f147-reset-cmma-keeps-nodat", Bug::F147ResetCmmaKeepsNodat),
    ("f147-migrate-drops-nodat", Bug::F147MigrateDropsNodat),
    ("f147-r1-nodat-bit-0x10", Bug::F147R1NodatBit0x10),
    ("cbrl2-reserved-slot", Bug::Cbrl2ReservedSlot),
    ("cbrl2-second-entry-overwrites", Bug::Cbrl2SecondEntryOverwrites),
    ("cbrl2-process-zaps-all", Bug::Cbrl2ProcessZapsAll),
    ("cbrl2-zbit-on-second-append-lost", Bug::Cbrl2ZbitOnSecondAppendLost),
    ("cbrl-ring-wrap", Bug::CbrlRingWrap),
    ("swap-slot-leak", Bug::SwapSlotLeak),
    ("age-generation-unmap", Bug::AgeGenerationUnmap),
    ("reclaim-batch-8th", Bug::ReclaimBatch8th),
    ("zero-pool-stale-frame", Bug::ZeroPoolStaleFrame),
];

/// The bug `ESSA_RS_BUG` names: `None` when unset or empty; an error for an unknown name.
pub fn from_env() -> Result<Option<Bug>, String> {
    let name = match std::env::var("ESSA_RS_BUG") {
        Ok(n) if !n.trim().is_empty() => n.trim().to_string(),
        _ => return Ok(None),
    };
    ALL.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| Some(*b))
        .ok_or_else(|| {
            format!(
                "ESSA_RS_BUG={name}: unknown bug (known: {})",
                ALL.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct() {
        for (i, (a, x)) in ALL.iter().enumerate() {
            for (b, y) in &ALL[i + 1..] {
                assert_ne!(a, b);
                assert_ne!(x, y);
            }
        }
    }
}
