-------------------------------- MODULE MCESSA --------------------------------
(***************************************************************************)
(* Models MCESSA_*.cfg of spec/ESSA.tla: the 2007 model, which keeps every *)
(* guest assumption, and the findings in the KVM implementations.  The     *)
(* specifications the models run are spec/'s (ESSA.tla's Spec and          *)
(* FairSpec, ESSABareInstruction.tla's InstructionSpec, ContractSpec and   *)
(* CBRLSpec); here are only the symmetry, the broken twins (an operator a  *)
(* .cfg overrides, or a specification that adds the twin's broken step to  *)
(* Next) and the witnesses.                                                *)
(*                                                                         *)
(* Symmetry over pages: every action and property treats pages alike; the *)
(* CBRL holds pages, and permuting them permutes its entries.             *)
(***************************************************************************)
EXTENDS ESSAStepChecks, ESSABareInstruction, TLC

Symmetry == Permutations(Pages)

\* Broken twin of SpecificationExceptionProp: ORC 7 accepted without facility 147.
SpecificationExceptionIgnoringFacility(orc) == orc > 7

\* Broken twin of MigrationKeepsStableContentProp: a RAM migration that copies
\* only resident pages, so a stable page the host swapped out arrives as zeros.
MigratedContentResidentOnly(p) == IF valid[p] THEN data[p] ELSE 0

\* Broken twin of MigrationArrivalProp: attributes that carry Z as well.
ArrivalZCarried(p) == zbit[p]

\* Broken twin of SpecificationExceptionProp under D104: the 2007 machine accepting
\* ORC 7 when facility 147 is set (a no-op, as the reference once had it).
SpecificationExceptionFacilityOnly(orc) == orc > 7 \/ (orc = 7 /\ ~Facility147)

\* Broken twin of ChangeBitTrackedInv (D99): GC cleared on arrival, the keys' change bit kept.
ArrivalGCCleared(p) == FALSE

\* Broken twin of GCClearWithoutKeysInv (D199): GC set from the change bit on arrival whether
\* or not the VM uses storage keys.
ArrivalGCWithoutKeys(p) == keyDirty[p]

\* Broken twin of OrcContractProp (D199): an ORC 7 that makes the page stable but leaves N as it
\* was (SET_STABLE for SET_STABLE_NODAT).
EssaEffectNoDatIgnored(orc, p) ==
    IF orc = 7 THEN Effect("S", nodat[p], zbit[p], FALSE, FALSE)
    ELSE IF Impl = "KVMClassic" THEN ClassicEffect(orc, p)
    ELSE GmapEffect(orc, p)

\* Broken twin of QueuedDiscardProp (D228): the new gmap's intercepted path keeping Z when it
\* queues nothing, as classic KVM's does (the rule of sources 2 in place of sources 3's).
EssaEffectGmapKeepsZ(orc, p) == [GmapEffect(orc, p) EXCEPT !.z = @ \/ zbit[p]]

\* Broken twin of ResultByteProp (D230): R1 without the no-DAT bit.
ResultByteWithoutNoDat(p) == ContentBits(p) + UsageBits(usage[p])

\* Broken twin of UnwrittenContentKeptInv (D231): a 2007 guest that stores to a page it made
\* volatile, without making it stable first.
GuestWriteVolatile(p) ==
    /\ belief[p] = "V"
    /\ ~AccessFault(p)
    /\ WriteAccess("GuestWrite", p, Written)
    /\ owed' = [owed EXCEPT ![p] = Written]
    /\ modified' = [modified EXCEPT ![p] = TRUE]
    /\ UNCHANGED belief
\* Broken twin of AddressingExceptionOnlyIfUnusedInv: a 2007 host that raises the addressing
\* exception on every access, whatever the page's usage.
AddressingExceptionEverywhere(p) == ~KVM

WriteVolatileSpec == Init /\ [][Next \/ \E p \in Pages : GuestWriteVolatile(p)]_vars

\* Broken twin of GuestAccessInUseProp (D234): a 2007 guest that reads a page after freeing it.
GuestReadFreed(p) == belief[p] = "U" /\ ReadAccess("GuestRead", p) /\ UNCHANGED GuestVars
ReadFreedSpec == Init /\ [][Next \/ \E p \in Pages : GuestReadFreed(p)]_vars

