------------------------ MODULE MCFrameReuseInductive ------------------------
(***************************************************************************)
(* Models MCFrameReuseInductive_*.cfg: one step from every state of        *)
(* IndInit must land in IndInv (TLC explores further, but from states     *)
(* that are again initial states, so the check is the one-step one).      *)
(* The twin starts from every state satisfying NoCrossGuestLeakInv alone  *)
(* and must find a step that breaks it: the strengthening is needed.      *)
(* Symmetry as in MCFrameReuse.tla.                                        *)
(***************************************************************************)
EXTENDS FrameReuseInductive, TLC

Symmetry == Permutations(Guests) \cup Permutations(GuestPages) \cup Permutations(Frames)

IndSpec == IndInit /\ [][Next]_vars
PropertyAloneSpec == PropertyAloneInit /\ [][Next]_vars

=============================================================================
