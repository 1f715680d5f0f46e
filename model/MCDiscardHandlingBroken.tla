---------------------- MODULE MCDiscardHandlingBroken ----------------------
(***************************************************************************)
(* Broken twins of the discard fault handling: each replaces one decision  *)
(* operator of DiscardHandling.tla (through a definition override in its   *)
(* MCDiscardHandling_Twin_*.cfg) with a plausible mistake.  Each must     *)
(* make TLC report a violation of exactly the property its cfg checks;     *)
(* model/manifest.json records which.                                      *)
(***************************************************************************)
EXTENDS MCDiscardHandling

\* A handler that does not test PG_discarded: every discard fault removes the
\* page from the page cache.  Caught by RemovedFromCacheAtMostOnceInv.
AlwaysFirstToDiscard(x) == TRUE

\* A handler that clears page->mapping when it removes the page from the
\* cache (as remove_from_page_cache does): a later fault cannot find the
\* page-table entry a late mapping made.  Caught by
\* DiscardedMappingRemovedProp.
MappingCleared(x) == FALSE

\* A handler that calls page_discard without taking its own reference first
\* (page_discard releases one it never got): the count underflows.  Caught by
\* TypeOK.
NoHandlerReference == 0

\* A handler that takes two references and page_discard releases one: a
\* leaked reference keeps the discarded page from ever being freed.  Caught
\* by DiscardedPageFreedProp.
HandlerReferenceLeaked == 2

\* Freeing the discard list without waiting for the sign-off of every CPU.
\* Caught by NotFreedWhileFaultPendingInv.
FreeWithoutSync(mask) == TRUE

\* A guest that does not set a page stable when it allocates it again: the
\* host still has it discarded.  Caught by ReusedPageBackedProp.
DiscardedAfterReuseStale(x) == hostDiscarded[x]

\* A new round of sign-off started whenever pages are listed, even while the
\* previous round's pages still await theirs: they wait for every CPU again.
\* Caught by SignOffOnceProp.
SignOffRestarted == TRUE

\* A discard fault on a page the host has not discarded (the exception taken
\* for the wrong page, or a handler entered on any access): the handler
\* throws a page the host still backs out of the page cache.  Its own
\* specification (the fault's guard is no decision operator).  Caught by
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
