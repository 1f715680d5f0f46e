------------------------- MODULE ApalacheFrameReuse -------------------------
(***************************************************************************)
(* Apalache models of frames shared by guests (spec/FrameReuse.tla) and    *)
(* its inductive invariant (spec/FrameReuseInductive.tla);                 *)
(* model/apalache.json lists the checks.                                   *)
(***************************************************************************)
EXTENDS FrameReuseInductive

\* As model/MCFrameReuse_TwoGuests.cfg: two guests of one page, one frame,
\* so every first touch reuses the frame the other guest had.
CInitOneFrame ==
    /\ Guests = {"g1_OF_GUEST", "g2_OF_GUEST"}
    /\ NoGuest = "none_OF_GUEST"
    /\ GuestPages = {"q1_OF_GPAGE"}
    /\ Frames = {"f1_OF_FRAME"}
    /\ NoFrame = "none_OF_FRAME"

\* As model/MCFrameReuse_TwoGuestsTwoFrames.cfg: two guests of two pages,
\* two frames.
CInitTwoFrames ==
    /\ Guests = {"g1_OF_GUEST", "g2_OF_GUEST"}
    /\ NoGuest = "none_OF_GUEST"
    /\ GuestPages = {"q1_OF_GPAGE", "q2_OF_GPAGE"}
    /\ Frames = {"f1_OF_FRAME", "f2_OF_FRAME"}
    /\ NoFrame = "none_OF_FRAME"

AllStateInvariants ==
    TypeOK /\ FrameBacksOnePageInv /\ NoCrossGuestLeakInv /\ OwedContentKeptInv /\ ResidencyBackingInv

=============================================================================
