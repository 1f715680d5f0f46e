------------------------- MODULE PageStatesRefinesFull -------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  One promise, with its THEOREM at the end  *)
(* of this module naming the models that check it and the twins that fail  *)
(* it.                                                                     *)
(*                                                                         *)
(*   Refinement. RefinesFullMachineInit and RefinesFullMachine: each       *)
(*       simplified machine the paper allows, "The state machine can be    *)
(*       simplified in several ways" (paper 2), is a behaviour subset of   *)
(*       the full machine under the mapping below.                         *)
(***************************************************************************)
(***************************************************************************)
(* Refinement.  Paper, section 2: "The state machine can be simplified in *)
(* several ways"; each simplification it allows (PageStates.tla, the       *)
(* constant Variant) must still be the page-state machine a guest relies   *)
(* on: every behaviour of a simplified machine is, under the mapping       *)
(* below, a behaviour of the full machine of Figure 1 (RefinesFullMachine, *)
(* with its initial states RefinesFullMachineInit).  So a guest written    *)
(* against the full machine can run on any of them; where a simplified     *)
(* machine shows a state the full one would not (Vz for Pz, Sp for a dirty *)
(* preserved P page), it is one of the implicit transitions the paper     *)
(* names for that simplification, and no other.                           *)
(*                                                                         *)
(* Checked by the models MCPageStatesRefinement_*.cfg                      *)
(* (model/MCPageStatesRefinement.tla, one .cfg per simplification).       *)
(***************************************************************************)
EXTENDS PageStates

(***************************************************************************)
(* Refinement of a simplified machine to the full machine of Figure 1.    *)
(*                                                                         *)
(* The simplifications differ from the full machine in two ways the        *)
(* guest can see: a collapsed machine shows Vz where the full one has Pz,  *)
(* and a machine without Pp shows a dirty P page it preserved as Sp ("the  *)
(* host ... will set the combined target state to Sp").  Both are          *)
(* implicit guest state transitions away from P.  The history variable     *)
(* shownAsP records, per page, that the full machine would still show P    *)
(* there.  It is set only by a step that is one of the implicit            *)
(* transitions the paper names, and only on the page it names:             *)
(*   "Collapse the two discarded states Vz and Pz to a single discarded    *)
(*   state Vz": a P page discarded (HostDiscard, or SetPotentialVolatile   *)
(*   on a zero or clean preserved page) shows Vz, in the machines that     *)
(*   collapse (OneDiscardedState, ZVMPrototype);                           *)
(*   "Remove the Pp state. ... If the page dirty bit is set, the host      *)
(*   needs to preserve the page and will set the combined target state to  *)
(*   Sp": a dirty P page preserved (HostPreserve, or SetPotentialVolatile  *)
(*   on a dirty preserved page) shows Sp, in the machines without Pp       *)
(*   (NoPp, ZVMPrototype).                                                 *)
(* It is cleared by the next step that changes the page's usage (a guest   *)
(* primitive sets a usage explicitly; anything else that changes it is no  *)
(* implicit transition) and by a successful guest primitive.  So a host    *)
(* that changes a usage in any other way (a clean P page preserved as Sp,  *)
(* a page shown as P turned into something else) changes the full         *)
(* machine's usage in a host step, which no step of the full machine does: *)
(* RefinesFullMachine implies HostKeepsUsageProp (PageStatesStepChecks),   *)
(* and these models no longer check that property separately               *)
(* (model/MCPageStates_Twin_CleanPPreserved.cfg is the twin).            *)
(* The machines are named here, as in HostKeepsUsageProp, not through      *)
(* HasPp or CollapseDiscarded, which a twin may replace.  shownAsP is a    *)
(* history variable in the sense of Abadi and Lamport: it is never read by *)
(* the machine's own steps, so it does not constrain them.  Everything     *)
(* else maps by identity.                                                  *)
(***************************************************************************)
VARIABLE
    \* @type: PAGE -> Bool;
    shownAsP

\* The step on p is one of the paper's implicit transitions away from P.
ImplicitlyLeftP(p) ==
    /\ \/ lastOp'.op = "SetPotentialVolatile"
       \/ lastOp'.op \in {"HostDiscard", "HostPreserve"} /\ usage[p] = "P"
    /\ \/ /\ Variant \in {"OneDiscardedState", "ZVMPrototype"}
          /\ usage'[p] = "V" /\ resid'[p] = "z"
       \/ /\ Variant \in {"NoPp", "ZVMPrototype"}
          /\ usage'[p] = "S" /\ resid'[p] = "p" /\ dirty[p]

HistoryNext ==
    shownAsP' = [p \in Pages |->
                    IF p # lastOp'.page THEN shownAsP[p]
                    ELSE IF ImplicitlyLeftP(p) THEN TRUE
                    ELSE IF usage'[p] # usage[p] THEN FALSE
                    ELSE IF lastOp'.op \in GuestPrimitives /\ lastOp'.outcome # "Failure"
                         THEN FALSE
                    ELSE shownAsP[p]]

\* The machine with its history variable: every step of Next, shownAsP alongside.
AugInit == Init /\ shownAsP = [p \in Pages |-> FALSE]
AugNext == Next /\ HistoryNext
AugSpec == AugInit /\ [][AugNext]_<<vars, shownAsP>>

FullUsage == [p \in Pages |-> IF shownAsP[p] THEN "P" ELSE usage[p]]
FullLastOp ==
    IF lastOp.op = "Extract" /\ shownAsP[lastOp.page]
    THEN [lastOp EXCEPT !.outcome = StateName("P", resid[lastOp.page])]
    ELSE lastOp

\* Note for twins: a definition override in a .cfg applies to this instance
\* too, so a twin of a simplified machine must change behaviour only where
\* the full machine differs (a state the full machine has is unaffected).
Full == INSTANCE PageStates
        WITH Variant <- "Full", usage <- FullUsage, lastOp <- FullLastOp

\* Every step of the simplified machine must be a step of the full machine
\* (under the mapping).  Checked as the very action the step records in
\* lastOp (Full!Perform), a disjunct of Full!Next: that implies
\* [][Full!Next]_Full!vars and costs one action instead of all of them.  It
\* is stated as a [][A]_v of its own, not as Full!Spec, because TLC names a
\* violated [][A]_v but reports a violated conjunct of Full!Spec only by its
\* source location; the initial states are checked by RefinesFullMachineInit.
RefinesFullMachineInit == Full!Init
RefinesFullMachine ==
    [][Full!Perform(lastOp'.op, lastOp'.page, lastOp'.arg)]_Full!vars

\* Refinement.  MCPageStatesRefinement_OneDiscardedState, MCPageStatesRefinement_NoVp,
\* MCPageStatesRefinement_NoPp, MCPageStatesRefinement_NoP, MCPageStatesRefinement_ZVMPrototype;
\* twins MCPageStatesRefinement_Twin_FoldedPz, MCPageStates_Twin_CleanPPreserved.
THEOREM AugSpec => RefinesFullMachineInit /\ RefinesFullMachine

=============================================================================
