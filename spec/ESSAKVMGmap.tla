---------------------------- MODULE ESSAKVMGmap ----------------------------
(***************************************************************************)
(* KVM after the new gmap (Impl = "KVMGmap"): ESSA as dat_perform_essa     *)
(* performs it (sources 3), with the three 2026 bugs fixed by S9 as        *)
(* options (Bugs).  The CMMA state now lives with the gmap's own page      *)
(* tables: ESSA looks at the gmap PTE (gmapPte), which the host may unmap  *)
(* or age while the page stays in its frame, and the walk does not        *)
(* allocate, so a new VM has no CMMA state until a page table is created   *)
(* (pageTable; D97).  Z means "this call queued a discard".  The machine   *)
(* may interpret ESSA itself outside migration mode (D101).  Unmapping a   *)
(* U page marks the host PTE _PAGE_UNUSED, so that core mm drops the page  *)
(* on reclaim (sources 3.3).                                               *)
(***************************************************************************)
EXTENDS ESSAMachine

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

\* Outside migration mode handle_essa turns on interpretation (ECB2_CMMA) and
\* retries, so the machine executes the guest's ESSAs; the intercepted path
\* (dat_perform_essa) runs for a vCPU's first ESSA and in migration mode.  The
\* machine keeps Z unless it queues a discard, as classic KVM's imitation of it
\* does [INFERENCE from the S9 fix: "If a discarded page is reused before
\* _essa_clear_cbrl() is called, and the pgste.zero bit is not cleared"; D101].
\* It interprets only where the page table exists; without one ESSA is
\* intercepted.
InterpretedPaths == IF MachineInterpretsESSA /\ Gmap /\ pageTable THEN {FALSE, TRUE} ELSE {FALSE}

\* _gmap_ptep_xchg clears Z since the fix "always clear pgste.zero in
\* _gmap_ptep_xchg" (S9); before it, Z survived the exchange (D100).
XchgZ(p) == IF "StickyZero" \in Bugs THEN zbit[p] ELSE FALSE

\* A fault installs the gmap PTE with an exchange, allocating the page table
\* (D97); a page that aging or an unmap left resident is simply mapped again.
GmapFaultIn(p) ==
    /\ zbit' = [zbit EXCEPT ![p] = XchgZ(p)]
    /\ gmapPte' = [gmapPte EXCEPT ![p] = "Valid"]
    /\ pageTable' = TRUE

\* Reclaim of a resident page (sources 3.3): what marks the page unused for
\* core mm is _PAGE_UNUSED on the host PTE.  KVM's MMU notifier sets it when
\* it unmaps a present gmap PTE of a U page, as the reclaim does; a bit left
\* from an earlier unmap counts too (StaleUnusedBit, D100).  An unused page is
\* dropped (no swap, Z not set), every other page swapped out like a stable
\* one.  The unmap of a present gmap PTE is a _gmap_ptep_xchg (XchgZ).
\* HostReclaim (ESSA.tla) takes the frame away and records the step.
\* GmapReclaimAs(p, unusedFix): unusedFix is the fix finding F14 proposes
\* [INFERENCE] (D408): KVM marks the host PTE of every U page it unmaps,
\* present gmap PTE or not, so core mm drops every unused page
\* (F14FixReclaim, ESSA.tla).  GmapReclaim is the tree as read.
GmapReclaimAs(p, unusedFix) ==
    LET drop == pteUnused[p] \/ (usage[p] = "U" /\ (gmapPte[p] # "Empty" \/ unusedFix))
    IN  /\ swapped' = [swapped EXCEPT ![p] = ~drop]
        /\ data' = [data EXCEPT ![p] = IF drop THEN 0 ELSE @]
        /\ gc' = [gc EXCEPT ![p] = SavedGC(p)]
        /\ zbit' = [zbit EXCEPT ![p] = IF gmapPte[p] # "Empty" THEN XchgZ(p) ELSE @]
        /\ gmapPte' = [gmapPte EXCEPT ![p] = "Empty"]
        /\ pteUnused' = [pteUnused EXCEPT ![p] = FALSE]
        /\ UNCHANGED usage
GmapReclaim(p) == GmapReclaimAs(p, FALSE)

\* Core mm changes the host PTE of a resident page for a reason other than
\* reclaim (a protection change, a page migration that keeps the page
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

\* Aging (gmap_clear_young_pte) sets the gmap PTE's invalid bit and leaves it
\* present: ESSA sees a resident page as not valid (sources 3.4; D105).  Its
\* exchange clears Z, as every _gmap_ptep_xchg does since the S9 fix (D310).
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

=============================================================================
