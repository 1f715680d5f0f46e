---------------------------- MODULE MCHostReclaim ----------------------------
(***************************************************************************)
(* The model module for spec/HostReclaim.tla, serving                      *)
(* model/MCHostReclaim_*.cfg; MCHostReclaimBroken.tla holds the broken     *)
(* twins.                                                                  *)
(*                                                                         *)
(* Bounds: two pages and two frames with the demand scan running when no   *)
(* frame is free (LowThreshold 1), so that the aging list holds up to two  *)
(* frames, both steal passes compete, and a page-in needs a steal first;   *)
(* three pages and two frames as the deeper model.  Two values, as in      *)
(* model/MCPageStates.tla: one non-zero value tells a kept content from a  *)
(* lost (zero) one, and the guest may also write 0, so a stale copy is     *)
(* told from a fresh one.                                                  *)
(***************************************************************************)
EXTENDS HostReclaimProperties, TLC

(***************************************************************************)
(* Symmetry: every action and property quantifies over Pages uniformly;    *)
(* no constant names a page and nothing CHOOSEs one.  The aging list is a  *)
(* sequence of pages, and permuting the pages inside it maps a behaviour   *)
(* to a behaviour (its order is positional, not by page name).  NoPage is  *)
(* outside Pages and not permuted.  All properties checked with symmetry   *)
(* are safety properties.                                                  *)
(***************************************************************************)
Symmetry == Permutations(Pages)

=============================================================================
