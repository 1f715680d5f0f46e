------------------------- MODULE MCBallooningBroken --------------------------
(***************************************************************************)
(* Broken twins of CMM1 ballooning: each replaces one decision operator of *)
(* spec/Ballooning.tla (through a definition override in its               *)
(* MCBallooning_Twin_*.cfg) and must make TLC report a violation of       *)
(* exactly the property its cfg checks.                                    *)
(***************************************************************************)
EXTENDS MCBallooning

\* VMRM before z/VM 5.4 (APAR VM64439): no lower bound on what it asks.
\* Caught by FloorInv, and, in a guest that then tries forever to give what
\* it cannot, by ShrinkMetProp.
ShrinkTargetNoSafetyNet(g, n) == n

\* VMRM that applies the safety net by subtracting the floor from what it
\* would ask, instead of capping it: a small request becomes a negative
\* target.  Caught by TypeOK.
ShrinkTargetSubtractsFloor(g, n) == n - Floor

\* A CMM driver that releases a page the guest still uses (taken without
\* going through the allocator).  Caught by BalloonedPagesUnusedInv, and by
\* NoDataLostInv once the host has taken the frame.
ReleasableInUse(g, p) == ~ballooned[<<g, p>>]

\* A host that acknowledges Diagnose X'10' but keeps the frame.  Caught by
\* ReleasedFrameReturnedInv.
BackedAfterReleaseKept(g, p) == backed[<<g, p>>]

\* A release that takes the frame back but leaves the page mapped to what it
\* held: the guest's next touch would not see a fresh frame.  Caught by
\* UnbackedReadsZeroInv.
ContentAfterReleaseKept(g, p) == data[<<g, p>>]

=============================================================================
