------------------------- MODULE BallooningStepChecks --------------------------
(***************************************************************************)
(* Step checks of Ballooning.tla, apart from its contract                  *)
(* (BallooningProperties.tla).                                             *)
(*                                                                         *)
(* Each property here restates what one step of the machine does, written  *)
(* out from the sources (the release of a page by Diagnose X'10'): it      *)
(* catches a wrong step at the step that takes it, but it is not a promise *)
(* a user of the design relies on (docs/contract.md, kind b).  The         *)
(* contract, the intent properties with their THEOREMs, the refinement and *)
(* the liveness, is BallooningProperties.tla's.  What an engine's step     *)
(* must do is judged by the conformance suite (conformance/), and          *)
(* the reference implementation is equal to TLC's graph, which pins every  *)
(* transition.                                                             *)
(*                                                                         *)
(* The models still check these properties (their .cfg files name them,    *)
(* and each keeps its broken twin and its witness in model/manifest.json). *)
(* A mutant of Ballooning.tla that only a property here catches is classed *)
(* "step" by the mutation tooling, not "intent" (docs/mutation.md); no     *)
(* property is added here to kill a mutant.                                *)
(***************************************************************************)
EXTENDS BallooningProperties

(***************************************************************************)
(* BalloonedPagesUnusedInv.  [Z1]: "When VMRM detects a system-wide        *)
(* memory constraint, it notifies the participating Linux guests to        *)
(* release page frames.  Linux releases the page frames by issuing the     *)
(* Diagnose X'10' function call."  A released page holds nothing the guest *)
(* needs: no page in the balloon is in use by the guest.                   *)
(***************************************************************************)
BalloonedPagesUnusedInv ==
    \A gp \in GP : ballooned[gp] => ~inUse[gp]


=============================================================================
