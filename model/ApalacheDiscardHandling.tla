----------------------- MODULE ApalacheDiscardHandling -----------------------
(***************************************************************************)
(* Apalache models of the guest's discard-fault handling                   *)
(* (spec/DiscardHandling.tla); model/apalache.json lists the checks.       *)
(* Constants as in model/MCDiscardHandling_Safety.cfg: two CPUs, one page. *)
(* DiscardedMappingRemovedProp is a liveness property: Apalache's bounded  *)
(* checks do not reach it (TLC checks it).                                 *)
(***************************************************************************)
EXTENDS DiscardHandlingStepChecks

CInit ==
    /\ CPUs = {"c1_OF_CPU", "c2_OF_CPU"}
    /\ Pages = {"p1_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"

AllStateInvariants ==
    /\ TypeOK
    /\ RemovedFromCacheAtMostOnceInv
    /\ PgDiscardedOnlyIfDiscardedInv
    /\ NotFreedWhileFaultPendingInv
    /\ PageCountInv

=============================================================================
