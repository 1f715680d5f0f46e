---------------------------- MODULE MCPageStates ----------------------------
(***************************************************************************)
(* The one model module for spec/PageStates.tla, serving every            *)
(* configuration in model/MCPageStates_*.cfg: the full machine under each  *)
(* profile.  MCPageStatesRefinement.tla adds the refinement check of the   *)
(* simplified machines; MCPageStates_Twins.tla holds the broken twins.     *)
(*                                                                         *)
(* Bounds: two or three pages and two values (0 and one other).  Pages     *)
(* interact only through the interleaving of steps, so two pages already  *)
(* show every per-page behaviour next to another page's; one non-zero     *)
(* value suffices to tell a kept content from a lost (zero) one and a      *)
(* stale one from a fresh one, since the guest may also write 0.           *)
(***************************************************************************)
EXTENDS PageStatesStepChecks, TLC

(***************************************************************************)
(* Symmetry: every action and property quantifies over Pages uniformly,   *)
(* no constant names a particular page, and nothing CHOOSEs a page, so     *)
(* permuting pages maps behaviours to behaviours and preserves every       *)
(* property checked here (all are safety properties).                     *)
(***************************************************************************)
Symmetry == Permutations(Pages)

\* Witness of HostKeepsUsageProp on the full machine (D130): a host step on a P page, the
\* step whose usage a host could take away.
HostStepOnPPage == lastOp'.op \in HostOps /\ usage[lastOp'.page] = "P"

=============================================================================
