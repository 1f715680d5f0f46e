------------------------ MODULE MCESSARefinesGuestMemory ------------------------
(***************************************************************************)
(* Models MCESSARefinesGuestMemory_*.cfg: ESSA checked for refinement of   *)
(* the guest's view of its memory (spec/ESSARefinesGuestMemory.tla), and   *)
(* the KVM departures F1 to F4 as its counterexamples, each alone, as      *)
(* MCESSARefines.tla isolates them (FindingNext).                          *)
(***************************************************************************)
EXTENDS MCESSARefines, ESSARefinesGuestMemory

\* Spec and the bare instruction (every ORC on every page), as MCESSARefines.tla's
\* AugInstructionSpec.
GMAugInstructionSpec ==
    GMAugInit(Init) /\ [][GMAugNext(InstructionNext)]_<<augVars, psShownAsP>>

GMF1Spec == GMAugInit(Init) /\ [][GMAugNext(FindingNext("F1"))]_<<augVars, psShownAsP>>
GMF2Spec == GMAugInit(Init) /\ [][GMAugNext(FindingNext("F2"))]_<<augVars, psShownAsP>>
GMF3Spec == GMAugInit(Init) /\ [][GMAugNext(FindingNext("F3"))]_<<augVars, psShownAsP>>
GMF4Spec == GMAugInit(Init) /\ [][GMAugNext(FindingNext("F4"))]_<<augVars, psShownAsP>>

=============================================================================
