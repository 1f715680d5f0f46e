----------------------- MODULE MemoryDowngradeCompare ------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What incremental removal promises against *)
(* bulk removal; each promise is a property below with a THEOREM beside it *)
(* naming the model whose .cfg checks it and the twin or finding that      *)
(* fails it.                                                               *)
(*                                                                         *)
(*   Refinement of the advice. SameOutcomeInv: removing "small amounts of  *)
(*       memory" at a time ([Z2]) ends where one request would, under      *)
(*       MovePolicy "SlotsFirst"; SameOutcomeUnpinnedInv: under either     *)
(*       policy when no pinned page is moved.                              *)
(*   No deadlock (safety). NeitherRunStuckInv: "DMD operations are        *)
(*       expected to take time", and neither run is ever stuck ([Z2]);     *)
(*   Right answers (safety). FittingRequestNotRejectedInv: a request that  *)
(*       fits is not rejected (D66).                                       *)
(*                                                                         *)
(* EachRunIsADowngradeInv checks that each copy is a correct removal (the  *)
(* properties of MemoryDowngradeProperties.tla).                           *)
(***************************************************************************)
(***************************************************************************)
(* Incremental and bulk removal give the same final outcome.               *)
(*                                                                         *)
(* [Z2]: "If a large amount of memory is to be removed, the impact on      *)
(* the system and workload can be greatly reduced by incrementally         *)
(* removing small amounts of memory"; the advice is sound only if doing so *)
(* ends where one request would.  This module runs two copies of           *)
(* MemoryDowngrade.tla side by side from the same memory: copy B removes   *)
(* the frames R with one request ("bulk"), copy I with one request per     *)
(* frame of R, each issued when the previous one completed, in any order   *)
(* ("incremental").  The guest and the host's own reclaim are idle, so     *)
(* that both copies start from, and only the removal changes, the same     *)
(* memory (with activity the two runs see different guests and cannot be   *)
(* compared; D68).  Every initial memory is tried: every placement, usage, *)
(* pinning, change bit and content of the pages, and every R of at least   *)
(* two frames.                                                             *)
(*                                                                         *)
(* The outcome of a run (D68): whether all of R went offline (completed),  *)
(* and then which frames are offline; what the guest can see of every      *)
(* page: the content of every page whose content is kept (S, modified P,   *)
(* pinned), and the content of every other page that still has one (a U,   *)
(* V or clean P page may be discarded: the guest tolerates that by         *)
(* definition, so whether it was is not part of the outcome).  When bulk   *)
(* removal is rejected, nothing is offline; incremental removal keeps the  *)
(* frames it removed before the one that did not fit (that is what         *)
(* incremental means), so on rejection only the verdict and the memory are *)
(* compared.                                                               *)
(*                                                                         *)
(* Found by checking (D68): the outcomes agree under MovePolicy            *)
(* "SlotsFirst" (SameOutcomeInv), and under "AnyRoom" only when no page to *)
(* be moved is pinned (SameOutcomeUnpinnedInv): an incremental step may    *)
(* spend on another page the frame that a pinned page of a later step      *)
(* needs (model/MCMemoryDowngradeCompare_Finding_F6_AnyRoomPinned3.cfg).              *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    \* @type: Set(FRAME);
    Frames,
    \* @type: Set(FRAME);
    Permanent,
    \* @type: Int;
    MinPermanent,
    \* @type: FRAME;
    NoFrame,
    \* @type: Set(PAGE);
    Pages,
    \* @type: PAGE;
    NoPage,
    \* @type: Int;
    Slots,
    \* @type: Set(Int);
    Values,
    \* @type: Str;
    MovePolicy,
    \* @type: Set(Str);
    UsageChoice,    \* the usages pages are given initially (a model bound)
    \* @type: Set(Bool);
    PinChoice       \* whether pages may be pinned, unpinned or both (a model bound)

VARIABLES
    \* @type: PAGE -> Str;
    usage,
    \* @type: PAGE -> Bool;
    pinned,
    \* @type: PAGE -> Bool;
    bDirty,
    \* @type: PAGE -> FRAME;
    bFrame,
    \* @type: PAGE -> Bool;
    bPaged,
    \* @type: PAGE -> Int;
    bData,
    \* @type: PAGE -> Int;
    bOwed,
    \* @type: PAGE -> Bool;
    bModified,
    \* @type: FRAME -> Bool;
    bOnline,
    \* @type: { state: Str, frames: Set(FRAME) };
    bReq,
    \* @type: { page: PAGE, target: FRAME, value: Int };
    bCopy,
    \* @type: Set(FRAME);
    bRemoved,
    \* @type: PAGE -> Bool;
    iDirty,
    \* @type: PAGE -> FRAME;
    iFrame,
    \* @type: PAGE -> Bool;
    iPaged,
    \* @type: PAGE -> Int;
    iData,
    \* @type: PAGE -> Int;
    iOwed,
    \* @type: PAGE -> Bool;
    iModified,
    \* @type: FRAME -> Bool;
    iOnline,
    \* @type: { state: Str, frames: Set(FRAME) };
    iReq,
    \* @type: { page: PAGE, target: FRAME, value: Int };
    iCopy,
    \* @type: Set(FRAME);
    iRemoved,
    \* @type: Set(FRAME);
    todo,       \* the frames of R the incremental run has not yet asked for
    \* @type: Bool;
    pinnedInR   \* a page in R was pinned at the start (fixed)

B == INSTANCE MemoryDowngrade
        WITH dirty <- bDirty, frame <- bFrame, paged <- bPaged, data <- bData,
             owed <- bOwed, modified <- bModified, online <- bOnline, req <- bReq, copy <- bCopy,
             removed <- bRemoved
I == INSTANCE MemoryDowngrade
        WITH dirty <- iDirty, frame <- iFrame, paged <- iPaged, data <- iData,
             owed <- iOwed, modified <- iModified, online <- iOnline, req <- iReq, copy <- iCopy,
             removed <- iRemoved

\* Each run's own properties (MemoryDowngradeProperties.tla and its step checks), for
\* EachRunIsADowngradeInv.
BP == INSTANCE MemoryDowngradeStepChecks
        WITH dirty <- bDirty, frame <- bFrame, paged <- bPaged, data <- bData,
             owed <- bOwed, modified <- bModified, online <- bOnline, req <- bReq, copy <- bCopy,
             removed <- bRemoved
IP == INSTANCE MemoryDowngradeStepChecks
        WITH dirty <- iDirty, frame <- iFrame, paged <- iPaged, data <- iData,
             owed <- iOwed, modified <- iModified, online <- iOnline, req <- iReq, copy <- iCopy,
             removed <- iRemoved

bVars == <<bDirty, bFrame, bPaged, bData, bOwed, bModified, bOnline, bReq, bCopy, bRemoved>>
iVars == <<iDirty, iFrame, iPaged, iData, iOwed, iModified, iOnline, iReq, iCopy, iRemoved>>
allVars == <<usage, pinned, bVars, iVars, todo, pinnedInR>>

Reconfigurable == Frames \ Permanent


\* Every memory MemoryDowngrade's Init allows (usages and pinning drawn from
\* UsageChoice and PinChoice, all of them in the models but one twin), now
\* also with any content and change bit (a page with no frame and no slot
\* holds 0; only a P page's change bit matters: Keep and KeptIn read the bit
\* only of a P page, and usages are fixed, so a change bit on another page
\* would change no step, D174).
Init ==
    /\ usage \in [Pages -> UsageChoice]
    /\ pinned \in [Pages -> PinChoice]
    /\ bFrame \in [Pages -> Frames \cup {NoFrame}]
    /\ bPaged \in [Pages -> BOOLEAN]
    /\ \A p, q \in Pages : p # q /\ bFrame[p] # NoFrame => bFrame[p] # bFrame[q]
    /\ \A p \in Pages : pinned[p] => bFrame[p] # NoFrame
    /\ \A p \in Pages : bFrame[p] # NoFrame => ~bPaged[p]
    /\ Cardinality({p \in Pages : bPaged[p]}) <= Slots
    /\ bDirty \in [Pages -> BOOLEAN]
    /\ \A p \in Pages : bDirty[p] => usage[p] = "P"
    /\ bData \in [Pages -> Values]
    /\ \A p \in Pages : (bFrame[p] = NoFrame /\ ~bPaged[p]) => bData[p] = 0
    /\ bOwed = [p \in Pages |-> IF usage[p] = "U" THEN B!NoValue ELSE bData[p]]
    /\ bModified = bDirty
    /\ bOnline = [f \in Frames |-> TRUE]
    /\ bCopy = B!NoCopy
    /\ bRemoved = {}
    \* One frame removed in bulk or incrementally is the same run: R has two
    \* frames or more.
    /\ \E R \in SUBSET Reconfigurable :
          /\ Cardinality(R) >= 2
          /\ bReq = [state |-> "active", frames |-> R]
          /\ todo = R
          /\ pinnedInR = \E p \in Pages : pinned[p] /\ bFrame[p] \in R
    /\ iDirty = bDirty /\ iFrame = bFrame /\ iPaged = bPaged /\ iData = bData
    /\ iOwed = bOwed /\ iModified = bModified /\ iOnline = bOnline /\ iCopy = bCopy
    /\ iRemoved = bRemoved
    /\ iReq = [state |-> "idle", frames |-> {}]

\* Once BulkDone holds it stays (every step of B needs an active request).
\* IncrementalDone implies it: the incremental run's first request waits for
\* BulkDone (IncrRequest), so Done's first conjunct is implied by its second
\* and is kept to say what Done means (D174).
BulkDone        == bReq.state \in {"completed", "rejected"}
IncrementalDone == iReq.state = "rejected" \/ (iReq.state = "completed" /\ todo = {})
Done            == BulkDone /\ IncrementalDone

\* The two runs share no variable that changes, so the order in which their
\* steps interleave cannot matter: bulk runs first, then incremental.  Each
\* removal step of MemoryDowngrade.tla is wrapped, so that a trace names it.
\* usage and pinned are left out: every step of MemoryDowngrade.tla keeps them
\* already, and Apalache rejects a variable kept twice in one step.
\* IncrementalOnly's BulkDone is implied too (every step of I but the request
\* needs an active request, which only IncrRequest makes, after BulkDone).
BulkOnly        == UNCHANGED <<iVars, todo, pinnedInR>>
IncrementalOnly == BulkDone /\ UNCHANGED <<bVars, todo, pinnedInR>>

BulkCopyStart(p, t)    == B!CopyStart(p, t) /\ BulkOnly
BulkCopyFinish         == B!CopyFinish /\ BulkOnly
BulkPageOut(p)         == B!EvacuateByPageOut(p) /\ BulkOnly
BulkDiscard(p)         == B!EvacuateByDiscard(p) /\ BulkOnly
BulkTakeOffline(f)     == B!TakeOffline(f) /\ BulkOnly
BulkComplete           == B!CompleteRemoval /\ BulkOnly
BulkReject             == B!RejectRemoval /\ BulkOnly

IncrCopyStart(p, t)    == I!CopyStart(p, t) /\ IncrementalOnly
IncrCopyFinish         == I!CopyFinish /\ IncrementalOnly
IncrPageOut(p)         == I!EvacuateByPageOut(p) /\ IncrementalOnly
IncrDiscard(p)         == I!EvacuateByDiscard(p) /\ IncrementalOnly
IncrTakeOffline(f)     == I!TakeOffline(f) /\ IncrementalOnly
IncrComplete           == I!CompleteRemoval /\ IncrementalOnly
IncrReject             == I!RejectRemoval /\ IncrementalOnly

\* The incremental run asks for the next frame when the previous request
\* completed (after a rejection it stops).
IncrRequest ==
    /\ BulkDone
    /\ iReq.state \in {"idle", "completed"}
    /\ \E f \in todo :
          /\ I!RequestRemoval({f})
          /\ todo' = todo \ {f}
    /\ UNCHANGED <<bVars, pinnedInR>>   \* I!RequestRemoval keeps the rest

\* Both runs have ended: the behaviour stays here (not a deadlock).
Finished == Done /\ UNCHANGED allVars

\* A step of either run.
RunStep ==
    \/ \E p \in Pages :
          \/ \E t \in Frames : BulkCopyStart(p, t) \/ IncrCopyStart(p, t)
          \/ BulkPageOut(p) \/ BulkDiscard(p) \/ IncrPageOut(p) \/ IncrDiscard(p)
    \/ \E f \in Frames : BulkTakeOffline(f) \/ IncrTakeOffline(f)
    \/ BulkCopyFinish \/ BulkComplete \/ BulkReject
    \/ IncrCopyFinish \/ IncrComplete \/ IncrReject
    \/ IncrRequest

Next == RunStep \/ Finished

Spec == Init /\ [][Next]_allVars

(***************************************************************************)
(* The outcomes are the same (D68): both runs completed or neither did; if *)
(* they completed, the same frames are offline; every page whose content   *)
(* is kept has the same content in both (present, or logically zero in     *)
(* both); every other page that still has content in both has the same     *)
(* content.                                                                *)
(***************************************************************************)
BulkCompleted        == bReq.state = "completed"
IncrementalCompleted == iReq.state = "completed" /\ todo = {}

\* @type: (PAGE -> Bool, PAGE) => Bool;
KeptIn(modified, p) ==
    usage[p] # "U" /\ (usage[p] = "S" \/ (usage[p] = "P" /\ modified[p]) \/ pinned[p])
\* @type: (PAGE -> FRAME, PAGE -> Bool, PAGE -> Int, PAGE) => Int;
Shows(frame, paged, data, p) ==
    IF frame[p] # NoFrame \/ paged[p] THEN data[p] ELSE 0

SameOutcome ==
    /\ BulkCompleted <=> IncrementalCompleted
    /\ BulkCompleted => bOnline = iOnline
    /\ \A p \in Pages :
          (KeptIn(bDirty, p) \/ KeptIn(iDirty, p)) =>
              Shows(bFrame, bPaged, bData, p) = Shows(iFrame, iPaged, iData, p)
    /\ \A p \in Pages :
          (usage[p] # "U" /\ (bFrame[p] # NoFrame \/ bPaged[p])
                          /\ (iFrame[p] # NoFrame \/ iPaged[p])) =>
              bData[p] = iData[p]

(***************************************************************************)
(* SameOutcomeInv.  [Z2]: "If a large amount of memory is to be            *)
(* removed, the impact on the system and workload can be greatly reduced   *)
(* by incrementally removing small amounts of memory and allowing a short  *)
(* time interval between operations."  Removing R one frame at a time      *)
(* ends where removing R at once does.  Holds under MovePolicy             *)
(* "SlotsFirst"; under "AnyRoom" it does not (D68): an incremental step    *)
(* may copy a page into the last free frame that a pinned page of a later  *)
(* step needs, where the bulk request, which sees that pinned page, pages  *)
(* the first page out.                                                     *)
(***************************************************************************)
SameOutcomeInv == Done => SameOutcome
\* Contract (the same outcome, bulk or incremental).  MCMemoryDowngradeCompare_SlotsFirst; finding MCMemoryDowngradeCompare_Finding_F6_AnyRoomPinned3.
THEOREM MovePolicy = "SlotsFirst" => (Spec => []SameOutcomeInv)

(***************************************************************************)
(* SameOutcomeUnpinnedInv.  The same, for removal sets that hold no pinned *)
(* page: holds under both policies.                                        *)
(***************************************************************************)
SameOutcomeUnpinnedInv == (Done /\ ~pinnedInR) => SameOutcome
\* Contract (the same outcome when no page to move is pinned).  MCMemoryDowngradeCompare_AnyRoomUnpinned; twin MCMemoryDowngradeCompare_Twin_CopyAny.
THEOREM Spec => []SameOutcomeUnpinnedInv

(***************************************************************************)
(* EachRunIsADowngradeInv.  Comparing two runs is worth something only if  *)
(* each is a correct removal from a memory that can exist: each copy keeps *)
(* every safety property of MemoryDowngradeProperties.tla, from its first  *)
(* state on ([Z2]: "Before memory can be reclaimed, the content of that    *)
(* memory must be copied elsewhere, either to other memory or paged out to *)
(* DASD"; "Permanent memory cannot be taken offline").  Two runs that lose *)
(* the same page's content agree (SameOutcomeInv holds) and are both wrong *)
(* (D174).                                                                 *)
(***************************************************************************)
EachRunIsADowngradeInv ==
    /\ BP!TypeOK /\ IP!TypeOK
    /\ BP!OwedContentKeptInv /\ IP!OwedContentKeptInv
    /\ BP!OfflineFrameUnusedInv /\ IP!OfflineFrameUnusedInv
    /\ BP!PinnedNeverPagedOutInv /\ IP!PinnedNeverPagedOutInv
    /\ BP!MemoryLimitsInv /\ IP!MemoryLimitsInv
    /\ BP!CleanRejectionInv /\ IP!CleanRejectionInv

(***************************************************************************)
(* NeitherRunStuckInv.  [Z2]: "DMD operations are expected to take time",  *)
(* and the measured ones all finished; a request "is rejected cleanly ...  *)
(* when there is not room enough" (D66).  Neither run is ever stuck: until *)
(* both have ended, one of them can take a step.  Deadlock freedom, a      *)
(* safety property (an invariant of ENABLED), not progress: it says a step *)
(* is possible, not that one is taken; with a finite state graph it is     *)
(* what "both runs always end" needs of the design.  It does not rest on   *)
(* TLC's deadlock check, which Finished (a stutter once both ended) would  *)
(* blind if its guard were wrong (D174).                                   *)
(***************************************************************************)
NeitherRunStuckInv == ~Done => ENABLED RunStep
\* Contract (no deadlock).  MCMemoryDowngradeCompare_SlotsFirst; twin MCMemoryDowngradeCompare_Twin_Stuck.
THEOREM Spec => []NeitherRunStuckInv

(***************************************************************************)
(* FittingRequestNotRejectedInv.  A request "is rejected cleanly ... when  *)
(* there is not room enough in free frames plus paging slots" (D66),       *)
(* and the removal makes the room it needs as it goes ([Z2]: "there        *)
(* might be a temporary spike in paging to make more frames available"):   *)
(* its own steps never spend room the request still needs, so where        *)
(* nothing else takes frames (the guest and the host are idle here) a      *)
(* request that fitted when it was made is never rejected (D66: "with an   *)
(* idle guest a request is rejected only if it did not fit at the start"). *)
(* A removal that copies an unpinned page into the last free frame a       *)
(* pinned page of the same request still needs breaks it: the pinned page  *)
(* cannot be paged out, and the request is rejected though the unpinned    *)
(* page could have gone to a slot (D290).  Judged on the bulk request,     *)
(* made in the initial memory: the incremental run asks for its first      *)
(* frame only once the bulk run has ended (IncrRequest), so while iReq is  *)
(* idle the incremental copy is still that memory.  (Each incremental      *)
(* request obeys the same rule; the memory it was made in is not kept.)    *)
(***************************************************************************)
FittingRequestNotRejectedInv ==
    (bReq.state = "rejected" /\ iReq.state = "idle") => ~IP!FitsIn(bReq.frames)
\* Contract (right answers).  MCMemoryDowngradeCompare_AnyRoomPinnedStable3 (stable pages only); twin
\* MCMemoryDowngradeCompare_Twin_SpendsPinnedFrame.
THEOREM (MovePolicy = "AnyRoom" /\ UsageChoice = {"S"}) => (Spec => []FittingRequestNotRejectedInv)

\* Witnesses (model/manifest.json, D130): what each property is about, which the
\* model that checks it must reach; a state for an invariant, a step for a Prop.
BothRunsDone         == Done
\* The bulk request was rejected: SameOutcome then compares verdicts and
\* memories only.  (Witnesses through BP name no operator of this module: the
\* mutation tool, which mutates every operator of a machine module that does
\* not end in Inv, Prop or TypeOK, has nothing to change in them.)
BulkRejected        == BP!RequestRejected
\* Content moving between frames, where a run could lose it (the witness of
\* OwedContentKeptInv in MemoryDowngrade's own models).
BulkPageBeingCopied == BP!PageBeingCopied
BothRunsDoneUnpinned == Done /\ ~pinnedInR

=============================================================================
