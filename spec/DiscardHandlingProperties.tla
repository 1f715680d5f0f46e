---------------------- MODULE DiscardHandlingProperties ----------------------
(***************************************************************************)
(* Contract: the promises of DiscardHandling.tla (its opening comment,     *)
(* docs/contract.md) are RemovedFromCacheAtMostOnceInv,                    *)
(* PgDiscardedOnlyIfDiscardedInv, NotFreedWhileFaultPendingInv,            *)
(* FreeOnlyUnreferencedInv,                                                *)
(* DiscardedMappingRemovedProp and DiscardedPageFreedProp; each has its    *)
(* THEOREM beside it, naming the model that checks it.  The other          *)
(* properties here check types and bookkeeping.  The step checks, each     *)
(* restating what one step does, are in DiscardHandlingStepChecks.tla,     *)
(* apart from the contract.                                                *)
(***************************************************************************)
(***************************************************************************)
(* What the discard fault handling of DiscardHandling.tla must guarantee.  *)
(* Each property quotes the paper's section 3.7 (sources [P]               *)
(* .txt) and is stated over the state variables, never through the steps   *)
(* the broken twins replace.                                               *)
(***************************************************************************)
EXTENDS DiscardHandling

TypeOK ==
    /\ hostDiscarded \in [Pages -> BOOLEAN]
    /\ inCache \in [Pages -> BOOLEAN]
    /\ hasMapping \in [Pages -> BOOLEAN]
    /\ pgDiscarded \in [Pages -> BOOLEAN]
    /\ count \in [Pages -> Nat]
    /\ status \in [Pages -> Statuses]
    /\ mapped \in [CPUs -> SUBSET Pages]
    /\ pc \in [CPUs -> PCs]
    /\ at \in [CPUs -> Pages \cup {NoPage}]
    /\ signOffMask \subseteq CPUs
    /\ removals \in [Pages -> Nat]

