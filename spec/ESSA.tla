-------------------------------- MODULE ESSA --------------------------------
(***************************************************************************)
(* The ESSA instruction (Extract and Set Storage Attributes) as three real *)
(* implementations define it, under one 2006/07-style Linux guest, so that *)
(* TLC shows where the guest's assumptions break.  Source:                 *)
(* ../shared/REAL-IMPLEMENTATIONS.md ("RI"), which summarises public code; *)
(* a comment marked [RI INFERENCE] rests on a point RI marks as inference. *)
(*                                                                         *)
(* Impl (constant):                                                        *)
(*   "Paper2007"   the 2007 guest-page-hinting model (RI 6): states Sr Sp  *)
(*                 Sz Ur Uz Vr Vz Pr, discard fault on Vz, host discards   *)
(*                 V and clean P pages on reclaim.                         *)
(*   "KVMClassic"  Linux KVM, pgste_perform_essa (RI 2.2-2.5).             *)
(*   "KVMGmap"     Linux KVM, dat_perform_essa after the new gmap (RI 3).  *)
(*                                                                         *)
(* Host state of a page: usage; valid (a host mapping, i.e. a frame);      *)
(* swapped (the host holds a copy on swap); zbit (KVM's Z: "content was    *)
(* discarded, page is logically zero"); nodat (N); the guest's change bit  *)
(* in its storage key (keyDirty) and the host's copy of it (gc, KVM's GC). *)
(* For Paper2007 the content state is r = valid, p = swapped, z = neither *)
(* (zbit unused).  For KVM it is what __do_essa reports (RI 1.2): valid -> *)
(* 0, else Z clear -> 2 (preserved), Z set -> 3 (zero).                    *)
(*                                                                         *)
(* Discards that KVM queues on the collaborative-memory block-reference   *)
(* list (CBRL) are carried out later (HostProcessCBRL), with guest        *)
(* accesses in between (RI 2.1, 2.3, 3.2).                                 *)
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
    StorageKeys,    \* the VM uses storage keys, so KVM keeps GC up to date (RI 2.2)
    \* @type: Bool;
    Facility147,    \* ESSA_SET_STABLE_NODAT (ORC 7) is available
    \* @type: Int;
    CBRLSize        \* entries the CBRL holds before ESSA intercepts (511 real; small here)

VARIABLES
    \* @type: PAGE -> Str;
    usage,
    \* @type: PAGE -> Bool;
    valid,
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

vars == <<usage, valid, swapped, zbit, nodat, data, keyDirty, gc, cbrl,
          owed, belief, modified, migrated, lastOp>>

Impls == {"Paper2007", "KVMClassic", "KVMGmap"}
ASSUME Impl \in Impls /\ CBRLSize >= 1
KVM == Impl # "Paper2007"
NoValue == -1
Written == 1        \* the one non-zero content value the guest stores

(***************************************************************************)
(* Encodings shared by every implementation (RI 1.1, 1.2).                *)
(***************************************************************************)
\* ORCs 0..7 are defined; 8 stands for every higher code.
ORCs == 0 .. 8
UsageBits(u) == CASE u = "S" -> 0 [] u = "U" -> 4 [] u = "P" -> 8 [] u = "V" -> 12
ContentBits(p) ==
    IF valid[p] THEN 0
    ELSE IF KVM THEN (IF zbit[p] THEN 3 ELSE 2)
    ELSE IF swapped[p] THEN 2 ELSE 3
\* The byte ESSA leaves in R1: the state before the operation.
ResultByte(p) == ContentBits(p) + UsageBits(usage[p]) + (IF nodat[p] THEN 32 ELSE 0)
ExceptionIndication == 16
\* "Anything higher raises a specification exception"; ORC 7 needs facility 147.
SpecificationException(orc) == orc > 7 \/ (orc = 7 /\ ~Facility147)

\* Every step but Migrate records itself here, and so leaves migrated alone.
Record(op, p, orc, result, outcome, value) ==
    /\ lastOp' = [op |-> op, page |-> p, orc |-> orc, result |-> result,
                  outcome |-> outcome, value |-> value]
    /\ UNCHANGED migrated

(***************************************************************************)
(* ESSA's effect on the host state, per implementation: a record of the   *)
(* new usage, N, Z, and whether the page was queued on the CBRL; for       *)
(* Paper2007 also whether the content was dropped at once.  Each table is  *)
(* an IF chain, read top down like the tables of RI (a row applies only if *)
(* no row above it does).                                                   *)
(***************************************************************************)
Effect(u, n, z, queue, drop) == [u |-> u, n |-> n, z |-> z, queue |-> queue, drop |-> drop]

\* RI 6.2 and the paper's section 2 (Figure 3 machine).  ORC 5 makes the page
\* resident (its name in the 2007 series: SET_STABLE_MAKE_RESIDENT); ORC 6
\* fails on Vz; ORC 7 did not exist (facility 147 is absent for this profile).
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

\* RI table 2.2, pgste_perform_essa.  Whenever it queues a CBRL entry it sets
\* Z; it never clears Z.  ORC 4 on a non-resident page consults GC, which is
\* kept only when the VM uses storage keys [RI INFERENCE, 2.2].
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
       ELSE IF orc = 5 THEN Effect("S", n, z, FALSE, FALSE)   \* not made resident (RI 2.2)
       ELSE IF orc = 6 /\ v THEN Effect("S", n, z, FALSE, FALSE)
       ELSE IF orc = 6 THEN Effect(u, n, z, FALSE, FALSE)      \* "if resident", not "if not discarded"
       ELSE IF orc = 7 THEN Effect("S", TRUE, z, FALSE, FALSE)
       ELSE Effect(u, n, z, FALSE, FALSE)

\* RI table 3.1, dat_perform_essa: Z = "this call queued a discard", so every
\* call that queues none clears Z; ORC 4 on a changed non-resident page leaves
\* the usage as it was.
GmapEffect(orc, p) ==
    LET u == usage[p]  v == valid[p]  z == zbit[p]  n == nodat[p]
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

EssaEffect(orc, p) ==
    IF Impl = "Paper2007" THEN Paper2007Effect(orc, p)
    ELSE IF Impl = "KVMClassic" THEN ClassicEffect(orc, p)
    ELSE GmapEffect(orc, p)

\* One ESSA.  A queued discard needs room on the CBRL: a full list makes the
\* instruction intercept, and the host empties it first (HostProcessCBRL).
\* ORC 5 in the 2007 model pages the page in (the fault is the host's).
ESSA(op, orc, p) ==
    LET e == EssaEffect(orc, p)
        r == ResultByte(p)
    IN  IF SpecificationException(orc)
        THEN /\ Record(op, p, orc, NoValue, "SpecificationException", NoValue)
             /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, keyDirty, gc, cbrl>>
        ELSE /\ e.queue => Len(cbrl) < CBRLSize
             /\ usage' = [usage EXCEPT ![p] = e.u]
             /\ nodat' = [nodat EXCEPT ![p] = e.n]
             /\ zbit' = [zbit EXCEPT ![p] = e.z]
             /\ cbrl' = IF e.queue THEN Append(cbrl, p) ELSE cbrl
             /\ swapped' = [swapped EXCEPT ![p] = IF e.drop THEN FALSE ELSE @]
             /\ data' = [data EXCEPT ![p] = IF e.drop THEN 0 ELSE @]
             /\ IF Impl = "Paper2007" /\ orc = 5 /\ ~valid[p]
                THEN valid' = [valid EXCEPT ![p] = TRUE]
                ELSE UNCHANGED valid
             /\ Record(op, p, orc, r, "Done", NoValue)
             /\ UNCHANGED <<keyDirty, gc>>

(***************************************************************************)
(* The 2006/07 Linux guest (RI 6.4; paper section 3).  Each guest step is  *)
(* one ESSA (or one access) and updates what the guest believes.           *)
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
\* page dirty bit. This bit needs to be accessible by the host").
GuestMakeVolatile(p, orc) ==
    /\ belief[p] = "S"
    /\ owed[p] # NoValue
    /\ orc = 3 => ~modified[p]
    /\ ESSA(IF orc = 3 THEN "GuestMakeVolatile" ELSE "GuestMakePotentiallyVolatile", orc, p)
    /\ belief' = [belief EXCEPT ![p] = IF orc = 3 THEN "V" ELSE "P"]
    /\ UNCHANGED <<owed, modified>>

\* make_stable (page_set_stable_if_present): ORC 6; the guest reads failure
\* exactly from "old state = V + zero" (RI 6.4), then drops the page (the
\* page is freed later; the guest is owed nothing from it).
GuestMakeStable(p) ==
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

(***************************************************************************)
(* Guest accesses.  A page that is not valid is faulted in by the host:   *)
(* from swap if it has a copy, else as a fresh zero page.  In KVM that     *)
(* clears Z (ptep_set_pte_at; the new gmap since the S9 fix) and no       *)
(* program interruption reaches the guest (RI 2.5).  The 2007 model       *)
(* raises the discard fault on Vz and an addressing exception on U.       *)
(***************************************************************************)
DiscardFault(p) == ~KVM /\ usage[p] = "V" /\ ~valid[p] /\ ~swapped[p]
AddressingException(p) == ~KVM /\ usage[p] = "U"

FaultIn(p) ==
    /\ valid' = [valid EXCEPT ![p] = TRUE]
    /\ swapped' = [swapped EXCEPT ![p] = FALSE]
    /\ zbit' = [zbit EXCEPT ![p] = FALSE]

GuestRead(p) ==
    /\ owed[p] # NoValue
    /\ IF DiscardFault(p) \/ AddressingException(p)
       THEN /\ Record("GuestRead", p, NoValue, NoValue,
                      IF DiscardFault(p) THEN "DiscardFault" ELSE "AddressingException", NoValue)
            /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, keyDirty, gc, cbrl>>
       ELSE /\ IF valid[p] THEN UNCHANGED <<valid, swapped, zbit>> ELSE FaultIn(p)
            /\ Record("GuestRead", p, NoValue, NoValue, "Value", data[p])
            /\ UNCHANGED <<usage, nodat, data, keyDirty, gc, cbrl>>
    /\ IF DiscardFault(p)   \* the handler drops the page from the cache
       THEN /\ owed' = [owed EXCEPT ![p] = NoValue]
            /\ UNCHANGED <<belief, modified>>
       ELSE UNCHANGED GuestVars

\* A store to a page the guest uses (stable, or a writably mapped P page).
GuestWrite(p) ==
    /\ belief[p] \in {"S", "P"}
    /\ ~DiscardFault(p) /\ ~AddressingException(p)
    /\ IF valid[p] THEN UNCHANGED <<valid, swapped, zbit>> ELSE FaultIn(p)
    /\ data' = [data EXCEPT ![p] = Written]
    /\ keyDirty' = [keyDirty EXCEPT ![p] = TRUE]
    /\ owed' = [owed EXCEPT ![p] = Written]
    /\ modified' = [modified EXCEPT ![p] = TRUE]
    /\ Record("GuestWrite", p, NoValue, NoValue, "Done", Written)
    /\ UNCHANGED <<usage, nodat, gc, cbrl, belief>>

\* Writeback: the guest writes the page to disk and resets the change bit.
GuestWriteback(p) ==
    /\ modified[p]
    /\ keyDirty' = [keyDirty EXCEPT ![p] = FALSE]
    /\ modified' = [modified EXCEPT ![p] = FALSE]
    /\ Record("GuestWriteback", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, gc, cbrl, owed, belief>>

(***************************************************************************)
(* The host.                                                                *)
(***************************************************************************)

\* Reclaim of a resident page.  Paper2007 (RI 6.2): Ur -> Uz, Sr -> Sp,
\* Vr -> Vz, Pr -> Sp if dirty, Vz if clean.  KVM (RI 2.4, 3.3): an unused
\* page is dropped (no swap, Z not set); every other page is swapped out like
\* a stable one; GC picks up the key's change bit only with storage keys.
HostReclaim(p) ==
    /\ valid[p]
    /\ valid' = [valid EXCEPT ![p] = FALSE]
    /\ IF KVM
       THEN /\ swapped' = [swapped EXCEPT ![p] = usage[p] # "U"]
            /\ data' = [data EXCEPT ![p] = IF usage[p] = "U" THEN 0 ELSE @]
            /\ gc' = [gc EXCEPT ![p] = IF StorageKeys THEN keyDirty[p] ELSE @]
            /\ UNCHANGED usage
       ELSE LET keep == usage[p] = "S" \/ (usage[p] = "P" /\ keyDirty[p])
            IN  /\ swapped' = [swapped EXCEPT ![p] = keep]
                /\ data' = [data EXCEPT ![p] = IF keep THEN @ ELSE 0]
                /\ usage' = [usage EXCEPT ![p] = IF usage[p] = "P" /\ keep THEN "S"
                                                 ELSE IF usage[p] = "P" THEN "V"
                                                 ELSE @]
                /\ UNCHANGED gc
    /\ Record("HostReclaim", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<zbit, nodat, keyDirty, cbrl, owed, belief, modified>>

\* The first CBRL entry is processed (__gmap_zap / _essa_clear_cbrl): if the
\* page is still a swap entry (not valid) and U or Z, the swap copy is freed.
HostProcessCBRL ==
    /\ cbrl # <<>>
    /\ LET p == Head(cbrl)
           zap == ~valid[p] /\ swapped[p] /\ (usage[p] = "U" \/ zbit[p])
       IN  /\ swapped' = [swapped EXCEPT ![p] = IF zap THEN FALSE ELSE @]
           /\ data' = [data EXCEPT ![p] = IF zap THEN 0 ELSE @]
           /\ Record("HostProcessCBRL", p, NoValue, NoValue, IF zap THEN "Zapped" ELSE "Kept", NoValue)
    /\ cbrl' = Tail(cbrl)
    /\ UNCHANGED <<usage, valid, zbit, nodat, keyDirty, gc, owed, belief, modified>>

(***************************************************************************)
(* Migration (RI 5, KVM only): the CMMA attributes travel as one byte per  *)
(* page, usage and N ((PGSTE >> 24) & 0x43); "Z, residency, GC and pending *)
(* CBRL entries are not migrated".  The page contents travel with the RAM  *)
(* migration, which reads every page as the guest would (MigratedContent); *)
(* on the destination a page with content arrives mapped and a zero page   *)
(* arrives untouched (QEMU skips zero pages), so none reports Z.  The      *)
(* storage keys travel with their own device, so the change bit survives  *)
(* (D83).  Modelled as one step at the end of migration, when QEMU applies *)
(* the attributes ("DONE").                                                 *)
(***************************************************************************)
MigratedContent(p) == IF valid[p] \/ swapped[p] THEN data[p] ELSE 0
\* Z on arrival: the attributes carry none.
ArrivalZ(p) == FALSE

Migrate ==
    /\ KVM /\ ~migrated
    /\ LET moved == [p \in Pages |-> MigratedContent(p)]
       IN  /\ data' = moved
           /\ valid' = [p \in Pages |-> moved[p] # 0]
    /\ swapped' = [p \in Pages |-> FALSE]
    /\ zbit' = [p \in Pages |-> ArrivalZ(p)]
    /\ gc' = [p \in Pages |-> FALSE]
    /\ cbrl' = <<>>
    /\ migrated' = TRUE
    /\ lastOp' = [op |-> "Migrate", page |-> NoPage, orc |-> NoValue, result |-> NoValue,
                  outcome |-> "Done", value |-> NoValue]
    /\ UNCHANGED <<usage, nodat, keyDirty, owed, belief, modified>>

(***************************************************************************)
(* A page starts stable and logically zero: in the 2007 model Sz; in KVM   *)
(* no mapping, no swap, Z clear (which KVM reports as preserved, RI (b)4). *)
(* The guest starts with every page in use and owed zero.                 *)
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
    /\ owed = [p \in Pages |-> 0]
    /\ belief = [p \in Pages |-> "S"]
    /\ modified = [p \in Pages |-> FALSE]
    /\ migrated = FALSE
    /\ lastOp = [op |-> "Init", page |-> NoPage, orc |-> NoValue, result |-> NoValue,
                 outcome |-> "None", value |-> NoValue]

GuestNext ==
    \E p \in Pages :
        \/ GuestAlloc(p) \/ GuestFree(p) \/ GuestMakeStable(p)
        \/ GuestMakeVolatile(p, 3) \/ GuestMakeVolatile(p, 4)
        \/ GuestExtract(p) \/ GuestSetStableNoDat(p) \/ GuestBadOrc(p)
        \/ GuestRead(p) \/ GuestWrite(p) \/ GuestWriteback(p)

HostNext == HostProcessCBRL \/ Migrate \/ \E p \in Pages : HostReclaim(p)

Next == GuestNext \/ HostNext

Spec == Init /\ [][Next]_vars

=============================================================================
