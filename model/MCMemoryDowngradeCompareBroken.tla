------------------- MODULE MCMemoryDowngradeCompareBroken --------------------
(***************************************************************************)
(* The broken twin of the comparison of incremental and bulk removal (the  *)
(* override applies inside both instances of MemoryDowngrade).             *)
(***************************************************************************)
EXTENDS MCMemoryDowngradeCompare

\* A removal that copies any page it likes, spending frames on pages it
\* could discard.  Caught by SameOutcomeUnpinnedInv: a run that wasted the
\* frame is rejected where the other completes.
MayCopyAny(p) == TRUE

=============================================================================
