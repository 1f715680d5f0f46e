--------------------------- MODULE ESSAKVMClassic ---------------------------
(***************************************************************************)
(* Classic KVM (Impl = "KVMClassic"): ESSA as Linux KVM performs it in     *)
(* pgste_perform_essa, with the CMMA state of each page in its PGSTE, next *)
(* to the host PTE in the host process's page tables (sources 2).  ESSA    *)
(* looks at the host PTE: a page is valid while it is in a frame.  The    *)
(* host drops nothing itself: ESSA queues the discard of a page that is   *)
(* not resident on the CBRL and sets Z, "content was discarded, page is    *)
(* logically zero"; the zap comes later (HostProcessCBRL in ESSA.tla).     *)
(* Z is cleared only when a PTE is installed (a fault-in).  No program    *)
(* interruption reaches the guest: a discarded page reads as zero.        *)
(***************************************************************************)
EXTENDS ESSAMachine

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

\* Reclaim of a resident page (sources 2): an unused page is dropped (no
\* swap, Z not set: "mm: add support for discard of unused ptes", S4); every
\* other page is swapped out like a stable one, and GC saved from the key.
\* Classic KVM has no gmap PTE and no _PAGE_UNUSED bit.  HostReclaim
\* (ESSA.tla) takes the frame away and records the step.
ClassicReclaim(p) ==
    LET drop == usage[p] = "U"
    IN  /\ swapped' = [swapped EXCEPT ![p] = ~drop]
        /\ data' = [data EXCEPT ![p] = IF drop THEN 0 ELSE @]
        /\ gc' = [gc EXCEPT ![p] = SavedGC(p)]
        /\ UNCHANGED <<usage, zbit, gmapPte, pteUnused>>

=============================================================================
