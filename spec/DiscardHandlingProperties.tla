---------------------- MODULE DiscardHandlingProperties ----------------------
(***************************************************************************)
(* What the discard fault handling of DiscardHandling.tla must guarantee.  *)
(* Each property quotes the paper's section 3.7 (sources [P]               *)
(* .txt) and is stated over the state variables, never through the        *)
(* decision operators the broken twins replace (FirstToDiscard,           *)
(* MappingAfterRemoval, HandlerReference, ReadyToFree).                    *)
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

\* What DiscardedPageFreedProp is about (its witness): a page marked
\* PG_discarded that is still referenced (mapped, or held by a CPU).
DiscardedPageReferenced == \E x \in Pages : pgDiscarded[x] /\ count[x] > 0

RemovedPageFaultsAgain   == \E c \in CPUs : pc[c] = "Handler" /\ removals[at[c]] = 1
FaultPendingOnListedPage == \E c \in CPUs : pc[c] \in {"Window", "Handler"} /\ status[at[c]] # "InUse"

=============================================================================
