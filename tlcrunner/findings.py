"""``python -m tlcrunner findings``: run the finding models of spec/ESSA.tla and write
docs/findings.md, each finding's shortest counterexample as a table of the one page's state.

The prose of each finding (what breaks, whose defect it is) lives in FINDINGS below; the traces
come from TLC on every run, so the document cannot drift from the spec.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tlcrunner.tlavalues import Record, parse_value

from . import usage
from .check import check_entry, default_library
from .finding_pictures import draw, essa_steps, generic_steps
from .fetch import default_jar
from .locations import default_manifest
from .manifest import load_manifest
from .tool_output import TraceStep
from .trace_text import format_trace


@dataclass(frozen=True)
class Finding:
    key: str
    title: str
    models: tuple[str, ...]
    whose: str
    text: str
    table: bool = True  # one page of spec/ESSA.tla as a table; else the runner's trace text
    refinement: str = ""  # the finding as a counterexample of spec/ESSARefinesPageStates.tla


FINDINGS = (
    Finding(
        "F1", "make_stable reports success on a page KVM keeps volatile",
        ("MCESSA_Finding_F1_KVMClassic", "MCESSA_Finding_F1_KVMGmap"),
        "the guest's assumption (and a departure of KVM from the paper's model)",
        "The paper's SetStableIfNotDiscarded makes a page stable unless it was discarded; KVM's "
        "ORC 6 is \"set stable if resident\" (sources 2.2, 3.1) and leaves a page that is not resident "
        "as it was. The 2007 guest decides failure only from \"old state = V + zero\", so on a "
        "volatile page that the host swapped out (V + preserved) it believes the page stable "
        "while the host still has it volatile: `GuestStableBeliefInv` fails.",
        refinement=(
            "*As a refinement counterexample* (spec/ESSARefinesPageStates.tla: ESSA mapped to the "
            "z/VM-prototype page-state machine, residency = frame, swap copy or neither; "
            "`MCESSARefines_Finding_F1_KVMClassic`, `MCESSARefines_Finding_F1_KVMGmap`, both violate "
            "`RefinesZVMStep`): ORC 3 on Sz is SetVolatile (Vz, Z set); a migration (classic) or an "
            "extract (ORC 0, the new gmap) clears Z and changes no mapped state; then ORC 6 returns "
            "0x0E (V + preserved), which the 2007 guest reads as success, and leaves the page V. That"
            " last step is the finding: the paper's SetStableIfNotDiscarded fails on the discarded "
            "page (Vz), so no step of the page-state machine reports success and keeps V. (Each "
            "finding model leaves out the steps at which the other departures show, so that its "
            "shortest counterexample ends in its own.)"
        ),
    ),
    Finding(
        "F2", "a discarded volatile page reads as zeros, without a discard fault",
        ("MCESSA_Finding_F2_KVMClassic", "MCESSA_Finding_F2_KVMGmap"),
        "the implementation, for a guest that relies on the discard fault",
        "KVM never delivers a discard fault (sources 2.5): once the CBRL entry of a volatile "
        "page is processed, the next access faults in a fresh zero page. A 2007 guest keeps the "
        "page in its page cache and reads zeros where the file's data should be: "
        "`ReadReturnsOwedInv` fails (and, if the guest then makes the page stable, it keeps the zeros "
        "as data). The modern Linux guest never issues ORC 3, which is why this does not bite "
        "today (sources 4).",
        refinement=(
            "*As a refinement counterexample* (spec/ESSARefinesPageStates.tla: ESSA mapped to the "
            "z/VM-prototype page-state machine, residency = frame, swap copy or neither; "
            "`MCESSARefines_Finding_F2_KVMClassic`, `MCESSARefines_Finding_F2_KVMGmap`, both violate "
            "`RefinesZVMStep`): ORC 3 on Sz is SetVolatile (Vz; in the new gmap a migration first "
            "creates the page table, a stuttering step); the next step, GuestRead: Value 0, is the "
            "finding: the page-state machine's Read of Vz is the discard fault, and KVM maps a fresh "
            "zero page instead. (Each finding model leaves out the steps at which the other "
            "departures show, so that its shortest counterexample ends in its own.)"
        ),
    ),
    Finding(
        "F3", "a potentially volatile page is discarded after the guest wrote it",
        ("MCESSA_Finding_F3_KVMClassic", "MCESSA_Finding_F3_KVMGmap"),
        "the implementation (the change bit is not tracked without storage keys)",
        "P exists so that the host consults the page's change bit. KVM consults GC, which it "
        "copies from the storage key only when the VM uses storage keys (sources 2.2, [INFERENCE]). "
        "Without them, ORC 4 on a written page that was swapped out sees GC = 0, turns the page "
        "into V, sets Z and queues the discard: `ModifiedPContentKeptInv` fails. With storage "
        "keys the same models hold (`MCESSA_KVMClassicKeys`, `MCESSA_KVMGmapKeys`).",
        refinement=(
            "*As a refinement counterexample* (spec/ESSARefinesPageStates.tla: ESSA mapped to the "
            "z/VM-prototype page-state machine, residency = frame, swap copy or neither; "
            "`MCESSARefines_Finding_F3_KVMClassic`, `MCESSARefines_Finding_F3_KVMGmap`, both violate "
            "`RefinesZVMStep`): The guest's store to Sz is HostZeroFill then Write (the access split "
            "in two); HostReclaim is HostPreserve (Sp, changed); the last step, ORC 4 without storage"
            " keys, is the finding: the paper's SetPotentialVolatile keeps a changed preserved page "
            "as Sp (\"the host needs to preserve the page\"), and KVM, whose GC is clear, makes it V "
            "with the swap copy queued for discard. (Each finding model leaves out the steps at which"
            " the other departures show, so that its shortest counterexample ends in its own.)"
        ),
    ),
    Finding(
        "F4", "a page reported logically zero still reads its old content",
        ("MCESSA_Finding_F4_KVMClassic", "MCESSA_Finding_F4_KVMGmap"),
        "the paper's model (its discard is atomic with the ESSA; KVM's is asynchronous)",
        "ORC 2 or 3 on a page that is not resident sets Z, so ESSA reports content 3 "
        "(logically zero), but the swap copy is freed only when the CBRL is processed; an access "
        "in between swaps the old content back in (sources 2, CBRL processing): `ReportedZeroReadsZeroInv` fails. "
        "In the new gmap the page may even be in its host frame (after a migration, or an unmap "
        "by the MMU notifier), where the CBRL processing never discards it (sources 3.2, D105). "
        "Harmless for a correct guest (it does not read pages it freed), but the state ESSA "
        "reports is not the state the guest sees.",
        refinement=(
            "*As a refinement counterexample* (spec/ESSARefinesPageStates.tla: ESSA mapped to the "
            "z/VM-prototype page-state machine, residency = frame, swap copy or neither; "
            "`MCESSARefines_Finding_F4_KVMClassic`, `MCESSARefines_Finding_F4_KVMGmap`, both violate "
            "`RefinesZVMStep`): A read of Sz is HostZeroFill then Read; HostReclaim is HostPreserve "
            "(Sp); the last step, ORC 2, is the finding: the paper's SetUnused on a preserved page "
            "frees the copy at once (Uz), and KVM sets Z and queues the discard, so the page it "
            "reports logically zero still has its swap copy: it maps to Up, a state the z/VM machine "
            "does not have. (Each finding model leaves out the steps at which the other departures "
            "show, so that its shortest counterexample ends in its own.)"
        ),
    ),
    Finding(
        "F5", "the 2007 make_volatile can make a dirty page volatile",
        ("MCLinuxGuestProtocol_Finding_F5_FlagsThenCounts",),
        "the implementation (the 2007 guest page hinting patch)",
        "The paper asks that the check of the twelve conditions and the SetVolatile be atomic "
        "with respect to SetStableIfNotDiscarded, and spec/LinuxGuestProtocol.tla's one-snapshot "
        "check satisfies every property. The 2007 patch's `__page_make_volatile` reads the page "
        "flags and the reference counts separately (`check_bits(page) && check_counts(page, "
        "offset)`): between the two reads a user that holds the page stable can dirty it and "
        "release it, and make_volatile then sets V on a dirty page: `NoVolatileWhileForbiddenInv` "
        "fails. Reading the counts first does not help by itself "
        "(`MCLinuxGuestProtocol_Finding_F5_CountsThenFlags`: the page can be freed and reused between the "
        "reads); it holds only if a page cannot be freed while its PG_state_change bit is held "
        "(`MCLinuxGuestProtocolVariants_CountsThenFlagsPinned`). Decision D36.",
        table=False,
    ),
    Finding(
        "F6", "incremental and bulk memory removal can end differently",
        ("MCMemoryDowngradeCompare_Finding_F6_AnyRoomPinned3",),
        "the seed's advice, under one move policy (decision D68)",
        "The z/VM DMD report ([Z2]) recommends removing memory incrementally. spec/MemoryDowngradeCompare.tla runs "
        "the same removal in bulk and one frame at a time and compares the outcomes (whether all "
        "of it went offline, which frames, and what every page reads). When the host may copy or "
        "page out as it likes (`MovePolicy = \"AnyRoom\"`), an incremental removal can spend the "
        "last free frame on a page it could have paged out, and then find no frame for a pinned "
        "page, which must be copied: it is rejected where the bulk removal completes "
        "(`SameOutcomeInv` fails). The outcomes agree when the removal prefers paging slots over "
        "frames (`\"SlotsFirst\"`, `MCMemoryDowngradeCompare_SlotsFirst*`) or no page to be moved "
        "is pinned (`MCMemoryDowngradeCompare_AnyRoomUnpinned*`).",
        table=False,
    ),
    Finding(
        "F7", "a page freed and reused keeps Z, and a CBRL pass discards it (fixed 2026)",
        ("MCESSA_Finding_F7_KVMGmapStickyZero",),
        "the implementation: the new gmap before the fix \"KVM: s390: always clear pgste.zero in "
        "_gmap_ptep_xchg\" (S9; Fixes: a2c17f9270cc \"KVM: s390: New gmap code\"), "
        "`Bugs = {\"StickyZero\"}` (decision D100)",
        "Today's Linux guest frees a page that is not resident (ORC 2 queues its discard and "
        "sets Z) and reuses it at once: ORC 1, interpreted by the machine, leaves Z set (D101), "
        "and the guest's store faults the page in through `_gmap_ptep_xchg`, which before the fix "
        "left Z alone. The page is now stable, holds the guest's data and still says \"discarded\". "
        "When the host swaps it out, the pending CBRL entry finds a non-present PTE with Z "
        "set and zaps the swap slot: the guest reads zeros where its data was, and "
        "`BelievedStableContentKeptInv` fails (sources 3.3). *How the spec would have caught it:* the "
        "fix is one line, `pgste.zero = 0`, in a function the ESSA table never mentions; the "
        "property that breaks is the guest's oldest assumption, that a stable page keeps its "
        "content. With the exchange's effect on Z written down as one operator (`XchgZ`) and the "
        "model checked against that property, TLC returns this trace in seconds on one page, "
        "before a guest ever ran on the code.",
    ),
    Finding(
        "F8", "the zap of a CBRL entry lands on another page (fixed 2026)",
        ("MCESSA_Finding_F8_KVMGmapCBRLGuestAddress",),
        "the implementation: the new gmap before the fix of `_essa_clear_cbrl` \"passed the guest "
        "absolute address instead of the host virtual one\" (S9; Fixes: e38c884df921 \"KVM: "
        "s390: Switch to new gmap\"), `Bugs = {\"CBRLGuestAddress\"}` (decision D100)",
        "`_essa_clear_cbrl` checks the entry's own PTE (not present; unused or Z) and then asks "
        "`gmap_helper_zap_one_page` to drop the host page at the entry's address, but handed it "
        "the guest absolute address where a host virtual address belongs. Whatever host page "
        "lives at that address is zapped if it is swapped out; when that is another guest page, "
        "a stable page the guest wrote loses its swap copy and reads as zeros: "
        "`BelievedStableContentKeptInv` fails on the other page (sources 3.2). It needs two pages, so the "
        "one-page models could not show it. *How the spec would have caught it:* the spec names "
        "the page the zap lands on (`ZapTargets`) separately from the page whose state is "
        "checked; writing the code's translation there, and checking the two-page model (seconds) "
        "against the guest's data property, finds the wrong page at once. A test of the fixed "
        "kernel with one page passes.",
    ),
    Finding(
        "F9", "_PAGE_UNUSED outlives the reuse of a page, and reclaim throws the page away: CVE-2026-72412",
        ("MCESSA_Finding_F9_KVMGmapStaleUnusedBit",),
        "the implementation: the kernel before \"s390/mm: Fix handling of _PAGE_UNUSED pte bit\" "
        "(CVE-2026-72412, 7.0.0 up to but not including 7.1.5; S9), "
        "`Bugs = {\"StaleUnusedBit\"}` (decision D100)",
        "The guest frees a resident page (ORC 2: U). Core mm then changes the page's host PTE for "
        "some other reason; KVM's MMU notifier unmaps the gmap PTE and, not knowing why, marks the "
        "host PTE `_PAGE_UNUSED`, and core mm sets the PTE again without clearing the bit. The "
        "guest reuses the page (ORC 1) and writes it; KVM has no way to clear the bit. When the "
        "host reclaims the page, `try_to_unmap_one` sees `_PAGE_UNUSED` and drops the page "
        "instead of swapping it: the guest's data is gone and `BelievedStableContentKeptInv` fails "
        "(sources 3.3). *How the spec would have caught it:* the bit is host state with a "
        "lifetime, and the spec gives it a variable (`pteUnused`) with every action that sets or "
        "clears it; a host action that unmaps without reclaiming is one of the host's ordinary "
        "moves. The guest's data property then fails on one page, six steps in, a run of "
        "seconds: the same check that keeps passing on the fixed kernel.",
    ),
    Finding(
        "F10", "the 2007 check of a new writable mapping can leave the page volatile under it",
        ("MCLinuxGuestProtocolCheckWritable_Finding_F10_KernelOrder",),
        "the implementation (the 2007 guest page hinting patch), [INFERENCE] from its code",
        "Paper 3.5: a page with a writable mapping must be potentially volatile (or stable), and "
        "\"the state change has to be done before the first writable mapping is established\". "
        "The 2007 `do_no_page` calls `__page_check_writable` (take PG_state_change, set "
        "PG_writable and P, release the bit) and only then installs and counts the entry "
        "(`set_pte_at`, `page_add_file_rmap`). `__page_reset_writable` takes the bit so that the "
        "last unmap cannot clear PG_writable under the check, but between the release and "
        "`page_add_file_rmap` the bit is free: another process's last read-only mapping goes, the "
        "reset clears the flag, the writable entry is installed behind it, and the next "
        "make_volatile sets V (`page_set_volatile(page, PageWritable(page))`): "
        "`WritableMappedNotVInv` fails, and a write through the mapping can be discarded by the "
        "host. With the entry installed before the bit is released "
        "(`MCLinuxGuestProtocolCheckWritable_UnderBit`) the property holds, and the reset's bit is "
        "what keeps it. spec/LinuxGuestProtocol.tla makes a writable mapping in one step (D38), so "
        "its own models cannot show this. Decision D274.",
        table=False,
    ),
    Finding(
        "F11", "a make_stable can wait for PG_state_change for ever",
        ("MCLinuxGuestProtocol_Finding_F11_MakeStableStarved",),
        "the paper's model (it promises a wait, not its end), of theoretical weight",
        "Paper 3.3: \"The function that makes a page stable will wait until it can acquire the "
        "new page flag\"; make_volatile only tries it. Under the fairness of spec/"
        "LinuxGuestProtocol.tla's FairSpec (the protocol's own code runs on, a process context "
        "resumes each time its CPU's handler returns) every make_volatile returns and every "
        "holder lets the bit go, yet a waiting make_stable need not get it: one CPU locks, "
        "writes back and unlocks the page again and again, each unlock a make_volatile that "
        "takes the bit; each time it lets the bit go, the end-of-I/O interrupt of its writeback "
        "is running on the waiting CPU, whose process context resumes only once the bit is "
        "taken again. PG_state_change is a test-and-set bit, not a queue. "
        "`MakeStableCompletesProp` fails; it holds where interrupts do not recur "
        "(`MCLinuxGuestProtocol_LivenessLockOnly`: users that only lock and unlock the page). "
        "docs/contract.md.",
        table=False,
    ),
    Finding(
        "F12", "a memslot deleted during migration leaves its dirty pages in remaining",
        ("MCESSAMigrationVMM_Finding_F12_SlotDelete",),
        "the implementation (Linux 6.12's KVM), read from its code and reproduced through it",
        "The API documentation says a GET's `remaining` \"will indicate the total number of dirty "
        "CMMA values still remaining\", and QEMU GETs until it is 0 (sources 5). "
        "`kvm_s390_vm_start_migration` sets `cmma_dirty_pages` to the number of pages of every "
        "memslot; `__do_essa` raises it and `kvm_s390_get_cmma` lowers it as bits are set and "
        "cleared. Deleting a memslot frees its second dirty bitmap with it (`kvm_free_memslot`), "
        "and neither `kvm_arch_prepare_memory_region` (which stops migration only for a memslot "
        "created or changed without dirty logging) nor `kvm_arch_commit_memory_region` (which only "
        "unmaps the segment on `KVM_MR_DELETE`) lowers the count for the bits it held. After the "
        "deletion every GET answers a `remaining` that counts pages no longer there, and no GET can "
        "bring it to 0: `RemainingIsDirtyCountProp` fails, three steps in. What it costs: QEMU's "
        "estimate of what is left never reaches 0 until the next start resets the count; the final "
        "pass still ends, since it stops on a batch of no values. A fix: on `KVM_MR_DELETE` in "
        "migration mode, subtract the number of bits set in the old memslot's second bitmap from "
        "`cmma_dirty_pages` before it is freed (or stop migration mode, as a memslot without "
        "logging does). The models that hold take the fix (`SlotDeleteFix`, D423)."
        " Confirmed through the kernel's own code: kernel-check's VMM pass "
        "(conformance/engines/linux/vmm_check.py) runs Linux 6.12.117's "
        "`kvm_s390_vm_start_migration`, `kvm_arch_prepare_memory_region`, "
        "`kvm_arch_commit_memory_region` and `kvm_s390_get_cmma_bits` (arch/s390/kvm/kvm-s390.c "
        "lines 1149-1184, 5821-5871, 5873-5901, 2317-2367; kvm_main.c's memslot path, which frees"
        " the bitmap, is the harness's host model) on memslot 0 of three pages at gfn 0 and "
        "memslot 1 of one page at gfn 256: `MigrationStart` leaves `cmma_dirty_pages=4` and every"
        " bit set; `SlotDelete` of memslot 1 runs the two hooks and leaves `cmma_dirty_pages=4`; "
        "`Get` of 3 from gfn 0 sends the three pages of memslot 0 and answers `remaining` 1; "
        "every later `Get` answers start 3 (the end of memory), no values, `remaining` 1, with no"
        " bit set in any bitmap. The pass replays this witness first and checks the kernel "
        "against the spec with `SlotDeleteFix` FALSE when it reproduces.",
        table=False,
    ),
    Finding(
        "F13", "KVM's CMMA selftest compares only the first value of each batch",
        (),
        "the kernel's own test (tools/testing/selftests/kvm/s390x/cmma_test.c, Linux 6.12)",
        "`assert_cmma_dirty` checks the values a GET returned with "
        "`for (size_t i = 0; i < dirty_gfn_count; i++) TEST_ASSERT_EQ(cmma_value_buf[0], 0x0);` "
        "(line 499): the loop runs over `i` and compares element 0 every time, so of the 527 "
        "values the nine batches of `test_get_skip_holes` return, 9 are compared. A GET that "
        "returned the right first value and wrong ones after it (a peek or GET that stops "
        "advancing, a batch that reads another page's PGSTE) passes the selftest. The spec's "
        "oracle closes the gap: tests/test_kernel_selftest_cmma.py replays the selftest's "
        "page-level tests against the reference implementation and checks every value of every "
        "batch (all 527), and `PeekReportsCurrentProp` and `MCESSAMigration_Twin_PeekStuck` state "
        "and check what a peek returns page by page. The fix in the selftest is `cmma_value_buf[i]` "
        "(D424).",
        table=False,
    ),
    Finding(
        "F14", "a page freed while no gmap PTE maps it is swapped out, and its swap slot stays taken",
        ("MCESSA_Finding_F14_KVMGmapGivenUpSwapped",),
        "the implementation (the new gmap, S6 to S8, read in gregkh/linux@d0f2eb44's "
        "arch/s390/kvm/gmap.c and the pinned priv.c), [INFERENCE] from its code",
        "Classic KVM's reclaim reads the PGSTE with the host PTE: `ptep_xchg_commit` hands core mm "
        "`_PAGE_UNUSED` for every page whose usage is U, and `try_to_unmap_one` drops such a page "
        "instead of swapping it (sources 2, S10). The new gmap keeps the PGSTEs beside its own page "
        "tables and marks the host PTE only from the MMU notifier: `_gmap_unmap_pte` calls "
        "`gmap_helper_try_set_pte_unused` under `if (ptep->s.pr && pgste.usage == "
        "PGSTE_GPS_USAGE_UNUSED)`, so only while the gmap PTE is present (sources 3.3). A page whose "
        "usage is U and whose host page is resident while no gmap PTE maps it (on a migration's "
        "destination, where QEMU wrote the page and the guest has not touched it since; or after "
        "an earlier unmap by the notifier) is swapped out like a stable page. The CBRL does not "
        "free the slot: `_essa_clear_cbrl` hands an entry to `gmap_helper_zap_one_page`, which drops "
        "only a swap entry, so the entry of a page still resident when the list is processed drops "
        "nothing (sources 3.2), and a page freed while its gmap PTE was valid queued no entry at "
        "all. The slot stays taken until the guest reuses the page: `GivenUpPageFreedProp` fails "
        "under HostFairSpec, the intercepted path with the host's fairness. The guest writes and "
        "frees the page while the gmap PTE maps it, the VM migrates, and the destination's host "
        "reclaims the page to swap. What it costs: no data (the guest is owed nothing of a U "
        "page), but a swap write and a slot for each such page, the saving CMMA exists for ([Z1]; "
        "sources 2: \"a page whose usage is U is dropped, not swapped\"). Classic KVM keeps the "
        "property (`MCESSA_KVMClassicGivenUpLiveness`); on the machine's path the same loss shows "
        "in `MCESSA_KVMGmapGivenUpScenario`. A fix [INFERENCE]: mark the host PTE in "
        "`_gmap_unmap_pte` whenever the usage is U, present gmap PTE or not "
        "(`gmap_helper_try_set_pte_unused` sets the bit only on a present host PTE since the "
        "CVE-2026-72412 fix, and `set_pte` clears it when the page is set again); whether the "
        "notifier's walk reaches a gmap PTE that is already empty is not checked here, and if it "
        "does not, the notifier needs to read the PGSTE of the range itself (D408). With that "
        "fix the new gmap keeps the promise: `MCESSA_KVMGmapF14FixGivenUpLiveness` and "
        "`MCESSA_KVMGmapF14FixGivenUpLivenessTwoPages` check `GivenUpPageFreedProp` under "
        "F14FixHostFairSpec, the same machine with the fix's reclaim (D446).",
        table=False,
    ),
)

HEADER = """# Findings: where real implementations break the model's assumptions

