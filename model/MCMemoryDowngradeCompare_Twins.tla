------------------- MODULE MCMemoryDowngradeCompare_Twins --------------------
(***************************************************************************)
(* The broken twin of the comparison of incremental and bulk removal (the  *)
(* override applies inside both instances of MemoryDowngrade).             *)
(***************************************************************************)
EXTENDS MCMemoryDowngradeCompare

\* A removal that copies any page it likes, spending frames on pages it
\* could discard.  Caught by SameOutcomeUnpinnedInv: a run that wasted the
\* frame is rejected where the other completes.
MayCopyAny(p) == TRUE

\* A removal that discards a P page by its usage alone, even one the guest
\* stored to (the change bit ignored), in both runs alike.  The outcomes
\* agree (both lost the page), so SameOutcomeInv holds; caught by
\* EachRunIsADowngradeInv.
MayDiscardIgnoresChangeBit(p) == ~pinned[p] /\ usage[p] \in {"U", "V", "P"}

\* A removal that never gives up: where the pages do not fit, the run waits
\* for room that never comes.  Caught by NeitherRunStuckInv (the model does not
\* check deadlock, so that the property, not TLC's check, catches it).
GivesUpNever == FALSE


\* A removal that copies every stable page it must move, whatever the pinned
\* pages of the request still need (MayCopy without its spare-frame test; in
\* a model of stable pages, Keep is usage S).  Caught by
\* FittingRequestNotRejectedInv: a request that fitted is rejected once the
\* last free frame went to a page that could have been paged out (D290).
MayCopyStableAlways(p) == pinned[p] \/ usage[p] = "S"

=============================================================================
