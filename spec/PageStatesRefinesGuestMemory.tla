--------------------- MODULE PageStatesRefinesGuestMemory ---------------------
(***************************************************************************)
(* Contract (docs/contract.md).  One promise, with its THEOREM at the end  *)
(* of this module naming the models that check it and the twins that fail  *)
(* it.                                                                     *)
(*                                                                         *)
(*   What the guest is owed. RefinesGuestMemoryInit and                    *)
(*       RefinesGuestMemory: every machine of PageStates.tla, the full one *)
(*       and each simplification, implements the guest's view of its       *)
(*       memory (GuestMemory.tla) under the mapping below, which reads no  *)
(*       ghost: the host may drop only what the guest gave up (paper 2),   *)
(*       and SetStableIfNotDiscarded, a read and Extract tell the guest of *)
(*       every loss and of no other.                                       *)
(***************************************************************************)
(***************************************************************************)
(* The mapping.  A simplified machine shows some P pages as V or S (the    *)
(* paper's implicit transitions); PageStatesRefinesFull.tla maps it to the *)
(* full machine with the history variable shownAsP.  This module composes  *)
(* that mapping with the full machine's view as the guest sees it:         *)
(*   usage     the full machine's usage (FullUsage);                       *)
(*   lost      a V or P page that is logically zero: "The states Vz and Pz *)
(*             mark the special 'discarded' condition of a page";          *)
(*   content   what the frame or the host's copy holds (data), nothing on  *)
(*             an unused page ("the page content is meaningless");         *)
(*   modified  the page's change bit, which the guest reads and resets     *)
(*             itself (its storage key, D6, D7);                           *)
(*   answer    the last guest step as it recorded what the guest observed  *)
(*             (FullLastOp); a host step shows as no answer at all.        *)
(* The ghosts intended, modified and requested of PageStates.tla appear    *)
(* nowhere here:                                                           *)
(* what they record cannot excuse a loss the mapping sees in data.         *)
(***************************************************************************)
EXTENDS PageStatesRefinesFull

ViewContent == [p \in Pages |-> IF FullUsage[p] = "U" THEN NoValue ELSE data[p]]
ViewLost    == [p \in Pages |-> FullUsage[p] \in {"V", "P"} /\ resid[p] = "z"]
ViewAnswer  == IF FullLastOp.op \in HostOps
               THEN [op |-> "Host", page |-> NoPage, arg |-> NoValue,
                     outcome |-> "None", value |-> NoValue]
               ELSE FullLastOp

GuestView == INSTANCE GuestMemory
             WITH usage <- FullUsage, content <- ViewContent, modified <- dirty,
                  lost <- ViewLost, answer <- ViewAnswer

\* Checked as the abstract action the concrete step records in lastOp
\* (GuestView!Perform, a disjunct of GuestView!Next), as RefinesFullMachine
\* does: that implies [][GuestView!Next]_GuestView!gvars at the cost of one
\* action per step.  With RefinesGuestMemoryInit it implies GuestView!Spec.
ViewOp(o) == IF o.op \in HostOps THEN "Host" ELSE o.op
RefinesGuestMemoryInit == GuestView!Init
RefinesGuestMemory ==
    [][GuestView!Perform(ViewOp(lastOp'), lastOp'.page, lastOp'.arg)]_GuestView!gvars

\* What the guest is owed.  MCPageStatesRefinement_Full, MCPageStatesRefinement_OneDiscardedState,
\* MCPageStatesRefinement_NoVp, MCPageStatesRefinement_NoPp, MCPageStatesRefinement_NoP,
\* MCPageStatesRefinement_ZVMPrototype; twins MCPageStates_Twin_SSIND,
\* MCPageStates_Twin_ExtractName, MCPageStates_Twin_PrimitiveOutcome.
THEOREM AugSpec => RefinesGuestMemoryInit /\ RefinesGuestMemory
THEOREM AugSpec => GuestView!Spec

=============================================================================
