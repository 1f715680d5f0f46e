-------------------------- MODULE MCHostReclaimRefinement --------------------------
(***************************************************************************)
(* Models MCHostReclaimRefinement_*.cfg: the z/VM reclaim policy checked   *)
(* for refinement of the guest's view of its memory (GuestMemory.tla),     *)
(* which spec/HostReclaimRefinesGuestMemory.tla states with its mapping    *)
(* and history variable (AugSpec, RefinesGuestMemory).                     *)
(***************************************************************************)
EXTENDS MCHostReclaim, HostReclaimRefinesGuestMemory

=============================================================================
