--------------------- MODULE LinuxGuestProtocolStepChecks ----------------------
(***************************************************************************)
(* Step checks of LinuxGuestProtocol.tla, apart from its contract          *)
(* (LinuxGuestProtocolProperties.tla).                                     *)
(*                                                                         *)
(* Each property here restates what one step of the machine does, written  *)
(* out from the sources (the paper's check points, the page flags' life    *)
(* cycle): it catches a wrong step at the step that takes it, but it is    *)
(* not a promise a user of the design relies on (docs/contract.md, kind    *)
(* b).  The contract, the intent properties with their THEOREMs, the       *)
(* refinement and the liveness, is LinuxGuestProtocolProperties.tla's.     *)
(* What an engine's step must do is judged by the conformance suite        *)
(* (conformance/), and the reference implementation is equal to            *)
(* TLC's graph, which pins every transition.                               *)
(*                                                                         *)
(* The models still check these properties (their .cfg files name them,    *)
(* and each keeps its broken twin and its witness in model/manifest.json). *)
(* A mutant of LinuxGuestProtocol.tla that only a property here catches is *)
(* classed "step" by the mutation tooling, not "intent"                    *)
(* (docs/mutation.md); no property is added here to kill a mutant.         *)
(***************************************************************************)
EXTENDS LinuxGuestProtocolProperties

(***************************************************************************)
(* VolatileCheckPointsProp.  "it is enough to do the checking for the      *)
(* volatile transition when a page gets unlocked, when it has finished     *)
(* writeback, when the page reference counter is decreased, and when the   *)
(* page map counter is increased" (3.2).  A make_volatile starts only in a *)
(* step where one of these four happens to its page: the protocol tries at *)
(* those points and at no other (D198).                                    *)
(***************************************************************************)
VolatileCheckPoint(p) ==
    \/ Locked(p) /\ ~Locked(p)'                   \* the page gets unlocked
    \/ io[p] = "Write" /\ io'[p] = "None"          \* it has finished writeback
    \/ PageCount(p)' < PageCount(p)                \* the reference counter is decreased
    \/ maps'[p] > maps[p]                          \* the map counter is increased
VolatileCheckPointsStep ==
    \A x \in Contexts, p \in Pages :
        (pc[x] \notin MVPCs /\ pc'[x] = "MVTry" /\ pg'[x] = p) => VolatileCheckPoint(p)
VolatileCheckPointsProp == [][VolatileCheckPointsStep]_vars

\* What VolatileCheckPointsProp is about (its witness): a make_volatile starts.
MakeVolatileStarts == \E x \in Contexts : pc[x] \notin MVPCs /\ pc'[x] = "MVTry"
\* ... and the paper's two paths that change a counter with no attempt (3.6, D242):
\* a minor fault maps a page "without doing a single state change", and the
\* unmap path drops a mapping through the variants "that do not try to make the
\* page volatile".
MappedWithoutAttempt ==
    \E p \in Pages : maps'[p] > maps[p] /\ \A x \in Contexts : pc'[x] = pc[x]
UnmappedWithoutAttempt ==
    \E p \in Pages : maps'[p] < maps[p] /\ inCache'[p] /\ \A x \in Contexts : pc'[x] = pc[x]
\* ... and the fourth check point itself: a make_volatile starts in a step in
\* which its page's map counter is increased ("when the page map counter is
\* increased", 3.2; a user's do_no_page, D271).
AttemptOnMapping ==
    \E x \in Contexts, p \in Pages :
        pc[x] \notin MVPCs /\ pc'[x] = "MVTry" /\ pg'[x] = p /\ maps'[p] > maps[p]

(***************************************************************************)
(* VolatileRetriedProp.  "After the memory management removed a condition  *)
(* that made it necessary to keep the page in stable state, it is          *)
(* attempted to make the page volatile again" (paper 3.1); "it is enough   *)
(* to do the checking for the volatile transition when a page gets         *)
(* unlocked, when it has finished writeback, ..." (3.2); "The end of I/O   *)
(* interrupt usually releases the page lock which results in a try to make *)
(* a page volatile" (3.3).  The other half of VolatileCheckPointsProp, for *)
(* the two page flags: a step in which a page gets unlocked (condition 4;  *)
(* for a read that ends, condition 7 too: the page is up to date) or       *)
(* finishes writeback (condition 3) starts a make_volatile on that page in *)
(* the same step, so a page is never left stable by a flag that went away  *)
(* unnoticed (D236); the attempt is what is owed, not its outcome (D441).  *)
(* The two counters are left out on purpose: the paper                     *)
(* itself drops the attempt where they change on the minor fault and unmap *)
(* paths ("special variants of put_page_testzero and page_cache_release    *)
(* ... that do not try to make the page volatile", 3.6), and the discard   *)
(* path drops references to a page it took out of the cache (condition 9). *)
(***************************************************************************)
FlagConditionRemoved(p) ==
    \/ Locked(p) /\ ~Locked(p)'                   \* the page gets unlocked
    \/ io[p] = "Write" /\ io'[p] = "None"          \* it has finished writeback
VolatileRetriedStep ==
    \A p \in Pages :
        FlagConditionRemoved(p) =>
            \E x \in Contexts : pc[x] \notin MVPCs /\ pc'[x] = "MVTry" /\ pg'[x] = p
VolatileRetriedProp == [][VolatileRetriedStep]_vars

\* What VolatileRetriedProp is about (its witness): a page finishes writeback.
WritebackFinishes == \E p \in Pages : io[p] = "Write" /\ io'[p] = "None"
\* ... and one that ends with the page clean: the writeback removed conditions 2
\* and 3 together (clear_page_dirty_for_io cleared PG_dirty as it started), so
\* the attempt may succeed: "all clean, read-only pages ... would be volatile"
\* (3.1; D273).
WritebackEndsClean == \E p \in Pages : io[p] = "Write" /\ io'[p] = "None" /\ ~dirty[p]

(***************************************************************************)
(* DirtyClearedByWriteProp.  Paper 3.1, condition 2: "The page is marked   *)
(* dirty ... The page content is more recent than the data on the backing  *)
(* device.  The page content needs to get written to the backing device    *)
(* first before the page can be removed or discarded."  PG_dirty goes from *)
(* set to clear only in a step that starts a write of the page (the write  *)
(* then carries the content the flag stood for: clear_page_dirty_for_io    *)
(* and set_page_writeback), or for a fresh page read in.  A page dirtied   *)
(* again while a write is in flight is not cleaned by that write: its new  *)
(* content is in no I/O, and a page cleaned without one could be made      *)
(* volatile and discarded with data the backing device never got (D275).   *)
(***************************************************************************)
DirtyClearedByWriteStep ==
    \A p \in Pages :
        (dirty[p] /\ ~dirty'[p]) =>
            \/ io[p] # "Write" /\ io'[p] = "Write"      \* a write of the page starts
            \/ ~inCache[p] /\ inCache'[p]                \* a fresh page is read in
DirtyClearedByWriteProp == [][DirtyClearedByWriteStep]_vars

\* What DirtyClearedByWriteProp is about (its witness): a page is dirtied again
\* while its writeback is in flight.
DirtiedUnderWriteback == \E p \in Pages : io[p] = "Write" /\ dirty[p]

(***************************************************************************)
(* PageCacheRemovalUnmapsProp.  Paper 3.6: a discard fault "causes the     *)
(* page cache page to get removed from memory, including all page table    *)
(* entries referring to the page"; 3.7: "The discard fault handler can      *)
(* remove the references of the page cache and all entries of the page in  *)
(* the page tables."  A page leaves the page cache only in a step that also *)
(* removes every page-table mapping of it: on the discard path, and on      *)
(* truncation, which unmaps the file's pages before it takes them out of   *)
(* the cache ([INFERENCE]: truncate_pagecache unmaps the range, then        *)
(* truncates; D37's truncation "leaves the cache and its mappings").  A     *)
(* mapping left behind keeps a reference that no lookup can find and that  *)
(* holds a discarded page from being freed (D253).  The paper's race of     *)
(* 3.7 (a page mapped after the discard fault removed it) is a later step, *)
(* not this one; this model's faults map only cached pages.                *)
(***************************************************************************)
PageCacheRemovalUnmapsStep ==
    \A p \in Pages : (inCache[p] /\ ~inCache'[p]) => maps'[p] = 0
PageCacheRemovalUnmapsProp == [][PageCacheRemovalUnmapsStep]_vars

\* What PageCacheRemovalUnmapsProp is about (its witness): a page that is
\* mapped leaves the page cache.
MappedPageLeavesCache == \E p \in Pages : inCache[p] /\ ~inCache'[p] /\ maps[p] > 0
\* ... and on the truncation path: a mapped page is truncated.
MappedPageTruncated ==
    \E p \in Pages : inCache[p] /\ ~inCache'[p] /\ ~pgDiscarded'[p] /\ maps[p] > 0

(***************************************************************************)
(* WritableResetOnlyUnmappedProp.  Paper 3.5: "every time a writable page  *)
(* table gets removed the bit PG_writable stays set until all read-only    *)
(* mappers of the page have been unmapped as well.  Only then is the       *)
(* PG_writable bit reset again."  The map count does not say which mapping *)
(* is writable, which is why the flag stays set while any mapping is left: *)
(* PG_writable is reset only in a step after which the page has no mapping *)
(* (D255).  An unmap that reset it earlier could leave a writable mapping  *)
(* behind a clear flag, and on a platform without P make_volatile would    *)
(* then make a page volatile that a process can still write (condition 11).*)
(***************************************************************************)
WritableResetOnlyUnmappedStep ==
    \A p \in Pages : (writable[p] /\ ~writable'[p]) => maps'[p] = 0
WritableResetOnlyUnmappedProp == [][WritableResetOnlyUnmappedStep]_vars

\* What WritableResetOnlyUnmappedProp is about (its witness): a page with
\* PG_writable set loses a mapping and keeps another, and the flag stays set.
WritableKeptOnUnmap ==
    \E p \in Pages : writable[p] /\ writable'[p] /\ maps'[p] = maps[p] - 1 /\ maps'[p] > 0

(***************************************************************************)
(* FreshPageProp.  A page enters the page cache only as a new page read    *)
(* from its file, and nothing of the page's former life comes with it      *)
(* (D270).  It was free, and "each page address involved in an I/O         *)
(* operation represents a user" (3.1): no I/O of its former life is still  *)
(* in flight (condition 3: "The page content is still needed until the     *)
(* I/O operation has finished").  "the allocation operation makes the      *)
(* pages stable again" (3): it is stable, and not discarded.  It holds     *)
(* what its backing device holds, so it is clean (condition 2: dirty is    *)
(* "more recent than the data on the backing device"), and it has that     *)
(* backing (conditions 5 and 6).  It has no page-table entry yet, so no     *)
(* PG_writable, "set with the creation of the first writable mapping"      *)
(* (3.5).  A flag carried over from a truncated, dirty or writably mapped  *)
(* former page keeps the new page stable or potentially volatile for no    *)
(* reason of its own, and I/O carried over writes a freed page.            *)
(***************************************************************************)
FreshPageStep ==
    \A p \in Pages :
        (~inCache[p] /\ inCache'[p]) =>
            /\ io[p] = "None"
            /\ usage'[p] = "S" /\ ~discarded'[p]
            /\ ~dirty'[p] /\ backed'[p]
            /\ ~writable'[p] /\ maps'[p] = 0
FreshPageProp == [][FreshPageStep]_vars

\* What FreshPageProp is about (its witness): a page is read in again where
\* a page left the cache dirty, truncated or with PG_writable set.
StalePageReadIn ==
    \E p \in Pages : ~inCache[p] /\ inCache'[p] /\ (dirty[p] \/ ~backed[p] \/ writable[p])
\* ... the last of the three, in the model whose users map writably and truncate.
WritablePageReadIn == \E p \in Pages : ~inCache[p] /\ inCache'[p] /\ writable[p]

\* What NoVolatileOnDiscardedInv is about (its witness): a make_volatile
\* checks a page marked PG_discarded.
MakeVolatileChecksDiscarded == \E x \in Contexts : pc[x] = "MVCheck" /\ pgDiscarded[pg[x]]

=============================================================================
