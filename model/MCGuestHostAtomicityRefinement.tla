-------------------- MODULE MCGuestHostAtomicityRefinement --------------------
(***************************************************************************)
(* Models MCGuestHostAtomicityRefinement_*.cfg: concurrent guest CPUs and  *)
(* the host checked for refinement of the guest's view of its memory       *)
(* (GuestMemory.tla), which spec/GuestHostAtomicityRefinesGuestMemory.tla  *)
(* states with its mapping and history variable.                           *)
(***************************************************************************)
EXTENDS MCGuestHostAtomicity, GuestHostAtomicityRefinesGuestMemory

=============================================================================
