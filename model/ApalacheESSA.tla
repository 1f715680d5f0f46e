---------------------------- MODULE ApalacheESSA ----------------------------
(***************************************************************************)
(* Apalache models of the ESSA instruction in its implementations          *)
(* (spec/ESSA.tla); model/apalache.json lists the checks.  Constants as in *)
(* model/MCESSA_KVMGmapFixed.cfg (the new gmap, every fix) and             *)
(* MCESSA_Paper2007.cfg (the 2007 model): one page.                        *)
(***************************************************************************)
EXTENDS ESSAStepChecks

CInitKVMGmap ==
    /\ Pages = {"p1_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"
    /\ Impl = "KVMGmap"
    /\ StorageKeys = TRUE
    /\ Facility147 = TRUE
    /\ CBRLSize = 1
    /\ Bugs = {}
    /\ PrebuiltPageTables = FALSE
    /\ MachineInterpretsESSA = TRUE
    /\ ModernGuest = TRUE
    /\ CMMAEnabled = TRUE

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

\* EssaTypeOK as Apalache can evaluate it: its clause cbrl \in Seq(Pages) is an
\* infinite set to Apalache ("Seq(_) produces an infinite set of unbounded
\* sequences"), so it is restated over the constant range 1..CBRLSize, which
\* Len(cbrl) <= CBRLSize bounds; every other clause is EssaTypeOK's own.
EssaTypeOKBounded ==
    /\ usage \in [Pages -> {"S", "U", "V", "P"}]
    /\ valid \in [Pages -> BOOLEAN] /\ swapped \in [Pages -> BOOLEAN]
    /\ zbit \in [Pages -> BOOLEAN] /\ nodat \in [Pages -> BOOLEAN]
    /\ data \in [Pages -> {0, Written}]
    /\ keyDirty \in [Pages -> BOOLEAN] /\ gc \in [Pages -> BOOLEAN]
    /\ Len(cbrl) <= CBRLSize /\ \A i \in 1..CBRLSize : i <= Len(cbrl) => cbrl[i] \in Pages
    /\ owed \in [Pages -> {NoValue, 0, Written}]
    /\ belief \in [Pages -> {"S", "U", "V", "P"}]
    /\ modified \in [Pages -> BOOLEAN]
    /\ migrated \in BOOLEAN
    /\ pageTable \in BOOLEAN
    /\ gmapPte \in [Pages -> {"Valid", "Aged", "Empty"}]
    /\ pteUnused \in [Pages -> BOOLEAN]

\* The state invariants of model/MCESSA_KVMGmapFixed.cfg.
KVMGmapInvariants ==
    /\ GmapPteResidentInv
    /\ EssaTypeOKBounded
    /\ GuestStableBeliefInv
    /\ BelievedStableContentKeptInv
    /\ ReadReturnsOwedInv
    /\ ChangeBitTrackedInv
    /\ UnallocatedUnchangedInv
    /\ GuestDirtyRecordInv

\* The state invariants of model/MCESSA_Paper2007.cfg.
Paper2007Invariants ==
    /\ GmapPteResidentInv
    /\ EssaTypeOKBounded
    /\ GuestStableBeliefInv
    /\ BelievedStableContentKeptInv
    /\ ModifiedPContentKeptInv
    /\ UnwrittenContentKeptInv
    /\ GuestDirtyRecordInv
    /\ ReadReturnsOwedInv
    /\ ReportedZeroReadsZeroInv
    /\ PaperContentStateInv

\* The action properties' step predicates, as an action invariant.
AllStepInvariants ==
    [/\ SpecificationExceptionStep
     /\ RefusalStep
     /\ MigrationStep
     /\ MigrationArrivalStep
     /\ CMMAResetStep]_vars

=============================================================================
