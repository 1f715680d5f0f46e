--------------------- MODULE MCMemoryDowngradeInductive ---------------------
(***************************************************************************)
(* Models MCMemoryDowngradeInductive_*.cfg: one step from every state of   *)
(* IndInit must land in IndInv (TLC explores further, but from states     *)
(* that are again initial states, so the check is the one-step one).      *)
(* The twin starts from every state satisfying TypeOK and                  *)
(* OwedContentKeptInv alone and must find a step that breaks it.  Symmetry *)
(* as in MCMemoryDowngrade.tla.                                            *)
(***************************************************************************)
EXTENDS MemoryDowngradeInductive, TLC

Symmetry == Permutations(Pages) \cup Permutations(Permanent)
                \cup Permutations(Reconfigurable)

IndSpec == IndInit /\ [][Next]_vars
PropertyAloneSpec == PropertyAloneInit /\ [][Next]_vars

=============================================================================
