---------------------------- MODULE ApalacheESSA ----------------------------
(***************************************************************************)
(* Apalache models of the ESSA instruction in its implementations          *)
(* (spec/ESSA.tla); model/apalache.json lists the checks.  Constants as in *)
(* model/MCESSA_KVMGmapFixed.cfg (the new gmap, every fix) and             *)
(* MCESSA_Paper2007.cfg (the 2007 model): one page.                        *)
(***************************************************************************)
EXTENDS ESSAProperties

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

\* The state invariants of model/MCESSA_KVMGmapFixed.cfg.
KVMGmapInvariants ==
    /\ EssaTypeOK
    /\ GuestStableBeliefInv
    /\ StableContentOwedInv
    /\ ReadResultInv
    /\ ChangeBitTrackedInv
    /\ UnallocatedUnchangedInv

\* The state invariants of model/MCESSA_Paper2007.cfg.
Paper2007Invariants ==
    /\ EssaTypeOK
    /\ GuestStableBeliefInv
    /\ StableContentOwedInv
    /\ ModifiedPContentKeptInv
    /\ ReadResultInv
    /\ ReportedZeroReadsZeroInv
    /\ PaperContentStateInv

\* The action properties' step predicates, as an action invariant.
AllStepInvariants ==
    [/\ SpecificationExceptionStep
     /\ RefusalStep
     /\ MigrationStep
     /\ MigrationArrivalStep]_vars

=============================================================================
