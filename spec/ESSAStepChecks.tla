---------------------------- MODULE ESSAStepChecks -----------------------------
(***************************************************************************)
(* Step checks of ESSA.tla, apart from its contract (ESSAProperties.tla).  *)
(*                                                                         *)
(* Each property here restates what one step of the machine does, written  *)
(* out from the sources (the ORC table, the result byte, CBRL processing,  *)
(* the reset, migration's arrival): it catches a wrong step at the step    *)
(* that takes it, but it is not a promise a user of the design relies on   *)
(* (docs/contract.md, kind b).  The contract, the intent properties with   *)
(* their THEOREMs, the refinement and the liveness, is                     *)
(* ESSAProperties.tla's.  What an engine's step must do is judged by the   *)
(* conformance suite (conformance/), and the reference                     *)
(* implementation is equal to TLC's graph, which pins every transition.    *)
(*                                                                         *)
(* The models still check these properties (their .cfg files name them,    *)
(* and each keeps its broken twin and its witness in model/manifest.json). *)
(* A mutant of ESSA.tla that only a property here catches is classed       *)
(* "step" by the mutation tooling, not "intent" (docs/mutation.md); no     *)
(* property is added here to kill a mutant.                                *)
(***************************************************************************)
EXTENDS ESSAProperties

(***************************************************************************)
(* SpecificationExceptionProp.  Sources 1: "ORCs 0-6 are always accepted, *)
(* 7 only with facility 147, anything higher raises a specification       *)
(* exception"; the 2007 machine had no ORC 7 (D104).  With CMMA enabled    *)
(* (the check before it), such an ESSA raises it and changes nothing.     *)
(***************************************************************************)
SpecificationExceptionStep ==
    (CMMAEnabled /\ lastOp'.op # "GuestEssaProblemState"
       /\ (lastOp'.orc > 7 \/ (lastOp'.orc = 7 /\ (~Facility147 \/ Impl = "Paper2007"))))
    => /\ lastOp'.outcome = "SpecificationException"
       /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, cbrl>>
SpecificationExceptionProp == [][SpecificationExceptionStep]_vars

(***************************************************************************)
(* MigrationArrivalProp.  The states a page can arrive in (sources 5: "Z,  *)
(* residency, GC and pending CBRL entries are not migrated"): no Z (the    *)
(* usage and N as they were is the contract's                              *)
(* MigrationKeepsAttributesProp); a page with content resident in the      *)
(* host, a zero page not; so content state 0 or 2 (in the new gmap always  *)
(* 2: no gmap PTE exists yet), never 3 (logically zero).  So a page that   *)
(* was Uz or Vz arrives as U or V + preserved (0x06, 0x0E), and a 2007     *)
(* guest's page_discarded test no longer sees it.  The destination's CBRL  *)
(* is empty (no pending entry travels), its host PTEs are its own, so none *)
(* carries the source's _PAGE_UNUSED (residency does not travel; sources   *)
(* 3.3: the bit is set only on a present PTE, when KVM unmaps it), and the *)
(* gmap page table exists: sources 5, QEMU applies the bytes "through      *)
(* KVM_S390_SET_CMMA_BITS"; sources 3, "A segment's page table is created  *)
(* by a fault-in, SSKE or SET_CMMA_BITS" (D320).                           *)
(***************************************************************************)
MigrationArrivalStep ==
    lastOp'.op = "Migrate" =>
        /\ cbrl' = <<>>
        /\ pageTable'
        /\ \A p \in Pages :
            /\ ~zbit'[p] /\ ~swapped'[p]
            /\ valid'[p] = (data'[p] # 0)
            /\ gmapPte'[p] = "Empty" /\ ~pteUnused'[p]
MigrationArrivalProp == [][MigrationArrivalStep]_vars

(***************************************************************************)
(* StableIfNotDiscardedProp.  Paper, section 3.2: "The state transitions   *)
(* are conditional through the SetStableIfNotDiscarded call, which only    *)
(* moves a page into stable if the page has not been discarded"; sources   *)
(* 6: ORC 6 is that call (the 2007 name ESSA_SET_STABLE_IF_NOT_DISCARDED,  *)
(* sources 1), guest requests "on a zero page likewise" set the usage      *)
(* asked for, and the guest "reads failure from 'old state = V and         *)
(* logically zero'".  An ORC 6 that completes makes the page stable unless *)
(* ESSA reports it discarded (V or P, logically zero), and then leaves its *)
(* usage alone.  Classic KVM's ORC 6 is SET_STABLE_IF_RESIDENT (sources 1, *)
(* 2: "6 valid: S, not valid: unchanged"), which a page the host swapped   *)
(* out, or an unused zero page, tells apart (D193).                        *)
(***************************************************************************)
StableIfNotDiscardedStep ==
    LET p == lastOp'.page
    IN  (lastOp'.orc = 6 /\ lastOp'.outcome \in {"Done", "Interpreted"} /\ p \in Pages)
        => usage'[p] = IF usage[p] \in {"V", "P"} /\ ReportedZero(p) THEN usage[p] ELSE "S"
StableIfNotDiscardedProp == [][StableIfNotDiscardedStep]_vars

(***************************************************************************)
(* QueuedDiscardProp.  Sources 2: KVM "appends non-resident frames that    *)
(* became U or V to the CBRL"; pgste_perform_essa: "2 U, queue if not      *)
(* valid; 3 V, queue if not valid; 4 ... not valid, Z clear, GC clear: V   *)
(* and queue", "'queue' = returns 1 so that __do_essa appends the frame to *)
(* the CBRL, and Z is set; Z is never cleared here".  Sources 3:           *)
(* dat_perform_essa "assigns Z = 'this call queued a discard', so every    *)
(* call that queues none clears Z, ORC 0 included".  The machine's own     *)
(* ESSA in the new gmap keeps Z unless it queues [INFERENCE, D101]; with   *)
(* MachineInterpretsESSA FALSE the machine interprets none (a harness that *)
(* runs dat_perform_essa itself, D101; migration mode, sources 5: "turns   *)
(* interpretation off"), so every ESSA is intercepted (D281).  Z is        *)
(* what the next ESSA reports as logically zero and what CBRL processing   *)
(* zaps on, so an ESSA that completes in KVM queues a discard exactly for  *)
(* those pages, sets Z when it does, and otherwise leaves Z as its path    *)
(* says (D228).                                                            *)
(***************************************************************************)
QueuedDiscardStep ==
    LET p == lastOp'.page
        o == lastOp'.orc
        queued == Len(cbrl') = Len(cbrl) + 1
        intercepted == ~MachineInterpretsESSA \/ lastOp'.outcome = "Done"
    IN  (KVM /\ lastOp'.outcome \in {"Done", "Interpreted"} /\ p \in Pages /\ o \in 0 .. 7) =>
            /\ queued => /\ ~EssaValid(p) /\ usage'[p] \in {"U", "V"} /\ zbit'[p]
                         /\ cbrl' = Append(cbrl, p)
            /\ (o \in {2, 3} /\ ~EssaValid(p)) => queued
            /\ (o = 4 /\ ~EssaValid(p) /\ ~zbit[p] /\ ~gc[p]) => queued
            /\ ~queued => /\ cbrl' = cbrl
                          /\ zbit'[p] = IF Gmap /\ intercepted THEN FALSE ELSE zbit[p]
QueuedDiscardProp == [][QueuedDiscardStep]_vars

(***************************************************************************)
(* CMMAResetProp.  Sources 2: "Reset (ptep_zap_unused with reset set)      *)
(* makes every page S and clears N; Z is left alone"; sources 3: "Reset    *)
(* (dat_reset_cmma) makes every page S and clears N."  A CMMA reset leaves *)
(* every page stable with N clear, and its Z, residency and content as     *)
(* they were (D233).                                                       *)
(***************************************************************************)
CMMAResetStep ==
    lastOp'.op = "HostResetCMMA" =>
        \A p \in Pages :
            /\ usage'[p] = "S" /\ ~nodat'[p] /\ zbit'[p] = zbit[p]
            /\ valid'[p] = valid[p] /\ swapped'[p] = swapped[p] /\ data'[p] = data[p]
CMMAResetProp == [][CMMAResetStep]_vars

(***************************************************************************)
(* AccessOutcomeProp.  Sources 6: "An access to a U page raises an         *)
(* addressing exception; an access to Vz the discard fault (PIC 0x1A)";    *)
(* "Sz -> Sr on first access, Sp -> Sr on access"; paper, section 2: "If  *)
(* a guest accesses a Vz or Pz page, the host will present a special      *)
(* discard fault"; sources 2: "A guest touching a dropped page gets a      *)
(* fresh zero page from the ordinary fault handler: no program            *)
(* interruption reaches the guest; there is no discard fault".  A load or *)
(* a store (the guest's, or a harness's) is interrupted exactly as that    *)
(* table says (in KVM never); otherwise it leaves the page in a frame, a   *)
(* load returning the page's content (the frame's, else the swap copy's,  *)
(* else zero), a store setting the change bit (paper 2: "Page             *)
(* modification is indicated by the page dirty bit"), and the frame       *)
(* holding the value loaded or stored (D286).                             *)
(***************************************************************************)
AccessOps == {"GuestRead", "GuestWrite", "Read", "Write"}
AccessOutcomeStep ==
    LET p == lastOp'.page
        load == lastOp'.op \in {"GuestRead", "Read"}
        logicallyZero == ~valid[p] /\ ~swapped[p]
        interruption ==
            IF KVM THEN "None"
            ELSE IF usage[p] = "U" THEN "AddressingException"
            ELSE IF usage[p] = "V" /\ logicallyZero THEN "DiscardFault"
            ELSE "None"
    IN  lastOp'.op \in AccessOps =>
            IF interruption # "None"
            THEN lastOp'.outcome = interruption
            ELSE /\ lastOp'.outcome = IF load THEN "Value" ELSE "Done"
                 /\ valid'[p] /\ data'[p] = lastOp'.value
                 /\ load => lastOp'.value = Readable(p)
                 /\ ~load => keyDirty'[p]
AccessOutcomeProp == [][AccessOutcomeStep]_vars

(***************************************************************************)
(* PageTableCreatedProp.  Sources 3: "When the gmap has no page table for  *)
(* the frame (the walk does not allocate), R1 = 0x10 for every ORC ... A   *)
(* segment's page table is created by a fault-in, SSKE or SET_CMMA_BITS";  *)
(* sources 5: QEMU applies the migrated attributes through                 *)
(* KVM_S390_SET_CMMA_BITS.  A guest's writeback is an SSKE only in a VM    *)
(* that uses storage keys (ResetChangeBit, D98).  The gmap page table      *)
(* comes into existence only in a step that faults a page in, issues SSKE  *)
(* or applies migrated attributes: not in an ESSA, nor in a VM's steps     *)
(* that touch no page table (D289).                                        *)
(***************************************************************************)
PageTableCreatedStep ==
    (~pageTable /\ pageTable') =>
        \/ lastOp'.op \in AccessOps /\ ~EssaValid(lastOp'.page)
        \/ lastOp'.op \in {"GuestWriteback", "Writeback"} /\ StorageKeys
        \/ lastOp'.op = "Migrate"
PageTableCreatedProp == [][PageTableCreatedStep]_vars

(***************************************************************************)
(* SwapCopyFromFrameProp.  Sources 6: the host's transitions into a        *)
(* preserved state are "Sr -> Sp" and "Pr -> Sp (dirty)", from a frame;   *)
(* sources 2: reclaim swaps "V and P pages ... like S pages", and "a page  *)
(* whose usage is U is dropped, not swapped".  A swap copy is written only *)
(* from a frame: a page gains one only in a step that takes it out of its  *)
(* frame, so the host never makes up content for a page it does not hold   *)
(* (D283).                                                                  *)
(***************************************************************************)
SwapCopyFromFrameStep ==
    \A p \in Pages : (~swapped[p] /\ swapped'[p]) => (valid[p] /\ ~valid'[p])
SwapCopyFromFrameProp == [][SwapCopyFromFrameStep]_vars

(***************************************************************************)
(* DiscardLeavesZeroProp.  Paper, section 2: "Logically zero (z): There is *)
(* no associated frame or backed content.  The content of the page is      *)
(* considered to be zero"; sources 2: CBRL processing, "if the usage is U  *)
(* or Z is set, the swap slot is freed and the PTE cleared", and reclaim   *)
(* drops a U page, "not swapped"; sources 3.2: the zap "drops the host PTE *)
(* if it is a swap entry"; sources 6: "a guest's U or V on Sp frees" the   *)
(* swap copy.  A step that drops a page's content (a discard: no store     *)
(* writes zero here) leaves the page logically zero, with neither a frame  *)
(* nor a swap copy: the host frees what held the content, it never keeps a *)
(* backing whose content it threw away (D321).                             *)
(***************************************************************************)
DiscardLeavesZeroStep ==
    \A p \in Pages : (Readable(p) # 0 /\ data'[p] = 0) => (~valid'[p] /\ ~swapped'[p])
DiscardLeavesZeroProp == [][DiscardLeavesZeroStep]_vars

(***************************************************************************)
(* CBRLOutcomeProp.  Sources 2: CBRL processing, "only a swap entry is     *)
(* acted on; if the usage is U or Z is set, the swap slot is freed and the *)
(* PTE cleared.  A present or empty PTE is left alone"; sources 3.2: until *)
(* the 2026 fix the zap was handed the wrong address, "at best nothing was *)
(* discarded, at worst the wrong pages".  A step that processes a CBRL      *)
(* entry records what its zap did, as an engine reports it: "Zapped" when  *)
(* it dropped the swap copy of the entry's page, "ZappedOtherPage" when of *)
(* another page, "Kept" when it dropped nothing; and an entry whose page   *)
(* has a present PTE (the host PTE in classic KVM, sources 2; the gmap PTE *)
(* in the new gmap, sources 3.2: "skip an entry with no PTE or a present   *)
(* PTE") is left alone, whatever address the zap is handed (D329).         *)
(***************************************************************************)
Zapped(q) == swapped[q] /\ ~swapped'[q]
EntryPresent(p) == IF Gmap THEN gmapPte[p] # "Empty" ELSE valid[p]
CBRLOutcomeStep ==
    LET p == lastOp'.page
    IN  lastOp'.op = "HostProcessCBRL" =>
            /\ lastOp'.outcome = IF Zapped(p) THEN "Zapped"
                                 ELSE IF \E q \in Pages \ {p} : Zapped(q) THEN "ZappedOtherPage"
                                 ELSE "Kept"
            /\ EntryPresent(p) => lastOp'.outcome = "Kept"
CBRLOutcomeProp == [][CBRLOutcomeStep]_vars

(***************************************************************************)
(* ZeroBitClearedProp.  Sources 2: "Z is cleared only by ptep_set_pte_at,  *)
(* when a PTE is installed (a fault-in)"; sources 3: dat_perform_essa      *)
(* "assigns Z = 'this call queued a discard'", and the fix "clears Z on    *)
(* every _gmap_ptep_xchg"; sources 5: Z is not migrated.  In KVM Z goes    *)
(* from set to clear only when the PTE ESSA looks at is installed or       *)
(* exchanged (classic: the host PTE of a fault-in; the new gmap: any       *)
(* change of the gmap PTE), in the new gmap's intercepted ESSA on the     *)
(* page, or on a migration's arrival.  Z is what CBRL processing zaps on   *)
(* and what ESSA reports as logically zero (D283).                         *)
(***************************************************************************)
ZeroBitClearedStep ==
    \A p \in Pages : (KVM /\ zbit[p] /\ ~zbit'[p]) =>
        \/ lastOp'.op = "Migrate"
        \/ ~Gmap /\ ~valid[p] /\ valid'[p]
        \/ Gmap /\ gmapPte'[p] # gmapPte[p]
        \/ Gmap /\ lastOp'.page = p /\ lastOp'.orc \in 0 .. 7 /\ lastOp'.outcome = "Done"
ZeroBitClearedProp == [][ZeroBitClearedStep]_vars

(***************************************************************************)
(* PteExchangeClearsZeroProp.  Sources 2: "Z is cleared only by            *)
(* ptep_set_pte_at, when a PTE is installed (a fault-in)"; sources 3.3:    *)
(* "A second fix clears Z on every _gmap_ptep_xchg: without it a page      *)
(* freed and quickly reused could be discarded by a later CBRL pass."      *)
(* ZeroBitClearedProp says where Z may go; this is where it must: in KVM a *)
(* step that installs the PTE ESSA looks at (classic: the host PTE of a    *)
(* fault-in) or changes the gmap PTE in any way (a fault-in, an unmap, a   *)
(* reclaim, aging) leaves Z clear, so that a discard queued before the     *)
(* exchange is never carried out on content the host holds after it.  The  *)
(* new gmap before the fix (StickyZero) breaks it (D310).                  *)
(***************************************************************************)
PteExchanged(p) == IF Gmap THEN gmapPte'[p] # gmapPte[p] ELSE ~valid[p] /\ valid'[p]
PteExchangeClearsZeroStep == \A p \in Pages : (KVM /\ PteExchanged(p)) => ~zbit'[p]
PteExchangeClearsZeroProp == [][PteExchangeClearsZeroStep]_vars

(***************************************************************************)
(* UnusedBitMarksUnusedProp.  Sources 3.3: "Reclaim (_gmap_unmap_pte, S8): *)
(* unmapping a present U page tries to set _PAGE_UNUSED on the host PTE so *)
(* that core mm drops the page (S10)."  The bit tells core mm that the     *)
(* guest does not need the page: it is set only where KVM unmaps the       *)
(* present gmap PTE of a page whose usage is U, never on a page in use.    *)
(* (The stale bit of CVE-2026-72412 was set that way; it went wrong by     *)
(* staying, D311.)  (D317)                                                  *)
(***************************************************************************)
UnusedBitMarksUnusedStep ==
    \A p \in Pages :
        (Gmap /\ ~pteUnused[p] /\ pteUnused'[p]) => (usage[p] = "U" /\ gmapPte[p] # "Empty")
UnusedBitMarksUnusedProp == [][UnusedBitMarksUnusedStep]_vars

(***************************************************************************)
(* RefusalProp.  Sources 1: "ESSA in problem state is a privileged-        *)
(* operation exception (PIC 2); with CMMA not enabled for the VM, an       *)
(* operation exception (PIC 1)"; handle_essa checks CMMA first (S2).  An   *)
(* ESSA from problem state is refused with PIC 2 when CMMA is enabled,     *)
(* every ESSA with PIC 1 when it is not, and a refused ESSA (any program   *)
(* interruption or the exception indication 0x10) changes nothing (D103).   *)
(* Sources 2: "A frame without a host mapping raises an addressing         *)
(* exception (PIC 5)"; sources 3: when the gmap walk finds nothing, "R1 =  *)
(* 0x10 for every ORC"; D103: the 2007 model raises an addressing          *)
(* exception.  With CMMA enabled, an ESSA on an address beyond guest       *)
(* memory is refused with the exception indication in the new gmap and an  *)
(* addressing exception elsewhere (D326).                                  *)
(***************************************************************************)
Refusals == {"OperationException", "PrivilegedOperation", "SpecificationException",
             "AddressingException", "ExceptionIndication"}
RefusalStep ==
    /\ (lastOp'.op \in EssaOps /\ ~CMMAEnabled) => lastOp'.outcome = "OperationException"
    /\ (lastOp'.op = "GuestEssaProblemState" /\ CMMAEnabled)
         => lastOp'.outcome = "PrivilegedOperation"
    /\ (lastOp'.op = "GuestEssaBeyondMemory" /\ CMMAEnabled)
         => lastOp'.outcome = IF Impl = "KVMGmap" THEN "ExceptionIndication"
                              ELSE "AddressingException"
    /\ (lastOp'.op \in EssaOps /\ lastOp'.outcome \in Refusals)
         => UNCHANGED <<usage, valid, swapped, zbit, nodat, data, keyDirty, gc, cbrl,
                       pageTable, gmapPte, pteUnused>>
RefusalProp == [][RefusalStep]_vars

SpecificationExceptionTaken == lastOp'.outcome = "SpecificationException"

MigrationOfSwappedPage   == lastOp'.op = "Migrate" /\ \E p \in Pages : swapped[p] \/ zbit[p]
\* (MigrationArrivalProp.)  A page the guest uses (believes stable) with N set migrates: the
\* no-DAT attribute it relies on for that page must arrive with it (on a free page N is
\* rewritten by the next allocation).
MigrationOfNoDatPageInUse == lastOp'.op = "Migrate" /\ \E p \in Pages : nodat[p] /\ belief[p] = "S"

EssaRefused              == lastOp'.op \in EssaOps /\ lastOp'.outcome \in Refusals
\* An ESSA that completes on a page that is not resident (where the tables differ most).
OrcOnNonResidentPage ==
    /\ lastOp'.outcome \in {"Done", "Interpreted"} /\ lastOp'.page \in Pages
    /\ lastOp'.orc \in 1 .. 7 /\ ~EssaValid(lastOp'.page)
\* (QueuedDiscardProp.)  An ESSA that completes and queues nothing on a page whose Z is set:
\* where the paths' Z rules differ (classic and the machine keep Z, the gmap's intercepted
\* path clears it).
EssaOnZeroBitPage ==
    /\ lastOp'.outcome \in {"Done", "Interpreted"} /\ lastOp'.page \in Pages
    /\ lastOp'.orc \in 0 .. 7 /\ zbit[lastOp'.page] /\ cbrl' = cbrl
\* (ResultByteProp.)  An ESSA that completes on a page with N set that is not valid for ESSA
\* (every field of R1 other than resident content at stake).
EssaReportsNoDatNotValid ==
    /\ lastOp'.outcome \in {"Done", "Interpreted"} /\ lastOp'.page \in Pages
    /\ lastOp'.orc \in 0 .. 7 /\ nodat[lastOp'.page] /\ ~EssaValid(lastOp'.page)
\* (ResultByteProp, the 2007 model.)  An ESSA that completes on a preserved page (content 2).
EssaOnSwappedPage ==
    /\ lastOp'.outcome = "Done" /\ lastOp'.page \in Pages /\ lastOp'.orc \in 0 .. 7
    /\ ~valid[lastOp'.page] /\ swapped[lastOp'.page]
\* (CMMAResetProp.)  A CMMA reset while a page has N set.
ResetOfNoDatPage == lastOp'.op = "HostResetCMMA" /\ \E p \in Pages : nodat[p]

\* (StableIfNotDiscardedProp, the guest's side.)  The guest makes stable a page it made volatile
\* (paper 3.2: the page cache's lookup of a volatile page).
MakeStableOfVolatilePage == lastOp'.op = "GuestMakeStable" /\ belief[lastOp'.page] = "V"

\* (AccessOutcomeProp.)  A load or store of a page that is unused, or volatile and logically zero:
\* where the 2007 model interrupts the access and KVM faults a fresh page in.
AccessOfDiscardedPage ==
    LET p == lastOp'.page
    IN  /\ lastOp'.op \in AccessOps /\ p \in Pages
        /\ (usage[p] = "U" \/ (usage[p] = "V" /\ ~valid[p] /\ ~swapped[p]))
\* (PageTableCreatedProp.)  The gmap page table comes into existence.
PageTableCreated == ~pageTable /\ pageTable'
\* (SwapCopyFromFrameProp.)  The host writes a page to swap.
PageSwappedOut == \E p \in Pages : ~swapped[p] /\ swapped'[p]
\* (ZeroBitClearedProp.)  Z is cleared by a step that is not an ESSA (a fault-in, an exchange
\* of the gmap PTE).
ZeroBitClearedByHost ==
    \E p \in Pages : zbit[p] /\ ~zbit'[p] /\ lastOp'.orc = NoValue /\ lastOp'.op # "Migrate"
\* (PteExchangeClearsZeroProp.)  The PTE ESSA looks at is installed or exchanged while Z is set:
\* a discard queued before may still be on the CBRL.
PteExchangedOnZeroBitPage == \E p \in Pages : zbit[p] /\ PteExchanged(p)

\* (UnusedNotSwappedProp.)  The host reclaims a page core mm is told is unused.
ReclaimOfUnusedPage ==
    /\ lastOp'.op = "HostReclaim" /\ lastOp'.page \in Pages
    /\ IF Gmap THEN pteUnused[lastOp'.page] ELSE usage[lastOp'.page] = "U"
\* (UnusedBitMarksUnusedProp.)  KVM sets _PAGE_UNUSED on a host PTE.
UnusedBitMarked == \E p \in Pages : ~pteUnused[p] /\ pteUnused'[p]

\* ORC 6 on a page that is not discarded and not stable (an unused or a volatile page).
StableIfNotDiscardedTaken ==
    /\ lastOp'.orc = 6 /\ lastOp'.outcome \in {"Done", "Interpreted"}
    /\ usage[lastOp'.page] # "S" /\ ~(usage[lastOp'.page] \in {"V", "P"} /\ ReportedZero(lastOp'.page))
\* (DiscardLeavesZeroProp.)  The host discards content the guest stored (a reclaim of an unused
\* page, a CBRL entry's zap, the 2007 model's discard on a request).
ContentDiscarded == \E p \in Pages : Readable(p) # 0 /\ data'[p] = 0
\* (CBRLOutcomeProp, D329.)  The host carries out a queued discard: processing an entry drops the
\* swap copy of the entry's page, holding content the guest stored.  Under the CBRLGuestAddress
\* bug: the zap of an entry drops another page's swap copy.
QueuedDiscardCarriedOut ==
    LET p == lastOp'.page
    IN  lastOp'.op = "HostProcessCBRL" /\ p \in Pages /\ Zapped(p) /\ Readable(p) # 0
\* A queued discard of a volatile page carried out: CBRL processing acts on Z as well as on U
\* (sources 2: "if the usage is U or Z is set").
VolatileDiscardCarriedOut == QueuedDiscardCarriedOut /\ usage[lastOp'.page] = "V"
ZapOfOtherPage ==
    lastOp'.op = "HostProcessCBRL" /\ \E q \in Pages \ {lastOp'.page} : Zapped(q)
\* (QueuedDiscardProp and ResultByteProp where the machine may interpret ESSA, D323.)  The
\* intercepted path (dat_perform_essa) on a page whose Z is set, queueing nothing: where it clears Z
\* and the machine keeps it; and the machine's own ESSA reporting a page with N set that is not
\* valid for ESSA.
InterceptedEssaOnZeroBitPage == EssaOnZeroBitPage /\ lastOp'.outcome = "Done"
InterpretedEssaReportsNoDat == EssaReportsNoDatNotValid /\ lastOp'.outcome = "Interpreted"
\* (MigrationArrivalProp, D320.)  A migration while a discard is queued on the CBRL, of a new VM
\* of the new gmap (no page table yet), of a host PTE that carries _PAGE_UNUSED.
MigrationOfQueuedDiscard == lastOp'.op = "Migrate" /\ cbrl # <<>>
MigrationOfNewVM         == lastOp'.op = "Migrate" /\ ~pageTable
MigrationOfUnusedBit     == lastOp'.op = "Migrate" /\ \E p \in Pages : pteUnused[p]

\* (QueuedDiscardProp, D323.)  A discard queued for a page whose Z an earlier queued discard set:
\* ORC 2 or 3 on a page that is not valid queues whatever Z says, once the CBRL has room again.
DiscardQueuedAgain ==
    /\ lastOp'.outcome \in {"Done", "Interpreted"} /\ lastOp'.page \in Pages
    /\ lastOp'.orc \in 0 .. 7 /\ zbit[lastOp'.page] /\ Len(cbrl') = Len(cbrl) + 1

\* (SpecificationExceptionProp, D326.)  ORC 7 without facility 147 in KVM.
NoDatWithoutFacility ==
    lastOp'.orc = 7 /\ ~Facility147 /\ Impl # "Paper2007" /\ lastOp'.page \in Pages
\* (RefusalProp, D326.)  An ESSA on an address beyond guest memory, with CMMA enabled: one that
\* would change the page (ORC 1), and an extract (ORC 0), refused too ("for every ORC, including
\* 0", sources 3).
EssaBeyondMemory == lastOp'.op = "GuestEssaBeyondMemory" /\ CMMAEnabled /\ lastOp'.orc = 1
ExtractBeyondMemory == lastOp'.op = "GuestEssaBeyondMemory" /\ CMMAEnabled /\ lastOp'.orc = 0

\* (CMMAResetProp, D324.)  A CMMA reset makes stable a page that was not, and the guest, which the
\* reset restarts, believes it stable: what GuestStableBeliefInv then checks of the reset.
ResetOfUnstablePage ==
    lastOp'.op = "HostResetCMMA" /\ \E p \in Pages : usage[p] # "S" /\ belief'[p] = "S"

=============================================================================
