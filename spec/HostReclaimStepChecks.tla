------------------------- MODULE HostReclaimStepChecks -------------------------
(***************************************************************************)
(* Step checks of HostReclaim.tla, apart from its contract                 *)
(* (HostReclaimProperties.tla).                                            *)
(*                                                                         *)
(* Each property here restates what one step of the machine does, written  *)
(* out from the sources ([Z3]'s steal order, trial invalidation, the       *)
(* paging writes): it catches a wrong step at the step that takes it, but  *)
(* it is not a promise a user of the design relies on (docs/contract.md,   *)
(* kind b).  The contract, the intent properties with their THEOREMs, the  *)
(* refinement and the liveness, is HostReclaimProperties.tla's.  What an   *)
(* engine's step must do is judged by the conformance suite                *)
(* (conformance/), and the reference implementation is equal to            *)
(* TLC's graph, which pins every transition.                               *)
(*                                                                         *)
(* The models still check these properties (their .cfg files name them,    *)
(* and each keeps its broken twin and its witness in model/manifest.json). *)
(* A mutant of HostReclaim.tla that only a property here catches is        *)
(* classed "step" by the mutation tooling, not "intent"                    *)
(* (docs/mutation.md); no property is added here to kill a mutant.         *)
(***************************************************************************)
EXTENDS HostReclaimProperties

\* PageStates' step check, through an instance in the z/VM profile (as
\* HostReclaimProperties.tla restates PageStates' contract), restated as [][A]_vars so that
\* TLC reports a violation under the name used here.
PSS == INSTANCE PageStatesStepChecks
        WITH Variant <- "ZVMPrototype", HostService <- TRUE,
             UnusedAccess <- "AddressingException"

SetStableIfNotDiscardedProp == [][PSS!SSINDStep]_vars

(***************************************************************************)
(* ValidSlotNotRewrittenProp.  [Z3]: "Pages valid on DASD are not          *)
(* rewritten"; "A page not changed since last read from DASD is almost     *)
(* never rewritten" (the exception, a DRAINed volume, is not modelled).    *)
(* A slot is valid when it is allocated and the host change bit is clear.  *)
(***************************************************************************)
RewriteStep ==
    io'.kind = "write" =>
        ~(slot[io'.page] # NoValue /\ ~hchanged[io'.page])

ValidSlotNotRewrittenProp == [][RewriteStep]_allVars

(***************************************************************************)
(* WrittenSlotTrustedProp.  [Z3]: "We pre-write changed pages up from the  *)
(* bottom of the list" and "Pages valid on DASD are not rewritten": a      *)
(* write to paging storage leaves the page valid there.  After every write *)
(* the page's slot holds its content and the host change bit is clear, so  *)
(* the host trusts the copy until the guest stores to the page again, and  *)
(* a steal of a page written early needs no second write.                  *)
(***************************************************************************)
WrittenStep ==
    io'.kind = "write" =>
        LET p == io'.page
        IN  slot'[p] = data'[p] /\ ~hchanged'[p]

WrittenSlotTrustedProp == [][WrittenStep]_allVars

(***************************************************************************)
(* EarlyWritesSettingProp.  [Z3], CP SET AGELIST EARLYWRITES: "Sets        *)
(* whether early writes are allowed.  (If storage-rich, say NO.)"  With    *)
(* early writes off, the host writes a page to paging storage only as it   *)
(* takes the page's frame: after the write the page is preserved.          *)
(***************************************************************************)
NoEarlyWriteStep ==
    (~EarlyWrites /\ io'.kind = "write") => resid'[io'.page] = "p"

EarlyWritesSettingProp == [][NoEarlyWriteStep]_allVars

(***************************************************************************)
(* RevalidationPreservesContentProp.  [Z3], trial invalidation: "Keep the  *)
(* PTE intact but set the 'invalid' bit; Leave the frame contents intact;  *)
(* Wait for the guest to touch the page ... On a fault, there is nothing   *)
(* really to do except: Clear the 'invalid' bit; Move the frame to the     *)
(* front of the frame list".  A page that leaves the aging list and keeps  *)
(* its frame was revalidated: its content and slot are unchanged and the   *)
(* step did no I/O.                                                        *)
(***************************************************************************)
RevalidateStep ==
    \A p \in Pages :
        (OnList(aging, p) /\ ~OnList(aging', p) /\ resid'[p] = "r") =>
            /\ data'[p] = data[p]
            /\ slot'[p] = slot[p]
            /\ io'.kind = "none"

RevalidationPreservesContentProp == [][RevalidateStep]_allVars

(***************************************************************************)
(* StealOrderProp.  The paper, section 4: "unused pages are                *)
(* unconditionally selected on the first pass, and volatile pages are      *)
(* unconditionally selected on the second pass, regardless of the current  *)
(* selection criteria"; [Z1]: "CP can preferentially steal unused,         *)
(* volatile, and not dirty potentially volatile pages"; [Z3]: "Best reclaim *)
(* candidates are at the bottom" of the global aging list.  A host step    *)
(* that takes a page's frame (HostDiscard or HostPreserve of a resident    *)
(* page) takes an unused page if there is one; else a volatile or clean P  *)
(* page if there is one; and a page it writes out (HostPreserve) is the    *)
(* bottom of the aging list.                                               *)
(***************************************************************************)
StealStep ==
    \A p \in Pages :
        (/\ resid[p] = "r" /\ resid'[p] \in {"p", "z"}
         /\ lastOp'.op \in {"HostDiscard", "HostPreserve"}) =>
            LET unusedLeft   == \E q \in Pages : resid[q] = "r" /\ usage[q] = "U"
                volatileLeft == \E q \in Pages :
                                    resid[q] = "r" /\ (usage[q] = "V" \/ (usage[q] = "P" /\ ~dirty[q]))
            IN  /\ unusedLeft => usage[p] = "U"
                /\ volatileLeft => (usage[p] \in {"U", "V"} \/ (usage[p] = "P" /\ ~dirty[p]))
                /\ lastOp'.op = "HostPreserve" => (Len(aging) > 0 /\ aging[Len(aging)] = p)

StealOrderProp == [][StealStep]_allVars

(***************************************************************************)
(* TouchFaultsProp.  [Z3], trial invalidation: "Keep the PTE intact but    *)
(* set the 'invalid' bit ... Wait for the guest to touch the page ... A    *)
(* touch will cause a page fault ... On a fault ... Clear the 'invalid'    *)
(* bit; Move the frame to the front of the frame list".  No guest access   *)
(* goes through to a frame on the global aging list: it faults, and the    *)
(* page is revalidated (off the list) before the access completes.  A host *)
(* that left the PTE valid would let the guest use a frame it is about to  *)
(* steal, and the page just used would still be the next reclaim candidate *)
(* (D222).  A guest access is the step that records a new Read or Write in *)
(* lastOp (policy steps leave lastOp alone).                               *)
(***************************************************************************)
AccessStep ==
    (lastOp' # lastOp /\ lastOp'.op \in {"Read", "Write"}) =>
        ~OnList(aging, lastOp'.page)

TouchFaultsProp == [][AccessStep]_allVars

(***************************************************************************)
(* ScanOnlyUnderPressureProp.  [Z3]: "If a TYPE=ANY low threshold is       *)
(* breached, demand scan is kicked off", and demand scan keeps "the        *)
(* available lists populated just right".  The demand scan's steps, a      *)
(* frame put on the aging list (trial invalidation) or a frame taken from  *)
(* a resident page (HostDiscard, HostPreserve), happen only while fewer    *)
(* than LowThreshold frames are free; a host that scanned with frames to   *)
(* spare would fault and page out pages for nothing (D223).                *)
(***************************************************************************)
ScanStep ==
    \A p \in Pages :
        (\/ ~OnList(aging, p) /\ OnList(aging', p)
         \/ /\ resid[p] = "r" /\ resid'[p] \in {"p", "z"}
            /\ lastOp'.op \in {"HostDiscard", "HostPreserve"}) =>
            Frames - Cardinality(ResidentPages) < LowThreshold

ScanOnlyUnderPressureProp == [][ScanStep]_allVars

\* What ScanOnlyUnderPressureProp is about (its witness): a resident page
\* while enough frames are free that no scan may run.
ResidentWithoutPressure ==
    /\ Frames - Cardinality(ResidentPages) >= LowThreshold
    /\ ResidentPages # {}

\* What StealOrderProp is about (its witness, model/manifest.json): a steal
\* that chooses among two or more resident pages.
StealAmongResident ==
    /\ lastOp'.op \in {"HostDiscard", "HostPreserve"}
    /\ Cardinality({q \in Pages : resid[q] = "r"}) >= 2

PagingWrite        == io'.kind = "write"
StealWithValidSlot == lastOp'.op = "HostPreserve"
                      /\ slot[lastOp'.page] # NoValue /\ ~hchanged[lastOp'.page]
Revalidation       == \E p \in Pages : OnList(aging, p) /\ ~OnList(aging', p) /\ resid'[p] = "r"
\* A write of a page whose slot copy is stale: the host change bit is set.
WriteOfChangedPage == io'.kind = "write" /\ hchanged[io'.page]

\* (StealOrderProp.)  A steal of an unused page, its first pass, discarded without I/O (D224).
UnusedStolen   == lastOp' # lastOp /\ lastOp'.op = "HostDiscard"
                  /\ resid[lastOp'.page] = "r" /\ usage[lastOp'.page] = "U"

=============================================================================
