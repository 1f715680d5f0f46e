---------------------------- MODULE MCESSAMigration ----------------------------
(***************************************************************************)
(* Models MCESSAMigration_*.cfg of spec/ESSAMigration.tla: incremental     *)
(* CMMA migration with the guest running.  Symmetry over pages: every      *)
(* action and property treats pages alike.                                 *)
(***************************************************************************)
EXTENDS ESSAMigration, ESSAStepChecks, TLC

Symmetry == Permutations(Pages)

\* Two pages at CI size: today's guest's allocation and freeing (ORC 1, 2), its stores, reclaim
\* and CBRL processing (N and reads are the one-page model's), with the migration's steps: rounds that send one page while the guest's
\* ESSAs change the other.
RoundsNext ==
    \/ Tracked(\/ HostProcessCBRL
               \/ \E p \in Pages : \/ GuestAlloc(p) \/ GuestFree(p) \/ GuestWrite(p)
                                 \/ HostReclaim(p))
    \/ MigrationStart
    \/ \E p \in Pages : MigrationSend(p)
    \/ MigrationSwitch
RoundsSpec == MInit /\ [][RoundsNext]_mvars

\* Broken twin of BelievedStableContentKeptInv and MigrationKeepsAttributesProp (its two cfgs): an
\* __do_essa that sets the CMMA-dirty bit only when the ESSA queued a discard on the CBRL (ORC 1 on
\* an unused page, which queues nothing, goes unmarked and the destination resumes with the U sent
\* before it).
DirtyMarkOnlyOnQueue == EssaCarriedOut /\ Len(cbrl') > Len(cbrl)
=============================================================================
