---------------------- MODULE MemoryDowngradeProperties ----------------------
(***************************************************************************)
(* Contract: the promises of MemoryDowngrade.tla (its opening comment,     *)
(* docs/contract.md) are OwedContentKeptInv, FrameNotSharedInv,            *)
(* OfflineFrameUnusedInv, CleanRejectionInv, PinnedNeverPagedOutInv,       *)
(* UnusedHoldsNothingInv, MemoryLimitsInv, RemovedMemoryOfflineInv,        *)
(* DiscardableNotMovedProp, UnusedNotBackedProp and RequestResolvesProp;   *)
(* each                                                                    *)
(* has its THEOREM beside it, naming the model that checks it.  The other  *)
(* properties here check types and bookkeeping.  The step checks, each     *)
(* restating what one step does, are in MemoryDowngradeStepChecks.tla,     *)
(* apart from the contract.                                                *)
(***************************************************************************)
(***************************************************************************)
(* What Dynamic Memory Downgrade (MemoryDowngrade.tla) must guarantee.     *)
(* [Z2] is the DMD report of docs/sources.md.  No property uses the        *)
(* steps or decisions the broken twins (model/MCMemoryDowngrade_Twins.tla) *)
(* replace (MayCopy, MayDiscard, GivesUp), nor Keep or Room, which those   *)
(* decisions are made of.                                                  *)
(* The comparison of incremental and bulk removal is in                    *)
(* model/MCMemoryDowngradeCompare.tla.                                     *)
(***************************************************************************)
EXTENDS MemoryDowngrade

