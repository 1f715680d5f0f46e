---------------------------- MODULE MCBallooning -----------------------------
(***************************************************************************)
(* The model module for spec/Ballooning.tla, serving                       *)
(* model/MCBallooning_*.cfg; MCBallooning_Twins.tla holds the broken       *)
(* twins.                                                                  *)
(*                                                                         *)
(* Bounds: one guest of three pages with a floor of one page (so a SHRINK  *)
(* can ask for two pages, and without the safety net for three), values    *)
(* {0, 1}; two guests of two pages as the deeper model.  Guests do not     *)
(* interact in this model (VMRM sets each one's target on its own), so one *)
(* guest shows every behaviour of the driver; the second guest checks that *)
(* the properties are stated per guest.                                    *)
(***************************************************************************)
EXTENDS BallooningStepChecks, TLC

(***************************************************************************)
(* Symmetry (safety models only): guests are interchangeable, and so are   *)
(* a guest's pages (every action and property quantifies over them         *)
(* uniformly; nothing names or CHOOSEs one).                               *)
(***************************************************************************)
Symmetry == Permutations(Guests) \cup Permutations(GuestPages)

=============================================================================
