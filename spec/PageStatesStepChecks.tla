------------------------- MODULE PageStatesStepChecks --------------------------
(***************************************************************************)
(* Step checks of PageStates.tla, apart from its contract                  *)
(* (PageStateProperties.tla).                                              *)
(*                                                                         *)
(* Each property here restates what one step of the machine does, written  *)
(* out from the sources (the primitives' usages, SetStableIfNotDiscarded's *)
(* answer, Extract's two-letter name): it catches a wrong step at the step *)
(* that takes it, but it is not a promise a user of the design relies on   *)
(* (docs/contract.md, kind b).  The contract, the intent properties with   *)
(* their THEOREMs, the refinement and the liveness, is                     *)
(* PageStateProperties.tla's.  What an engine's step must do is judged by  *)
(* the conformance suite (conformance/), and the reference                 *)
(* implementation is equal to TLC's graph, which pins every transition.    *)
(*                                                                         *)
(* The models still check these properties (their .cfg files name them,    *)
(* and each keeps its broken twin and its witness in model/manifest.json). *)
(* A mutant of PageStates.tla that only a property here catches is classed *)
(* "step" by the mutation tooling, not "intent" (docs/mutation.md); no     *)
(* property is added here to kill a mutant.                                *)
(***************************************************************************)
EXTENDS PageStateProperties

(***************************************************************************)
(* PrimitiveSetsUsageProp.  "The primitives the host has to provide to the *)
(* guest are the following: SetStable, SetUnused, SetVolatile, and         *)
(* SetPotentialVolatile which set the page usage state to the requested    *)
(* target state (S, U, V, or P)" (paper 2).  After SetStable, SetUnused    *)
(* and SetVolatile the page has the usage asked for; after                 *)
(* SetPotentialVolatile it is P, or what an implicit transition the paper  *)
(* names gives instead: V for P on a zero page in a machine without Pz, S *)
(* for a dirty P page in a machine without Pp.                             *)
(***************************************************************************)
PrimitiveUsageStep ==
    LET p == lastOp'.page
    IN  /\ lastOp'.op = "SetStable" => usage'[p] = "S"
        /\ lastOp'.op = "SetUnused" => usage'[p] = "U"
        /\ lastOp'.op = "SetVolatile" => usage'[p] = "V"
        /\ lastOp'.op = "SetPotentialVolatile" => usage'[p] \in {"P", "V", "S"}
PrimitiveSetsUsageProp == [][PrimitiveUsageStep]_vars

\* What PrimitiveSetsUsageProp is about (its witness): a primitive that changes the usage.
PrimitiveChangesUsage ==
    lastOp'.op \in GuestPrimitives /\ lastOp'.page \in Pages
    /\ usage'[lastOp'.page] # usage[lastOp'.page]

(***************************************************************************)
(* SetStableIfNotDiscardedProp.  "SetStableIfNotDiscarded which only makes *)
(* a page stable if it has not been discarded."  It succeeds exactly when *)
(* the page was not discarded before the call, and when it succeeds the    *)
(* page is stable with its content intact.                                 *)
(***************************************************************************)
SSINDStep ==
    LET p == lastOp'.page
        wasDiscarded == usage[p] \in {"V", "P"} /\ resid[p] = "z"
    IN  lastOp'.op = "SetStableIfNotDiscarded" =>
            /\ (lastOp'.outcome = "Success") <=> ~wasDiscarded
            /\ lastOp'.outcome = "Success" =>
                   /\ usage'[p] = "S"
                   /\ (IF resid'[p] = "z" THEN 0 ELSE data'[p])
                      = (IF resid[p] = "z" THEN 0 ELSE data[p])

SetStableIfNotDiscardedProp == [][SSINDStep]_vars

(***************************************************************************)
(* HostKeepsUsageProp.  "While the usage state of a page is primarily     *)
(* modified by the guest, the page residency state is only to be modified *)
(* by the host"; "host page transitions can cause implicit guest state    *)
(* transitions" (paper, section 2), and the simplifications name which:   *)
(* "Collapse the two discarded states Vz and Pz to a single discarded     *)
(* state Vz"; "Remove the Pp state.  ... If the page dirty bit is set, the *)
(* host needs to preserve the page and will set the combined target state *)
(* to Sp.  If the page is clean the host can discard the page."  A host   *)
(* step changes no page's usage but by those: a P page it discards shows  *)
(* V in a machine whose discarded states are collapsed, and a dirty P page *)
(* it preserves becomes S in a machine without Pp.  A host that turned a   *)
(* clean P page stable would take away the guest's consent to lose it,    *)
(* which only the guest gives (D291).  The machines are named here, as in  *)
(* VariantStatesInv, not through HasPp or CollapseDiscarded.               *)
(***************************************************************************)
HostUsageStep ==
    lastOp'.op \in HostOps =>
        \A p \in Pages :
            usage'[p] # usage[p] =>
                /\ usage[p] = "P"
                /\ \/ /\ Variant \in {"OneDiscardedState", "ZVMPrototype"}
                      /\ resid'[p] = "z" /\ usage'[p] = "V"
                   \/ /\ Variant \in {"NoPp", "ZVMPrototype"}
                      /\ resid'[p] = "p" /\ dirty[p] /\ usage'[p] = "S"

HostKeepsUsageProp == [][HostUsageStep]_vars

(***************************************************************************)
(* ExtractReportsStateProp.  "the page residency state is only to be      *)
(* modified by the host, though the guest can query it"; "The page state  *)
(* ... defined by the cross product of the page usage state and the page  *)
(* residency state" (paper, section 2), queried with ESSA's extract       *)
(* operation (D15).  Extract reports the page's state as it is, by the    *)
(* paper's two-letter name, and changes nothing.  The names are written    *)
(* out here, not taken from StateName, so that a machine that names a     *)
(* state wrongly (and with it VariantStatesInv's view) is caught (D293).   *)
(***************************************************************************)
\* @type: Set(<<Str, Str, Str>>);
PaperNames ==
    {<<"S", "r", "Sr">>, <<"S", "p", "Sp">>, <<"S", "z", "Sz">>,
     <<"U", "r", "Ur">>, <<"U", "p", "Up">>, <<"U", "z", "Uz">>,
     <<"V", "r", "Vr">>, <<"V", "p", "Vp">>, <<"V", "z", "Vz">>,
     <<"P", "r", "Pr">>, <<"P", "p", "Pp">>, <<"P", "z", "Pz">>}

ExtractStep ==
    lastOp'.op = "Extract" =>
        LET p == lastOp'.page
        IN  /\ <<usage[p], resid[p], lastOp'.outcome>> \in PaperNames
            /\ <<usage', resid', dirty', data', intended', modified', requested'>>
               = <<usage, resid, dirty, data, intended, modified, requested>>

ExtractReportsStateProp == [][ExtractStep]_vars

(***************************************************************************)
(* PrimitiveOutcomeInv.  Paper 2: the host provides "SetStable,            *)
(* SetUnused, SetVolatile, and SetPotentialVolatile which set the page     *)
(* usage state to the requested target state (S, U, V, or P), and         *)
(* SetStableIfNotDiscarded which only makes a page stable if it has not    *)
(* been discarded".  The four set a state without a condition: they cannot *)
(* fail, and their only answer is that they were performed (Done).  Only   *)
(* SetStableIfNotDiscarded answers whether it did what was asked (Success  *)
(* or Failure), and the guest acts on that answer (it must refill the      *)
(* page after a Failure).  An engine that answered an unconditional         *)
(* primitive with Success would tell the guest that SetVolatile could have *)
(* failed.  The guest's write-back (ClearDirty) and the host's actions are *)
(* performed steps too (D309).  Every step answers the guest: "None" is   *)
(* the observation of Init alone, where nothing has been asked yet (D330). *)
(***************************************************************************)
PerformedOps == (GuestPrimitives \ {"SetStableIfNotDiscarded"}) \cup {"ClearDirty"} \cup HostOps

PrimitiveOutcomeInv ==
    /\ Obs.op \in PerformedOps => Obs.outcome = "Done"
    /\ Obs.op = "SetStableIfNotDiscarded" => Obs.outcome \in {"Success", "Failure"}
    /\ Obs.outcome = "None" <=> Obs.op = "Init"

SSINDOnDiscarded      == lastOp'.op = "SetStableIfNotDiscarded"
                         /\ usage[lastOp'.page] \in {"V", "P"} /\ resid[lastOp'.page] = "z"

\* (PrimitiveOutcomeInv.)  An unconditional primitive has just answered the guest.
UnconditionalPrimitiveAnswered == Obs.op \in GuestPrimitives \ {"SetStableIfNotDiscarded"}
\* (ExtractReportsStateProp.)  An Extract of a page that is not resident.
ExtractNotResident == lastOp'.op = "Extract" /\ resid[lastOp'.page] # "r"

=============================================================================
