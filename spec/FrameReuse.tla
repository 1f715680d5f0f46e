----------------------------- MODULE FrameReuse -----------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What frame reuse promises; each promise   *)
(* is a property below with a THEOREM beside it naming the model whose     *)
(* .cfg checks it and the twin that fails it.                              *)
(*                                                                         *)
(*   Isolation. NoCrossGuestLeakInv: a reused frame shows no other guest's *)
(*       data, a logically zero page has "no associated frame or backed    *)
(*       content" and an unused one reads "preferably zero for security    *)
(*       reasons" (paper 2, 3).                                            *)
(*   No data loss. OwedContentKeptInv: reuse never costs a guest its own   *)
(*       content, S, "the host is responsible for preserving the page      *)
(*       content" (paper 2).                                               *)
(*   What CMMA gives the host. ResidencyBackingInv: a page holds exactly   *)
(*       the backing its residency names, so what the guest gives up       *)
(*       frees its frame and its saved copy, "at the same time the backing *)
(*       storage can be freed" (paper 2, D212).                            *)
(*                                                                         *)
(* TypeOK and FrameBacksOnePageInv check types and bookkeeping;            *)
(* FrameReuse has no step checks.                                          *)
(* FrameReuseInductive.tla proves NoCrossGuestLeakInv by an inductive      *)
(* invariant.                                                              *)
(***************************************************************************)
(***************************************************************************)
(* Guests cannot see each other through the host's frames.                 *)
(*                                                                         *)
(* Several guests share the host's real frames.  The host takes a frame   *)
(* from a guest page (it discards the page, steals it by paging it out,   *)
(* or the guest releases it, CMM1's Diagnose X'10') and later hands a free *)
(* frame to some guest page: to bring a preserved page back (the frame is *)
(* overwritten by that page's own saved content) or to give a logically   *)
(* zero page its fresh frame on first touch.  In the second case the frame *)
(* must be zeroed first: it may still hold another guest's data.  Seeds:  *)
(* the paper, section 2, "Logically zero (z): There is no associated frame *)
(* or backed content.  The content of the page is considered to be zero";  *)
(* [Z1]: HPMA "allows the machine to supply fresh backing page frames      *)
(* for guest memory when the guest reuses a previously discarded page".    *)
(*                                                                         *)
(* Content is abstracted to its writer (D23): a frame or a saved copy     *)
(* holds the name of the guest that last wrote it, or NoGuest for zeros.  *)
(* Page usage is left out: it only restricts which pages the host may     *)
(* take, and this host may take any resident page, so every host         *)
(* behaviour of the page-state machine is included (D24).                  *)
(***************************************************************************)
CONSTANTS
    \* @type: Set(GUEST);
    Guests,
    \* @type: GUEST;
    NoGuest,        \* the writer of zeros: content no guest wrote
    \* @type: Set(GPAGE);
    GuestPages,     \* each guest's pages (the same names in every guest)
    \* @type: Set(FRAME);
    Frames,         \* the host's real frames
    \* @type: FRAME;
    NoFrame

ASSUME NoGuest \notin Guests /\ NoFrame \notin Frames

VARIABLES
    \* @type: <<GUEST, GPAGE>> -> Str;
    resid,          \* "r" (has a frame), "p" (saved on host storage) or "z"
    \* @type: <<GUEST, GPAGE>> -> FRAME;
    backing,        \* the frame of a resident page, else NoFrame
    \* @type: <<GUEST, GPAGE>> -> GUEST;
    saved,          \* writer of a preserved page's saved copy (NoGuest when none)
    \* @type: FRAME -> GUEST;
    frameData,      \* writer of what a frame holds
    \* @type: { reader: GUEST, value: GUEST };
    lastRead,       \* the last guest read: who read, and whose content it saw
    \* @type: <<GUEST, GPAGE>> -> GUEST;
    content         \* ghost: the writer of what the page holds for its guest
                    \* (its last store since the page was last logically
                    \* zero; NoGuest for zeros).  No action reads it (D173).

vars == <<resid, backing, saved, frameData, lastRead, content>>

Slots == Guests \X GuestPages
FreeFrames == Frames \ {backing[s] : s \in Slots}

(***************************************************************************)
(* Guests.                                                                  *)
(***************************************************************************)
GuestWrite(g, q) ==
    /\ resid[<<g, q>>] = "r"
    /\ frameData' = [frameData EXCEPT ![backing[<<g, q>>]] = g]
    /\ content' = [content EXCEPT ![<<g, q>>] = g]
    /\ UNCHANGED <<resid, backing, saved, lastRead>>

GuestRead(g, q) ==
    /\ resid[<<g, q>>] = "r"
    /\ lastRead' = [reader |-> g, value |-> frameData[backing[<<g, q>>]]]
    /\ UNCHANGED <<resid, backing, saved, frameData, content>>

(***************************************************************************)
(* The host.                                                                *)
(***************************************************************************)

\* Steal: page out, then free the frame.  The frame keeps its bits.  What it
\* writes to auxiliary storage is the frame's content ("the host has written
\* the page contents to auxiliary swap storage").
HostSteal(g, q) ==
    /\ resid[<<g, q>>] = "r"
    /\ saved' = [saved EXCEPT ![<<g, q>>] = frameData[backing[<<g, q>>]]]
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "p"]
    /\ backing' = [backing EXCEPT ![<<g, q>>] = NoFrame]
    /\ UNCHANGED <<frameData, lastRead, content>>

\* Discard (U, V, clean P), or release by the guest (Diagnose X'10'): the
\* page becomes logically zero and the frame is free, its bits untouched.
\* The guest gave the content up (its usage allowed the discard, D25).  A
\* preserved page may be discarded too, and its saved copy is freed (paper,
\* section 2: the states Up, Vp and Pp, "the host can choose to remove
\* unused and volatile pages anytime", and a {S, V, P}p -> Uz transition
\* by which "at the same time the backing storage can be freed"; PageStates'
\* HostDiscard takes "r" and "p" pages, D212).  A logically zero page has
\* nothing to discard, and keeps nothing of its backing: neither its frame
\* nor a saved copy (D212).
HostDiscard(g, q) ==
    /\ resid[<<g, q>>] \in {"r", "p"}
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "z"]
    /\ backing' = [backing EXCEPT ![<<g, q>>] = NoFrame]
    /\ saved' = [saved EXCEPT ![<<g, q>>] = NoGuest]
    /\ content' = [content EXCEPT ![<<g, q>>] = NoGuest]
    /\ UNCHANGED <<frameData, lastRead>>

\* A preserved page comes back into any free frame, overwritten whole by the
\* page's own saved copy.
HostPageIn(g, q) ==
    /\ resid[<<g, q>>] = "p"
    /\ \E f \in FreeFrames :
        /\ backing' = [backing EXCEPT ![<<g, q>>] = f]
        /\ frameData' = [frameData EXCEPT ![f] = saved[<<g, q>>]]
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "r"]
    /\ saved' = [saved EXCEPT ![<<g, q>>] = NoGuest]
    /\ UNCHANGED <<lastRead, content>>

\* First touch of a logically zero page: any free frame, zeroed (NoGuest: the
\* content a frame handed to a logically zero page starts with, D25).
HostZeroFill(g, q) ==
    /\ resid[<<g, q>>] = "z"
    /\ \E f \in FreeFrames :
        /\ backing' = [backing EXCEPT ![<<g, q>>] = f]
        /\ frameData' = [frameData EXCEPT ![f] = NoGuest]
    /\ resid' = [resid EXCEPT ![<<g, q>>] = "r"]
    /\ UNCHANGED <<saved, lastRead, content>>

\* Every page starts logically zero (Sz, D2 of the page-state machine), and
\* the frames hold whatever: here, data of the first guest is the worst case,
\* so every frame starts with some guest's data in it.
Init ==
    /\ resid = [s \in Slots |-> "z"]
    /\ backing = [s \in Slots |-> NoFrame]
    /\ saved = [s \in Slots |-> NoGuest]
    /\ frameData \in [Frames -> Guests]
    /\ lastRead = [reader |-> NoGuest, value |-> NoGuest]
    /\ content = [s \in Slots |-> NoGuest]

Next ==
    \E g \in Guests, q \in GuestPages :
        \/ GuestWrite(g, q) \/ GuestRead(g, q)
        \/ HostSteal(g, q) \/ HostDiscard(g, q) \/ HostPageIn(g, q) \/ HostZeroFill(g, q)

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Properties.                                                              *)
(***************************************************************************)
TypeOK ==
    /\ resid \in [Slots -> {"r", "p", "z"}]
    /\ backing \in [Slots -> Frames \cup {NoFrame}]
    /\ saved \in [Slots -> Guests \cup {NoGuest}]
    /\ frameData \in [Frames -> Guests \cup {NoGuest}]
    /\ lastRead.reader \in Guests \cup {NoGuest}
    /\ lastRead.value \in Guests \cup {NoGuest}
    /\ content \in [Slots -> Guests \cup {NoGuest}]

\* A frame backs at most one page at a time (else two guests would share it
\* by construction, not by reuse).
FrameBacksOnePageInv ==
    \A s, t \in Slots : (s # t /\ backing[s] # NoFrame) => backing[s] # backing[t]

(***************************************************************************)
(* NoCrossGuestLeakInv.  No content written by one guest is ever read by   *)
(* another: a guest reads zeros or what it wrote itself.  Paper, section  *)
(* 2: a logically zero page has "no associated frame or backed content.   *)
(* The content of the page is considered to be zero"; section 3: an       *)
(* arbitrary value for an unused page is allowed, but "preferably zero for *)
(* security reasons".                                                      *)
(***************************************************************************)
NoCrossGuestLeakInv ==
    lastRead.reader \in Guests => lastRead.value \in {lastRead.reader, NoGuest}
\* Contract (isolation).  MCFrameReuse_TwoGuests (inductively MCFrameReuseInductive_TwoGuests);
\* twin MCFrameReuse_Twin_NotZeroed.
THEOREM Spec => []NoCrossGuestLeakInv

(***************************************************************************)
(* OwedContentKeptInv.  Reusing frames never costs a guest its own         *)
(* content: a page holds what its guest last stored, until the guest gives *)
(* it up (a discard).  The paper, section 2: "Resident (r): The page is    *)
(* assigned to a backing frame in host memory"; "Preserved (p): No frame   *)
(* is associated; the host has written the page contents to auxiliary swap *)
(* storage"; "Stable (S): ... the host is responsible for preserving the   *)
(* page content" (D173).                                                   *)
(***************************************************************************)
OwedContentKeptInv ==
    \A s \in Slots :
        /\ resid[s] = "r" => frameData[backing[s]] = content[s]
        /\ resid[s] = "p" => saved[s] = content[s]
\* Contract (no data loss).  MCFrameReuse_TwoGuests; twin MCFrameReuse_Twin_StealNotWritten.
THEOREM Spec => []OwedContentKeptInv

(***************************************************************************)
(* ResidencyBackingInv.  Frames and saved copies are conserved: a page     *)
(* holds exactly the backing its residency names, nothing more.  Paper,    *)
(* section 2: "Resident (r): The page is assigned to a backing frame in    *)
(* host memory"; "Preserved (p): No frame is associated; the host has      *)
(* written the page contents to auxiliary swap storage"; "Logically zero   *)
(* (z): There is no associated frame or backed content"; and of a          *)
(* preserved page that becomes Uz, "at the same time the backing storage   *)
(* can be freed" (D212).  So a page that becomes logically zero has given  *)
(* its frame back for reuse and its saved copy up (this state invariant    *)
(* holds in every discard's new state, so no step property is needed for  *)
(* it), and a page the host has paged out keeps no frame either: a frame   *)
(* kept by a                                                               *)
(* preserved page is lost to every guest, which no other property sees.    *)
(* A resident page may or may not still have a copy (the paper does not    *)
(* say, and z/VM keeps slot copies of resident pages, [Z3]).               *)
(***************************************************************************)
ResidencyBackingInv ==
    \A s \in Slots :
        /\ (backing[s] # NoFrame) = (resid[s] = "r")
        /\ resid[s] = "z" => saved[s] = NoGuest
\* Contract (what CMMA gives the host).  MCFrameReuse_TwoGuests; twins MCFrameReuse_Twin_FrameKept,
\* MCFrameReuse_Twin_StealKeepsFrame, MCFrameReuse_Twin_SavedCopyKept.
THEOREM Spec => []ResidencyBackingInv

\* Witnesses (model/manifest.json, D130): what each property is about, which the
\* model that checks it must reach; a state for an invariant, a step for a Prop.
FrameBacksAPage == \E s \in Slots : backing[s] # NoFrame
SomeGuestRead   == lastRead.reader \in Guests
\* A saved copy of a guest's content (only a preserved page has one), which a
\* page-in must bring back.
ContentPreserved == \E s \in Slots : saved[s] \in Guests

=============================================================================
