----------------------- MODULE MemoryDowngradeStepChecks -----------------------
(***************************************************************************)
(* Step checks of MemoryDowngrade.tla, apart from its contract             *)
(* (MemoryDowngradeProperties.tla).                                        *)
(*                                                                         *)
(* Each property here restates what one step of the machine does, written  *)
(* out from the sources (a rejection's frames, a request's completion): it *)
(* catches a wrong step at the step that takes it, but it is not a promise *)
(* a user of the design relies on                                          *)
(* (docs/contract.md, kind b).  The contract, the intent properties with   *)
(* their THEOREMs, the refinement and the liveness, is                     *)
(* MemoryDowngradeProperties.tla's.  What an engine's step must do is      *)
(* judged by the conformance suite (conformance/), and the                 *)
(* reference implementation is equal to TLC's graph, which pins every      *)
(* transition.                                                             *)
(*                                                                         *)
(* The models still check these properties (their .cfg files name them,    *)
(* and each keeps its broken twin and its witness in model/manifest.json). *)
(* A mutant of MemoryDowngrade.tla that only a property here catches is    *)
(* classed "step" by the mutation tooling, not "intent"                    *)
(* (docs/mutation.md); no property is added here to kill a mutant.         *)
(***************************************************************************)
EXTENDS MemoryDowngradeProperties

(***************************************************************************)
(* RejectionRestoresOnlyItsFramesProp.  A request "is rejected cleanly     *)
(* (nothing half-done, every frame back in service)" (D66): the            *)
(* frames back in service are the request's.  A frame an earlier request   *)
(* took offline stays offline through a later rejection: only the operator *)
(* adds memory back (AddMemory, D187).                                     *)
(***************************************************************************)
RejectionRestoresOnlyItsFramesProp ==
    [][req.state = "active" /\ req'.state = "rejected" =>
          \A f \in Frames \ req.frames : online'[f] = online[f]]_vars

\* Its witness (a step): a request is rejected while a frame outside it is
\* offline.
RejectedBesideOfflineFrame ==
    /\ req.state = "active" /\ req'.state = "rejected"
    /\ \E f \in Frames \ req.frames : ~online[f]

\* (PinnedNeverPagedOutInv.)  A pinned page in a frame a request is taking offline.
PinnedPageInRemovedFrame == \E p \in Pages : pinned[p] /\ req.state = "active" /\ frame[p] \in req.frames


(***************************************************************************)
(* CompletionMeansRemovedProp.  [Z2]: "Before memory can be reclaimed, the *)
(* content of that memory must be copied elsewhere ... DMD operations are  *)
(* expected to take time".  A request is reported complete only at the    *)
(* end of a removal that was under way, and only when every frame it names *)
(* has been taken offline: never a request that was not made, and never   *)
(* memory still in service (D185).  A completion reports memory taken out  *)
(* of service, so the request named some: a "removal" of nothing is no    *)
(* request, and reporting it complete would be a request not made (D227). *)
(***************************************************************************)
CompletionMeansRemovedProp ==
    [][req.state # "completed" /\ req'.state = "completed" =>
          /\ req.state = "active"
          /\ req'.frames # {}
          /\ \A f \in req'.frames : ~online'[f]]_vars

=============================================================================
