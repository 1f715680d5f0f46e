---------------------------- MODULE MCFrameReuse ----------------------------
(***************************************************************************)
(* Models MCFrameReuse_*.cfg of spec/FrameReuse.tla, and its broken twin.  *)
(*                                                                         *)
(* Symmetry: guests, their pages and frames are each interchangeable: no   *)
(* action or property names one, nothing CHOOSEs one, and NoGuest/NoFrame  *)
(* lie outside the permuted sets.  The union of the three permutation      *)
(* sets is a subset of the symmetry group, hence sound.                    *)
(***************************************************************************)
EXTENDS FrameReuse, TLC

Symmetry == Permutations(Guests) \cup Permutations(GuestPages) \cup Permutations(Frames)

\* The broken twins override the action they break (model/MCFrameReuse_*.cfg: "Action <-
\* BrokenAction"), each a copy of the spec's action with the one change.

\* Broken twin: a frame handed to a logically zero page keeps what it held.
\* Caught by NoCrossGuestLeakInv.
HostZeroFillNotZeroed(g, q) ==
    /\ resid[<<g, q>>] = "z"
    /\ \E f \in FreeFrames : backing' = [backing EXCEPT ![<<g, q>>] = f]
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "r"]
    /\ UNCHANGED <<frameData, saved, lastRead, content>>

\* Broken twin: a page-in or first touch that may take a frame already in use.
\* Caught by FrameBacksOnePageInv.
AnyFrame == Frames

\* Broken twin: a steal that frees the frame without writing its content
\* out (as if the page were discardable).  Caught by OwedContentKeptInv.
HostStealNotWritten(g, q) ==
    /\ resid[<<g, q>>] = "r"
    /\ saved' = [saved EXCEPT ![<<g, q>>] = NoGuest]
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "p"]
    /\ backing' = [backing EXCEPT ![<<g, q>>] = NoFrame]
    /\ UNCHANGED <<frameData, lastRead, content>>

\* Broken twin: a fresh frame filled with a marker that is no guest content.
\* Caught by TypeOK.
HostZeroFillMarker(g, q) ==
    /\ resid[<<g, q>>] = "z"
    /\ \E f \in FreeFrames :
        /\ backing' = [backing EXCEPT ![<<g, q>>] = f]
        /\ frameData' = [frameData EXCEPT ![f] = NoFrame]
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "r"]
    /\ UNCHANGED <<saved, lastRead, content>>

\* Broken twin: a discard that leaves the page its frame.  Caught by
\* ResidencyBackingInv (a logically zero page with a frame).
HostDiscardKeepingFrame(g, q) ==
    /\ resid[<<g, q>>] \in {"r", "p"}
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "z"]
    /\ saved' = [saved EXCEPT ![<<g, q>>] = NoGuest]
    /\ content' = [content EXCEPT ![<<g, q>>] = NoGuest]
    /\ UNCHANGED <<backing, frameData, lastRead>>

\* Broken twin: a discard that keeps a preserved page's saved copy.  Caught
\* by ResidencyBackingInv (a logically zero page with backed content).
HostDiscardKeepingCopy(g, q) ==
    /\ resid[<<g, q>>] \in {"r", "p"}
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "z"]
    /\ backing' = [backing EXCEPT ![<<g, q>>] = NoFrame]
    /\ content' = [content EXCEPT ![<<g, q>>] = NoGuest]
    /\ UNCHANGED <<saved, frameData, lastRead>>

\* Broken twin: a steal that writes the page out but leaves the frame assigned to it,
\* so the frame is never free again.  No property of the discard step could see it (the
\* page does not become logically zero); caught by ResidencyBackingInv (a preserved page
\* with a frame).
HostStealKeepingFrame(g, q) ==
    /\ resid[<<g, q>>] = "r"
    /\ saved' = [saved EXCEPT ![<<g, q>>] = frameData[backing[<<g, q>>]]]
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "p"]
    /\ UNCHANGED <<backing, frameData, lastRead, content>>
StealKeepingFrameSpec ==
    Init /\ [][\/ Next /\ ~(\E g \in Guests, q \in GuestPages : HostSteal(g, q))
               \/ \E g \in Guests, q \in GuestPages : HostStealKeepingFrame(g, q)]_vars

\* Witnesses of ResidencyBackingInv (model/manifest.json, D130): a preserved page, the
\* residency whose backing is a saved copy and no frame.
SomePagePreserved == \E s \in Slots : resid[s] = "p"

=============================================================================
