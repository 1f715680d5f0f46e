------------------------- MODULE MCGuestHostAtomicity -------------------------
(***************************************************************************)
(* Models MCGuestHostAtomicity_*.cfg of spec/GuestHostAtomicity.tla.       *)
(*                                                                         *)
(* Symmetry (safety models only): pages are interchangeable as in          *)
(* MCPageStates.tla; CPUs are interchangeable when FaultyCPUs is empty or  *)
(* all CPUs, which is the case in every model that uses Symmetry.  The    *)
(* union of the two permutation sets is a subset of the symmetry group,   *)
(* and any subset is sound.  Liveness models use no symmetry.             *)
(***************************************************************************)
EXTENDS GuestHostAtomicityStepChecks, TLC

Symmetry == Permutations(Pages) \cup Permutations(CPUs)

\* Broken twin: an idle CPU recorded with a step name outside the protocol's.
\* Caught by AtomicityTypeOK.
IdleUnnamed == [step |-> "none", page |-> NoPage]

\* Broken twin: a host that ignores the lock shared with the guest and
\* reclaims between a CPU's check and set.  Caught by StableContentKeptInv.
HostIgnoresLock == TRUE

\* Broken twin: a check under the lock that finds the page discarded leaves
\* the CPU where it is, holding the lock (the unlock forgotten on the error
\* path).  Caught by LockReleasedProp.
SSINDCheckUnderLockKeepingLock(c) ==
    /\ pc[c].step = "locked"
    /\ Check(c, pc[c].page, "lockedChecked", pc[c])

=============================================================================
