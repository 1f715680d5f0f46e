--------------------- MODULE ApalacheLinuxGuestProtocol ---------------------
(***************************************************************************)
(* Apalache models of the Linux guest's page-cache protocol               *)
(* (spec/LinuxGuestProtocol.tla); model/apalache.json lists the checks.    *)
(* Constants as in model/MCLinuxGuestProtocol_Conditions.cfg: the paper's  *)
(* protocol on two CPUs (four contexts) and one page.                      *)
(***************************************************************************)
EXTENDS LinuxGuestProtocolStepChecks

CInit ==
    /\ CPUs = {"c1_OF_CPU", "c2_OF_CPU"}
    /\ Pages = {"p1_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"
    /\ HasP = TRUE
    /\ MakeStableTakesBit = TRUE
    /\ CheckOrder = "Atomic"
    /\ MaxMaps = 1
    /\ UserOps = {"Dirty", "Lock", "Truncate", "Mlock"}

AllStateInvariants ==
    /\ TypeOK
    /\ NoDeadlockInv
    /\ StableWhileHeldInv
    /\ NoVolatileWhileForbiddenInv
    /\ PgDiscardedOnlyIfDiscardedInv
    /\ NoVolatileOnDiscardedInv
    /\ StateChangeExclusiveInv
    /\ PageRefsCountedInv

=============================================================================
