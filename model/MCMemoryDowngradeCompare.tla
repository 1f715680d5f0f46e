---------------------- MODULE MCMemoryDowngradeCompare -----------------------
(***************************************************************************)
(* The model module for spec/MemoryDowngradeCompare.tla (incremental and   *)
(* bulk removal side by side), serving                                     *)
(* model/MCMemoryDowngradeCompare_*.cfg.                                   *)
(***************************************************************************)
EXTENDS MemoryDowngradeCompare, TLC

(***************************************************************************)
(* Symmetry: as in MCMemoryDowngrade.tla (pages; permanent frames;         *)
(* reconfigurable frames).  Both runs start from the same memory and a     *)
(* permutation is applied to both alike; SameOutcomeInv and                *)
(* SameOutcomeUnpinnedInv name no page or frame.                           *)
(***************************************************************************)
Symmetry == Permutations(Pages) \cup Permutations(Permanent)
                \cup Permutations(Reconfigurable)

(***************************************************************************)
(* Witnesses (model/manifest.json, D130, D213), defined beside the models   *)
(* so that the mutation tool has no witness text to change.                *)
(***************************************************************************)
\* Content in flight: the bulk run copies a page that holds a value other
\* than zero, so that a lost or altered copy shows ([Z2]: "the content of
\* that memory must be copied elsewhere").
ContentBeingCopied == bCopy.page # NoPage /\ bData[bCopy.page] # 0

\* Both runs have ended, and a P page the guest modified was in memory: the
\* case where SameOutcome's KeptIn keeps a P page's content because of its
\* change bit (paper, section 2: P "as long as the page has not been
\* modified").
BothRunsDoneModifiedP == Done /\ \E p \in Pages : usage[p] = "P" /\ bModified[p]

\* The incremental run's request was rejected while frames of the removal
\* are still to be asked for: from here it must stop, as the bulk run did.
IncrRejectedFramesLeft == iReq.state = "rejected" /\ todo # {}


\* The bulk request had just as many free frames outside it as pinned pages to
\* move, and an unpinned stable page to move as well, and it completed: the
\* case FittingRequestNotRejectedInv is about, where copying the unpinned page
\* would spend the frame the pinned page needs (D290).  The incremental run
\* has not started, so its copy is the memory the request was made in.
BulkCompletedJustFitting ==
    /\ bReq.state = "completed" /\ iReq.state = "idle"
    /\ LET R     == bReq.frames
           pinR  == {p \in Pages : iFrame[p] \in R /\ pinned[p]}
           keptR == {p \in Pages : iFrame[p] \in R /\ ~pinned[p] /\ usage[p] = "S"}
           frees == {f \in Frames \ R : \A p \in Pages : iFrame[p] # f}
       IN  pinR # {} /\ keptR # {} /\ Cardinality(frees) = Cardinality(pinR)

=============================================================================
