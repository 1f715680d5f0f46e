----------------------------- MODULE PageStates -----------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What the page-state machine promises;     *)
(* each promise is a property of PageStateProperties.tla, stated there as  *)
(* a THEOREM with the model whose .cfg checks it and the broken twin that  *)
(* fails it.                                                               *)
(*                                                                         *)
(*   No data loss. StableContentKeptInv: S, "the host is responsible for   *)
(*       preserving the page content"; P, the guest "can tolerate the loss *)
(*       of the page content as long as the page has not been modified"    *)
(*       (paper 2).                                                        *)
(*   Right answers. ReadResultInv: a read returns what the guest is owed   *)
(*       or a discard fault, "If a guest accesses a Vz or Pz page, the     *)
(*       host will present a special discard fault" (paper 2);             *)
(*       DiscardFaultOnlyWhenDiscardedInv: that fault only for "the        *)
(*       special 'discarded' condition of a page".                         *)
(*   Isolation. UnusedAccessInv: an unused page returns "preferably zero   *)
(*       for security reasons" or an exception; GuestKeepsResidencyProp:   *)
(*       "modifications by the guest would pose a serious functionality    *)
(*       and security problem" (paper 2).                                  *)
(*   Discard only when allowed. HostDiscardsOnlyDiscardableProp: U "at     *)
(*       will", V "can tolerate the loss", P only "as long as the page has *)
(*       not been modified" (paper 2).                                     *)
(*   Progress. WaitingAccessServedProp, under FairSpec: an access that     *)
(*       waits for the host completes, "Sz -> Sr on first access, Sp -> Sr *)
(*       on access" (sources 6).                                           *)
(*   Refinement. Each simplification the paper allows ("The state machine  *)
(*       can be simplified in several ways") is a behaviour subset of the  *)
(*       full machine: RefinesFullMachine of PageStatesRefinesFull.tla,    *)
(*       with its THEOREM.                                                 *)
(*   What the guest is owed. RefinesGuestMemory of                         *)
(*       PageStatesRefinesGuestMemory.tla, with its THEOREM: every machine *)
(*       here, the full one and each simplification, implements the        *)
(*       guest's view of its memory (GuestMemory.tla), "The host may       *)
(*       discard the page content" only where the guest gave it up (paper  *)
(*       2), and SetStableIfNotDiscarded "only makes a page stable if it   *)
(*       has not been discarded" (paper 3.2).                              *)
(*                                                                         *)
(* Why no ghost can excuse a loss.  The ghosts intended, modified and      *)
(* requested (D10, D11, D425) serve StableContentKeptInv and               *)
(* ReadResultInv.  RefinesGuestMemory's mapping reads none of them: the    *)
(* content owed is data, the loss is a V or P page logically zero.  Each   *)
(* is written only by the guest's own steps, from their arguments and      *)
(* answers, never from the machine's state: requested is the usage the     *)
(* guest last asked for; intended is what it last wrote, nothing after     *)
(* SetUnused or after an unconditional SetStable of content it gave up     *)
(* (which the guest cannot tell kept from lost), and is kept by            *)
(* SetStableIfNotDiscarded's Success (D359), so a Success on a discarded   *)
(* page leaves intended and data apart; modified is set by a store and     *)
(* cleared by a write-back, by SetUnused and by a primitive on a page the  *)
(* guest made volatile.  A host step writes none of them, so no host can   *)
(* make its own loss look owed-nothing.                                    *)
(*                                                                         *)
(* The other properties restate one step (PrimitiveSetsUsageProp,          *)
(* SetStableIfNotDiscardedProp, HostKeepsUsageProp,                        *)
(* ExtractReportsStateProp, PrimitiveOutcomeInv) or check types and        *)
(* bookkeeping (TypeOK, VariantStatesInv).                                 *)
(***************************************************************************)
(***************************************************************************)
(* The CMM2 guest page-state machine: paper Figure 1, reconstructed from   *)
(* the prose of docs/sources.md [P], section 2 ("the paper").              *)
(*                                                                         *)
(* A page's state is its usage (set by the guest) times its residency     *)
(* (set only by the host):                                                 *)
(*   usage:     S stable, U unused, V volatile, P potentially volatile     *)
(*   residency: r resident, p preserved, z logically zero                  *)
(* Vz and Pz are the "discarded" states.                                   *)
(*                                                                         *)
(* One module serves the full machine and every simplification of the     *)
(* paper: the constant Variant removes states, and a transition that would *)
(* enter a removed state takes the implicit transition the paper names for *)
(* it instead (Normalise).                                                 *)
(* PageStatesRefinesFull.tla states that every simplification is a        *)
(* behaviour subset of the full machine; the refinement models             *)
(* (model/MCPageStatesRefinement_*.cfg, one per simplification) check it.  *)
(*                                                                         *)
(* Every open choice is recorded in docs/decisions.md as D<n>; the         *)
(* comments below cite those numbers.  The properties the machine must     *)
(* satisfy are in PageStateProperties.tla, stated without the operators    *)
(* defined here that the broken twins (MCPageStates_Twins.tla) replace.    *)
(***************************************************************************)
EXTENDS Integers

CONSTANTS
    \* @type: Set(PAGE);
    Pages,          \* the guest's absolute pages
    \* @type: PAGE;
    NoPage,         \* a page outside Pages, for the initial lastOp record
    \* @type: Set(Int);
    Values,         \* page contents, abstracted to a few integers; 0 is the zero page
    \* @type: Bool;
    HostService,    \* guest primitives are host service calls (D3)
    \* @type: Str;
    UnusedAccess,   \* "AddressingException" or "ReadsZero" (D9)
    \* @type: Str;
    Variant         \* which machine: one of Variants below

VARIABLES
    \* @type: PAGE -> Str;
    usage,      \* "S", "U", "V" or "P"
    \* @type: PAGE -> Str;
    resid,      \* "r", "p" or "z"
    \* @type: PAGE -> Bool;
    dirty,      \* the page's change bit, readable by the host (paper: "page dirty bit")
    \* @type: PAGE -> Int;
    data,       \* what the frame (r) or the host's auxiliary copy (p) holds; 0 when z
    \* @type: PAGE -> Int;
    intended,   \* ghost: what the guest is entitled to read back (D10); NoValue if nothing
    \* @type: PAGE -> Bool;
    modified,   \* ghost: the guest stored to the page and has not written it back (D11)
    \* @type: PAGE -> Str;
    requested,  \* ghost: the usage the guest last requested, "S", "U", "V" or "P" (D425)
    \* @type: { op: Str, page: PAGE, arg: Int, outcome: Str, value: Int };
    lastOp      \* the last step: its action, page, argument and what the guest observed

vars == <<usage, resid, dirty, data, intended, modified, requested, lastOp>>

Usages      == {"S", "U", "V", "P"}
Residencies == {"r", "p", "z"}
NoValue     == -1
Zero        == 0

GuestPrimitives == {"SetStable", "SetUnused", "SetVolatile",
                    "SetPotentialVolatile", "SetStableIfNotDiscarded"}
GuestOps  == GuestPrimitives \cup {"Extract", "Read", "Write", "ClearDirty"}
HostOps   == {"HostPreserve", "HostDiscard", "HostPageIn", "HostZeroFill"}
Outcomes  == {"Done", "Success", "Failure", "Value", "DiscardFault",
              "AddressingException", "Ignored", "None"}

(***************************************************************************)
(* The machines.  Paper, section 2: "The state machine can be simplified  *)
(* in several ways ...":                                                   *)
(*   OneDiscardedState "Collapse the two discarded states Vz and Pz to a  *)
(*                     single discarded state Vz."                         *)
(*   NoVp              "Remove the Vp state."                              *)
(*   NoPp              "Remove the Pp state."                              *)
(*   NoP               "Remove the potentially volatile P page usage      *)
(*                     state."                                             *)
(*   ZVMPrototype      section 4: "a simplified state machine that        *)
(*                     collapses the two discarded states Vz and Pz, and   *)
(*                     does not have the preserved volatile states Up, Vp  *)
(*                     and Pp" (Figure 3).                                 *)
(* Full has every state of Figure 1, Up included "for reasons of symmetry *)
(* and architectural completeness".                                       *)
(***************************************************************************)
Variants == {"Full", "OneDiscardedState", "NoVp", "NoPp", "NoP", "ZVMPrototype"}
HasUp == Variant # "ZVMPrototype"
HasVp == Variant \notin {"NoVp", "ZVMPrototype"}
HasPp == Variant \notin {"NoPp", "ZVMPrototype"}
HasP  == Variant # "NoP"
CollapseDiscarded == Variant \in {"OneDiscardedState", "ZVMPrototype"}

ASSUME Variant \in Variants
ASSUME Zero \in Values /\ \A v \in Values : v >= 0
ASSUME NoPage \notin Pages
ASSUME UnusedAccess \in {"AddressingException", "ReadsZero"}
\* Removing a preserved state needs the implicit host transitions of a host
\* service (Sp -SetVolatile-> Vz instead of Vp, ...): paper, "if the guest
\* page state transitions are implemented through a host service call, we
\* can always tag an implicit host state transition onto that guest page
\* transition".  Without one, Up is "the only valid path" (D3).
ASSUME (~HasUp \/ ~HasVp \/ ~HasPp) => HostService

(***************************************************************************)
(* The paper's two-letter names, used in Extract results and in traces.    *)
(***************************************************************************)
StateName(u, r) ==
    CASE u = "S" /\ r = "r" -> "Sr" [] u = "S" /\ r = "p" -> "Sp" [] u = "S" /\ r = "z" -> "Sz"
      [] u = "U" /\ r = "r" -> "Ur" [] u = "U" /\ r = "p" -> "Up" [] u = "U" /\ r = "z" -> "Uz"
      [] u = "V" /\ r = "r" -> "Vr" [] u = "V" /\ r = "p" -> "Vp" [] u = "V" /\ r = "z" -> "Vz"
      [] u = "P" /\ r = "r" -> "Pr" [] u = "P" /\ r = "p" -> "Pp" [] u = "P" /\ r = "z" -> "Pz"

\* Which of the twelve states this machine has.
HasState(u, r) ==
    /\ u = "P" => HasP
    /\ (u = "U" /\ r = "p") => HasUp
    /\ (u = "V" /\ r = "p") => HasVp
    /\ (u = "P" /\ r = "p") => HasPp
    /\ (u = "P" /\ r = "z") => ~CollapseDiscarded

\* "The states Vz and Pz mark the special 'discarded' condition of a page."
IsDiscarded(u, r) == u \in {"V", "P"} /\ r = "z"
Discarded(p) == IsDiscarded(usage[p], resid[p])

(***************************************************************************)
(* The decisions the broken twins replace, each read by more than one step *)
(* or by another module (D355): the twins (model/MCPageStates_Twins.tla)   *)
(* replace one of them, or override a step with a copy of it.              *)
(***************************************************************************)

\* Paper, section 2: U "the host may discard the page content at will"; V "the
\* guest has indicated that it can tolerate the loss of the page content"; P
\* "can tolerate the loss ... as long as the page has not been modified".
Discardable(u, d) == u \in {"U", "V"} \/ (u = "P" /\ ~d)

\* SetStableIfNotDiscarded "only makes a page stable if it has not been
\* discarded" (the sources' own condition; the reference implementation's
\* equality check replaces it too, tests/fixtures/graph/MCGraph.tla).
SSINDSucceeds(u, r) == ~IsDiscarded(u, r)

\* The change bit after a page-in: the guest's change bit is part of its
\* storage key, which the host keeps while the page is out (D6).  Read by
\* HostPageIn and by HostReclaim.tla's FaultPageIn.
PageInDirty(d) == d

\* What a guest access to a page observes (Read and Write alike, and
\* AccessWaits), as a record [kind, value]; kind "Wait" means the access is
\* held until the host makes the page resident (a host page fault:
\* HostPageIn or HostZeroFill, D12).  An access to an unused page is an
\* addressing exception under z/VM ([Z1]) or reads "preferably zero" (paper
\* 3; D9); one to a discarded page is a discard fault.
ResidentAccess(x) == [kind |-> "Value", value |-> x]
AccessOutcome(u, r, x) ==
    IF u = "U" THEN IF UnusedAccess = "AddressingException"
                    THEN [kind |-> "AddressingException", value |-> NoValue]
                    ELSE [kind |-> "Value", value |-> Zero]
    ELSE IF IsDiscarded(u, r) THEN [kind |-> "DiscardFault", value |-> NoValue]
    ELSE IF r = "r" THEN ResidentAccess(x)
    ELSE [kind |-> "Wait", value |-> NoValue]

(***************************************************************************)
(* Implicit transitions.  "If the guest page state transitions are        *)
(* implemented through a host service call, we can always tag an implicit *)
(* host state transition onto that guest page transition ... The other    *)
(* case is also true, namely that host page transitions can cause implicit *)
(* guest state transitions."  Normalise maps a state this machine lacks to *)
(* the one the paper says replaces it, given the dirty bit d:             *)
(*   Pz       -> Vz  (collapsed discarded states)                          *)
(*   Up       -> Uz  (host discards instead of preserving an unused page)  *)
(*   Vp       -> Vz  ("it can always choose to discard pages that would   *)
(*                    enter the Vp state")                                 *)
(*   Pp dirty -> Sp  ("the host needs to preserve the page and will set    *)
(*                    the combined target state to Sp")                    *)
(*   Pp clean -> Pz, itself normalised ("the host can discard the page")  *)
(* The result is a record: the state and whether content was dropped.     *)
(* Each IF names its states in full, though the callers imply part of it:  *)
(* the only lacking state passed with r = "z" is Pz (NoP is never passed a *)
(* P state: SetPotentialVolatile is not offered there), and what reaches   *)
(* the fourth IF is Up, Vp or a clean Pp, each preserved and discardable,  *)
(* so the last ELSE is never taken (D292).                                 *)
(***************************************************************************)
Discard(u) == [u |-> IF u = "P" /\ CollapseDiscarded THEN "V" ELSE u, r |-> "z", dropped |-> TRUE]
Keep(u, r) == [u |-> u, r |-> r, dropped |-> FALSE]
Normalise(u, r, d) ==
    IF HasState(u, r) THEN Keep(u, r)
    ELSE IF u = "P" /\ r = "z" THEN Keep("V", "z")
    ELSE IF u = "P" /\ r = "p" /\ d THEN Keep("S", "p")
    ELSE IF r = "p" /\ Discardable(u, d) THEN Discard(u)
    ELSE Keep(u, r)   \* unreachable: u = "P" without HasP

\* The state a guest primitive leads to.  With a host service the implicit
\* host discard is always taken on a preserved page whose new usage may be
\* discarded: {S,V,P}p -SetUnused-> Uz frees the backing storage at once,
\* Xp -SetVolatile-> Vz, and a clean Xp -SetPotentialVolatile-> Pz (D3).
\* Without one, the guest changes usage only, e.g. Sp -SetUnused-> Up.  On a
\* logically zero page, V and P requests give Vz and Pz (D4).  The guest never
\* sets residency ("the page residency state is only to be modified by the
\* host"): any change of residency comes from Normalise, as a named implicit
\* transition.
PrimitiveResult(p, target) ==
    LET r == resid[p]
    IN  IF HostService /\ r = "p" /\ Discardable(target, dirty[p])
        THEN Discard(target)
        ELSE Normalise(target, r, dirty[p])

\* The guest gave the page's content up by its own last request: U "at will",
\* V "can tolerate the loss of the page content", P "as long as the page has
\* not been modified" (paper 2), judged by the guest's record of its stores.
\* It reads the ghosts only, never the machine (D425).
GaveUpContent(p) ==
    requested[p] \in {"U", "V"} \/ (requested[p] = "P" /\ ~modified[p])

Record(op, p, arg, outcome, value) ==
    lastOp' = [op |-> op, page |-> p, arg |-> arg, outcome |-> outcome, value |-> value]

(***************************************************************************)
(* Guest primitives (the host service calls / ESSA operations).           *)
(***************************************************************************)

\* A primitive is offered only if its target usage exists in this machine
\* (Offered): without P there is no SetPotentialVolatile.  The content the guest may
\* expect afterwards (D10) is written from what the guest sees, its own
\* requests and the answers it gets (D425): nothing after SetUnused ("the
\* page content is meaningless"); nothing after an unconditional SetStable of
\* content it gave up (GaveUpContent), which the host may have discarded or
\* kept, the guest cannot tell which, "it can tolerate the loss of the page
\* content" (paper 2), and "only" SetStableIfNotDiscarded "makes a page
\* stable if it has not been discarded" (paper 3.2); otherwise unchanged.  A
\* SetStableIfNotDiscarded that answers Success keeps what the guest is owed:
\* its Success is the guest's word that nothing was lost (paper 3.2), so the
\* ghost never follows the machine past a discard it answered as kept (D359).
\* The guest's record of its stores (D11) is cleared with SetUnused, and by
\* any primitive on a page the guest last made volatile: it gave those stores
\* up with the page and cannot tell whether they survived.  requested is the
\* usage the guest asked for, whatever implicit transition the machine took
\* (Pp dirty -> Sp, Pz -> Vz).
ApplyPrimitive(op, p, target, outcome) ==
    LET res == PrimitiveResult(p, target)
    IN  /\ usage'    = [usage EXCEPT ![p] = res.u]
        /\ resid'    = [resid EXCEPT ![p] = res.r]
        /\ dirty'    = [dirty EXCEPT ![p] = IF res.dropped THEN FALSE ELSE @]
        /\ data'     = [data  EXCEPT ![p] = IF res.dropped THEN Zero ELSE @]
        /\ intended' = [intended EXCEPT ![p] =
                          IF target = "U" THEN NoValue
                          ELSE IF op = "SetStable" /\ GaveUpContent(p) THEN NoValue
                          ELSE @]
        /\ modified' = [modified EXCEPT ![p] = IF target = "U" \/ requested[p] = "V" THEN FALSE ELSE @]
        /\ requested' = [requested EXCEPT ![p] = target]
        /\ Record(op, p, NoValue, outcome, NoValue)

\* (Each is written as a conjunction with its offer condition so that TLC
\* labels the step with the primitive's name, not with ApplyPrimitive.  For
\* S, U and V the condition is TRUE: only Offered("P") filters, D292.)
Offered(target) == target = "P" => HasP

SetStable(p)            == Offered("S") /\ ApplyPrimitive("SetStable", p, "S", "Done")
SetUnused(p)            == Offered("U") /\ ApplyPrimitive("SetUnused", p, "U", "Done")
SetVolatile(p)          == Offered("V") /\ ApplyPrimitive("SetVolatile", p, "V", "Done")
SetPotentialVolatile(p) == Offered("P") /\ ApplyPrimitive("SetPotentialVolatile", p, "P", "Done")

\* Atomic with respect to host discards: one step, so no host action can come
\* between the check and the set (paper: "for atomic accesses a
\* compare_and_swap needs to be utilized"; D17).  On failure nothing changes.
SetStableIfNotDiscarded(p) ==
    IF SSINDSucceeds(usage[p], resid[p])
    THEN ApplyPrimitive("SetStableIfNotDiscarded", p, "S", "Success")
    ELSE /\ Record("SetStableIfNotDiscarded", p, NoValue, "Failure", NoValue)
         /\ UNCHANGED <<usage, resid, dirty, data, intended, modified, requested>>

\* "The guest can query" the state: ESSA's extract operation (D15).
Extract(p) ==
    /\ Record("Extract", p, NoValue, StateName(usage[p], resid[p]), NoValue)
    /\ UNCHANGED <<usage, resid, dirty, data, intended, modified, requested>>

(***************************************************************************)
(* Guest accesses.                                                          *)
(***************************************************************************)
Read(p) ==
    LET o == AccessOutcome(usage[p], resid[p], data[p])
    IN  /\ o.kind # "Wait"
        /\ Record("Read", p, NoValue, o.kind, o.value)
        /\ UNCHANGED <<usage, resid, dirty, data, intended, modified, requested>>

\* A store sets the change bit; stores to V pages are allowed (D13).  Under "ReadsZero" a store to an unused page
\* is dropped, so the page keeps reading as zero (D9).
Write(p, v) ==
    LET o == AccessOutcome(usage[p], resid[p], data[p])
    IN  /\ o.kind # "Wait"
        /\ IF o.kind = "Value" /\ usage[p] # "U"
           THEN /\ data'     = [data EXCEPT ![p] = v]
                /\ dirty'    = [dirty EXCEPT ![p] = TRUE]
                /\ intended' = [intended EXCEPT ![p] = v]
                /\ modified' = [modified EXCEPT ![p] = TRUE]
                /\ Record("Write", p, v, "Done", NoValue)
           ELSE /\ Record("Write", p, v,
                          IF o.kind = "Value" THEN "Ignored" ELSE o.kind, NoValue)
                /\ UNCHANGED <<data, dirty, intended, modified>>
        /\ UNCHANGED <<usage, resid, requested>>

\* The guest has written the page to its own backing store and resets the
\* change bit (Linux: page_clear_dirty after writeback), so that a P page is
\* clean again (D7).
ClearDirty(p) ==
    /\ dirty[p]
    /\ dirty' = [dirty EXCEPT ![p] = FALSE]
    /\ modified' = [modified EXCEPT ![p] = FALSE]
    /\ Record("ClearDirty", p, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, resid, data, intended, requested>>

(***************************************************************************)
(* Host actions.  Each is a choice of the host, taken at any time it is   *)
(* enabled; the guest's primitives are the only other source of change.   *)
(***************************************************************************)

\* Page out: "the host has written the page contents to auxiliary swap
\* storage".  Only into a preserved state this machine has; a dirty P page
\* without Pp becomes Sp.  A page this machine cannot preserve is discarded
\* by HostDiscard instead, never silently by HostPreserve (D14).
HostPreserve(p) ==
    LET res == Normalise(usage[p], "p", dirty[p])
    IN  /\ resid[p] = "r"
        /\ res.r = "p"
        /\ usage' = [usage EXCEPT ![p] = res.u]
        /\ resid' = [resid EXCEPT ![p] = "p"]
        /\ Record("HostPreserve", p, NoValue, "Done", NoValue)
        /\ UNCHANGED <<dirty, data, intended, modified, requested>>

\* Discard: the frame or the auxiliary copy is dropped and the page becomes
\* logically zero.  A discard "zeroes the reference and change bits" (z/VM,
\* sources 7).
HostDiscard(p) ==
    /\ resid[p] \in {"r", "p"}
    /\ Discardable(usage[p], dirty[p])
    /\ usage' = [usage EXCEPT ![p] = Discard(@).u]
    /\ resid' = [resid EXCEPT ![p] = "z"]
    /\ dirty' = [dirty EXCEPT ![p] = FALSE]
    /\ data'  = [data EXCEPT ![p] = Zero]
    /\ Record("HostDiscard", p, NoValue, "Done", NoValue)
    /\ UNCHANGED <<intended, modified, requested>>

\* Page in: the preserved content comes back.  Not for unused pages, whose
\* content no access needs (D8).  The change bit survives paging (D6).
\* Which pages the host pages in is its economy, not a safety rule: a host
\* that also paged in Up (UnusedAccessInv still hides the content) or never
\* paged in Vp (an access then waits until the host discards the page, which
\* the paper allows: "it can always choose to discard pages that would enter
\* the Vp state") breaks no property; only the state counts see it (D232).
HostPageIn(p) ==
    /\ resid[p] = "p"
    /\ usage[p] # "U"
    /\ resid' = [resid EXCEPT ![p] = "r"]
    /\ dirty' = [dirty EXCEPT ![p] = PageInDirty(@)]
    /\ Record("HostPageIn", p, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, data, intended, modified, requested>>

\* "Fresh zero frame on first touch" of a logically zero stable page.
HostZeroFill(p) ==
    /\ resid[p] = "z"
    /\ usage[p] = "S"
    /\ resid' = [resid EXCEPT ![p] = "r"]
    /\ data'  = [data EXCEPT ![p] = Zero]
    /\ dirty' = [dirty EXCEPT ![p] = FALSE]
    /\ Record("HostZeroFill", p, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, intended, modified, requested>>

(***************************************************************************)
(* "In case of z/VM as the host, the initial page state is stable,         *)
(* logically zero (Sz)."                                                   *)
(***************************************************************************)
Init ==
    /\ usage    = [p \in Pages |-> "S"]
    /\ resid    = [p \in Pages |-> "z"]
    /\ dirty    = [p \in Pages |-> FALSE]
    /\ data     = [p \in Pages |-> Zero]
    /\ intended = [p \in Pages |-> Zero]
    /\ modified = [p \in Pages |-> FALSE]
    /\ requested = [p \in Pages |-> "S"]
    /\ lastOp   = [op |-> "Init", page |-> NoPage, arg |-> NoValue,
                   outcome |-> "None", value |-> NoValue]

GuestNext ==
    \E p \in Pages :
        \/ SetStable(p) \/ SetUnused(p) \/ SetVolatile(p)
        \/ SetPotentialVolatile(p) \/ SetStableIfNotDiscarded(p)
        \/ Extract(p) \/ Read(p) \/ ClearDirty(p)
        \/ \E v \in Values : Write(p, v)

HostNext ==
    \E p \in Pages :
        \/ HostPreserve(p) \/ HostDiscard(p) \/ HostPageIn(p) \/ HostZeroFill(p)

Next == GuestNext \/ HostNext

\* The step named op on page p with argument v (the value of a Write): used to
\* replay a recorded step (a trace, or a simplified machine's step in the
\* refinement check) as exactly the action it claims to be.
Perform(op, p, v) ==
    CASE op = "SetStable"               -> SetStable(p)
      [] op = "SetUnused"               -> SetUnused(p)
      [] op = "SetVolatile"             -> SetVolatile(p)
      [] op = "SetPotentialVolatile"    -> SetPotentialVolatile(p)
      [] op = "SetStableIfNotDiscarded" -> SetStableIfNotDiscarded(p)
      [] op = "Extract"                 -> Extract(p)
      [] op = "Read"                    -> Read(p)
      [] op = "Write"                   -> Write(p, v)
      [] op = "ClearDirty"              -> ClearDirty(p)
      [] op = "HostPreserve"            -> HostPreserve(p)
      [] op = "HostDiscard"             -> HostDiscard(p)
      [] op = "HostPageIn"              -> HostPageIn(p)
      [] op = "HostZeroFill"            -> HostZeroFill(p)
      [] OTHER                          -> FALSE

Spec == Init /\ [][Next]_vars


(***************************************************************************)
(* Progress: the host answers every fault.  An access to a page that is   *)
(* not resident and not discarded (Sz, a preserved page) waits for the     *)
(* host (AccessOutcome's "Wait", D12).  The design promises that the wait  *)
(* ends: sources 6, "Sz -> Sr on first access, Sp -> Sr on access"; the   *)
(* z/VM host gives "fresh frames for reused discarded pages" (sources      *)
(* [Z1]); in KVM "a guest touching a dropped page gets a fresh zero page   *)
(* from the ordinary fault handler" (sources 2).  A preserved V or P page  *)
(* may instead be discarded, which answers the access with the discard     *)
(* fault: "it can always choose to discard pages that would enter the Vp  *)
(* state" (paper 2; D232).  The model has no separate record of a pending *)
(* access: every waiting page stands for one a guest access waits on, and *)
(* a page nobody touches is served too, at no cost to any property.        *)
(* Fairness (weak): a fault the host can serve and that stays pending is   *)
(* served; the guest's own steps need none (it may stop anywhere).         *)
(***************************************************************************)
AccessWaits(p) == AccessOutcome(usage[p], resid[p], data[p]).kind = "Wait"
HostServesFault(p) == AccessWaits(p) /\ (HostPageIn(p) \/ HostZeroFill(p) \/ HostDiscard(p))

FairSpec == Spec /\ \A p \in Pages : WF_vars(HostServesFault(p))

=============================================================================
