---------------------- MODULE MCHostReclaimRefinement_Twins ----------------------
(***************************************************************************)
(* The broken twins of MCHostReclaim_Twins.tla under the refinement of the *)
(* guest's view of its memory (MCHostReclaimRefinement.tla).               *)
(***************************************************************************)
EXTENDS MCHostReclaim_Twins, HostReclaimRefinesGuestMemory

=============================================================================
