------------------------- MODULE MCDiscardHandling -------------------------
(***************************************************************************)
(* The one model module for spec/DiscardHandling.tla, serving every        *)
(* configuration in model/MCDiscardHandling_*.cfg; the broken twins are in *)
(* MCDiscardHandling_Twins.tla.                                            *)
(*                                                                         *)
(* Bounds: two CPUs and one page in the CI models.  Every race of section  *)
(* 3.7 needs two CPUs on one page: two discard faults (removal twice), a   *)
(* fault and a late mapper (the mapping after removal), a pending fault    *)
(* and the handler that frees the page.  The deep models add a CPU or a    *)
(* page.                                                                   *)
(***************************************************************************)
EXTENDS DiscardHandlingStepChecks, TLC

(***************************************************************************)
(* Symmetry, for the safety models only (never with the liveness          *)
(* property): every action and property quantifies over CPUs and Pages    *)
(* uniformly, no constant names one, nothing CHOOSEs one, so permuting     *)
(* CPUs or pages maps behaviours to behaviours and preserves the           *)
(* invariants.  NoPage is not permuted.                                    *)
(***************************************************************************)
Symmetry == Permutations(CPUs) \cup Permutations(Pages)

=============================================================================
