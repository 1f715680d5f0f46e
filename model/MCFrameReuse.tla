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
\* DiscardDropsFrameProp.
BackingKept(s) == backing[s]

\* Broken twin: a discard that keeps a preserved page's saved copy.  Caught
\* by DiscardDropsSavedCopyProp.
SavedCopyKept(s) == saved[s]

\* Witnesses of the discard properties (model/manifest.json, D212): the host
\* discards a resident page (the discard CMM2 exists for: no page-out, the
\* frame freed at once) and a preserved page (its saved copy dropped without
\* a page-in).  Defined here, beside the model, not in the machine module.
ResidentPageDiscarded == \E s \in Slots : resid[s] = "r" /\ resid'[s] = "z"
PreservedPageDiscarded == \E s \in Slots : resid[s] = "p" /\ resid'[s] = "z"

=============================================================================
