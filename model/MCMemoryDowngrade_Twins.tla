----------------------- MODULE MCMemoryDowngrade_Twins -----------------------
(***************************************************************************)
(* Broken twins of Dynamic Memory Downgrade: each replaces one step of     *)
(* spec/MemoryDowngrade.tla with a copy carrying a plausible               *)
(* implementation mistake, or one of its evacuation decisions (MayDiscard, *)
(* GivesUp), through a definition override in its                          *)
(* MCMemoryDowngrade_Twin_*.cfg (D355), and must make TLC report a         *)
(* violation of exactly the property its cfg checks.  The twins of the     *)
(* comparison of incremental and bulk removal are in                       *)
(* MCMemoryDowngradeCompare_Twins.tla.                                     *)
(***************************************************************************)
EXTENDS MCMemoryDowngrade

\* A copy that does not invalidate its source: a guest store between the
\* read and the remap goes to the old frame and is lost.  Caught by
\* OwedContentKeptInv.
WriteToCopiedPage(p, v) ==
    /\ Resident(p)
    /\ usage[p] # "U"
    /\ data'  = [data EXCEPT ![p] = v]
    /\ owed'  = [owed EXCEPT ![p] = v]
    /\ dirty' = [dirty EXCEPT ![p] = TRUE]
    /\ modified' = [modified EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<usage, pinned, frame, paged, online, req, copy, removed>>

\* A guest store that does not check the page's usage: a store to an unused
\* page is taken instead of raising an addressing exception.  Caught by
\* UnusedHoldsNothingInv.
WriteAnyUsage(p, v) ==
    /\ Resident(p)
    /\ ~Copying(p)
    /\ data'  = [data EXCEPT ![p] = v]
    /\ owed'  = [owed EXCEPT ![p] = v]
    /\ dirty' = [dirty EXCEPT ![p] = TRUE]
    /\ modified' = [modified EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<usage, pinned, frame, paged, online, req, copy, removed>>

\* A removal paging out the pages that may: ok(p).
EvacuateByPageOutIf(p, ok(_)) ==
    /\ Active
    /\ p \in ToMove
    /\ ok(p)
    /\ SlotsInUse < Slots
    /\ frame' = [frame EXCEPT ![p] = NoFrame]
    /\ paged' = [paged EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<usage, pinned, dirty, data, owed, modified, online, req, copy, removed>>

\* A removal that pages out whatever page has content to keep, pinned or not.
\* Caught by PinnedNeverPagedOutInv.
EvacuateByPageOutPinned(p) == EvacuateByPageOutIf(p, Keep)

\* A removal that pages out every unpinned page, whether or not its content
\* must be kept (no CMMA: a volatile page is written to DASD).  Caught by
\* DiscardableNotMovedProp.
Unpinned(p) == ~pinned[p]
EvacuateByPageOutUnpinned(p) == EvacuateByPageOutIf(p, Unpinned)

\* A removal that judges P pages by usage alone and discards a dirty one.
\* Caught by OwedContentKeptInv.
MayDiscardPByUsage(p) == ~pinned[p] /\ usage[p] \in {"U", "V", "P"}

\* A frame is taken offline once the copy of its page has started, before
\* the page has been remapped.  Caught by OfflineFrameUnusedInv.
TakeOfflineOnceCopyStarted(f) ==
    /\ Active
    /\ f \in req.frames
    /\ online[f]
    /\ \A p \in Pages : frame[p] = f => copy.page = p
    /\ online' = [online EXCEPT ![f] = FALSE]
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, req, copy, removed>>

\* A removal that never gives up: when what is left does not fit it waits for
\* room that may never come.  Caught by RequestResolvesProp.
GivesUpNever == FALSE

\* A request may name any frame in service, permanent ones included.
\* Caught by MemoryLimitsInv.
RequestRemovalAnyFrame(R) ==
    /\ ~Active
    /\ R # {}
    /\ \A f \in R : online[f]
    /\ req' = [state |-> "active", frames |-> R]
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, online, copy, removed>>

\* A rejection that puts back in service the frames back(f) names.
RejectRemovalPuttingBack(back(_)) ==
    /\ Active
    /\ GivesUp
    /\ online' = [f \in Frames |-> IF back(f) THEN TRUE ELSE online[f]]
    /\ copy' = NoCopy
    /\ req' = [req EXCEPT !.state = "rejected"]
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, removed>>

\* A rejection that puts back in service only the frames not yet taken
\* offline (they were never out): the frames already removed stay removed.
\* Caught by CleanRejectionInv.
StillOnline(f) == online[f]
RejectRemovalHalf == RejectRemovalPuttingBack(StillOnline)

\* A rejection that puts every frame back in service, those an earlier
\* request removed too.  Caught by RejectionRestoresOnlyItsFramesProp, and by
\* RemovedMemoryOfflineInv (memory the operator was told is removed is back).
AnyFrame(f) == TRUE
RejectRemovalAll == RejectRemovalPuttingBack(AnyFrame)

\* A removal reported complete once its frames are empty, before they are
\* taken offline.  Caught by CompletionMeansRemovedProp, and by
\* RemovedMemoryOfflineInv (memory reported removed is still in service).
CompleteRemovalOnceEmpty ==
    /\ Active
    /\ \A f \in req.frames : ~Used(f) /\ ~Reserved(f)
    /\ copy.page = NoPage
    /\ req' = [req EXCEPT !.state = "completed"]
    /\ removed' = removed \cup req.frames
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, online, copy>>

\* A copy target chosen among the frames in service without checking that it
\* is free.  Caught by FrameNotSharedInv (two pages in one frame).
CopyStartToAnyOnlineFrame(p, t) ==
    /\ Active
    /\ copy.page = NoPage
    /\ p \in ToMove
    /\ MayCopy(p)
    /\ t \notin req.frames
    /\ online[t]
    /\ copy' = [page |-> p, target |-> t, value |-> data[p]]
    /\ UNCHANGED <<usage, pinned, dirty, frame, paged, data, owed, modified, online, req, removed>>

\* A fault handler that zero-fills any page without a frame whose content is
\* not in a slot, unused pages included, as if an access to an unused page
\* faulted.  Caught by UnusedNotBackedProp.
FaultInAnyUsed(p, f) ==
    /\ ~Resident(p)
    /\ paged[p] \/ usage[p] \in {"S", "U"}
    /\ FreeFrame(f)
    /\ frame' = [frame EXCEPT ![p] = f]
    /\ paged' = [paged EXCEPT ![p] = FALSE]
    /\ data'  = [data EXCEPT ![p] = IF paged[p] THEN @ ELSE Zero]
    /\ UNCHANGED <<usage, pinned, dirty, owed, modified, online, req, copy, removed>>

=============================================================================
