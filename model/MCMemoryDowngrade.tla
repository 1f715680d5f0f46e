-------------------------- MODULE MCMemoryDowngrade --------------------------
(***************************************************************************)
(* The model module for spec/MemoryDowngrade.tla, serving                  *)
(* model/MCMemoryDowngrade_*.cfg; MCMemoryDowngrade_Twins.tla holds the    *)
(* broken twins and MCMemoryDowngradeCompare.tla the comparison of         *)
(* incremental and bulk removal.                                           *)
(*                                                                         *)
(* Bounds: four frames, two permanent and two reconfigurable (the most     *)
(* [Z2] allows, "up to 50%"), so a request can name one frame or two;      *)
(* two pages (three in the deeper model) with every usage and pinning;     *)
(* one paging slot, so that paging out competes for room; values {0, 1}.   *)
(***************************************************************************)
EXTENDS MemoryDowngradeStepChecks, TLC

(***************************************************************************)
(* Symmetry (safety models only, never with RequestResolvesProp): pages    *)
(* are interchangeable (usage and pinning are chosen per page by Init, no  *)
(* constant names a page, nothing CHOOSEs one); permanent frames are       *)
(* interchangeable among themselves and so are reconfigurable ones (frames *)
(* are only ever told apart by membership of Permanent; requests and       *)
(* faults pick frames by \E).  Each permutation below maps behaviours to   *)
(* behaviours and preserves every safety property checked.                 *)
(***************************************************************************)
Symmetry == Permutations(Pages) \cup Permutations(Permanent)
                \cup Permutations(Reconfigurable)

=============================================================================
