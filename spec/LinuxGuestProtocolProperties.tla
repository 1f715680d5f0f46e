-------------------- MODULE LinuxGuestProtocolProperties --------------------
(***************************************************************************)
(* Contract: the promises of LinuxGuestProtocol.tla (its opening comment,  *)
(* docs/contract.md) are StableWhileHeldInv,                               *)
(* PgDiscardedOnlyIfDiscardedInv, UnsavedContentKeptInv,                   *)
(* NoVolatileWhileForbiddenInv, NoVolatileOnDiscardedInv,                  *)
(* VolatileUnlessConditionProp,                                            *)
(* NoUseAfterFreeProp, UncachedUnmappedInv, InFlightPageHeldInv,           *)
(* NoDeadlockInv, MakeVolatileEndsProp,                                    *)
(* StateChangeReleasedProp and MakeStableCompletesProp; each has its       *)
(* THEOREM beside it, naming the model that checks it.  The other          *)
(* properties here check types and bookkeeping.  The step checks, each     *)
(* restating what one step does, are in LinuxGuestProtocolStepChecks.tla,  *)
(* apart from the contract.                                                *)
(***************************************************************************)
(***************************************************************************)
(* What the Linux guest protocol of LinuxGuestProtocol.tla must guarantee. *)
(*                                                                         *)
(* Each property is stated from the seed sentences it quotes, over the     *)
(* state variables, and never through the steps or the machine's decision  *)
(* operators (MakeVolatileWaitsWhenBusy, VolatileForbiddenByFlags,         *)
(* VolatileForbiddenByCounts, InterruptsEnabled) that the broken twins in  *)
(* model/MCLinuxGuestProtocol_Twins.tla replace: a property that used them *)
(* would be broken with the machine.                                       *)
(***************************************************************************)
EXTENDS LinuxGuestProtocol

\* The usages a page may have: P only on a platform that has it (paper 3.5).
\* Type information, read by TypeOK alone (D265).
Usages == IF HasP THEN UsageValues ELSE UsageValues \ {"P"}

TypeOK ==
    /\ usage \in [Pages -> Usages]
    /\ discarded \in [Pages -> BOOLEAN]
    /\ inCache \in [Pages -> BOOLEAN]
    /\ backed \in [Pages -> BOOLEAN]
    /\ dirty \in [Pages -> BOOLEAN]
    /\ unsaved \in [Pages -> BOOLEAN]
    /\ io \in [Pages -> IOs]
    /\ mlocked \in [Pages -> BOOLEAN]
    /\ writable \in [Pages -> BOOLEAN]
    /\ pgDiscarded \in [Pages -> BOOLEAN]
    /\ maps \in [Pages -> 0..MaxMaps]
    /\ stateChange \in [Pages -> SUBSET Contexts]
    /\ pc \in [Contexts -> ProcPCs \cup MVPCs \cup IrqPCs]
    /\ \A c \in CPUs : pc[Proc(c)] \notin IrqPCs /\ pc[Irq(c)] \notin ProcPCs
    /\ pg \in [Contexts -> Pages \cup {NoPage}]
    /\ ret \in [Contexts -> {"Idle", "Held", "None"}]
    /\ ref \in [CPUs -> BOOLEAN]
    /\ lockHeld \in [CPUs -> BOOLEAN]

(***************************************************************************)
(* NoDeadlockInv.  "If a cpu is interrupted while holding the              *)
(* PG_state_change bit for a page this would be a dead lock if the         *)
(* make_volatile function waits for the bit as well." (paper 3.3)          *)
(*                                                                         *)
(* Who waits for whom: a context spinning for PG_state_change (make_stable *)
(* in MSWait, a waiting make_volatile in MVSpin) waits for the context     *)
(* that holds the bit; a process context waits for its CPU's interrupt     *)
(* handler while that runs (the interrupted code cannot resume before the  *)
(* handler returns).  A deadlock is a cycle of waiting: a non-empty set of *)
(* contexts each of which waits for one in the set.  (TLC's own deadlock   *)
(* check, on in every model, finds states where no step at all is         *)
(* possible; this invariant finds a deadlocked CPU while others still run.)*)
(***************************************************************************)
WaitsFor(x, y) ==
    \/ /\ ~IsIrq(x) /\ y = Irq(CPUOf(x))
       /\ pc[y] # "None"
    \/ /\ pc[x] \in {"MSWait", "MVSpin"}
       /\ y \in stateChange[pg[x]]

NoDeadlockInv ==
    \A S \in SUBSET Contexts :
        S # {} => \E x \in S : \A y \in S : ~WaitsFor(x, y)
\* Contract (progress).  MCLinuxGuestProtocol_Conditions; twin MCLinuxGuestProtocol_Twin_BlockingMakeVolatile.
THEOREM CheckOrder = "Atomic" => (Spec => []NoDeadlockInv)

(***************************************************************************)
(* InterruptedCodeWaitsProp.  "If a cpu is interrupted while holding the   *)
(* PG_state_change bit for a page this would be a dead lock if the         *)
(* make_volatile function waits for the bit as well" (paper 3.3): the      *)
(* deadlock, and the protocol's answer to it (make_volatile returns), rest *)
(* on the interrupted code making no progress until the handler returns    *)
(* (D33).  While a CPU's end-of-I/O interrupt handler runs, its process    *)
(* context stays where it was: the same place in its code, the same page,  *)
(* the same reference and page lock.  A model that lets the interrupted    *)
(* code run (one step that forgets it, D192) can no longer show the        *)
(* deadlock NoDeadlockInv is about, nor the races the paper's answer       *)
(* avoids.                                                                 *)
(***************************************************************************)
InterruptedCodeWaitsStep ==
    \A c \in CPUs :
        pc[Irq(c)] # "None" =>
            UNCHANGED <<pc[Proc(c)], pg[Proc(c)], ret[Proc(c)], ref[c], lockHeld[c]>>
InterruptedCodeWaitsProp == [][InterruptedCodeWaitsStep]_vars

\* What InterruptedCodeWaitsProp is about (its witness): a step taken while an
\* interrupt handler runs on a CPU whose process context is inside make_stable,
\* make_volatile or holds a page.
StepWhileInterrupted ==
    \E c \in CPUs : pc[Irq(c)] # "None" /\ pc[Proc(c)] # "Idle"
\* ... and, in the design whose make_volatile waits (the paper's alternative),
\* one whose process context spins for PG_state_change (D240 addendum).
SpinWhileInterrupted == \E c \in CPUs : pc[Irq(c)] # "None" /\ pc[Proc(c)] = "MVSpin"
\* ... and one whose process context has checked and is about to set the state.
SetPendingWhileInterrupted ==
    \E c \in CPUs : pc[Irq(c)] # "None" /\ pc[Proc(c)] = "MVSet"

(***************************************************************************)
(* StableWhileHeldInv.  "a make stable operation may not 'overtake' the    *)
(* attempt to make it volatile" (paper 3.3); "For the transition to stable *)
(* state there is always a user of a page who requires the stable state"   *)
(* (3.2).  A user holds a page for stable use from the moment its          *)
(* make_stable returned success (or it allocated the page, which "makes    *)
(* the pages stable") until it releases or maps its reference; throughout, *)
(* the page is stable and not discarded.  (Between taking its reference    *)
(* and the return of make_stable the user does not rely on the state yet:  *)
(* there "it depends on the timing if the page state is volatile or stable *)
(* after the two operations complete", and the later                       *)
(* SetStableIfNotDiscarded wins.)                                          *)
(***************************************************************************)
HeldForStableUse(c) ==
    \/ pc[Proc(c)] = "Held"
    \/ pc[Proc(c)] \in MVPCs /\ ret[Proc(c)] = "Held"   \* make_volatile after its unlock_page

StableWhileHeldInv ==
    \A c \in CPUs :
        HeldForStableUse(c) =>
            usage[pg[Proc(c)]] = "S" /\ ~discarded[pg[Proc(c)]]
\* Contract (no data loss).  MCLinuxGuestProtocol_Conditions; twins MCLinuxGuestProtocol_Twin_Overtakes,
\* MCLinuxGuestProtocol_Twin_SkipsBit; finding MCLinuxGuestProtocol_Finding_F5_CountsThenFlags (another CheckOrder).
THEOREM CheckOrder = "Atomic" => (Spec => []StableWhileHeldInv)

\* What StableWhileHeldInv is about (its witness, model/manifest.json): a user
\* holds a page for stable use while another CPU's make_volatile is under way.
SomeUserHoldsPage ==
    \E c \in CPUs : HeldForStableUse(c) /\ \E x \in Contexts : pc[x] \in MVPCs /\ CPUOf(x) # c

\* ... and, in a check of two reads (D36, D262), a user holds the page for stable
\* use while a make_volatile of it is between its two reads: condition 10, "The
\* page map count is not equal to the page reference count minus one" (3.1), is
\* then what must keep the page stable.
HeldAtSecondRead ==
    \E c \in CPUs, x \in Contexts :
        HeldForStableUse(c) /\ pc[x] = "MVCheck2" /\ pg[x] = pg[Proc(c)]

(***************************************************************************)
(* StateChangeExclusiveInv, of the paper's design, in which make_stable    *)
(* takes PG_state_change (D35, D260).  "The check of the twelve conditions *)
(* and the SetVolatile need to be done atomically in regard to the         *)
(* SetStableIfNotDiscarded ...  To provide the atomicity, a new page flag  *)
(* PG_state_change is used.  The function that makes a page stable will   *)
(* wait until it can acquire the new page flag to give it exclusive access *)
(* to the page state." (paper 3.3)  The paper gets the atomicity by mutual *)
(* exclusion: no make_stable is at its SetStableIfNotDiscarded on a page   *)
(* while a make_volatile of that page is between the start of its check    *)
(* and its SetVolatile.  The 2007 patch's make_stable only waits for the   *)
(* bit and does not promise this: it lets a make_volatile check while the  *)
(* SetStableIfNotDiscarded is pending, and relies on the reference taken   *)
(* before make_stable to make that check refuse (D32).  Its model checks   *)
(* that this overlap is harmless (StableWhileHeldInv, with the overlap as  *)
(* witness, SetStableDuringCheck) and does not check this invariant.       *)
(***************************************************************************)
InCheckAndSet(x) == pc[x] \in {"MVCheck", "MVCheck2", "MVSet"}
StateChangeExclusiveInv ==
    \A x, y \in Contexts :
        (pc[y] = "MSSet" /\ InCheckAndSet(x)) => pg[x] # pg[y]

\* What StateChangeExclusiveInv is about (its witness): a make_volatile tries
\* PG_state_change on a page whose make_stable is at its SetStableIfNotDiscarded.
MakeVolatileMeetsMakeStable ==
    \E x, y \in Contexts : pc[y] = "MSSet" /\ pc[x] = "MVTry" /\ pg[x] = pg[y]
\* ... and, in a check of two reads (D36), a make_stable that waits for the bit
\* while a make_volatile of the page has read twice and is about to set its state.
MakeStableWaitsForSet ==
    \E x, y \in Contexts : pc[x] = "MVSet" /\ pc[y] = "MSWait" /\ pg[x] = pg[y]
\* ... and, in the 2007 patch's design, the overlap the paper's design excludes:
\* a make_volatile checks a page whose SetStableIfNotDiscarded is pending.
SetStableDuringCheck ==
    \E x, y \in Contexts : pc[y] = "MSSet" /\ InCheckAndSet(x) /\ pg[x] = pg[y]

(***************************************************************************)
(* UnsavedContentKeptInv.  Paper 3.1, condition 2: "The page content is    *)
(* more recent than the data on the backing device.  The page content      *)
(* needs to get written to the backing device first before the page can be *)
(* removed or discarded"; condition 3: "The page content is still needed   *)
(* until the I/O operation has finished."  The guest side of no data loss, *)
(* in terms of what the guest did, not of PG_dirty: content the guest      *)
(* modified and has not yet sent to the backing device in a write (the     *)
(* ghost unsaved), or sent in a write still in flight, keeps its page      *)
(* stable and not discarded (the host discards only a volatile or          *)
(* potentially volatile page).  The ghost is set by the guest's own        *)
(* modification (set_page_dirty) and cleared only by the write the guest   *)
(* sends (or by a fresh read-in, which holds what the device holds): a     *)
(* step that marks a page clean without sending its content leaves it set, *)
(* and the page is then still owed its write.  A truncated page's content  *)
(* is the user's to drop; such a page has no backing and stays stable      *)
(* (NoVolatileWhileForbiddenInv), so the promise holds for it too.         *)
(***************************************************************************)
UnsavedContentKeptInv ==
    \A p \in Pages :
        (unsaved[p] \/ io[p] = "Write") => usage[p] = "S" /\ ~discarded[p]
\* Contract (no data loss).  MCLinuxGuestProtocol_Conditions, MCLinuxGuestProtocol_AllNoP, MCLinuxGuestProtocol_Patch2007;
\* twin MCLinuxGuestProtocol_Twin_WritebackInFlight.
THEOREM CheckOrder = "Atomic" => (Spec => []UnsavedContentKeptInv)

\* What UnsavedContentKeptInv is about (its witness): the guest modified a page
\* again while the write of its former content is in flight.
UnsavedWhileWriting == \E p \in Pages : unsaved[p] /\ io[p] = "Write"

(***************************************************************************)
(* NoVolatileWhileForbiddenInv.  "If any of these conditions is true, the  *)
(* page can not be made volatile." (3.1)  The conditions a user            *)
(* establishes after its make_stable - the page is dirty (2), in writeback *)
(* (3), locked (4), has no backing because it was truncated (6), belongs   *)
(* to an mlocked mapping (12) - hold from the step that set them to the   *)
(* step that clears them, and while one holds the page is stable.  A       *)
(* writable mapping (11) forbids V: "For platforms without the ability to  *)
(* access the guest page dirty bit information from the host, the correct *)
(* state is the stable state, for platforms with the ability, it is the    *)
(* potentially volatile state" (3.5).  The two other conditions the check *)
(* reads are properties of their own (D136): "already discarded" (9) is   *)
(* NoVolatileOnDiscardedInv below, and "extra references" (10) is         *)
(* StableWhileHeldInv (a reference taken after the check may see V set;   *)
(* the paper lets the later SetStableIfNotDiscarded win).                 *)
(*                                                                         *)
(* In this model only a user holding the page for stable use sets these    *)
(* flags (D37), so "a condition established under make_stable holds" is    *)
(* exactly "the flag is set".  The race of paper 3.3 does not break it: a  *)
(* make_volatile that checked before the user's reference existed sets V   *)
(* before the user's SetStableIfNotDiscarded, so before the user can set   *)
(* any flag.                                                               *)
(***************************************************************************)
NoVolatileWhileForbiddenInv ==
    \A p \in Pages :
        /\ (dirty[p] \/ io[p] # "None" \/ Locked(p) \/ ~backed[p] \/ mlocked[p])
               => usage[p] = "S"
        /\ writable[p] => usage[p] # "V"
\* Contract (discard only when allowed).  MCLinuxGuestProtocol_Conditions; twins
\* MCLinuxGuestProtocol_Twin_ForgetsDirty, MCLinuxGuestProtocol_Twin_ForgetsWritable; finding
\* MCLinuxGuestProtocol_Finding_F5_FlagsThenCounts (another CheckOrder).
THEOREM CheckOrder = "Atomic" => (Spec => []NoVolatileWhileForbiddenInv)

(***************************************************************************)
(* NoVolatileOnDiscardedInv.  "If any of these conditions is true, the     *)
(* page can not be made volatile" (3.1), condition 9: "The page has        *)
(* already been discarded"; and 3.7: the discard fault handler "marks the  *)
(* page with the PG_discarded page flag" as it removes it from the page    *)
(* cache.  A make_volatile that has decided to set the state (step MVSet, *)
(* under PG_state_change) never works on a page marked PG_discarded: such  *)
(* a page is out of the page cache, and once its last reference goes it is *)
(* freed and read again as a fresh stable page (D39), which the late       *)
(* SetVolatile would then make volatile under its new user (D136).        *)
(***************************************************************************)
NoVolatileOnDiscardedInv ==
    \A x \in Contexts : pc[x] = "MVSet" => ~pgDiscarded[pg[x]]
\* Contract (discard only when allowed).  MCLinuxGuestProtocol_Conditions, MCLinuxGuestProtocol_NoP,
\* MCLinuxGuestProtocol_TwoPagesDiscard; twin MCLinuxGuestProtocol_Twin_ForgetsDiscarded.
THEOREM CheckOrder = "Atomic" => (Spec => []NoVolatileOnDiscardedInv)

(***************************************************************************)
(* VolatileUnlessConditionProp.  Paper 3.1: "it is attempted to make the   *)
(* page volatile again.  This attempt can fail due to the following        *)
(* reasons" (the twelve conditions), and "In an ideal situation all clean, *)
(* read-only pages ... which do have a backing would be volatile"; 3.3:    *)
(* "If the make volatile has already done all the necessary checking, it   *)
(* will proceed with a SetVolatile operation."  The other half of          *)
(* NoVolatileWhileForbiddenInv: the guest tells the host what it can drop, *)
(* and a check that refuses for no reason of the list withholds the page   *)
(* from the host.  An attempt that has PG_state_change and reads the       *)
(* conditions while none of them holds goes on to set the state (its       *)
(* SetVolatile, or the second read of a check of two reads), where the     *)
(* conditions are the page's flags (2, 3, 4 and 7, 5 and 6, 9, 11, 12) and *)
(* condition 10 is judged by who the page's users are, not by the counter  *)
(* the check reads: "There is one reference for the cache itself and one   *)
(* for each mapping of the page to a user space process ... but not the    *)
(* references of any other user of the page."  A process context is a user *)
(* of its page from its lookup (find_get_page, or the read that allocated  *)
(* the page) until it gives its reference back (page_cache_release, the    *)
(* discard path) or the reference becomes a mapping's (do_no_page): by     *)
(* where it is in its code.  The page cache and the mappings are not other *)
(* users; the end-of-I/O handler holds no reference.  A reference kept     *)
(* after it was given back would make every check refuse while no         *)
(* condition holds.  Only the attempt is owed (D441): the check points are *)
(* VolatileCheckPointsProp's, and an attempt that finds the bit taken      *)
(* returns without a check.                                                *)
(***************************************************************************)
UsesPage(c, p) ==
    /\ pg[Proc(c)] = p
    /\ \/ pc[Proc(c)] \in {"MSWait", "MSSet", "MSReturnOK", "MSReturnFail", "Failed"}
       \/ HeldForStableUse(c)

SomeConditionOn(p) ==
    \/ dirty[p] \/ io[p] # "None" \/ Locked(p) \/ ~backed[p] \/ pgDiscarded[p]
    \/ writable[p] /\ ~HasP
    \/ mlocked[p]
    \/ \E c \in CPUs : UsesPage(c, p)

VolatileUnlessConditionStep ==
    \A x \in Contexts :
        (pc[x] = "MVCheck" /\ pc'[x] # "MVCheck" /\ ~SomeConditionOn(pg[x]))
            => pc'[x] \in {"MVSet", "MVCheck2"}
VolatileUnlessConditionProp == [][VolatileUnlessConditionStep]_vars
\* Contract (the saving).  MCLinuxGuestProtocol_Conditions, MCLinuxGuestProtocol_ReadOnlyMaps,
\* MCLinuxGuestProtocol_NoP, MCLinuxGuestProtocol_AllNoP, MCLinuxGuestProtocol_Patch2007;
\* twin MCLinuxGuestProtocol_Twin_MapKeepsReference.
THEOREM CheckOrder = "Atomic" => (Spec => VolatileUnlessConditionProp)

\* What VolatileUnlessConditionProp is about (its witness): an attempt reads the
\* conditions, finds none, and goes on to set the state.
CheckFindsNoCondition ==
    \E x \in Contexts : pc[x] = "MVCheck" /\ ~SomeConditionOn(pg[x]) /\ pc'[x] = "MVSet"
\* ... and one at the fourth check point: the attempt of a do_no_page, whose
\* user's reference became the mapping's, finds no condition.
MappedPageCheckFindsNoCondition ==
    \E x \in Contexts :
        /\ pc[x] = "MVCheck" /\ ret[x] = "Idle" /\ maps[pg[x]] > 0
        /\ ~SomeConditionOn(pg[x]) /\ pc'[x] = "MVSet"

\* What NoVolatileWhileForbiddenInv is about (its witness, model/manifest.json):
\* a page a user has made dirty, locked or mlocked, or truncated.
SomeConditionHolds ==
    \E p \in Pages : dirty[p] \/ Locked(p) \/ ~backed[p] \/ mlocked[p]
\* ... condition 12 itself: "The page is mlocked" (3.1; 3.4: mlock() makes the
\* present pages stable), the condition a model without dirty pages reaches.
SomePageMlocked == \E p \in Pages : mlocked[p]

\* ... and a page with a writable mapping made potentially volatile (D196).
SomePotentiallyVolatilePage == \E p \in Pages : writable[p] /\ usage[p] = "P"
\* ... and a potentially volatile page still in the page cache whose PG_writable
\* its last unmap reset: "Only then is the PG_writable bit reset again" (3.5).
\* P is set only with PG_writable set, and only the unmap clears the flag of a
\* cached page, so this state is reached through SomePotentiallyVolatilePage and
\* the reset (D243).
PotentiallyVolatileAfterReset ==
    \E p \in Pages : usage[p] = "P" /\ ~writable[p] /\ inCache[p]
\* ... and one the host discarded, which StableWhileHeldInv is about on a platform
\* with P (the host takes "any P page", D30).
SomePotentiallyVolatileDiscarded == \E p \in Pages : usage[p] = "P" /\ discarded[p]
\* ... and a volatile page the host discarded (Vz), on a platform with P: "all
\* clean, read-only pages ... would be volatile" (3.1), not only potentially
\* volatile (D239).
SomeVolatileDiscarded == \E p \in Pages : usage[p] = "V" /\ discarded[p]

\* The same in a check of two reads (D36, D191): a condition holds while a
\* make_volatile is between its first and its second read.
ConditionAtSecondRead ==
    \E x \in Contexts :
        /\ pc[x] = "MVCheck2"
        /\ LET p == pg[x] IN dirty[p] \/ io[p] # "None" \/ Locked(p) \/ ~backed[p] \/ mlocked[p]

(***************************************************************************)
(* PageLockExclusiveProp.  Paper 3.1, condition 4: "The page is locked.   *)
(* As long as the page is locked the code that acquired the lock has       *)
(* exclusive access to the page."  The two things a user does to a page   *)
(* under its lock - it starts writeback, or it truncates the page out of  *)
(* the page cache (D37) - happen only in a step in which some process     *)
(* context holds that page's lock and runs: not without the lock, and not *)
(* while the holder is interrupted, since "the interrupted code" makes no *)
(* progress until its handler returns (D33, D192; InterruptedCodeWaitsProp *)
(* sees only the holder's own context, not the page it changes).  The      *)
(* discard path takes a page out of the cache without the lock: it marks   *)
(* it PG_discarded (3.7), which truncation does not (D241).                *)
(***************************************************************************)
LockedOnlyStep(p) ==
    \/ io[p] = "None" /\ io'[p] = "Write"                     \* writeback starts
    \/ inCache[p] /\ ~inCache'[p] /\ ~pgDiscarded'[p]         \* truncation
PageLockExclusiveStep ==
    \A p \in Pages :
        LockedOnlyStep(p) => \E c \in CPUs : lockHeld[c] /\ pg[Proc(c)] = p /\ Runs(Proc(c))
PageLockExclusiveProp == [][PageLockExclusiveStep]_vars

\* What PageLockExclusiveProp is about (its witness): a page is truncated.
PageTruncated == \E p \in Pages : inCache[p] /\ ~inCache'[p] /\ ~pgDiscarded'[p]

(***************************************************************************)
(* NoUseAfterFreeProp.  "A page with no reference left may be freed and    *)
(* reused" (D39): a page out of the page cache that nobody references is   *)
(* free, and "the allocation operation makes the pages stable again"       *)
(* (3.2): a free page is used again only once it is allocated and read in  *)
(* again, which puts it back in the page cache (ReadPage).  A lookup that   *)
(* returned a page that left the cache ("If the page was discarded, it is  *)
(* removed from the page cache and functions return notfound", 3.2) would  *)
(* hand out a reference to a free page (D195).                              *)
(***************************************************************************)
NoUseAfterFreeStep ==
    \A p \in Pages :
        (~inCache[p] /\ PageCount(p) = 0 /\ PageCount(p)' > 0) => inCache'[p]
NoUseAfterFreeProp == [][NoUseAfterFreeStep]_vars
\* Contract (no use after free).  MCLinuxGuestProtocol_Conditions; twin MCLinuxGuestProtocol_Twin_FindsFreedPage.
THEOREM CheckOrder = "Atomic" => (Spec => NoUseAfterFreeProp)

\* What NoUseAfterFreeProp is about (its witness): a free page gets a reference.
FreePageTaken ==
    \E p \in Pages : ~inCache[p] /\ PageCount(p) = 0 /\ PageCount(p)' > 0

(***************************************************************************)
(* UncachedUnmappedInv.  Paper 3.6: a discard fault "causes the page cache *)
(* page to get removed from memory, including all page table entries       *)
(* referring to the page"; 3.7: "The discard fault handler can remove the  *)
(* references of the page cache and all entries of the page in the page    *)
(* tables."  A page out of the page cache has no page-table entry: an      *)
(* entry left behind maps a discarded page, or a freed one, into a user's  *)
(* address space, where no lookup finds it and its reference keeps the     *)
(* page from being freed.  (The race of 3.7, a page mapped after the       *)
(* discard fault removed it, is not in this model: its faults map only     *)
(* cached pages.)                                                          *)
(***************************************************************************)
UncachedUnmappedInv == \A p \in Pages : ~inCache[p] => maps[p] = 0
\* Contract (no use after free).  MCLinuxGuestProtocol_Conditions, MCLinuxGuestProtocol_TwoMaps,
\* MCLinuxGuestProtocol_TruncateMapped; twin MCLinuxGuestProtocol_Twin_DiscardKeepsMappings.
THEOREM CheckOrder = "Atomic" => (Spec => []UncachedUnmappedInv)

\* What UncachedUnmappedInv is about (its witness): a page has left the page cache
\* (every page starts in it).
SomePageUncached == \E p \in Pages : ~inCache[p]

(***************************************************************************)
(* InFlightPageHeldInv.  Paper 3.1: "each page address involved in an I/O  *)
(* operation represents a user"; condition 3: "The page content is still   *)
(* needed until the I/O operation has finished."  A page with a read or a  *)
(* write in flight is not free: something references it (the page cache,  *)
(* a mapping or a user).  A page freed under its I/O is allocated again    *)
(* and read in while the old write still lands on it, and "the allocation  *)
(* operation makes the pages stable again" (3) for a page whose content    *)
(* is not yet its own.                                                     *)
(***************************************************************************)
InFlightPageHeldInv == \A p \in Pages : io[p] # "None" => PageCount(p) > 0
\* Contract (no use after free).  MCLinuxGuestProtocol_Conditions, MCLinuxGuestProtocol_TruncateMapped;
\* twin MCLinuxGuestProtocol_Twin_WritebackTruncated.
THEOREM CheckOrder = "Atomic" => (Spec => []InFlightPageHeldInv)

\* What InFlightPageHeldInv is about (its witness): a page with a read or a write in flight.
SomePageInFlight == \E p \in Pages : io[p] # "None"

(***************************************************************************)
(* PageRefsCountedInv.  Paper 3.1, condition 10: "There is one reference   *)
(* for the cache itself and one for each mapping of the page to a user     *)
(* space process.  The discard fault handler can remove the cache entry    *)
(* and the user space mappings but not the references of any other user   *)
(* of the page."  Every reference a process context holds is one that      *)
(* page_count counts: it is a reference to the page the context works on   *)
(* (D32).  A reference held by a context that has gone back to its idle    *)
(* loop is one nobody will drop: the kernel's page_count would stay raised *)
(* and condition 10 would keep the page stable for good, while this        *)
(* model's count would silently forget it (D272).                          *)
(***************************************************************************)
PageRefsCountedInv == \A c \in CPUs : ref[c] => pg[Proc(c)] \in Pages

\* What PageRefsCountedInv is about (its witness): a user's reference is held
\* while its make_volatile reads the counts (after its unlock_page).
ReferenceHeldAtCheck == \E c \in CPUs : ref[c] /\ pc[Proc(c)] \in MVPCs

(***************************************************************************)
(* PgDiscardedOnlyIfDiscardedInv.  Paper 3.7: the discard fault handler    *)
(* "marks the page with the PG_discarded page flag" as it takes a page the *)
(* host discarded out of the page cache; 3.2: "If the page was discarded,  *)
(* it is removed from the page cache".  A page marked PG_discarded is one  *)
(* the host discarded (until it is freed and read in again, which clears   *)
(* both): a lookup that took a page it had just read for a discarded one   *)
(* would throw away a good page (D195 addendum).                           *)
(***************************************************************************)
PgDiscardedOnlyIfDiscardedInv == \A p \in Pages : pgDiscarded[p] => discarded[p]
\* Contract (no data loss).  MCLinuxGuestProtocol_Conditions; twin MCLinuxGuestProtocol_Twin_SpuriousDiscard.
THEOREM CheckOrder = "Atomic" => (Spec => []PgDiscardedOnlyIfDiscardedInv)

\* What PgDiscardedOnlyIfDiscardedInv is about (its witness): a page marked PG_discarded.
SomePageMarkedDiscarded == \E p \in Pages : pgDiscarded[p]

SomeContextWaits == \E x, y \in Contexts : WaitsFor(x, y)

(***************************************************************************)
(* MakeVolatileEndsProp.  "The make_volatile operation does not have to    *)
(* wait, it can just return instead"; "the preferable solution is to let  *)
(* the make_volatile function return immediately if the PG_state_change   *)
(* bit is unavailable" (paper 3.3).  Every call of make_volatile, in a     *)
(* process context or an end-of-I/O handler, returns: its retries are     *)
(* bounded by the events that call it, never by waiting for the bit.      *)
(* Checked under FairSpec (LinuxGuestProtocol.tla).                       *)
(***************************************************************************)
InMakeVolatile(x) == pc[x] \in {"MVTry", "MVSpin", "MVCheck", "MVCheck2", "MVSet", "MVRelease"}

MakeVolatileEndsProp == \A x \in Contexts : InMakeVolatile(x) ~> ~InMakeVolatile(x)
\* Contract (progress).  MCLinuxGuestProtocol_Liveness, MCLinuxGuestProtocol_LivenessLockOnly; twin
\* MCLinuxGuestProtocol_Twin_BlockingMakeVolatileEnds.
THEOREM CheckOrder = "Atomic" => (FairSpec => MakeVolatileEndsProp)

(***************************************************************************)
(* StateChangeReleasedProp.  PG_state_change serialises make_stable and    *)
(* make_volatile, and make_stable "will wait until it can acquire the new *)
(* page flag" (paper 3.3): the wait can only end if every holder lets go.  *)
(* Whoever takes the bit, a make_stable or a make_volatile, clears it      *)
(* again.  Checked under FairSpec.                                         *)
(***************************************************************************)
StateChangeReleasedProp ==
    \A p \in Pages, x \in Contexts : (x \in stateChange[p]) ~> (x \notin stateChange[p])
\* Contract (progress).  MCLinuxGuestProtocol_Liveness, MCLinuxGuestProtocol_LivenessLockOnly; twin
\* MCLinuxGuestProtocol_Twin_LeakedStateChange.
THEOREM CheckOrder = "Atomic" => (FairSpec => StateChangeReleasedProp)

(***************************************************************************)
(* MakeStableCompletesProp.  "a make stable operation may not 'overtake'   *)
(* the attempt to make it volatile ... The function that makes a page      *)
(* stable will wait until it can acquire the new page flag" (paper 3.3):   *)
(* it waits, and the wait ends.  A make_stable that waits for              *)
(* PG_state_change gets it and completes: the page is held stable, or the  *)
(* lookup fails on a discarded page ("functions return notfound", 3.2).    *)
(* Checked under FairSpec where end-of-I/O interrupts do not recur; where  *)
(* they do, the wait can last for ever (MCLinuxGuestProtocol_MakeStable-   *)
(* Starved): the bit is a test-and-set, not a queue, and the paper does   *)
(* not promise more than waiting.                                          *)
(***************************************************************************)
MakeStableCompletesProp ==
    \A c \in CPUs : pc[Proc(c)] = "MSWait" ~> pc[Proc(c)] \in {"Held", "Failed"}
\* Contract (progress).  MCLinuxGuestProtocol_LivenessLockOnly (users that only lock the page); twin
\* MCLinuxGuestProtocol_Twin_LeakedStateChangeWait; finding MCLinuxGuestProtocol_Finding_F11_MakeStableStarved.
THEOREM (CheckOrder = "Atomic" /\ UserOps \subseteq {"Lock"}) => (FairSpec => MakeStableCompletesProp)

\* (MakeVolatileEndsProp.)  A make_volatile that finds PG_state_change taken returns at once.
MakeVolatileGivesUp ==
    \E x \in Contexts : pc[x] = "MVTry" /\ stateChange[pg[x]] # {} /\ pc'[x] # "MVTry"
                        /\ ~InMakeVolatile(x)'
\* (StateChangeReleasedProp.)  A make_volatile that took PG_state_change clears it.
MakeVolatileReleasesBit ==
    \E x \in Contexts : pc[x] = "MVRelease" /\ \E p \in Pages : x \in stateChange[p] /\ x \notin stateChange'[p]
\* (MakeStableCompletesProp.)  A make_stable that waited for PG_state_change takes it.
MakeStableTakesBitAfterWait ==
    \E c \in CPUs : pc[Proc(c)] = "MSWait" /\ pc'[Proc(c)] = "MSSet"

=============================================================================
