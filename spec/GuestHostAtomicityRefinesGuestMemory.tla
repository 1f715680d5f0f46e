----------------- MODULE GuestHostAtomicityRefinesGuestMemory -----------------
(***************************************************************************)
(* Contract (docs/contract.md).  One promise, with its THEOREM at the end  *)
(* of this module naming the models that check it and the twin that fails  *)
(* it.                                                                     *)
(*                                                                         *)
(*   What the guest is owed. RefinesGuestMemoryInit and                    *)
(*       RefinesGuestMemory: concurrent guest CPUs and a host that         *)
(*       reclaims frames implement the guest's view of its memory          *)
(*       (GuestMemory.tla) whatever SetStableIfNotDiscarded's              *)
(*       implementation, except check-then-set: "for atomic accesses a     *)
(*       compare_and_swap needs to be utilized" (paper 2), and its answer  *)
(*       "only makes a page stable if it has not been discarded" (3.2).    *)
(***************************************************************************)
(***************************************************************************)
(* The mapping is PageStatesRefinesGuestMemory's, with its history         *)
(* variable shownAsP, applied to the page-state variables of               *)
(* GuestHostAtomicity.tla.  The protocol's own state (pc, lock, reclaim)   *)
(* appears in no mapped variable: a check that found the page kept and a   *)
(* set that answers Success after a discard is, mapped, a Success on a     *)
(* lost page, which GuestMemory does not allow.  The ghosts intended,      *)
(* modified and requested appear nowhere.                                  *)
(***************************************************************************)
EXTENDS GuestHostAtomicityProperties, PageStatesRefinesGuestMemory

\* The protocol with the history variable: every step of AtomicityNext, shownAsP alongside.
AugAtomicityInit == AtomicityInit /\ shownAsP = [p \in Pages |-> FALSE]
AugAtomicitySpec ==
    AugAtomicityInit /\ [][AtomicityNext /\ HistoryNext]_<<allVars, shownAsP>>

\* What the guest is owed.  MCGuestHostAtomicityRefinement_CompareAndSwap,
\* MCGuestHostAtomicityRefinement_SharedLock; twin MCGuestHostAtomicityRefinement_Twin_CheckThenSet.
THEOREM SSINDImpl # "CheckThenSet" =>
            (AugAtomicitySpec => RefinesGuestMemoryInit /\ RefinesGuestMemory)
THEOREM SSINDImpl # "CheckThenSet" => (AugAtomicitySpec => GuestView!Spec)

=============================================================================
