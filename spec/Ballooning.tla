----------------------------- MODULE Ballooning ------------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What ballooning promises; each promise is *)
(* a property of BallooningProperties.tla with a THEOREM beside it naming  *)
(* the model whose .cfg checks it and the twin that fails it.              *)
(*                                                                         *)
(*   No data loss. OwedContentKeptInv: memory is taken only through the    *)
(*       guest, "The guests can then take appropriate action to reduce     *)
(*       their memory utilization" ([Z1]).                                 *)
(*   Isolation. UnbackedReadsZeroInv: a page without a frame has "no       *)
(*       associated frame or backed content" (paper 2).                    *)
(*   What ballooning gives the host. ReleasedFrameReturnedInv: the guests  *)
(*       "release page frames" ([Z1]).                                     *)
(*   What the guest is asked. FloorInv: VMRM "will not ask a Linux guest   *)
(*       to shrink below 64 MB" ([Z1]): every SHRINK target is a balloon   *)
(*       the guest can hold above its floor.                               *)
(*   Progress. ShrinkMetProp, under FairSpec: without the net guests "used *)
(*       excessive CPU time trying to find even more storage to give up"   *)
(*       ([Z1]); with it the balloon reaches its target.                   *)
(*                                                                         *)
(* BalloonedPagesUnusedInv restates the release step; TypeOK checks        *)
(* types.                                                                  *)
(***************************************************************************)
(***************************************************************************)
(* CMM1: cooperative memory management by ballooning, VMRM-CMM on z/VM     *)
(* (docs/sources.md [Z1]; the paper [P], section 5).                       *)
(*                                                                         *)
(* "VMRM-CMM uses a ballooning technique implemented in Linux.  When VMRM  *)
(* detects a system-wide memory constraint, it notifies the participating  *)
(* Linux guests to release page frames.  Linux releases the page frames    *)
(* by issuing the Diagnose X'10' function call."  "When the system         *)
(* constraint goes away, VMRM notifies those guests that more memory can   *)
(* now be used."  Since z/VM 5.4 (APAR VM64439) "VMRM ... will not ask a   *)
(* Linux guest to shrink below 64 MB" (the safety net).                    *)
(*                                                                         *)
(* The model: each guest has Size pages.  A page is in use by the guest    *)
(* (it holds data the guest needs) or free in its allocator, and may be in *)
(* the balloon (taken by the CMM driver and released to the host).  VMRM   *)
(* sets each guest's target (SHRINK: the number of pages the balloon       *)
(* should hold), up and down.  The driver inflates the balloon towards the *)
(* target by taking a free page and releasing it with Diagnose X'10'       *)
(* (the host takes the frame back), and deflates it by giving pages back   *)
(* to the allocator (a later touch gets a fresh frame from the host).  The *)
(* guest's kernel frees pages it uses when the balloon needs them (it      *)
(* writes them to its own swap or drops clean cache: the content is no     *)
(* longer needed in memory) and otherwise uses and frees pages at will.    *)
(* Which frame backs a page, and what frames hold after release, is        *)
(* FrameReuse.tla's concern (frames are zeroed before reuse); here a page  *)
(* is backed or not (D71).                                                 *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

CONSTANTS
    \* @type: Set(GUEST);
    Guests,
    \* @type: Set(GPAGE);
    GuestPages,     \* each guest's pages (the same names in every guest)
    \* @type: Int;
    Floor,          \* the safety net, in pages: "64 MB" (D70)
    \* @type: Set(Int);
    Values          \* page contents; 0 is a fresh frame's

VARIABLES
    \* @type: <<GUEST, GPAGE>> -> Bool;
    inUse,      \* the guest uses the page: it holds data the guest needs
    \* @type: <<GUEST, GPAGE>> -> Bool;
    ballooned,  \* the CMM driver holds the page: released to the host
    \* @type: <<GUEST, GPAGE>> -> Bool;
    backed,     \* a host frame backs the page
    \* @type: <<GUEST, GPAGE>> -> Int;
    data,       \* what the guest reads from the page (0 when not backed)
    \* @type: <<GUEST, GPAGE>> -> Int;
    owed,       \* ghost: what the guest stored and still needs; NoValue if nothing
    \* @type: GUEST -> Int;
    target      \* VMRM's SHRINK target: pages the balloon should hold

vars == <<inUse, ballooned, backed, data, owed, target>>

GP      == Guests \X GuestPages
Size    == Cardinality(GuestPages)
NoValue == -1
Zero    == 0

ASSUME Floor \in 0..Size
ASSUME Zero \in Values /\ \A v \in Values : v >= 0

Balloon(g)  == Cardinality({p \in GuestPages : ballooned[<<g, p>>]})
FreePage(g, p) == ~inUse[<<g, p>>] /\ ~ballooned[<<g, p>>]

(***************************************************************************)
(* VMRM.                                                                   *)
(***************************************************************************)

\* "it notifies the participating Linux guests to release page frames";
\* "VMRM notifies those guests that more memory can now be used".  Its request
\* comes from the constraint it sees (any n: D72), with the safety net: "it
\* will not ask a Linux guest to shrink below 64 MB".
SetTarget(g, n) ==
    /\ target' = [target EXCEPT ![g] = IF n > Size - Floor THEN Size - Floor ELSE n]
    /\ target'[g] # target[g]
    /\ UNCHANGED <<inUse, ballooned, backed, data, owed>>

(***************************************************************************)
(* The guest's CMM driver.                                                 *)
(***************************************************************************)

\* Inflate: take a page and release it with Diagnose X'10'; the host takes
\* its frame back and its content is gone.  The guest cannot give pages
\* below what it needs to run: "the minimum recommended virtual machine
\* size" ([Z1]) is the floor (D70).  With VMRM's safety net that guard is
\* implied by the first (Balloon(g) < target[g] <= Size - Floor, FloorInv);
\* it is the guest's own limit, which the twin without the safety net
\* (MCBallooning_Twin_Spinning) needs, and is kept for it (D172).
\* The page released is one the driver took from the allocator, so no one
\* else uses it (FreePage); it does not keep its host frame, since giving the
\* frame back is what the release is for, and with the frame gone nothing of
\* what it held is read (D71: a page that is not backed reads 0).
Inflate(g, p) ==
    /\ Balloon(g) < target[g]
    /\ Size - Balloon(g) > Floor
    /\ FreePage(g, p)
    /\ ballooned' = [ballooned EXCEPT ![<<g, p>>] = TRUE]
    /\ backed' = [backed EXCEPT ![<<g, p>>] = FALSE]
    /\ data' = [data EXCEPT ![<<g, p>>] = Zero]
    /\ UNCHANGED <<inUse, owed, target>>

\* Deflate: give a page back to the allocator ("more memory can now be
\* used").  It has no frame until the guest touches it.  (On a page not in
\* the balloon the step would change nothing: the second guard only keeps
\* the action from naming stuttering steps, D172.)
Deflate(g, p) ==
    /\ Balloon(g) > target[g]
    /\ ballooned[<<g, p>>]
    /\ ballooned' = [ballooned EXCEPT ![<<g, p>>] = FALSE]
    /\ UNCHANGED <<inUse, backed, data, owed, target>>

(***************************************************************************)
(* The rest of the guest.                                                  *)
(***************************************************************************)

\* Allocate a free page and store to it: the touch gets a frame if the page
\* has none (a fresh one, reading 0), then the store.
Use(g, p, v) ==
    /\ FreePage(g, p)
    /\ inUse' = [inUse EXCEPT ![<<g, p>>] = TRUE]
    /\ backed' = [backed EXCEPT ![<<g, p>>] = TRUE]
    /\ data' = [data EXCEPT ![<<g, p>>] = v]
    /\ owed' = [owed EXCEPT ![<<g, p>>] = v]
    /\ UNCHANGED <<ballooned, target>>

Write(g, p, v) ==
    /\ inUse[<<g, p>>]
    /\ data' = [data EXCEPT ![<<g, p>>] = v]
    /\ owed' = [owed EXCEPT ![<<g, p>>] = v]
    /\ UNCHANGED <<inUse, ballooned, backed, target>>

\* The guest stops using a page (its content is written to the guest's own
\* swap, or was clean cache, or is garbage): nothing in it is needed now.
Free(g, p) ==
    /\ inUse[<<g, p>>]
    /\ inUse' = [inUse EXCEPT ![<<g, p>>] = FALSE]
    /\ owed' = [owed EXCEPT ![<<g, p>>] = NoValue]
    /\ UNCHANGED <<ballooned, backed, data, target>>

Init ==
    /\ inUse = [gp \in GP |-> FALSE]
    /\ ballooned = [gp \in GP |-> FALSE]
    /\ backed = [gp \in GP |-> FALSE]
    /\ data = [gp \in GP |-> Zero]
    /\ owed = [gp \in GP |-> NoValue]
    /\ target = [g \in Guests |-> 0]

Next ==
    \/ \E g \in Guests, n \in 0..Size : SetTarget(g, n)
    \/ \E g \in Guests, p \in GuestPages :
          \/ Inflate(g, p) \/ Deflate(g, p)
          \/ \E v \in Values : Use(g, p, v) \/ Write(g, p, v)
          \/ Free(g, p)

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Fairness (D73): the CMM driver of every guest keeps running (it is a    *)
(* kernel thread that VMRM's notification wakes), so inflating and         *)
(* deflating towards the target and the reclaim that makes room for the    *)
(* balloon are weakly fair; the balloon's page allocation is strongly fair *)
(* (the guest's other allocations may take a freed page first, but not     *)
(* every time).  Nothing is assumed of VMRM or of the guest's own use of   *)
(* memory.                                                                 *)
(*                                                                         *)
(* The reclaim: when the balloon is short of its target, may still grow    *)
(* above the floor, and no page is free, the kernel frees a page it uses   *)
(* (Linux: the balloon's allocation enters page reclaim).  It is no step   *)
(* of its own: the freeing is Free, which the guest may take at any time.  *)
(* The condition says only when the kernel must take it, so it is the      *)
(* premise of a fairness assumption, written here (D172).                  *)
(***************************************************************************)
FairSpec ==
    /\ Spec
    /\ \A g \in Guests :
          /\ SF_vars(\E p \in GuestPages : Inflate(g, p))
          /\ WF_vars(\E p \in GuestPages : Deflate(g, p))
          /\ WF_vars(/\ Balloon(g) < target[g]
                     /\ Size - Balloon(g) > Floor
                     /\ \A q \in GuestPages : ~FreePage(g, q)
                     /\ \E p \in GuestPages : Free(g, p))

=============================================================================
