--------------------------- MODULE MCESSAMigration_Twins ---------------------------
(***************************************************************************)
(* Broken twins of spec/ESSAMigrationVMM.tla's contract, each one of the   *)
(* kernel's lines changed in a hook of the spec (MCESSAMigration_Twin_*.cfg *)
(* replaces it); the intent properties alone catch each.                   *)
(***************************************************************************)
EXTENDS MCESSAMigrationVMM

\* kvm_s390_peek_cmma goes the GET path: a peek clears the bit of the page it starts at.
PeekClearsBitmap(d, g) == IF g \in Gfns THEN [d EXCEPT ![PageAt(g)] = FALSE] ELSE d

\* kvm_s390_peek_cmma without its cur_gfn++: every value is the first page's.
PeekStuck == 0

\* kvm_s390_get_cmma lowers cmma_dirty_pages for every page it sends, clean or not.
GetLowersCountAlways(wasDirty) == 1

\* kvm_s390_vm_start_migration marks the pages only the first time (a restart after a stop
\* keeps the bitmap as the stop left it, and what the guest changed in between is never sent).
StartMarksOnce == ~stopped

\* kvm_s390_set_cmma_bits no longer sets uses_cmm on the destination.
SetKeepsUsesCmm == FALSE

\* kvm_s390_set_cmma_bits applies every bit it keeps whatever the VMM's mask ("mask =" in place
\* of "mask &=").
SetIgnoresMask(m) == FullMask

\* kvm_s390_get_cmma clears the bits of the whole buffer, c pages from the first, though it
\* stops sending at a run of clean pages or a page outside the memslots.
GetClearsWholeBuffer(d, start, c, last) ==
    [p \in Pages |-> d[p] /\ ~\E g \in start .. start + c - 1 : g \in Gfns /\ PageAt(g) = p]
=============================================================================
