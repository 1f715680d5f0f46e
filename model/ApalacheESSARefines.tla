------------------------- MODULE ApalacheESSARefines -------------------------
(***************************************************************************)
(* Apalache models of the refinement of the page-state machine by the 2007 *)
(* ESSA model (spec/ESSARefinesPageStates.tla); model/apalache.json lists  *)
(* the checks.  Constants as in model/MCESSARefines_Paper2007.cfg: one     *)
(* page.                                                                   *)
(*                                                                         *)
(* The refinement's safety as Apalache checks it: the initial states map   *)
(* to PageStates' Init (RefinesZVMInit, length 0), and every step of the   *)
(* augmented specification is, under the mapping, the PageStates step it   *)
(* names or changes no mapped variable (RefinesZVMStepPred), and so a step *)
(* of [PS!Next]_PS!vars: the two together are PS!Spec (RefinesZVMSpec),   *)
(* which has no fairness, on every behaviour up to the length.             *)
(*                                                                         *)
(* One change to the specification: AddSplit offers the added step only   *)
(* where ENABLED (ConcreteNext /\ SplitStep(p, kind)), and Apalache does   *)
(* not evaluate ENABLED.  AddSplitUnguarded is AddSplit without that       *)
(* conjunct, so AugNextUnguarded allows every step AugNext allows, and     *)
(* more (a split whose access cannot follow: the run can then take no      *)
(* concrete step, which breaks no safety property).  Every behaviour of    *)
(* AugSpec is a behaviour of AugSpecUnguarded: a step property that holds  *)
(* on every step of the second holds on every step of the first.  TLC's   *)
(* MCESSARefines_Paper2007 checks AugSpec itself, on every reachable state.*)
(***************************************************************************)
EXTENDS ESSARefinesPageStates

CInitPaper2007 ==
    /\ Pages = {"p1_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"
    /\ Impl = "Paper2007"
    /\ StorageKeys = FALSE
    /\ Facility147 = FALSE
    /\ CBRLSize = 1
    /\ Bugs = {}
    /\ PrebuiltPageTables = FALSE
    /\ MachineInterpretsESSA = FALSE
    /\ ModernGuest = FALSE
    /\ CMMAEnabled = TRUE

\* AddSplit (spec/ESSARefinesPageStates.tla) without its ENABLED conjunct.
AddSplitUnguarded ==
    /\ split = NoPage
    /\ \E p \in Pages, kind \in {"Fault", "Stable"} :
        /\ IF kind = "Fault" THEN FaultSplit(p) ELSE StableSplit(p)
        /\ split' = p /\ splitKind' = kind
        /\ LET a == IF kind = "Fault"
                    THEN AbsRec(IF swapped[p] THEN "HostPageIn" ELSE "HostZeroFill",
                                p, NoValue, "Done", NoValue)
                    ELSE AbsRec("SetStable", p, NoValue, "Done", NoValue)
           IN  RecordAbs(a)
    /\ UNCHANGED vars

\* AugInit(Init) and DoConcrete(Next), restated for Apalache 0.62.1.  Init is given as an
\* expression (an action passed by name is bound in a LET, where Apalache finds no
\* assignments); DoConcrete is taken into each action of ESSA.tla's Next (under its
\* quantifier), since undistributed a branch of ESSA that the constants disable is simplified
\* to FALSE with its assignments while ConcreteStep, in the same transition, reads usage'
\* ("usage' is not assigned a value"); with rewriter.shortCircuit (the checks' tuning in
\* model/apalache.json) the FALSE conjunct cuts the rest off.  (A \/ B) /\ R is
\* (A /\ R) \/ (B /\ R), and \E p : A(p) /\ R is \E p : (A(p) /\ R) where R does not name p.
AugInitESSA == AugInit(Init /\ TRUE)
DoConcreteDistributed ==
    \/ DoConcrete(GuestEssaBeyondMemory)
    \/ \E p \in Pages :
        \/ DoConcrete(GuestAlloc(p)) \/ DoConcrete(GuestFree(p)) \/ DoConcrete(GuestMakeStable(p))
        \/ DoConcrete(GuestMakeVolatile(p, 3)) \/ DoConcrete(GuestMakeVolatile(p, 4))
        \/ DoConcrete(GuestExtract(p)) \/ DoConcrete(GuestSetStableNoDat(p))
        \/ DoConcrete(GuestBadOrc(p)) \/ DoConcrete(GuestEssaProblemState(p))
        \/ DoConcrete(GuestRead(p)) \/ DoConcrete(GuestWrite(p)) \/ DoConcrete(GuestWriteback(p))
    \/ DoConcrete(HostProcessCBRL) \/ DoConcrete(Migrate) \/ DoConcrete(HostResetCMMA)
    \/ \E p \in Pages :
        DoConcrete(HostReclaim(p)) \/ DoConcrete(HostUnmapGmap(p)) \/ DoConcrete(HostAge(p))
AugNextUnguarded == AddSplitUnguarded \/ DoConcreteDistributed

\* RefinesZVMStep's step predicate and PageStates' own step, under the mapping.
RefinementStepInvariants ==
    /\ [RefinesZVMStepPred]_augVars
    /\ [PS!Next]_psVars

=============================================================================
