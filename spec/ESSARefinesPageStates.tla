------------------------- MODULE ESSARefinesPageStates -------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  One promise, refinement: the 2007 model   *)
(* of ESSA is an implementation of the paper's page-state machine, "uses a *)
(* simplified state machine" (paper 4), so every promise of PageStates.tla *)
(* holds of it.                                                            *)
(*                                                                         *)
(*   Refinement. RefinesZVMInit, RefinesZVMStep and RefinesZVMSpec: under  *)
(*       the mapping below, every behaviour of ESSA under Paper2007 is a   *)
(*       behaviour of PageStates.tla in its z/VM-prototype variant. The    *)
(*       THEOREM at the end names the model that checks it, the twin that  *)
(*       fails it, and the KVM implementations' counterexamples, findings  *)
(*       F1 to F4.                                                         *)
(*                                                                         *)
(* The ghosts psIntended and psModified apply PageStates' own rule to the  *)
(* mapped steps (GhostNext, with SetStableIfNotDiscarded's Success keeping *)
(* what is owed, D359).  They cannot excuse a loss: what the guest is owed *)
(* is checked by ESSARefinesGuestMemory.tla, whose mapping reads neither.  *)
(***************************************************************************)
(***************************************************************************)
(* ESSA (ESSA.tla) as an implementation of the page-state machine          *)
(* (PageStates.tla) in its z/VM-prototype variant (paper Figure 3: Sr Sp   *)
(* Sz Ur Uz Vr Vz Pr, host service, addressing exception on U).            *)
(*                                                                         *)
(* Why that variant: docs/sources.md section 6 gives the 2007 model's      *)
(* "Valid states: Sr Sp Sz Ur Uz Vr Vz Pr (no Up: an unused page is        *)
(* discarded, not paged out; no Vp: a volatile page is discarded on        *)
(* eviction; no Pp: a dirty P page is evicted as Sp, a clean one discarded *)
(* to Vz; no Pz: Vz instead)", which is the paper's section 4 machine      *)
(* ("collapses the two discarded states Vz and Pz, and does not have the   *)
(* preserved volatile states Up, Vp and Pp"); its guest requests are ESSA  *)
(* operations, i.e. host service calls; "An access to a U page raises an   *)
(* addressing exception; an access to Vz the discard fault".               *)
(*                                                                         *)
(* The refinement mapping (state functions of ESSA's variables and the     *)
(* auxiliary variables below):                                             *)
(*   residency  valid -> r, else swapped -> p, else z (the host's truth:   *)
(*              a frame, a swap copy, or nothing; not what ESSA reports,   *)
(*              which Extract's outcome is checked against);               *)
(*   usage      the PGSTE usage, unchanged;                                *)
(*   data       data (ESSA keeps 0 where there is neither frame nor copy); *)
(*   dirty      the storage key's change bit where the page has content    *)
(*              (a frame or a copy); z has none: PageStates' HostDiscard   *)
(*              and HostZeroFill clear it, as z/VM's discard "resets the   *)
(*              reference and change bits" (sources [Z5]);                 *)
(*   intended, modified, requested   PageStates' own ghosts (what the      *)
(*              guest may read back, its stores, the usage it last asked   *)
(*              for: D10, D11, D425), kept by history variables that apply *)
(*              PageStates' rule to the mapped steps: ESSA's guest has     *)
(*              ghosts of its own (owed, belief), which are the guest's    *)
(*              view, not the machine's;                                   *)
(*   lastOp     a history variable: the PageStates step that the last      *)
(*              non-stuttering step was.                                   *)
(*                                                                         *)
(* Which PageStates step each ESSA step is:                                *)
(*   ORC 0 -> Extract (the outcome is the state name R1 encodes),          *)
(*   ORC 1 -> SetStable, 2 -> SetUnused, 3 -> SetVolatile,                 *)
(*   4 -> SetPotentialVolatile, 6 -> SetStableIfNotDiscarded (failure is   *)
(*   what the 2007 guest reads as failure: "old state = V and logically    *)
(*   zero", sources 6), 7 -> SetStable (N is an extension, below);         *)
(*   a refused ESSA (any program interruption, the exception indication)   *)
(*   changes no page state: a stuttering step;                             *)
(*   a load or store -> Read / Write, its outcome and value as recorded;   *)
(*   the writeback's change-bit reset -> ClearDirty;                       *)
(*   HostReclaim -> HostPreserve if a swap copy is kept, else HostDiscard; *)
(*   a CBRL entry whose zap drops a swap copy -> HostDiscard of the page   *)
(*   zapped; one that drops nothing is a stuttering step;                  *)
(*   the new gmap's aging and unmapping touch no mapped variable           *)
(*   (stuttering); Migrate and a CMMA reset are no PageStates step: if     *)
(*   they change the mapped state, the refinement fails there.             *)
(*                                                                         *)
(* One ESSA step, two PageStates steps.  ESSA's access to a page that is   *)
(* not in a frame is one step (the host's fault and the access), where    *)
(* PageStates has two: HostPageIn or HostZeroFill ("Sz -> Sr on first     *)
(* access ... Sp -> Sr on access", sources 6), then the Read or Write      *)
(* (D12).  And the 2007 ORC 5 (SET_STABLE_MAKE_RESIDENT, sources 1) on a    *)
(* page not in a frame is SetStable followed by that fault.  Both are      *)
(* handled by a stuttering variable (Abadi and Lamport; Lamport and Merz,  *)
(* "Auxiliary variables in TLA+"): `split` names the page whose first      *)
(* abstract step has been taken by an added step that changes no ESSA      *)
(* variable, and the ESSA step that follows must be that page's access    *)
(* (or ORC 5).  The added step is offered only when the ESSA step it       *)
(* prepares is enabled, and it leaves every ESSA variable alone, so every  *)
(* ESSA behaviour, with added steps, is a behaviour of AugSpec, and every  *)
(* behaviour of AugSpec is an ESSA behaviour with stuttering: proving      *)
(* AugSpec => PS!Spec proves ESSA's Spec => \EE aux : PS!Spec.  It is      *)
(* offered only where PageStates has that host step (HostPageIn needs a    *)
(* preserved page not U, HostZeroFill a stable zero page): where it has    *)
(* none, the access is checked as a single Read or Write, and a page the   *)
(* paper's machine would not let through (Vz: the discard fault) fails.   *)
(*                                                                         *)
(* The extensions.  N (nodat, ORC 7) is not in the paper: it is not        *)
(* mapped, so a step that changes only N is stuttering, and ORC 7 is      *)
(* SetStable of the page.  In the 2007 model ORC 7 did not exist (a        *)
(* specification exception, D104) and N never changes, so there it is      *)
(* dead; for KVM it is the SetStable its usage says.  ORC 5 is handled     *)
(* by the split above; no guest of ESSA's Next issues it (it is in         *)
(* InstructionSpec only), so Spec's refinement does not depend on it.     *)
(* With the bare instruction the refinement holds too                      *)
(* (model/MCESSARefines_Paper2007Instruction.cfg) because the 2007 host's  *)
(* discards reset the storage key's change bit (sources [Z5]: a discard    *)
(* "resets the reference and change bits"; D6, D347): ORC 5 on a          *)
(* discarded page makes it resident and clean, as PageStates' fresh zero  *)
(* frame.  A host that kept the bit would fail it there                    *)
(* (MCESSARefines_Twin_DiscardKeepsChangeBit).  A writeback of a page      *)
(* without content (z) resets no mapped change bit: a stuttering step,    *)
(* not ClearDirty.                                                         *)
(* The CBRL, Z, GC and the gmap's own state are not mapped: they are how   *)
(* KVM implements the host, and the refinement says whether the usage and *)
(* residency they produce are the paper's.                                 *)
(*                                                                         *)
(* Properties (checked by model/MCESSARefines.tla):                        *)
(*   RefinesZVMInit  the initial states map to PageStates' Init           *)
(*                   ("the initial page state is stable, logically zero    *)
(*                   (Sz)", paper section 2);                              *)
(*   RefinesZVMStep  every step is the PageStates step it maps to          *)
(*                   (replayed as that very action through Perform), or    *)
(*                   changes no mapped variable; with RefinesZVMInit this  *)
(*                   is AugSpec => PS!Spec, and the step form names the    *)
(*                   action a counterexample breaks;                       *)
(*   RefinesZVMSpec  PS!Spec itself, the refinement as a formula.          *)
(***************************************************************************)
EXTENDS ESSA

VARIABLES
    \* @type: PAGE;
    split,          \* the page whose access (or ORC 5) is split in two; NoPage if none
    \* @type: Str;
    splitKind,      \* "Fault": the host's fault was taken; "Stable": ORC 5's SetStable was
    \* @type: PAGE -> Int;
    psIntended,     \* PageStates' ghost intended, kept by its own rule
    \* @type: PAGE -> Bool;
    psModified,     \* PageStates' ghost modified, kept by its own rule
    \* @type: PAGE -> Str;
    psRequested,    \* PageStates' ghost requested, kept by its own rule
    \* @type: { op: Str, page: PAGE, arg: Int, outcome: Str, value: Int };
    psLastOp,       \* the PageStates step last taken
    \* @type: Bool;
    psMoved         \* the last step was a PageStates step (else it was stuttering)

auxVars == <<split, splitKind, psIntended, psModified, psRequested, psLastOp, psMoved>>
augVars == <<vars, auxVars>>

Zero == 0

(***************************************************************************)
(* The mapped state.                                                       *)
(***************************************************************************)
AbsUsage == [p \in Pages |-> IF split = p /\ splitKind = "Stable" THEN "S" ELSE usage[p]]
AbsResid == [p \in Pages |->
                IF valid[p] \/ (split = p /\ splitKind = "Fault") THEN "r"
                ELSE IF swapped[p] THEN "p" ELSE "z"]
AbsDirty == [p \in Pages |-> keyDirty[p] /\ (valid[p] \/ swapped[p])]
\* The mapped page state outside a split, of ESSA's variables alone.
HostTruth == <<usage, [p \in Pages |-> IF valid[p] THEN "r" ELSE IF swapped[p] THEN "p" ELSE "z"],
               AbsDirty, data>>

PS == INSTANCE PageStates
        WITH Values <- {Zero, Written}, HostService <- TRUE,
             UnusedAccess <- "AddressingException", Variant <- "ZVMPrototype",
             usage <- AbsUsage, resid <- AbsResid, dirty <- AbsDirty, data <- data,
             intended <- psIntended, modified <- psModified, requested <- psRequested,
             lastOp <- psLastOp

\* The page-state variables the mapping defines (PageStates' vars, through the instance).
psVars == <<AbsUsage, AbsResid, AbsDirty, data, psIntended, psModified, psRequested, psLastOp>>

(***************************************************************************)
(* Which PageStates step the step is: a record like PageStates' lastOp,    *)
(* or op "None" for a stuttering step, or the ESSA op's own name for a     *)
(* step that has no counterpart (Migrate, HostResetCMMA).                   *)
(***************************************************************************)
AbsRec(op, p, arg, outcome, value) ==
    [op |-> op, page |-> p, arg |-> arg, outcome |-> outcome, value |-> value]
NoStep == AbsRec("None", NoPage, NoValue, "None", NoValue)

\* The state name R1 encodes (sources 1): content 0 r, 2 p, 3 z; usage 0 S, 4 U, 8 P, 12 V.
ReportedName(r) ==
    LET c == r % 4
        u == (r % 16) \div 4
    IN  PS!StateName(CASE u = 0 -> "S" [] u = 1 -> "U" [] u = 2 -> "P" [] OTHER -> "V",
                     CASE c = 0 -> "r" [] c = 2 -> "p" [] OTHER -> "z")

\* An ESSA that was performed (not refused), by its ORC.
\* @type: ({ op: Str, page: PAGE, orc: Int, result: Int, outcome: Str, value: Int }) => Bool;
Performed(o) == o.orc \in ORCs /\ o.outcome \in {"Done", "Interpreted"} /\ o.page \in Pages
\* @type: ({ op: Str, page: PAGE, orc: Int, result: Int, outcome: Str, value: Int }) => { op: Str, page: PAGE, arg: Int, outcome: Str, value: Int };
EssaStep(o) ==
    LET p == o.page IN
    CASE o.orc = 0 -> AbsRec("Extract", p, NoValue, ReportedName(o.result), NoValue)
      [] o.orc = 1 -> AbsRec("SetStable", p, NoValue, "Done", NoValue)
      [] o.orc = 2 -> AbsRec("SetUnused", p, NoValue, "Done", NoValue)
      [] o.orc = 3 -> AbsRec("SetVolatile", p, NoValue, "Done", NoValue)
      [] o.orc = 4 -> AbsRec("SetPotentialVolatile", p, NoValue, "Done", NoValue)
      \* ORC 5 after its split: the page-in that completes it; unsplit: SetStable.
      [] o.orc = 5 /\ split = p -> AbsRec(IF swapped[p] THEN "HostPageIn" ELSE "HostZeroFill",
                                         p, NoValue, "Done", NoValue)
      [] o.orc = 5 -> AbsRec("SetStable", p, NoValue, "Done", NoValue)
      [] o.orc = 6 -> AbsRec("SetStableIfNotDiscarded", p, NoValue,
                             IF o.result % 16 = 15 THEN "Failure" ELSE "Success", NoValue)
      [] OTHER     -> AbsRec("SetStable", p, NoValue, "Done", NoValue)   \* ORC 7

\* The page whose swap copy a CBRL zap dropped, if any.
Zapped == {t \in Pages : swapped[t] /\ ~swapped'[t]}

\* The step of an ESSA action (lastOp' is its record).
ConcreteStep ==
    LET o == lastOp'
        p == o.page
    IN  IF o.op \in {"GuestRead", "Read"}
        THEN AbsRec("Read", p, NoValue, o.outcome, o.value)
        ELSE IF o.op \in {"GuestWrite", "Write"}
        THEN AbsRec("Write", p, o.value, o.outcome, NoValue)
        ELSE IF o.op \in {"GuestWriteback", "Writeback"}
        THEN IF AbsDirty[p] THEN AbsRec("ClearDirty", p, NoValue, "Done", NoValue)
             ELSE NoStep   \* no change bit to reset: the page has no content (z)
        ELSE IF o.op = "HostReclaim"
        THEN AbsRec(IF swapped'[p] THEN "HostPreserve" ELSE "HostDiscard", p, NoValue, "Done", NoValue)
        ELSE IF o.op = "HostProcessCBRL"
        THEN IF Zapped = {} THEN NoStep
             ELSE AbsRec("HostDiscard", CHOOSE t \in Zapped : TRUE, NoValue, "Done", NoValue)
        ELSE IF o.op \in {"HostAge", "HostUnmapGmap"} THEN NoStep
        ELSE IF o.op \in {"Migrate", "HostResetCMMA"}
        THEN IF HostTruth' = HostTruth THEN NoStep   \* (UNCHANGED, which Apalache reads as an assignment)
             ELSE AbsRec(o.op, NoPage, NoValue, "Done", NoValue)
        ELSE IF Performed(o) THEN EssaStep(o)
        ELSE NoStep   \* a refused ESSA

(***************************************************************************)
(* The split.  FaultSplit(p): an access to p needs the host's fault (no    *)
(* frame, and no program interruption) and PageStates has that fault.     *)
(* StableSplit(p): the 2007 ORC 5 on a page not in a frame.  An access    *)
(* or ORC 5 the split prepares, and only that, may follow it.             *)
(***************************************************************************)
AccessOps == {"GuestRead", "Read", "GuestWrite", "Write"}
FaultSplit(p) ==
    /\ ~valid[p] /\ ~AccessFault(p)
    /\ IF swapped[p] THEN AbsUsage[p] # "U" ELSE AbsUsage[p] = "S"
StableSplit(p) ==
    /\ Impl = "Paper2007" /\ ~valid[p]
    /\ CMMAOn /\ ~SpecificationException(5)
\* The ESSA step on p the split prepares (lastOp' is its record).
SplitStep(p, kind) ==
    /\ lastOp'.page = p
    /\ IF kind = "Fault" THEN lastOp'.op \in AccessOps
       ELSE lastOp'.orc = 5 /\ Performed(lastOp')
\* The step an unsplit ESSA step must not be: one a split would have prepared.
NeedsSplit ==
    LET p == lastOp'.page
    IN  /\ p \in Pages
        /\ \/ lastOp'.op \in AccessOps /\ FaultSplit(p)
           \/ lastOp'.orc = 5 /\ Performed(lastOp') /\ StableSplit(p)

(***************************************************************************)
(* PageStates' ghosts, by its own rule (ApplyPrimitive, Write, ClearDirty), *)
(* applied to the mapped step a with the mapped state before and after.    *)
(***************************************************************************)
\* The usage each primitive asks for (a function of the op's name: a record, which TLC
\* takes as the same value, is indexed only by a literal field in Apalache).
Targets == [o \in {"SetStable", "SetUnused", "SetVolatile", "SetPotentialVolatile",
                   "SetStableIfNotDiscarded"} |->
                CASE o = "SetUnused" -> "U" [] o = "SetVolatile" -> "V"
                  [] o = "SetPotentialVolatile" -> "P" [] OTHER -> "S"]
\* @type: ({ op: Str, page: PAGE, arg: Int, outcome: Str, value: Int }) => Bool;
GhostNext(a) ==
    LET p == a.page
        gaveUp == psRequested[p] \in {"U", "V"} \/ (psRequested[p] = "P" /\ ~psModified[p])
    IN  IF a.op \in DOMAIN Targets /\ a.outcome # "Failure"
        THEN /\ psIntended' = [psIntended EXCEPT ![p] =
                                 IF Targets[a.op] = "U" THEN NoValue
                                 ELSE IF a.op = "SetStable" /\ gaveUp THEN NoValue
                                 ELSE @]
             /\ psModified' = [psModified EXCEPT ![p] =
                                 IF Targets[a.op] = "U" \/ psRequested[p] = "V" THEN FALSE ELSE @]
             /\ psRequested' = [psRequested EXCEPT ![p] = Targets[a.op]]
        ELSE IF a.op = "Write" /\ a.outcome = "Done"
        THEN /\ psIntended' = [psIntended EXCEPT ![p] = a.arg]
             /\ psModified' = [psModified EXCEPT ![p] = TRUE]
             /\ UNCHANGED psRequested
        ELSE IF a.op = "ClearDirty"
        THEN /\ psModified' = [psModified EXCEPT ![p] = FALSE]
             /\ UNCHANGED <<psIntended, psRequested>>
        ELSE UNCHANGED <<psIntended, psModified, psRequested>>

\* Record a mapped step: PageStates steps only; a stuttering step leaves lastOp.
\* @type: ({ op: Str, page: PAGE, arg: Int, outcome: Str, value: Int }) => Bool;
RecordAbs(a) ==
    /\ psLastOp' = IF a.op = "None" THEN psLastOp ELSE a
    /\ psMoved' = (a.op # "None")
    /\ IF a.op = "None" THEN UNCHANGED <<psIntended, psModified, psRequested>> ELSE GhostNext(a)

(***************************************************************************)
(* The augmented specification.  The concrete step is any step of the      *)
(* specification given (ConcreteNext): ESSA's Next, or InstructionSpec's.  *)
(***************************************************************************)
AugInit(concreteInit) ==
    /\ concreteInit
    /\ split = NoPage /\ splitKind = "Fault"
    /\ psIntended = [p \in Pages |-> Zero]
    /\ psModified = [p \in Pages |-> FALSE]
    /\ psRequested = [p \in Pages |-> "S"]
    /\ psLastOp = AbsRec("Init", NoPage, NoValue, "None", NoValue)
    /\ psMoved = FALSE

\* The added step: the first abstract step of a split, only if the step it
\* prepares is enabled; no ESSA variable changes.
AddSplit(ConcreteNext) ==
    /\ split = NoPage
    /\ \E p \in Pages, kind \in {"Fault", "Stable"} :
        /\ IF kind = "Fault" THEN FaultSplit(p) ELSE StableSplit(p)
        /\ ENABLED (ConcreteNext /\ SplitStep(p, kind))
        /\ split' = p /\ splitKind' = kind
        /\ LET a == IF kind = "Fault"
                    THEN AbsRec(IF swapped[p] THEN "HostPageIn" ELSE "HostZeroFill",
                                p, NoValue, "Done", NoValue)
                    ELSE AbsRec("SetStable", p, NoValue, "Done", NoValue)
           IN  RecordAbs(a)
    /\ UNCHANGED vars

\* A concrete step: after a split only the step it prepared; otherwise any
\* step a split would not have prepared.
DoConcrete(ConcreteNext) ==
    /\ ConcreteNext
    /\ IF split # NoPage THEN SplitStep(split, splitKind) ELSE ~NeedsSplit
    /\ split' = NoPage /\ splitKind' = "Fault"
    \* (named once: Apalache inlines an operator's argument at every use, a LET it keeps)
    /\ LET a == ConcreteStep IN RecordAbs(a)

AugNext(ConcreteNext) == AddSplit(ConcreteNext) \/ DoConcrete(ConcreteNext)

AugSpec == AugInit(Init) /\ [][AugNext(Next)]_augVars

(***************************************************************************)
(* The refinement.                                                          *)
(***************************************************************************)
RefinesZVMInit == PS!Init
\* A mapped step that is a PageStates step is that very action (Perform, a
\* disjunct of PS!Next); any other step changes no mapped variable.
RefinesZVMStepPred ==
    IF psMoved'
    THEN PS!Perform(psLastOp'.op, psLastOp'.page, psLastOp'.arg)
    ELSE UNCHANGED psVars
RefinesZVMStep == [][RefinesZVMStepPred]_augVars
RefinesZVMSpec == PS!Spec

\* Refinement.  MCESSARefines_Paper2007 (MCESSARefines_Paper2007TwoPages, deep: two pages, which
\* finding F8's kind of bug needs); twin MCESSARefines_Twin_UnusedKeepsCopy; the KVM
\* implementations fail it, findings F1 to F4 as its counterexamples
\* (MCESSARefines_Finding_F1_KVMClassic to MCESSARefines_Finding_F4_KVMGmap).
THEOREM (Impl = "Paper2007" /\ ~StorageKeys /\ ~ModernGuest /\ CMMAEnabled)
            => (AugSpec => RefinesZVMInit /\ RefinesZVMStep /\ RefinesZVMSpec)

=============================================================================
