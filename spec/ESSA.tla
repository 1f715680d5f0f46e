-------------------------------- MODULE ESSA --------------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What a guest may rely on from ESSA: the   *)
(* promises of the paper's machine, each a property of ESSAProperties.tla  *)
(* stated there as a THEOREM under the constants for which it holds, with  *)
(* the model whose .cfg checks it and the twin or finding that fails it.   *)
(* Where a KVM implementation breaks one, the counterexample is a finding  *)
(* (docs/findings.md).                                                     *)
(*                                                                         *)
(*   No data loss. BelievedStableContentKeptInv: S, "the host is           *)
(*       responsible for preserving the page content" (paper 2);           *)
(*       ModifiedPContentKeptInv and UnwrittenContentKeptInv: P, loss      *)
(*       tolerated only "as long as the page has not been modified" (paper *)
(*       2); MigrationKeepsStableContentProp: the same across migration,   *)
(*       where "Z, residency, GC and pending CBRL entries are not          *)
(*       migrated" (sources 5).                                            *)
(*   Migration. MigrationKeepsAttributesProp: the destination holds the    *)
(*       usage and N the guest last set, "KVM_S390_GET_CMMA_BITS returns   *)
(*       usage and N per page" (sources 5).                                *)
(*   Right answers. GuestStableBeliefInv: SetStableIfNotDiscarded "only    *)
(*       moves a page into stable if the page has not been discarded"      *)
(*       (paper 3.2), so a page the guest believes stable is;              *)
(*       ReadReturnsOwedInv: a read returns what the guest is owed, or the *)
(*       discard fault; ReportedZeroReadsZeroInv: logically zero, "The     *)
(*       content of the page is considered to be zero" (paper 2);          *)
(*       AddressingExceptionOnlyIfUnusedInv: the guest meets the           *)
(*       addressing exception only on a page it made unused, "An access to *)
(*       a U page raises an addressing exception" (sources 6).             *)
(*   Progress. QueuedDiscardProcessedProp, under FairSpec: a discard       *)
(*       queued on the CBRL is carried out, "handle_essa zaps every CBRL   *)
(*       entry after each intercepted ESSA" (sources 2), on the            *)
(*       intercepted path; GivenUpPageFreedProp, under HostFairSpec: a     *)
(*       page the guest gave up ends in no frame and no swap slot, the     *)
(*       host reclaiming memory the guest does not need (paper 2: U, "The  *)
(*       host may discard the page content at will"; [Z1]).                *)
(*       The new gmap keeps it with the fix finding F14 proposes           *)
(*       (F14FixHostFairSpec) and not without.                             *)
(*   What CMMA saves. UnusedNotSwappedProp: in KVM a reclaim never writes  *)
(*       to swap a page core mm is told is unused, "a page whose usage is  *)
(*       U is dropped, not swapped" (sources 2).                           *)
(*   Refinement. ESSARefinesPageStates.tla: the 2007 model is the          *)
(*       page-state machine in its z/VM-prototype variant                  *)
(*       (RefinesZVMSpec); the KVM implementations' departures from it are *)
(*       findings F1 to F4.                                                *)
(*   No queued zap lands on kept content. QueuedZapHarmlessInv             *)
(*       (ESSAQueuedZap.tla): a zap drops only content the guest gave up,  *)
(*       "without it a page freed and quickly reused could be discarded by *)
(*       a later CBRL pass" (sources 3.3).                                 *)
(*                                                                         *)
(* The instruction's own promises, OrcContractProp and ResultByteProp, are *)
(* ESSABareInstruction.tla's contract.  The other properties restate what  *)
(* one step does (refusals, Z, the CBRL, reset, migration arrival,         *)
(* accesses) or check types and the model's bookkeeping (EssaTypeOK, GC,   *)
(* page tables, gmap PTEs, the guest's own records).                       *)
(***************************************************************************)
(***************************************************************************)
(* The ESSA instruction (Extract and Set Storage Attributes) as three real *)
(* implementations define it, under one 2006/07-style Linux guest, so that *)
(* TLC shows where the guest's assumptions break.  This module puts the    *)
(* pieces together: the shared machine (ESSAMachine.tla), each            *)
(* implementation's ESSA table and host paths (ESSAPaper2007.tla,          *)
(* ESSAKVMClassic.tla, ESSAKVMGmap.tla), and here the instruction itself,  *)
(* the guest's accesses, the guest, the host steps every implementation    *)
(* shares, and Next.  Read ESSAMachine.tla first (docs/specification.md   *)
(* gives a reading path).  Sources: docs/sources.md.  docs/findings.md     *)
(* renders what TLC finds.                                                 *)
(***************************************************************************)
EXTENDS ESSAPaper2007, ESSAKVMClassic, ESSAKVMGmap

(***************************************************************************)
(* The instruction.                                                        *)
(***************************************************************************)
\* "Anything higher raises a specification exception"; ORC 7 needs facility 147,
\* which the 2007 machine never had (ORC 7 did not exist; D104).
SpecificationException(orc) ==
    orc > 7 \/ (orc = 7 /\ (~Facility147 \/ Impl = "Paper2007"))
\* With CMMA not enabled for the VM, ESSA is an operation exception (S2 handle_essa).
CMMAOn == CMMAEnabled

\* The table of the implementation the VM runs on.  ESSA reads it only for an
\* ORC it does not refuse (SpecificationException first).
EssaEffect(orc, p) ==
    IF Impl = "Paper2007" THEN Paper2007Effect(orc, p)
    ELSE IF Impl = "KVMClassic" THEN ClassicEffect(orc, p)
    ELSE GmapEffect(orc, p)

\* One ESSA by the guest in supervisor state, on a page in guest memory.
\* The checks of handle_essa come first, in its order (S2, S7): CMMA enabled
\* (PIC 1), the ORC (PIC 6); then the gmap walk (0x10, D97).  A queued discard
\* needs room on the CBRL: a full list makes the instruction intercept, and the
\* host empties it first (HostProcessCBRL).  ORC 5 in the 2007 model pages the
\* page in (Paper2007PageIn).  A page the table drops (e.drop, only the 2007
\* table: ORC 2, 3 and 4 on a preserved page) loses its change bit with its
\* content: a discard makes the content logically zero "and resets the
\* reference and change bits" ([Z5]; D6).  The new gmap's machine may interpret
\* the instruction (InterpretedPaths), keeping Z unless it queues.
ESSA(op, orc, p) ==
    LET e == EssaEffect(orc, p)
        r == ResultByte(p)
    IN  IF ~CMMAOn THEN Refuse(op, p, orc, NoValue, "OperationException")
        ELSE IF SpecificationException(orc)
        THEN Refuse(op, p, orc, NoValue, "SpecificationException")
        ELSE IF Gmap /\ ~pageTable   \* the walk does not allocate (sources 3)
        THEN Refuse(op, p, orc, ExceptionIndication, "ExceptionIndication")
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

(***************************************************************************)
(* The guest: the 2006/07 Linux guest (sources 6; paper section 3), or     *)
(* with ModernGuest today's Linux (sources 4: ORC 1 on allocation, 2 on    *)
(* free, 7 with facility 147, 0 to test; never 3 to 6).  Each guest step   *)
(* is one ESSA (or one access) and updates what the guest believes.        *)
(***************************************************************************)
\* Allocation: arch_alloc_page, ORC 1.  The guest is owed nothing yet.
GuestAlloc(p) ==
    /\ ESSA("GuestAlloc", 1, p)
    /\ owed' = [owed EXCEPT ![p] = NoValue]
    /\ belief' = [belief EXCEPT ![p] = "S"]
    /\ UNCHANGED modified

\* Freeing: arch_free_page, ORC 2.
GuestFree(p) ==
    /\ ESSA("GuestFree", 2, p)
    /\ owed' = [owed EXCEPT ![p] = NoValue]
    /\ belief' = [belief EXCEPT ![p] = "U"]
    /\ modified' = [modified EXCEPT ![p] = FALSE]

\* make_volatile of a clean page-cache page (its content is on disk): ORC 3,
\* or ORC 4 when it is writably mapped (PG_writable).  Linux sees the page as
\* clean; stores through a writable mapping set only the storage-key change
\* bit, which is why P exists (paper 2: "Page modification is indicated by the
\* page dirty bit. This bit needs to be accessible by the host").  The guards on
\* belief and owed say which pages the 2007 guest offers: page-cache pages in
\* use, with content (D250).
GuestMakeVolatile(p, orc) ==
    /\ ~ModernGuest
    /\ belief[p] = "S"
    /\ owed[p] # NoValue
    /\ orc = 3 => ~modified[p]
    /\ ESSA(IF orc = 3 THEN "GuestMakeVolatile" ELSE "GuestMakePotentiallyVolatile", orc, p)
    /\ belief' = [belief EXCEPT ![p] = IF orc = 3 THEN "V" ELSE "P"]
    /\ UNCHANGED <<owed, modified>>

\* make_stable (page_set_stable_if_present): ORC 6; the guest reads failure
\* exactly from "old state = V + zero" (sources 6), then drops the page (the
\* page is freed later; the guest is owed nothing from it).  Its record of
\* what it must write back (modified) survives a success (GuestDirtyRecordInv,
\* D247).  The guards on belief and owed, as make_volatile's, say which pages
\* the guest asks for: pages it made volatile and still holds (D250).
GuestMakeStable(p) ==
    /\ ~ModernGuest
    /\ belief[p] \in {"V", "P"}
    /\ owed[p] # NoValue
    /\ ESSA("GuestMakeStable", 6, p)
    /\ LET failed == ResultByte(p) % 16 = 3 + 12   \* usage V, content logically zero
       IN  /\ belief' = [belief EXCEPT ![p] = IF failed THEN "U" ELSE "S"]
           /\ owed' = [owed EXCEPT ![p] = IF failed THEN NoValue ELSE @]
           /\ modified' = [modified EXCEPT ![p] = IF failed THEN FALSE ELSE @]

\* ORC 0 and ORC 7 as a guest issues them (hibernation checks, no-DAT pages).
GuestExtract(p) == ESSA("GuestExtract", 0, p) /\ UNCHANGED GuestVars
GuestSetStableNoDat(p) ==
    /\ belief[p] = "S"
    /\ ESSA("GuestSetStableNoDat", 7, p)
    /\ UNCHANGED GuestVars
\* An undefined operation-request code: a guest bug the instruction must refuse.
GuestBadOrc(p) == ESSA("GuestBadOrc", 8, p) /\ UNCHANGED GuestVars

\* ESSA from problem state (a user program): handle_essa raises the
\* privileged-operation exception (PIC 2) after the CMMA check (S2; D103).
GuestEssaProblemState(p) ==
    /\ IF ~CMMAOn THEN Refuse("GuestEssaProblemState", p, 1, NoValue, "OperationException")
       ELSE Refuse("GuestEssaProblemState", p, 1, NoValue, "PrivilegedOperation")
    /\ UNCHANGED GuestVars

\* ESSA on an address beyond guest memory (D103): classic KVM finds no host
\* mapping and raises an addressing exception (PIC 5, S2 __do_essa); the new
\* gmap's walk fails and R1 = 0x10 for every ORC (S7: the PIC 5 check was
\* removed); the 2007 model raises an addressing exception.  The checks of
\* handle_essa come first.
GuestEssaBeyondMemory ==
    /\ \E orc \in {0, 1} :
          IF ~CMMAOn THEN Refuse("GuestEssaBeyondMemory", NoPage, orc, NoValue, "OperationException")
          ELSE IF Gmap
          THEN Refuse("GuestEssaBeyondMemory", NoPage, orc, ExceptionIndication, "ExceptionIndication")
          ELSE Refuse("GuestEssaBeyondMemory", NoPage, orc, NoValue, "AddressingException")
    /\ UNCHANGED GuestVars

(***************************************************************************)
(* Guest accesses.  A page that is not valid is faulted in by the host:   *)
(* from swap if it has a copy, else as a fresh zero page.  In KVM that     *)
(* clears Z (classic: ptep_set_pte_at; the new gmap: _gmap_ptep_xchg,      *)
(* since the StickyZero fix) and no program interruption reaches the guest *)
(* (sources 2).  In the new gmap a fault installs the gmap PTE, allocating *)
(* the page table (D97), and a page that aging or an unmap left resident   *)
(* is simply mapped again.  The 2007 model raises the discard fault on Vz  *)
(* and an addressing exception on U.                                       *)
(***************************************************************************)
\* The fault of an access: the page is mapped for ESSA afterwards; in classic
\* KVM ptep_set_pte_at clears Z (the 2007 machine keeps none).
FaultIn(p) ==
    /\ valid' = [valid EXCEPT ![p] = TRUE]
    /\ swapped' = [swapped EXCEPT ![p] = IF valid[p] THEN @ ELSE FALSE]
    /\ IF Gmap
       THEN GmapFaultIn(p)
       ELSE /\ zbit' = [zbit EXCEPT ![p] = FALSE]
            /\ UNCHANGED <<gmapPte, pageTable>>

\* Does an access to p fault (in the host)?
Faults(p) == ~EssaValid(p)

\* The host-visible part of the guest's accesses: what the hardware and the
\* host do, without the guest's bookkeeping.  The guest actions below and the
\* conformance suite's trace module (conformance/essa/tla.py), which replays
\* an engine's Read, Write and Writeback requests, both use these.
AccessFault(p) == DiscardFault(p) \/ AddressingException(p)
AccessFaultOutcome(p) == IF DiscardFault(p) THEN "DiscardFault" ELSE "AddressingException"
MapForAccess(p) ==
    IF Faults(p) THEN FaultIn(p) ELSE UNCHANGED <<valid, swapped, zbit, gmapPte, pageTable>>

\* A load: the program interruption, or the content (the page mapped first).
ReadAccess(op, p) ==
    IF AccessFault(p)
    THEN /\ Record(op, p, NoValue, NoValue, AccessFaultOutcome(p), NoValue)
         /\ UNCHANGED HostVars
    ELSE /\ MapForAccess(p)
         /\ Record(op, p, NoValue, NoValue, "Value", data[p])
         /\ UNCHANGED <<usage, nodat, data, keyDirty, gc, cbrl, pteUnused>>

\* A store of v: the program interruption, or the page mapped, the content
\* stored and the change bit set.
WriteAccess(op, p, v) ==
    IF AccessFault(p)
    THEN /\ Record(op, p, NoValue, NoValue, AccessFaultOutcome(p), NoValue)
         /\ UNCHANGED HostVars
    ELSE /\ MapForAccess(p)
         /\ data' = [data EXCEPT ![p] = v]
         /\ keyDirty' = [keyDirty EXCEPT ![p] = TRUE]
         /\ Record(op, p, NoValue, NoValue, "Done", v)
         /\ UNCHANGED <<usage, nodat, gc, cbrl, pteUnused>>

\* The guest resets the change bit after writing the page back.  With storage
\* keys that is an SSKE; on a page that is not resident KVM stores the key in
\* the PGSTE (set_guest_storage_key, dat_set_storage_key), GC included, so GC
\* is reset too; in the new gmap SSKE allocates the page table (D98).
ResetChangeBit(op, p) ==
    /\ keyDirty' = [keyDirty EXCEPT ![p] = FALSE]
    /\ gc' = IF KVM /\ StorageKeys THEN [gc EXCEPT ![p] = FALSE] ELSE gc
    /\ pageTable' = IF Gmap /\ StorageKeys THEN TRUE ELSE pageTable
    /\ Record(op, p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, cbrl, gmapPte, pteUnused>>

\* A read of a page the guest holds content of.  On the discard fault the handler
\* drops the page (sources 6: it "removes the page from the cache"): the guest is
\* owed nothing of it (D312).
GuestRead(p) ==
    /\ owed[p] # NoValue
    /\ ReadAccess("GuestRead", p)
    /\ IF DiscardFault(p)   \* the handler drops the page from the cache
       THEN /\ owed' = [owed EXCEPT ![p] = NoValue]
            /\ UNCHANGED <<belief, modified>>
       ELSE UNCHANGED GuestVars

\* A store to a page the guest uses (stable, or a writably mapped P page).
GuestWrite(p) ==
    /\ belief[p] \in {"S", "P"}
    /\ ~AccessFault(p)
    /\ WriteAccess("GuestWrite", p, Written)
    /\ owed' = [owed EXCEPT ![p] = Written]
    /\ modified' = [modified EXCEPT ![p] = TRUE]
    /\ UNCHANGED belief

\* Writeback: the guest writes the page to disk and resets the change bit.
GuestWriteback(p) ==
    /\ modified[p]
    /\ ResetChangeBit("GuestWriteback", p)
    /\ modified' = [modified EXCEPT ![p] = FALSE]
    /\ UNCHANGED <<owed, belief>>

(***************************************************************************)
(* The host.  Each implementation's part of a reclaim is in its module;    *)
(* the new gmap's unmap and aging (HostUnmapGmap, HostAge) are in          *)
(* ESSAKVMGmap.tla.                                                        *)
(***************************************************************************)

\* Reclaim of a resident page: the frame is taken away, and the rest is as the
\* implementation says (Paper2007Reclaim, ClassicReclaim, GmapReclaim).  Only
\* the 2007 host's discard touches the change bit; the KVMs keep the key.
HostReclaim(p) ==
    /\ valid[p]
    /\ valid' = [valid EXCEPT ![p] = FALSE]
    /\ IF Impl = "Paper2007" THEN Paper2007Reclaim(p)
       ELSE IF Impl = "KVMClassic" THEN ClassicReclaim(p) /\ UNCHANGED keyDirty
       ELSE GmapReclaim(p) /\ UNCHANGED keyDirty
    /\ Record("HostReclaim", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<nodat, cbrl, pageTable, owed, belief, modified>>

\* The reclaim of the new gmap with the fix finding F14 proposes [INFERENCE]
\* (D408, D446): the MMU notifier marks the host PTE of every U page,
\* present gmap PTE or not, so core mm drops an unused page whatever the
\* gmap PTE says.  F14FixHostFairSpec runs it in place of HostReclaim.
F14FixReclaim(p) ==
    /\ Gmap /\ valid[p]
    /\ valid' = [valid EXCEPT ![p] = FALSE]
    /\ GmapReclaimAs(p, TRUE) /\ UNCHANGED keyDirty
    /\ Record("HostReclaim", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<nodat, cbrl, pageTable, owed, belief, modified>>

\* The first CBRL entry is processed (__gmap_zap / _essa_clear_cbrl): if the
\* entry's PTE is not present and the page is U or Z, the zap drops the host
\* PTE it targets if that is a swap entry (sources 2, 3.2).
HostProcessCBRL ==
    /\ cbrl # <<>>
    /\ LET p == Head(cbrl)
           asked == ~valid[p] \/ (Gmap /\ gmapPte[p] = "Empty")
       IN  \E t \in ZapTargets(p) :
           LET zap == asked /\ (usage[p] = "U" \/ zbit[p]) /\ t # NoPage /\ ~valid[t] /\ swapped[t]
           IN  /\ swapped' = IF zap THEN [swapped EXCEPT ![t] = FALSE] ELSE swapped
               /\ data' = IF zap THEN [data EXCEPT ![t] = 0] ELSE data
               /\ Record("HostProcessCBRL", p, NoValue, NoValue,
                         IF ~zap THEN "Kept" ELSE IF t = p THEN "Zapped" ELSE "ZappedOtherPage",
                         NoValue)
    /\ cbrl' = Tail(cbrl)
    /\ UNCHANGED <<usage, valid, zbit, nodat, keyDirty, gc, pageTable, gmapPte, pteUnused,
                   owed, belief, modified>>

\* CMMA reset (KVM): every page becomes S with N cleared; Z is left alone
\* (ptep_zap_unused with reset, dat_reset_cmma; sources 2, 3; D106).  The VM is
\* reset with it: the guest starts again, believes every page stable and is
\* owed nothing it has not written since.
HostResetCMMA ==
    /\ KVM
    /\ usage' = [p \in Pages |-> "S"]
    /\ nodat' = [p \in Pages |-> FALSE]
    /\ belief' = [p \in Pages |-> "S"]
    /\ owed' = [p \in Pages |-> NoValue]
    /\ modified' = [p \in Pages |-> FALSE]
    /\ Record("HostResetCMMA", NoPage, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<valid, swapped, zbit, data, keyDirty, gc, cbrl, pageTable, gmapPte, pteUnused>>

(***************************************************************************)
(* Migration (sources 5, KVM only): the CMMA attributes travel as one byte *)
(* per page, usage and N; "Z, residency, GC and pending CBRL entries are   *)
(* not migrated".  The page contents travel with the RAM migration, which  *)
(* reads every page as the guest would (MigratedContent); on the           *)
(* destination a page with content is resident in the host and a zero page *)
(* arrives untouched (QEMU skips zero pages).  QEMU writes guest RAM       *)
(* through its own mapping, so no gmap PTE exists yet (every page reports  *)
(* preserved in the new gmap until the guest touches it); SET_CMMA_BITS    *)
(* allocates the gmap page tables.  The storage keys travel with their own *)
(* device (s390-skeys) and are set on the destination through               *)
(* set_guest_storage_key / dat_set_storage_key, which write GC from the    *)
(* key's change bit: one rule, GC = the migrated change bit, kept only     *)
(* with storage keys (D99).  Modelled as one step at the end of migration, *)
(* when QEMU applies the attributes ("DONE").                               *)
(***************************************************************************)
\* The content of a page as the RAM migration reads it, as the guest would: the
\* frame's or the swap copy's, else zero.
MigratedContent(p) == IF valid[p] \/ swapped[p] THEN data[p] ELSE 0
\* Z on arrival: the attributes carry none.
ArrivalZ(p) == FALSE
\* GC on arrival: the change bit of the migrated storage key.
ArrivalGC(p) == StorageKeys /\ keyDirty[p]

Migrate ==
    /\ KVM /\ ~migrated
    /\ LET moved == [p \in Pages |-> MigratedContent(p)]
       IN  /\ data' = moved
           /\ valid' = [p \in Pages |-> moved[p] # 0]
    /\ swapped' = [p \in Pages |-> FALSE]
    /\ zbit' = [p \in Pages |-> ArrivalZ(p)]
    /\ gc' = [p \in Pages |-> ArrivalGC(p)]
    /\ cbrl' = <<>>
    /\ pageTable' = TRUE
    /\ gmapPte' = [p \in Pages |-> "Empty"]
    /\ pteUnused' = [p \in Pages |-> FALSE]
    /\ migrated' = TRUE
    /\ lastOp' = [op |-> "Migrate", page |-> NoPage, orc |-> NoValue, result |-> NoValue,
                  outcome |-> "Done", value |-> NoValue]
    /\ UNCHANGED <<usage, nodat, keyDirty, owed, belief, modified>>

(***************************************************************************)
(* A page starts stable and logically zero: in the 2007 model Sz; in KVM   *)
(* no mapping, no swap, Z clear (which KVM reports as preserved, sources   *)
(* 2).  A new gmap VM has no page table yet (D97).  The guest starts with  *)
(* every page in use and owed zero.                                       *)
(***************************************************************************)
Init ==
    /\ usage = [p \in Pages |-> "S"]
    /\ valid = [p \in Pages |-> FALSE]
    /\ swapped = [p \in Pages |-> FALSE]
    /\ zbit = [p \in Pages |-> FALSE]
    /\ nodat = [p \in Pages |-> FALSE]
    /\ data = [p \in Pages |-> 0]
    /\ keyDirty = [p \in Pages |-> FALSE]
    /\ gc = [p \in Pages |-> FALSE]
    /\ cbrl = <<>>
    /\ pageTable = (~Gmap \/ PrebuiltPageTables)
    /\ gmapPte = [p \in Pages |-> "Empty"]
    /\ pteUnused = [p \in Pages |-> FALSE]
    /\ owed = [p \in Pages |-> 0]
    /\ belief = [p \in Pages |-> "S"]
    /\ modified = [p \in Pages |-> FALSE]
    /\ migrated = FALSE
    /\ lastOp = [op |-> "Init", page |-> NoPage, orc |-> NoValue, result |-> NoValue,
                 outcome |-> "None", value |-> NoValue]

GuestNext ==
    \/ GuestEssaBeyondMemory
    \/ \E p \in Pages :
        \/ GuestAlloc(p) \/ GuestFree(p) \/ GuestMakeStable(p)
        \/ GuestMakeVolatile(p, 3) \/ GuestMakeVolatile(p, 4)
        \/ GuestExtract(p) \/ GuestSetStableNoDat(p) \/ GuestBadOrc(p)
        \/ GuestEssaProblemState(p)
        \/ GuestRead(p) \/ GuestWrite(p) \/ GuestWriteback(p)

HostNext ==
    \/ HostProcessCBRL \/ Migrate \/ HostResetCMMA
    \/ \E p \in Pages : HostReclaim(p) \/ HostUnmapGmap(p) \/ HostAge(p)

Next == GuestNext \/ HostNext

Spec == Init /\ [][Next]_vars


(***************************************************************************)
(* Progress: a queued discard is carried out.  Sources 2: the machine      *)
(* "appends non-resident frames that became U or V to the CBRL ...; when   *)
(* the list is full it intercepts and handle_essa processes it", and on   *)
(* the software path "handle_essa zaps every CBRL entry after each         *)
(* intercepted ESSA"; sources 3.2: _essa_clear_cbrl walks the list.  So   *)
(* the host empties the list before the guest's next ESSA on the          *)
(* intercepted path (InterceptedFairness: weak fairness of                 *)
(* HostProcessCBRL, an entry that stays queued is processed), and on the   *)
(* machine's path only when the list is full (MachineFairness: weak        *)
(* fairness of HostProcessCBRL while the list is full, the intercept of    *)
(* the ESSA that finds no room).  No fairness for the guest: on the        *)
(* machine's path an entry in a list that never fills stays queued.       *)
(***************************************************************************)
InterceptedFairness == WF_vars(HostProcessCBRL)
MachineFairness == WF_vars(Len(cbrl) = CBRLSize /\ HostProcessCBRL)

(***************************************************************************)
(* The host's side of the bargain.  Paper, section 2: U, "The host may     *)
(* discard the page content at will"; [Z1]: CP "steals unused, volatile    *)
(* and clean P pages first and never writes volatile pages to paging       *)
(* storage".  A page the guest gave up is the first the host reclaims when *)
(* it needs memory: GivenUp(p), the usage the guest set says the host may  *)
(* drop the content (U; V as well on the 2007 machine, whose reclaim       *)
(* discards V and clean P pages to Vz; KVM swaps V and P pages like S      *)
(* ones, sources 2, and promises nothing of them).  PressureFairness: a    *)
(* host short of memory, weak fairness of the reclaim of each given-up     *)
(* page that is in a frame.  It obliges no other reclaim, and neither     *)
(* aging, unmaps nor migration: those stay the host's choices.             *)
(***************************************************************************)
GivenUpUsages == IF KVM THEN {"U"} ELSE {"U", "V"}
GivenUp(p) == usage[p] \in GivenUpUsages
PressureFairness == \A p \in Pages : WF_vars(GivenUp(p) /\ HostReclaim(p))

\* The intercepted path (classic KVM, the new gmap without the machine's
\* interpretation, and the 2007 machine, which queues nothing).
FairSpec == Spec /\ InterceptedFairness
HostFairSpec == Spec /\ InterceptedFairness /\ PressureFairness
\* The machine's path (MachineInterpretsESSA): the list is processed when full.
MachineFairSpec == Spec /\ MachineFairness /\ PressureFairness

\* The new gmap with F14's fix (F14FixReclaim), on the intercepted path with
\* the same fairness: the host's promise as the fixed new gmap would keep it.
F14FixNext ==
    \/ GuestNext \/ HostProcessCBRL \/ Migrate \/ HostResetCMMA
    \/ \E p \in Pages : F14FixReclaim(p) \/ HostUnmapGmap(p) \/ HostAge(p)
F14FixPressureFairness == \A p \in Pages : WF_vars(GivenUp(p) /\ F14FixReclaim(p))
F14FixHostFairSpec ==
    Init /\ [][F14FixNext]_vars /\ InterceptedFairness /\ F14FixPressureFairness

=============================================================================
