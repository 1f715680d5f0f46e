-------------------- MODULE MCPageStatesRefinement_Twins --------------------
(***************************************************************************)
(* The broken twin of the refinement check: a simplified machine that is  *)
(* not a refinement of the full machine must be caught by                 *)
(* RefinesFullMachine.  The twins of MCPageStates_Twins.tla run the same  *)
(* refinement on themselves (their module extends MCPageStatesRefinement), *)
(* so none of them is repeated here.                                       *)
(***************************************************************************)
EXTENDS MCPageStatesRefinement, MCPageStates_Twins

\* A collapsed machine that folds a P request on a logically zero page into Sz
\* ("all zero pages are alike") instead of Vz, so a discarded page stops being
\* discarded without the guest asking for S.  The full machine has Pz, so this
\* twin changes the simplified machine only.  Caught by RefinesFullMachine.
NormaliseFoldingPzIntoSz(u, r, d) ==
    IF HasState(u, r) THEN Keep(u, r)
    ELSE IF u = "P" /\ r = "z" THEN Keep("S", "z")
    ELSE IF u = "P" /\ r = "p" /\ d THEN Keep("S", "p")
    ELSE IF r = "p" /\ Discardable(u, d) THEN Discard(u)
    ELSE Keep(u, r)

=============================================================================
