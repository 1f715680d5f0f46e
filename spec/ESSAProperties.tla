---------------------------- MODULE ESSAProperties ----------------------------
(***************************************************************************)
(* Contract: the promises of ESSA.tla (its opening comment,                *)
(* docs/contract.md) are BelievedStableContentKeptInv,                     *)
(* ModifiedPContentKeptInv, UnwrittenContentKeptInv,                       *)
(* MigrationKeepsStableContentProp, MigrationKeepsAttributesProp,          *)
(* GuestStableBeliefInv, ReadReturnsOwedInv, ReportedZeroReadsZeroInv,     *)
(* AddressingExceptionOnlyIfUnusedInv, QueuedDiscardProcessedProp,        *)
(* GivenUpPageFreedProp and UnusedNotSwappedProp; their THEOREMs, each     *)
(* under the constants for which it holds, are gathered at the end of this *)
(* module, naming the model that checks it.  The instruction's promises,   *)
(* OrcContractProp and ResultByteProp, are defined here and stated as      *)
(* THEOREMs in ESSABareInstruction.tla.  The other properties here check   *)
(* types and bookkeeping.  The step checks, each restating what one step does, are   *)
(* in ESSAStepChecks.tla, apart from the contract.                         *)
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
(* BelievedStableContentKeptInv.  Paper, section 2: S, "the host is        *)
(* responsible for preserving the page content".  What the guest is owed   *)
(* of a page it believes stable is what a read returns.                    *)
(***************************************************************************)
BelievedStableContentKeptInv ==
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
(* ReadReturnsOwedInv.  Paper, section 2: "If a guest accesses a Vz or Pz  *)
(* page, the host will present a special discard fault to notify the guest *)
(* that the page has been removed and that it needs to be recreated by the *)
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
(* page's change bit, which only a store sets and the writeback's SSKE    *)
(* resets (a 2007 discard resets it too, [Z5], but the host discards only *)
(* a page the guest has nothing to write back of; D347).                   *)
(* A guest that forgets it must write a page back (make_stable or any     *)
(* other step clearing its record while the bit is set) would later make  *)
(* the page volatile and lose the content (D247).                          *)
(***************************************************************************)
GuestDirtyRecordInv ==
    \A p \in Pages : owed[p] # NoValue => (modified[p] <=> keyDirty[p])

ReadReturnsOwedInv ==
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
(* AddressingExceptionOnlyIfUnusedInv.  Sources 6, the 2007 model: "An     *)
(* access to a U page raises an addressing exception; an access to Vz the  *)
(* discard fault"; paper 2: unused, "The content of the page is            *)
(* meaningless".  The exception is the answer to a page the guest gave up: *)
(* a page the guest uses (it believes it S, P or V) answers its loads and  *)
(* stores, so the guest meets the exception only on a page it made unused  *)
(* itself.                                                                 *)
(***************************************************************************)
AddressingExceptionOnlyIfUnusedInv ==
    (lastOp.op \in {"GuestRead", "GuestWrite"} /\ lastOp.outcome = "AddressingException")
        => belief[lastOp.page] = "U"

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
(* MigrationKeepsAttributesProp.  Sources 5: "KVM_S390_GET_CMMA_BITS       *)
(* returns usage and N per page"; on the destination QEMU applies them     *)
(* through "KVM_S390_SET_CMMA_BITS, which writes usage and N".  What the   *)
(* guest asked of each page survives migration: every page arrives with    *)
(* the usage and N it had.  A page the guest made stable again that        *)
(* arrives unused is one the destination's host may drop with its content  *)
(* (paper, section 2: U, "The host may discard the page content at will"). *)
(* The rest of what arrives (no Z, no swap copy, no CBRL entry) is how KVM *)
(* rebuilds a page, a step check (ESSAStepChecks.tla, MigrationArrivalProp). *)
(***************************************************************************)
MigrationAttributesStep ==
    lastOp'.op = "Migrate" =>
        \A p \in Pages : usage'[p] = usage[p] /\ nodat'[p] = nodat[p]
MigrationKeepsAttributesProp == [][MigrationAttributesStep]_vars

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
(* every implementation (D199).  A promise, not a step restated: the usage *)
(* the guest asks for is what the host may do with the page (paper 2: S    *)
(* preserved, U "at will", V and P discardable), so an ORC that sets       *)
(* another usage or N hands the host a licence the guest never gave, or    *)
(* withholds one it gave (D406).                                           *)
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
(* ResultByte (D230).  A promise, not a step restated: R1 is the answer    *)
(* the guest gets, the one way it learns a page's state (sources 6: the   *)
(* guest "reads failure from 'old state = V and logically zero'") (D406).  *)
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

\* The guest's ESSA operations.
EssaOps == {"GuestAlloc", "GuestFree", "GuestMakeVolatile", "GuestMakePotentiallyVolatile",
            "GuestMakeStable", "GuestExtract", "GuestSetStableNoDat", "GuestBadOrc",
            "GuestEssaProblemState", "GuestEssaBeyondMemory"}

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
\* (MigrationKeepsAttributesProp.)  A migration of a page the guest has given a usage other
\* than stable, or made no-DAT.
MigrationOfAttributes == lastOp'.op = "Migrate" /\ \E p \in Pages : usage[p] # "S" \/ nodat[p]
MigrationOfStableContent == lastOp'.op = "Migrate" /\ \E p \in Pages : usage[p] = "S" /\ Readable(p) # 0
ChangedPageNotValid      == \E p \in Pages : ~EssaValid(p) /\ keyDirty[p]
EssaWithoutPageTable     == ~pageTable /\ lastOp.op \in EssaOps
\* (GuestAccessInUseProp.)  The guest reads a page it made volatile: the page a failed
\* make_stable would next make it drop.
ReadOfVolatilePage == lastOp'.op = "GuestRead" /\ belief[lastOp'.page] = "V"
\* What AddressingExceptionOnlyIfUnusedInv is about (its witness): a load or store of the guest
\* on the 2007 machine, where an unused page would raise the exception.
GuestAccessTaken == lastOp.op \in {"GuestRead", "GuestWrite"}
\* (GuestDirtyRecordInv.)  make_stable succeeded on a page the guest stored to and has not
\* written back (a modified P page): its record of the writeback it owes must survive.
MadeStableWhileDirty     == lastOp.op = "GuestMakeStable" /\ modified[lastOp.page]
\* (GuestAccessInUseProp, under bare ESSAs.)  The guest writes back a page it made potentially
\* volatile.
WritebackOfPPage         == lastOp'.op = "GuestWriteback" /\ belief[lastOp'.page] = "P"
\* (GuestOrcProp.)  The guest makes a writably mapped page potentially volatile (ORC 4).
MakePotentiallyVolatileTaken == lastOp'.op = "GuestMakePotentiallyVolatile"
\* (UnusedBitPresentInv.)  A page whose host PTE carries _PAGE_UNUSED (StaleUnusedBit).
UnusedBitSet == \E p \in Pages : pteUnused[p]
\* (GmapPteResidentInv.)  A page whose gmap PTE aging has made invalid.
AgedGmapPte == \E p \in Pages : gmapPte[p] = "Aged"
\* (ReadReturnsOwedInv, D320.)  After the VM migrated, the guest reads on the destination content it
\* stored.
ReadOnDestination ==
    migrated /\ lastOp.op = "GuestRead" /\ lastOp.outcome = "Value" /\ lastOp.value # 0
\* (BelievedStableContentKeptInv, D327.)  Content the guest is owed, of a page make_stable has just made
\* stable again, away from any frame (the host swapped it out while it was P): what the guest is
\* owed survives make_stable's success.
MadeStableOwedAway ==
    /\ lastOp.op = "GuestMakeStable" /\ lastOp.page \in Pages
    /\ belief[lastOp.page] = "S" /\ owed[lastOp.page] \notin {NoValue, 0} /\ ~valid[lastOp.page]
\* (GuestStableBeliefInv, D324.)  The guest allocates a page the host held unused (R1 reports U)
\* and believes it stable.
ReallocatedPage ==
    /\ lastOp.op = "GuestAlloc" /\ lastOp.outcome \in {"Done", "Interpreted"}
    /\ lastOp.result % 16 \in 4 .. 7 /\ belief[lastOp.page] = "S"

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

(***************************************************************************)
(* GivenUpPageFreedProp.  The point of the design: the host reclaims the   *)
(* memory the guest does not need.  Paper, section 2: U, "The host may     *)
(* discard the page content at will"; [Z1]: CP "steals unused, volatile    *)
(* and clean P pages first and never writes volatile pages to paging       *)
(* storage"; sources 2: reclaim drops a U page "not swapped", and CBRL     *)
(* processing frees the swap slot of a page made U or Z.  A page the guest *)
(* gave up (GivenUp, ESSA.tla) eventually costs the host neither a frame   *)
(* nor a swap slot, unless the guest takes it back first.  Checked under   *)
(* HostFairSpec, the intercepted path (ESSA.tla).                          *)
(***************************************************************************)
Unbacked(p) == ~valid[p] /\ ~swapped[p]
GivenUpPageFreedProp == \A p \in Pages : GivenUp(p) ~> (Unbacked(p) \/ ~GivenUp(p))

\* (GivenUpPageFreedProp.)  A CBRL zap frees the swap slot of a page the guest gave up (the
\* swap-slot half of the promise, which no reclaim keeps).
GivenUpSlotZapped == lastOp'.op = "HostProcessCBRL" /\ lastOp'.outcome = "Zapped"
\* (GivenUpPageFreedProp.)  The 2007 host reclaims a page the guest made volatile: it discards it
\* to Vz, with no copy on swap.
GivenUpVolatileDiscarded == lastOp'.op = "HostReclaim" /\ usage[lastOp'.page] = "V"

(***************************************************************************)
(* GivenUpPageFreedOnceListFullProp.  The same promise on the machine's    *)
(* path, with the fairness that path has (MachineFairSpec, ESSA.tla): the  *)
(* machine queues the discard of a page that is not resident and the host  *)
(* zaps it only when the list fills (sources 2: "when the list is full it  *)
(* intercepts and handle_essa processes it").  A page the guest gave up    *)
(* eventually costs the host neither a frame nor a swap slot, or waits     *)
(* queued on a list that is not full, unless the guest takes it back.      *)
(***************************************************************************)
GivenUpPageFreedOnceListFullProp ==
    \A p \in Pages :
        GivenUp(p) ~> (Unbacked(p) \/ ~GivenUp(p) \/ (Queued(p) /\ Len(cbrl) < CBRLSize))

\* (QueuedDiscardProcessedProp.)  The host processes an entry while another is still queued
\* behind it: the list is worked off entry by entry.
CBRLEntryProcessedWithMoreQueued ==
    lastOp'.op = "HostProcessCBRL" /\ Len(cbrl) >= 2

(***************************************************************************)
(* NoAgedPageReportedPreserved.  A scenario, not a promise: sources 3.4,   *)
(* "Aging (gmap_clear_young_pte, S8) sets the hardware invalid bit and     *)
(* leaves the page present: ESSA then sees a resident page as not valid    *)
(* [INFERENCE: extract reports preserved ...]" (D105).  Stated as what    *)
(* the guest would wish (an extract of a resident, aged page does not say *)
(* preserved, content 2 of the result byte), so that TLC's counterexample  *)
(* shows the new gmap's extract saying it: MCESSA_KVMGmapAgedScenario must *)
(* violate it, and its twin MCESSA_Twin_AgedScenarioPteKept (aging that    *)
(* leaves the PTE valid, AgedPte <- AgedPteValid) holds.  No THEOREM: the  *)
(* design does not keep it, and nothing a guest relies on rests on it.    *)
(***************************************************************************)
NoAgedPageReportedPreserved ==
    ~(/\ lastOp.op = "GuestExtract" /\ lastOp.outcome \in {"Done", "Interpreted"}
      /\ lastOp.page \in Pages
      /\ valid[lastOp.page] /\ gmapPte[lastOp.page] = "Aged"
      /\ lastOp.result % 4 = 2)

(***************************************************************************)
(* The contract of ESSA.tla as theorems, each under the constants for      *)
(* which it holds.  TLC checks each in the models named; the manifest     *)
(* lists the others.  A THEOREM here is the claim, the model's .cfg is     *)
(* what backs it, and a finding or twin shows what the hypothesis rules    *)
(* out.                                                                    *)
(***************************************************************************)
\* No data loss.  MCESSA_Paper2007, MCESSA_Paper2007Two, MCESSA_KVMGmapFixed,
\* MCESSA_KVMGmapPrebuilt, MCESSA_KVMClassicModern, MCESSA_KVMClassicCMMAOff,
\* MCESSA_KVMClassicModernNoKeys, MCESSA_KVMGmapModernNoKeys (MCESSA_KVMClassicTwoPages, deep).
\* Today's guest issues no ORC 3 to 6, so on KVM the change bit, and with it the storage keys,
\* decide nothing it relies on; findings MCESSA_Finding_F7_KVMGmapStickyZero, MCESSA_Finding_F8_KVMGmapCBRLGuestAddress, MCESSA_Finding_F9_KVMGmapStaleUnusedBit.
THEOREM (Impl = "Paper2007" \/ (ModernGuest /\ Bugs = {}))
            => (Spec => []BelievedStableContentKeptInv)
\* MCESSA_Paper2007, MCESSA_Paper2007Two, MCESSA_KVMClassicKeys, MCESSA_KVMGmapKeys,
\* MCESSA_KVMGmapKeysInterpreted (the machine's path), MCESSA_KVMClassicCMMAOff; findings
\* MCESSA_Finding_F3_KVMClassic, MCESSA_Finding_F3_KVMGmap (no storage keys).
THEOREM ((Impl = "Paper2007" \/ StorageKeys) /\ Bugs = {})
            => (Spec => []ModifiedPContentKeptInv)
\* MCESSA_Paper2007, MCESSA_Paper2007Two, MCESSA_Paper2007CMMAOff; twin MCESSA_Twin_WriteVolatile.
THEOREM (Impl = "Paper2007" /\ ~ModernGuest) => (Spec => []UnwrittenContentKeptInv)
\* MCESSA_KVMClassicMigration, MCESSA_KVMGmapMigration, MCESSA_KVMClassicNoKeysMigration,
\* MCESSA_KVMGmapPrebuilt, MCESSA_KVMClassicCMMAOff, MCESSA_KVMClassicNoKeysTwoPages
\* (MCESSA_KVMClassicTwoPages, deep); twin MCESSA_Twin_Migration.  The 2007 machine does not migrate.
THEOREM (Impl # "Paper2007" /\ Bugs = {}) => (Spec => MigrationKeepsStableContentProp)
\* What the guest asked of each page survives migration.  MCESSA_KVMClassicMigration,
\* MCESSA_KVMGmapMigration, MCESSA_KVMGmapPrebuilt, MCESSA_KVMClassicNoKeysMigration,
\* MCESSA_KVMClassicCMMAOff, MCESSA_KVMClassicNoKeysTwoPages (MCESSA_KVMClassicTwoPages, deep); twin
\* MCESSAMigration_Twin_DirtyOnlyOnQueueArrival (incremental migration, ESSAMigration.tla).
THEOREM (Impl # "Paper2007" /\ Bugs = {}) => (Spec => MigrationKeepsAttributesProp)
\* Right answers.  MCESSA_Paper2007, MCESSA_Paper2007Two, MCESSA_KVMGmapFixed,
\* MCESSA_KVMGmapPrebuilt, MCESSA_KVMClassicModern, MCESSA_KVMClassicCMMAOff,
\* MCESSA_KVMClassicModernNoKeys, MCESSA_KVMGmapModernNoKeys (MCESSA_KVMClassicTwoPages, deep);
\* findings MCESSA_Finding_F1_KVMClassic, MCESSA_Finding_F1_KVMGmap (the 2007 guest on KVM), twin MCESSA_Twin_Reset.
THEOREM (Impl = "Paper2007" \/ (ModernGuest /\ Bugs = {}))
            => (Spec => []GuestStableBeliefInv)
\* The same models; findings MCESSA_Finding_F2_KVMClassic, MCESSA_Finding_F2_KVMGmap.
THEOREM (Impl = "Paper2007" \/ (ModernGuest /\ Bugs = {}))
            => (Spec => []ReadReturnsOwedInv)
\* MCESSA_Paper2007, MCESSA_Paper2007Two, MCESSA_Paper2007CMMAOff; findings MCESSA_Finding_F4_KVMClassic, MCESSA_Finding_F4_KVMGmap.
THEOREM (Impl = "Paper2007" /\ ~ModernGuest) => (Spec => []ReportedZeroReadsZeroInv)
\* Right answers.  MCESSA_Paper2007, MCESSA_Paper2007Two, MCESSA_Paper2007CMMAOff; twin
\* MCESSA_Twin_AddressingExceptionEverywhere.
THEOREM (Impl = "Paper2007" /\ ~ModernGuest) => (Spec => []AddressingExceptionOnlyIfUnusedInv)
\* Progress.  MCESSA_KVMClassicLiveness, MCESSA_KVMGmapLiveness (MCESSA_KVMClassicLivenessTwoPages,
\* deep); twin MCESSA_Twin_CBRLStopsAtKept; on
\* the machine's path MCESSA_KVMGmapMachinePathQueued.
\* The intercepted path only: on the machine's path an entry waits until the list fills.  KVM
\* with CMMA enabled: the 2007 machine queues nothing, and without CMMA no ESSA is carried out.
THEOREM (Impl # "Paper2007" /\ Bugs = {} /\ ~MachineInterpretsESSA /\ CMMAEnabled)
            => (FairSpec => QueuedDiscardProcessedProp)
\* Progress.  MCESSA_Paper2007GivenUpLiveness, MCESSA_KVMClassicGivenUpLiveness
\* (MCESSA_Paper2007GivenUpLivenessTwoPages, deep); twin
\* MCESSA_Twin_GivenUpSwapped.  Not the new gmap: a page freed while no gmap PTE maps it is
\* swapped out on reclaim, finding F14 (MCESSA_Finding_F14_KVMGmapGivenUpSwapped; on the machine's
\* path MCESSA_KVMGmapGivenUpScenario).  Without CMMA no page is given up.
THEOREM (Impl # "KVMGmap" /\ CMMAEnabled) => (HostFairSpec => GivenUpPageFreedProp)
\* The new gmap with the fix F14 proposes (F14FixHostFairSpec, ESSA.tla).
\* MCESSA_KVMGmapF14FixGivenUpLiveness (MCESSA_KVMGmapF14FixGivenUpLivenessTwoPages, deep).
THEOREM (Impl = "KVMGmap" /\ Bugs = {} /\ ~MachineInterpretsESSA /\ CMMAEnabled)
            => (F14FixHostFairSpec => GivenUpPageFreedProp)
\* What CMMA saves the host.  MCESSA_KVMClassicModernNoKeys, MCESSA_KVMGmapModernNoKeys,
\* MCESSA_KVMGmapFixed, MCESSA_KVMClassicKeys, MCESSA_KVMClassicNoKeysTwoPages, MCESSA_KVMClassicCMMAOff,
\* MCESSA_Paper2007, MCESSA_Paper2007Two; twin MCESSA_Twin_UnusedSwapped.
\* In KVM only (the 2007 machine's reclaim drops an unused page by its table, sources 6).
THEOREM (Bugs = {}) => (Spec => UnusedNotSwappedProp)

=============================================================================
