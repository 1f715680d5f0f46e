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

=============================================================================
