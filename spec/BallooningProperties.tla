------------------------ MODULE BallooningProperties -------------------------
(***************************************************************************)
(* Contract: the promises of Ballooning.tla (its opening comment,          *)
(* docs/contract.md) are OwedContentKeptInv, UnbackedReadsZeroInv,         *)
(* ReleasedFrameReturnedInv, FloorInv and ShrinkMetProp; each has its      *)
(* THEOREM beside it, naming the model that checks it.  The other          *)
(* properties here check types and bookkeeping.  The step checks, each     *)
(* restating what one step does, are in BallooningStepChecks.tla, apart    *)
(* from the contract.                                                      *)
(***************************************************************************)
(***************************************************************************)
(* What CMM1 ballooning (Ballooning.tla) must guarantee; [Z1] is the z/VM  *)
(* CMMA report of docs/sources.md.  The broken twins                      *)
(* (model/MCBallooning_Twins.tla) replace the actions SetTarget and        *)
(* Inflate; no property is stated through them.                           *)
(***************************************************************************)
EXTENDS Ballooning

TypeOK ==
    /\ inUse \in [GP -> BOOLEAN]
    /\ ballooned \in [GP -> BOOLEAN]
    /\ backed \in [GP -> BOOLEAN]
    /\ data \in [GP -> Values]
    /\ owed \in [GP -> Values \cup {NoValue}]
    /\ target \in [Guests -> 0..Size]

(***************************************************************************)
(* ReleasedFrameReturnedInv.  [Z1]: the guests "release page frames"       *)
(* to relieve the host's constraint; the paper (section 5): ballooning     *)
(* "effectively reduces the memory that needs to be managed".  A page in   *)
(* the balloon has no host frame: the release gave it back.                *)
(***************************************************************************)
ReleasedFrameReturnedInv ==
    \A gp \in GP : ballooned[gp] => ~backed[gp]
\* Contract (what ballooning gives the host).  MCBallooning_Safety; twin MCBallooning_Twin_FrameKept.
THEOREM Spec => []ReleasedFrameReturnedInv

(***************************************************************************)
(* OwedContentKeptInv.  Ballooning takes memory from the guest only        *)
(* through the guest ("The guests can then take appropriate action to      *)
(* reduce their memory utilization"): a page the guest uses, and any page  *)
(* whose content it still needs, reads what the guest stored.  Judged by   *)
(* the ghost `owed` as well as by the allocator's flag `inUse`: a machine  *)
(* whose allocator lost track of a page would otherwise hide the loss of   *)
(* that page's content from its own check (D170).                          *)
(***************************************************************************)
OwedContentKeptInv ==
    \A gp \in GP :
        (inUse[gp] \/ owed[gp] # NoValue) => (backed[gp] /\ data[gp] = owed[gp])
\* Contract (no data loss).  MCBallooning_Safety; twin MCBallooning_Twin_LostData.
THEOREM Spec => []OwedContentKeptInv

(***************************************************************************)
(* UnbackedReadsZeroInv.  The paper, section 2: a logically zero page has  *)
(* "no associated frame or backed content.  The content of the page is     *)
(* considered to be zero"; [Z1]: Linux releases the page frames with       *)
(* Diagnose X'10'.  A page without a host frame holds nothing of what it   *)
(* held before: the guest's next touch reads a fresh frame (D71, D171).    *)
(***************************************************************************)
UnbackedReadsZeroInv ==
    \A gp \in GP : ~backed[gp] => data[gp] = Zero
\* Contract (isolation).  MCBallooning_Safety; twin MCBallooning_Twin_StaleContent.
THEOREM Spec => []UnbackedReadsZeroInv

(***************************************************************************)
(* FloorInv.  [Z1]: "With z/VM 5.4 or APAR VM64439, VMRM has been          *)
(* changed so that it will not ask a Linux guest to shrink below 64 MB.    *)
(* This was the minimum recommended virtual machine size", because guests  *)
(* "that had already given up all the storage they could give used         *)
(* excessive CPU time trying to find even more storage to give up".  What  *)
(* the guest sees of VMRM is the SHRINK target it is sent, a count of      *)
(* pages to give up: every target a guest is asked is a balloon it can     *)
(* hold, no fewer than none and no more than leaves it its floor.  The     *)
(* number VMRM derives from the constraint it sees is free (D72); what it  *)
(* asks of the guest is not.                                               *)
(***************************************************************************)
FloorInv == \A g \in Guests : target[g] \in 0..(Size - Floor)
\* Contract (what the guest is asked).  MCBallooning_Safety; twins MCBallooning_Twin_NoSafetyNet,
\* MCBallooning_Twin_TargetUnderflow.
THEOREM Spec => []FloorInv

(***************************************************************************)
(* ShrinkMetProp.  [Z1]: "Prior to z/VM 5.4 ... VMRM had no lower          *)
(* bound beyond which it would refrain from asking Linux guests to give    *)
(* up memory.  In some workloads, Linux guests that had already given up   *)
(* all the storage they could give used excessive CPU time trying to find  *)
(* even more storage to give up."  With the safety net, a guest can always *)
(* do what it is asked: whenever VMRM's target for a guest stays put, the  *)
(* balloon reaches it and stays there (shrink and grow back alike), under  *)
(* the fairness of FairSpec (D73).                                         *)
(***************************************************************************)
ShrinkMetProp ==
    \A g \in Guests, n \in 0..Size :
        <>[](target[g] = n) => <>[](Balloon(g) = n)
\* Contract (progress).  MCBallooning_Liveness; twin MCBallooning_Twin_Spinning.
THEOREM FairSpec => ShrinkMetProp

\* Witnesses (model/manifest.json, D130): what each property is about, which the
\* model that checks it must reach; a state for an invariant, a step for a Prop.
AtFloor           == \E g \in Guests : Size - target[g] = Floor
SomePageBallooned == \E gp \in GP : ballooned[gp]
UsedPageWithData  == \E gp \in GP : inUse[gp] /\ owed[gp] \notin {NoValue, 0}
\* A page the guest freed that still holds content: a release must drop it.
FreedPageWithData == \E gp \in GP : ~inUse[gp] /\ backed[gp] /\ data[gp] # Zero
\* VMRM lowers a target it had raised: the model shrinks a guest and lets it
\* grow back, both of which ShrinkMetProp is about.
GrowBackRequested == \E g \in Guests : target'[g] < target[g]

=============================================================================
