--------------------------- MODULE ESSABareInstruction ---------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What any program that issues ESSA may     *)
(* rely on, whatever ORC it sends to whatever page (sources 1: the ORCs    *)
(* every Linux-era implementation shares), each a THEOREM at the end of    *)
(* this module, checked in the models it names:                           *)
(*                                                                         *)
(*   Right answers. OrcContractProp: each ORC does to the usage and N what *)
(*       its name says (sources 1), the licence the guest gives the host   *)
(*       (paper 2); ResultByteProp: R1 is the page's state before the      *)
(*       operation, the answer the guest decodes (sources 1; sources 6:    *)
(*       make_stable "reads failure from" it).                             *)
(*                                                                         *)
(* Both properties are ESSAProperties.tla's (D406).                        *)
(***************************************************************************)
(***************************************************************************)
(* ESSA as an instruction, apart from the guest that issues it: the        *)
(* specifications under which ESSA's step properties and its queued zaps   *)
(* are checked for every operation-request code on every page, not only   *)
(* the ones the 2007 guest of ESSA.tla issues.  Sources 1: the ORCs every  *)
(* Linux-era implementation shares, "Anything higher raises a              *)
(* specification exception"; so a program may issue any ORC on any page,  *)
(* and what ESSA does with it is the implementation's promise, whatever    *)
(* guest stands behind it.  A conformance harness sends the instruction so *)
(* (docs/conformance.md), and refimpl's graph model does too               *)
(* (tests/fixtures/graph/MCEssaGraph.tla, which states the same            *)
(* InstructionSpec for itself).                                            *)
(*                                                                         *)
(* The guest's view (GuestVars) is unchanged by a bare instruction or a    *)
(* bare access: no guest program asked for it, so the guest's own records  *)
(* (owed, belief, modified) say nothing about it.                          *)
(***************************************************************************)
EXTENDS ESSAProperties

\* The bare instruction: ORC orc on page p, as a harness sends it.  It reaches what no guest of
\* Next issues (ORC 5; ORC 7 on a page the guest does not believe stable).
ESSAInstruction(p, orc) == ESSA("ESSA", orc, p) /\ UNCHANGED GuestVars

\* ESSA's Next and the bare instruction: every ORC on every page, besides the guest's program.
InstructionSpec == Init /\ [][Next \/ \E p \in Pages, orc \in ORCs : ESSAInstruction(p, orc)]_vars

\* A bare load, store or writeback (the change bit reset), with no guest program behind it.
BareAccess(p) ==
    /\ ReadAccess("Read", p) \/ WriteAccess("Write", p, Written) \/ ResetChangeBit("Writeback", p)
    /\ UNCHANGED GuestVars

\* The bare instruction with the host and bare accesses only (no guest program): every ORC on
\* every state the host and the accesses leave a page in, small enough for CI (OrcContractProp,
\* D199).
ContractSpec ==
    Init /\ [][\/ \E p \in Pages, orc \in ORCs : ESSAInstruction(p, orc)
              \/ \E p \in Pages : BareAccess(p) \/ HostReclaim(p) \/ HostUnmapGmap(p) \/ HostAge(p)
              \/ HostProcessCBRL]_vars

\* The CBRL alone, small enough for two pages at CI size: stores, allocation (ORC 1) and freeing
\* (ORC 2) as bare instructions, the host's reclaim and CBRL processing, nothing else; what a
\* zap of another page needs (D329).
CBRLSpec ==
    Init /\ [][\/ \E p \in Pages :
                  \/ ESSAInstruction(p, 1) \/ ESSAInstruction(p, 2) \/ HostReclaim(p)
                  \/ WriteAccess("Write", p, Written) /\ UNCHANGED GuestVars
              \/ HostProcessCBRL]_vars

\* Right answers, for every ORC on every page.  MCESSA_Paper2007Contract,
\* MCESSA_KVMClassicInstructionContract, MCESSA_KVMGmapInstructionContract,
\* MCESSA_KVMClassicNoKeysContract, MCESSA_KVMClassicNoFacilityContract,
\* MCESSA_KVMGmapNoKeysContract, MCESSA_KVMClassicCMMAOffContract; twin MCESSA_Twin_OrcContract.
THEOREM (Bugs = {}) => (ContractSpec => OrcContractProp)
\* The same models; twin MCESSA_Twin_ResultByte.
THEOREM (Bugs = {}) => (ContractSpec => ResultByteProp)

=============================================================================
