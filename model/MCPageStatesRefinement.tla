------------------------ MODULE MCPageStatesRefinement ------------------------
(***************************************************************************)
(* Models MCPageStatesRefinement_*.cfg: each simplified machine of the     *)
(* paper, checked for every property of PageStateProperties and for       *)
(* refinement of the full machine (Figure 1), which                        *)
(* spec/PageStatesRefinesFull.tla states with its mapping and history     *)
(* variable (AugSpec, RefinesFullMachine).                                 *)
(***************************************************************************)
EXTENDS MCPageStates, PageStatesRefinesGuestMemory

=============================================================================
