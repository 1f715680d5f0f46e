------------------------- MODULE GuestHostAtomicity -------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What concurrent guest CPUs and the host   *)
(* promise; each promise is a property of GuestHostAtomicityProperties.tla *)
(* or PageStateProperties.tla, with a THEOREM in                           *)
(* GuestHostAtomicityProperties.tla naming the model whose .cfg checks it  *)
(* and the twin that fails it.                                             *)
(*                                                                         *)
(*   No data loss. StableContentKeptInv of PageStates.tla, with            *)
(*       SetStableIfNotDiscarded as one compare-and-swap or under a lock   *)
(*       the host honours: "for atomic accesses a compare_and_swap needs   *)
(*       to be utilized" (paper 2).  Check then set loses data             *)
(*       (model/MCGuestHostAtomicity_Twin_CheckThenSet.cfg).               *)
(*   Progress under a faulty guest. HostProgressProp: "Allowing a lock to  *)
(*       span across guest and host is a serious design flaw, as it would  *)
(*       allow a faulty guest to lock up the host" (paper 2): every        *)
(*       reclaim the host starts completes, whatever the guest does,       *)
(*       unless it shares a lock with a faulty CPU.                        *)
(*   Progress of a correct guest. LockReleasedProp: a CPU that is not      *)
(*       faulty gives back the lock.                                       *)
(*   What the guest is owed. RefinesGuestMemory of                         *)
(*       GuestHostAtomicityRefinesGuestMemory.tla, with its THEOREM: but   *)
(*       for check-then-set, the CPUs and the host implement the guest's   *)
(*       view of its memory (GuestMemory.tla); a set that answers Success  *)
(*       after a discard is a Success on a lost page.                      *)
(*                                                                         *)
(* The ghosts intended, modified and requested are PageStates', written    *)
(* from what the guest asks and is answered; the two-step                  *)
(* SetStableIfNotDiscarded's set keeps intended and modified (a Success    *)
(* owes what was owed) and records the S it asked for, and                 *)
(* RefinesGuestMemory reads none of them, so no ghost can excuse a loss.   *)
(*                                                                         *)
(* LockExcludesOthersProp restates what the lock does; AtomicityTypeOK     *)
(* checks types.                                                           *)
(***************************************************************************)
(***************************************************************************)
(* Several guest CPUs and the host change the state of shared pages at    *)
(* the same time.  This module runs the page-state machine of             *)
(* PageStates.tla with guest CPUs and a host that reclaims frames, and     *)
(* offers three implementations of SetStableIfNotDiscarded (constant      *)
(* SSINDImpl):                                                             *)
(*                                                                         *)
(*   "CompareAndSwap"  one atomic step on host-held state: the ESSA design *)
(*                     (paper, section 2: "for atomic accesses a          *)
(*                     compare_and_swap needs to be utilized").            *)
(*   "CheckThenSet"    the guest reads the state, then writes the usage in *)
(*                     a second step: what a page-state vector mapped      *)
(*                     read/write into the guest gives ("the most obvious  *)
(*                     implementation, namely allocating or mapping a page *)
(*                     status vector in the guest with r/w permission is   *)
(*                     erroneous").                                        *)
(*   "SharedLock"      check and set under a lock that the host also takes *)
(*                     for every reclaim ("Allowing a lock to span across  *)
(*                     guest and host is a serious design flaw, as it     *)
(*                     would allow a faulty guest to lock up the host"):   *)
(*                     the same two steps as CheckThenSet, made safe only  *)
(*                     by the lock, so that a host that ignores the lock   *)
(*                     is caught by StableContentKeptInv (D134).           *)
(*                                                                         *)
(* Every other guest primitive is one atomic instruction in all three; in *)
(* the lock-based design the primitives that set a usage wait for the     *)
(* lock, which guards the page states.                                    *)
(* The host reclaims a frame in two steps, HostStartReclaim (it picks a   *)
(* resident page) and HostReclaim (it preserves or discards it), so that   *)
(* host work can interleave with a guest's two-step operation and so that  *)
(* host progress can be stated (HostProgressProp, in                       *)
(* GuestHostAtomicityProperties.tla).                                      *)
(***************************************************************************)
EXTENDS PageStates

CONSTANTS
    \* @type: Set(CPU);
    CPUs,
    \* @type: CPU;
    NoCPU,          \* no CPU: the lock is free
    \* @type: Str;
    SSINDImpl,      \* "CompareAndSwap", "CheckThenSet" or "SharedLock"
    \* @type: Set(CPU);
    FaultyCPUs      \* CPUs that may stop anywhere, the lock held or not (D21)

VARIABLES
    \* @type: CPU -> { step: Str, page: PAGE };
    pc,             \* where each CPU is in a two-step SetStableIfNotDiscarded
    \* @type: CPU;
    lock,           \* holder of the guest/host lock (SharedLock only)
    \* @type: PAGE;
    reclaim         \* the page whose frame the host is reclaiming, or NoPage

allVars == <<vars, pc, lock, reclaim>>

SSINDImpls == {"CompareAndSwap", "CheckThenSet", "SharedLock"}
ASSUME SSINDImpl \in SSINDImpls
ASSUME NoCPU \notin CPUs /\ FaultyCPUs \subseteq CPUs

Idle == [step |-> "idle", page |-> NoPage]

\* The host needs the lock only in the lock-based design; it takes and
\* releases it within its own atomic step.  (Read by both host steps, HostReclaim
\* and HostOther, and so a definition of its own.)
HostMayAct == SSINDImpl # "SharedLock" \/ lock = NoCPU

\* In the lock-based design the lock guards the page states, so a guest
\* primitive that sets a usage takes it too (within its one step): otherwise
\* another CPU's SetVolatile could discard a preserved page between a
\* check and its set under the lock (an implicit host discard, D3).
GuestMaySetUsage == SSINDImpl # "SharedLock" \/ lock = NoCPU

(***************************************************************************)
(* Guest CPUs.                                                              *)
(***************************************************************************)

\* Any atomic guest instruction of the page-state machine, by any CPU, also
\* one between the two steps of a SetStableIfNotDiscarded that is not one
\* instruction: those steps are separate instructions, and an interrupt
\* between them runs other guest code on the same CPU (D214).  In the
\* lock-based design such a CPU holds the lock, so it sets no usage.
GuestInstruction(c) ==
    /\ \E p \in Pages :
        \/ GuestMaySetUsage /\ (SetStable(p) \/ SetUnused(p) \/ SetVolatile(p) \/ SetPotentialVolatile(p))
        \/ Extract(p) \/ Read(p) \/ ClearDirty(p)
        \/ \E v \in Values : Write(p, v)
        \/ SSINDImpl = "CompareAndSwap" /\ SetStableIfNotDiscarded(p)
    /\ UNCHANGED <<pc, lock, reclaim>>

\* The two steps of a SetStableIfNotDiscarded that is not one instruction.
\* The check reads the state: a discarded page fails at once (CPU c goes to
\* failed), any other goes to step checked.
Check(c, p, checked, failed) ==
    /\ IF Discarded(p)
       THEN /\ Record("SetStableIfNotDiscarded", p, NoValue, "Failure", NoValue)
            /\ pc' = [pc EXCEPT ![c] = failed]
       ELSE /\ pc' = [pc EXCEPT ![c] = [step |-> checked, page |-> p]]
            /\ UNCHANGED lastOp
    /\ UNCHANGED <<usage, resid, dirty, data, intended, modified, requested, lock, reclaim>>

\* The set writes the usage field, trusting the check.  The guest believes
\* the page kept its content, so what it is owed is unchanged.
SetAfterCheck(c, after) ==
    LET p == pc[c].page IN
    /\ usage' = [usage EXCEPT ![p] = "S"]
    /\ requested' = [requested EXCEPT ![p] = "S"]
    /\ pc' = [pc EXCEPT ![c] = after]
    /\ Record("SetStableIfNotDiscarded", p, NoValue, "Success", NoValue)
    /\ UNCHANGED <<resid, dirty, data, intended, modified, lock, reclaim>>

\* CheckThenSet: check, then set, with nothing to keep the host out between.
SSINDCheck(c, p) ==
    /\ SSINDImpl = "CheckThenSet"
    /\ pc[c].step = "idle"
    /\ Check(c, p, "checked", Idle)

SSINDSet(c) == pc[c].step = "checked" /\ SetAfterCheck(c, Idle)

\* SharedLock: take the lock (wait while it is held).  A CPU that is not idle
\* holds the lock (from here to SSINDUnlock), so `lock = NoCPU` already
\* implies the first guard; it says which CPU may start (D175).
SSINDLock(c, p) ==
    /\ SSINDImpl = "SharedLock"
    /\ pc[c].step = "idle"
    /\ lock = NoCPU
    /\ lock' = c
    /\ pc' = [pc EXCEPT ![c] = [step |-> "locked", page |-> p]]
    /\ UNCHANGED <<vars, reclaim>>

\* SharedLock: the same check and set, under the lock: the host, which takes
\* the lock for every step, cannot act between them (D134).  A check that
\* finds the page discarded goes to the unlock, as a success does.
SSINDCheckUnderLock(c) ==
    /\ pc[c].step = "locked"
    /\ Check(c, pc[c].page, "lockedChecked", [step |-> "done", page |-> pc[c].page])

SSINDSetUnderLock(c) ==
    /\ pc[c].step = "lockedChecked"
    /\ SetAfterCheck(c, [step |-> "done", page |-> pc[c].page])

\* SharedLock: give the lock back.
SSINDUnlock(c) ==
    /\ pc[c].step = "done"
    /\ lock' = NoCPU
    /\ pc' = [pc EXCEPT ![c] = Idle]
    /\ UNCHANGED <<vars, reclaim>>

CPUNext(c) ==
    \/ GuestInstruction(c)
    \/ \E p \in Pages : SSINDCheck(c, p) \/ SSINDLock(c, p)
    \/ SSINDSet(c) \/ SSINDCheckUnderLock(c) \/ SSINDSetUnderLock(c) \/ SSINDUnlock(c)

(***************************************************************************)
(* The host.                                                                *)
(***************************************************************************)

\* The host picks a resident page whose frame it wants (demand scan).
HostStartReclaim(p) ==
    /\ reclaim = NoPage
    /\ resid[p] = "r"
    /\ reclaim' = p
    /\ UNCHANGED <<vars, pc, lock>>

\* ... and frees the frame: preserving the page, or discarding it where that
\* is allowed.  One of the two is always possible for a resident page (D22).
HostReclaim(p) ==
    /\ reclaim = p
    /\ HostMayAct
    /\ HostDiscard(p) \/ HostPreserve(p)
    /\ reclaim' = NoPage
    /\ UNCHANGED <<pc, lock>>

\* The host's other work: dropping preserved copies it may drop, bringing
\* pages back.  Not part of a reclaim; also excluded while the lock is held.
\* (`reclaim # p` is implied: the page being reclaimed stays resident until
\* HostReclaim, and each of these steps needs a page that is not, D175.)
HostOther(p) ==
    /\ HostMayAct
    /\ reclaim # p
    /\ \/ resid[p] = "p" /\ HostDiscard(p)
       \/ HostPageIn(p) \/ HostZeroFill(p)
    /\ UNCHANGED <<pc, lock, reclaim>>

HostStep == \E p \in Pages : HostStartReclaim(p) \/ HostReclaim(p) \/ HostOther(p)

AtomicityInit ==
    /\ Init
    /\ pc = [c \in CPUs |-> Idle]
    /\ lock = NoCPU
    /\ reclaim = NoPage

AtomicityNext == HostStep \/ \E c \in CPUs : CPUNext(c)

(***************************************************************************)
(* Fairness (D21).  The host is not faulty: a reclaim it started and can  *)
(* finish, it finishes.  Without a shared lock nothing but the host's own *)
(* progress is needed (weak fairness of HostReclaim).  With the lock, the  *)
(* host can finish only while the lock is free, which a busy guest makes   *)
(* intermittent, so the lock is taken to be fair (strong fairness of      *)
(* HostReclaim: a host that finds the lock free again and again gets it), *)
(* and a CPU that is not in FaultyCPUs finishes the critical section it    *)
(* entered (weak fairness of its check, set and unlock).  A guest         *)
(* otherwise gets no fairness at all: it may do anything the machine lets *)
(* it do, in any order, or stop.  So the lock-based design loses progress *)
(* only through a faulty guest, and compare-and-swap never does.          *)
(***************************************************************************)
HostFairness ==
    \A p \in Pages :
        IF SSINDImpl = "SharedLock" THEN SF_allVars(HostReclaim(p)) ELSE WF_allVars(HostReclaim(p))

Fairness ==
    /\ HostFairness
    /\ \A c \in CPUs \ FaultyCPUs :
           /\ WF_allVars(SSINDCheckUnderLock(c)) /\ WF_allVars(SSINDSetUnderLock(c))
           /\ WF_allVars(SSINDUnlock(c))

AtomicitySpec == AtomicityInit /\ [][AtomicityNext]_allVars /\ Fairness

=============================================================================
