---------------------- MODULE MCDiscardHandling_Twins ----------------------
(***************************************************************************)
(* Broken twins of the discard fault handling: each replaces one step of   *)
(* DiscardHandling.tla (through a definition override in its               *)
(* MCDiscardHandling_Twin_*.cfg, "Step <- BrokenStep") with a copy of it   *)
(* carrying one plausible mistake (D355).  Each must                       *)
(* make TLC report a violation of exactly the property its cfg checks;     *)
(* model/manifest.json records which.                                      *)
(***************************************************************************)
EXTENDS MCDiscardHandling

\* A handler that does not test PG_discarded: every discard fault removes the
\* page from the page cache.  Caught by RemovedFromCacheAtMostOnceInv.
PageDiscardAlwaysFirst(c) ==
    LET x     == at[c]
        first == TRUE
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

\* A handler that clears page->mapping when it removes the page from the
\* cache (as remove_from_page_cache does): a later fault cannot find the
\* page-table entry a late mapping made.  Caught by
\* DiscardedMappingRemovedProp.
PageDiscardClearingMapping(c) ==
    LET x     == at[c]
        first == ~pgDiscarded[x]
        gone  == IF hasMapping[x] THEN Mappers(x) ELSE {}
        cache == IF first THEN 1 ELSE 0
    IN  /\ pc[c] = "Handler"
        /\ pgDiscarded' = [pgDiscarded EXCEPT ![x] = TRUE]
        /\ mapped' = [d \in CPUs |-> IF d \in gone THEN mapped[d] \ {x} ELSE mapped[d]]
        /\ inCache' = [inCache EXCEPT ![x] = IF first THEN FALSE ELSE @]
        /\ removals' = [removals EXCEPT ![x] = IF first THEN @ + 1 ELSE @]
        /\ hasMapping' = [hasMapping EXCEPT ![x] = IF first THEN FALSE ELSE @]
        /\ count' = [count EXCEPT ![x] = @ - Cardinality(gone) - cache - 1]
        /\ pc' = [pc EXCEPT ![c] = "Idle"]
        /\ at' = [at EXCEPT ![c] = NoPage]
        /\ UNCHANGED <<hostDiscarded, status, signOffMask>>

\* get_page_unless_zero taking n references, of which page_discard releases one.
GetPageUnlessZeroTaking(c, n) ==
    LET x == at[c]
    IN  /\ pc[c] = "Window"
        /\ IF count[x] > 0
           THEN /\ count' = [count EXCEPT ![x] = @ + n]
                /\ pc' = [pc EXCEPT ![c] = "Handler"]
                /\ UNCHANGED at
           ELSE /\ pc' = [pc EXCEPT ![c] = "Idle"]
                /\ at' = [at EXCEPT ![c] = NoPage]
                /\ UNCHANGED count
        /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, status, mapped,
                       signOffMask, removals>>

\* A handler that calls page_discard without taking its own reference first
\* (page_discard releases one it never got): the count underflows.  Caught by
\* TypeOK.
GetPageUnlessZeroNoReference(c) == GetPageUnlessZeroTaking(c, 0)

\* A handler that takes two references and page_discard releases one: a
\* leaked reference keeps the discarded page from ever being freed.  Caught
\* by DiscardedPageFreedProp.
GetPageUnlessZeroLeaking(c) == GetPageUnlessZeroTaking(c, 2)

\* Freeing the discard list without waiting for the sign-off of every CPU.
\* Caught by NotFreedWhileFaultPendingInv.
FreeDiscardedPagesWithoutSync ==
    /\ \E x \in Pages : status[x] = "SignOff"
    /\ status' = [x \in Pages |-> IF status[x] = "SignOff" THEN "Free" ELSE status[x]]
    /\ pgDiscarded' = [x \in Pages |-> IF status[x] = "SignOff" THEN FALSE ELSE pgDiscarded[x]]
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, count, mapped, pc, at, signOffMask,
                   removals>>

\* A guest that does not set a page stable when it allocates it again: the
\* host still has it discarded.  Caught by ReusedPageBackedProp.
ReusePageStillDiscarded(x) ==
    /\ status[x] = "Free"
    /\ status' = [status EXCEPT ![x] = "InUse"]
    /\ inCache' = [inCache EXCEPT ![x] = TRUE]
    /\ hasMapping' = [hasMapping EXCEPT ![x] = TRUE]
    /\ count' = [count EXCEPT ![x] = 1]
    /\ removals' = [removals EXCEPT ![x] = 0]
    /\ UNCHANGED <<hostDiscarded, pgDiscarded, mapped, pc, at, signOffMask>>

\* A new round of sign-off started whenever pages are listed, even while the
\* previous round's pages still await theirs: they wait for every CPU again.
\* Caught by SignOffOnceProp.
StartSignOffRestarting ==
    /\ \E x \in Pages : status[x] = "Listed"
    /\ status' = [x \in Pages |-> IF status[x] = "Listed" THEN "SignOff" ELSE status[x]]
    /\ signOffMask' = CPUs
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, count, mapped, pc, at,
                   removals>>

\* A discard fault on a page the host has not discarded (the exception taken
\* for the wrong page, or a handler entered on any access): the handler
\* throws a page the host still backs out of the page cache.  Its own
\* specification (a step the spec does not have).  Caught by
\* PgDiscardedOnlyIfDiscardedInv (D301).
SpuriousDiscardFault(c, x) ==
    /\ pc[c] = "Idle"
    /\ x \in mapped[c] /\ ~hostDiscarded[x]
    /\ pc' = [pc EXCEPT ![c] = "Window"]
    /\ at' = [at EXCEPT ![c] = x]
    /\ UNCHANGED <<hostDiscarded, inCache, hasMapping, pgDiscarded, count, status, mapped,
                   signOffMask, removals>>

SpuriousDiscardFaultSpec ==
    Init /\ [][Next \/ \E c \in CPUs, x \in Pages : SpuriousDiscardFault(c, x)]_vars

=============================================================================
