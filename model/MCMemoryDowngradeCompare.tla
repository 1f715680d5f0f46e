---------------------- MODULE MCMemoryDowngradeCompare -----------------------
(***************************************************************************)
(* The model module for spec/MemoryDowngradeCompare.tla (incremental and   *)
(* bulk removal side by side), serving                                     *)
(* model/MCMemoryDowngradeCompare_*.cfg.                                   *)
(***************************************************************************)
EXTENDS MemoryDowngradeCompare, TLC

(***************************************************************************)
(* Symmetry: as in MCMemoryDowngrade.tla (pages; permanent frames;         *)
(* reconfigurable frames).  Both runs start from the same memory and a     *)
(* permutation is applied to both alike; SameOutcomeInv and                *)
(* SameOutcomeUnpinnedInv name no page or frame.                           *)
(***************************************************************************)
Symmetry == Permutations(Pages) \cup Permutations(Permanent)
                \cup Permutations(Reconfigurable)

=============================================================================
