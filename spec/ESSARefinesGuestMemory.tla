------------------------- MODULE ESSARefinesGuestMemory -------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  One promise, with its THEOREM at the end  *)
(* of this module naming the model that checks it and the counterexamples  *)
(* of the KVM implementations.                                             *)
(*                                                                         *)
(*   What the guest is owed. RefinesGuestMemoryInit and                    *)
(*       RefinesGuestMemory: the 2007 model of ESSA implements the guest's *)
(*       view of its memory (GuestMemory.tla): the host may drop only what *)
(*       the guest gave up (paper 2), and SetStableIfNotDiscarded, an      *)
(*       access and Extract tell the guest of every loss and of no other.  *)
(***************************************************************************)
(***************************************************************************)
(* The mapping composes two: ESSARefinesPageStates.tla's, from ESSA to the *)
(* z/VM-prototype page-state machine (with its split and its record of the *)
(* PageStates step each ESSA step is), and PageStatesRefinesGuestMemory's, *)
(* from that machine to the guest's view, which needs the history variable *)
(* shownAsP of PageStatesRefinesFull.tla (the z/VM machine shows a         *)
(* discarded P page as Vz and a dirty preserved one as Sp).  psShownAsP    *)
(* keeps it by PageStatesRefinesFull's own rule, applied to the mapped     *)
(* step and the mapped states before and after.  The ghosts psIntended,    *)
(* psModified and psRequested appear in no mapped variable: what the guest *)
(* is owed is                                                              *)
(* ESSA's data where the page has content, and the loss is a V or P page   *)
(* with neither frame nor swap copy.                                       *)
(***************************************************************************)
EXTENDS ESSARefinesPageStates

VARIABLE
    \* @type: PAGE -> Bool;
    psShownAsP

GMV == INSTANCE PageStatesRefinesGuestMemory
        WITH Values <- {Zero, Written}, HostService <- TRUE,
             UnusedAccess <- "AddressingException", Variant <- "ZVMPrototype",
             usage <- AbsUsage, resid <- AbsResid, dirty <- AbsDirty, data <- data,
             intended <- psIntended, modified <- psModified, requested <- psRequested,
             lastOp <- psLastOp,
             shownAsP <- psShownAsP

\* The history variable follows every mapped PageStates step; a stuttering
\* step leaves it.
ShownNext == IF psMoved' THEN GMV!HistoryNext ELSE UNCHANGED psShownAsP

GMAugInit(concreteInit) == AugInit(concreteInit) /\ psShownAsP = [p \in Pages |-> FALSE]
GMAugNext(ConcreteNext) == AugNext(ConcreteNext) /\ ShownNext
GMAugSpec == GMAugInit(Init) /\ [][GMAugNext(Next)]_<<augVars, psShownAsP>>

RefinesGuestMemoryInit == GMV!RefinesGuestMemoryInit
\* A mapped step that is a PageStates step is the GuestMemory action it
\* claims to be (GMV!GuestView!Perform); any other step changes no variable
\* of the guest's view.
RefinesGuestMemoryPred ==
    IF psMoved'
    THEN GMV!GuestView!Perform(GMV!ViewOp(psLastOp'), psLastOp'.page, psLastOp'.arg)
    ELSE UNCHANGED GMV!GuestView!gvars
RefinesGuestMemory == [][RefinesGuestMemoryPred]_<<augVars, psShownAsP>>

\* What the guest is owed.  MCESSARefinesGuestMemory_Paper2007 (with the bare instruction:
\* MCESSARefinesGuestMemory_Paper2007Instruction); the KVM implementations
\* fail it, findings F1 to F4 as its counterexamples (MCESSARefinesGuestMemory_Finding_F1_KVMClassic
\* to MCESSARefinesGuestMemory_Finding_F4_KVMGmap).
THEOREM (Impl = "Paper2007" /\ ~StorageKeys /\ ~ModernGuest /\ CMMAEnabled)
            => (GMAugSpec => RefinesGuestMemoryInit /\ RefinesGuestMemory)

=============================================================================
