--------------------------- MODULE MemoryDowngrade ---------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What Dynamic Memory Downgrade promises;   *)
(* each promise is a property of MemoryDowngradeProperties.tla with a      *)
(* THEOREM beside it naming the model whose .cfg checks it and the twin    *)
(* that fails it.                                                          *)
(*                                                                         *)
(*   No data loss. OwedContentKeptInv, OfflineFrameUnusedInv: "Before      *)
(*       memory can be reclaimed, the content of that memory must be       *)
(*       copied elsewhere, either to other memory or paged out to DASD"    *)
(*       ([Z2]); PinnedNeverPagedOutInv: a pinned page, "locked" in real   *)
(*       memory ([Z2]), is always in a frame and never paged out;          *)
(*       CleanRejectionInv: a request that cannot be met is rejected with  *)
(*       nothing half-done (D66); FrameNotSharedInv: content is copied     *)
(*       to memory that holds no other page's.                             *)
(*   Isolation. UnusedHoldsNothingInv: "Unused (U): no useful content"     *)
(*       ([Z1]).                                                           *)
(*   Limits. MemoryLimitsInv: "Permanent memory cannot be taken offline    *)
(*       and there must be at least 4 GB of permanent memory" ([Z2]).      *)
(*   What the operator is told. RemovedMemoryOfflineInv: memory reported   *)
(*       removed is out of service until the operator adds it back ([Z2]). *)
(*   What CMMA saves. DiscardableNotMovedProp: clean pages Linux can       *)
(*       reconstruct are not paged out ([Z1]); UnusedNotBackedProp: an     *)
(*       unused page, "no useful content" ([Z1]), once dropped costs the   *)
(*       host no frame again.                                              *)
(*   Progress. RequestResolvesProp, under FairSpec: "DMD operations are    *)
(*       expected to take time", and they end ([Z2]).                      *)
(*                                                                         *)
(* The other properties restate a step (CompletionMeansRemovedProp,        *)
(* RejectionRestoresOnlyItsFramesProp) or check types (TypeOK).            *)
(* MemoryDowngradeCompare.tla compares bulk and incremental removal.       *)
(***************************************************************************)
(***************************************************************************)
(* Dynamic Memory Downgrade (DMD): taking real memory away from a running  *)
(* z/VM system (docs/sources.md [Z2]).                                     *)
(*                                                                         *)
(* "z/VM classifies memory as permanent or as reconfigurable.  Permanent   *)
(* memory cannot be taken offline and there must be at least 4 GB of       *)
(* permanent memory.  Reconfigurable memory can be taken offline and may   *)
(* be up to 50% of total memory.  Before memory can be reclaimed, the      *)
(* content of that memory must be copied elsewhere, either to other memory *)
(* or paged out to DASD."                                                  *)
(*                                                                         *)
(* The model: host frames (Frames, the Permanent ones and the rest         *)
(* reconfigurable), guest pages backed by frames, paging slots, and one    *)
(* removal request at a time naming reconfigurable frames.  While the      *)
(* request is active its frames are drained: no new page gets one of them; *)
(* each page in them is moved out (copied to a free frame outside the      *)
(* request, paged out, or, for U, V and clean P pages, discarded); each    *)
(* frame goes offline on its own as soon as it is empty (incremental).     *)
(* The request completes when all its frames are offline, or is rejected,  *)
(* with every frame of it back online, as soon as the pages still to be    *)
(* moved no longer fit in the free frames plus free paging slots.  The     *)
(* guest writes its pages and the host faults pages in, pages them out and *)
(* discards them all the while.                                            *)
(*                                                                         *)
(* A copy is two steps (CopyStart, CopyFinish) because a real copy takes   *)
(* time and a guest CPU may store into the page meanwhile; the source is   *)
(* invalidated for the duration, so such a store waits (D62).  Whether a   *)
(* kept page is copied or paged out is the constant MovePolicy (D65).      *)
(*                                                                         *)
(* What a frame, a paging slot and a pinned page are, and why the          *)
(* abstraction is sound: D60, D61, D63 in docs/decisions.md (D60 to        *)
(* D69 are this module's decisions).                                       *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    \* @type: Set(FRAME);
    Frames,         \* the host's real frames ("total")
    \* @type: Set(FRAME);
    Permanent,      \* the permanent ones; the rest are reconfigurable
    \* @type: Int;
    MinPermanent,   \* "there must be at least 4 GB of permanent memory", in frames
    \* @type: FRAME;
    NoFrame,
    \* @type: Set(PAGE);
    Pages,          \* guest pages (of all guests: DMD does not care whose)
    \* @type: PAGE;
    NoPage,
    \* @type: Int;
    Slots,          \* paging slots on DASD
    \* @type: Set(Int);
    Values,         \* page contents; 0 is the zero page
    \* @type: Str;
    MovePolicy,     \* where a kept, unpinned page goes: "AnyRoom" or "SlotsFirst" (D65)
    \* @type: Set(Str);
    UsageChoice,    \* the usages pages are given initially (a model bound)
    \* @type: Set(Bool);
    PinChoice       \* whether pages may be pinned, unpinned or both (a model bound)

VARIABLES
    \* @type: PAGE -> Str;
    usage,      \* the page's CMMA usage, "S", "U", "V" or "P" (fixed, D64)
    \* @type: PAGE -> Bool;
    pinned,     \* locked in real memory (fixed, D63)
    \* @type: PAGE -> Bool;
    dirty,      \* the guest's change bit (a P page is discardable while clean)
    \* @type: PAGE -> FRAME;
    frame,      \* the frame backing the page, or NoFrame
    \* @type: PAGE -> Bool;
    paged,      \* the page's content is in a paging slot (D61)
    \* @type: PAGE -> Int;
    data,       \* the page's content, wherever it is; 0 when it has none
    \* @type: PAGE -> Int;
    owed,       \* ghost: the last value the guest stored (NoValue for U pages)
    \* @type: PAGE -> Bool;
    modified,   \* ghost: the guest stored to the page and has not written it back
    \* @type: FRAME -> Bool;
    online,     \* the frame is in service
    \* @type: { state: Str, frames: Set(FRAME) };
    req,        \* the removal request: "idle", "active", "completed" or "rejected"
    \* @type: { page: PAGE, target: FRAME, value: Int };
    copy,       \* the copy in progress (page NoPage: none), with what it read
    \* @type: Set(FRAME);
    removed     \* ghost: frames the operator was told are removed, not yet added back

vars == <<usage, pinned, dirty, frame, paged, data, owed, modified, online, req, copy, removed>>

Reconfigurable == Frames \ Permanent
Usages    == {"S", "U", "V", "P"}
ReqStates == {"idle", "active", "completed", "rejected"}
NoValue   == -1
Zero      == 0
NoCopy    == [page |-> NoPage, target |-> NoFrame, value |-> NoValue]

ASSUME Permanent \subseteq Frames /\ NoFrame \notin Frames /\ NoPage \notin Pages
ASSUME Zero \in Values /\ \A v \in Values : v >= 0
ASSUME Slots \in Nat /\ MinPermanent \in Nat
ASSUME MovePolicy \in {"AnyRoom", "SlotsFirst"}
ASSUME UsageChoice \subseteq {"S", "U", "V", "P"} /\ UsageChoice # {}
ASSUME PinChoice \subseteq BOOLEAN /\ PinChoice # {}
\* The configuration itself respects the limits of [Z2].
ASSUME Cardinality(Permanent) >= MinPermanent
ASSUME 2 * Cardinality(Reconfigurable) <= Cardinality(Frames)

Resident(p) == frame[p] # NoFrame
Present(p)  == Resident(p) \/ paged[p]
Used(f)     == \E p \in Pages : frame[p] = f
Reserved(f) == copy.page # NoPage /\ copy.target = f
Active      == req.state = "active"
Draining(f) == Active /\ f \in req.frames
Copying(p)  == copy.page = p
SlotsInUse  == Cardinality({p \in Pages : paged[p]})

\* The content of S pages and of P pages with the change bit set must be
\* kept: what the host can tell (pinned pages are kept too, D63).
Keep(p) == usage[p] = "S" \/ (usage[p] = "P" /\ dirty[p])

\* A free frame a page may be given: online, not being drained, not backing
\* a page and not reserved as a copy target.
FreeFrame(f) == online[f] /\ ~Draining(f) /\ ~Used(f) /\ ~Reserved(f)

(***************************************************************************)
(* What is left to move, and whether it fits.  The page of the copy in     *)
(* progress is counted as moved (its target is reserved).                  *)
(***************************************************************************)
ToMove       == {p \in Pages : Draining(frame[p]) /\ ~Copying(p)}
PinnedToMove == {p \in ToMove : pinned[p]}
KeepToMove   == {p \in ToMove : ~pinned[p] /\ Keep(p)}
FreeOutside  == Cardinality({f \in Frames : FreeFrame(f)})
FreeSlots    == Slots - SlotsInUse

\* "there might be a temporary spike in paging to make more frames
\* available": a pinned page needs a frame, any other page whose content is
\* kept needs a frame or a slot; U, V and clean P pages need nothing (D65).
Room ==
    /\ Cardinality(PinnedToMove) <= FreeOutside
    /\ Cardinality(PinnedToMove) + Cardinality(KeepToMove) <= FreeOutside + FreeSlots

(***************************************************************************)
(* The evacuation decisions (D65, D66).  Each is read by one step, and     *)
(* stays a definition of its own because the comparison of incremental     *)
(* and bulk removal (MemoryDowngradeCompare.tla) runs this module twice,   *)
(* as two instances over variables of their own: its twins replace the     *)
(* decision inside both ("<-[MemoryDowngrade]"), which a copy of the step, *)
(* written over one instance's variables, could not.  The other twins      *)
(* (model/MCMemoryDowngrade_Twins.tla) override the step they break.       *)
(***************************************************************************)

\* Which pages are copied (D65): a pinned page always (it can only be
\* copied); a page whose content is kept only if a frame is left over for
\* the pinned pages still to be moved, and under "SlotsFirst" only when no
\* paging slot is free; a page whose content may be dropped never (it is
\* discarded: copying it would spend a frame on nothing).
MayCopy(p) ==
    \/ pinned[p]
    \/ /\ Keep(p)
       /\ FreeOutside > Cardinality(PinnedToMove)
       /\ MovePolicy = "AnyRoom" \/ FreeSlots = 0

\* U, V and clean P pages may be discarded: the CMMA benefit (D65).
MayDiscard(p) == ~pinned[p] /\ ~Keep(p)

\* The request gives up when what is left to move does not fit (D66).
GivesUp == ~Room

(***************************************************************************)
(* The guest.                                                              *)
(***************************************************************************)

\* A store to a resident page, never to an unused one ([Z1]: "Unused (U): no
\* useful content and any access to the page will cause an addressing
\* exception").  The copy's source is invalidated while the copy runs, so a
\* store to a page being copied waits for the page's new frame (D62).
Write(p, v) ==
    /\ Resident(p)
    /\ usage[p] # "U"
    /\ ~Copying(p)
    /\ data'  = [data EXCEPT ![p] = v]
    /\ owed'  = [owed EXCEPT ![p] = v]
    /\ dirty' = [dirty EXCEPT ![p] = TRUE]
    /\ modified' = [modified EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<usage, pinned, frame, paged, online, req, copy, removed>>

\* The guest wrote the page to its own backing store (D7 of docs/decisions.md).
ClearDirty(p) ==
    /\ dirty[p]
    /\ dirty' = [dirty EXCEPT ![p] = FALSE]
    /\ modified' = [modified EXCEPT ![p] = FALSE]
    /\ UNCHANGED <<usage, pinned, frame, paged, data, owed, online, req, copy, removed>>

(***************************************************************************)
(* The host, outside the removal: page faults and its own reclaim.         *)
(***************************************************************************)

\* A fault on a paged-out page reads it into a free frame; a fault on a
\* logically zero stable page gets a fresh zero frame.  Discarded V and P
\* pages stay discarded (the guest re-creates them; not modelled, D64), and
\* an access to an unused page is an addressing exception, not a fault ([Z1]).
FaultIn(p, f) ==
    /\ ~Resident(p)
    /\ paged[p] \/ usage[p] = "S"
    /\ FreeFrame(f)
    /\ frame' = [frame EXCEPT ![p] = f]
    /\ paged' = [paged EXCEPT ![p] = FALSE]
    /\ data'  = [data EXCEPT ![p] = IF paged[p] THEN @ ELSE Zero]
    /\ UNCHANGED <<usage, pinned, dirty, owed, modified, online, req, copy, removed>>

\* Host reclaim: page out a page whose content is kept, discard any other.
HostPageOut(p) ==
    /\ Resident(p)
    /\ ~Copying(p)
    /\ ~pinned[p]
    /\ Keep(p)
    /\ SlotsInUse < Slots
    /\ frame' = [frame EXCEPT ![p] = NoFrame]
    /\ paged' = [paged EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<usage, pinned, dirty, data, owed, modified, online, req, copy, removed>>

HostDiscard(p) ==
    /\ Resident(p)
    /\ ~Copying(p)
    /\ ~pinned[p]
    /\ ~Keep(p)
    /\ frame' = [frame EXCEPT ![p] = NoFrame]
    /\ data'  = [data EXCEPT ![p] = Zero]
    /\ dirty' = [dirty EXCEPT ![p] = FALSE]
    /\ UNCHANGED <<usage, pinned, paged, owed, modified, online, req, copy, removed>>

(***************************************************************************)
(* The operator: a removal request, and memory added back.                 *)
(***************************************************************************)

\* "removing up to 50% of the real memory while the system is running".
\* "Permanent memory cannot be taken offline": a request names
\* reconfigurable frames only.
RequestRemoval(R) ==
    /\ ~Active
    /\ R # {}
    /\ \A f \in R : online[f] /\ f \in Reconfigurable
    /\ req' = [state |-> "active", frames |-> R]
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, online, copy, removed>>

\* Offline reconfigurable memory brought back (SET STORAGE), between requests.
AddMemory(f) ==
    /\ ~Active
    /\ ~online[f]
    /\ f \in Reconfigurable
    /\ online' = [online EXCEPT ![f] = TRUE]
    /\ removed' = removed \ {f}
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, req, copy>>

(***************************************************************************)
(* The removal.                                                            *)
(***************************************************************************)

\* Copy, first step: reserve a target frame (a free frame outside the
\* request), invalidate the source and read it.
CopyStart(p, t) ==
    /\ Active
    /\ copy.page = NoPage
    /\ p \in ToMove
    /\ MayCopy(p)
    /\ t \notin req.frames
    /\ FreeFrame(t)
    /\ copy' = [page |-> p, target |-> t, value |-> data[p]]
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, online, req, removed>>

\* Copy, second step: the page is mapped to its new frame, with what was read.
CopyFinish ==
    /\ copy.page # NoPage
    /\ frame' = [frame EXCEPT ![copy.page] = copy.target]
    /\ data'  = [data EXCEPT ![copy.page] = copy.value]
    /\ copy'  = NoCopy
    /\ UNCHANGED <<usage, pinned, dirty, paged, owed, modified, online, req, removed>>

\* "or paged out to DASD": "pinned (aka locked)" pages cannot be paged out
\* (D63); pages whose content may be dropped are discarded instead (D65).
EvacuateByPageOut(p) ==
    /\ Active
    /\ p \in ToMove
    /\ ~pinned[p] /\ Keep(p)
    /\ SlotsInUse < Slots
    /\ frame' = [frame EXCEPT ![p] = NoFrame]
    /\ paged' = [paged EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<usage, pinned, dirty, data, owed, modified, online, req, copy, removed>>

\* The content of a U, V or clean P page is dropped instead of moved.
EvacuateByDiscard(p) ==
    /\ Active
    /\ p \in ToMove
    /\ MayDiscard(p)
    /\ frame' = [frame EXCEPT ![p] = NoFrame]
    /\ data'  = [data EXCEPT ![p] = Zero]
    /\ dirty' = [dirty EXCEPT ![p] = FALSE]
    /\ UNCHANGED <<usage, pinned, paged, owed, modified, online, req, copy, removed>>

\* One frame of the request goes offline as soon as it is empty: no page is
\* in it.  (A copy target is never a frame of the request: ~Reserved(f) holds
\* here anyway; it is kept as what an empty frame is, D225.)
TakeOffline(f) ==
    /\ Active
    /\ f \in req.frames
    /\ online[f]
    /\ ~Used(f) /\ ~Reserved(f)
    /\ online' = [online EXCEPT ![f] = FALSE]
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, req, copy, removed>>

\* The request is done when every frame it names is offline.  (That already
\* implies that no copy is in progress: the copy's page is still in a frame
\* of the request, which cannot go offline; D225.)
CompleteRemoval ==
    /\ Active
    /\ \A f \in req.frames : ~online[f]
    /\ copy.page = NoPage
    /\ req' = [req EXCEPT !.state = "completed"]
    /\ removed' = removed \cup req.frames
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, online, copy>>

\* Give up: a copy in progress is abandoned (the page stays in its source
\* frame, which is still valid: nothing was written to it), and every frame
\* of the request, and no other (frames an earlier request removed stay
\* removed), is back in service.
RejectRemoval ==
    /\ Active
    /\ GivesUp
    /\ online' = [f \in Frames |-> IF f \in req.frames THEN TRUE ELSE online[f]]
    /\ copy' = NoCopy
    /\ req' = [req EXCEPT !.state = "rejected"]
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, removed>>

(***************************************************************************)
(* Initial states: every placement of the pages (in distinct online        *)
(* frames, in slots, or nowhere) with every usage and pinning (of          *)
(* UsageChoice and PinChoice: all of them but in some twins), all memory   *)
(* online, no request.  Content starts as 0 everywhere: the values are     *)
(* symmetric, so which one a page starts with does not matter.  Pinned     *)
(* pages are resident.                                                     *)
(***************************************************************************)
Init ==
    /\ usage \in [Pages -> UsageChoice]
    /\ pinned \in [Pages -> PinChoice]
    /\ frame \in [Pages -> Frames \cup {NoFrame}]
    /\ paged \in [Pages -> BOOLEAN]
    /\ \A p, q \in Pages : p # q /\ frame[p] # NoFrame => frame[p] # frame[q]
    /\ \A p \in Pages : pinned[p] => frame[p] # NoFrame
    /\ \A p \in Pages : frame[p] # NoFrame => ~paged[p]
    /\ Cardinality({p \in Pages : paged[p]}) <= Slots
    /\ dirty = [p \in Pages |-> FALSE]
    /\ data = [p \in Pages |-> Zero]
    /\ owed = [p \in Pages |-> IF usage[p] = "U" THEN NoValue ELSE Zero]
    /\ modified = [p \in Pages |-> FALSE]
    /\ online = [f \in Frames |-> TRUE]
    /\ req = [state |-> "idle", frames |-> {}]
    /\ copy = NoCopy
    /\ removed = {}

GuestNext ==
    \E p \in Pages :
        \/ \E v \in Values : Write(p, v)
        \/ ClearDirty(p)

HostNext ==
    \E p \in Pages :
        \/ \E f \in Frames : FaultIn(p, f)
        \/ HostPageOut(p)
        \/ HostDiscard(p)

OperatorNext ==
    \/ \E R \in SUBSET Frames : RequestRemoval(R)
    \/ \E f \in Frames : AddMemory(f)

\* Every step of the removal itself: the steps fairness is asked of.
RemovalStep ==
    \/ \E p \in Pages :
        \/ \E t \in Frames : CopyStart(p, t)
        \/ EvacuateByPageOut(p)
        \/ EvacuateByDiscard(p)
    \/ CopyFinish
    \/ \E f \in Frames : TakeOffline(f)
    \/ CompleteRemoval
    \/ RejectRemoval

Next == GuestNext \/ HostNext \/ OperatorNext \/ RemovalStep

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Fairness (D67): the removal is CP work that keeps getting processor     *)
(* time ("memory removal work is throttled to use no more than half the    *)
(* capacity of the unparked processors": throttled, not stopped), so a     *)
(* removal step that stays enabled is eventually taken.  Nothing is        *)
(* assumed of the guest, the host's other work or the operator.  While a   *)
(* request is active some removal step is always enabled (a move, a frame  *)
(* going offline, completion, or, when what is left does not fit, the      *)
(* rejection), so weak fairness of the removal as a whole is enough.       *)
(***************************************************************************)
FairSpec == Spec /\ WF_vars(RemovalStep)

=============================================================================
