----------------------------- MODULE HostReclaim -----------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What the z/VM reclaim policy promises;    *)
(* each promise is a property of HostReclaimProperties.tla with a THEOREM  *)
(* beside it naming the model whose .cfg checks it and the twin that fails *)
(* it.                                                                     *)
(*                                                                         *)
(*   Refinement. RefinesPageStates: the policy is one host of the z/VM     *)
(*       machine, which "uses a simplified state machine" (paper 4); so it *)
(*       keeps every promise of PageStates.tla, checked here again:        *)
(*       StableContentKeptInv (no data loss), ReadResultInv and            *)
(*       DiscardFaultOnlyWhenDiscardedInv (right answers), UnusedAccessInv *)
(*       and GuestKeepsResidencyProp (isolation),                          *)
(*       HostDiscardsOnlyDiscardableProp (discard only when allowed).      *)
(*   What CMMA saves. DiscardableNeverWrittenProp: "CP does not write      *)
(*       volatile pages" ([Z1]).  UnchangedPageNotRewrittenProp: "Pages    *)
(*       valid on DASD are not rewritten" ([Z3]), the operator's I/O.      *)
(*   Progress. WaitingAccessServedProp of PageStates.tla, under FairSpec:  *)
(*       an access that waits for the host completes although every frame  *)
(*       is in use, "If a TYPE=ANY low threshold is breached, demand scan  *)
(*       is kicked off" ([Z3]).  Under a faulty guest the host still       *)
(*       reclaims: HostProgressProp of GuestHostAtomicityProperties.tla.   *)
(*   What the guest is owed. RefinesGuestMemory of                         *)
(*       HostReclaimRefinesGuestMemory.tla, with its THEOREM: the policy   *)
(*       implements the guest's view of its memory (GuestMemory.tla) under *)
(*       a mapping that reads no ghost.                                    *)
(*                                                                         *)
(* The ghosts intended, modified and requested are PageStates', written    *)
(* by PageStates' own actions (its guest steps, conjoined here) from what  *)
(* the guest asks and is answered: none of the policy's steps writes them, *)
(* and RefinesGuestMemory reads none of them, so                           *)
(* the policy's bookkeeping (slots, the host change bit) cannot excuse a   *)
(* loss.  The ghost copied is written from the paging I/O, the guest's     *)
(* stores and the page state, never from the slots or the host change bit, *)
(* so the same bookkeeping cannot excuse a write it spends again (D430).   *)
(*                                                                         *)
(* The other properties restate the policy's steps (slots, early writes,   *)
(* revalidation, the steal order, faults on a touch, the scan under        *)
(* pressure) or check types and bookkeeping (TypeOK, ReclaimTypeOK,        *)
(* FrameBudgetInv, SlotCoherentInv).                                       *)
(***************************************************************************)
(***************************************************************************)
(* Host reclaim as z/VM does it, on top of the page-state machine of       *)
(* PageStates.tla in the z/VM profile (paper Figure 3: Variant             *)
(* "ZVMPrototype", guest primitives through a host service, an access to   *)
(* an unused page is an addressing exception).                             *)
(*                                                                         *)
(* The guest is PageStates' guest, unchanged: every guest action below is  *)
(* the PageStates action of the same name, conjoined with the policy's     *)
(* bookkeeping.  The host is no longer PageStates' unconstrained host      *)
(* (HostNext, which may preserve, discard or page in any page at any       *)
(* time) but the z/VM policy:                                              *)
(*   - demand scan ([Z3] "z/VM 6.3: Changes in Memory Management"):        *)
(*     while too few frames are free it pushes in-use frames onto the top  *)
(*     of the global aging list, invalidating them but keeping their       *)
(*     content (trial invalidation, TrialInvalidate);                      *)
(*   - a touch of such a frame revalidates it without I/O (Revalidate);    *)
(*   - changed pages are written early, from the bottom of the list up     *)
(*     (EarlyWrite);                                                       *)
(*   - a frame is stolen in the CMMA order (paper section 4, [Z1]):        *)
(*     unused pages first, then volatile and clean potentially-volatile    *)
(*     pages, both discarded without I/O (StealDiscard), and only then a   *)
(*     stable or dirty page from the bottom of the aging list, written to  *)
(*     its paging slot unless the slot copy is still valid (StealPageOut); *)
(*   - a page fault is resolved by reading the slot (FaultPageIn) or by a  *)
(*     fresh zero frame (FaultZeroFill), when a frame is free.             *)
(*                                                                         *)
(* Every host step that changes the page state records in lastOp the       *)
(* PageStates host action it claims to be (HostDiscard, HostPreserve,      *)
(* HostPageIn, HostZeroFill), but computes its effect from the policy's    *)
(* own state (the paging slot, the host change bit), not by conjoining     *)
(* PageStates' action: a policy that brought back a stale slot would then  *)
(* silently disable the step instead of losing data, and no broken twin    *)
(* could show it (D50).  RefinesPageStates (HostReclaimProperties.tla)     *)
(* checks that every step is the PageStates step it claims to be.  Policy  *)
(* steps that change no page state (TrialInvalidate, Revalidate,           *)
(* EarlyWrite) leave lastOp alone: for PageStates they are stuttering.     *)
(*                                                                         *)
(* Decisions D50-D59 are in docs/decisions.md.                             *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    \* @type: Set(PAGE);
    Pages,
    \* @type: PAGE;
    NoPage,
    \* @type: Set(Int);
    Values,
    \* @type: Int;
    Frames,         \* host frames available for this guest's pages (D51)
    \* @type: Int;
    LowThreshold,   \* demand scan runs while fewer frames than this are free
    \* @type: Bool;
    EarlyWrites     \* CP SET AGELIST EARLYWRITES: "Whether early writes are allowed"

VARIABLES
    \* The page-state machine's variables (PageStates.tla).
    \* @type: PAGE -> Str;
    usage,
    \* @type: PAGE -> Str;
    resid,
    \* @type: PAGE -> Bool;
    dirty,      \* the guest's change bit (PageStates: the "page dirty bit")
    \* @type: PAGE -> Int;
    data,       \* the frame's content (r), the paging slot's (p), 0 (z)
    \* @type: PAGE -> Int;
    intended,
    \* @type: PAGE -> Bool;
    modified,
    \* @type: PAGE -> Str;
    requested,
    \* @type: { op: Str, page: PAGE, arg: Int, outcome: Str, value: Int };
    lastOp,
    \* The policy's variables.
    \* @type: Seq(PAGE);
    aging,      \* the global aging list, top first: trial-invalidated frames (D52)
    \* @type: PAGE -> Int;
    slot,       \* the content of the page's paging slot; NoValue: no slot (D53)
    \* @type: PAGE -> Bool;
    hchanged,   \* host change bit: stored to since the slot copy was made (D54)
    \* @type: { kind: Str, page: PAGE };
    io,         \* the paging I/O the last step did: "none", "read" or "write"
    \* The host operator's ghost (D430).
    \* @type: PAGE -> Bool;
    copied      \* paging storage holds the page's content: no store since the host wrote or read it

\* The z/VM profile of the page-state machine (paper Figure 3; D9 and D3 of
\* docs/decisions.md).
PS == INSTANCE PageStates
        WITH Variant <- "ZVMPrototype", HostService <- TRUE,
             UnusedAccess <- "AddressingException"

\* The page-state variables (PageStates' vars; a local tuple, because TLC 2.18
\* cannot evaluate UNCHANGED of an instantiated definition).
vars       == <<usage, resid, dirty, data, intended, modified, requested, lastOp>>
policyVars == <<aging, slot, hchanged, io>>
allVars    == <<usage, resid, dirty, data, intended, modified, requested, lastOp,
                aging, slot, hchanged, io, copied>>

NoValue == PS!NoValue
Zero    == PS!Zero
NoIO    == [kind |-> "none", page |-> NoPage]
IOKinds == {"none", "read", "write"}

ASSUME Frames \in Nat /\ Frames >= 1
ASSUME LowThreshold \in Nat /\ LowThreshold >= 1
ASSUME EarlyWrites \in BOOLEAN

FreeFrames == Frames - Cardinality({p \in Pages : resid[p] = "r"})

\* "If a TYPE=ANY low threshold is breached, demand scan is kicked off."
Pressure == FreeFrames < LowThreshold

\* The aging list is ranged over by its DOMAIN, which for a sequence is
\* 1..Len(aging): Apalache takes a range only between constants, and builds
\* DOMAIN of a sequence from the list's bound (D200).
OnAgingList(p) == \E i \in DOMAIN aging : aging[i] = p
Without(s, p)  == SelectSeq(s, LAMBDA q : q # p)

(***************************************************************************)
(* The policy's decisions that several steps share.  The broken twins      *)
(* (model/MCHostReclaim_Twins.tla) replace one of them, or override the    *)
(* step they break with a copy of it (D355).                               *)
(***************************************************************************)

\* Which pass of the demand scan takes a page (D55).  Paper, section 4:
\* "unused pages are unconditionally selected on the first pass, and
\* volatile pages are unconditionally selected on the second pass,
\* regardless of the current selection criteria"; [Z1]: "CP can
\* preferentially steal unused, volatile, and not dirty potentially
\* volatile pages"; a dirty P page "CP handles ... like a stable page".
StealClass(u, d) ==
    IF u = "U" THEN 1
    ELSE IF u = "V" \/ (u = "P" /\ ~d) THEN 2
    ELSE 3

\* The slot copy is still the page's content (D54): [Z3] "A page not
\* changed since last read from DASD is almost never rewritten".  Judged by
\* the host's own change bit, never by the guest's.
SlotValid(p) == slot[p] # NoValue /\ ~hchanged[p]

\* The paging slot of a page whose content is dropped is freed (D53).
SlotAfterDiscard(p) == NoValue

\* A stolen frame leaves the aging list.
AgingAfterSteal(p) == Without(aging, p)

\* Whether a guest access to p faults (D222): trial invalidation sets the
\* PTE's invalid bit, and [Z3] "A touch will cause a page fault", so every
\* access to a frame on the aging list faults and waits for Revalidate.
AccessFaults(p) == OnAgingList(p)

(***************************************************************************)
(* The guest: PageStates' guest actions, each with the policy's            *)
(* bookkeeping.  A store sets the host change bit (the frame's change bit  *)
(* in the real storage key, which the hardware sets on every store; kept   *)
(* only while the page has a slot, D54).  An implicit host discard of a    *)
(* guest primitive ({S,V,P}p -> Uz, Sp -> Vz) frees the paging slot.  A    *)
(* read or write of a trial-invalidated frame faults ("A touch will cause  *)
(* a page fault") and is retried after Revalidate (D57).                   *)
(***************************************************************************)
\* (A guest primitive makes only a preserved page logically zero, D3, and a
\* preserved page's host bit is already clear: the THEN branch's hchanged
\* update is kept for the twins that keep the slot, D225.)
AfterPrimitive(p) ==
    /\ IF resid'[p] = "z" /\ resid[p] # "z"
       THEN /\ slot' = [slot EXCEPT ![p] = SlotAfterDiscard(p)]
            /\ hchanged' = [hchanged EXCEPT ![p] = IF slot'[p] = NoValue THEN FALSE ELSE @]
       ELSE UNCHANGED <<slot, hchanged>>
    /\ io' = NoIO
    /\ UNCHANGED aging

AfterAccess(p) ==
    /\ hchanged' = IF lastOp'.outcome = "Done" /\ lastOp'.op = "Write" /\ slot[p] # NoValue
                   THEN [hchanged EXCEPT ![p] = TRUE] ELSE hchanged
    /\ io' = NoIO
    /\ UNCHANGED <<aging, slot>>

SetStable(p)               == PS!SetStable(p) /\ AfterPrimitive(p)
SetUnused(p)               == PS!SetUnused(p) /\ AfterPrimitive(p)
SetVolatile(p)             == PS!SetVolatile(p) /\ AfterPrimitive(p)
SetPotentialVolatile(p)    == PS!SetPotentialVolatile(p) /\ AfterPrimitive(p)
SetStableIfNotDiscarded(p) == PS!SetStableIfNotDiscarded(p) /\ AfterPrimitive(p)
Extract(p)                 == PS!Extract(p) /\ AfterPrimitive(p)
ClearDirty(p)              == PS!ClearDirty(p) /\ AfterPrimitive(p)
Read(p)                    == ~AccessFaults(p) /\ PS!Read(p) /\ AfterAccess(p)
Write(p, v)                == ~AccessFaults(p) /\ PS!Write(p, v) /\ AfterAccess(p)

(***************************************************************************)
(* The host: the z/VM policy.                                              *)
(***************************************************************************)

\* Demand scan: "Keep the PTE intact but set the 'invalid' bit; Leave the
\* frame contents intact" and "Demand scan fills it from the top".
TrialInvalidate(p) ==
    /\ Pressure
    /\ resid[p] = "r"
    /\ ~OnAgingList(p)
    /\ aging' = <<p>> \o aging
    /\ io' = NoIO
    /\ UNCHANGED <<vars, slot, hchanged>>

\* "On a fault, there is nothing really to do except: Clear the 'invalid'
\* bit; Move the frame to the front of the frame list"; "Revalidated pages
\* return to their owned lists".  No I/O: the content comes from the frame,
\* kept intact by trial invalidation ("Leave the frame contents intact").
Revalidate(p) ==
    /\ OnAgingList(p)
    /\ aging' = Without(aging, p)
    /\ io' = NoIO
    /\ UNCHANGED <<usage, resid, dirty, data, intended, modified, requested, lastOp, slot, hchanged>>

\* A page of the aging list that needs writing before its frame can be
\* reclaimed without I/O: its slot copy is not valid, and it is a changed
\* page whose content must be kept (D56; [Z1]: "CP does not write volatile
\* pages").
NeedsEarlyWrite(q) == ~SlotValid(q) /\ (usage[q] = "S" \/ (usage[q] = "P" /\ dirty[q]))

\* "We pre-write changed pages up from the bottom of the list": the lowest
\* such page.  The host change bit is reset as the write starts; the frame
\* is invalid meanwhile, so a store after a revalidation sets it again: the
\* copy written is the page's content, which the host trusts until the next
\* store ([Z3]: "Pages valid on DASD are not rewritten").  The guest's
\* change bit is left alone: the host has its own.  Only while CP SET
\* AGELIST EARLYWRITES allows it ([Z3]: "Sets whether early writes are
\* allowed").  The write is one step (D56).
EarlyWrite(p) ==
    /\ EarlyWrites
    /\ LET due == SelectSeq(aging, NeedsEarlyWrite)
       IN  Len(due) > 0 /\ p = due[Len(due)]
    /\ slot' = [slot EXCEPT ![p] = data[p]]
    /\ hchanged' = [hchanged EXCEPT ![p] = FALSE]
    /\ io' = [kind |-> "write", page |-> p]
    /\ UNCHANGED <<usage, resid, dirty, data, intended, modified, requested, lastOp, aging>>

\* The page p is of the lowest class among the resident pages.
FirstInStealOrder(p) ==
    \A q \in Pages : resid[q] = "r" =>
        StealClass(usage[q], dirty[q]) >= StealClass(usage[p], dirty[p])

\* Steal an unused, volatile or clean potentially-volatile page: its content
\* is dropped, no I/O ("reclaim the page frames without the overhead of
\* paging out their data content").  Taken wherever it is, on or off the
\* aging list ("regardless of the current selection criteria").  The
\* effect is PageStates' HostDiscard (the collapsed machine turns P into V).
StealDiscard(p) ==
    /\ Pressure
    /\ resid[p] = "r"
    /\ StealClass(usage[p], dirty[p]) \in {1, 2}
    /\ FirstInStealOrder(p)
    /\ usage' = [usage EXCEPT ![p] = PS!Discard(@).u]
    /\ resid' = [resid EXCEPT ![p] = "z"]
    /\ dirty' = [dirty EXCEPT ![p] = FALSE]
    /\ data'  = [data EXCEPT ![p] = Zero]
    /\ PS!Record("HostDiscard", p, NoValue, "Done", NoValue)
    /\ aging' = AgingAfterSteal(p)
    /\ slot' = [slot EXCEPT ![p] = SlotAfterDiscard(p)]
    /\ hchanged' = [hchanged EXCEPT ![p] = FALSE]
    /\ io' = NoIO
    /\ UNCHANGED <<intended, modified, requested>>

\* Steal a stable or dirty page: the bottom of the aging list ("Best reclaim
\* candidates are at the bottom"), written to its slot unless the slot copy
\* is valid ("Pages valid on DASD are not rewritten"; "Pages are rewritten
\* to the same slots").  A dirty P page becomes Sp ("the host needs to
\* preserve the page and will set the combined target state to Sp").  What
\* a later page-in brings back is the slot, so that is the page's content
\* from now on.
StealPageOut(p) ==
    /\ Pressure
    /\ Len(aging) > 0
    /\ p = aging[Len(aging)]
    /\ StealClass(usage[p], dirty[p]) = 3
    /\ FirstInStealOrder(p)
    /\ LET write == ~SlotValid(p)
           copy  == IF write THEN data[p] ELSE slot[p]
       IN  /\ slot' = [slot EXCEPT ![p] = copy]
           /\ data' = [data EXCEPT ![p] = copy]
           /\ io' = IF write THEN [kind |-> "write", page |-> p] ELSE NoIO
    /\ usage' = [usage EXCEPT ![p] = IF @ = "P" THEN "S" ELSE @]
    /\ resid' = [resid EXCEPT ![p] = "p"]
    /\ PS!Record("HostPreserve", p, NoValue, "Done", NoValue)
    /\ aging' = AgingAfterSteal(p)
    /\ hchanged' = [hchanged EXCEPT ![p] = FALSE]
    /\ UNCHANGED <<dirty, intended, modified, requested>>

\* A fault on a preserved page: read the slot into a free frame.  The slot
\* stays allocated and valid until the page is changed again.  The change
\* bit survives paging (D6 of docs/decisions.md).  A fault is resolved only
\* into a free frame (D51): the page-in waits until the demand scan has
\* freed one.
FaultPageIn(p) ==
    /\ FreeFrames > 0
    /\ resid[p] = "p"
    /\ usage[p] # "U"
    /\ resid' = [resid EXCEPT ![p] = "r"]
    /\ data'  = [data EXCEPT ![p] = slot[p]]
    /\ dirty' = [dirty EXCEPT ![p] = PS!PageInDirty(@)]
    /\ hchanged' = [hchanged EXCEPT ![p] = FALSE]
    /\ io' = [kind |-> "read", page |-> p]
    /\ PS!Record("HostPageIn", p, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, intended, modified, requested, aging, slot>>

\* A fault on a logically zero stable page: a fresh zero frame (HPMA:
\* "supply fresh backing page frames for guest memory"), no slot yet.
FaultZeroFill(p) ==
    /\ FreeFrames > 0
    /\ resid[p] = "z"
    /\ usage[p] = "S"
    /\ resid' = [resid EXCEPT ![p] = "r"]
    /\ data'  = [data EXCEPT ![p] = Zero]
    /\ dirty' = [dirty EXCEPT ![p] = FALSE]
    /\ hchanged' = [hchanged EXCEPT ![p] = FALSE]
    /\ io' = NoIO
    /\ PS!Record("HostZeroFill", p, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, intended, modified, requested, aging, slot>>

Init ==
    /\ PS!Init
    /\ aging = <<>>
    /\ slot = [p \in Pages |-> NoValue]
    /\ hchanged = [p \in Pages |-> FALSE]
    /\ io = NoIO
    /\ copied = [p \in Pages |-> FALSE]

GuestNext ==
    \E p \in Pages :
        \/ SetStable(p) \/ SetUnused(p) \/ SetVolatile(p)
        \/ SetPotentialVolatile(p) \/ SetStableIfNotDiscarded(p)
        \/ Extract(p) \/ Read(p) \/ ClearDirty(p)
        \/ \E v \in Values : Write(p, v)

HostNext ==
    \E p \in Pages :
        \/ TrialInvalidate(p) \/ Revalidate(p) \/ EarlyWrite(p)
        \/ StealDiscard(p) \/ StealPageOut(p)
        \/ FaultPageIn(p) \/ FaultZeroFill(p)

(***************************************************************************)
(* The ghost copied, for the host operator's promise that a page whose     *)
(* content is already on paging storage is not written there again         *)
(* (UnchangedPageNotRewrittenProp, HostReclaimProperties.tla; D430).  It   *)
(* is written only from what the operator sees: the paging I/O of the      *)
(* step (io: a write or a read of the page leaves paging storage holding   *)
(* its content), the guest's own stores (a Write the guest completed, as   *)
(* lastOp records it), and the page state (a page logically zero has no    *)
(* content to keep).  It never reads the policy's bookkeeping (the slots,  *)
(* the host change bit, the aging list), so a policy that loses track of a *)
(* valid copy cannot excuse the I/O it spends again.                       *)
(***************************************************************************)
CopiedNext(guest) ==
    copied' = [q \in Pages |->
                 IF io'.kind # "none" /\ io'.page = q THEN TRUE
                 ELSE IF resid'[q] = "z" THEN FALSE
                 ELSE IF /\ guest /\ lastOp'.page = q
                         /\ lastOp'.op = "Write" /\ lastOp'.outcome = "Done" THEN FALSE
                 ELSE copied[q]]

Next == (GuestNext /\ CopiedNext(TRUE)) \/ (HostNext /\ CopiedNext(FALSE))

Spec == Init /\ [][Next]_allVars


(***************************************************************************)
(* Progress: a fault is resolved even when no frame is free.  "If a        *)
(* TYPE=ANY low threshold is breached, demand scan is kicked off" ([Z3]),  *)
(* trial invalidation fills the aging list "from the top", and "Best       *)
(* reclaim candidates are at the bottom"; a page fault is resolved by a    *)
(* page-in or "fresh backing page frames for guest memory" ([Z1], sources *)
(* 6: "Sz -> Sr on first access, Sp -> Sr on access") once the demand scan *)
(* has freed a frame (D51).  Fairness, for the host alone:                 *)
(*   - trial invalidation of a resident page under pressure (weak: the     *)
(*     scan runs while the threshold stays breached);                      *)
(*   - the steal of a page (strong: a guest touch revalidates a frame on   *)
(*     the list and takes it off, so a steal may be enabled only now and  *)
(*     then; a guest that wins that race for ever does not keep the host  *)
(*     from stealing);                                                     *)
(*   - the page-in or zero fill of a faulting page (strong: a freed frame  *)
(*     may go to another page's fault first, again and again).             *)
(* The guest gets none: it may stop anywhere.                              *)
(***************************************************************************)
FaultResolved(p) == FaultPageIn(p) \/ FaultZeroFill(p)
Steal(p) == StealDiscard(p) \/ StealPageOut(p)

FairSpec ==
    /\ Spec
    /\ \A p \in Pages :
          /\ WF_allVars(TrialInvalidate(p) /\ CopiedNext(FALSE))
          /\ SF_allVars(Steal(p) /\ CopiedNext(FALSE))
          /\ SF_allVars(FaultResolved(p) /\ CopiedNext(FALSE))

=============================================================================
