--------------------------- MODULE DiscardHandling ---------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What the discard fault handling promises; *)
(* each promise is a property of DiscardHandlingProperties.tla with a      *)
(* THEOREM beside it naming the model whose .cfg checks it and the twin    *)
(* that fails it.                                                          *)
(*                                                                         *)
(*   No data loss. PgDiscardedOnlyIfDiscardedInv: the handler marks and    *)
(*       removes only pages the host discarded;                            *)
(*       RemovedFromCacheAtMostOnceInv: "To prevent that a page gets       *)
(*       removed from the page cache more than once, the discard fault     *)
(*       handler marks the page with the PG_discarded page flag" (paper    *)
(*       3.7).                                                             *)
(*   No use after free. NotFreedWhileFaultPendingInv: "This is only        *)
(*       possible if there are no pending discard faults for a page before *)
(*       the page is freed" (paper 3.7).                                   *)
(*   Progress. under FairSpec, DiscardedMappingRemovedProp: "Any discard   *)
(*       fault for a page that occurs after the page has been removed      *)
(*       still needs the mapping information to be able to remove the      *)
(*       remaining page table entries"; DiscardedPageFreedProp: "a         *)
(*       synchronization is done before the discarded page list is freed"  *)
(*       (paper 3.7).                                                      *)
(*                                                                         *)
(* The other properties restate a step (SignOffOnceProp,                   *)
(* ReusedPageBackedProp) or check types and bookkeeping (TypeOK,           *)
(* PageCountInv).                                                          *)
(***************************************************************************)
(***************************************************************************)
(* The Linux guest's discard fault handling of the paper                   *)
(* (docs/sources.md [P], "the paper"), section 3.7, "Removing              *)
(* discarded pages":                                                       *)
(*                                                                         *)
(*   "To prevent that a page gets removed from the page cache more than    *)
(*   once, the discard fault handler marks the page with the PG_discarded  *)
(*   page flag.  Any subsequent discard fault will only remove page table  *)
(*   entries.  The discard fault handler will remove a page from the page  *)
(*   cache without clearing the page->mapping field.  Due to races in the  *)
(*   memory management, a page can get mapped to a process after the       *)
(*   discard fault has removed the page cache entry for the page.  Any     *)
(*   discard fault for a page that occurs after the page has been removed  *)
(*   still needs the mapping information to be able to remove the          *)
(*   remaining page table entries."                                        *)
(*                                                                         *)
(*   "If the discard fault handler gets absolute page addresses instead of *)
(*   a virtual addresses - which is the case for z/VM as the host system - *)
(*   the discard fault handler needs to make sure to get a valid page      *)
(*   reference.  This is only possible if there are no pending discard     *)
(*   faults for a page before the page is freed.  To ensure this, a        *)
(*   synchronization is done before the discarded page list is freed."    *)
(*                                                                         *)
(* The grain follows the 2007 patches (sources 6, S16): the                *)
(* fault arrives with interrupts disabled and carries the page's absolute  *)
(* address; the handler takes a reference with get_page_unless_zero and    *)
(* enables interrupts; page_discard does its work under the page lock;     *)
(* discarded pages whose count drops to zero go on a discard list and are  *)
(* freed once every CPU has "signed off" by running enabled code.          *)
(*                                                                         *)
(* Every CPU runs one process with its own page tables (D41).  A page's    *)
(* host-side state is abstract: resident (volatile, in the page cache) or  *)
(* discarded (D40).  Decisions are D40 to D49, D137 and D180 to D186 in   *)
(* docs/decisions.md.  The broken twins                                    *)
(* (model/MCDiscardHandling_Twins.tla) override the step they break with a *)
(* copy carrying one mistake (D355).                                       *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    \* @type: Set(CPU);
    CPUs,       \* the guest's CPUs, each running one process (D41)
    \* @type: Set(PAGE);
    Pages,      \* struct pages (absolute guest pages), page-cache pages when in use
    \* @type: PAGE;
    NoPage      \* a page outside Pages: what an idle CPU works on

VARIABLES
    \* @type: PAGE -> Bool;
    hostDiscarded,  \* the host has discarded the page (Vz): an access raises a discard fault
    \* @type: PAGE -> Bool;
    inCache,        \* the page is in the page cache (which holds one reference)
    \* @type: PAGE -> Bool;
    hasMapping,     \* page->mapping is set: rmap can find the page's page-table entries
    \* @type: PAGE -> Bool;
    pgDiscarded,    \* PG_discarded
    \* @type: PAGE -> Int;
    count,          \* page_count
    \* @type: PAGE -> Str;
    status,         \* "InUse", "Listed" (discard list), "SignOff" (awaiting sign-off), "Free"
    \* @type: CPU -> Set(PAGE);
    mapped,         \* the pages the CPU's process has a page-table entry for
    \* @type: CPU -> Str;
    pc,             \* "Idle", "Found", "Window", "Handler" (D42)
    \* @type: CPU -> PAGE;
    at,             \* the page the CPU works on
    \* @type: Set(CPU);
    signOffMask,    \* the CPUs that have not yet signed off the pages in "SignOff"
    \* @type: PAGE -> Int;
    removals        \* ghost: how often this incarnation of the page left the page cache

vars == <<hostDiscarded, inCache, hasMapping, pgDiscarded, count, status, mapped, pc, at,
          signOffMask, removals>>

Statuses == {"InUse", "Listed", "SignOff", "Free"}
PCs      == {"Idle", "Found", "Window", "Handler"}

ASSUME NoPage \notin Pages

\* The CPUs whose process maps page x.
Mappers(x) == {c \in CPUs : x \in mapped[c]}

(***************************************************************************)
(* The page's users.                                                       *)
(***************************************************************************)

\* The host discards a page-cache page that the guest made volatile (D40).
\* A page out of the cache or no longer in use has been discarded already
\* (it left through a discard fault), so only ~hostDiscarded[x] tells the
\* steps apart; the rest says which pages the host discards (D183).
HostDiscard(x) ==
    /\ status[x] = "InUse" /\ inCache[x] /\ ~hostDiscarded[x]
    /\ hostDiscarded' = [hostDiscarded EXCEPT ![x] = TRUE]
    /\ UNCHANGED <<inCache, hasMapping, pgDiscarded, count, status, mapped, pc, at,
                   signOffMask, removals>>

\* A process finds the page in the page cache (the find_get_page variant of
\* the minor fault path, no state change: paper 3.6) and holds the reference
\* in a local variable: "the new reference to that page is not stored
\* somewhere in memory but in a dynamic variable of some function." (D47)
FindGetPage(c, x) ==
    /\ pc[c] = "Idle"
    /\ inCache[x] /\ x \notin mapped[c]
    /\ count' = [count EXCEPT ![x] = @ + 1]
    /\ pc' = [pc EXCEPT ![c] = "Found"]
    /\ at' = [at EXCEPT ![c] = x]
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, status, mapped,
                   signOffMask, removals>>

\* ... and maps it: the reference becomes the page-table entry's.  "Due to
\* races in the memory management, a page can get mapped to a process after
\* the discard fault has removed the page cache entry for the page."
MapPage(c) ==
    /\ pc[c] = "Found"
    /\ mapped' = [mapped EXCEPT ![c] = @ \cup {at[c]}]
    /\ pc' = [pc EXCEPT ![c] = "Idle"]
    /\ at' = [at EXCEPT ![c] = NoPage]
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, count, status,
                   signOffMask, removals>>

\* The process unmaps the page (munmap, exit): the entry's reference goes.
\* Whatever the CPU is doing (D180): another thread of the process, on a CPU
\* of its own, shares these page tables and may unmap the page even while
\* this CPU is in a discard fault on it.  The handler holds a reference of
\* its own and finds the entries through page->mapping, so it must cope.
UnmapPage(c, x) ==
    /\ x \in mapped[c]
    /\ mapped' = [mapped EXCEPT ![c] = @ \ {x}]
    /\ count' = [count EXCEPT ![x] = @ - 1]
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, status, pc, at,
                   signOffMask, removals>>

(***************************************************************************)
(* The discard fault handler.                                              *)
(***************************************************************************)

\* The process touches a discarded page through its page-table entry: the
\* discard fault (program interruption 0x1A) is taken with interrupts
\* disabled and reports the page's absolute address (sources 6).
\* The fault is pending from here until its handler is done (D42).
DiscardFault(c, x) ==
    /\ pc[c] = "Idle"
    /\ x \in mapped[c] /\ hostDiscarded[x]
    /\ pc' = [pc EXCEPT ![c] = "Window"]
    /\ at' = [at EXCEPT ![c] = x]
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, count, status, mapped,
                   signOffMask, removals>>

\* get_page_unless_zero on the page at that absolute address, then
\* local_irq_enable.  A count of zero means the page is on its way to the
\* discard list: nothing to do, the access is retried.  The reference taken
\* is the one page_discard releases: "Before calling this function an
\* additional page reference needs to be acquired.  This reference is
\* released by the function." (2007 patch, S16)
GetPageUnlessZero(c) ==
    LET x == at[c]
    IN  /\ pc[c] = "Window"
        /\ IF count[x] > 0
           THEN /\ count' = [count EXCEPT ![x] = @ + 1]
                /\ pc' = [pc EXCEPT ![c] = "Handler"]
                /\ UNCHANGED at
           ELSE /\ pc' = [pc EXCEPT ![c] = "Idle"]
                /\ at' = [at EXCEPT ![c] = NoPage]
                /\ UNCHANGED count
        /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, status, mapped,
                       signOffMask, removals>>

\* page_discard, under the page lock (one step, D43): the first handler sets
\* PG_discarded, unmaps the page from every page table (found through
\* page->mapping) and removes it from the page cache; a later one only
\* removes the page-table entries it can still find.  Then the handler's own
\* reference is released, and the faulting access is retried.  "To prevent
\* that a page gets removed from the page cache more than once, the discard
\* fault handler marks the page with the PG_discarded page flag":
\* TestSetPageDiscarded, so only the handler that found it clear is first.
\* "The discard fault handler will remove a page from the page cache without
\* clearing the page->mapping field": hasMapping is left as it is.
PageDiscard(c) ==
    LET x     == at[c]
        first == ~pgDiscarded[x]
        gone  == IF hasMapping[x] THEN Mappers(x) ELSE {}
        cache == IF first THEN 1 ELSE 0
    IN  /\ pc[c] = "Handler"
        /\ pgDiscarded' = [pgDiscarded EXCEPT ![x] = TRUE]
        /\ mapped' = [d \in CPUs |-> IF d \in gone THEN mapped[d] \ {x} ELSE mapped[d]]
        /\ inCache' = [inCache EXCEPT ![x] = IF first THEN FALSE ELSE @]
        /\ removals' = [removals EXCEPT ![x] = IF first THEN @ + 1 ELSE @]
        /\ count' = [count EXCEPT ![x] = @ - Cardinality(gone) - cache - 1]
        /\ pc' = [pc EXCEPT ![c] = "Idle"]
        /\ at' = [at EXCEPT ![c] = NoPage]
        /\ UNCHANGED <<hostDiscarded, hasMapping, status, signOffMask>>

(***************************************************************************)
(* Freeing discarded pages (D44).  "Pages that have been discarded are    *)
(* added to the discarded page list." 2007 patch: "Discarded pages with a  *)
(* page_count() of zero are placed on the page_discarded_list until all    *)
(* cpus have been at least once in enabled code.  That closes the race of  *)
(* page free vs. discard faults."                                          *)
(***************************************************************************)

\* The last reference of a discarded page is gone: free_hot_cold_page puts
\* it on the discard list instead of freeing it (page_free_discarded).
PageFreeDiscarded(x) ==
    /\ status[x] = "InUse" /\ pgDiscarded[x] /\ count[x] = 0
    /\ status' = [status EXCEPT ![x] = "Listed"]
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, count, mapped, pc, at,
                   signOffMask, removals>>

\* page_shrink_discard_list, stage two: the listed pages await sign-off by
\* every CPU.  With no page listed the 2007 code leaves the mask alone; a
\* mask set then would never be read before the next round sets it (D183).
\* "The third step is to free the pages after all cpus acknoledged the
\* signoff" (2007 patch, S16): the listed pages are moved to sign-off, and
\* the mask set to every CPU, only when no page is still awaiting a sign-off:
\* the 2007 code does it when the mask is empty, right after freeing the
\* pages that mask was for (D181).
StartSignOff ==
    /\ \A x \in Pages : status[x] # "SignOff"
    /\ \E x \in Pages : status[x] = "Listed"
    /\ status' = [x \in Pages |-> IF status[x] = "Listed" THEN "SignOff" ELSE status[x]]
    /\ signOffMask' = CPUs
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, count, mapped, pc, at,
                   removals>>

\* A CPU in enabled code (timer tick, idle) signs off.  The only code this
\* model runs disabled is the window of a discard fault before
\* get_page_unless_zero.  (For a CPU not in the mask the step would change
\* nothing: c \in signOffMask only keeps stuttering steps out, D183.)
SignOff(c) ==
    /\ c \in signOffMask
    /\ pc[c] # "Window"
    /\ signOffMask' = signOffMask \ {c}
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, count, status, mapped,
                   pc, at, removals>>

\* Stage three: free the signed-off pages (ClearPageDiscarded, free_cold_page):
\* "a synchronization is done before the discarded page list is freed", so
\* only once every CPU has signed off (the mask is empty).
\* (With no page in SignOff the step would change nothing, D183.)
FreeDiscardedPages ==
    /\ \E x \in Pages : status[x] = "SignOff"
    /\ signOffMask = {}
    /\ status' = [x \in Pages |-> IF status[x] = "SignOff" THEN "Free" ELSE status[x]]
    /\ pgDiscarded' = [x \in Pages |-> IF status[x] = "SignOff" THEN FALSE ELSE pgDiscarded[x]]
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, count, mapped, pc, at, signOffMask,
                   removals>>

\* The free page is allocated again, here for a page-cache page that is read
\* in (the reuse that makes a stale discard fault dangerous: it would now
\* find a healthy page at that absolute address).  A new incarnation (D46).
\* It is made stable (sources 4: arch_alloc_page issues ORC 1, set stable),
\* so the host backs it again ([Z1]: fresh frames for reused discarded
\* pages): the host no longer has it discarded (D186).
ReusePage(x) ==
    /\ status[x] = "Free"
    /\ status' = [status EXCEPT ![x] = "InUse"]
    /\ inCache' = [inCache EXCEPT ![x] = TRUE]
    /\ hasMapping' = [hasMapping EXCEPT ![x] = TRUE]
    /\ hostDiscarded' = [hostDiscarded EXCEPT ![x] = FALSE]
    /\ count' = [count EXCEPT ![x] = 1]
    /\ removals' = [removals EXCEPT ![x] = 0]
    /\ UNCHANGED <<pgDiscarded, mapped, pc, at, signOffMask>>

(***************************************************************************)
(* Every page starts in the page cache, resident, unmapped.               *)
(***************************************************************************)
Init ==
    /\ hostDiscarded = [x \in Pages |-> FALSE]
    /\ inCache       = [x \in Pages |-> TRUE]
    /\ hasMapping    = [x \in Pages |-> TRUE]
    /\ pgDiscarded   = [x \in Pages |-> FALSE]
    /\ count         = [x \in Pages |-> 1]
    /\ status        = [x \in Pages |-> "InUse"]
    /\ mapped        = [c \in CPUs |-> {}]
    /\ pc            = [c \in CPUs |-> "Idle"]
    /\ at            = [c \in CPUs |-> NoPage]
    /\ signOffMask   = {}
    /\ removals      = [x \in Pages |-> 0]

CPUNext(c) ==
    \/ \E x \in Pages : FindGetPage(c, x) \/ UnmapPage(c, x) \/ DiscardFault(c, x)
    \/ MapPage(c) \/ GetPageUnlessZero(c) \/ PageDiscard(c) \/ SignOff(c)

Next ==
    \/ \E c \in CPUs : CPUNext(c)
    \/ \E x \in Pages : HostDiscard(x) \/ PageFreeDiscarded(x) \/ ReusePage(x)
    \/ StartSignOff \/ FreeDiscardedPages

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Fairness for the liveness property (D45).  Each is an assumption about  *)
(* the guest, not something the handler can enforce:                      *)
(*  - a CPU that took a discard fault runs its handler to the end          *)
(*    (GetPageUnlessZero, PageDiscard): it is kernel code that does not   *)
(*    wait for anything in this model (the page lock is inside the step);  *)
(*  - a process that found a page goes on to map it (MapPage);             *)
(*  - a process that maps a discarded page eventually touches it or unmaps *)
(*    it.  This one is strong fairness: between its accesses the process  *)
(*    may work on other pages, so the access is enabled again and again    *)
(*    rather than continuously.  Without it a mapping that is never used   *)
(*    stays until the process exits, which no handler could change.       *)
(* The host needs no fairness; the sign-off and the freeing get theirs     *)
(* below (FreeingFairness), for the freeing property only: the mapping     *)
(* property is about page-table entries, which they do not touch.         *)
(***************************************************************************)
Fairness ==
    /\ \A c \in CPUs :
          /\ WF_vars(GetPageUnlessZero(c))
          /\ WF_vars(PageDiscard(c))
          /\ WF_vars(MapPage(c))
    /\ \A c \in CPUs, x \in Pages :
          SF_vars(DiscardFault(c, x) \/ UnmapPage(c, x))

(***************************************************************************)
(* Fairness of the freeing (D137), for DiscardedPageFreedProp: kernel      *)
(* housekeeping that no process can hold up.  free_hot_cold_page puts a    *)
(* discarded page whose count dropped to zero on the discard list at once  *)
(* (weak fairness of PageFreeDiscarded); the list is shrunk from the timer *)
(* (weak fairness of its two stages); a CPU signs off whenever it runs     *)
(* enabled code, which it does at every timer tick even while it takes    *)
(* discard faults again and again, so its sign-off is enabled again and   *)
(* again rather than continuously (strong fairness of SignOff).            *)
(***************************************************************************)
FreeingFairness ==
    /\ \A x \in Pages : WF_vars(PageFreeDiscarded(x))
    /\ WF_vars(StartSignOff)
    /\ WF_vars(FreeDiscardedPages)
    /\ \A c \in CPUs : SF_vars(SignOff(c))

FairSpec == Spec /\ Fairness /\ FreeingFairness

=============================================================================
