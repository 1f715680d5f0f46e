------------------------- MODULE ApalacheHostReclaim -------------------------
(***************************************************************************)
(* Apalache models of the z/VM host under memory pressure                  *)
(* (spec/HostReclaim.tla); model/apalache.json lists the checks.           *)
(* Constants as in model/MCHostReclaim_ZVM.cfg: one page, one frame, the   *)
(* demand scan running when no frame is free, early writes.                *)
(***************************************************************************)
EXTENDS HostReclaimStepChecks

CInit ==
    /\ Pages = {"p1_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"
    /\ Values = {0, 1}
    /\ Frames = 1
    /\ LowThreshold = 1
    /\ EarlyWrites = TRUE

AllStateInvariants ==
    /\ TypeOK
    /\ StableContentKeptInv
    /\ ReadResultInv
    /\ DiscardFaultOnlyWhenDiscardedInv
    /\ UnusedAccessInv
    /\ ReclaimTypeOK
    /\ FrameBudgetInv
    /\ SlotCoherentInv

\* Every action property's step predicate, as an action invariant, each with
\* the stuttering its [][S]_v form allows.  (RefinesPageStates is a refinement
\* through an INSTANCE with substitutions; TLC checks it.  EarlyWritesSettingProp
\* says nothing with early writes on, as here; TLC checks it with them off.)
AllStepInvariants ==
    /\ [PSS!SSINDStep]_vars
    /\ [PSP!DiscardStep]_vars
    /\ [PSP!GuestResidencyStep]_vars
    /\ [WriteStep]_allVars
    /\ [NoRewriteStep]_allVars
    /\ [RewriteStep]_allVars
    /\ [WrittenStep]_allVars
    /\ [RevalidateStep]_allVars
    /\ [StealStep]_allVars
    /\ [AccessStep]_allVars
    /\ [ScanStep]_allVars

=============================================================================
