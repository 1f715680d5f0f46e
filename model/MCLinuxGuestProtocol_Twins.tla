--------------------- MODULE MCLinuxGuestProtocol_Twins ---------------------
(***************************************************************************)
(* Broken twins of the Linux guest protocol: each replaces one step of     *)
(* LinuxGuestProtocol.tla with a copy carrying a plausible mistake, or one *)
(* decision several steps or models share (through a definition override   *)
(* in its MCLinuxGuestProtocol_Twin_*.cfg, D355), or adds a step.  Each    *)
(* must make TLC report a violation of exactly the property its cfg        *)
(* checks; model/manifest.json records which.                              *)
(***************************************************************************)
EXTENDS MCLinuxGuestProtocol

\* A make_volatile that waits for PG_state_change instead of returning.  When
\* the end-of-I/O interrupt arrives on the CPU whose process context holds
\* the bit, the handler spins forever.  Caught by NoDeadlockInv (and, with one
\* CPU, by TLC's deadlock check).
MakeVolatileWaits == TRUE

\* A make_volatile that does not take PG_state_change: its check and its
\* SetVolatile are no longer atomic with respect to SetStableIfNotDiscarded.
\* Caught by StableWhileHeldInv.
MakeVolatileTryBitSkippingBit(x) ==
    /\ Runs(x)
    /\ pc[x] = "MVTry"
    /\ SetPC(x, "MVCheck")
    /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                   pgDiscarded, maps, stateChange, pg, ret, ref, lockHeld>>

\* A make_stable that does not wait for PG_state_change: it overtakes a
\* make_volatile that has already checked.  Caught by StableWhileHeldInv.
MakeStableAcquireBitOvertaking(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "MSWait"
        /\ stateChange' = IF MakeStableTakesBit
                          THEN [stateChange EXCEPT ![p] = @ \cup {Proc(c)}]
                          ELSE stateChange
        /\ SetPC(Proc(c), "MSSet")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, pg, ret, ref, lockHeld>>

\* A find_get_page that calls make_stable before it takes its reference, and
\* takes it (get_page) only once make_stable has returned, in a step of its own:
\* no condition is true during SetStableIfNotDiscarded.  Caught by
\* StableWhileHeldInv.
FindGetPageWithoutRef(c, p) ==
    /\ Runs(Proc(c))
    /\ pc[Proc(c)] = "Idle"
    /\ inCache[p]
    /\ ref' = [ref EXCEPT ![c] = FALSE]
    /\ pc'  = [pc EXCEPT ![Proc(c)] = "MSWait"]
    /\ pg'  = [pg EXCEPT ![Proc(c)] = p]
    /\ UNCHANGED <<pageVars, ret, lockHeld>>
GetPageAfterMakeStable(c) ==
    /\ HeldPage(c)
    /\ ~ref[c]
    /\ ref' = [ref EXCEPT ![c] = TRUE]
    /\ UNCHANGED <<pageVars, pc, pg, ret, lockHeld>>
RefAfterMakeStableSpec ==
    Init /\ [][Next \/ \E c \in CPUs : GetPageAfterMakeStable(c)]_vars

\* A make_volatile that forgets condition 2 (the page is dirty).  Caught by
\* NoVolatileWhileForbiddenInv.
VolatileForbiddenForgettingDirty(p) ==
    \/ Writeback(p)
    \/ Locked(p)
    \/ ~backed[p]
    \/ pgDiscarded[p]
    \/ writable[p] /\ ~HasP
    \/ mlocked[p]

\* A make_volatile that forgets condition 11 (writable mappings on a platform
\* without P).  Caught by NoVolatileWhileForbiddenInv.
VolatileForbiddenForgettingWritable(p) ==
    \/ dirty[p]
    \/ Writeback(p)
    \/ Locked(p)
    \/ ~backed[p]
    \/ pgDiscarded[p]
    \/ mlocked[p]

\* A make_volatile that forgets condition 9 (PG_discarded: the page was
\* taken out of the page cache by a discard fault and may be freed).
VolatileForbiddenForgettingDiscarded(p) ==
    \/ dirty[p]
    \/ Writeback(p)
    \/ Locked(p)
    \/ ~backed[p]
    \/ writable[p] /\ ~HasP
    \/ mlocked[p]

\* A make_volatile that forgets condition 10 (references beyond the
\* mappings).  Caught by StableWhileHeldInv.
VolatileForbiddenIgnoringCounts(p) == FALSE

\* A user that tries make_volatile on a page it holds, at no event of the four
\* the paper names (a spurious attempt, here with no reference dropped).
\* Caught by VolatileCheckPointsProp (D198).
SpuriousMakeVolatile(c) ==
    /\ HeldPage(c)
    /\ CallMakeVolatile(Proc(c), pg[Proc(c)], "Held")
    /\ UNCHANGED <<pageVars, ref, lockHeld>>
SpuriousMakeVolatileSpec ==
    Init /\ [][Next \/ \E c \in CPUs : SpuriousMakeVolatile(c)]_vars

\* An unlock_page that forgets the attempt to make the page volatile (the hook
\* of paper 3.2 left out of one unlock path): the page stays stable though the
\* condition that kept it so went away.  Caught by VolatileRetriedProp (D236).
UnlockWithoutRetry(c) ==
    /\ HeldPage(c)
    /\ lockHeld[c]
    /\ lockHeld' = [lockHeld EXCEPT ![c] = FALSE]
    /\ UNCHANGED <<pageVars, pc, pg, ret, ref>>
UnlockWithoutRetrySpec ==
    Init /\ [][Next \/ \E c \in CPUs : UnlockWithoutRetry(c)]_vars

\* A truncation that does not take the page lock (truncate_inode_pages
\* without lock_page): the page leaves the cache under another user's writeback
\* or lock.  Caught by PageLockExclusiveProp (D241).
TruncateWithoutLock(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ ~lockHeld[c] /\ inCache[p] /\ io[p] = "None"
        /\ inCache' = [inCache EXCEPT ![p] = FALSE]
        /\ backed' = [backed EXCEPT ![p] = FALSE]
        /\ maps' = [maps EXCEPT ![p] = 0]
        /\ UNCHANGED <<usage, discarded, dirty, unsaved, io, mlocked, writable, pgDiscarded,
                       stateChange, ctxVars>>
TruncateWithoutLockSpec ==
    Init /\ [][Next \/ \E c \in CPUs : TruncateWithoutLock(c)]_vars

\* A discard fault handler that takes the page out of the page cache but
\* leaves its page-table entries (paper 3.6: "including all page table
\* entries referring to the page").  Caught by PageCacheRemovalUnmapsProp
\* (D253).
DiscardKeepsMappings(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "Failed"
        /\ ~pgDiscarded[p]
        /\ pgDiscarded' = [pgDiscarded EXCEPT ![p] = TRUE]
        /\ inCache' = [inCache EXCEPT ![p] = FALSE]
        /\ writable' = [writable EXCEPT ![p] = FALSE]
        /\ ref' = [ref EXCEPT ![c] = FALSE]
        /\ ReturnTo(Proc(c), "Idle")
        /\ UNCHANGED <<usage, discarded, backed, dirty, unsaved, io, mlocked, maps,
                       stateChange, lockHeld>>
DiscardKeepsMappingsSpec ==
    Init /\ [][Next \/ \E c \in CPUs : DiscardKeepsMappings(c)]_vars

\* An unmap that resets PG_writable at every unmap that finds the bit free,
\* not only at the last one (paper 3.5: "stays set until all read-only
\* mappers of the page have been unmapped as well").  Caught by
\* WritableResetOnlyUnmappedProp (D255).
UnmapResetsWritableEarly(p) ==
    /\ maps[p] > 0
    /\ maps' = [maps EXCEPT ![p] = @ - 1]
    /\ writable' = [writable EXCEPT ![p] = IF stateChange[p] = {} THEN FALSE ELSE @]
    /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked,
                   pgDiscarded, stateChange, ctxVars>>
UnmapResetsWritableEarlySpec ==
    Init /\ [][Next \/ \E p \in Pages : UnmapResetsWritableEarly(p)]_vars

\* A writeback of a page that truncation left without a backing (which D270
\* rules out): the page leaves the cache dirty, is written back to nowhere,
\* and is freed and read in again while the write is in flight.  Caught by
\* FreshPageProp.
WritebackWithoutBacking(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ lockHeld[c] /\ dirty[p] /\ io[p] = "None" /\ ~backed[p]
        /\ dirty' = [dirty EXCEPT ![p] = FALSE]
        /\ unsaved' = [unsaved EXCEPT ![p] = FALSE]
        /\ io' = [io EXCEPT ![p] = "Write"]
        /\ UNCHANGED <<usage, discarded, inCache, backed, mlocked, writable,
                       pgDiscarded, maps, stateChange, ctxVars>>
WritebackWithoutBackingSpec ==
    Init /\ [][Next \/ \E c \in CPUs : WritebackWithoutBacking(c)]_vars

\* A set_page_writeback that starts while the page's writeback is still in
\* flight (no wait_on_page_writeback): the page dirtied again meanwhile is
\* marked clean though its new content is in no I/O.  Caught by
\* DirtyClearedByWriteProp (D275); the page is then made volatile with content
\* the guest never sent, which UnsavedContentKeptInv refuses (D440).
WritebackWhileInFlight(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ lockHeld[c] /\ dirty[p] /\ io[p] = "Write" /\ backed[p]
        /\ dirty' = [dirty EXCEPT ![p] = FALSE]
        /\ UNCHANGED <<usage, discarded, inCache, backed, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, stateChange, ctxVars>>
WritebackWhileInFlightSpec ==
    Init /\ [][Next \/ \E c \in CPUs : WritebackWhileInFlight(c)]_vars

\* A do_no_page that maps the page and forgets that the user's reference became
\* the mapping's: the user goes back to its idle loop still holding it.
\* Caught by PageRefsCountedInv (D272).
MapKeepsReference(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ ~lockHeld[c] /\ inCache[p] /\ maps[p] < MaxMaps
        /\ maps' = [maps EXCEPT ![p] = @ + 1]
        /\ CallMakeVolatile(Proc(c), p, "Idle")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, stateChange, ref, lockHeld>>
MapKeepsReferenceSpec ==
    Init /\ [][Next \/ \E c \in CPUs : MapKeepsReference(c)]_vars

\* A user that takes a page it holds for a discarded one and runs the discard
\* path on it (D195 addendum).  Caught by PgDiscardedOnlyIfDiscardedInv.
SpuriousDiscardSpec ==
    Init /\ [][\/ Next
              \/ \E c \in CPUs : HeldPage(c) /\ SetPC(Proc(c), "Failed")
                                /\ UNCHANGED <<pageVars, pg, ret, ref, lockHeld>>]_vars

\* A find_get_page that returns a page that left the page cache (a discarded
\* or truncated page, free once its last reference went).  Caught by
\* NoUseAfterFreeProp (D195).
FindGetPageUncached(c, p) ==
    /\ Runs(Proc(c))
    /\ pc[Proc(c)] = "Idle"
    /\ ref' = [ref EXCEPT ![c] = TRUE]
    /\ pc'  = [pc EXCEPT ![Proc(c)] = "MSWait"]
    /\ pg'  = [pg EXCEPT ![Proc(c)] = p]
    /\ UNCHANGED <<pageVars, ret, lockHeld>>

\* An interrupt that does not stop the code it interrupts: the process context
\* of a CPU keeps running while its end-of-I/O handler runs (D192).  Caught by
\* InterruptedCodeWaitsProp.
RunsWhileInterrupted(x) == IF IsIrq(x) THEN IrqActive(CPUOf(x)) ELSE TRUE

\* A guest that issues SetPotentialVolatile whatever the platform offers.
\* Caught by TypeOK on a platform without P.
PageSetVolatileAlwaysP(x) ==
    LET p == pg[x]
    IN  /\ Runs(x)
        /\ pc[x] = "MVSet"
        /\ usage' = [usage EXCEPT ![p] = "P"]
        /\ SetPC(x, "MVRelease")
        /\ UNCHANGED <<discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, stateChange, pg, ret, ref, lockHeld>>


\* Broken twin of MakeStableCompletesProp: a make_volatile that returns without clearing
\* PG_state_change when its check found a condition (the page stayed stable): the early
\* return forgets page_clear_state_change.  Every later make_stable of the page waits for
\* ever; make_volatile itself still returns.
MakeVolatileReleaseBitLeaking(x) ==
    LET p == pg[x]
    IN  /\ Runs(x)
        /\ pc[x] = "MVRelease"
        /\ stateChange' = IF usage[p] = "S" THEN stateChange
                          ELSE [stateChange EXCEPT ![p] = @ \ {x}]
        /\ ReturnTo(x, ret[x])
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, ref, lockHeld>>

=============================================================================
