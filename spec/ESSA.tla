-------------------------------- MODULE ESSA --------------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What a guest may rely on from ESSA: the   *)
(* promises of the paper's machine, each a property of ESSAProperties.tla  *)
(* stated there as a THEOREM under the constants for which it holds, with  *)
(* the model whose .cfg checks it and the twin or finding that fails it.   *)
(* Where a KVM implementation breaks one, the counterexample is a finding  *)
(* (docs/findings.md).                                                     *)
(*                                                                         *)
(*   No data loss. StableContentOwedInv: S, "the host is responsible for   *)
(*       preserving the page content" (paper 2); ModifiedPContentKeptInv   *)
(*       and UnwrittenContentKeptInv: P, loss tolerated only "as long as   *)
(*       the page has not been modified" (paper 2);                        *)
(*       MigrationKeepsStableContentProp: the same across migration, where *)
(*       "Z, residency, GC and pending CBRL entries are not migrated"      *)
(*       (sources 5).                                                      *)
(*   Right answers. GuestStableBeliefInv: SetStableIfNotDiscarded "only    *)
(*       moves a page into stable if the page has not been discarded"      *)
(*       (paper 3.2), so a page the guest believes stable is;              *)
(*       ReadResultInv: a read returns what the guest is owed, or the      *)
(*       discard fault; ReportedZeroReadsZeroInv: logically zero, "The     *)
(*       content of the page is considered to be zero" (paper 2).          *)
(*   Progress. QueuedDiscardProcessedProp, under FairSpec: a discard       *)
(*       queued on the CBRL is carried out, "handle_essa zaps every CBRL   *)
(*       entry after each intercepted ESSA" (sources 2).                   *)
(*                                                                         *)
(* The other properties restate what one step does (the ORC table, the     *)
(* result byte, refusals, Z, the CBRL, reset, migration arrival, accesses) *)
(* or check types and the model's bookkeeping (EssaTypeOK, GC, page        *)
(* tables, gmap PTEs, the guest's own records).                            *)
(***************************************************************************)
(***************************************************************************)
(* The ESSA instruction (Extract and Set Storage Attributes) as three real *)
(* implementations define it, under one 2006/07-style Linux guest, so that *)
(* TLC shows where the guest's assumptions break.  Sources: docs/sources.md *)
(* ("sources 2.2" is its section 2.2, "S9" a public-code key); a comment    *)
(* marked [INFERENCE] rests on a point reasoned from the code.            *)
(*                                                                         *)
(* Impl (constant):                                                        *)
(*   "Paper2007"   the 2007 guest-page-hinting model (sources 6): Sr Sp    *)
(*                 Sz Ur Uz Vr Vz Pr, discard fault on Vz, host discards   *)
(*                 V and clean P pages on reclaim.                         *)
(*   "KVMClassic"  Linux KVM, pgste_perform_essa (sources 2).              *)
(*   "KVMGmap"     Linux KVM, dat_perform_essa after the new gmap          *)
(*                 (sources 3), with the three 2026 bugs as options (Bugs). *)
(*                                                                         *)
(* Host state of a page: usage; valid (the host PTE is present: a frame);  *)
(* swapped (the host holds a copy on swap); zbit (KVM's Z: "content was    *)
(* discarded, page is logically zero"); nodat (N); the guest's change bit  *)
(* in its storage key (keyDirty) and the host's copy of it (gc, KVM's GC). *)
(* For Paper2007 the content state is r = valid, p = swapped, z = neither *)
(* (zbit unused).  For KVM it is what __do_essa reports (sources 1): the   *)
(* PTE ESSA looks at valid -> 0, else Z clear -> 2, Z set -> 3.  That PTE  *)
(* is the host PTE in classic KVM and the gmap PTE in the new gmap, which  *)
(* has a state of its own (gmapPte): "Valid", "Aged" (invalid bit set by   *)
(* aging, still present) or "Empty"; and a gmap page table exists only     *)
(* once something allocated it (pageTable).  The host PTE of a resident    *)
(* page may carry the _PAGE_UNUSED bit (pteUnused).                        *)
(*                                                                         *)
(* Discards that KVM queues on the collaborative-memory block-reference   *)
(* list (CBRL) are carried out later (HostProcessCBRL), with guest        *)
(* accesses in between (sources 2, 3.2).                                   *)
(*                                                                         *)
(* The guest keeps its own view (ghost variables): what it is owed on a   *)
(* read (owed), the usage it believes the page has (belief: what it asked *)
(* for and was told it got), and whether it stored to the page since its   *)
(* last writeback (modified).                                              *)
(* docs/findings.md renders what TLC finds.                               *)
(***************************************************************************)
EXTENDS Integers, Sequences

CONSTANTS
    \* @type: Set(PAGE);
    Pages,
    \* @type: PAGE;
    NoPage,
    \* @type: Str;
    Impl,           \* "Paper2007", "KVMClassic" or "KVMGmap"
    \* @type: Bool;
    StorageKeys,    \* the VM uses storage keys, so KVM keeps GC up to date (sources 2)
    \* @type: Bool;
    Facility147,    \* ESSA_SET_STABLE_NODAT (ORC 7) is available
    \* @type: Int;
    CBRLSize,       \* entries the CBRL holds before ESSA intercepts (511 real; small here)
    \* @type: Set(Str);
    Bugs,           \* KVMGmap before the 2026 fixes (S9): a subset of KnownBugs; {} = fixed (D100)
    \* @type: Bool;
    PrebuiltPageTables, \* KVMGmap: the gmap page table exists from the start; FALSE = a new VM (D97)
    \* @type: Bool;
    MachineInterpretsESSA, \* KVMGmap: ESSA may be interpreted by the machine, keeping Z (D101)
    \* @type: Bool;
    ModernGuest,    \* the guest is today's Linux: ORC 0, 1, 2, 7 only (sources 4; D102)
    \* @type: Bool;
    CMMAEnabled     \* CMMA is enabled for the VM; else every ESSA is an operation exception (D103)

VARIABLES
    \* @type: PAGE -> Str;
    usage,
    \* @type: PAGE -> Bool;
    valid,          \* the host PTE is present: the page is in a frame
    \* @type: PAGE -> Bool;
    swapped,
    \* @type: PAGE -> Bool;
    zbit,
    \* @type: PAGE -> Bool;
    nodat,
    \* @type: PAGE -> Int;
    data,           \* content of the frame if valid, else of the swap copy, else 0
    \* @type: PAGE -> Bool;
    keyDirty,       \* the change bit of the guest's storage key
    \* @type: PAGE -> Bool;
    gc,             \* KVM's copy of it (PGSTE GC)
    \* @type: Seq(PAGE);
    cbrl,           \* pages whose discard ESSA queued
    \* @type: Bool;
    pageTable,      \* KVMGmap: the gmap page table of the pages' segment exists (D97)
    \* @type: PAGE -> Str;
    gmapPte,        \* KVMGmap: the gmap PTE, "Valid", "Aged" or "Empty"; "Empty" elsewhere
    \* @type: PAGE -> Bool;
    pteUnused,      \* KVMGmap: _PAGE_UNUSED on the host PTE of a resident page (D100)
    \* @type: PAGE -> Int;
    owed,           \* ghost: what the guest is owed on a read; -1: nothing
    \* @type: PAGE -> Str;
    belief,         \* ghost: the usage the guest believes the page has ("S", "U", "V", "P")
    \* @type: PAGE -> Bool;
    modified,       \* ghost: stores since the guest's last writeback
    \* @type: Bool;
    migrated,       \* the VM has been migrated (KVM only; once)
    \* @type: { op: Str, page: PAGE, orc: Int, result: Int, outcome: Str, value: Int };
    lastOp

HostVars == <<usage, valid, swapped, zbit, nodat, data, keyDirty, gc, cbrl,
              pageTable, gmapPte, pteUnused>>
vars == <<usage, valid, swapped, zbit, nodat, data, keyDirty, gc, cbrl,
          pageTable, gmapPte, pteUnused, owed, belief, modified, migrated, lastOp>>

Impls == {"Paper2007", "KVMClassic", "KVMGmap"}
\* The three 2026 fixes to the new gmap (S9), named by what was wrong before them.
KnownBugs == {"StickyZero", "CBRLGuestAddress", "StaleUnusedBit"}
ASSUME Impl \in Impls /\ CBRLSize >= 1
ASSUME Bugs \subseteq KnownBugs /\ (Bugs # {} => Impl = "KVMGmap")
\* The machine's interpretation is modelled for the new gmap only (D101, D280).
ASSUME MachineInterpretsESSA => Impl = "KVMGmap"
KVM == Impl # "Paper2007"
Gmap == Impl = "KVMGmap"
NoValue == -1
Written == 1        \* the one non-zero content value the guest stores

(***************************************************************************)
(* Encodings shared by every implementation (sources 1).                  *)
(***************************************************************************)
\* ORCs 0..7 are defined; 8 stands for every higher code.
ORCs == 0 .. 8
\* The PTE ESSA looks at is valid: the host PTE (classic, 2007), the gmap PTE (sources 3).
EssaValid(p) == IF Gmap THEN gmapPte[p] = "Valid" ELSE valid[p]
UsageBits(u) == CASE u = "S" -> 0 [] u = "U" -> 4 [] u = "P" -> 8 [] u = "V" -> 12
ContentBits(p) ==
    IF EssaValid(p) THEN 0
    ELSE IF KVM THEN (IF zbit[p] THEN 3 ELSE 2)
    ELSE IF swapped[p] THEN 2 ELSE 3
\* The byte ESSA leaves in R1: the state before the operation.
ResultByte(p) == ContentBits(p) + UsageBits(usage[p]) + (IF nodat[p] THEN 32 ELSE 0)
ExceptionIndication == 16
\* "Anything higher raises a specification exception"; ORC 7 needs facility 147,
\* which the 2007 machine never had (ORC 7 did not exist; D104).
SpecificationException(orc) ==
    orc > 7 \/ (orc = 7 /\ (~Facility147 \/ Impl = "Paper2007"))
\* With CMMA not enabled for the VM, ESSA is an operation exception (S2 handle_essa).
CMMAOn == CMMAEnabled
\* KVMGmap: dat_perform_essa walks the gmap without allocating (D97).
PageTableNeeded == Gmap
\* The 2007 model's ORC 5 pages the page in: Sp -> Sr drops the swap copy (D104).
Orc5DropsSwap == TRUE

\* Every step but Migrate records itself here, and so leaves migrated alone.
Record(op, p, orc, result, outcome, value) ==
    /\ lastOp' = [op |-> op, page |-> p, orc |-> orc, result |-> result,
                  outcome |-> outcome, value |-> value]
    /\ UNCHANGED migrated

\* An ESSA refused with a program interruption or the exception indication:
\* nothing changes but the record.
Refuse(op, p, orc, result, outcome) ==
    /\ Record(op, p, orc, result, outcome, NoValue)
    /\ UNCHANGED HostVars

(***************************************************************************)
(* ESSA's effect on the host state, per implementation: a record of the   *)
(* new usage, N, Z, and whether the page was queued on the CBRL; for       *)
(* Paper2007 also whether the content was dropped at once.  Each table is  *)
(* an IF chain, read top down like the tables of sources 2 and 3 (a row    *)
(* applies only if no row above it does).                                  *)
(***************************************************************************)
Effect(u, n, z, queue, drop) == [u |-> u, n |-> n, z |-> z, queue |-> queue, drop |-> drop]

\* Sources 6 and the paper's section 2 (Figure 3 machine).  ORC 5 makes the page
\* resident (its name in the 2007 series: SET_STABLE_MAKE_RESIDENT); ORC 6
\* fails on Vz; ORC 7 did not exist (a specification exception, D104).
Paper2007Effect(orc, p) ==
    LET u == usage[p]
        preserved == ~valid[p] /\ swapped[p]
        zero == ~valid[p] /\ ~swapped[p]
    IN IF orc = 0 THEN Effect(u, nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 1 \/ orc = 5 THEN Effect("S", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 2 THEN Effect("U", nodat[p], FALSE, FALSE, preserved)   \* Sp -> Uz
       ELSE IF orc = 3 THEN Effect("V", nodat[p], FALSE, FALSE, preserved)   \* Sp -> Vz
       ELSE IF orc = 4 /\ zero THEN Effect("V", nodat[p], FALSE, FALSE, FALSE)   \* P on zero gives Vz
       ELSE IF orc = 4 /\ preserved /\ keyDirty[p] THEN Effect("S", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 4 /\ preserved THEN Effect("V", nodat[p], FALSE, FALSE, TRUE)   \* clean: discard
       ELSE IF orc = 4 THEN Effect("P", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 6 /\ u = "V" /\ zero THEN Effect(u, nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 6 THEN Effect("S", nodat[p], FALSE, FALSE, FALSE)
       ELSE Effect(u, nodat[p], FALSE, FALSE, FALSE)

\* Sources 2, pgste_perform_essa.  Whenever it queues a CBRL entry it sets
\* Z; it never clears Z.  ORC 4 on a non-resident page consults GC, which is
\* kept only when the VM uses storage keys [INFERENCE, sources 2].
ClassicEffect(orc, p) ==
    LET u == usage[p]  v == valid[p]  z == zbit[p]  n == nodat[p]
    IN IF orc = 0 THEN Effect(u, n, z, FALSE, FALSE)
       ELSE IF orc = 1 THEN Effect("S", FALSE, z, FALSE, FALSE)
       ELSE IF orc = 2 /\ v THEN Effect("U", n, z, FALSE, FALSE)
       ELSE IF orc = 2 THEN Effect("U", n, TRUE, TRUE, FALSE)
       ELSE IF orc = 3 /\ v THEN Effect("V", n, z, FALSE, FALSE)
       ELSE IF orc = 3 THEN Effect("V", n, TRUE, TRUE, FALSE)
       ELSE IF orc = 4 /\ v THEN Effect("P", n, z, FALSE, FALSE)
       ELSE IF orc = 4 /\ z THEN Effect("V", n, TRUE, FALSE, FALSE)
       ELSE IF orc = 4 /\ ~gc[p] THEN Effect("V", n, TRUE, TRUE, FALSE)
       ELSE IF orc = 4 THEN Effect("S", n, z, FALSE, FALSE)
       ELSE IF orc = 5 THEN Effect("S", n, z, FALSE, FALSE)   \* not made resident (sources 2)
       ELSE IF orc = 6 /\ v THEN Effect("S", n, z, FALSE, FALSE)
       ELSE IF orc = 6 THEN Effect(u, n, z, FALSE, FALSE)      \* "if resident", not "if not discarded"
       ELSE IF orc = 7 THEN Effect("S", TRUE, z, FALSE, FALSE)
       ELSE Effect(u, n, z, FALSE, FALSE)

\* Sources 3, dat_perform_essa: Z = "this call queued a discard", so every
\* call that queues none clears Z; ORC 4 on a changed non-resident page leaves
\* the usage as it was.  "Valid" is the gmap PTE's.
GmapEffect(orc, p) ==
    LET u == usage[p]  v == EssaValid(p)  z == zbit[p]  n == nodat[p]
    IN IF orc = 0 THEN Effect(u, n, FALSE, FALSE, FALSE)
       ELSE IF orc = 1 THEN Effect("S", FALSE, FALSE, FALSE, FALSE)
       ELSE IF orc = 2 /\ v THEN Effect("U", n, FALSE, FALSE, FALSE)
       ELSE IF orc = 2 THEN Effect("U", n, TRUE, TRUE, FALSE)
       ELSE IF orc = 3 /\ v THEN Effect("V", n, FALSE, FALSE, FALSE)
       ELSE IF orc = 3 THEN Effect("V", n, TRUE, TRUE, FALSE)
       ELSE IF orc = 4 /\ v THEN Effect("P", n, FALSE, FALSE, FALSE)
       ELSE IF orc = 4 /\ z THEN Effect("V", n, FALSE, FALSE, FALSE)
       ELSE IF orc = 4 /\ ~gc[p] THEN Effect("V", n, TRUE, TRUE, FALSE)
       ELSE IF orc = 4 THEN Effect(u, n, FALSE, FALSE, FALSE)
       ELSE IF orc = 5 THEN Effect("S", n, FALSE, FALSE, FALSE)
       ELSE IF orc = 6 /\ v THEN Effect("S", n, FALSE, FALSE, FALSE)
       ELSE IF orc = 6 THEN Effect(u, n, FALSE, FALSE, FALSE)
       ELSE IF orc = 7 THEN Effect("S", TRUE, FALSE, FALSE, FALSE)
       ELSE Effect(u, n, FALSE, FALSE, FALSE)

\* ESSA reads these tables only for an ORC it does not refuse (SpecificationException
\* first): 0 .. 6, and 7 with facility 147 outside the 2007 model.  So each table's ORC 7 row
\* (the 2007 table's ORC 6 row) is reached with effect by that ORC alone, and the final ELSE
\* by none (D325).
EssaEffect(orc, p) ==
    IF Impl = "Paper2007" THEN Paper2007Effect(orc, p)
    ELSE IF Impl = "KVMClassic" THEN ClassicEffect(orc, p)
    ELSE GmapEffect(orc, p)

\* KVMGmap outside migration mode: handle_essa turns on interpretation
\* (ECB2_CMMA) and retries, so the machine executes the guest's ESSAs; the
\* intercepted path (dat_perform_essa) runs for a vCPU's first ESSA and in
\* migration mode.  The machine keeps Z unless it queues a discard, as classic
\* KVM's imitation of it does [INFERENCE from the S9 fix: "If a discarded page
\* is reused before _essa_clear_cbrl() is called, and the pgste.zero bit is not
\* cleared"; D101].  It needs the page table; without one ESSA is intercepted.
\* (Gmap is implied by the ASSUME, and pageTable by ESSA's check before it: both
\* conjuncts are for the reader, D280.)
InterpretedPaths == IF MachineInterpretsESSA /\ Gmap /\ pageTable THEN {FALSE, TRUE} ELSE {FALSE}

\* One ESSA by the guest in supervisor state, on a page in guest memory.
\* The checks of handle_essa come first, in its order (S2, S7): CMMA enabled
\* (PIC 1), the ORC (PIC 6); then the gmap walk (0x10, D97).  A queued discard
\* needs room on the CBRL: a full list makes the instruction intercept, and the
\* host empties it first (HostProcessCBRL).  ORC 5 in the 2007 model pages the
\* page in (the fault is the host's): the page becomes resident, its swap copy
\* is dropped (Sp -> Sr; D104).
ESSA(op, orc, p) ==
    LET e == EssaEffect(orc, p)
        r == ResultByte(p)
    IN  IF ~CMMAOn THEN Refuse(op, p, orc, NoValue, "OperationException")
        ELSE IF SpecificationException(orc)
        THEN Refuse(op, p, orc, NoValue, "SpecificationException")
        ELSE IF PageTableNeeded /\ ~pageTable
        THEN Refuse(op, p, orc, ExceptionIndication, "ExceptionIndication")
        ELSE \E interpreted \in InterpretedPaths :
             /\ e.queue => Len(cbrl) < CBRLSize
             /\ usage' = [usage EXCEPT ![p] = e.u]
             /\ nodat' = [nodat EXCEPT ![p] = e.n]
             /\ zbit' = [zbit EXCEPT ![p] = IF interpreted THEN e.queue \/ @ ELSE e.z]
             /\ cbrl' = IF e.queue THEN Append(cbrl, p) ELSE cbrl
             /\ IF Impl = "Paper2007" /\ orc = 5 /\ ~valid[p]
                THEN /\ valid' = [valid EXCEPT ![p] = TRUE]
                     /\ swapped' = [swapped EXCEPT ![p] = IF Orc5DropsSwap THEN FALSE ELSE @]
                     /\ UNCHANGED data
                ELSE /\ swapped' = [swapped EXCEPT ![p] = IF e.drop THEN FALSE ELSE @]
                     /\ data' = [data EXCEPT ![p] = IF e.drop THEN 0 ELSE @]
                     /\ UNCHANGED valid
             /\ Record(op, p, orc, r, IF interpreted THEN "Interpreted" ELSE "Done", NoValue)
             /\ UNCHANGED <<keyDirty, gc, pageTable, gmapPte, pteUnused>>

(***************************************************************************)
(* The guest: the 2006/07 Linux guest (sources 6; paper section 3), or     *)
(* with ModernGuest today's Linux (sources 4: ORC 1 on allocation, 2 on    *)
(* free, 7 with facility 147, 0 to test; never 3 to 6).  Each guest step   *)
(* is one ESSA (or one access) and updates what the guest believes.        *)
(***************************************************************************)
GuestVars == <<owed, belief, modified>>

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
\* belief and owed say which pages the 2007 guest offers (page-cache pages in
\* use, with content); a guest that offers more (again a page it made V or P,
\* or a page it owes nothing) loses nothing it needs, and no property objects
\* (D250).
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
\* the guest asks for (D250).
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
DiscardFault(p) == ~KVM /\ usage[p] = "V" /\ ~valid[p] /\ ~swapped[p]
AddressingException(p) == ~KVM /\ usage[p] = "U"

\* _gmap_ptep_xchg clears Z since the fix "always clear pgste.zero in
\* _gmap_ptep_xchg" (S9); before it, Z survived the exchange (D100).
XchgZ(p) == IF "StickyZero" \in Bugs THEN zbit[p] ELSE FALSE

\* The fault of an access: the page is mapped for ESSA afterwards.
FaultIn(p) ==
    /\ valid' = [valid EXCEPT ![p] = TRUE]
    /\ swapped' = [swapped EXCEPT ![p] = IF valid[p] THEN @ ELSE FALSE]
    /\ IF Gmap
       THEN /\ zbit' = [zbit EXCEPT ![p] = XchgZ(p)]
            /\ gmapPte' = [gmapPte EXCEPT ![p] = "Valid"]
            /\ pageTable' = TRUE
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
WritebackResetsGC == TRUE
ResetChangeBit(op, p) ==
    /\ keyDirty' = [keyDirty EXCEPT ![p] = FALSE]
    /\ gc' = IF KVM /\ StorageKeys /\ WritebackResetsGC THEN [gc EXCEPT ![p] = FALSE] ELSE gc
    /\ pageTable' = IF Gmap /\ StorageKeys THEN TRUE ELSE pageTable
    /\ Record(op, p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, cbrl, gmapPte, pteUnused>>

\* A read of a page the guest holds content of.  On the discard fault the handler
\* drops the page (sources 6: it "removes the page from the cache"): the guest is
\* owed nothing of it.  A guest that kept it would only fault again, and its next
\* make_stable fails on Vz and drops it then (paper 3.2): no property objects, and
\* the drop stays as the 2007 handler's (D312).
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
(* The host.                                                                *)
(***************************************************************************)

\* When the PTE ESSA looks at goes invalid, KVM saves the storage key into
\* the PGSTE (GC = the key's change bit) if the VM uses storage keys.  Only
\* KVM's steps use it, so the KVM conjunct is for the reader (D194).
SavedGC(p) == IF KVM /\ StorageKeys THEN keyDirty[p] ELSE gc[p]

\* Reclaim of a resident page.  Paper2007 (sources 6): Ur -> Uz, Sr -> Sp,
\* Vr -> Vz, Pr -> Sp if dirty, Vz if clean.  KVM (sources 2, 3.3): an unused
\* page is dropped (no swap, Z not set); every other page is swapped out like
\* a stable one.  In the new gmap, what marks the page unused for core mm is
\* _PAGE_UNUSED on the host PTE: KVM's MMU notifier sets it when it unmaps a
\* present gmap PTE of a U page; a bit left from an earlier unmap counts too
\* (StaleUnusedBit, D100).  The unmap is a _gmap_ptep_xchg (XchgZ); in classic
\* KVM no gmap PTE ever exists (gmapPte stays "Empty"), so the Gmap conjunct
\* only says so (D194).
HostReclaim(p) ==
    /\ valid[p]
    /\ valid' = [valid EXCEPT ![p] = FALSE]
    /\ IF KVM
       THEN LET drop == IF Gmap THEN pteUnused[p] \/ (usage[p] = "U" /\ gmapPte[p] # "Empty")
                        ELSE usage[p] = "U"
            IN  /\ swapped' = [swapped EXCEPT ![p] = ~drop]
                /\ data' = [data EXCEPT ![p] = IF drop THEN 0 ELSE @]
                /\ gc' = [gc EXCEPT ![p] = SavedGC(p)]
                /\ zbit' = [zbit EXCEPT ![p] = IF Gmap /\ gmapPte[p] # "Empty" THEN XchgZ(p) ELSE @]
                /\ gmapPte' = [gmapPte EXCEPT ![p] = "Empty"]
                /\ pteUnused' = [pteUnused EXCEPT ![p] = FALSE]
                /\ UNCHANGED usage
       ELSE LET keep == usage[p] = "S" \/ (usage[p] = "P" /\ keyDirty[p])
            IN  /\ swapped' = [swapped EXCEPT ![p] = keep]
                /\ data' = [data EXCEPT ![p] = IF keep THEN @ ELSE 0]
                /\ usage' = [usage EXCEPT ![p] = IF usage[p] = "P" /\ keep THEN "S"
                                                 ELSE IF usage[p] = "P" THEN "V"
                                                 ELSE @]
                /\ UNCHANGED <<gc, zbit, gmapPte, pteUnused>>
    /\ Record("HostReclaim", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<nodat, keyDirty, cbrl, pageTable, owed, belief, modified>>

\* KVMGmap: core mm changes the host PTE of a resident page for a reason other
\* than reclaim (a protection change, a page migration that keeps the page
\* resident).  KVM's MMU notifier unmaps the gmap PTE (_gmap_unmap_pte, an
\* xchg) and, since "KVM has no way to know why a page is being unmapped", sets
\* _PAGE_UNUSED on the host PTE of a U page (gmap_helper_try_set_pte_unused).
\* Core mm then sets the host PTE again: since the CVE-2026-72412 fix every
\* set_pte of a present PTE clears the bit; before it, it stayed (D100), also
\* through a later unmap of the page once it is no longer U: nothing but a reclaim
\* (the host PTE emptied) or a migration (a new VM) takes it away.
HostUnmapGmap(p) ==
    /\ Gmap
    /\ gmapPte[p] # "Empty"
    /\ gmapPte' = [gmapPte EXCEPT ![p] = "Empty"]
    /\ zbit' = [zbit EXCEPT ![p] = XchgZ(p)]
    /\ gc' = [gc EXCEPT ![p] = SavedGC(p)]
    /\ pteUnused' = [pteUnused EXCEPT ![p] = @ \/ ("StaleUnusedBit" \in Bugs /\ usage[p] = "U")]
    /\ Record("HostUnmapGmap", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, nodat, data, keyDirty, cbrl, pageTable,
                   owed, belief, modified>>

\* KVMGmap: aging (gmap_clear_young_pte) sets the gmap PTE's invalid bit and
\* leaves it present: ESSA sees a resident page as not valid (sources 3.4; D105).
\* Its exchange clears Z, which is already clear on a page whose gmap PTE is
\* valid (the fault-in that made it valid cleared it); the update says what the
\* kernel does (D310).
AgedPte == "Aged"
HostAge(p) ==
    /\ Gmap
    /\ gmapPte[p] = "Valid"
    /\ gmapPte' = [gmapPte EXCEPT ![p] = AgedPte]
    /\ zbit' = [zbit EXCEPT ![p] = XchgZ(p)]
    /\ gc' = [gc EXCEPT ![p] = SavedGC(p)]
    /\ Record("HostAge", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, nodat, data, keyDirty, cbrl, pageTable, pteUnused,
                   owed, belief, modified>>

\* Where _essa_clear_cbrl's zap lands for the entry of page p.  Fixed: p's
\* host page.  Before the fix (CBRLGuestAddress, S9) the helper was handed the
\* guest absolute address as a host virtual one: whatever host page the VMM
\* happens to map there (the layout is the VMM's), another guest page or
\* nothing; never p itself, which QEMU does not map at its own guest address.
ZapTargets(p) ==
    IF "CBRLGuestAddress" \in Bugs THEN (Pages \ {p}) \cup {NoPage} ELSE {p}

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
ResetUsage(p) == "S"
HostResetCMMA ==
    /\ KVM
    /\ usage' = [p \in Pages |-> ResetUsage(p)]
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
\* A page with neither a frame nor a swap copy holds 0 in every reachable state, so the content
\* Migrate moves is data itself; it is written out to say that the content travels by RAM
\* migration, read as the guest would read it (D325).
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
(* intercepted path, and at the latest when the list fills on the          *)
(* machine's.  Fairness (weak) of HostProcessCBRL: an entry that stays    *)
(* queued is processed.  That is the intercepted path's promise; the       *)
(* machine's path keeps it only while the guest goes on issuing ESSAs      *)
(* that queue (the list then fills and intercepts), which the model does  *)
(* not oblige the guest to do.  No fairness for the guest, and none for    *)
(* the host's other steps: reclaim, aging and migration are its choices.   *)
(***************************************************************************)
FairSpec == Spec /\ WF_vars(HostProcessCBRL)

=============================================================================