\* Broken twin of GuestDirtyRecordInv (D247): a 2007 guest that marks a page clean without
\* writing it back (no SSKE: the change bit stays set).
GuestCleanWithoutWriteback(p) ==
    /\ modified[p]
    /\ Record("GuestWriteback", p, NoValue, NoValue, "Done", NoValue)
    /\ modified' = [modified EXCEPT ![p] = FALSE]
    /\ UNCHANGED <<owed, belief>>
    /\ UNCHANGED HostVars
CleanWithoutWritebackSpec == Init /\ [][Next \/ \E p \in Pages : GuestCleanWithoutWriteback(p)]_vars

\* Broken twin of GuestOrcProp (D235): a guest whose allocation issues SET_UNUSED.
GuestAllocIssuingOrc2(p) == ESSA("GuestAlloc", 2, p) /\ UNCHANGED GuestVars
AllocOrc2Spec == Init /\ [][Next \/ \E p \in Pages : GuestAllocIssuingOrc2(p)]_vars

\* Broken twin of AccessOutcomeProp (D286): KVM presenting the 2007 model's discard fault on Vz,
\* which sources 2 says never reaches a KVM guest.
DiscardFaultInKVM(p) == usage[p] = "V" /\ ~valid[p] /\ ~swapped[p]

\* Broken twin of PageTableCreatedProp (D289): a writeback that creates the gmap page table in a
\* VM without storage keys, where it issues no SSKE.
WritebackCreatingPageTable(p) ==
    /\ keyDirty' = [keyDirty EXCEPT ![p] = FALSE]
    /\ pageTable' = TRUE
    /\ Record("Writeback", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, gc, cbrl, gmapPte, pteUnused>>
    /\ UNCHANGED GuestVars
WritebackCreatingPageTableSpec ==
    Init /\ [][Next \/ \E p \in Pages : WritebackCreatingPageTable(p)]_vars

\* Broken twin of SwapCopyFromFrameProp (D283): a reclaim of a page that is in no frame, which
\* writes a swap copy of nothing.
ReclaimNotResident(p) ==
    /\ ~valid[p] /\ ~swapped[p]
    /\ swapped' = [swapped EXCEPT ![p] = TRUE]
    /\ Record("HostReclaim", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, zbit, nodat, data, keyDirty, gc, cbrl, pageTable, gmapPte,
                   pteUnused>>
    /\ UNCHANGED GuestVars
ReclaimNotResidentSpec == Init /\ [][Next \/ \E p \in Pages : ReclaimNotResident(p)]_vars

\* Broken twin of ZeroBitClearedProp (D283): the new gmap's host clearing Z of a page whose gmap
\* PTE is already gone, with no _gmap_ptep_xchg.
ZeroBitLost(p) ==
    /\ Gmap /\ gmapPte[p] = "Empty" /\ zbit[p]
    /\ zbit' = [zbit EXCEPT ![p] = FALSE]
    /\ Record("HostReclaim", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, nodat, data, keyDirty, gc, cbrl, pageTable, gmapPte,
                   pteUnused>>
    /\ UNCHANGED GuestVars
ZeroBitLostSpec == Init /\ [][Next \/ \E p \in Pages : ZeroBitLost(p)]_vars

\* Broken twin of GmapPteResidentInv (D283): aging that makes a present gmap PTE where there was
\* none.
AgeWithoutPte(p) ==
    /\ Gmap /\ gmapPte[p] = "Empty"
    /\ gmapPte' = [gmapPte EXCEPT ![p] = "Aged"]
    /\ Record("HostAge", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, keyDirty, gc, cbrl, pageTable,
                   pteUnused>>
    /\ UNCHANGED GuestVars
AgeWithoutPteSpec == Init /\ [][Next \/ \E p \in Pages : AgeWithoutPte(p)]_vars

\* Broken twin of UnusedBitPresentInv (D311): KVM's helper setting _PAGE_UNUSED on the host PTE of an
\* unused page the host holds in no frame (a swap entry), which the CVE-2026-72412 fix forbids
\* ("sets it only on present PTEs").
UnusedBitOnAbsentPte(p) ==
    /\ Gmap /\ ~valid[p] /\ usage[p] = "U"
    /\ pteUnused' = [pteUnused EXCEPT ![p] = TRUE]
    /\ Record("HostUnmapGmap", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, keyDirty, gc, cbrl, pageTable, gmapPte>>
    /\ UNCHANGED GuestVars
UnusedBitOnAbsentPteSpec == Init /\ [][Next \/ \E p \in Pages : UnusedBitOnAbsentPte(p)]_vars

\* Broken twin of UnusedNotSwappedProp (D315): classic KVM's reclaim of an unused page writing it
\* to swap, as before "mm: add support for discard of unused ptes" (S4).
ReclaimSwappingUnused(p) ==
    /\ Impl = "KVMClassic" /\ valid[p] /\ usage[p] = "U"
    /\ valid' = [valid EXCEPT ![p] = FALSE]
    /\ swapped' = [swapped EXCEPT ![p] = TRUE]
    /\ gc' = [gc EXCEPT ![p] = SavedGC(p)]
    /\ Record("HostReclaim", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, zbit, nodat, data, keyDirty, cbrl, pageTable, gmapPte, pteUnused>>
    /\ UNCHANGED GuestVars
ReclaimSwappingUnusedSpec == Init /\ [][Next \/ \E p \in Pages : ReclaimSwappingUnused(p)]_vars

\* Broken twin of GivenUpPageFreedProp: the same reclaim, a host under pressure that writes the
\* unused pages it reclaims to swap; the slot stays taken while the guest does not use the page.
ReclaimSwappingUnusedFairSpec ==
    ReclaimSwappingUnusedSpec /\ InterceptedFairness
    /\ \A p \in Pages : WF_vars(GivenUp(p) /\ (HostReclaim(p) \/ ReclaimSwappingUnused(p)))

\* Broken twin of UnusedBitMarksUnusedProp (D317): KVM's MMU notifier setting _PAGE_UNUSED as it
\* unmaps the present gmap PTE of a page in use.
UnmapMarkingUsedPage(p) ==
    /\ Gmap /\ gmapPte[p] # "Empty" /\ usage[p] # "U"
    /\ gmapPte' = [gmapPte EXCEPT ![p] = "Empty"]
    /\ zbit' = [zbit EXCEPT ![p] = XchgZ(p)]
    /\ gc' = [gc EXCEPT ![p] = SavedGC(p)]
    /\ pteUnused' = [pteUnused EXCEPT ![p] = TRUE]
    /\ Record("HostUnmapGmap", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, nodat, data, keyDirty, cbrl, pageTable>>
    /\ UNCHANGED GuestVars
UnmapMarkingUsedPageSpec == Init /\ [][Next \/ \E p \in Pages : UnmapMarkingUsedPage(p)]_vars

\* Broken twins of DiscardLeavesZeroProp (D321) and CBRLOutcomeProp (D329): CBRL processing that
\* throws away the content of a discarded page and keeps its swap slot (keepSlot), or records
\* the zap it carried out as "Kept".
TwinZap(keepSlot, outcome) ==
    /\ cbrl # <<>>
    /\ LET p == Head(cbrl)
       IN  /\ ~valid[p] /\ swapped[p] /\ (usage[p] = "U" \/ zbit[p])
           /\ swapped' = IF keepSlot THEN swapped ELSE [swapped EXCEPT ![p] = FALSE]
           /\ data' = [data EXCEPT ![p] = 0]
           /\ Record("HostProcessCBRL", p, NoValue, NoValue, outcome, NoValue)
    /\ cbrl' = Tail(cbrl)
    /\ UNCHANGED <<usage, valid, zbit, nodat, keyDirty, gc, pageTable, gmapPte, pteUnused>>
    /\ UNCHANGED GuestVars
ZapKeepingSwapSlotSpec == Init /\ [][Next \/ TwinZap(TRUE, "Zapped")]_vars
ZapRecordedKeptSpec == Init /\ [][Next \/ TwinZap(FALSE, "Kept")]_vars
\* The first of them under the host's fairness (HostFairSpec, ESSA.tla): the CBRL is worked off,
\* by either zap, and a given-up page in a frame is reclaimed; a page whose slot the zap kept
\* stays given up and backed (GivenUpPageFreedProp).
ZapKeepingSwapSlotFairSpec ==
    ZapKeepingSwapSlotSpec /\ WF_vars(HostProcessCBRL \/ TwinZap(TRUE, "Zapped")) /\ PressureFairness

\* Twin of the aging scenario (NoAgedPageReportedPreserved, spec/ESSAProperties.tla): aging that
\* leaves the gmap PTE valid.
AgedPteValid == "Valid"

\* The witness of NoAgedPageReportedPreserved where it is expected to hold, in
\* the twin (model/manifest.json, D130): an extract of a resident page whose
\* gmap PTE is what aging leaves (AgedPte, "Valid" in the twin).
AgedPageExtracted ==
    /\ lastOp.op = "GuestExtract" /\ lastOp.outcome \in {"Done", "Interpreted"}
    /\ lastOp.page \in Pages /\ valid[lastOp.page] /\ gmapPte[lastOp.page] = AgedPte


\* Broken twin of QueuedDiscardProcessedProp: a CBRL pass that stops at the first entry it
\* must skip (its page is resident again, or neither U nor Z) instead of going on to the
\* next, and leaves it at the head of the list: that entry, and every one behind it, stays
\* queued for ever, and a full list blocks every ESSA that would queue.
HostProcessCBRLStopsAtKept ==
    /\ cbrl # <<>>
    /\ LET p == Head(cbrl)
           asked == ~valid[p] \/ (Gmap /\ gmapPte[p] = "Empty")
       IN  \E t \in ZapTargets(p) :
           LET zap == asked /\ (usage[p] = "U" \/ zbit[p]) /\ t # NoPage /\ ~valid[t] /\ swapped[t]
           IN  /\ zap
               /\ swapped' = [swapped EXCEPT ![t] = FALSE]
               /\ data' = [data EXCEPT ![t] = 0]
               /\ Record("HostProcessCBRL", p, NoValue, NoValue,
                         IF t = p THEN "Zapped" ELSE "ZappedOtherPage", NoValue)
    /\ cbrl' = Tail(cbrl)
    /\ UNCHANGED <<usage, valid, zbit, nodat, keyDirty, gc, pageTable, gmapPte, pteUnused,
                   owed, belief, modified>>

\* Broken twin of GuestStableBeliefInv and CMMAResetProp under a reset (D106): a CMMA reset
\* that leaves every page's usage as it was.
HostResetCMMAKeepingUsage ==
    /\ KVM
    /\ nodat' = [p \in Pages |-> FALSE]
    /\ belief' = [p \in Pages |-> "S"]
    /\ owed' = [p \in Pages |-> NoValue]
    /\ modified' = [p \in Pages |-> FALSE]
    /\ Record("HostResetCMMA", NoPage, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, zbit, data, keyDirty, gc, cbrl, pageTable, gmapPte,
                   pteUnused>>

\* Broken twin of ChangeBitTrackedInv (D98): a writeback whose SSKE resets the key's change bit
\* but not GC.
ResetChangeBitKeepingGC(op, p) ==
    /\ keyDirty' = [keyDirty EXCEPT ![p] = FALSE]
    /\ pageTable' = IF Gmap /\ StorageKeys THEN TRUE ELSE pageTable
    /\ Record(op, p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, gc, cbrl, gmapPte, pteUnused>>

\* Broken twin of PaperContentStateInv (D104): a 2007 ORC 5 that pages the page in and keeps its
\* swap copy.
Paper2007PageInKeepingSwap(p) ==
    /\ valid' = [valid EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<swapped, data>>

\* Broken twin of UnallocatedUnchangedInv (D97): the new gmap's ESSA acting on a page whose
\* gmap page table does not exist, instead of answering 0x10 (ESSA without its walk's check).
ESSAWithoutPageTable(op, orc, p) ==
    LET e == EssaEffect(orc, p)
        r == ResultByte(p)
    IN  IF ~CMMAOn THEN Refuse(op, p, orc, NoValue, "OperationException")
        ELSE IF SpecificationException(orc)
        THEN Refuse(op, p, orc, NoValue, "SpecificationException")
        ELSE \E interpreted \in InterpretedPaths :
             /\ e.queue => Len(cbrl) < CBRLSize
             /\ usage' = [usage EXCEPT ![p] = e.u]
             /\ nodat' = [nodat EXCEPT ![p] = e.n]
             /\ zbit' = [zbit EXCEPT ![p] = IF interpreted THEN e.queue \/ @ ELSE e.z]
             /\ cbrl' = IF e.queue THEN Append(cbrl, p) ELSE cbrl
             /\ IF Impl = "Paper2007" /\ orc = 5 /\ ~valid[p]
                THEN Paper2007PageIn(p)
                ELSE /\ swapped' = [swapped EXCEPT ![p] = IF e.drop THEN FALSE ELSE @]
                     /\ data' = [data EXCEPT ![p] = IF e.drop THEN 0 ELSE @]
                     /\ UNCHANGED valid
             /\ keyDirty' = [keyDirty EXCEPT ![p] = IF e.drop THEN FALSE ELSE @]
             /\ Record(op, p, orc, r, IF interpreted THEN "Interpreted" ELSE "Done", NoValue)
             /\ UNCHANGED <<gc, pageTable, gmapPte, pteUnused>>

=============================================================================
