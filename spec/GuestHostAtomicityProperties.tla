-------------------- MODULE GuestHostAtomicityProperties --------------------
(***************************************************************************)
(* Contract: the promises of GuestHostAtomicity.tla (its opening comment,  *)
(* docs/contract.md) are HostProgressProp, LockReleasedProp and, from      *)
(* PageStateProperties.tla, StableContentKeptInv; each has its THEOREM     *)
(* here, naming the model that checks it.  The other properties here check *)
(* types and bookkeeping.  The step checks, each restating what one step   *)
(* does, are in GuestHostAtomicityStepChecks.tla, apart from the contract. *)
(***************************************************************************)
(***************************************************************************)
(* What concurrent guest CPUs and the host must guarantee.  All the        *)
(* properties of PageStateProperties.tla apply unchanged (the models list *)
(* them); this module adds the types of the new variables and host         *)
(* progress.                                                               *)
(***************************************************************************)
EXTENDS GuestHostAtomicity, PageStateProperties

AtomicityTypeOK ==
    /\ TypeOK
    /\ pc \in [CPUs -> [step : {"idle", "checked", "locked", "lockedChecked", "done"},
                        page : Pages \cup {NoPage}]]
    /\ lock \in CPUs \cup {NoCPU}
    /\ reclaim \in Pages \cup {NoPage}

(***************************************************************************)
(* HostProgressProp.  Paper, section 2: "Allowing a lock to span across   *)
(* guest and host is a serious design flaw, as it would allow a faulty    *)
(* guest to lock up the host.  Instead, for atomic accesses a              *)
(* compare_and_swap needs to be utilized."  Every frame reclaim the host  *)
(* starts, it completes, whatever the guest does, including stopping:     *)
(* the page whose frame it reclaims is no longer resident (its frame is   *)
(* free), not merely no longer the one under reclaim (D216).  Under the   *)
(* fairness of GuestHostAtomicity.tla (the host's reclaim step is weakly  *)
(* fair; a guest gets none).                                               *)
(***************************************************************************)
HostProgressProp == \A p \in Pages : (reclaim = p) ~> (resid[p] # "r")
\* Contract (progress under a faulty guest).  MCGuestHostAtomicity_CompareAndSwapProgress,
\* MCGuestHostAtomicity_CheckThenSetProgress, MCGuestHostAtomicity_SharedLockProgress; twin
\* MCGuestHostAtomicity_Twin_SharedLockFaulty (a lock shared with a faulty CPU).
THEOREM (SSINDImpl # "SharedLock" \/ FaultyCPUs = {}) => (AtomicitySpec => HostProgressProp)

(***************************************************************************)
(* LockReleasedProp.  Paper, section 2: "Allowing a lock to span across     *)
(* guest and host is a serious design flaw, as it would allow a faulty     *)
(* guest to lock up the host."  Only a faulty guest may: a CPU that is not  *)
(* faulty gives back the lock it took, on every path of its                *)
(* SetStableIfNotDiscarded, the failed check included (D215).  (A CPU      *)
(* outside FaultyCPUs finishes the steps under the lock by the fairness of *)
(* GuestHostAtomicity.tla; this says the steps lead to the unlock.)        *)
(***************************************************************************)
LockReleasedProp == \A c \in CPUs \ FaultyCPUs : (lock = c) ~> (lock # c)
\* Contract (progress of a correct guest).  MCGuestHostAtomicity_SharedLockProgress; twin
\* MCGuestHostAtomicity_Twin_SharedLockLeak.
THEOREM AtomicitySpec => LockReleasedProp

\* What LockReleasedProp is about (its witness): a CPU gives the lock back
\* after its check found the page discarded.
UnlockAfterFailedCheck ==
    \E c \in CPUs : pc[c].step = "done" /\ lock = c /\ lock' = NoCPU
                    /\ Discarded(pc[c].page)

\* What the shared lock is for (the witness of StableContentKeptInv in the
\* lock-based models, model/manifest.json): a CPU has checked a page under
\* the lock and not yet set it, while the host waits to reclaim that page's
\* frame, which it could discard.
HostWaitsOnCheckedPage == \E c \in CPUs : pc[c].step = "lockedChecked" /\ reclaim = pc[c].page

\* What HostProgressProp is about (its witness): a reclaim is under way.
ReclaimStarted == reclaim # NoPage

\* What HostProgressProp is about where SetStableIfNotDiscarded is two guest
\* steps and no lock (its witness in MCGuestHostAtomicity_CheckThenSetProgress):
\* the host completes the reclaim of a page that a CPU has checked and not yet
\* set.  No guest step holds the host up, which is what makes progress hold
\* there, and what makes that design unsafe (StableContentKeptInv's twin).
ReclaimBetweenCheckAndSet ==
    \E c \in CPUs : pc[c].step = "checked" /\ reclaim = pc[c].page /\ reclaim' = NoPage

\* What HostDiscardsOnlyDiscardableProp is about in these models (its
\* witness): the host drops the saved copy of a preserved page, outside a
\* reclaim (HostOther).  Paper, section 2: a host that "can not profit from
\* preserving volatile pages" may discard them; a preserved U, V or clean P
\* page is the one discard that needs no frame to be reclaimed (D214).
HostDropsPreservedCopy == lastOp'.op = "HostDiscard" /\ resid[lastOp'.page] = "p"

\* Contract (no data loss), the promise of PageStates.tla under concurrent CPUs.
\* MCGuestHostAtomicity_CompareAndSwap, MCGuestHostAtomicity_SharedLock; twins
\* MCGuestHostAtomicity_Twin_CheckThenSet (check, then set: the design flaw), MCGuestHostAtomicity_Twin_SharedLockIgnored.
THEOREM SSINDImpl # "CheckThenSet" => (AtomicitySpec => []StableContentKeptInv)

=============================================================================
