---------------------------- MODULE ESSAProperties ----------------------------
(***************************************************************************)
(* Contract: the promises of ESSA.tla (its opening comment,                *)
(* docs/contract.md) are StableContentOwedInv, ModifiedPContentKeptInv,    *)
(* UnwrittenContentKeptInv, MigrationKeepsStableContentProp,               *)
(* GuestStableBeliefInv, ReadResultInv, ReportedZeroReadsZeroInv and       *)
(* QueuedDiscardProcessedProp; their THEOREMs, each under the constants    *)
(* for which it holds, are gathered at the end of this module, naming the  *)
(* model that checks it.  The other properties restate a step or check     *)
(* types and bookkeeping.                                                  *)
(***************************************************************************)
(***************************************************************************)
(* What the 2006/07 Linux guest assumes of ESSA, stated as properties of   *)
(* ESSA.tla.  The paper's machine (Impl = "Paper2007") satisfies every one *)
(* of them; where a KVM implementation does not, TLC's counterexample is a *)
(* finding (docs/findings.md).                                             *)
(***************************************************************************)
EXTENDS ESSA

EssaTypeOK ==
    /\ usage \in [Pages -> {"S", "U", "V", "P"}]
    /\ valid \in [Pages -> BOOLEAN] /\ swapped \in [Pages -> BOOLEAN]
    /\ zbit \in [Pages -> BOOLEAN] /\ nodat \in [Pages -> BOOLEAN]
    /\ data \in [Pages -> {0, Written}]
    /\ keyDirty \in [Pages -> BOOLEAN] /\ gc \in [Pages -> BOOLEAN]
    /\ cbrl \in Seq(Pages) /\ Len(cbrl) <= CBRLSize
    /\ owed \in [Pages -> {NoValue, 0, Written}]
    /\ belief \in [Pages -> {"S", "U", "V", "P"}]
    /\ modified \in [Pages -> BOOLEAN]
    /\ migrated \in BOOLEAN
    /\ pageTable \in BOOLEAN
    /\ gmapPte \in [Pages -> {"Valid", "Aged", "Empty"}]
    /\ pteUnused \in [Pages -> BOOLEAN]

\* What a read of the page would return now (a fault-in reads the swap copy).
Readable(p) == IF valid[p] \/ swapped[p] THEN data[p] ELSE 0

(***************************************************************************)
(* GuestStableBeliefInv.  Paper, section 3.2: "The state transitions are   *)
(* conditional through the SetStableIfNotDiscarded call, which only moves  *)
(* a page into stable if the page has not been discarded."  A page the     *)
(* guest believes stable (it allocated it, or make_stable reported         *)
(* success) is stable in the host.                                        *)
(***************************************************************************)
GuestStableBeliefInv == \A p \in Pages : belief[p] = "S" => usage[p] = "S"

(***************************************************************************)
(* StableContentOwedInv.  Paper, section 2: S, "the host is responsible    *)
(* for preserving the page content".  What the guest is owed of a page it  *)
(* believes stable is what a read returns.                                 *)
(***************************************************************************)
StableContentOwedInv ==
    \A p \in Pages : (owed[p] # NoValue /\ belief[p] = "S") => Readable(p) = owed[p]

(***************************************************************************)
(* ModifiedPContentKeptInv.  Paper, section 2: P, "The guest can tolerate  *)
(* the loss of the page content as long as the page has not been           *)
(* modified.  Page modification is indicated by the page dirty bit.  This  *)
(* bit needs to be accessible by the host."  A page the guest made P and   *)
(* then modified keeps what the guest is owed.                             *)
(***************************************************************************)
ModifiedPContentKeptInv ==
    \A p \in Pages :
        (owed[p] # NoValue /\ belief[p] = "P" /\ modified[p]) => Readable(p) = owed[p]

(***************************************************************************)
(* UnwrittenContentKeptInv.  Paper, section 2: V, "the guest has indicated *)
(* that it can tolerate the loss of the page content"; P, "The guest can   *)
(* tolerate the loss of the page content as long as the page has not been  *)
(* modified."  A guest can tolerate the loss only of content it can        *)
(* recreate: what it stored and has not yet written back it cannot.        *)
(* Whatever usage the guest asked for, content it modified since its last  *)
(* writeback and is owed is never lost (a guest that makes such a page     *)
(* volatile, or stores to a page it made volatile, breaks it; D231).       *)
(***************************************************************************)
UnwrittenContentKeptInv ==
    \A p \in Pages : (owed[p] # NoValue /\ modified[p]) => Readable(p) = owed[p]

(***************************************************************************)
(* ReadResultInv.  Paper, section 2: "If a guest accesses a Vz or Pz page, *)
(* the host will present a special discard fault to notify the guest that *)
(* the page has been removed and that it needs to be recreated by the     *)
(* guest."  A read returns what the guest is owed, or a discard fault:    *)
(* never a silent wrong value.                                            *)
(***************************************************************************)
(***************************************************************************)
(* GuestDirtyRecordInv.  Paper, section 2: P, "The guest can tolerate the  *)
(* loss of the page content as long as the page has not been modified.    *)
(* Page modification is indicated by the page dirty bit.  This bit needs   *)
(* to be accessible by the host."  The guest and the host decide from the  *)
(* same bit: what the guest must still write back (modified: it stored    *)
(* since its last writeback) is, for every page it holds content of, the  *)
(* page's change bit, which only a store sets and only the writeback's    *)
(* SSKE resets.  A guest that forgets it must write a page back (make_    *)
(* stable or any other step clearing its record while the bit is set)     *)
(* would later make the page volatile and lose the content (D247).         *)
(***************************************************************************)
GuestDirtyRecordInv ==
    \A p \in Pages : owed[p] # NoValue => (modified[p] <=> keyDirty[p])

ReadResultInv ==
    (lastOp.op = "GuestRead" /\ lastOp.outcome = "Value")
    => lastOp.value = owed[lastOp.page]

(***************************************************************************)
(* ReportedZeroReadsZeroInv.  Paper, section 2: "Logically zero (z): There *)
(* is no associated frame or backed content.  The content of the page is   *)
(* considered to be zero."  A page whose content state ESSA reports as    *)
(* logically zero (3) reads as zero.                                       *)
(***************************************************************************)
ReportedZero(p) == ContentBits(p) = 3
ReportedZeroReadsZeroInv == \A p \in Pages : ReportedZero(p) => Readable(p) = 0

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
(* MigrationKeepsStableContentProp.  Can stable content be lost across     *)
(* migration, when the CMMA attributes carry only usage and N?  Paper,    *)
(* section 2: S, "the host is responsible for preserving the page         *)
(* content".  Every page that is stable in the host reads the same before *)
(* and after.                                                              *)
(***************************************************************************)
MigrationStep ==
    lastOp'.op = "Migrate" =>
        \A p \in Pages : usage[p] = "S" =>
            (IF valid'[p] \/ swapped'[p] THEN data'[p] ELSE 0) = Readable(p)
MigrationKeepsStableContentProp == [][MigrationStep]_vars

(***************************************************************************)
(* MigrationArrivalProp.  The states a page can arrive in (sources 5: "Z,  *)
(* residency, GC and pending CBRL entries are not migrated"): its usage    *)
(* and N as they were, no Z; a page with content resident in the host, a  *)
(* zero page not; so content state 0 or 2 (in the new gmap always 2: no    *)
(* gmap PTE exists yet), never 3 (logically zero).                         *)
(* So a page that was Uz or Vz arrives as U or V + preserved (0x06, 0x0E), *)
(* and a 2007 guest's page_discarded test no longer sees it.  The          *)
(* destination's CBRL is empty (no pending entry travels), its host PTEs   *)
(* are its own, so none carries the source's _PAGE_UNUSED (residency does  *)
(* not travel; sources 3.3: the bit is set only on a present PTE, when KVM *)
(* unmaps it), and the gmap page table exists: sources 5, QEMU applies the *)
(* bytes "through KVM_S390_SET_CMMA_BITS"; sources 3, "A segment's page    *)
(* table is created by a fault-in, SSKE or SET_CMMA_BITS" (D320).          *)
(***************************************************************************)
MigrationArrivalStep ==
    lastOp'.op = "Migrate" =>
        /\ cbrl' = <<>>
        /\ pageTable'
        /\ \A p \in Pages :
            /\ usage'[p] = usage[p] /\ nodat'[p] = nodat[p]
            /\ ~zbit'[p] /\ ~swapped'[p]
            /\ valid'[p] = (data'[p] # 0)
            /\ gmapPte'[p] = "Empty" /\ ~pteUnused'[p]
MigrationArrivalProp == [][MigrationArrivalStep]_vars

(***************************************************************************)
(* ChangeBitTrackedInv.  Sources 1: GC is "the guest's storage-key change  *)
(* bit as the host keeps it"; sources 2: the guest's SSKE on a page that   *)
(* is not resident "writes the key into the PGSTE (GC included)"; sources  *)
(* 5: the keys travel with s390-skeys and are set on the destination.      *)
(* With storage keys, whenever the PTE ESSA looks at is invalid (so that   *)
(* ORC 4 consults GC) GC is the guest's change bit (D98, D99).             *)
(***************************************************************************)
ChangeBitTrackedInv ==
    (KVM /\ StorageKeys) => \A p \in Pages : ~EssaValid(p) => gc[p] = keyDirty[p]

(***************************************************************************)
(* GCClearWithoutKeysInv.  Sources 2: "GC is copied from the real storage  *)
(* key only when the host unmaps a page and the VM uses storage keys ...   *)
(* Without storage keys GC stays clear [INFERENCE]"; sources 5: the keys   *)
(* travel with their own device, which a VM without keys does not have.    *)
(* So in KVM without storage keys GC is never set, and ORC 4 on a page     *)
(* that is not resident reads a clear GC (finding F3; D98, D199).          *)
(***************************************************************************)
GCClearWithoutKeysInv == (KVM /\ ~StorageKeys) => \A p \in Pages : ~gc[p]

(***************************************************************************)
(* UnallocatedUnchangedInv.  Sources 3: "When the gmap has no page table   *)
(* for the frame (the walk does not allocate), R1 = 0x10 for every ORC,    *)
(* including 0, and nothing changes."  Without a gmap page table there are *)
(* no PGSTEs: every page has the reset attributes and nothing is queued    *)
(* (D97).                                                                   *)
(***************************************************************************)
UnallocatedUnchangedInv ==
    ~pageTable => /\ \A p \in Pages : usage[p] = "S" /\ ~nodat[p] /\ ~zbit[p]
                  /\ cbrl = <<>>

(***************************************************************************)
(* GmapPteResidentInv.  Sources 3: "'valid' is the gmap PTE's hardware     *)
(* invalid bit being clear; the PTE also has a software present bit";      *)
(* 3.3: reclaim unmaps the gmap PTE (_gmap_unmap_pte) when core mm takes    *)
(* the page; 3.4: aging "sets the hardware invalid bit and leaves the page *)
(* present".  A gmap PTE that is present (valid or aged) maps a page that  *)
(* is in a host frame: nothing makes one for a page the host does not hold *)
(* (D283).  Sources 2: classic KVM keeps the PGSTEs in the host process's  *)
(* page tables and ESSA looks at the host PTE; sources 3 brings KVM's own  *)
(* guest page tables: outside the new gmap (classic KVM, the 2007 machine) *)
(* no gmap PTE exists at all (D313).                                       *)
(***************************************************************************)
GmapPteResidentInv == \A p \in Pages : gmapPte[p] # "Empty" => Gmap /\ valid[p]

(***************************************************************************)
(* PaperContentStateInv.  Sources 6: "Valid states: Sr Sp Sz Ur Uz Vr Vz  *)
(* Pr (no Up: an unused page is discarded, not paged out; no Vp: a         *)
(* volatile page is discarded on eviction; no Pp: a dirty P page is        *)
(* evicted as Sp, a clean one discarded to Vz; no Pz: Vz instead)".  In    *)
(* the 2007 model the content states are one at a time: a page is never    *)
(* both in a frame and in the host's swap (D104); only a stable page is    *)
(* preserved; a P page is resident (D314).                                 *)
(***************************************************************************)
PaperContentStateInv ==
    Impl = "Paper2007" => \A p \in Pages :
        /\ ~(valid[p] /\ swapped[p])
        /\ swapped[p] => usage[p] = "S"
        /\ usage[p] = "P" => valid[p]

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
(* OrcContractProp.  Sources 1: the operation-request codes and their      *)
(* names, which every Linux-era implementation shares: 0 GET_STATE, 1      *)
(* SET_STABLE, 2 SET_UNUSED, 3 SET_VOLATILE, 4 SET_POT_VOLATILE, 5         *)
(* SET_STABLE_RESIDENT, 6 SET_STABLE_IF_RESIDENT (the 2007 name: IF_NOT_   *)
(* DISCARDED, StableIfNotDiscardedProp), 7 SET_STABLE_NODAT; sources 2:    *)
(* "1 S, N cleared", "5 S (the page is not made resident)", "7 S, N set", *)
(* while the 2007 ORC 5 is SET_STABLE_MAKE_RESIDENT (sources 1, 6);       *)
(* sources 2, 3, 6: P is what a resident                                   *)
(* page gets from ORC 4, and "P on a zero page gives Vz" (sources 6)      *)
(* (elsewhere the host's dirty bit decides: the paper, section 2, "If the *)
(* page dirty bit is set, the host needs to preserve the page and will set *)
(* the combined target state to Sp"; sources 2, "not valid, Z clear, GC    *)
(* set: S"; sources 3, "ORC 4 on a non-resident, changed page leaves the   *)
(* usage as it was"; D329).  An ESSA                                      *)
(* that completes does to the usage and N what its code's name says, in    *)
(* every implementation (D199).                                            *)
(***************************************************************************)
OrcContractStep ==
    LET p == lastOp'.page
        o == lastOp'.orc
    IN  (lastOp'.outcome \in {"Done", "Interpreted"} /\ p \in Pages) =>
            /\ o = 0 => usage'[p] = usage[p] /\ nodat'[p] = nodat[p]
            /\ o \in {1, 5, 7} => usage'[p] = "S"
            /\ o = 5 => valid'[p] = (valid[p] \/ Impl = "Paper2007")
            /\ o = 1 => ~nodat'[p]
            /\ o = 7 => nodat'[p]
            /\ o = 2 => usage'[p] = "U"
            /\ o = 3 => usage'[p] = "V"
            /\ (o = 4 /\ EssaValid(p)) => usage'[p] = "P"
            /\ (o = 4 /\ ReportedZero(p)) => usage'[p] = "V"
            /\ (o = 4 /\ ~EssaValid(p) /\ ~ReportedZero(p) /\ (IF KVM THEN gc[p] ELSE keyDirty[p]))
                 => usage'[p] = IF Gmap THEN usage[p] ELSE "S"
            /\ (o = 6 /\ KVM) => usage'[p] = IF EssaValid(p) THEN "S" ELSE usage[p]
OrcContractProp == [][OrcContractStep]_vars

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
(* ResultByteProp.  Sources 1: "R1 receives one byte, the state before the *)
(* operation: content in 0x03 (0 resident, 2 preserved, 3 logically zero), *)
(* usage in 0x0C (0 S, 4 U, 8 P, 0xC V), 0x10 the exception indication    *)
(* ..., 0x20 the no-DAT bit N.  Classic KVM computes the content from the  *)
(* host PTE: valid gives 0; invalid with Z clear gives 2; invalid with Z   *)
(* set gives 3"; sources 3: the same from the gmap PTE; sources 6: the     *)
(* 2007 content states resident, preserved, zero.  An ESSA that completes  *)
(* leaves in R1 the page's usage, N and content state before the operation *)
(* in that encoding, which the guest decodes (make_stable reads failure    *)
(* from it, D229).  Written out from the source's table, not through       *)
(* ResultByte (D230).                                                      *)
(***************************************************************************)
ResultByteStep ==
    LET p == lastOp'.page
        usageCode == CASE usage[p] = "S" -> 0 [] usage[p] = "U" -> 4
                       [] usage[p] = "P" -> 8 [] usage[p] = "V" -> 12
        logicallyZero == IF KVM THEN zbit[p] ELSE ~swapped[p]
        contentCode == IF EssaValid(p) THEN 0 ELSE IF logicallyZero THEN 3 ELSE 2
    IN  (lastOp'.outcome \in {"Done", "Interpreted"} /\ p \in Pages /\ lastOp'.orc \in 0 .. 7)
        => lastOp'.result = contentCode + usageCode + (IF nodat[p] THEN 32 ELSE 0)
ResultByteProp == [][ResultByteStep]_vars

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
(* GuestAccessInUseProp.  Paper, section 3: "A guest access to an unused   *)
(* page is a programming error"; section 3.2: "If the page was discarded, *)
(* it is removed from the page cache".  The guest never reads or           *)
(* stores to a page it freed or dropped (believes unused): it keeps no     *)
(* reference to such a page (D234).  Writing a page back reads it (the     *)
(* I/O) and issues SSKE on it, so it is an access too (D248).              *)
(***************************************************************************)
GuestAccessInUseStep ==
    lastOp'.op \in {"GuestRead", "GuestWrite", "GuestWriteback"} => belief[lastOp'.page] # "U"
GuestAccessInUseProp == [][GuestAccessInUseStep]_vars

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
(* UnusedNotSwappedProp.  Sources 2: "Reclaim (ptep_xchg_commit, S10): a   *)
(* page whose usage is U is dropped, not swapped ('a future reference will *)
(* then fault in a new zero page')"; sources 3.3: KVM sets _PAGE_UNUSED on *)
(* the host PTE "so that core mm drops the page (S10)"; [Z1]: the host     *)
(* steals unused pages first.  What CMMA saves the host: in KVM a reclaim  *)
(* never writes to swap a page core mm is told is unused (classic KVM:     *)
(* every U page, ptep_xchg_commit hands back _PAGE_UNUSED; the new gmap: a *)
(* page whose host PTE carries the bit) (D315).                            *)
(***************************************************************************)
UnusedNotSwappedStep ==
    \A p \in Pages :
        (/\ KVM /\ lastOp'.op = "HostReclaim" /\ lastOp'.page = p
         /\ IF Gmap THEN pteUnused[p] ELSE usage[p] = "U")
        => ~swapped'[p]
UnusedNotSwappedProp == [][UnusedNotSwappedStep]_vars

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
(* UnusedBitPresentInv.  Sources 3.3: KVM's MMU notifier "tries to set     *)
(* _PAGE_UNUSED on the host PTE so that core mm drops the page (S10)", and *)
(* the CVE-2026-72412 fix "sets the bit only on present PTEs"; sources 2:  *)
(* reclaim (S10) then drops the page or swaps it out, replacing the PTE.   *)
(* _PAGE_UNUSED is a bit of the present host PTE of a resident page: a    *)
(* page the host holds in no frame has none, so no bit outlives a reclaim *)
(* into the page's next life in a frame.  It holds with the stale bit of  *)
(* StaleUnusedBit too (that bit outlives a set_pte of a present PTE, not  *)
(* the PTE itself) (D311).                                                 *)
(***************************************************************************)
UnusedBitPresentInv == Gmap => \A p \in Pages : pteUnused[p] => valid[p]

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
(* GuestOrcProp.  Sources 4: "arch_free_page issues ORC 2 per page;        *)
(* arch_alloc_page ORC 1, or ORC 7 with facility 147"; sources 1: ORC 3    *)
(* SET_VOLATILE, 4 SET_POT_VOLATILE, 6 the 2007 SET_STABLE_IF_NOT_DISCARDED; *)
(* ESSA.tla's guest: make_volatile issues ORC 3, or ORC 4 for a writably   *)
(* mapped page (paper 2), make_stable ORC 6.  Each guest step that issues  *)
(* ESSA is named for the operation whose ORC it issues, so that a trace    *)
(* (and a conformance engine's) reads as the guest's program (D235).       *)
(***************************************************************************)
GuestOrcStep ==
    /\ lastOp'.op = "GuestAlloc" => lastOp'.orc = 1
    /\ lastOp'.op = "GuestFree" => lastOp'.orc = 2
    /\ lastOp'.op = "GuestMakeVolatile" => lastOp'.orc = 3
    /\ lastOp'.op = "GuestMakePotentiallyVolatile" => lastOp'.orc = 4
    /\ lastOp'.op = "GuestMakeStable" => lastOp'.orc = 6
    /\ lastOp'.op = "GuestSetStableNoDat" => lastOp'.orc = 7
GuestOrcProp == [][GuestOrcStep]_vars

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
EssaOps == {"GuestAlloc", "GuestFree", "GuestMakeVolatile", "GuestMakePotentiallyVolatile",
            "GuestMakeStable", "GuestExtract", "GuestSetStableNoDat", "GuestBadOrc",
            "GuestEssaProblemState", "GuestEssaBeyondMemory"}
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

\* Witnesses (model/manifest.json, D130): what each property is about, which the
\* model that checks it must reach; a state for an invariant, a step for a Prop.
\* (GuestStableBeliefInv.)  The guest believes a page stable because make_stable reported
\* success, and the page is not in a frame (the host swapped it out while it was P).
MadeStableNotInFrame ==
    /\ lastOp.op = "GuestMakeStable" /\ lastOp.page \in Pages
    /\ belief[lastOp.page] = "S" /\ ~valid[lastOp.page]
\* (UnwrittenContentKeptInv.)  Content the guest stored and has not written back, away from
\* any frame.
UnwrittenContentAway     == \E p \in Pages : owed[p] \notin {NoValue, 0} /\ modified[p] /\ ~valid[p]
\* (ModifiedPContentKeptInv.)  The guest has just stored to a page it made potentially volatile:
\* a store through a writable mapping, which sets only the change bit (paper 2: why P exists).
StoredToPPage ==
    lastOp.op = "GuestWrite" /\ lastOp.page \in Pages /\ belief[lastOp.page] = "P"
ReadOfNonZero            == lastOp.op = "GuestRead" /\ lastOp.outcome = "Value" /\ lastOp.value # 0
SomeReportedZero         == \E p \in Pages : ReportedZero(p)
SomePageSwapped          == \E p \in Pages : swapped[p]
SpecificationExceptionTaken == lastOp'.outcome = "SpecificationException"
MigrationOfStableContent == lastOp'.op = "Migrate" /\ \E p \in Pages : usage[p] = "S" /\ Readable(p) # 0
MigrationOfSwappedPage   == lastOp'.op = "Migrate" /\ \E p \in Pages : swapped[p] \/ zbit[p]
\* (MigrationArrivalProp.)  A page the guest uses (believes stable) with N set migrates: the
\* no-DAT attribute it relies on for that page must arrive with it (on a free page N is
\* rewritten by the next allocation).
MigrationOfNoDatPageInUse == lastOp'.op = "Migrate" /\ \E p \in Pages : nodat[p] /\ belief[p] = "S"
ChangedPageNotValid      == \E p \in Pages : ~EssaValid(p) /\ keyDirty[p]
EssaWithoutPageTable     == ~pageTable /\ lastOp.op \in EssaOps
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
\* (GuestAccessInUseProp.)  The guest reads a page it made volatile: the page a failed
\* make_stable would next make it drop.
ReadOfVolatilePage == lastOp'.op = "GuestRead" /\ belief[lastOp'.page] = "V"
\* (GuestDirtyRecordInv.)  make_stable succeeded on a page the guest stored to and has not
\* written back (a modified P page): its record of the writeback it owes must survive.
MadeStableWhileDirty     == lastOp.op = "GuestMakeStable" /\ modified[lastOp.page]
\* (GuestAccessInUseProp, under bare ESSAs.)  The guest writes back a page it made potentially
\* volatile.
WritebackOfPPage         == lastOp'.op = "GuestWriteback" /\ belief[lastOp'.page] = "P"
\* (StableIfNotDiscardedProp, the guest's side.)  The guest makes stable a page it made volatile
\* (paper 3.2: the page cache's lookup of a volatile page).
MakeStableOfVolatilePage == lastOp'.op = "GuestMakeStable" /\ belief[lastOp'.page] = "V"
\* (GuestOrcProp.)  The guest makes a writably mapped page potentially volatile (ORC 4).
MakePotentiallyVolatileTaken == lastOp'.op = "GuestMakePotentiallyVolatile"
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
\* (UnusedBitPresentInv.)  A page whose host PTE carries _PAGE_UNUSED (StaleUnusedBit).
UnusedBitSet == \E p \in Pages : pteUnused[p]
\* (UnusedNotSwappedProp.)  The host reclaims a page core mm is told is unused.
ReclaimOfUnusedPage ==
    /\ lastOp'.op = "HostReclaim" /\ lastOp'.page \in Pages
    /\ IF Gmap THEN pteUnused[lastOp'.page] ELSE usage[lastOp'.page] = "U"
\* (UnusedBitMarksUnusedProp.)  KVM sets _PAGE_UNUSED on a host PTE.
UnusedBitMarked == \E p \in Pages : ~pteUnused[p] /\ pteUnused'[p]
\* (GmapPteResidentInv.)  A page whose gmap PTE aging has made invalid.
AgedGmapPte == \E p \in Pages : gmapPte[p] = "Aged"
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
\* (ReadResultInv, D320.)  After the VM migrated, the guest reads on the destination content it
\* stored.
ReadOnDestination ==
    migrated /\ lastOp.op = "GuestRead" /\ lastOp.outcome = "Value" /\ lastOp.value # 0
\* (QueuedDiscardProp, D323.)  A discard queued for a page whose Z an earlier queued discard set:
\* ORC 2 or 3 on a page that is not valid queues whatever Z says, once the CBRL has room again.
DiscardQueuedAgain ==
    /\ lastOp'.outcome \in {"Done", "Interpreted"} /\ lastOp'.page \in Pages
    /\ lastOp'.orc \in 0 .. 7 /\ zbit[lastOp'.page] /\ Len(cbrl') = Len(cbrl) + 1
\* (StableContentOwedInv, D327.)  Content the guest is owed, of a page make_stable has just made
\* stable again, away from any frame (the host swapped it out while it was P): what the guest is
\* owed survives make_stable's success.
MadeStableOwedAway ==
    /\ lastOp.op = "GuestMakeStable" /\ lastOp.page \in Pages
    /\ belief[lastOp.page] = "S" /\ owed[lastOp.page] \notin {NoValue, 0} /\ ~valid[lastOp.page]
\* (SpecificationExceptionProp, D326.)  ORC 7 without facility 147 in KVM.
NoDatWithoutFacility ==
    lastOp'.orc = 7 /\ ~Facility147 /\ Impl # "Paper2007" /\ lastOp'.page \in Pages
\* (RefusalProp, D326.)  An ESSA on an address beyond guest memory, with CMMA enabled: one that
\* would change the page (ORC 1), and an extract (ORC 0), refused too ("for every ORC, including
\* 0", sources 3).
EssaBeyondMemory == lastOp'.op = "GuestEssaBeyondMemory" /\ CMMAEnabled /\ lastOp'.orc = 1
ExtractBeyondMemory == lastOp'.op = "GuestEssaBeyondMemory" /\ CMMAEnabled /\ lastOp'.orc = 0
\* (GuestStableBeliefInv, D324.)  The guest allocates a page the host held unused (R1 reports U)
\* and believes it stable.
ReallocatedPage ==
    /\ lastOp.op = "GuestAlloc" /\ lastOp.outcome \in {"Done", "Interpreted"}
    /\ lastOp.result % 16 \in 4 .. 7 /\ belief[lastOp.page] = "S"
\* (CMMAResetProp, D324.)  A CMMA reset makes stable a page that was not, and the guest, which the
\* reset restarts, believes it stable: what GuestStableBeliefInv then checks of the reset.
ResetOfUnstablePage ==
    lastOp'.op = "HostResetCMMA" /\ \E p \in Pages : usage[p] # "S" /\ belief'[p] = "S"


(***************************************************************************)
(* QueuedDiscardProcessedProp.  A discard ESSA queued on the CBRL is       *)
(* eventually carried out: the host processes the entry (sources 2: "CBRL *)
(* processing (__gmap_zap): only a swap entry is acted on; if the usage is *)
(* U or Z is set, the swap slot is freed and the PTE cleared"; sources     *)
(* 3.2), unless a migration dropped it first (sources 5: "pending CBRL     *)
(* entries are not migrated").  Processing may find the entry moot (the   *)
(* page was faulted back in) and keep the page: that still answers the    *)
(* entry.  The list is first in, first out, so an entry queued twice is   *)
(* answered twice.  Checked under FairSpec (ESSA.tla).                     *)
(***************************************************************************)
Queued(p) == \E i \in DOMAIN cbrl : cbrl[i] = p

QueuedDiscardProcessedProp ==
    \A p \in Pages :
        Queued(p) ~> \/ lastOp.op = "HostProcessCBRL" /\ lastOp.page = p
                     \/ lastOp.op = "Migrate"

\* (QueuedDiscardProcessedProp.)  The host processes an entry while another is still queued
\* behind it: the list is worked off entry by entry.
CBRLEntryProcessedWithMoreQueued ==
    lastOp'.op = "HostProcessCBRL" /\ Len(cbrl) >= 2

(***************************************************************************)
(* The contract of ESSA.tla as theorems, each under the constants for      *)
(* which it holds.  TLC checks each in the models named; the manifest     *)
(* lists the others.  A THEOREM here is the claim, the model's .cfg is     *)
(* what backs it, and a finding or twin shows what the hypothesis rules    *)
(* out.                                                                    *)
(***************************************************************************)
\* No data loss.  MCESSA_Paper2007, MCESSA_KVMGmapFixed, MCESSA_KVMClassicModern; findings
\* MCESSA_Finding_F7_KVMGmapStickyZero, MCESSA_Finding_F8_KVMGmapCBRLGuestAddress, MCESSA_Finding_F9_KVMGmapStaleUnusedBit.
THEOREM (Impl = "Paper2007" \/ (ModernGuest /\ StorageKeys /\ Bugs = {}))
            => (Spec => []StableContentOwedInv)
\* MCESSA_Paper2007, MCESSA_KVMClassicKeys, MCESSA_KVMGmapKeys; findings MCESSA_Finding_F3_KVMClassic,
\* MCESSA_Finding_F3_KVMGmap (no storage keys).
THEOREM ((Impl = "Paper2007" \/ StorageKeys) /\ Bugs = {} /\ ~MachineInterpretsESSA)
            => (Spec => []ModifiedPContentKeptInv)
\* MCESSA_Paper2007; twin MCESSA_Twin_WriteVolatile.
THEOREM Impl = "Paper2007" => (Spec => []UnwrittenContentKeptInv)
\* MCESSA_KVMClassicMigration, MCESSA_KVMGmapMigration, MCESSA_KVMClassicNoKeysMigration;
\* twin MCESSA_Twin_Migration.
THEOREM Bugs = {} => (Spec => MigrationKeepsStableContentProp)
\* Right answers.  MCESSA_Paper2007, MCESSA_KVMGmapFixed, MCESSA_KVMClassicModern; findings
\* MCESSA_Finding_F1_KVMClassic, MCESSA_Finding_F1_KVMGmap (the 2007 guest on KVM), twin MCESSA_Twin_Reset.
THEOREM (Impl = "Paper2007" \/ (ModernGuest /\ StorageKeys /\ Bugs = {}))
            => (Spec => []GuestStableBeliefInv)
\* The same models; findings MCESSA_Finding_F2_KVMClassic, MCESSA_Finding_F2_KVMGmap.
THEOREM (Impl = "Paper2007" \/ (ModernGuest /\ StorageKeys /\ Bugs = {}))
            => (Spec => []ReadResultInv)
\* MCESSA_Paper2007; findings MCESSA_Finding_F4_KVMClassic, MCESSA_Finding_F4_KVMGmap.
THEOREM Impl = "Paper2007" => (Spec => []ReportedZeroReadsZeroInv)
\* Progress.  MCESSA_KVMClassicLiveness, MCESSA_KVMGmapLiveness; twin MCESSA_Twin_CBRLStopsAtKept.
THEOREM Bugs = {} => (FairSpec => QueuedDiscardProcessedProp)

=============================================================================
