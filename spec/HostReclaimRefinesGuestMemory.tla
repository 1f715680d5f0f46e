-------------------- MODULE HostReclaimRefinesGuestMemory --------------------
(***************************************************************************)
(* Contract (docs/contract.md).  One promise, with its THEOREM at the end  *)
(* of this module naming the model that checks it.                         *)
(*                                                                         *)
(*   What the guest is owed. RefinesGuestMemoryInit and                    *)
(*       RefinesGuestMemory: the z/VM reclaim policy implements the        *)
(*       guest's view of its memory (GuestMemory.tla): the host may drop   *)
(*       only what the guest gave up (paper 2), and                        *)
(*       SetStableIfNotDiscarded, a read and Extract tell the guest of     *)
(*       every loss and of no other.                                       *)
(***************************************************************************)
(***************************************************************************)
(* The mapping is PageStatesRefinesGuestMemory's, applied to the           *)
(* page-state variables the policy keeps (HostReclaim.tla's steps record   *)
(* in lastOp the PageStates action each claims to be), with the z/VM       *)
(* machine's history variable shownAsP (PageStatesRefinesFull.tla): the    *)
(* z/VM machine collapses Vz and Pz and has no Pp, so some P pages show as *)
(* V or S.  The policy's own state (the aging list, the paging slots, the  *)
(* host change bit) appears in no mapped variable: a policy that brought   *)
(* back a stale slot changes data, which the mapping sees as content the   *)
(* guest is owed.  The ghosts intended, modified and requested appear      *)
(* nowhere.                                                                *)
(***************************************************************************)
EXTENDS HostReclaimProperties

VARIABLE
    \* @type: PAGE -> Bool;
    shownAsP

GMR == INSTANCE PageStatesRefinesGuestMemory
        WITH Variant <- "ZVMPrototype", HostService <- TRUE,
             UnusedAccess <- "AddressingException"

\* The policy with the history variable: every step of Next, shownAsP alongside.
AugInit == Init /\ shownAsP = [p \in Pages |-> FALSE]
AugSpec == AugInit /\ [][Next /\ GMR!HistoryNext]_<<allVars, shownAsP>>

\* Stated here as a [][A]_v of this module, so that TLC names it in a violation.
RefinesGuestMemoryInit == GMR!RefinesGuestMemoryInit
RefinesGuestMemory ==
    [][GMR!GuestView!Perform(GMR!ViewOp(lastOp'), lastOp'.page, lastOp'.arg)]_GMR!GuestView!gvars

\* What the guest is owed.  MCHostReclaimRefinement_ZVM, MCHostReclaimRefinement_ZVM2Pages (two pages).
THEOREM AugSpec => RefinesGuestMemoryInit /\ RefinesGuestMemory
THEOREM AugSpec => GMR!GuestView!Spec

=============================================================================
