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

\* Broken twin of MigrationKeepsStableContentProp: a RAM migration that copies
\* only resident pages, so a stable page the host swapped out arrives as zeros.
MigratedContentResidentOnly(p) == IF valid[p] THEN data[p] ELSE 0

\* Broken twin of MigrationArrivalProp: attributes that carry Z as well.
ArrivalZCarried(p) == zbit[p]

=============================================================================
