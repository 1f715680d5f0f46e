---------------------------- MODULE ESSAMigration ----------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What incremental CMMA migration promises; *)
(* each promise has a THEOREM at the end of this module naming the models  *)
(* whose .cfg checks it and the twin that fails it.                        *)
(*                                                                         *)
(*   No stale attributes. SentAttributesCurrentInv: during migration a     *)
(*       page that is not CMMA-dirty was last sent with its current usage  *)
(*       and N, "Starting migration marks every page CMMA-dirty" (sources  *)
(*       5); MigrationAppliesSentProp: the destination resumes with        *)
(*       exactly what was last sent, "QEMU applies the bytes only at the   *)
(*       end" (sources 5).                                                 *)
(*   Migration. MigrationKeepsAttributesProp and                           *)
(*       MigrationKeepsStableContentProp of ESSAProperties.tla hold across *)
(*       an incremental migration as across the one-shot one.              *)
(*   No data loss. BelievedStableContentKeptInv, "the host is responsible  *)
(*       for preserving the page content" (paper 2), and                   *)
(*       GuestStableBeliefInv, across the switch.                          *)
(*                                                                         *)
(* MigrationTypeOK checks types and the mode's bookkeeping.                *)
(***************************************************************************)
(***************************************************************************)
(* CMMA migration as KVM carries it out, incrementally, while the guest    *)
(* keeps running (sources 5).  ESSA.tla's Migrate moves the whole VM in    *)
(* one step; here the attributes travel in rounds and the guest's ESSAs    *)
(* in between must mark what they change, or the destination resumes on   *)
(* attributes that are stale.                                             *)
(*                                                                         *)
(*   MigrationStart  KVM_S390_VM_MIGRATION_START: "Starting migration      *)
(*                   marks every page CMMA-dirty and turns interpretation  *)
(*                   off" (sources 5): every ESSA is intercepted.          *)
(*   MigrationSend   one page of a KVM_S390_GET_CMMA_BITS round: the usage *)
(*                   and N of a CMMA-dirty page are sent and its bit is    *)
(*                   cleared (kvm_s390_get_cmma: test_and_clear_bit, then  *)
(*                   get_pgste).  A round is a run of such steps.          *)
(*   the guest       every step of ESSA.tla but Migrate and the CMMA reset; *)
(*                   an ESSA marks its page CMMA-dirty as __do_essa does:  *)
(*                   "every intercepted ESSA with a non-zero ORC that      *)
(*                   reaches pgste_perform_essa sets the page's bit"       *)
(*                   (sources 5), whatever the ORC changed or queued.      *)
(*   Migrate         the switch: the VM stops, the last rounds send what   *)
(*                   is still dirty, and the destination resumes with the  *)
(*                   attributes last sent ("QEMU applies the bytes only at *)
(*                   the end ... through KVM_S390_SET_CMMA_BITS", sources  *)
(*                   5); content, Z, GC, residency and the CBRL arrive as  *)
(*                   in ESSA.tla's Migrate.  Migrate with every page dirty *)
(*                   (right after MigrationStart) is ESSA.tla's one-shot   *)
(*                   Migrate.                                             *)
(*                                                                         *)
(* Intent (sources 5: "KVM_S390_GET_CMMA_BITS returns usage and N per      *)
(* page"): the destination holds the guest's current usage and N of every  *)
(* page, never an older one; so ESSAProperties'                            *)
(* MigrationKeepsAttributesProp (usage and N as they were) and, through    *)
(* it, BelievedStableContentKeptInv and GuestStableBeliefInv hold across   *)
(* an incremental migration.  The invariant that carries it: a page that   *)
(* is not CMMA-dirty was last sent with its current attributes             *)
(* (SentAttributesCurrentInv).                                             *)
(*                                                                         *)
(* Classic KVM and the new gmap without the machine's interpretation      *)
(* (migration mode turns it off).  A CMMA reset during migration is left   *)
(* out: s390_reset_cmma does not mark pages dirty, which QEMU covers by    *)
(* resetting only a stopped VM [INFERENCE].                                *)
(***************************************************************************)
EXTENDS ESSAProperties

VARIABLES
    \* @type: Bool;
    migrating,      \* migration mode is on (between MigrationStart and Migrate)
    \* @type: PAGE -> Bool;
    cmmaDirty,      \* the second dirty bitmap: the page's attributes changed since last sent
    \* @type: PAGE -> Str;
    sentUsage,      \* the usage last sent for the page ("S" before any round: unused)
    \* @type: PAGE -> Bool;
    sentNoDat       \* N last sent

MigrationVars == <<migrating, cmmaDirty, sentUsage, sentNoDat>>
mvars == <<vars, MigrationVars>>

ASSUME KVM /\ ~MachineInterpretsESSA

(***************************************************************************)
(* __do_essa (arch/s390/kvm/priv.c), after pgste_perform_essa and the R1  *)
(* byte: "if (orc) { ... test_and_set_bit(gfn - ms->base_gfn,              *)
(* kvm_second_dirty_bitmap(ms)) ... }" (sources 5).  A refused ESSA        *)
(* (operation, privileged-operation, specification or addressing exception, *)
(* the exception indication) returns before it, and ORC 0 only extracts.   *)
(* The step just taken is an ESSA by its record: an ORC, outcome "Done".   *)
(***************************************************************************)
EssaCarriedOut == lastOp'.orc \in 1 .. 7 /\ lastOp'.outcome = "Done" /\ lastOp'.page \in Pages
DirtyMark == EssaCarriedOut

\* A step of ESSA.tla's guest or host, the dirty bitmap kept as __do_essa keeps it.
Tracked(A) ==
    /\ A
    /\ cmmaDirty' = IF migrating /\ DirtyMark
                    THEN [cmmaDirty EXCEPT ![lastOp'.page] = TRUE] ELSE cmmaDirty
    /\ UNCHANGED <<migrating, sentUsage, sentNoDat>>

\* kvm_s390_vm_start_migration: "memset(kvm_second_dirty_bitmap(ms), 0xff, ...)".
MigrationStart ==
    /\ ~migrated /\ ~migrating
    /\ migrating' = TRUE
    /\ cmmaDirty' = [p \in Pages |-> TRUE]
    /\ Record("MigrationStart", NoPage, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED <<sentUsage, sentNoDat>>
    /\ UNCHANGED HostVars /\ UNCHANGED GuestVars

\* kvm_s390_get_cmma, one page: test_and_clear_bit, then the PGSTE's usage and N.
MigrationSend(p) ==
    /\ migrating /\ cmmaDirty[p]
    /\ cmmaDirty' = [cmmaDirty EXCEPT ![p] = FALSE]
    /\ sentUsage' = [sentUsage EXCEPT ![p] = usage[p]]
    /\ sentNoDat' = [sentNoDat EXCEPT ![p] = nodat[p]]
    /\ Record("MigrationSend", p, NoValue, NoValue, "Done", NoValue)
    /\ UNCHANGED migrating
    /\ UNCHANGED HostVars /\ UNCHANGED GuestVars

\* What the destination applies: the last round (the VM stopped) sends every page still dirty.
FinalUsage(p) == IF cmmaDirty[p] THEN usage[p] ELSE sentUsage[p]
FinalNoDat(p) == IF cmmaDirty[p] THEN nodat[p] ELSE sentNoDat[p]

\* The switch.  Content, Z, GC, residency and the CBRL as ESSA.tla's Migrate (sources 5);
\* usage and N from the attributes sent.
MigrationSwitch ==
    /\ migrating
    /\ usage' = [p \in Pages |-> FinalUsage(p)]
    /\ nodat' = [p \in Pages |-> FinalNoDat(p)]
    /\ LET moved == [p \in Pages |-> MigratedContent(p)]
       IN  /\ data' = moved
           /\ valid' = [p \in Pages |-> moved[p] # 0]
    /\ swapped' = [p \in Pages |-> FALSE]
    /\ zbit' = [p \in Pages |-> ArrivalZ(p)]
    /\ gc' = [p \in Pages |-> ArrivalGC(p)]
    /\ cbrl' = <<>>
    /\ pageTable' = TRUE
    /\ gmapPte' = [p \in Pages |-> "Empty"]
    /\ pteUnused' = [p \in Pages |-> FALSE]
    /\ migrated' = TRUE
    /\ lastOp' = [op |-> "Migrate", page |-> NoPage, orc |-> NoValue, result |-> NoValue,
                  outcome |-> "Done", value |-> NoValue]
    \* kvm_s390_vm_stop_migration on the source; the destination's bitmap is its own.
    /\ migrating' = FALSE
    /\ cmmaDirty' = [p \in Pages |-> FALSE]
    /\ sentUsage' = [p \in Pages |-> FinalUsage(p)]
    /\ sentNoDat' = [p \in Pages |-> FinalNoDat(p)]
    /\ UNCHANGED <<keyDirty, owed, belief, modified>>

MInit ==
    /\ Init
    /\ migrating = FALSE
    /\ cmmaDirty = [p \in Pages |-> FALSE]
    /\ sentUsage = [p \in Pages |-> "S"]
    /\ sentNoDat = [p \in Pages |-> FALSE]

\* ESSA.tla's host without its one-shot Migrate; no CMMA reset in migration mode.
MHostNext ==
    \/ HostProcessCBRL
    \/ ~migrating /\ HostResetCMMA
    \/ \E p \in Pages : HostReclaim(p) \/ HostUnmapGmap(p) \/ HostAge(p)

MNext ==
    \/ Tracked(GuestNext \/ MHostNext)
    \/ MigrationStart
    \/ \E p \in Pages : MigrationSend(p)
    \/ MigrationSwitch

MSpec == MInit /\ [][MNext]_mvars

(***************************************************************************)
(* Properties.                                                              *)
(***************************************************************************)
MigrationTypeOK ==
    /\ EssaTypeOK
    /\ migrating \in BOOLEAN
    /\ cmmaDirty \in [Pages -> BOOLEAN]
    /\ sentUsage \in [Pages -> {"S", "U", "V", "P"}]
    /\ sentNoDat \in [Pages -> BOOLEAN]
    /\ migrating => ~migrated
    \* __do_essa runs only in migration mode (outside it handle_essa turns interpretation on and
    \* retries), and the switch stops migration: no page is CMMA-dirty outside migration.
    /\ ~migrating => \A p \in Pages : ~cmmaDirty[p]

(***************************************************************************)
(* SentAttributesCurrentInv.  Sources 5: "Starting migration marks every   *)
(* page CMMA-dirty"; a round sends a dirty page's usage and N and clears   *)
(* its bit; an ESSA that changes them sets it again.  So during migration  *)
(* a page that is not dirty was last sent with the usage and N it has now: *)
(* what the destination would apply for it is current.                    *)
(***************************************************************************)
SentAttributesCurrentInv ==
    migrating => \A p \in Pages :
        ~cmmaDirty[p] => sentUsage[p] = usage[p] /\ sentNoDat[p] = nodat[p]

(***************************************************************************)
(* The intent across the switch is ESSAProperties'                         *)
(* MigrationKeepsAttributesProp (usage and N as they were, sources 5) and  *)
(* MigrationKeepsStableContentProp, with BelievedStableContentKeptInv      *)
(* ("the host is responsible for preserving the page content", paper 2)    *)
(* and GuestStableBeliefInv after it: a stale U arriving for a page the    *)
(* guest made stable again is a page the destination's host may drop with  *)
(* its content.                                                            *)
(***************************************************************************)

(***************************************************************************)
(* MigrationAppliesSentProp.  Sources 5: "QEMU applies the bytes only at   *)
(* the end ("DONE") through KVM_S390_SET_CMMA_BITS, which writes usage and *)
(* N": the destination resumes with exactly the usage and N last sent of   *)
(* every page, the final round included.                                   *)
(***************************************************************************)
MigrationAppliesSentStep ==
    lastOp'.op = "Migrate" =>
        \A p \in Pages : usage'[p] = sentUsage'[p] /\ nodat'[p] = sentNoDat'[p]
MigrationAppliesSentProp == [][MigrationAppliesSentStep]_mvars

\* Witnesses (model/manifest.json).  During migration, a clean page last sent with attributes
\* an ESSA gave it after the start (not the initial S); a switch with a page sent in an earlier
\* round and clean since; the state right after a switch with stable content the guest is owed.
SentAfterEssa ==
    migrating /\ \E p \in Pages : ~cmmaDirty[p] /\ sentUsage[p] # "S"
SwitchWithCleanPage ==
    lastOp'.op = "Migrate" /\ \E p \in Pages : ~cmmaDirty[p]
SwitchedWithStableContent ==
    lastOp.op = "Migrate" /\ \E p \in Pages : belief[p] = "S" /\ owed[p] = Written

\* No stale attributes.  MCESSAMigration_KVMClassic, MCESSAMigration_KVMClassicNoKeys,
\* MCESSAMigration_KVMGmapModern (MCESSAMigration_KVMGmapNoKeys, deep;
\* MCESSAMigration_KVMClassicTwoPages, two pages under RoundsSpec;
\* MCESSAMigration_KVMClassicTwoPagesMSpec, two pages under MSpec, deep); twin
\* MCESSAMigration_Twin_DirtyOnlyOnQueueArrival.
THEOREM (Bugs = {} /\ CMMAEnabled) => (MSpec => /\ []SentAttributesCurrentInv /\ MigrationAppliesSentProp
                                /\ MigrationKeepsAttributesProp /\ MigrationKeepsStableContentProp)
\* No data loss.  MCESSAMigration_KVMClassic, MCESSAMigration_KVMGmapModern
\* (MCESSAMigration_KVMClassicTwoPagesMSpec, two pages, deep), under ESSAProperties'
\* hypothesis for it (QEMU migrates CMMA attributes only of a VM that has CMMA); twin
\* MCESSAMigration_Twin_DirtyOnlyOnQueue.
THEOREM (ModernGuest /\ StorageKeys /\ Bugs = {} /\ CMMAEnabled)
            => (MSpec => []BelievedStableContentKeptInv /\ []GuestStableBeliefInv)
=============================================================================
