---------------------------- MODULE ESSAMachine ----------------------------
(***************************************************************************)
(* The machine that all three implementations of ESSA share: its switches, *)
(* the state of a page in the host and in the guest, and the encodings    *)
(* every implementation uses (sources 1).  Read this module first;        *)
(* ESSAPaper2007.tla, ESSAKVMClassic.tla and ESSAKVMGmap.tla each add one  *)
(* implementation's ESSA table and host paths to it, and ESSA.tla         *)
(* combines them with the guest and the state a VM starts in.  Sources:   *)
(* docs/sources.md ("sources 2.2" is its section 2.2, "S9" a public-code  *)
(* key); a comment marked [INFERENCE] rests on a point reasoned from the   *)
(* code.                                                                   *)
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
(* list (CBRL) are carried out later, with guest accesses in between      *)
(* (sources 2, 3.2).                                                       *)
(*                                                                         *)
(* The guest keeps its own view (ghost variables): what it is owed on a   *)
(* read (owed), the usage it believes the page has (belief: what it asked *)
(* for and was told it got), and whether it stored to the page since its   *)
(* last writeback (modified).                                              *)
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
GuestVars == <<owed, belief, modified>>
vars == <<usage, valid, swapped, zbit, nodat, data, keyDirty, gc, cbrl,
          pageTable, gmapPte, pteUnused, owed, belief, modified, migrated, lastOp>>

Impls == {"Paper2007", "KVMClassic", "KVMGmap"}
\* The three 2026 fixes to the new gmap (S9), named by what was wrong before them.
KnownBugs == {"StickyZero", "CBRLGuestAddress", "StaleUnusedBit"}
ASSUME Impl \in Impls /\ CBRLSize >= 1
ASSUME Bugs \subseteq KnownBugs /\ (Bugs # {} => Impl = "KVMGmap")
\* The machine's interpretation is modelled for the new gmap only (D101).
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
\* The usages of a page (sources 1), in the order of their codes in R1.
Usages == {"S", "U", "P", "V"}
UsageBits(u) == CASE u = "S" -> 0 [] u = "U" -> 4 [] u = "P" -> 8 [] u = "V" -> 12
ContentBits(p) ==
    IF EssaValid(p) THEN 0
    ELSE IF KVM THEN (IF zbit[p] THEN 3 ELSE 2)
    ELSE IF swapped[p] THEN 2 ELSE 3
\* The byte ESSA leaves in R1: the state before the operation.
ResultByte(p) == ContentBits(p) + UsageBits(usage[p]) + (IF nodat[p] THEN 32 ELSE 0)
ExceptionIndication == 16

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

\* ESSA's effect on the host state, as each implementation's table gives it
\* (Paper2007Effect, ClassicEffect, GmapEffect): the new usage, N, Z, and
\* whether the page was queued on the CBRL; for Paper2007 also whether the
\* content was dropped at once.  Each table is an IF chain, read top down like
\* the tables of sources 2 and 3 (a row applies only if no row above it does).
Effect(u, n, z, queue, drop) == [u |-> u, n |-> n, z |-> z, queue |-> queue, drop |-> drop]

\* When the PTE ESSA looks at goes invalid, KVM saves the storage key into the
\* PGSTE (GC = the key's change bit) if the VM uses storage keys (sources 2).
\* Both KVMs' host paths use it; the 2007 machine keeps no GC.
SavedGC(p) == IF StorageKeys THEN keyDirty[p] ELSE gc[p]

=============================================================================
