----------------------- MODULE ApalacheMemoryDowngrade -----------------------
(***************************************************************************)
(* Apalache models of Dynamic Memory Downgrade (spec/MemoryDowngrade.tla)  *)
(* and its inductive invariant (spec/MemoryDowngradeInductive.tla);        *)
(* model/apalache.json lists the checks.  RequestResolvesProp is a         *)
(* liveness property: Apalache's bounded checks do not reach it (TLC       *)
(* checks it).                                                             *)
(***************************************************************************)
EXTENDS MemoryDowngradeInductive, MemoryDowngradeStepChecks

\* As model/MCMemoryDowngrade_Safety.cfg: three frames (two permanent, one
\* reconfigurable), two pages of every usage and pinning, one paging slot.
CInitSafety ==
    /\ Frames = {"f1_OF_FRAME", "f2_OF_FRAME", "f3_OF_FRAME"}
    /\ Permanent = {"f1_OF_FRAME", "f2_OF_FRAME"}
    /\ MinPermanent = 2
    /\ NoFrame = "none_OF_FRAME"
    /\ Pages = {"p1_OF_PAGE", "p2_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"
    /\ Slots = 1
    /\ Values = {0, 1}
    /\ MovePolicy = "AnyRoom"
    /\ UsageChoice = {"S", "U", "V", "P"}
    /\ PinChoice = {FALSE, TRUE}

AllStateInvariants ==
    /\ TypeOK
    /\ OwedContentKeptInv
    /\ OfflineFrameUnusedInv
    /\ PinnedNeverPagedOutInv
    /\ FrameNotSharedInv
    /\ MemoryLimitsInv
    /\ RemovedMemoryOfflineInv
    /\ CleanRejectionInv
    /\ UnusedHoldsNothingInv

=============================================================================