(***************************************************************************)
(* FrameNotSharedInv.  [Z2]: "Before memory can be reclaimed, the          *)
(* content of that memory must be copied elsewhere, either to other        *)
(* memory or paged out to DASD".  Content is copied to memory that holds   *)
(* no other page's: a frame backs at most one page.  Two pages in one      *)
(* frame would each read the other's stores, and a copy into a frame in    *)
(* use overwrites the content of the page there.  (A page's content,       *)
(* data, is one value per page: it stands for what its frame holds only    *)
(* while no frame is shared, so OwedContentKeptInv rests on this.)         *)
(***************************************************************************)
FrameNotSharedInv ==
    \A p, q \in Pages : p # q /\ frame[p] # NoFrame => frame[p] # frame[q]
\* Contract (no data loss).  MCMemoryDowngrade_Safety, MCMemoryDowngrade_Rejection; twin
\* MCMemoryDowngrade_Twin_CopyTarget.
THEOREM Spec => []FrameNotSharedInv

(***************************************************************************)
(* TypeOK.  Every variable has its type, and the memory is well formed:    *)
(* a frame backs at most one page (FrameNotSharedInv), a page is in a      *)
(* frame or in a slot, not both, and no more slots are used than there     *)
(* are.                                                                    *)
(***************************************************************************)
TypeOK ==
    /\ usage \in [Pages -> Usages]
    /\ pinned \in [Pages -> BOOLEAN]
    /\ dirty \in [Pages -> BOOLEAN]
    /\ frame \in [Pages -> Frames \cup {NoFrame}]
    /\ paged \in [Pages -> BOOLEAN]
    /\ data \in [Pages -> Values]
    /\ owed \in [Pages -> Values \cup {NoValue}]
    /\ modified \in [Pages -> BOOLEAN]
    /\ online \in [Frames -> BOOLEAN]
    /\ req \in [state : ReqStates, frames : SUBSET Frames]
    /\ copy \in [page : Pages \cup {NoPage}, target : Frames \cup {NoFrame},
                 value : Values \cup {NoValue}]
    /\ removed \in SUBSET Frames
    /\ FrameNotSharedInv
    /\ \A p \in Pages : ~(frame[p] # NoFrame /\ paged[p])
    /\ Cardinality({p \in Pages : paged[p]}) <= Slots

(***************************************************************************)
(* OwedContentKeptInv.  [Z2]: "Before memory can be reclaimed, the content *)
(* of that memory must be copied elsewhere, either to other memory or      *)
(* paged out to DASD."  The content of a stable page, of a P page the      *)
(* guest stored to and has not written back, and of a pinned page is never *)
(* lost (an unused page has no content to lose): it is the last value the  *)
(* guest stored, or zero for a page that never had content.  Any other     *)
(* page may have lost its content (the CMMA discard), but a page that      *)
(* still has content has the right one: never a stale copy.  "Stored to    *)
(* and not written back" is the guest's own record (the ghost modified,    *)
(* as D11 of docs/decisions.md), not the change bit, which a discard       *)
(* resets together with the content it drops.                              *)
(***************************************************************************)
OwedContentKeptInv ==
    \A p \in Pages :
        /\ (usage[p] # "U" /\ (usage[p] = "S" \/ (usage[p] = "P" /\ modified[p]) \/ pinned[p])) =>
               IF frame[p] # NoFrame \/ paged[p] THEN data[p] = owed[p] ELSE owed[p] = 0
        /\ (usage[p] # "U" /\ (frame[p] # NoFrame \/ paged[p])) => data[p] = owed[p]
\* Contract (no data loss).  MCMemoryDowngrade_Safety (inductively MCMemoryDowngradeInductive_OnePageP);
\* twins MCMemoryDowngrade_Twin_LostWrite, MCMemoryDowngrade_Twin_DiscardsDirtyP.
THEOREM Spec => []OwedContentKeptInv

(***************************************************************************)
(* DiscardableNotMovedProp.  [Z1]: "CP recognizes clean disk cache pages,  *)
(* the contents of which Linux is able to reconstruct, allowing CP to      *)
(* bypass paging out the data contents when reclaiming the backing frames  *)
(* for these pages", and the measured "CP's preference for stealing        *)
(* volatile pages from the server guests, the contents of which do not     *)
(* need to be paged out".  The content of a page the guest marked unused,  *)
(* volatile, or potentially volatile and clean is never moved: neither     *)
(* written to a paging slot (by the host's reclaim or by a removal) nor    *)
(* copied to another frame; its frame is reclaimed by dropping it.  A      *)
(* pinned page is exempt: it cannot be dropped, only copied (D63, D184).   *)
(* A P page is clean when the guest has written it back (the ghost         *)
(* modified, as in OwedContentKeptInv): that is when "Linux is able to     *)
(* reconstruct" it.  The host learns it from the change bit, which the     *)
(* guest's write-back resets; a host whose bit outlived the write-back     *)
(* would move a page Linux can rebuild (D226).                             *)
(***************************************************************************)
Discardable(p) ==
    /\ ~pinned[p]
    /\ \/ usage[p] \in {"U", "V"}
       \/ usage[p] = "P" /\ ~modified[p]

DiscardableNotMovedProp ==
    [][\A p \in Pages :
          Discardable(p) => /\ ~(~paged[p] /\ paged'[p])
                            /\ ~(copy.page # p /\ copy'.page = p)]_vars
\* Contract (what CMMA saves).  MCMemoryDowngrade_Safety; twin MCMemoryDowngrade_Twin_PagesOutDiscardable.
THEOREM Spec => DiscardableNotMovedProp

\* What DiscardableNotMovedProp is about (its witness, a step): the frame of a
\* discardable page is reclaimed, by the host or by a removal.
DiscardableReclaimed ==
    \E p \in Pages : Discardable(p) /\ frame[p] # NoFrame /\ frame'[p] = NoFrame

(***************************************************************************)
(* UnusedNotBackedProp.  [Z1]: "Unused (U): no useful content and any      *)
(* access to the page will cause an addressing exception."  What CMMA      *)
(* saves the host on an unused page: once its frame is gone it costs the   *)
(* host no frame again.  An unused page that is nowhere, neither in a      *)
(* frame nor in a paging slot, is never given a frame: no access faults it *)
(* in, and there is nothing to bring; the host keeps its frames for pages  *)
(* with content (D227).  (A U page in a slot, which Init allows, may be    *)
(* read back like any paged-out page.)                                     *)
(***************************************************************************)
UnusedNotBackedProp ==
    [][\A p \in Pages :
          (usage[p] = "U" /\ frame[p] = NoFrame /\ ~paged[p]) =>
              frame'[p] = NoFrame]_vars
\* Contract (what CMMA saves).  MCMemoryDowngrade_Safety; twin MCMemoryDowngrade_Twin_BacksUnused.
THEOREM Spec => UnusedNotBackedProp

\* Its witness (a state): an unused page that is nowhere.
UnusedPageDropped ==
    \E p \in Pages : usage[p] = "U" /\ frame[p] = NoFrame /\ ~paged[p]

(***************************************************************************)
(* UnusedHoldsNothingInv.  [Z1]: "Unused (U): no useful content and any    *)
(* access to the page will cause an addressing exception."  A page the     *)
(* guest marked unused holds nothing, wherever it is: its content is zero  *)
(* and the guest owes it none (D187).                                      *)
(***************************************************************************)
UnusedHoldsNothingInv ==
    \A p \in Pages : usage[p] = "U" => data[p] = 0 /\ owed[p] = NoValue
\* Contract (isolation).  MCMemoryDowngrade_Safety; twin MCMemoryDowngrade_Twin_StoresToUnused.
THEOREM Spec => []UnusedHoldsNothingInv

(***************************************************************************)
(* OfflineFrameUnusedInv.  [Z2]: "Before memory can be reclaimed, the      *)
(* content of that memory must be copied elsewhere".  A frame that is      *)
(* offline backs no page and is the target of no copy.                     *)
(***************************************************************************)
OfflineFrameUnusedInv ==
    \A f \in Frames :
        ~online[f] =>
            /\ \A p \in Pages : frame[p] # f
            /\ ~(copy.page # NoPage /\ copy.target = f)
\* Contract (no data loss).  MCMemoryDowngrade_Safety; twin MCMemoryDowngrade_Twin_OfflineInUse.
THEOREM Spec => []OfflineFrameUnusedInv

(***************************************************************************)
(* MemoryLimitsInv.  [Z2]: "Permanent memory cannot be taken offline       *)
(* and there must be at least 4 GB of permanent memory.  Reconfigurable    *)
(* memory can be taken offline and may be up to 50% of total memory."  In  *)
(* service, always: every permanent frame, at least MinPermanent of them,  *)
(* and reconfigurable frames at most half of all frames in service.        *)
(***************************************************************************)
OnlineFrames == {f \in Frames : online[f]}

MemoryLimitsInv ==
    /\ Permanent \subseteq OnlineFrames
    /\ Cardinality(OnlineFrames \cap Permanent) >= MinPermanent
    /\ 2 * Cardinality(OnlineFrames \ Permanent) <= Cardinality(OnlineFrames)
\* Contract (limits).  MCMemoryDowngrade_Safety; twin MCMemoryDowngrade_Twin_PermanentOffline.
THEOREM Spec => []MemoryLimitsInv

(***************************************************************************)
(* RemovedMemoryOfflineInv.  [Z2]: "Reconfigurable memory can be taken     *)
(* offline", DMD "removing up to 50% of the real memory while the system   *)
(* is running".  Memory the operator is told is removed (its request       *)
(* completed) is out of service, and stays out until the operator adds it  *)
(* back (SET STORAGE, AddMemory, D227): neither a completion reported      *)
(* early nor a later request's rejection puts it back.  The ghost removed  *)
(* is the operator's own record, written from its requests and the         *)
(* answers it gets (a completion, its SET STORAGE), never from the         *)
(* frames' state, so the machine cannot excuse memory left in service.     *)
(***************************************************************************)
RemovedMemoryOfflineInv == \A f \in removed : ~online[f]
\* Contract (what the operator is told).  MCMemoryDowngrade_Safety, MCMemoryDowngrade_Rejection; twins
\* MCMemoryDowngrade_Twin_CompletesEarly, MCMemoryDowngrade_Twin_RejectionRestoresAll.
THEOREM Spec => []RemovedMemoryOfflineInv

\* Its witness: memory a completed request removed, not yet added back.
MemoryRemoved == removed # {}

(***************************************************************************)
(* CleanRejectionInv.  A request "is rejected cleanly (nothing half-done,  *)
(* every frame back in service) when there is not room enough" (D66;       *)
(* [Z2] says nothing about failure).  After a rejection every              *)
(* frame the request named is online and no copy is in progress.  (Pages   *)
(* already moved stay where they are: where a page is is invisible to the  *)
(* guest.)                                                                 *)
(***************************************************************************)
CleanRejectionInv ==
    req.state = "rejected" =>
        /\ \A f \in req.frames : online[f]
        /\ copy.page = NoPage
\* Contract (no data loss).  MCMemoryDowngrade_Safety; twin MCMemoryDowngrade_Twin_HalfDoneRejection.
THEOREM Spec => []CleanRejectionInv

\* What CleanRejectionInv is about (its witness, model/manifest.json): a
\* request was rejected.
RequestRejected == req.state = "rejected"

(***************************************************************************)
(* FitsIn(R): what a request naming the frames R must move fits in the     *)
(* memory as it is, "room enough in free frames plus paging slots" (issue  *)
(* 4, D66): the pinned pages in R fit in the free frames outside R (a      *)
(* pinned page can only be copied, D63), and those plus the other pages in *)
(* R whose content is kept (stable, or P and modified) fit in those frames *)
(* plus the free slots.  Judged when a request is made, when no copy is in *)
(* progress (copies belong to an active request).  Written from the pages  *)
(* and frames, not through Room or Keep, so that a property judging the    *)
(* machine's rejection shares no text with it (D290).                      *)
(***************************************************************************)
FitsIn(R) ==
    LET inR    == {p \in Pages : frame[p] \in R}
        pinR   == {p \in inR : pinned[p]}
        keptR  == {p \in inR : ~pinned[p] /\ (usage[p] = "S" \/ (usage[p] = "P" /\ modified[p]))}
        frees  == {f \in Frames \ R : online[f] /\ \A p \in Pages : frame[p] # f}
        slots  == Slots - Cardinality({p \in Pages : paged[p]})
    IN  /\ Cardinality(pinR) <= Cardinality(frees)
        /\ Cardinality(pinR) + Cardinality(keptR) <= Cardinality(frees) + slots

(***************************************************************************)
(* RequestResolvesProp.  [Z2]: "DMD operations are expected to take        *)
(* time", and the measured ones all finished.  Every request eventually    *)
(* completes or is rejected, under the fairness of FairSpec (D67),         *)
(* whatever the guest, the host's own reclaim and the operator do.         *)
(***************************************************************************)
RequestResolvesProp ==
    [](req.state = "active" => <>(req.state \in {"completed", "rejected"}))
\* Contract (progress).  MCMemoryDowngrade_Liveness; twin MCMemoryDowngrade_Twin_NeverGivesUp.
THEOREM FairSpec => RequestResolvesProp

(***************************************************************************)
(* PinnedNeverPagedOutInv.  [Z2]: performance depends on "the extent       *)
(* to which the workload pins (aka locks) pages"; a pinned page is locked  *)
(* in real memory, so it can be moved only by copying.  A pinned page is   *)
(* always in a frame, never in a paging slot (D63).                        *)
(***************************************************************************)
PinnedNeverPagedOutInv ==
    \A p \in Pages : pinned[p] => (frame[p] # NoFrame /\ ~paged[p])
\* Contract (no data loss).  MCMemoryDowngrade_Safety, MCMemoryDowngrade_Rejection; twin
\* MCMemoryDowngrade_Twin_PagesOutPinned.
THEOREM Spec => []PinnedNeverPagedOutInv

\* What CompletionMeansRemovedProp is about (its witness, a step): a request
\* completes.
RequestCompletes == req.state # "completed" /\ req'.state = "completed"

\* Witnesses (model/manifest.json, D130): what each property is about, which the
\* model that checks it must reach; a state for an invariant, a step for a Prop.
PageBeingCopied          == copy.page # NoPage
\* A copy of content the guest stored (OwedContentKeptInv is about such content).
StoredPageBeingCopied    == copy.page # NoPage /\ owed[copy.page] \notin {Zero, NoValue}
\* Memory a completed request removed, added back and backing a page again
\* (D227): the operator's SET STORAGE puts it back in service.
RemovedMemoryBackInUse   == req.state = "completed" /\ \E p \in Pages : frame[p] \in req.frames
FrameOffline             == \E f \in Frames : ~online[f]
ReconfigurableOffline    == \E f \in Frames \ Permanent : ~online[f]
RequestActive            == req.state = "active"
UnusedPageResident       == \E p \in Pages : usage[p] = "U" /\ frame[p] # NoFrame
TwoPagesToMove           == Cardinality(ToMove) >= 2

=============================================================================
