---------------------------- MODULE ESSAProperties ----------------------------
(***************************************************************************)
(* What the 2006/07 Linux guest assumes of ESSA, stated as properties of   *)
(* ESSA.tla.  The paper's machine (Impl = "Paper2007") satisfies every one *)
(* of them; where a KVM implementation does not, TLC's counterexample is a *)
(* finding (docs/findings.md).                                             *)
(***************************************************************************)
EXTENDS ESSA

EssaTypeOK ==
    /\ usage \in [Pages -> {"S", "U", "V", "P"}]
    /\ valid \in [Pages -> BOOLEAN] /\ swapped \in [Pages -> BOOLEAN]
    /\ zbit \in [Pages -> BOOLEAN] /\ nodat \in [Pages -> BOOLEAN]
    /\ data \in [Pages -> {0, Written}]
    /\ keyDirty \in [Pages -> BOOLEAN] /\ gc \in [Pages -> BOOLEAN]
    /\ cbrl \in Seq(Pages) /\ Len(cbrl) <= CBRLSize
    /\ owed \in [Pages -> {NoValue, 0, Written}]
    /\ belief \in [Pages -> {"S", "U", "V", "P"}]
    /\ modified \in [Pages -> BOOLEAN]
    /\ migrated \in BOOLEAN

\* What a read of the page would return now (a fault-in reads the swap copy).
Readable(p) == IF valid[p] \/ swapped[p] THEN data[p] ELSE 0

(***************************************************************************)
(* GuestStableBeliefInv.  Paper, section 3.2: "The state transitions are   *)
(* conditional through the SetStableIfNotDiscarded call, which only moves  *)
(* a page into stable if the page has not been discarded."  A page the     *)
(* guest believes stable (it allocated it, or make_stable reported         *)
(* success) is stable in the host.                                        *)
(***************************************************************************)
GuestStableBeliefInv == \A p \in Pages : belief[p] = "S" => usage[p] = "S"

(***************************************************************************)
(* StableContentOwedInv.  Paper, section 2: S, "the host is responsible    *)
(* for preserving the page content".  What the guest is owed of a page it  *)
(* believes stable is what a read returns.                                 *)
(***************************************************************************)
StableContentOwedInv ==
    \A p \in Pages : (owed[p] # NoValue /\ belief[p] = "S") => Readable(p) = owed[p]

(***************************************************************************)
(* ModifiedPContentKeptInv.  Paper, section 2: P, "The guest can tolerate  *)
(* the loss of the page content as long as the page has not been           *)
(* modified.  Page modification is indicated by the page dirty bit.  This  *)
(* bit needs to be accessible by the host."  A page the guest made P and   *)
(* then modified keeps what the guest is owed.                             *)
(***************************************************************************)
ModifiedPContentKeptInv ==
    \A p \in Pages :
        (owed[p] # NoValue /\ belief[p] = "P" /\ modified[p]) => Readable(p) = owed[p]

(***************************************************************************)
(* ReadResultInv.  Paper, section 2: "If a guest accesses a Vz or Pz page, *)
(* the host will present a special discard fault to notify the guest that *)
(* the page has been removed and that it needs to be recreated by the     *)
(* guest."  A read returns what the guest is owed, or a discard fault:    *)
(* never a silent wrong value.                                            *)
(***************************************************************************)
ReadResultInv ==
    (lastOp.op = "GuestRead" /\ lastOp.outcome = "Value")
    => lastOp.value = owed[lastOp.page]

(***************************************************************************)
(* ReportedZeroReadsZeroInv.  Paper, section 2: "Logically zero (z): There *)
(* is no associated frame or backed content.  The content of the page is   *)
(* considered to be zero."  A page whose content state ESSA reports as    *)
(* logically zero (3) reads as zero.                                       *)
(***************************************************************************)
ReportedZero(p) ==
    ~valid[p] /\ (IF Impl = "Paper2007" THEN ~swapped[p] ELSE zbit[p])
ReportedZeroReadsZeroInv == \A p \in Pages : ReportedZero(p) => Readable(p) = 0

(***************************************************************************)
(* SpecificationExceptionProp.  RI 1.1: "ORCs 0-6 are always accepted.     *)
(* ORC 7 is accepted only when the guest has facility 147.  Anything       *)
(* higher raises a specification exception."  Such an ESSA changes        *)
(* nothing.                                                                *)
(***************************************************************************)
SpecificationExceptionStep ==
    (lastOp'.orc > 7 \/ (lastOp'.orc = 7 /\ ~Facility147))
    => /\ lastOp'.outcome = "SpecificationException"
       /\ UNCHANGED <<usage, valid, swapped, zbit, nodat, data, cbrl>>
SpecificationExceptionProp == [][SpecificationExceptionStep]_vars

(***************************************************************************)
(* MigrationKeepsStableContentProp.  Can stable content be lost across     *)
(* migration, when the CMMA attributes carry only usage and N?  Paper,    *)
(* section 2: S, "the host is responsible for preserving the page         *)
(* content".  Every page that is stable in the host reads the same before *)
(* and after.                                                              *)
(***************************************************************************)
MigrationStep ==
    lastOp'.op = "Migrate" =>
        \A p \in Pages : usage[p] = "S" =>
            (IF valid'[p] \/ swapped'[p] THEN data'[p] ELSE 0) = Readable(p)
MigrationKeepsStableContentProp == [][MigrationStep]_vars

(***************************************************************************)
(* MigrationArrivalProp.  The states a page can arrive in (RI 5.1: "Z,     *)
(* residency, GC and pending CBRL entries are not migrated"): its usage    *)
(* and N as they were, no Z, so content state 0 (resident) for a page with *)
(* content and 2 (preserved) for a zero page; never 3 (logically zero).   *)
(* So a page that was Uz or Vz arrives as U or V + preserved (0x06, 0x0E;  *)
(* RI (b)15), and a 2007 guest's page_discarded test no longer sees it.    *)
(***************************************************************************)
MigrationArrivalStep ==
    lastOp'.op = "Migrate" =>
        \A p \in Pages :
            /\ usage'[p] = usage[p] /\ nodat'[p] = nodat[p]
            /\ ~zbit'[p] /\ ~swapped'[p]
            /\ valid'[p] = (data'[p] # 0)
MigrationArrivalProp == [][MigrationArrivalStep]_vars

=============================================================================
