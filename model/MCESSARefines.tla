------------------------------ MODULE MCESSARefines ------------------------------
(***************************************************************************)
(* Models MCESSARefines_*.cfg of spec/ESSARefinesPageStates.tla: ESSA as   *)
(* an implementation of the z/VM-prototype page-state machine.  The 2007   *)
(* model refines it; its broken twin and the KVM implementations do not,   *)
(* and each KVM model's counterexample is one finding of docs/findings.md. *)
(*                                                                         *)
(* Symmetry over pages: ESSA treats pages alike (model/MCESSA.tla), and    *)
(* the auxiliary variables hold pages and per-page functions only.        *)
(***************************************************************************)
EXTENDS ESSARefinesPageStates, ESSABareInstruction, TLC

Symmetry == Permutations(Pages)

\* Spec and the bare instruction (every ORC on every page, ORC 5 included), as
\* spec/ESSABareInstruction.tla's InstructionSpec.
InstructionNext == Next \/ \E p \in Pages, orc \in ORCs : ESSAInstruction(p, orc)
AugInstructionSpec == AugInit(Init) /\ [][AugNext(InstructionNext)]_augVars

\* Witness of RefinesZVMStep (D130): an access is split into the host's page-in and the
\* access, so the two-step path of the mapping is taken.
PageInSplit == split # NoPage /\ splitKind = "Fault" /\ swapped[split]

\* Witness of RefinesZVMStep with the bare instruction (D130, D347): ORC 5 on a
\* discarded page (logically zero before it), the step at which a change bit the
\* discard had kept would show: the page-state machine's fresh zero frame is clean.
DiscardedPageMadeResident ==
    /\ lastOp.op = "ESSA" /\ lastOp.orc = 5 /\ lastOp.result # NoValue
    /\ lastOp.result % 4 = 3 /\ valid[lastOp.page]

(***************************************************************************)
(* The KVM implementations under the same mapping.  KVM departs from the   *)
(* paper's machine in several places at once, and TLC reports only the    *)
(* shortest counterexample; each finding model therefore leaves out the   *)
(* steps by which the other departures show (each class below is the step *)
(* at which that departure first breaks the refinement), so that its      *)
(* counterexample ends in its own finding's step.  Nothing is assumed      *)
(* about the step a model keeps: the refinement check decides.             *)
(***************************************************************************)
\* F1: ORC 6 on a page ESSA does not see in a frame leaves it as it was and reads as
\* success to the 2007 guest (not "V and logically zero", sources 6): KVM's ORC 6 is "set
\* stable if resident" (sources 2, 3), the paper's SetStableIfNotDiscarded is not.
F1Step ==
    /\ lastOp'.orc = 6 /\ Performed(lastOp')
    /\ ~EssaValid(lastOp'.page)
    /\ usage'[lastOp'.page] # "S" /\ lastOp'.result % 16 # 15
\* F2: a guest access to a page the paper's machine has discarded (Vz) that KVM lets
\* through: "there is no discard fault" (sources 2).
F2Step ==
    /\ lastOp'.op \in AccessOps /\ lastOp'.page \in Pages
    /\ PS!IsDiscarded(AbsUsage[lastOp'.page], AbsResid[lastOp'.page])
    /\ lastOp'.outcome # "DiscardFault"
\* F3: ORC 4 on a changed page that is not resident, turned volatile because GC is
\* clear (no storage keys, sources 2 [INFERENCE]).
F3Step ==
    /\ lastOp'.orc = 4 /\ Performed(lastOp')
    /\ ~valid[lastOp'.page] /\ swapped[lastOp'.page] /\ keyDirty[lastOp'.page]
    /\ usage'[lastOp'.page] # "S"
\* F4: ESSA says "logically zero" where the host still holds the content: a queued
\* discard that keeps the frame or the swap copy (sources 2, CBRL processing; in the new gmap
\* also a page in its host frame, sources 3.2, D105), or an extract that reports content 3
\* (Z set) for such a page.
ReportsZeroWithContent ==
    /\ lastOp'.orc = 0 /\ Performed(lastOp')
    /\ lastOp'.result % 4 = 3
    /\ valid[lastOp'.page] \/ swapped[lastOp'.page]
F4Step ==
    \/ /\ Performed(lastOp') /\ Len(cbrl') > Len(cbrl)
       /\ valid'[lastOp'.page] \/ swapped'[lastOp'.page]
       /\ ~F3Step
    \/ ReportsZeroWithContent
