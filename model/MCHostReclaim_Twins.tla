------------------------- MODULE MCHostReclaim_Twins -------------------------
(***************************************************************************)
(* Broken twins of the z/VM reclaim policy: each replaces one step, or one *)
(* decision several steps share, of spec/HostReclaim.tla (through a        *)
(* definition override in its MCHostReclaim_Twin_*.cfg, D355) with a       *)
(* plausible implementation mistake, and must make TLC report a violation  *)
(* of exactly the property its cfg checks (model/manifest.json records     *)
(* which).                                                                 *)
(***************************************************************************)
EXTENDS MCHostReclaim

\* A steal that forgets to take the page off the global aging list.
\* Caught by ReclaimTypeOK (a stolen frame stays on the list of IBR frames).
AgingAfterStealKept(p) == aging

\* A discard that keeps the page's paging slot: the old copy could come back
\* for a page that is logically zero.  Caught by SlotCoherentInv.
SlotAfterDiscardKept(p) == slot[p]

\* An early write of the pages need(q) picks, allowed when allowed holds, that
\* sets the host bit to hbit(old) and the guest's to gbit(old).
EarlyWriteWith(p, allowed, need(_), hbit(_), gbit(_)) ==
    /\ allowed
    /\ LET due == SelectSeq(aging, need)
       IN  Len(due) > 0 /\ p = due[Len(due)]
    /\ slot' = [slot EXCEPT ![p] = data[p]]
    /\ hchanged' = [hchanged EXCEPT ![p] = hbit(@)]
    /\ dirty' = [dirty EXCEPT ![p] = gbit(@)]
    /\ io' = [kind |-> "write", page |-> p]
    /\ UNCHANGED <<usage, resid, data, intended, modified, requested, lastOp, aging>>

Cleared(b) == FALSE
Kept(b)    == b

\* An early write that is not CMMA-aware: it pre-writes every changed page of
\* the aging list, volatile ones included.  Caught by DiscardableNeverWrittenProp.
NeedsEarlyWriteAnyChanged(q) == ~SlotValid(q)
EarlyWriteAnyChanged(p) == EarlyWriteWith(p, EarlyWrites, NeedsEarlyWriteAnyChanged, Cleared, Kept)

\* A host that never trusts a slot copy and writes every page it steals.
\* Caught by ValidSlotNotRewrittenProp.
SlotValidNever(p) == FALSE

\* A host that judges a slot copy by the guest's change bit, which the guest
\* resets after writing the page to its own storage.  The stale copy is
\* trusted and comes back.  Caught by StableContentKeptInv.
SlotValidByGuestBit(p) == slot[p] # NoValue /\ ~dirty[p]

\* A revalidation handled as an ordinary page fault: the content is read back
\* from the paging slot when there is one.  Caught by
\* RevalidationPreservesContentProp.
RevalidateFromSlot(p) ==
    /\ OnAgingList(p)
    /\ LET fromSlot == slot[p] # NoValue
       IN  /\ aging' = Without(aging, p)
           /\ data' = [data EXCEPT ![p] = IF fromSlot THEN slot[p] ELSE @]
           /\ hchanged' = [hchanged EXCEPT ![p] = IF fromSlot THEN FALSE ELSE @]
           /\ io' = IF fromSlot THEN [kind |-> "read", page |-> p] ELSE NoIO
    /\ UNCHANGED <<usage, resid, dirty, intended, modified, requested, lastOp, slot>>

\* A page-in that does not wait for a free frame: the host overcommits its
\* frames.  Caught by FrameBudgetInv.
FaultPageInWithoutRoom(p) ==
    /\ resid[p] = "p"
    /\ usage[p] # "U"
    /\ resid' = [resid EXCEPT ![p] = "r"]
    /\ data'  = [data EXCEPT ![p] = slot[p]]
    /\ dirty' = [dirty EXCEPT ![p] = PS!PageInDirty(@)]
    /\ hchanged' = [hchanged EXCEPT ![p] = FALSE]
    /\ io' = [kind |-> "read", page |-> p]
    /\ PS!Record("HostPageIn", p, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, intended, modified, requested, aging, slot>>

\* A demand scan that ignores the CMMA usage: every page is a page-out
\* candidate, taken from the bottom of the aging list.  Caught by StealOrderProp.
StealClassUnaware(u, d) == 3

\* A demand scan that judges P pages by usage alone and steals a dirty one
\* like a volatile page.  Caught by HostDiscardsOnlyDiscardableProp.
StealClassPByUsage(u, d) ==
    IF u = "U" THEN 1 ELSE IF u \in {"V", "P"} THEN 2 ELSE 3

\* An early write that resets the guest's change bit, as if the host had no
\* change bit of its own.  Caught by RefinesPageStates (the early write
\* changes a page-state variable and is no PageStates step).
EarlyWriteClearingDirty(p) == EarlyWriteWith(p, EarlyWrites, NeedsEarlyWrite, Cleared, Cleared)

\* An early write that leaves the host change bit set, as if only a page-in
\* reset it: the copy just written is never trusted, and the page is
\* written again when it is stolen.  Caught by WrittenSlotTrustedProp.
EarlyWriteKeepingHostBit(p) == EarlyWriteWith(p, EarlyWrites, NeedsEarlyWrite, Kept, Kept)

\* A host that pre-writes pages whatever CP SET AGELIST EARLYWRITES says.
\* Caught by EarlyWritesSettingProp.
EarlyWriteAlways(p) == EarlyWriteWith(p, TRUE, NeedsEarlyWrite, Cleared, Kept)

\* A trial invalidation that leaves the PTE valid: the guest's touch goes
\* through without a fault, and the page it just used stays on the aging
\* list as a reclaim candidate.  Caught by TouchFaultsProp.
AccessFaultsNever(p) == FALSE

\* A demand scan that runs whatever the free frames: it trial-invalidates
\* and steals frames although enough are free.  Caught by
\* ScanOnlyUnderPressureProp.
PressureAlways == TRUE


\* Broken twin of WaitingAccessServedProp: a demand scan kicked off only when the free frames
\* fall below the threshold minus one (an off-by-one in the threshold test).  With the
\* threshold at one frame it never runs: once every frame is in use, a fault waits for
\* ever.
PressureLate == FreeFrames < LowThreshold - 1

=============================================================================
