------------------------- MODULE ApalacheESSAMigration -------------------------
(***************************************************************************)
(* Apalache models of incremental CMMA migration (spec/ESSAMigration.tla); *)
(* model/apalache.json lists the checks.  Constants as in                  *)
(* model/MCESSAMigration_KVMClassic.cfg (MSpec, one page): classic KVM     *)
(* under today's guest.  The two-page model is TLC's alone.               *)
(***************************************************************************)
EXTENDS MCESSAMigration, ApalacheESSA

CInitMigration ==
    /\ NoPage = "none_OF_PAGE"
    /\ Impl = "KVMClassic"
    /\ StorageKeys = TRUE
    /\ Facility147 = TRUE
    /\ Bugs = {}
    /\ PrebuiltPageTables = FALSE
    /\ MachineInterpretsESSA = FALSE
    /\ ModernGuest = TRUE
    /\ CMMAEnabled = TRUE
    /\ CBRLSize = 1

CInitOnePage == CInitMigration /\ Pages = {"p1_OF_PAGE"}

(***************************************************************************)
(* MNext with Tracked taken into each action (under its quantifier): (A \/ *)
(* B) /\ T is (A /\ T) \/ (B /\ T), and \E p : A(p) /\ T is \E p : (A(p)   *)
(* /\ T) where T does not name p.  Apalache 0.62.1 fails on the            *)
(* undistributed form: a branch of an ESSA that its constants disable is   *)
(* simplified to FALSE with its assignments, while Tracked, in the same    *)
(* transition, still reads lastOp' ("lastOp' is not assigned a value").    *)
(* Distributed, and with rewriter.shortCircuit (the check's tuning in      *)
(* model/apalache.json), the FALSE conjunct cuts the rest off. The list of *)
(* actions is ESSA.tla's GuestNext and ESSAMigration.tla's MHostNext.      *)
(***************************************************************************)
MNextDistributed ==
    \/ Tracked(GuestEssaBeyondMemory)
    \/ \E p \in Pages :
        \/ Tracked(GuestAlloc(p)) \/ Tracked(GuestFree(p)) \/ Tracked(GuestMakeStable(p))
        \/ Tracked(GuestMakeVolatile(p, 3)) \/ Tracked(GuestMakeVolatile(p, 4))
        \/ Tracked(GuestExtract(p)) \/ Tracked(GuestSetStableNoDat(p)) \/ Tracked(GuestBadOrc(p))
        \/ Tracked(GuestEssaProblemState(p))
        \/ Tracked(GuestRead(p)) \/ Tracked(GuestWrite(p)) \/ Tracked(GuestWriteback(p))
    \/ Tracked(HostProcessCBRL)
    \/ Tracked(~migrating /\ HostResetCMMA)
    \/ \E p \in Pages : Tracked(HostReclaim(p)) \/ Tracked(HostUnmapGmap(p)) \/ Tracked(HostAge(p))
    \/ MigrationStart
    \/ \E p \in Pages : MigrationSend(p)
    \/ MigrationSwitch

\* MigrationTypeOK with EssaTypeOK as Apalache can evaluate it (model/ApalacheESSA.tla's
\* EssaTypeOKBounded); every other clause is MigrationTypeOK's own.
MigrationTypeOKBounded ==
    /\ EssaTypeOKBounded
    /\ migrating \in BOOLEAN
    /\ cmmaDirty \in [Pages -> BOOLEAN]
    /\ sentUsage \in [Pages -> {"S", "U", "V", "P"}]
    /\ sentNoDat \in [Pages -> BOOLEAN]
    /\ migrating => ~migrated
    /\ ~migrating => \A p \in Pages : ~cmmaDirty[p]

\* The state invariants of model/MCESSAMigration_KVMClassic.cfg (and of its two-page model).
MigrationInvariants ==
    /\ MigrationTypeOKBounded
    /\ SentAttributesCurrentInv
    /\ BelievedStableContentKeptInv
    /\ GuestStableBeliefInv

\* The step predicates of its PROPERTIES, each with the variables its property has.
MigrationStepInvariants ==
    /\ [MigrationAppliesSentStep]_mvars
    /\ [MigrationAttributesStep]_vars
    /\ [MigrationArrivalStep]_vars
    /\ [MigrationStep]_vars

=============================================================================