\* Departures that are none of F1-F4, left out of every finding model:
\* KVM reclaims V and P pages by swapping them ("V and P pages are swapped like S pages",
\* sources 2), where the z/VM machine has no Vp or Pp;
\* KVM reports content 2 (preserved) for a page it holds nothing of (Z clear: "invalid with Z
\* clear gives 2", sources 1), and the new gmap for a page in its host frame that its gmap PTE
\* does not show (D105); and the new gmap's ORC 4 on such a page leaves the usage as it was
\* (sources 3);
\* a CMMA reset is a reset of the VM (the guest starts again), not a step of the page-state
\* machine; a migration that changes a page's residency moves every page at once (one step of
\* PageStates changes one page).
OtherStep ==
    \/ lastOp'.op = "HostReclaim" /\ usage[lastOp'.page] \in {"V", "P"} /\ swapped'[lastOp'.page]
    \/ /\ lastOp'.orc = 0 /\ Performed(lastOp') /\ ~ReportsZeroWithContent
       /\ ReportedName(lastOp'.result) # PS!StateName(AbsUsage[lastOp'.page], AbsResid[lastOp'.page])
    \/ /\ lastOp'.orc = 4 /\ Performed(lastOp')
       /\ valid[lastOp'.page] /\ ~EssaValid(lastOp'.page) /\ usage'[lastOp'.page] = usage[lastOp'.page]
    \/ lastOp'.op = "HostResetCMMA"
    \/ lastOp'.op = "Migrate" /\ ~UNCHANGED HostTruth
Departure(f) ==
    CASE f = "F1" -> F1Step [] f = "F2" -> F2Step [] f = "F3" -> F3Step [] OTHER -> F4Step
FindingNext(f) ==
    /\ Next
    /\ ~OtherStep
    /\ \A g \in {"F1", "F2", "F3", "F4"} \ {f} : ~Departure(g)
F1Spec == AugInit(Init) /\ [][AugNext(FindingNext("F1"))]_augVars
F2Spec == AugInit(Init) /\ [][AugNext(FindingNext("F2"))]_augVars
F3Spec == AugInit(Init) /\ [][AugNext(FindingNext("F3"))]_augVars
F4Spec == AugInit(Init) /\ [][AugNext(FindingNext("F4"))]_augVars

\* Broken twin of RefinesZVMStep with the bare instruction (D347): a 2007 host
\* whose reclaim discards a page and keeps its change bit.  A discard "resets the
\* reference and change bits" ([Z5]; D6): ORC 5 then makes the page resident
\* changed, where the page-state machine's fresh zero frame is clean.
Paper2007ReclaimKeepingChangeBit(p) ==
    LET keep == usage[p] = "S" \/ (usage[p] = "P" /\ keyDirty[p])
    IN  /\ swapped' = [swapped EXCEPT ![p] = keep]
        /\ data' = [data EXCEPT ![p] = IF keep THEN @ ELSE 0]
        /\ UNCHANGED keyDirty   \* the twin: the change bit survives the discard
        /\ usage' = [usage EXCEPT ![p] = IF usage[p] = "P" /\ keep THEN "S"
                                         ELSE IF usage[p] = "P" THEN "V"
                                         ELSE @]
        /\ UNCHANGED <<gc, zbit, gmapPte, pteUnused>>

\* Broken twin of RefinesZVMStep: a 2007 ESSA whose SET_UNUSED (ORC 2) on a
\* preserved page keeps the swap copy, as if the host would free it later.  The
\* paper's host service discards at once ("{S,V,P}p -SetUnused-> Uz frees the
\* backing storage at once", PageStates' PrimitiveResult; sources 6: "a guest's
\* U or V on Sp frees the copy (Sp -> Uz, Sp -> Vz)"): the page maps to Up, a
\* state the z/VM machine does not have, and the step is no SetUnused.
\* (The table in full: an override that called Paper2007Effect would call itself.)
Paper2007EffectUnusedKeepsCopy(orc, p) ==
    LET u == usage[p]
        preserved == ~valid[p] /\ swapped[p]
        zero == ~valid[p] /\ ~swapped[p]
    IN IF orc = 0 THEN Effect(u, nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 1 \/ orc = 5 THEN Effect("S", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 2 THEN Effect("U", nodat[p], FALSE, FALSE, FALSE)          \* the twin: no drop
       ELSE IF orc = 3 THEN Effect("V", nodat[p], FALSE, FALSE, preserved)
       ELSE IF orc = 4 /\ zero THEN Effect("V", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 4 /\ preserved /\ keyDirty[p] THEN Effect("S", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 4 /\ preserved THEN Effect("V", nodat[p], FALSE, FALSE, TRUE)
       ELSE IF orc = 4 THEN Effect("P", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 6 /\ u = "V" /\ zero THEN Effect(u, nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 6 THEN Effect("S", nodat[p], FALSE, FALSE, FALSE)
       ELSE Effect(u, nodat[p], FALSE, FALSE, FALSE)

=============================================================================
