------------------------- MODULE PageStateProperties -------------------------
(***************************************************************************)
(* Contract: the promises of PageStates.tla (its opening comment,          *)
(* docs/contract.md) are StableContentKeptInv, ReadResultInv,              *)
(* DiscardFaultOnlyWhenDiscardedInv, UnusedAccessInv,                      *)
(* GuestKeepsResidencyProp, HostDiscardsOnlyDiscardableProp and            *)
(* WaitingAccessServedProp; their THEOREMs are gathered at the end of this *)
(* module, naming the model that checks it.  The other properties here     *)
(* check types and bookkeeping.  The step checks, each restating what one  *)
(* step does, are in PageStatesStepChecks.tla, apart from the contract.    *)
(***************************************************************************)
(***************************************************************************)
(* What the page-state machine of PageStates.tla must guarantee.           *)
(*                                                                         *)
(* Each property is stated from the seed sentences it quotes, in terms of  *)
(* the state variables and the guest's observation lastOp, and never      *)
(* through the machine's decision operators (Discardable, SSINDSucceeds,   *)
(* AccessOutcome, PrimitiveResult, Normalise, PageInDirty): the broken     *)
(* twins in model/MCPageStates*_Twins.tla replace those operators or a     *)
(* step, and a property that used them would be broken along with          *)
(* the machine.  Every property has such a twin, listed in                 *)
(* model/manifest.json.                                                    *)
(*                                                                         *)
(* Naming: invariants end in Inv, action properties in Prop.               *)
(***************************************************************************)
EXTENDS PageStates

\* The observation of the step that led to this state.
Obs == lastOp
ObsPage == lastOp.page

TypeOK ==
    /\ usage \in [Pages -> Usages]
    /\ resid \in [Pages -> Residencies]
    /\ dirty \in [Pages -> BOOLEAN]
    /\ data \in [Pages -> Values]
    /\ intended \in [Pages -> Values \cup {NoValue}]
    /\ modified \in [Pages -> BOOLEAN]
    /\ requested \in [Pages -> Usages]
    /\ lastOp.op \in GuestOps \cup HostOps \cup {"Init"}
    /\ lastOp.page \in Pages \cup {NoPage}
    /\ lastOp.arg \in Values \cup {NoValue}
    /\ lastOp.value \in Values \cup {NoValue}
    \* Extract reports a two-letter state; every other step one of Outcomes.
    /\ lastOp.op # "Extract" => lastOp.outcome \in Outcomes

(***************************************************************************)
(* VariantStatesInv.  The paper, section 2: the machine "can be simplified *)
(* in several ways": "Collapse the two discarded states Vz and Pz to a     *)
(* single discarded state Vz", "Remove the Vp state", "Remove the Pp       *)
(* state", "Remove the potentially volatile P page usage state"; section   *)
(* 4: z/VM "uses a simplified state machine that collapses the two         *)
(* discarded states Vz and Pz, and does not have the preserved volatile    *)
(* states Up, Vp and Pp".  Every page is always in a state its machine     *)
(* has.  The state sets are written out here from those sentences, not    *)
(* taken from HasState, so that a machine whose own idea of its states is  *)
(* wrong is caught too.  (Refinement of the full machine cannot see a      *)
(* collapsed machine that produces Pz: Pz is a state of the full machine.) *)
(***************************************************************************)
AllStates == {"Sr", "Sp", "Sz", "Ur", "Up", "Uz", "Vr", "Vp", "Vz", "Pr", "Pp", "Pz"}
VariantStates ==
    CASE Variant = "Full"              -> AllStates
      [] Variant = "OneDiscardedState" -> AllStates \ {"Pz"}
      [] Variant = "NoVp"              -> AllStates \ {"Vp"}
      [] Variant = "NoPp"              -> AllStates \ {"Pp"}
      [] Variant = "NoP"               -> AllStates \ {"Pr", "Pp", "Pz"}
      [] Variant = "ZVMPrototype"      -> {"Sr", "Sp", "Sz", "Ur", "Uz", "Vr", "Vz", "Pr"}

VariantStatesInv == \A p \in Pages : StateName(usage[p], resid[p]) \in VariantStates

\* What VariantStatesInv is about (its witness, model/manifest.json): a page
\* in a discarded state, where a collapsed machine would show Pz.
SomePageDiscarded == \E p \in Pages : usage[p] \in {"V", "P"} /\ resid[p] = "z"

(***************************************************************************)
(* StableContentKeptInv.  "Stable (S): ... the host is responsible for     *)
(* preserving the page content."  "Potential Volatile (P): ... The guest   *)
(* can tolerate the loss of the page content as long as the page has not   *)
(* been modified."  So the content of every stable page, and of every P    *)
(* page the guest modified and has not written back, is what the guest is *)
(* entitled to read: never lost, never altered.  "Modified" is the guest's *)
(* own record (the ghost modified, D11), not the machine's dirty bit: a    *)
(* machine that loses the change bit, or clears it with the content it     *)
(* drops, must not be able to excuse the loss by its own bookkeeping.      *)
(***************************************************************************)
StableContentKeptInv ==
    \A p \in Pages :
        (/\ intended[p] # NoValue
         /\ (usage[p] = "S" \/ (usage[p] = "P" /\ modified[p])))
        => IF resid[p] = "z" THEN intended[p] = 0 ELSE data[p] = intended[p]

(***************************************************************************)
(* ReadResultInv.  A read returns the value the guest last wrote, or zero  *)
(* where the page's content is defined to be zero (intended, D10), or it   *)
(* raises a discard fault: never a silent wrong value, and never a value   *)
(* at all from a discarded page ("If a guest accesses a Vz or Pz page, the *)
(* host will present a special discard fault to notify the guest that the *)
(* page has been removed").                                                *)
(***************************************************************************)
ReadResultInv ==
    (Obs.op = "Read" /\ Obs.outcome = "Value") =>
        /\ ~(usage[ObsPage] \in {"V", "P"} /\ resid[ObsPage] = "z")
        /\ intended[ObsPage] # NoValue => Obs.value = intended[ObsPage]

(***************************************************************************)
(* DiscardFaultOnlyWhenDiscardedInv.  "The states Vz and Pz mark the      *)
(* special 'discarded' condition of a page entered through a previous host *)
(* discard operation.  If a guest accesses a Vz or Pz page, the host will  *)
(* present a special discard fault."  A discard fault on any other page    *)
(* would make the guest throw away content it still has.  (An access does  *)
(* not change the page state, so the post-state is the state accessed.)   *)
(***************************************************************************)
DiscardFaultOnlyWhenDiscardedInv ==
    (Obs.op \in {"Read", "Write"} /\ Obs.outcome = "DiscardFault") =>
        usage[ObsPage] \in {"V", "P"} /\ resid[ObsPage] = "z"

(***************************************************************************)
(* UnusedAccessInv.  "A guest access to an unused page is a programming   *)
(* error, the host implementation can either return an arbitrary value to *)
(* the guest instruction - preferably zero for security reasons - or      *)
(* present some kind of exception."  z/VM: "any access to the page will    *)
(* cause an addressing exception" ([Z1]).  Where the profile says the      *)
(* page reads as zero, no stale content of the page is ever exposed.       *)
(***************************************************************************)
UnusedAccessInv ==
    (Obs.op \in {"Read", "Write"} /\ usage[ObsPage] = "U") =>
        IF UnusedAccess = "AddressingException"
        THEN Obs.outcome = "AddressingException"
        ELSE IF Obs.op = "Read"
             THEN Obs.outcome = "Value" /\ Obs.value = 0
             ELSE Obs.outcome = "Ignored"

(***************************************************************************)
(* HostDiscardsOnlyDiscardableProp.  "The host may discard the page        *)
(* content" of U "at will"; V "can tolerate the loss"; P only "as long as  *)
(* the page has not been modified"; for S "the host is responsible for     *)
(* preserving the page content".  So any step that drops a page's content *)
(* (resident or preserved becomes logically zero), whether a host action   *)
(* or an implicit host transition on a guest call, does so only to U, V   *)
(* and clean P pages, judged by the state before the step.  (A guest       *)
(* primitive judges the usage it requests for the page it names:        *)
(* SetUnused on Sp may drop that page, and no other.)                    *)
(***************************************************************************)
DiscardStep ==
    \A p \in Pages :
        (resid[p] \in {"r", "p"} /\ resid'[p] = "z") =>
            LET u == IF p # lastOp'.page THEN usage[p]
                     ELSE IF lastOp'.op = "SetUnused" THEN "U"
                     ELSE IF lastOp'.op = "SetVolatile" THEN "V"
                     ELSE IF lastOp'.op = "SetPotentialVolatile" THEN "P"
                     ELSE usage[p]
            IN  u \in {"U", "V"} \/ (u = "P" /\ ~dirty[p])

HostDiscardsOnlyDiscardableProp == [][DiscardStep]_vars

(***************************************************************************)
(* GuestKeepsResidencyProp.  "Only the host must be allowed to modify the  *)
(* residency state; modifications by the guest would pose a serious      *)
(* functionality and security problem."  A guest step changes residency   *)
(* only through the named implicit host transitions, which need a host    *)
(* service and only ever free backing storage (preserved -> logically     *)
(* zero) of the page the guest named:                                      *)
(*   {S,V,P}p -SetUnused-> Uz           (paper, section 2)                 *)
(*   Xp -SetVolatile-> Vz               (no Vp)                            *)
(*   Xp -SetPotentialVolatile-> Pz/Vz   (no Pp, page clean)                *)
(***************************************************************************)
GuestResidencyStep ==
    lastOp'.op \in GuestOps =>
        \A p \in Pages :
            \/ resid'[p] = resid[p]
            \/ /\ HostService
               /\ p = lastOp'.page
               /\ resid[p] = "p" /\ resid'[p] = "z"
               /\ lastOp'.op \in {"SetUnused", "SetVolatile", "SetPotentialVolatile"}

GuestKeepsResidencyProp == [][GuestResidencyStep]_vars

\* Witnesses (model/manifest.json, D130): what each property is about, which the
\* model that checks it must reach; a state for an invariant, a step for a Prop.
ReadOfOwedValue       == Obs.op = "Read" /\ Obs.outcome = "Value" /\ intended[ObsPage] # NoValue
DiscardFaultObserved  == Obs.op \in {"Read", "Write"} /\ Obs.outcome = "DiscardFault"
UnusedPageAccessed    == Obs.op \in {"Read", "Write"} /\ usage[ObsPage] = "U"
\* (HostDiscardsOnlyDiscardableProp.)  A P page whose content the guest wrote and then wrote
\* back (ClearDirty, D7) is discarded by the host: the half of "as long as the page has not
\* been modified" that lets the host discard it, with content at stake (non-zero data).
WrittenBackPDiscarded == LET p == lastOp'.page
                         IN  lastOp'.op = "HostDiscard" /\ usage[p] = "P" /\ data[p] # 0
GuestChangesResidency == lastOp'.op \in GuestOps /\ \E p \in Pages : resid'[p] # resid[p]
\* (StableContentKeptInv, and IndInv of PageStatesInductive.tla, which implies it.)
StableContentAtStake ==
    \E p \in Pages : intended[p] \notin {NoValue, 0} /\ usage[p] = "S" /\ resid[p] # "r"

\* (RefinesFullMachine, PageStatesRefinesFull.tla.)  The two implicit usage transitions of a host step: a dirty P page
\* preserved as Sp in a machine without Pp; a P page discarded as Vz in a collapsed machine.
DirtyPPreservedAsS == LET p == lastOp'.page
                      IN  lastOp'.op = "HostPreserve" /\ usage[p] = "P" /\ usage'[p] = "S"
PDiscardedAsV      == LET p == lastOp'.page
                      IN  lastOp'.op = "HostDiscard" /\ usage[p] = "P" /\ usage'[p] = "V"

\* (StableContentKeptInv, its P half.)  A P page the guest stored to and has not written
\* back, preserved with content other than zero: content the host must keep although the
\* page is potentially volatile ("as long as the page has not been modified"; D294).
ModifiedPPreserved == \E p \in Pages : usage[p] = "P" /\ modified[p] /\ resid[p] = "p" /\ intended[p] # 0

\* (StableContentKeptInv, its P half, across a primitive.)  A guest primitive other than
\* SetUnused has just completed on a page the guest had stored to: the store stays recorded,
\* so a P page made from it is one that "has been modified" (paper 2; D307).
ModifiedAcrossPrimitive ==
    /\ lastOp.op \in GuestPrimitives \ {"SetUnused"}
    /\ lastOp.outcome # "Failure"
    /\ modified[lastOp.page]

\* (StableContentKeptInv, across a primitive.)  A guest primitive other than SetUnused has just
\* completed on a page that holds content the guest is owed, other than zero: the primitives
\* change the usage, not what the guest may read back (D10; D296).
OwedAcrossPrimitive ==
    /\ lastOp.op \in GuestPrimitives \ {"SetUnused"}
    /\ lastOp.outcome # "Failure"
    /\ intended[lastOp.page] \notin {NoValue, 0}

(***************************************************************************)
(* WaitingAccessServedProp.  An access that waits for the host completes,  *)
(* and completes the way the access needs: every page an access would wait *)
(* on (neither resident, nor unused, nor discarded) eventually holds the   *)
(* content it held while the access waited, in a frame (the access reads   *)
(* it), or is discarded (the discard fault, "If a guest accesses a Vz or   *)
(* Pz page, the host will present a special discard fault"), or unused if  *)
(* the guest freed it meanwhile.  Sources 6: "Sz -> Sr on first access, Sp *)
(* -> Sr on access"; sources 2: "a guest touching a dropped page gets a    *)
(* fresh zero page from the ordinary fault handler".  FairSpec's fairness  *)
(* says only that the host takes a step that ends the wait; that the step  *)
(* brings back the content the page held (a fresh zero page for a zero     *)
(* one), and not some other page state, is the promise.  Stated from the   *)
(* state, not through AccessOutcome.  Checked under FairSpec               *)
(* (PageStates.tla).                                                       *)
(***************************************************************************)
AccessWaiting(p) ==
    /\ resid[p] # "r"
    /\ usage[p] # "U"
    /\ ~(usage[p] \in {"V", "P"} /\ resid[p] = "z")

WaitingAccessServedProp ==
    \A p \in Pages, v \in Values :
        (AccessWaiting(p) /\ data[p] = v)
            ~> \/ resid[p] = "r" /\ data[p] = v
               \/ ~AccessWaiting(p) /\ resid[p] # "r"

\* (WaitingAccessServedProp.)  The host pages in a preserved stable page: the fault of an
\* access that must not lose the content is served with the content.
StablePageInServed == lastOp'.op = "HostPageIn" /\ usage[lastOp'.page] = "S"

(***************************************************************************)
(* The contract of PageStates.tla as theorems.  TLC checks each in the     *)
(* models named (model/manifest.json lists the others and the twins); a    *)
(* THEOREM here is the claim, the model's .cfg is what backs it.           *)
(***************************************************************************)
\* No data loss.  MCPageStates_Full (every PageStates model; inductively MCPageStatesInductive_Full);
\* twin MCPageStates_Twin_StableContent.
THEOREM Spec => []StableContentKeptInv
\* Right answers.  MCPageStates_Full; twins MCPageStates_Twin_ReadResult, MCPageStates_Twin_DiscardFault.
THEOREM Spec => []ReadResultInv
THEOREM Spec => []DiscardFaultOnlyWhenDiscardedInv
\* Isolation.  MCPageStates_Full; twins MCPageStates_Twin_UnusedAccess, MCPageStates_Twin_GuestResidency.
THEOREM Spec => []UnusedAccessInv
THEOREM Spec => GuestKeepsResidencyProp
\* Discard only when allowed.  MCPageStates_Full; twin MCPageStates_Twin_DiscardDirtyP.
THEOREM Spec => HostDiscardsOnlyDiscardableProp
\* Progress.  MCPageStates_Liveness (MCPageStates_LivenessTwoPages, deep); twins
\* MCPageStates_Twin_NoZeroFill, MCPageStates_Twin_PpNotPagedIn.
THEOREM FairSpec => WaitingAccessServedProp

=============================================================================
