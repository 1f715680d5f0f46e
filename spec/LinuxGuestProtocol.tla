------------------------- MODULE LinuxGuestProtocol -------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What the guest protocol promises; each    *)
(* promise is a property of LinuxGuestProtocolProperties.tla with a        *)
(* THEOREM beside it naming the model whose .cfg checks it and the twin    *)
(* that fails it.                                                          *)
(*                                                                         *)
(*   No data loss. StableWhileHeldInv: "a make stable operation may not    *)
(*       'overtake' the attempt to make it volatile" (paper 3.3), so a     *)
(*       page a user holds is stable; PgDiscardedOnlyIfDiscardedInv: only  *)
(*       a page the host discarded is marked PG_discarded and dropped      *)
(*       (paper 3.7); with do_no_page's check of a writable mapping        *)
(*       (LinuxGuestProtocolCheckWritable.tla), WritableMappedNotVInv:     *)
(*       "The state change has to be done before the first writable        *)
(*       mapping is established" (paper 3.5); UnsavedContentKeptInv: "The  *)
(*       page content needs to get written to the backing device first     *)
(*       before the page can be removed or discarded" (paper 3.1), so      *)
(*       content the guest modified keeps its page stable until the write  *)
(*       the guest sends of it has ended.                                  *)
(*   Discard only when allowed. NoVolatileWhileForbiddenInv: "If any of    *)
(*       these conditions is true, the page can not be made volatile"      *)
(*       (paper 3.1); NoVolatileOnDiscardedInv: not when "The page has     *)
(*       already been discarded" (condition 9), so no late SetVolatile     *)
(*       lands on the page's next life (paper 3.1, 3.7).                   *)
(*   The saving. VolatileUnlessConditionProp: "This attempt can fail due   *)
(*       to the following reasons" (paper 3.1), so a check that finds none *)
(*       of the twelve conditions, condition 10 judged by the page's       *)
(*       users, sets the page's state.                                     *)
(*   No use after free. NoUseAfterFreeProp: "If the page was discarded, it *)
(*       is removed from the page cache and functions return notfound"     *)
(*       (paper 3.2); UncachedUnmappedInv: it is removed "including all    *)
(*       page table entries referring to the page" (paper 3.6);            *)
(*       InFlightPageHeldInv: "each page address involved in an I/O        *)
(*       operation represents a user" (paper 3.1), so no page is freed     *)
(*       under its I/O.                                                    *)
(*   Progress. NoDeadlockInv: "If a cpu is interrupted while holding the   *)
(*       PG_state_change bit for a page this would be a dead lock if the   *)
(*       make_volatile function waits for the bit as well" (paper 3.3);    *)
(*       under FairSpec, MakeVolatileEndsProp ("The make_volatile          *)
(*       operation does not have to wait, it can just return instead"),    *)
(*       StateChangeReleasedProp and MakeStableCompletesProp ("will wait   *)
(*       until it can acquire the new page flag", paper 3.3; it can wait   *)
(*       for ever where end-of-I/O interrupts recur,                       *)
(*       model/MCLinuxGuestProtocol_Finding_F11_MakeStableStarved.cfg).                *)
(*                                                                         *)
(* The other properties restate one step (where make_volatile is tried,    *)
(* writeback, unmap, the fresh page) or check types and the                *)
(* model's bookkeeping (TypeOK, the bit and the page lock held by one,     *)
(* references, the interrupted code).                                      *)
(***************************************************************************)
(***************************************************************************)
(* The Linux guest's page-state protocol of the paper                      *)
(* (docs/sources.md [P], "the paper"), sections 3.1 to 3.5:                *)
(* make_stable and make_volatile on several CPUs, serialised by the page   *)
(* flag PG_state_change, with the end-of-I/O interrupt that calls          *)
(* make_volatile on whatever CPU it interrupts.                            *)
(*                                                                         *)
(*   "To ensure that the page has the correct state, a make stable         *)
(*   operation may not 'overtake' the attempt to make it volatile. ...    *)
(*   The check of the twelve conditions and the SetVolatile need to be    *)
(*   done atomically in regard to the SetStableIfNotDiscarded and one of  *)
(*   the conditions need to evaluate to true before doing the             *)
(*   SetStableIfNotDiscarded.  To provide the atomicity, a new page flag  *)
(*   PG_state_change is used.  The function that makes a page stable will *)
(*   wait until it can acquire the new page flag ...  The make_volatile    *)
(*   operation does not have to wait, it can just return instead."        *)
(*   (paper, section 3.3)                                                  *)
(*                                                                         *)
(* Every CPU has two execution contexts: its process context and its      *)
(* end-of-I/O interrupt context.  While the interrupt context runs, the   *)
(* process context of that CPU cannot (it is the interrupted code); the   *)
(* interrupt may arrive at any point of the process context's code,       *)
(* including while it holds PG_state_change (D33).                        *)
(*                                                                         *)
(* The host side is abstract (D30): a page's usage S, V or P and whether  *)
(* the host has discarded it.  The conditions that forbid a volatile page *)
(* are the page's Linux state (D31, D32).  Each step is one instruction   *)
(* or one atomic kernel operation of the implementation (D34).            *)
(*                                                                         *)
(* The decisions the broken twins (model/MCLinuxGuestProtocol_Twins.tla)   *)
(* replace are the small operators in the section "Decisions" below.      *)
(* The properties (LinuxGuestProtocolProperties.tla) never use them.      *)
(* Choices are recorded in docs/decisions.md as D30 to D39.               *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    \* @type: Set(CPU);
    CPUs,               \* the guest's CPUs
    \* @type: Set(PAGE);
    Pages,              \* page-cache pages (struct page); a page is recycled (ReadPage)
    \* @type: PAGE;
    NoPage,             \* a page outside Pages: what an idle context works on
    \* @type: Bool;
    HasP,               \* the platform has the potentially volatile state (paper 3.5)
    \* @type: Bool;
    MakeStableTakesBit, \* TRUE: the paper; FALSE: the 2007 patch only waits for the bit (D35)
    \* @type: Str;
    CheckOrder,         \* "Atomic", "CountsThenFlags" or "FlagsThenCounts" (D36)
    \* @type: Int;
    MaxMaps,            \* bound on page-table mappings per page
    \* @type: Set(Str);
    UserOps             \* which of the users' page operations the model offers (D37)

VARIABLES
    \* --- host side, abstract (D30) ---
    \* @type: PAGE -> Str;
    usage,          \* "S", "V" or "P"
    \* @type: PAGE -> Bool;
    discarded,      \* the host has discarded the page (Vz / Pz)
    \* --- the page's Linux state (struct page and its mapping), D31 ---
    \* @type: PAGE -> Bool;
    inCache,        \* in the page cache (the cache holds one reference)
    \* @type: PAGE -> Bool;
    backed,         \* page->mapping set: the page has a backing file (not anonymous, not truncated)
    \* @type: PAGE -> Bool;
    dirty,          \* PG_dirty
    \* @type: PAGE -> Bool;
    unsaved,        \* ghost: the guest modified the page since it last sent it to its backing
                    \* device (or read it in); read by the properties only, never by a step
    \* @type: PAGE -> Str;
    io,             \* pending I/O: "None", "Read" (page locked by the read), "Write" (PG_writeback)
    \* @type: PAGE -> Bool;
    mlocked,        \* mapping->mlocked: "The flag is never removed" (paper 3.4)
    \* @type: PAGE -> Bool;
    writable,       \* PG_writable: the page has (had) a writable mapping (paper 3.5)
    \* @type: PAGE -> Bool;
    pgDiscarded,    \* PG_discarded (paper 3.7)
    \* @type: PAGE -> Int;
    maps,           \* page_mapcount: page-table mappings, each holding one reference
    \* @type: PAGE -> Set(<<CPU, Str>>);
    stateChange,    \* PG_state_change: the context that holds it ({} when clear)
    \* --- the execution contexts ---
    \* @type: <<CPU, Str>> -> Str;
    pc,             \* where the context is in its code (D34)
    \* @type: <<CPU, Str>> -> PAGE;
    pg,             \* the page it works on
    \* @type: <<CPU, Str>> -> Str;
    ret,            \* where make_volatile returns to: "Idle", "Held" or "None" (interrupt)
    \* @type: CPU -> Bool;
    ref,            \* the process context holds a page reference to pg (D32)
    \* @type: CPU -> Bool;
    lockHeld        \* the process context holds the page lock (PG_locked) of pg

pageVars == <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
              pgDiscarded, maps, stateChange>>
ctxVars  == <<pc, pg, ret, ref, lockHeld>>
vars     == <<pageVars, ctxVars>>

(***************************************************************************)
(* Contexts.                                                               *)
(***************************************************************************)
\* @type: CPU => <<CPU, Str>>;
Proc(c) == <<c, "Proc">>
\* @type: CPU => <<CPU, Str>>;
Irq(c)  == <<c, "Irq">>
Contexts == CPUs \X {"Proc", "Irq"}
\* @type: <<CPU, Str>> => CPU;
CPUOf(x) == x[1]
\* @type: <<CPU, Str>> => Bool;
IsIrq(x) == x[2] = "Irq"

\* The process context runs unless its CPU is in the interrupt handler; the
\* interrupt context runs while it is active.  One interrupt level, no nesting.
IrqActive(c) == pc[Irq(c)] # "None"
Runs(x) == IF IsIrq(x) THEN IrqActive(CPUOf(x)) ELSE ~IrqActive(CPUOf(x))

ProcPCs == {"Idle", "MSWait", "MSSet", "MSReturnOK", "MSReturnFail", "Held", "Failed"}
MVPCs   == {"MVTry", "MVSpin", "MVCheck", "MVCheck2", "MVSet", "MVRelease"}
IrqPCs  == {"None"}
UsageValues == {"S", "V", "P"}   \* a page's usage; P only where the platform has it (Usages, D265)
IOs     == {"None", "Read", "Write"}
Orders  == {"Atomic", "CountsThenFlags", "FlagsThenCounts"}
AllUserOps == {"Dirty", "Lock", "Truncate", "Mlock", "Map", "MapWritable"}

ASSUME NoPage \notin Pages
ASSUME CheckOrder \in Orders
ASSUME MaxMaps \in Nat
ASSUME UserOps \subseteq AllUserOps

(***************************************************************************)
(* Derived page state.                                                     *)
(***************************************************************************)
\* The process contexts that hold a reference to p (find_get_page, or the
\* allocating reader of ReadPage).
RefHolders(p) == {c \in CPUs : ref[c] /\ pg[Proc(c)] = p}

\* page_count: one for the page cache, one per mapping, one per other user.
PageCount(p) == (IF inCache[p] THEN 1 ELSE 0) + maps[p] + Cardinality(RefHolders(p))

\* PG_locked: held by a read in flight, or by a process context.
Locked(p) == io[p] = "Read" \/ \E c \in CPUs : lockHeld[c] /\ pg[Proc(c)] = p

\* PG_writeback
Writeback(p) == io[p] = "Write"

(***************************************************************************)
(* Decisions several steps or models share.  The broken twins              *)
(* (model/MCLinuxGuestProtocol_Twins.tla) replace one of them, or override *)
(* the step they break with a copy of it (D355).                           *)
(***************************************************************************)

\* "the preferable solution is to let the make_volatile function return
\* immediately if the PG_state_change bit is unavailable."  The paper's
\* alternative, waiting with interrupts off, is a model of its own
\* (model/MCLinuxGuestProtocolVariants.tla), which sets this TRUE.
MakeVolatileWaitsWhenBusy == FALSE

\* The conditions of paper 3.1 that make_volatile reads from page->flags and
\* the mapping (D31): 2 dirty, 3 writeback, 4 locked, 5/6 anonymous or no
\* mapping, 9 already discarded, 11 writable mapping without P, 12 mlocked.
VolatileForbiddenByFlags(p) ==
    \/ dirty[p]
    \/ Writeback(p)
    \/ Locked(p)
    \/ ~backed[p]
    \/ pgDiscarded[p]
    \/ writable[p] /\ ~HasP
    \/ mlocked[p]

\* Condition 10: "The page map count is not equal to the page reference count
\* minus one."  (The cache's own reference is the one.)
VolatileForbiddenByCounts(p) == maps[p] # PageCount(p) - 1

\* A page with no reference left may be freed and reused, even while a
\* make_volatile that holds no reference of its own (the end-of-I/O
\* interrupt's) is still working on it: nothing in the protocol pins it (D39).
PageMayBeFreed(p) == TRUE

\* Interrupts are never disabled by the protocol (paper: "Disabling interrupts
\* is expensive").  The alternative the paper names is a model of its own.
InterruptsEnabled(c) == TRUE

(***************************************************************************)
(* Helpers for the steps.                                                  *)
(***************************************************************************)
SetPC(x, v) == pc' = [pc EXCEPT ![x] = v]

\* Context x returns to r: back in its idle loop ("Idle", or "None" for an
\* interrupt context that returns) it works on no page; back with a page it
\* holds ("Held") it keeps the page.
ReturnTo(x, r) ==
    /\ pc'  = [pc EXCEPT ![x] = r]
    /\ pg'  = [pg EXCEPT ![x] = IF r = "Held" THEN pg[x] ELSE NoPage]
    /\ ret' = [ret EXCEPT ![x] = "None"]

\* Enter make_volatile on context x for page p, returning to r afterwards.
CallMakeVolatile(x, p, r) ==
    /\ pc'  = [pc EXCEPT ![x] = "MVTry"]
    /\ pg'  = [pg EXCEPT ![x] = p]
    /\ ret' = [ret EXCEPT ![x] = r]

\* The page's Linux state seen through the first and the second read of the
\* check (D36).  "Atomic" reads everything in one step.
FirstCheckForbids(p) ==
    CASE CheckOrder = "Atomic"          -> VolatileForbiddenByFlags(p) \/ VolatileForbiddenByCounts(p)
      [] CheckOrder = "CountsThenFlags" -> VolatileForbiddenByCounts(p)
      [] OTHER                          -> VolatileForbiddenByFlags(p)
SecondCheckForbids(p) ==
    IF CheckOrder = "CountsThenFlags" THEN VolatileForbiddenByFlags(p)
    ELSE VolatileForbiddenByCounts(p)

(***************************************************************************)
(* make_stable (process context).  Paper 3.2: "The prevalent method to get *)
(* a new reference to a page is to use find_get_page ... The state         *)
(* transitions are conditional through the SetStableIfNotDiscarded call,  *)
(* which only moves a page into stable if the page has not been           *)
(* discarded.  If the page was discarded, it is removed from the page      *)
(* cache and functions return notfound."                                   *)
(***************************************************************************)

\* find_get_page: a reference to a cached page, then make_stable.  It finds
\* the page only in the page cache: "If the page was discarded, it is removed
\* from the page cache and functions return notfound" (3.2).  "one of the
\* conditions need to evaluate to true before doing the
\* SetStableIfNotDiscarded": it takes its page reference before it calls
\* make_stable (D32).
FindGetPage(c, p) ==
    /\ Runs(Proc(c))
    /\ pc[Proc(c)] = "Idle"
    /\ inCache[p]
    /\ ref' = [ref EXCEPT ![c] = TRUE]
    /\ pc'  = [pc EXCEPT ![Proc(c)] = "MSWait"]
    /\ pg'  = [pg EXCEPT ![Proc(c)] = p]
    /\ UNCHANGED <<pageVars, ret, lockHeld>>

\* Spin until PG_state_change is clear, then take it (the paper); the 2007
\* patch only waits for it to be clear (D35).  "The function that makes a
\* page stable will wait until it can acquire the new page flag".
MakeStableAcquireBit(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "MSWait"
        /\ stateChange[p] = {}
        /\ stateChange' = IF MakeStableTakesBit
                          THEN [stateChange EXCEPT ![p] = @ \cup {Proc(c)}]
                          ELSE stateChange
        /\ SetPC(Proc(c), "MSSet")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, pg, ret, ref, lockHeld>>

\* The ESSA operation, atomic with respect to host discards (D17).
SetStableIfNotDiscarded(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "MSSet"
        /\ IF discarded[p]
           THEN /\ SetPC(Proc(c), "MSReturnFail")
                /\ UNCHANGED usage
           ELSE /\ usage' = [usage EXCEPT ![p] = "S"]
                /\ SetPC(Proc(c), "MSReturnOK")
        /\ UNCHANGED <<discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, stateChange, pg, ret, ref, lockHeld>>

\* Release PG_state_change (if taken) and return.  On success the user now
\* holds the page for stable use ("Held"), with the reference it took before
\* make_stable.  (The twin that takes the reference only after make_stable,
\* FindGetPage replaced, takes it in a step of its own, which
\* model/MCLinuxGuestProtocol_Twins.tla adds: no path of the specification is
\* there for it alone, D264.)
MakeStableReleaseBit(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] \in {"MSReturnOK", "MSReturnFail"}
        /\ stateChange' = [stateChange EXCEPT ![p] = @ \ {Proc(c)}]
        /\ SetPC(Proc(c), IF pc[Proc(c)] = "MSReturnFail" THEN "Failed" ELSE "Held")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, pg, ret, ref, lockHeld>>

\* The lookup found the page discarded: "it is removed from the page cache
\* and functions return notfound".  The first to find it sets PG_discarded and
\* removes it with its mappings (DiscardHandling.tla specifies this handler);
\* then the reference is dropped.
PageDiscard(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "Failed"
        /\ IF pgDiscarded[p]
           THEN UNCHANGED <<pgDiscarded, inCache, maps, writable>>
           ELSE /\ pgDiscarded' = [pgDiscarded EXCEPT ![p] = TRUE]
                /\ inCache' = [inCache EXCEPT ![p] = FALSE]
                /\ maps' = [maps EXCEPT ![p] = 0]
                /\ writable' = [writable EXCEPT ![p] = FALSE]
        /\ ref' = [ref EXCEPT ![c] = FALSE]
        /\ ReturnTo(Proc(c), "Idle")
        /\ UNCHANGED <<usage, discarded, backed, dirty, unsaved, io, mlocked, stateChange, lockHeld>>

(***************************************************************************)
(* What a user does with a page it holds for stable use.  "Whenever the   *)
(* Linux memory management does something with a page that the discard     *)
(* fault handler can not undo, the page is made stable.  After the memory  *)
(* management removed a condition that made it necessary to keep the page  *)
(* in stable state, it is attempted to make the page volatile again."     *)
(* "it is enough to do the checking for the volatile transition when a     *)
(* page gets unlocked, when it has finished writeback, when the page       *)
(* reference counter is decreased, and when the page map counter is        *)
(* increased." (3.2)                                                       *)
(***************************************************************************)
HeldPage(c) ==
    /\ Runs(Proc(c))
    /\ pc[Proc(c)] = "Held"

\* set_page_dirty (e.g. a write system call copied data into the page).  The
\* guest has modified the page: its content is not on the backing device (the
\* ghost unsaved, which no step reads).
SetPageDirty(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ ~dirty[p]
        /\ dirty' = [dirty EXCEPT ![p] = TRUE]
        /\ unsaved' = [unsaved EXCEPT ![p] = TRUE]
        /\ UNCHANGED <<usage, discarded, inCache, backed, io, mlocked, writable,
                       pgDiscarded, maps, stateChange, ctxVars>>

\* lock_page (sleeps while another holds the lock: disabled until then).
LockPage(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ ~Locked(p)
        /\ lockHeld' = [lockHeld EXCEPT ![c] = TRUE]
        /\ UNCHANGED <<pageVars, pc, pg, ret, ref>>

\* unlock_page, then the attempt to make the page volatile.
UnlockPage(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ lockHeld[c]
        /\ lockHeld' = [lockHeld EXCEPT ![c] = FALSE]
        /\ CallMakeVolatile(Proc(c), p, "Held")
        /\ UNCHANGED <<pageVars, ref>>

\* Start writeback of a dirty page (clear_page_dirty_for_io, then
\* set_page_writeback), under the page lock.  The end-of-I/O interrupt ends it.
\* Only a page with a backing is written back: writeback writes to the backing
\* device (condition 2), which a truncated page no longer has ("the page has no
\* backing", conditions 5 and 6); a write to nowhere would leave the page in
\* writeback after its last reference went, freed and read in again under a
\* write still in flight (D270).  The write the guest sends carries the page's
\* content as it is now (the ghost unsaved is cleared; the content is on the
\* device once the write ends).
SetPageWriteback(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ lockHeld[c] /\ dirty[p] /\ io[p] = "None"
        /\ backed[p]
        /\ dirty' = [dirty EXCEPT ![p] = FALSE]
        /\ unsaved' = [unsaved EXCEPT ![p] = FALSE]
        /\ io' = [io EXCEPT ![p] = "Write"]
        /\ UNCHANGED <<usage, discarded, inCache, backed, mlocked, writable,
                       pgDiscarded, maps, stateChange, ctxVars>>

\* Truncation (under the page lock, after writeback): the page leaves the
\* cache and its mappings, and page->mapping is cleared: no backing any more.
TruncatePage(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ lockHeld[c] /\ inCache[p] /\ io[p] = "None"
        /\ inCache' = [inCache EXCEPT ![p] = FALSE]
        /\ backed' = [backed EXCEPT ![p] = FALSE]
        /\ maps' = [maps EXCEPT ![p] = 0]
        /\ UNCHANGED <<usage, discarded, dirty, unsaved, io, mlocked, writable, pgDiscarded,
                       stateChange, ctxVars>>

\* mlock() of a vma of the file: the mapping's flag is set for good, and the
\* present pages are made stable (get_user_pages) - this user holds it stable.
MlockPage(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ ~mlocked[p]
        /\ mlocked' = [mlocked EXCEPT ![p] = TRUE]
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, writable,
                       pgDiscarded, maps, stateChange, ctxVars>>

\* do_no_page: the user's reference becomes the new mapping's; a writable
\* mapping sets PG_writable first (paper 3.5, D38).  Then the attempt to make
\* the page volatile ("when the page map counter is increased").
MapPage(c, w) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ ~lockHeld[c] /\ inCache[p] /\ maps[p] < MaxMaps
        /\ maps' = [maps EXCEPT ![p] = @ + 1]
        /\ writable' = [writable EXCEPT ![p] = @ \/ w]
        /\ ref' = [ref EXCEPT ![c] = FALSE]
        /\ CallMakeVolatile(Proc(c), p, "Idle")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked,
                       pgDiscarded, stateChange, lockHeld>>

\* page_cache_release: the reference is dropped, then the attempt to make
\* the page volatile ("when the page reference counter is decreased", D32).
PageCacheRelease(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ ~lockHeld[c]
        /\ ref' = [ref EXCEPT ![c] = FALSE]
        /\ CallMakeVolatile(Proc(c), p, "Idle")
        /\ UNCHANGED <<pageVars, lockHeld>>

(***************************************************************************)
(* Page life cycle outside make_stable.                                    *)
(***************************************************************************)

\* A page that left the cache (discarded or truncated) and has no reference
\* left is freed; the page is read again into a fresh page.  "the allocation
\* operation makes the pages stable again": the new page is stable, clean,
\* locked by the read, and the reader holds its reference.  The mapping's
\* mlocked flag belongs to the file and stays.
ReadPage(c, p) ==
    /\ Runs(Proc(c))
    /\ pc[Proc(c)] = "Idle"
    /\ ~inCache[p] /\ PageCount(p) = 0 /\ PageMayBeFreed(p)
    /\ usage' = [usage EXCEPT ![p] = "S"]
    /\ discarded' = [discarded EXCEPT ![p] = FALSE]
    /\ inCache' = [inCache EXCEPT ![p] = TRUE]
    /\ backed' = [backed EXCEPT ![p] = TRUE]
    /\ dirty' = [dirty EXCEPT ![p] = FALSE]
    /\ unsaved' = [unsaved EXCEPT ![p] = FALSE]    \* it holds what its device holds
    /\ io' = [io EXCEPT ![p] = "Read"]
    /\ writable' = [writable EXCEPT ![p] = FALSE]
    /\ pgDiscarded' = [pgDiscarded EXCEPT ![p] = FALSE]
    /\ ref' = [ref EXCEPT ![c] = TRUE]
    /\ pc' = [pc EXCEPT ![Proc(c)] = "Held"]
    /\ pg' = [pg EXCEPT ![Proc(c)] = p]
    /\ UNCHANGED <<mlocked, maps, stateChange, ret, lockHeld>>

\* The minor fault path of paper 3.6: a read-only mapping of a cached page
\* "without doing a single state change" (find_get_page variant, no
\* make_stable); one step because the reference becomes the mapping's at once.
\* A step of the environment, like the unmap below (D238): the faulting thread
\* runs no code of the protocol, so it may run on a CPU the model does not show,
\* whatever the modelled CPUs are doing (in make_stable, in make_volatile, in
\* an interrupt handler).
MinorFault(p) ==
    /\ inCache[p] /\ maps[p] < MaxMaps
    /\ maps' = [maps EXCEPT ![p] = @ + 1]
    /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                   pgDiscarded, stateChange, ctxVars>>

\* Unmap (page_remove_rmap, page_cache_release_nohv: no state change).  The
\* last unmap resets PG_writable, if it gets PG_state_change at once
\* (__page_reset_writable); otherwise the flag stays set, which is safe.
\* Whatever the modelled CPUs are doing (D238, as DiscardHandling's D180): the
\* process that unmaps (munmap, exit) runs no code of the protocol and may be
\* on another CPU.
UnmapPage(p) ==
    /\ maps[p] > 0
    /\ maps' = [maps EXCEPT ![p] = @ - 1]
    /\ writable' = [writable EXCEPT ![p] =
                      IF maps[p] = 1 /\ stateChange[p] = {} THEN FALSE ELSE @]
    /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked,
                   pgDiscarded, stateChange, ctxVars>>

(***************************************************************************)
(* make_volatile, in a process context or an interrupt context.           *)
(***************************************************************************)

\* "If we can't get the PG_state_change bit just give up": test-and-set the
\* bit; if it is held, return at once (or, in the variant and the twin that
\* wait, spin).  make_volatile serialises its check and SetVolatile with
\* PG_state_change.
MakeVolatileTryBit(x) ==
    LET p == pg[x]
    IN  /\ Runs(x)
        /\ pc[x] = "MVTry"
        /\ IF stateChange[p] = {}
           THEN /\ stateChange' = [stateChange EXCEPT ![p] = {x}]
                /\ SetPC(x, "MVCheck")
                /\ UNCHANGED <<pg, ret>>
           ELSE IF MakeVolatileWaitsWhenBusy
           THEN /\ SetPC(x, "MVSpin")
                /\ UNCHANGED <<stateChange, pg, ret>>
           ELSE /\ ReturnTo(x, ret[x])
                /\ UNCHANGED stateChange
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, ref, lockHeld>>

\* The waiting make_volatile of the variant and the twin: spins until the bit
\* is free.
MakeVolatileSpin(x) ==
    LET p == pg[x]
    IN  /\ Runs(x)
        /\ pc[x] = "MVSpin"
        /\ stateChange[p] = {}
        /\ stateChange' = [stateChange EXCEPT ![p] = {x}]
        /\ SetPC(x, "MVCheck")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, pg, ret, ref, lockHeld>>

\* check_bits / check_counts: the first (or only) read of the conditions.
MakeVolatileCheck(x) ==
    LET p == pg[x]
    IN  /\ Runs(x)
        /\ pc[x] = "MVCheck"
        /\ SetPC(x, IF FirstCheckForbids(p) THEN "MVRelease"
                    ELSE IF CheckOrder = "Atomic" THEN "MVSet" ELSE "MVCheck2")
        /\ UNCHANGED <<pageVars, pg, ret, ref, lockHeld>>

\* The second read when the check is two reads (D36).
MakeVolatileCheckAgain(x) ==
    LET p == pg[x]
    IN  /\ Runs(x)
        /\ pc[x] = "MVCheck2"
        /\ SetPC(x, IF SecondCheckForbids(p) THEN "MVRelease" ELSE "MVSet")
        /\ UNCHANGED <<pageVars, pg, ret, ref, lockHeld>>

\* page_set_volatile: the ESSA SetVolatile, or SetPotentialVolatile for a page
\* with a writable mapping on a platform with P: "For platforms without the
\* ability to access the guest page dirty bit information from the host, the
\* correct state is the stable state, for platforms with the ability, it is
\* the potentially volatile state."  On a discarded page it leaves the page
\* discarded (PageStates D4).
PageSetVolatile(x) ==
    LET p == pg[x]
    IN  /\ Runs(x)
        /\ pc[x] = "MVSet"
        /\ usage' = [usage EXCEPT ![p] = IF writable[p] /\ HasP THEN "P" ELSE "V"]
        /\ SetPC(x, "MVRelease")
        /\ UNCHANGED <<discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, stateChange, pg, ret, ref, lockHeld>>

\* page_clear_state_change, and return (an interrupt handler returns).
MakeVolatileReleaseBit(x) ==
    LET p == pg[x]
    IN  /\ Runs(x)
        /\ pc[x] = "MVRelease"
        /\ stateChange' = [stateChange EXCEPT ![p] = @ \ {x}]
        /\ ReturnTo(x, ret[x])
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, ref, lockHeld>>

(***************************************************************************)
(* The end-of-I/O interrupt.  "The end of I/O interrupt usually releases   *)
(* the page lock which results in a try to make a page volatile.  If a cpu *)
(* is interrupted while holding the PG_state_change bit for a page this    *)
(* would be a dead lock if the make_volatile function waits for the bit as *)
(* well."  It ends a read (the page is up to date and unlocked) or a       *)
(* writeback, on any CPU whose interrupt context is idle, whatever that    *)
(* CPU's process context is doing (D33).                                   *)
(***************************************************************************)
EndOfIOInterrupt(c, p) ==
    /\ ~IrqActive(c)
    /\ io[p] # "None"
    /\ InterruptsEnabled(c)
    /\ io' = [io EXCEPT ![p] = "None"]
    /\ CallMakeVolatile(Irq(c), p, "None")
    /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, mlocked, writable,
                   pgDiscarded, maps, stateChange, ref, lockHeld>>

(***************************************************************************)
(* The host discards a volatile page, or a potentially volatile one whose  *)
(* change bit is clear (D30: stores through writable mappings are not      *)
(* modelled, so any P page may be taken).                                  *)
(***************************************************************************)
HostDiscard(p) ==
    /\ usage[p] \in {"V", "P"}
    /\ ~discarded[p]
    /\ discarded' = [discarded EXCEPT ![p] = TRUE]
    /\ UNCHANGED <<usage, inCache, backed, dirty, unsaved, io, mlocked, writable, pgDiscarded,
                   maps, stateChange, ctxVars>>

(***************************************************************************)
(* Every page starts cached, stable, clean and unmapped; every context is  *)
(* idle.                                                                   *)
(***************************************************************************)
Init ==
    /\ usage       = [p \in Pages |-> "S"]
    /\ discarded   = [p \in Pages |-> FALSE]
    /\ inCache     = [p \in Pages |-> TRUE]
    /\ backed      = [p \in Pages |-> TRUE]
    /\ dirty       = [p \in Pages |-> FALSE]
    /\ unsaved     = [p \in Pages |-> FALSE]
    /\ io          = [p \in Pages |-> "None"]
    /\ mlocked     = [p \in Pages |-> FALSE]
    /\ writable    = [p \in Pages |-> FALSE]
    /\ pgDiscarded = [p \in Pages |-> FALSE]
    /\ maps        = [p \in Pages |-> 0]
    /\ stateChange = [p \in Pages |-> {}]
    /\ pc          = [x \in Contexts |-> IF IsIrq(x) THEN "None" ELSE "Idle"]
    /\ pg          = [x \in Contexts |-> NoPage]
    /\ ret         = [x \in Contexts |-> "None"]
    /\ ref         = [c \in CPUs |-> FALSE]
    /\ lockHeld    = [c \in CPUs |-> FALSE]

(***************************************************************************)
(* The model's environment (D37, D259): which of the users' operations a   *)
(* model offers.  The kernel offers them all; a CI model offers the few    *)
(* its races need, to stay small.  This is configuration, not protocol,   *)
(* so it is kept apart from the steps: the manifest names these two       *)
(* definitions `environment`, and `make mutate` leaves them alone (a       *)
(* mutant here would choose another model, not plant a bug in a step).    *)
(* They read no variable; they only choose among the steps.               *)
(***************************************************************************)
OfferedUserSteps(c) ==
    \/ "Dirty" \in UserOps /\ SetPageDirty(c)
    \/ UserOps \cap {"Lock", "Dirty", "Truncate"} # {} /\ LockPage(c)
    \/ "Truncate" \in UserOps /\ TruncatePage(c)
    \/ "Mlock" \in UserOps /\ MlockPage(c)
    \/ "Map" \in UserOps /\ MapPage(c, FALSE)
    \/ "MapWritable" \in UserOps /\ MapPage(c, TRUE)

OfferedMinorFault(p) == "Map" \in UserOps /\ MinorFault(p)

ProcNext(c) ==
    \/ \E p \in Pages : FindGetPage(c, p) \/ ReadPage(c, p)
    \/ MakeStableAcquireBit(c) \/ SetStableIfNotDiscarded(c) \/ MakeStableReleaseBit(c)
    \/ PageDiscard(c)
    \/ UnlockPage(c) \/ SetPageWriteback(c) \/ PageCacheRelease(c)
    \/ OfferedUserSteps(c)

MakeVolatileNext(x) ==
    \/ MakeVolatileTryBit(x) \/ MakeVolatileSpin(x) \/ MakeVolatileCheck(x)
    \/ MakeVolatileCheckAgain(x) \/ PageSetVolatile(x) \/ MakeVolatileReleaseBit(x)

Next ==
    \/ \E c \in CPUs : ProcNext(c)
    \/ \E x \in Contexts : MakeVolatileNext(x)
    \/ \E c \in CPUs, p \in Pages : EndOfIOInterrupt(c, p)
    \/ \E p \in Pages : OfferedMinorFault(p)
    \/ \E p \in Pages : UnmapPage(p)
    \/ \E p \in Pages : HostDiscard(p)

Spec == Init /\ [][Next]_vars


(***************************************************************************)
(* Progress.  "The make_volatile operation does not have to wait, it can  *)
(* just return instead" and "The function that makes a page stable will    *)
(* wait until it can acquire the new page flag" (paper 3.3): make_volatile *)
(* only tries, so it ends; make_stable waits, and every holder of the bit  *)
(* lets it go.  Whether the waiting make_stable then gets it depends on    *)
(* the timing of the others (the bit is a test-and-set, not a queue): see  *)
(* MakeStableCompletesProp.  Fairness is for the protocol's own code,      *)
(* nothing else:                                                           *)
(* the users, the host, I/O and unmaps may stop anywhere.                  *)
(*   - An interrupt handler that runs make_volatile runs it to its end     *)
(*     (weak fairness: nothing but its own steps can stop it, as the       *)
(*     interrupted code waits for it, D33).                                *)
(*   - A process context's make_stable and make_volatile code is resumed   *)
(*     each time its CPU's handler returns, and a spinning make_stable     *)
(*     tests the bit again and again: strong fairness, because end-of-I/O  *)
(*     interrupts may come again and again, and other contexts take the    *)
(*     bit in turn, so the step may be enabled only now and then ("will   *)
(*     wait until it can acquire", paper 3.3).                             *)
(* The users, the host, I/O and unmaps may stop anywhere.                  *)
(***************************************************************************)
MakeStableSteps(c) ==
    MakeStableAcquireBit(c) \/ SetStableIfNotDiscarded(c) \/ MakeStableReleaseBit(c)

FairSpec ==
    /\ Spec
    /\ \A c \in CPUs :
          /\ WF_vars(MakeVolatileNext(Irq(c)))
          /\ SF_vars(MakeVolatileNext(Proc(c)))
          /\ SF_vars(MakeStableSteps(c))

=============================================================================
