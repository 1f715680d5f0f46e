------------------------- MODULE ApalachePageStates -------------------------
(***************************************************************************)
(* Apalache models of the page-state machine (model/apalache.json lists   *)
(* the checks; `make apalache` runs them where Apalache is installed).    *)
(* Constants are initialised by CInit* (Apalache's --cinit); pages are    *)
(* values of the uninterpreted type PAGE.                                 *)
(***************************************************************************)
EXTENDS PageStatesInductive, PageStatesStepChecks

CInitCommon ==
    /\ Pages = {"p1_OF_PAGE", "p2_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"
    /\ Values = {0, 1}
    /\ HostService = TRUE
    /\ UnusedAccess = "AddressingException"

CInitFull == CInitCommon /\ Variant = "Full"
CInitZVM  == CInitCommon /\ Variant = "ZVMPrototype"

\* Every state invariant of PageStateProperties, as one (Apalache takes one --inv).
AllStateInvariants ==
    /\ TypeOK
    /\ VariantStatesInv
    /\ StableContentKeptInv
    /\ ReadResultInv
    /\ DiscardFaultOnlyWhenDiscardedInv
    /\ UnusedAccessInv
    /\ PrimitiveOutcomeInv

\* The action properties' step predicates, as an action invariant.
AllStepInvariants ==
    /\ PrimitiveUsageStep /\ SSINDStep /\ DiscardStep /\ GuestResidencyStep
    /\ HostUsageStep /\ ExtractStep

=============================================================================