(***************************************************************************)
(* RemovedFromCacheAtMostOnceInv.  "To prevent that a page gets removed    *)
(* from the page cache more than once, the discard fault handler marks the *)
(* page with the PG_discarded page flag.  Any subsequent discard fault     *)
(* will only remove page table entries."  Counted per incarnation of the   *)
(* page (the ghost removals starts again when the page is reused).         *)
(***************************************************************************)
RemovedFromCacheAtMostOnceInv ==
    \A x \in Pages : removals[x] <= 1
\* Contract (no data loss).  MCDiscardHandling_Safety, MCDiscardHandling_TwoPages; twin
\* MCDiscardHandling_Twin_NoDiscardedTest.
THEOREM Spec => []RemovedFromCacheAtMostOnceInv

(***************************************************************************)
(* PgDiscardedOnlyIfDiscardedInv.  "To prevent that a page gets removed    *)
(* from the page cache more than once, the discard fault handler marks the *)
(* page with the PG_discarded page flag"; the fault it handles is the      *)
(* host's report that it discarded the page (paper 3.6: "the discard fault *)
(* ... causes the page cache page to get removed from memory").  A page    *)
(* marked PG_discarded is one the host discarded, until it is freed (which *)
(* clears the flag): a handler that took a page the host still backs for a *)
(* discarded one would throw a good page out of the page cache (D301).     *)
(***************************************************************************)
PgDiscardedOnlyIfDiscardedInv ==
    \A x \in Pages : pgDiscarded[x] => hostDiscarded[x]
\* Contract (no data loss).  MCDiscardHandling_Safety, MCDiscardHandling_TwoPages; twin
\* MCDiscardHandling_Twin_SpuriousFault.
THEOREM Spec => []PgDiscardedOnlyIfDiscardedInv

\* What PgDiscardedOnlyIfDiscardedInv is about (its witness): a page marked PG_discarded.
SomePageMarkedDiscarded == \E x \in Pages : pgDiscarded[x]

(***************************************************************************)
(* NotFreedWhileFaultPendingInv.  "the discard fault handler needs to make *)
(* sure to get a valid page reference.  This is only possible if there are *)
(* no pending discard faults for a page before the page is freed."  A      *)
(* discard fault is pending from the exception until its handler is done   *)
(* with the page (Window: before get_page_unless_zero; Handler: holding    *)
(* the reference it got).  While one is pending, its page is not free.    *)
(***************************************************************************)
NotFreedWhileFaultPendingInv ==
    \A c \in CPUs :
        pc[c] \in {"Window", "Handler"} => status[at[c]] # "Free"
\* Contract (no use after free).  MCDiscardHandling_Safety, MCDiscardHandling_TwoPages; twin
\* MCDiscardHandling_Twin_FreeWithoutSync.
THEOREM Spec => []NotFreedWhileFaultPendingInv

(***************************************************************************)
(* PageCountInv.  The 2007 patch (sources 6, S16), of page_discard:        *)
(* "Before calling this function an additional page reference needs to be  *)
(* acquired.  This reference is released by the function."  page_count     *)
(* counts the references to the page, and each is released once: the page *)
(* cache's, each page-table entry's, and the one a CPU holds in a local    *)
(* variable (found by find_get_page, or taken by the discard fault         *)
(* handler).  A count above them keeps a discarded page from ever being    *)
(* freed; one below them frees a page still in use (D182).                 *)
(***************************************************************************)
\* The CPUs holding a reference to page x in a local variable.
Holders(x) == {c \in CPUs : at[c] = x /\ pc[c] \in {"Found", "Handler"}}

PageCountInv ==
    \A x \in Pages :
        count[x] = Cardinality(Mappers(x)) + (IF inCache[x] THEN 1 ELSE 0)
                   + Cardinality(Holders(x))

\* What PageCountInv is about (its witness): a handler holds a reference to a
\* page already out of the page cache, so only the page-table entries and the
\* handlers' references keep it from the discard list.
LateHandlerReference == \E c \in CPUs : pc[c] = "Handler" /\ ~inCache[at[c]]

(***************************************************************************)
(* FreeOnlyUnreferencedInv.  Paper 3.7: "The discard fault handler ...     *)
(* causes the page cache page to get removed from memory", the discarded   *)
(* pages are "added to the discarded page list", and "a synchronization is *)
(* done before the discarded page list is freed": a page is freed only     *)
(* once it is out of the page cache and nothing refers to it.  A free page *)
(* is in no page cache, no process maps it and no CPU holds it; freeing    *)
(* one that is still referenced hands its frame to a new user while the    *)
(* old one still reads and writes it.                                      *)
(***************************************************************************)
FreeOnlyUnreferencedInv ==
    \A x \in Pages :
        status[x] = "Free" => ~inCache[x] /\ Mappers(x) = {} /\ Holders(x) = {}
\* Contract (no use after free).  MCDiscardHandling_Safety, MCDiscardHandling_TwoPages; twin
\* MCDiscardHandling_Twin_ReusedOntoDiscardList.
THEOREM Spec => []FreeOnlyUnreferencedInv

\* What FreeOnlyUnreferencedInv is about (its witness): a page that is free.
SomePageFree == \E x \in Pages : status[x] = "Free"

(***************************************************************************)
(* DiscardedMappingRemovedProp.  "Any discard fault for a page that occurs *)
(* after the page has been removed still needs the mapping information to  *)
(* be able to remove the remaining page table entries."  Every page-table  *)
(* entry of a discarded page - including one made by a race after the page *)
(* left the cache - is eventually removed, under the fairness of           *)
(* DiscardHandling.tla (D45).  (An entry whose page-table entry goes, the   *)
(* access is retried as an ordinary fault and the page is read again.)     *)
(***************************************************************************)
DiscardedMappingRemovedProp ==
    \A c \in CPUs, x \in Pages :
        (x \in mapped[c] /\ hostDiscarded[x]) ~> (x \notin mapped[c])
\* Contract (progress).  MCDiscardHandling_Liveness; twin MCDiscardHandling_Twin_MappingCleared.
THEOREM FairSpec => DiscardedMappingRemovedProp

\* What DiscardedMappingRemovedProp is about (its witness, model/manifest.json):
\* a process maps a page the host has discarded.
DiscardedPageMapped == \E c \in CPUs, x \in Pages : x \in mapped[c] /\ hostDiscarded[x]

(***************************************************************************)
(* DiscardedPageFreedProp.  "Pages that have been discarded are added to   *)
(* the discarded page list" and "a synchronization is done before the      *)
(* discarded page list is freed": the list is freed, not kept.  A page the *)
(* discard fault handler marked PG_discarded (and so took out of the page  *)
(* cache) is eventually free: every reference to it goes, under the        *)
(* fairness of FairSpec (D45, D137).  A handler that leaks its reference   *)
(* keeps the page forever.                                                 *)
(***************************************************************************)
DiscardedPageFreedProp == \A x \in Pages : pgDiscarded[x] ~> (status[x] = "Free")
\* Contract (progress).  MCDiscardHandling_Liveness; twin MCDiscardHandling_Twin_LeakedReference.
THEOREM FairSpec => DiscardedPageFreedProp

\* What DiscardedPageFreedProp is about (its witness): a page marked
\* PG_discarded that is still referenced (mapped, or held by a CPU).
DiscardedPageReferenced == \E x \in Pages : pgDiscarded[x] /\ count[x] > 0

RemovedPageFaultsAgain   == \E c \in CPUs : pc[c] = "Handler" /\ removals[at[c]] = 1
FaultPendingOnListedPage == \E c \in CPUs : pc[c] \in {"Window", "Handler"} /\ status[at[c]] # "InUse"

=============================================================================
