--------------------- MODULE ApalacheGuestHostAtomicity ---------------------
(***************************************************************************)
(* Apalache models of concurrent guest CPUs and the host                   *)
(* (spec/GuestHostAtomicity.tla); model/apalache.json lists the checks.    *)
(* Constants as in model/MCGuestHostAtomicity_CompareAndSwap.cfg and       *)
(* _SharedLock.cfg: one page, two CPUs.                                    *)
(***************************************************************************)
EXTENDS GuestHostAtomicityStepChecks

CInitCommon ==
    /\ Pages = {"p1_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"
    /\ Values = {0, 1}
    /\ HostService = TRUE
    /\ UnusedAccess = "AddressingException"
    /\ Variant = "Full"
    /\ CPUs = {"c1_OF_CPU", "c2_OF_CPU"}
    /\ NoCPU = "none_OF_CPU"
    /\ FaultyCPUs = {}

CInitCAS  == CInitCommon /\ SSINDImpl = "CompareAndSwap"
CInitLock == CInitCommon /\ SSINDImpl = "SharedLock"

\* The state invariants the TLC models check, as one (Apalache takes one --inv).
AllStateInvariants ==
    /\ AtomicityTypeOK
    /\ StableContentKeptInv
    /\ ReadResultInv
    /\ DiscardFaultOnlyWhenDiscardedInv
    /\ UnusedAccessInv

\* The page-state machine's action properties, as an action invariant: each is
\* [][S]_vars, so a step that leaves the page-state variables alone (a CPU's
\* first step, the host starting a reclaim) satisfies it.
AllStepInvariants ==
    [SSINDStep /\ DiscardStep /\ GuestResidencyStep]_vars

=============================================================================
