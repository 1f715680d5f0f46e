---------------------------- MODULE MCPageStates ----------------------------
(***************************************************************************)
(* The one model module for spec/PageStates.tla, serving every            *)
(* configuration in model/MCPageStates_*.cfg: the full machine under each  *)
(* profile.  MCPageStatesRefinement.tla adds the refinement check of the   *)
(* simplified machines; MCPageStates_Twins.tla holds the broken twins     *)
(* (the two of the progress promise are at the end of this module).       *)
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

(***************************************************************************)
(* The broken twins of the progress promise (MCPageStates_Twin_NoZeroFill, *)
(* MCPageStates_Twin_PpNotPagedIn): they run FairSpec, which has no        *)
(* history variable, so they live here rather than in                     *)
(* MCPageStates_Twins.tla, whose twins run AugSpec.                        *)
(***************************************************************************)
\* A host whose fault handler only swaps pages in: a logically zero stable page gets
\* no fresh frame on first touch, so an access to it waits for ever.  Caught by
\* WaitingAccessServedProp (under FairSpec).
HostZeroFillMissing(p) == FALSE

\* A host that pages in stable and volatile pages but not potentially volatile ones
\* (the state added last): a clean Pp page may still be discarded, which answers the
\* access with a discard fault, but an access to a dirty Pp page, which the host must
\* not discard, waits for ever.  Caught by WaitingAccessServedProp (under FairSpec).
HostPageInSkippingP(p) ==
    /\ resid[p] = "p"
    /\ usage[p] \in {"S", "V"}
    /\ resid' = [resid EXCEPT ![p] = "r"]
    /\ dirty' = [dirty EXCEPT ![p] = PageInDirty(@)]
    /\ Record("HostPageIn", p, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, data, intended, modified, requested>>

=============================================================================