Generated by `python -m tlcrunner findings` (`make findings`) from TLC's shortest
counterexamples (F1-F4, F7-F9 and F14 on spec/ESSA.tla, F5, F10 and F11 on spec/LinuxGuestProtocol.tla, F6 on
spec/MemoryDowngradeCompare.tla, F12 on spec/ESSAMigrationVMM.tla; F13, a gap in KVM's own selftest,
has no model); do not edit by hand. Each counterexample is drawn as a picture
(docs/findings/, one per model: the steps down the page in the lane of whoever took them, the
guest's or the host's, or each CPU's, and the state after each step beside it; the last step, in
red, is the one that violates the property), followed by the same trace as a table. Each finding
names the models that
reproduce it (in model/manifest.json, run by `make check`), the property that fails, and whose
defect it is: the implementation's, the guest's assumptions, or the paper's model. "Sources x" is
section x of [docs/sources.md](sources.md). The 2007 model (`MCESSA_Paper2007`) keeps every
property; the new gmap with the three 2026 fixes (`MCESSA_KVMGmapFixed`, `MCESSA_KVMGmapFixedTwo`)
keeps every property F7-F9 break.

Columns of the tables on spec/ESSA.tla: the step, with its operation code, and for ESSA whether the
machine interpreted it; R1, the byte ESSA returned (the state before it: content 0 resident,
2 preserved, 3 zero; usage 0 S, 4 U, 8 P, 12 V; 0x10 the exception indication); each page in the
two-letter notation (usage S U V P, then the content state ESSA reports: r resident, p preserved,
z logically zero), then where its content is (frame or swap, with the value, or none), and its
flags: Z, N, C (the storage key's change bit), GC, and for the new gmap its gmap PTE (valid, aged,
empty) and UNUSED (`_PAGE_UNUSED` on the host PTE); whether the gmap page table exists; the CBRL;
and the guest's view of each page (the usage it believes, what it is owed, "mod" for stores not
written back).
"""


def _flag(b: Any) -> str:
    return "yes" if b is True else "no" if b is False else str(b)


def _page_cell(v: dict[str, Any], p: Any, gmap: bool, kvm: bool) -> str:
    """One page in the two-letter notation, then where its content is and its flags."""
    valid = v["valid"][p] is True
    swapped = v["swapped"][p] is True
    essa_valid = v["gmapPte"][p] == "Valid" if gmap else valid
    if essa_valid:
        content = "r"
    elif kvm:
        content = "z" if v["zbit"][p] is True else "p"
    else:
        content = "p" if swapped else "z"
    where = f"frame {v['data'][p]}" if valid else f"swap {v['data'][p]}" if swapped else "none"
    flags = [name for name, var in (("Z", "zbit"), ("N", "nodat"), ("C", "keyDirty"), ("GC", "gc"))
             if v[var][p] is True]  # fmt: skip
    if gmap:
        flags.append(f"gmap {str(v['gmapPte'][p]).lower()}")
        if v["pteUnused"][p] is True:
            flags.append("UNUSED")
    return f"{v['usage'][p]}{content} ({where}{'; ' + ', '.join(flags) if flags else ''})"


def _guest_cell(v: dict[str, Any], p: Any) -> str:
    owed = v["owed"][p]
    text = f"{v['belief'][p]}, owed {'-' if owed == -1 else owed}"
    return text + (", mod" if v["modified"][p] is True else "")


def render(trace: list[TraceStep], impl: str) -> str:
    """The trace of a model of spec/ESSA.tla as a table, one column per page and per view."""
    gmap, kvm = impl == "KVMGmap", impl != "Paper2007"
    states: list[dict[str, Any]] = [
        {k: parse_value(t) for k, t in step.state.items()} for step in trace
    ]
    pages = sorted(states[0]["usage"], key=str)
    many = len(pages) > 1

    def named(title: str, p: Any) -> str:
        return f"{title} {p}" if many else title

    head = (["#", "step", "R1"] + [named("page", p) for p in pages]
            + (["page table"] if gmap else []) + ["CBRL"] + [named("guest", p) for p in pages])  # fmt: skip
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for step, v in zip(trace, states, strict=True):
        op = v["lastOp"]
        assert isinstance(op, Record)
        name = "Init" if op["op"] == "Init" else str(op["op"])
        if many and op["page"] in pages:
            name += f" {op['page']}"
        if isinstance(op["orc"], int) and op["orc"] >= 0:
            name += f" (ORC {op['orc']})"
        if op["outcome"] not in ("Done", "None"):
            name += f": {op['outcome']}"
            if op["outcome"] == "Value":
                name += f" {op['value']}"
        r1 = f"0x{op['result']:02X}" if isinstance(op["result"], int) and op["result"] >= 0 else ""
        cbrl = ", ".join(str(x) for x in v["cbrl"]) if v["cbrl"] else ""
        cells = ([str(step.index), name, r1] + [_page_cell(v, p, gmap, kvm) for p in pages]
                 + ([_flag(v["pageTable"])] if gmap else []) + [cbrl]
                 + [_guest_cell(v, p) for p in pages])  # fmt: skip
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _impl(entry: Any) -> str:
    """The Impl constant of a model of spec/ESSA.tla, read from its .cfg."""
    cfg = (default_manifest().parent / entry.config).read_text(encoding="utf-8")
    for line in cfg.splitlines():
        key, _, value = line.strip().partition("=")
        if key.strip() == "Impl":
            return str(value.strip().strip('"'))
    raise ValueError(f"{entry.config}: no Impl constant")


def picture(f: Finding, name: str, trace: list[TraceStep], violated: str, impl: str | None,
            back_to_state: int | None = None, stuttering: bool = False) -> str:
    """The SVG of model ``name``'s counterexample of finding ``f`` (``impl``: the Impl of a model
    of spec/ESSA.tla, else None). A liveness counterexample ends in a loop (back to a state) or
    in stuttering, which the subtitle says."""
    title = f"{f.key}. {f.title}"
    if back_to_state is not None:
        end = f"then back to state {back_to_state - 1} for ever: {violated} fails"
    elif stuttering:
        end = f"then nothing more happens: {violated} fails"
    else:
        end = f"the last violates {violated}"
    subtitle = f"{name}: TLC's shortest counterexample, {len(trace) - 1} steps; {end}"
    if impl is None:
        steps = generic_steps(trace)
        cpus = sorted({s.lane for s in steps if s.lane.startswith("CPU ")})
        return draw(title, subtitle, steps, (*cpus, "bulk removal", "incremental removal"))
    gmap, kvm = impl == "KVMGmap", impl != "Paper2007"
    steps = essa_steps(trace, lambda v, p: _page_cell(v, p, gmap, kvm), _guest_cell)
    return draw(title, subtitle, steps, ("guest", "host"))


def picture_drift(entry: Any, row: Any, pictures: Path) -> str:
    """For a finding's model: why its committed picture (``pictures``/<name>.svg) is not what
    this run's counterexample draws ("" when it is, or when the model is no finding's, or the
    picture is not there, as in an installed package). The run that checks the model checks its
    picture, so no second run is needed for it."""
    finding = next((f for f in FINDINGS if entry.name in f.models), None)
    committed = pictures / f"{entry.name}.svg"
    if finding is None or not committed.is_file() or not row.trace:
        return ""
    impl = _impl(entry) if finding.table else None
    drawn = picture(finding, entry.name, row.trace, str(row.violated), impl, row.back_to_state,
                    row.stuttering)  # fmt: skip
    if drawn == committed.read_text(encoding="utf-8"):
        return ""
    return f"{committed} is not what this counterexample draws: run `make findings`"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=usage.prog("python -m tlcrunner findings", "findings"),
        description="Regenerate docs/findings.md: every finding's models checked with TLC, "
        "their counterexamples drawn.",
        epilog="exit status:\n"
        "  0    written\n"
        "  1    a model did not reproduce its finding (nothing written)\n"
        "  2    usage error: bad option",
        formatter_class=usage.Formatter,
    )
    parser.add_argument("--out", type=Path, default=Path("docs/findings.md"),
                        help="the page to write (default %(default)s)")
    parser.add_argument("--pictures", type=Path, default=None,
                        help="where the SVGs go (default: the folder 'findings' beside --out)")
    args = parser.parse_args(argv)
    pictures: Path = args.pictures or args.out.parent / "findings"
    pictures.mkdir(parents=True, exist_ok=True)
    manifest = load_manifest(default_manifest())
    entries = {e.name: e for e in manifest.entries}
    jar, library = default_jar(), default_library(manifest)
    parts = [HEADER]
    for f in FINDINGS:
        parts.append(f"## {f.key}. {f.title}\n\n*Whose defect:* {f.whose}.\n\n{f.text}\n")
        for name in f.models:
            row = check_entry(entries[name], jar=jar, library=library)
            if not row.as_expected or not row.trace:
                print(f"error: {name} did not reproduce its finding: {row.note}", file=sys.stderr)
                return 1
            impl = _impl(entries[name]) if f.table else None
            shown = render(row.trace, impl) if impl is not None else (
                "```\n" + format_trace(row.trace, row.back_to_state, row.stuttering) + "\n```"
            )
            svg = pictures / f"{name}.svg"
            svg.write_text(picture(f, name, row.trace, str(row.violated), impl, row.back_to_state,
                                   row.stuttering), encoding="utf-8")  # fmt: skip
            link = f"{pictures.name}/{svg.name}"
            parts.append(f"`{name}` (violates `{row.violated}`, {len(row.trace) - 1} steps):\n\n"
                         f"![{f.key}: {name}, guest and host steps in lanes]({link})\n\n"
                         f"{shown}\n")  # fmt: skip
        if f.refinement:
            parts.append(f.refinement + "\n")
    args.out.write_text("\n".join(parts), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0
