----------------------- MODULE MCMemoryDowngradeBroken -----------------------
(***************************************************************************)
(* Broken twins of Dynamic Memory Downgrade: each replaces one decision    *)
(* operator of spec/MemoryDowngrade.tla (through a definition override in  *)
(* its MCMemoryDowngrade_Twin_*.cfg) with a plausible implementation      *)
(* mistake, and must make TLC report a violation of exactly the property   *)
(* its cfg checks.  The twin of the comparison of incremental and bulk     *)
(* removal is in MCMemoryDowngradeCompareBroken.tla.                       *)
(***************************************************************************)
EXTENDS MCMemoryDowngrade

\* A copy that does not invalidate its source: a guest store between the
\* read and the remap goes to the old frame and is lost.  Caught by
\* OwedContentKeptInv.
InvalidatesSourceNot == FALSE

\* A removal that pages out whatever page has content to keep, pinned or not.
\* Caught by PinnedNeverPagedOutInv.
MayPageOutPinned(p) == Keep(p)

\* A removal that judges P pages by usage alone and discards a dirty one.
\* Caught by OwedContentKeptInv.
MayDiscardPByUsage(p) == ~pinned[p] /\ usage[p] \in {"U", "V", "P"}

\* A frame is taken offline once the copy of its page has started, before
\* the page has been remapped.  Caught by OfflineFrameUnusedInv.
FrameEmptyOnceCopyStarted(f) == \A p \in Pages : frame[p] = f => copy.page = p

\* A removal that never gives up: when what is left does not fit it waits for
\* room that may never come.  Caught by RequestResolvesProp.
GivesUpNever == FALSE

\* A request may name any frame in service, permanent ones included.
\* Caught by MemoryLimitsInv.
RemovableAny(f) == TRUE

\* A rejection that puts back in service only the frames not yet taken
\* offline (they were never out): the frames already removed stay removed.
\* Caught by CleanRejectionInv.
OnlineAfterRejectHalf(f) == online[f]

\* A removal that pages out every unpinned page, whether or not its content
\* must be kept (no CMMA: a volatile page is written to DASD).  Caught by
\* DiscardableNotMovedProp.
MayPageOutUnpinned(p) == ~pinned[p]

\* A removal reported complete once its frames are empty, before they are
\* taken offline.  Caught by CompletionMeansRemovedProp.
AllRemovedOnceEmpty == \A f \in req.frames : FrameEmpty(f)

\* A guest store that does not check the page's usage: a store to an unused
\* page is taken instead of raising an addressing exception.  Caught by
\* UnusedHoldsNothingInv.
StorableAny(p) == TRUE

\* A rejection that puts every frame back in service, those an earlier
\* request removed too.  Caught by RejectionRestoresOnlyItsFramesProp.
OnlineAfterRejectAll(f) == TRUE

\* A copy target chosen among the frames in service without checking that it
\* is free.  Caught by TypeOK (two pages in one frame).
CopyTargetUnchecked(t) == online[t]

\* A fault handler that zero-fills any page without a frame whose content is
\* not in a slot, unused pages included, as if an access to an unused page
\* faulted.  Caught by UnusedNotBackedProp.
FaultableAnyUsed(p) == paged[p] \/ usage[p] \in {"S", "U"}

=============================================================================
