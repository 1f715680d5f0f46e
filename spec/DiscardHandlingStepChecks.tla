----------------------- MODULE DiscardHandlingStepChecks -----------------------
(***************************************************************************)
(* Step checks of DiscardHandling.tla, apart from its contract             *)
(* (DiscardHandlingProperties.tla).                                        *)
(*                                                                         *)
(* Each property here restates what one step of the machine does, written  *)
(* out from the sources (the 2007 patch's sign-off and the reuse of a      *)
(* freed page): it catches a wrong step at the step that takes it, but it  *)
(* is not a promise a user of the design relies on (docs/contract.md, kind *)
(* b).  The contract, the intent properties with their THEOREMs, the       *)
(* refinement and the liveness, is DiscardHandlingProperties.tla's.  What  *)
(* an engine's step must do is judged by the conformance suite             *)
(* (conformance/), and the reference implementation is equal to            *)
(* TLC's graph, which pins every transition.                               *)
(*                                                                         *)
(* The models still check these properties (their .cfg files name them,    *)
(* and each keeps its broken twin and its witness in model/manifest.json). *)
(* A mutant of DiscardHandling.tla that only a property here catches is    *)
(* classed "step" by the mutation tooling, not "intent"                    *)
(* (docs/mutation.md); no property is added here to kill a mutant.         *)
(***************************************************************************)
EXTENDS DiscardHandlingProperties

(***************************************************************************)
(* SignOffOnceProp.  The 2007 patch (sources 6, S16): "Discarded pages     *)
(* with a page_count() of zero are placed on the page_discarded_list until *)
(* all cpus have been at least once in enabled code", and "the pages [are  *)
(* freed] after all cpus acknoledged the signoff".  A page awaiting        *)
(* sign-off waits for each CPU once: while it waits, CPUs only leave the   *)
(* set still to sign off, none is asked again.  A round started afresh     *)
(* under it whenever more pages are listed would, with discards arriving   *)
(* all the time, keep it from ever being freed (D181).                     *)
(***************************************************************************)
SignOffOnceProp ==
    [][\A x \in Pages :
          status[x] = "SignOff" /\ status'[x] = "SignOff" => signOffMask' \subseteq signOffMask]_vars

\* What SignOffOnceProp is about (its witness, a step): a page is put on the
\* discard list while another awaits sign-off.
ListedWhileSignOffPending ==
    /\ \E x \in Pages : status[x] = "SignOff"
    /\ \E y \in Pages : status[y] = "InUse" /\ status'[y] = "Listed"

(***************************************************************************)
(* ReusedPageBackedProp.  Sources 4: "arch_alloc_page ORC 1" (set stable), *)
(* and [Z1]: HPMA "allows the machine to supply fresh backing page frames  *)
(* for guest memory when the guest reuses a previously discarded page".  A *)
(* freed page that is allocated again is not discarded: the content read   *)
(* into it is there until the host discards it anew (D186).                *)
(***************************************************************************)
ReusedPageBackedProp ==
    [][\A x \in Pages : status[x] = "Free" /\ status'[x] = "InUse" => ~hostDiscarded'[x]]_vars

\* What ReusedPageBackedProp is about (its witness, a step): a freed page is
\* allocated again.
PageReused == \E x \in Pages : status[x] = "Free" /\ status'[x] = "InUse"

=============================================================================
