--------------------- MODULE GuestHostAtomicityStepChecks ----------------------
(***************************************************************************)
(* Step checks of GuestHostAtomicity.tla, apart from its contract          *)
(* (GuestHostAtomicityProperties.tla).                                     *)
(*                                                                         *)
(* Each property here restates what one step of the machine does, written  *)
(* out from the sources (the lock-based design's mutual exclusion): it     *)
(* catches a wrong step at the step that takes it, but it is not a promise *)
(* a user of the design relies on (docs/contract.md, kind b).  The         *)
(* contract, the intent properties with their THEOREMs, the refinement and *)
(* the liveness, is GuestHostAtomicityProperties.tla's.  What an engine's  *)
(* step must do is judged by the conformance suite (conformance/),         *)
(* and the reference implementation is equal to TLC's graph, which pins    *)
(* every transition.                                                       *)
(*                                                                         *)
(* The models still check these properties (their .cfg files name them,    *)
(* and each keeps its broken twin and its witness in model/manifest.json). *)
(* A mutant of GuestHostAtomicity.tla that only a property here catches is *)
(* classed "step" by the mutation tooling, not "intent"                    *)
(* (docs/mutation.md); no property is added here to kill a mutant.         *)
(***************************************************************************)
EXTENDS GuestHostAtomicityProperties, PageStatesStepChecks

(***************************************************************************)
(* LockExcludesOthersProp.  A review's finding ("There is no mutual-       *)
(* exclusion property"), D134: in the lock-based design the lock guards    *)
(* the page states, so that the check and the set of a                    *)
(* SetStableIfNotDiscarded under the lock see the same page.  While a CPU  *)
(* holds the lock, a page's usage and residency change only by a step of  *)
(* that CPU (its set under the lock): not by the host (which takes the     *)
(* lock for its steps) and not by another CPU's instruction (D302).        *)
(***************************************************************************)
LockExcludesOthersProp ==
    [][(SSINDImpl = "SharedLock" /\ lock \in CPUs /\ (usage' # usage \/ resid' # resid))
          => pc'[lock] # pc[lock]]_allVars

\* What LockExcludesOthersProp is about (its witness): the lock holder sets
\* the usage it checked, under the lock.
UsageSetUnderLock ==
    \E c \in CPUs : lock = c /\ pc[c].step = "lockedChecked" /\ usage' # usage

=============================================================================
