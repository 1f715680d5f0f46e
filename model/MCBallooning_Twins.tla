------------------------- MODULE MCBallooning_Twins --------------------------
(***************************************************************************)
(* Broken twins of CMM1 ballooning: each replaces one action of            *)
(* spec/Ballooning.tla with a copy that has one change (through a          *)
(* definition override in its MCBallooning_Twin_*.cfg) and must make TLC   *)
(* report a violation of exactly the property its cfg checks.              *)
(***************************************************************************)
EXTENDS MCBallooning

\* VMRM before z/VM 5.4 (APAR VM64439): no lower bound on what it asks.
\* Caught by FloorInv, and, in a guest that then tries forever to give what
\* it cannot, by ShrinkMetProp.
SetTargetNoSafetyNet(g, n) ==
    /\ target' = [target EXCEPT ![g] = n]
    /\ target'[g] # target[g]
    /\ UNCHANGED <<inUse, ballooned, backed, data, owed>>

\* VMRM that applies the safety net by subtracting the floor from what it
\* would ask, instead of capping it: a small request becomes a negative
\* target, which no guest can hold.  Caught by FloorInv.
SetTargetSubtractsFloor(g, n) ==
    /\ target' = [target EXCEPT ![g] = n - Floor]
    /\ target'[g] # target[g]
    /\ UNCHANGED <<inUse, ballooned, backed, data, owed>>

\* A CMM driver that releases a page the guest still uses (taken without
\* going through the allocator).  Caught by BalloonedPagesUnusedInv, and by
\* OwedContentKeptInv once the host has taken the frame.
InflateInUse(g, p) ==
    /\ Balloon(g) < target[g]
    /\ Size - Balloon(g) > Floor
    /\ ~ballooned[<<g, p>>]
    /\ ballooned' = [ballooned EXCEPT ![<<g, p>>] = TRUE]
    /\ backed' = [backed EXCEPT ![<<g, p>>] = FALSE]
    /\ data' = [data EXCEPT ![<<g, p>>] = Zero]
    /\ UNCHANGED <<inUse, owed, target>>

\* A host that acknowledges Diagnose X'10' but keeps the frame (and what it
\* holds).  Caught by ReleasedFrameReturnedInv.
InflateFrameKept(g, p) ==
    /\ Balloon(g) < target[g]
    /\ Size - Balloon(g) > Floor
    /\ FreePage(g, p)
    /\ ballooned' = [ballooned EXCEPT ![<<g, p>>] = TRUE]
    /\ UNCHANGED <<inUse, owed, target, backed, data>>

\* A release that takes the frame back but leaves the page mapped to what it
\* held: the guest's next touch would not see a fresh frame.  Caught by
\* UnbackedReadsZeroInv.
InflateStaleContent(g, p) ==
    /\ Balloon(g) < target[g]
    /\ Size - Balloon(g) > Floor
    /\ FreePage(g, p)
    /\ ballooned' = [ballooned EXCEPT ![<<g, p>>] = TRUE]
    /\ backed' = [backed EXCEPT ![<<g, p>>] = FALSE]
    /\ UNCHANGED <<inUse, owed, target, data>>

=============================================================================
