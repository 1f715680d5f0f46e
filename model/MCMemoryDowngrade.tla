-------------------------- MODULE MCMemoryDowngrade --------------------------
(***************************************************************************)
(* The model module for spec/MemoryDowngrade.tla, serving                  *)
(* model/MCMemoryDowngrade_*.cfg; MCMemoryDowngrade_Twins.tla holds the    *)
(* broken twins and MCMemoryDowngradeCompare.tla the comparison of         *)
(* incremental and bulk removal.                                           *)
(*                                                                         *)
(* Bounds: four frames, two permanent and two reconfigurable (the most     *)
(* [Z2] allows, "up to 50%"), so a request can name one frame or two;      *)
(* two pages (three in the deeper model) with every usage and pinning;     *)
(* one paging slot, so that paging out competes for room; values {0, 1}.   *)
(***************************************************************************)
EXTENDS MemoryDowngradeStepChecks, TLC

(***************************************************************************)
(* Symmetry (safety models only, never with RequestResolvesProp): pages    *)
(* are interchangeable (usage and pinning are chosen per page by Init, no  *)
(* constant names a page, nothing CHOOSEs one); permanent frames are       *)
(* interchangeable among themselves and so are reconfigurable ones (frames *)
(* are only ever told apart by membership of Permanent; requests and       *)
(* faults pick frames by \E).  Each permutation below maps behaviours to   *)
(* behaviours and preserves every safety property checked.                 *)
(***************************************************************************)
Symmetry == Permutations(Pages) \cup Permutations(Permanent)
                \cup Permutations(Reconfigurable)

(***************************************************************************)
(* FrameSymmetry (the four-frame safety models Safety4 and                 *)
(* SafetySlotsFirst4, and the twin HalfDoneRejection, which shows that the *)
(* model so reduced still catches a rejection that is not clean): the      *)
(* group the argument above gives, each permutation of the pages composed  *)
(* with one of the permanent frames and one of the reconfigurable frames.  *)
(* Symmetry lists the three groups side by side, so TLC, which takes the   *)
(* smallest of a state's images under the permutations listed, merges two  *)
(* states only when one permutation of one kind maps one to the other;     *)
(* here any product does.  Sound by the same argument: each permutation    *)
(* maps a behaviour to a behaviour, and every safety property checked      *)
(* names no page or frame.  Never with a liveness property (TLC's symmetry *)
(* reduction is unsound for liveness).                                     *)
(***************************************************************************)
FrameSymmetry ==
    { [x \in Pages \cup Frames |->
          IF x \in Pages THEN pp[x] ELSE IF x \in Permanent THEN fp[x] ELSE rp[x]] :
        pp \in Permutations(Pages), fp \in Permutations(Permanent),
        rp \in Permutations(Reconfigurable) }

=============================================================================
