-------------------------------- MODULE MCESSA --------------------------------
(***************************************************************************)
(* Models MCESSA_*.cfg of spec/ESSA.tla: the 2007 model, which keeps every *)
(* guest assumption, and the findings in the KVM implementations.         *)
(*                                                                         *)
(* Symmetry over pages: every action and property treats pages alike; the *)
(* CBRL holds pages, and permuting them permutes its entries.             *)
(***************************************************************************)
EXTENDS ESSAProperties, TLC

Symmetry == Permutations(Pages)

\* Broken twin of SpecificationExceptionProp: ORC 7 accepted without facility 147.
SpecificationExceptionIgnoringFacility(orc) == orc > 7

=============================================================================
