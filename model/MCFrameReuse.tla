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

\* Broken twin: a frame handed to a logically zero page keeps what it held.
\* Caught by NoCrossGuestLeakInv.
FreshFrameContentNotZeroed(f) == frameData[f]

\* Broken twin: a page-in or first touch that may take a frame already in use.
\* Caught by FrameBacksOnePageInv.
AnyFrame == Frames

\* Broken twin: a steal that frees the frame without writing its content
\* out (as if the page were discardable).  Caught by ContentKeptInv.
PageOutContentLost(f) == NoGuest

\* Broken twin: a fresh frame filled with a marker that is no guest content.
\* Caught by TypeOK.
FreshFrameContentMarker(f) == NoFrame

\* Broken twin: a discard that leaves the page its frame.  Caught by
\* ResidencyBackingInv (a logically zero page with a frame).
BackingKept(s) == backing[s]

\* Broken twin: a discard that keeps a preserved page's saved copy.  Caught
\* by ResidencyBackingInv (a logically zero page with backed content).
SavedCopyKept(s) == saved[s]

\* Broken twin: a steal that writes the page out but leaves the frame assigned to it,
\* so the frame is never free again.  No property of the discard step could see it (the
\* page does not become logically zero); caught by ResidencyBackingInv (a preserved page
\* with a frame).
HostStealKeepingFrame(g, q) ==
    /\ resid[<<g, q>>] = "r"
    /\ saved' = [saved EXCEPT ![<<g, q>>] = PageOutContent(backing[<<g, q>>])]
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "p"]
    /\ UNCHANGED <<backing, frameData, lastRead, content>>
StealKeepingFrameSpec ==
    Init /\ [][\/ Next /\ ~(\E g \in Guests, q \in GuestPages : HostSteal(g, q))
               \/ \E g \in Guests, q \in GuestPages : HostStealKeepingFrame(g, q)]_vars

\* Witnesses of ResidencyBackingInv (model/manifest.json, D130): a preserved page, the
\* residency whose backing is a saved copy and no frame.
SomePagePreserved == \E s \in Slots : resid[s] = "p"

=============================================================================
