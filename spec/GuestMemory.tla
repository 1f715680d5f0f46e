----------------------------- MODULE GuestMemory -----------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What the guest is owed, as a machine of   *)
(* its own; it states no THEOREM.  The machines that implement it state    *)
(* theirs: PageStatesRefinesGuestMemory.tla (every machine of              *)
(* PageStates.tla), HostReclaimRefinesGuestMemory.tla,                     *)
(* GuestHostAtomicityRefinesGuestMemory.tla and ESSARefinesGuestMemory.tla *)
(* (ESSA under the 2007 model).                                            *)
(***************************************************************************)
(***************************************************************************)
(* The guest's view of its memory: what a guest that follows the paper is  *)
(* owed, in the terms the guest sees.  Its state is, per page, the usage   *)
(* the guest last requested, the content it is owed, whether it stored to  *)
(* the page since it last wrote the page back, whether the host has thrown *)
(* the content away, and the last answer the guest observed.  No frame,    *)
(* no residency, no swap slot: how the host keeps what it owes is the      *)
(* business of the machines that refine this one.                          *)
(*                                                                         *)
(* The paper (docs/sources.md [P]), section 2: "The host may discard the   *)
(* page content" of an unused page "at will"; of a volatile page because   *)
(* "the guest has indicated that it can tolerate the loss of the page      *)
(* content"; of a potentially volatile page "as long as the page has not   *)
(* been modified"; for a stable page "the host is responsible for          *)
(* preserving the page content".  The guest learns of a loss in three      *)
(* ways only: "If a guest accesses a Vz or Pz page, the host will present  *)
(* a special discard fault"; SetStableIfNotDiscarded "only makes a page    *)
(* stable if it has not been discarded" and says which (section 3.2); and  *)
(* "the guest can query" the state (ESSA's extract).  So the one host      *)
(* action here is Lose, allowed exactly where the guest gave the content   *)
(* up, and every answer that depends on a loss reads lost.                 *)
(*                                                                         *)
(* lost is state of this machine, not a ghost of a concrete one: a         *)
(* machine that refines this one maps it from its own state (for           *)
(* PageStates.tla, a V or P page that is logically zero), so no            *)
(* bookkeeping of the concrete machine can excuse a loss.                  *)
(***************************************************************************)
EXTENDS Integers, Sequences

CONSTANTS
    \* @type: Set(PAGE);
    Pages,          \* the guest's pages
    \* @type: PAGE;
    NoPage,         \* a page outside Pages, for the initial answer
    \* @type: Set(Int);
    Values,         \* page contents; 0 is the zero page
    \* @type: Str;
    UnusedAccess    \* "AddressingException" or "ReadsZero": the host's profile (paper 3)

VARIABLES
    \* @type: PAGE -> Str;
    usage,      \* "S", "U", "V" or "P": the usage the guest last requested
    \* @type: PAGE -> Int;
    content,    \* the content the guest is owed; NoValue while the page is unused
    \* @type: PAGE -> Bool;
    modified,   \* the guest stored to the page since it last wrote it back (its change bit)
    \* @type: PAGE -> Bool;
    lost,       \* the host threw the content away: the page is discarded
    \* @type: { op: Str, page: PAGE, arg: Int, outcome: Str, value: Int };
    answer      \* the last step: the guest's request and the answer it observed

gvars == <<usage, content, modified, lost, answer>>

NoValue == -1
Zero    == 0

ASSUME Zero \in Values /\ NoValue \notin Values
ASSUME NoPage \notin Pages
ASSUME UnusedAccess \in {"AddressingException", "ReadsZero"}

Answer(op, p, arg, outcome, value) ==
    answer' = [op |-> op, page |-> p, arg |-> arg, outcome |-> outcome, value |-> value]

\* A step of the host that the guest cannot tell apart from no step at all
\* (a page-out, a page-in, a fresh frame).
HostAnswer == [op |-> "Host", page |-> NoPage, arg |-> NoValue,
               outcome |-> "None", value |-> NoValue]

(***************************************************************************)
(* What the guest has given up.  Paper 2: U "the host may discard the page *)
(* content at will"; V "the guest has indicated that it can tolerate the   *)
(* loss of the page content"; P "can tolerate the loss of the page content *)
(* as long as the page has not been modified".                             *)
(***************************************************************************)
GivenUp(u, m) == u \in {"U", "V"} \/ (u = "P" /\ ~m)

(***************************************************************************)
(* Lose: the host throws away content the guest gave up ("The host may     *)
(* drop only what the guest gave up").  A volatile or potentially volatile *)
(* page becomes discarded, "The states Vz and Pz mark the special          *)
(* 'discarded' condition of a page", and logically zero; a discard "zeroes *)
(* the reference and change bits" (sources 7).  An unused page owes        *)
(* nothing, so losing it clears only its change bit.                       *)
(***************************************************************************)
LoseAt(p) ==
    /\ content'  = [content EXCEPT ![p] = IF usage[p] = "U" THEN NoValue ELSE Zero]
    /\ modified' = [modified EXCEPT ![p] = FALSE]
    /\ lost'     = [lost EXCEPT ![p] = usage[p] # "U"]

Lose(p) ==
    /\ ~lost[p]
    /\ GivenUp(usage[p], modified[p])
    /\ LoseAt(p)
    /\ Answer("Host", NoPage, NoValue, "None", NoValue)
    /\ UNCHANGED usage

\* Everything else the host does is invisible to the guest.
HostWork ==
    /\ answer' = HostAnswer
    /\ UNCHANGED <<usage, content, modified, lost>>

(***************************************************************************)
(* The guest's primitives.  Each sets the usage the guest asks for (paper  *)
(* 2).  The content stays what it is owed, with three exceptions:          *)
(*   - SetUnused: "the page content is meaningless" afterwards;            *)
(*   - leaving U: the page holds whatever the host gives it, and from then *)
(*     on that is what the guest is owed (a stable page keeps it, "the     *)
(*     host is responsible for preserving the page content");              *)
(*   - a discarded page made stable (or unused) stops being discarded and  *)
(*     is logically zero (D5); made V or P it stays discarded.             *)
(* "If the guest page state transitions are implemented through a host     *)
(* service call, we can always tag an implicit host state transition onto  *)
(* that guest page transition": the primitive may lose the content at      *)
(* once, where the usage it sets gives the content up.                     *)
(***************************************************************************)
SetUsage(op, p, u, outcome) ==
    /\ usage' = [usage EXCEPT ![p] = u]
    /\ Answer(op, p, NoValue, outcome, NoValue)
    /\ IF u = "U"
       THEN /\ content' = [content EXCEPT ![p] = NoValue]
            /\ lost' = [lost EXCEPT ![p] = FALSE]
            /\ modified' \in {modified, [modified EXCEPT ![p] = FALSE]}
       ELSE IF lost[p]
       THEN /\ lost' = [lost EXCEPT ![p] = u # "S"]
            /\ UNCHANGED <<content, modified>>
       ELSE \E c \in IF usage[p] = "U" THEN Values ELSE {content[p]} :
              \/ /\ content' = [content EXCEPT ![p] = c]
                 /\ UNCHANGED <<modified, lost>>
              \/ /\ GivenUp(u, modified[p])
                 /\ content' = [content EXCEPT ![p] = Zero]
                 /\ modified' = [modified EXCEPT ![p] = FALSE]
                 /\ lost' = [lost EXCEPT ![p] = TRUE]

SetStable(p)            == SetUsage("SetStable", p, "S", "Done")
SetUnused(p)            == SetUsage("SetUnused", p, "U", "Done")
SetVolatile(p)          == SetUsage("SetVolatile", p, "V", "Done")
SetPotentialVolatile(p) == SetUsage("SetPotentialVolatile", p, "P", "Done")

\* SetStableIfNotDiscarded "only makes a page stable if it has not been
\* discarded" (paper 3.2): Success exactly when the content was not lost,
\* and then the page is stable with its content; on Failure nothing changes.
SetStableIfNotDiscarded(p) ==
    IF lost[p]
    THEN /\ Answer("SetStableIfNotDiscarded", p, NoValue, "Failure", NoValue)
         /\ UNCHANGED <<usage, content, modified, lost>>
    ELSE SetUsage("SetStableIfNotDiscarded", p, "S", "Success")

(***************************************************************************)
(* Extract: "the guest can query" the page state (ESSA's extract, D15).    *)
(* The answer names the usage the guest set and a residency; the residency *)
(* is the host's to choose except where it says something the guest        *)
(* relies on: a V or P page is reported logically zero ("z") exactly when  *)
(* it was discarded ("The states Vz and Pz mark the special 'discarded'    *)
(* condition of a page"), and a page reported logically zero holds zero.   *)
(***************************************************************************)
Name(u, r) == u \o r
ExtractAnswers(p) ==
    { Name(usage[p], r) :
        r \in { r \in {"r", "p", "z"} :
                  /\ usage[p] \in {"V", "P"} => (r = "z" <=> lost[p])
                  /\ (usage[p] = "S" /\ r = "z") => content[p] = Zero } }

Extract(p) ==
    /\ \E name \in ExtractAnswers(p) : Answer("Extract", p, NoValue, name, NoValue)
    /\ UNCHANGED <<usage, content, modified, lost>>

(***************************************************************************)
(* Accesses.  Paper 2: "If a guest accesses a Vz or Pz page, the host will *)
(* present a special discard fault"; paper 3: an access to an unused page  *)
(* returns "an arbitrary value ... preferably zero for security reasons"   *)
(* or "some kind of exception" (z/VM: an addressing exception, sources     *)
(* [Z1]); the profile UnusedAccess says which (D9).  Otherwise a read      *)
(* returns the content the guest is owed, and a write makes its value the  *)
(* content owed and marks the page modified.                               *)
(***************************************************************************)
Read(p) ==
    /\ IF usage[p] = "U"
       THEN IF UnusedAccess = "AddressingException"
            THEN Answer("Read", p, NoValue, "AddressingException", NoValue)
            ELSE Answer("Read", p, NoValue, "Value", Zero)
       ELSE IF lost[p]
       THEN Answer("Read", p, NoValue, "DiscardFault", NoValue)
       ELSE Answer("Read", p, NoValue, "Value", content[p])
    /\ UNCHANGED <<usage, content, modified, lost>>

Write(p, v) ==
    /\ UNCHANGED <<usage, lost>>
    /\ IF usage[p] = "U"
       THEN /\ Answer("Write", p, v,
                      IF UnusedAccess = "AddressingException"
                      THEN "AddressingException" ELSE "Ignored", NoValue)
            /\ UNCHANGED <<content, modified>>
       ELSE IF lost[p]
       THEN /\ Answer("Write", p, v, "DiscardFault", NoValue)
            /\ UNCHANGED <<content, modified>>
       ELSE /\ Answer("Write", p, v, "Done", NoValue)
            /\ content' = [content EXCEPT ![p] = v]
            /\ modified' = [modified EXCEPT ![p] = TRUE]

\* The guest has written the page back to its own backing store and resets
\* the change bit, so that a P page may be lost again (D7).
ClearDirty(p) ==
    /\ modified[p]
    /\ modified' = [modified EXCEPT ![p] = FALSE]
    /\ Answer("ClearDirty", p, NoValue, "Done", NoValue)
    /\ UNCHANGED <<usage, content, lost>>

(***************************************************************************)
(* "In case of z/VM as the host, the initial page state is stable,         *)
(* logically zero (Sz)."                                                   *)
(***************************************************************************)
Init ==
    /\ usage    = [p \in Pages |-> "S"]
    /\ content  = [p \in Pages |-> Zero]
    /\ modified = [p \in Pages |-> FALSE]
    /\ lost     = [p \in Pages |-> FALSE]
    /\ answer   = [op |-> "Init", page |-> NoPage, arg |-> NoValue,
                   outcome |-> "None", value |-> NoValue]

Next ==
    \/ HostWork
    \/ \E p \in Pages :
        \/ Lose(p)
        \/ SetStable(p) \/ SetUnused(p) \/ SetVolatile(p) \/ SetPotentialVolatile(p)
        \/ SetStableIfNotDiscarded(p) \/ Extract(p) \/ Read(p) \/ ClearDirty(p)
        \/ \E v \in Values : Write(p, v)

Spec == Init /\ [][Next]_gvars

\* The step named op on page p with argument v (the value of a Write), for a
\* refinement check that replays a concrete step as exactly the abstract
\* action it claims to be (a disjunct of Next, so [][Perform(..)]_gvars with
\* Init implies Spec).  A host step is either invisible or a loss on page p.
Perform(op, p, v) ==
    CASE op = "Host"                    -> HostWork \/ Lose(p)
      [] op = "SetStable"               -> SetStable(p)
      [] op = "SetUnused"               -> SetUnused(p)
      [] op = "SetVolatile"             -> SetVolatile(p)
      [] op = "SetPotentialVolatile"    -> SetPotentialVolatile(p)
      [] op = "SetStableIfNotDiscarded" -> SetStableIfNotDiscarded(p)
      [] op = "Extract"                 -> Extract(p)
      [] op = "Read"                    -> Read(p)
      [] op = "Write"                   -> Write(p, v)
      [] op = "ClearDirty"              -> ClearDirty(p)
      [] OTHER                          -> FALSE

=============================================================================
