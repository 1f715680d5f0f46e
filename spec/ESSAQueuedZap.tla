----------------------------- MODULE ESSAQueuedZap -----------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  One promise, with its THEOREM at the end  *)
(* of this module naming the model that checks it and the finding or twin  *)
(* that fails it.                                                          *)
(*                                                                         *)
(*   No queued zap lands on kept content. QueuedZapHarmlessInv: a CBRL     *)
(*       entry processed now drops only its own page's swap copy, and only *)
(*       content the guest gave up, "it can tolerate the loss of the page  *)
(*       content" (paper 2).                                               *)
(***************************************************************************)
(***************************************************************************)
(* QueuedZapHarmlessInv: no queued zap ever lands on content the host      *)
(* holds for the guest.  One statement of what three step checks of       *)
(* ESSAStepChecks.tla each guard a part of:                                *)
(*   PteExchangeClearsZeroProp: the exchange of the PTE ESSA looks at     *)
(*     leaves Z clear, "so that a discard queued before the exchange is    *)
(*     never carried out on content the host holds after it" (D310);       *)
(*   the Z clause of QueuedDiscardProp: an ESSA that queues nothing        *)
(*     leaves Z as its path says (D228);                                   *)
(*   ZeroBitClearedProp: where Z may be cleared (D283).                    *)
(* Sources: sources 2, "CBRL processing (__gmap_zap, S3): only a swap      *)
(* entry is acted on; if the usage is U or Z is set, the swap slot is      *)
(* freed and the PTE cleared"; sources 3.2, the zap drops "the host PTE if *)
(* it is a swap entry", and before the S9 fix "the wrong pages"; sources   *)
(* 3.3, "without it a page freed and quickly reused could be discarded by  *)
(* a later CBRL pass"; and what a discard may take, paper section 2: the   *)
(* guest "has indicated that it can tolerate the loss of the page          *)
(* content" (V) or the content "is meaningless" (U) - when it asked, not   *)
(* for what it stores afterwards.                                          *)
(*                                                                         *)
(* Stated on the zap itself, for every entry of the CBRL at every moment:  *)
(* if processing the entry now would drop a swap copy (ZapWouldFire, the   *)
(* condition of HostProcessCBRL), the copy is the entry's own page's and   *)
(* it is content the guest gave up: the page is still U or V (a store to   *)
(* such a page is the guest's risk: "stores to V pages are allowed", D13), *)
(* or the guest has not stored to it since the entry was queued.          *)
(* "Stored since" is a history variable (storedSince): set by a completed  *)
(* store to the page, cleared when an ESSA queues the page.  It is never   *)
(* read by ESSA's steps, so it constrains nothing.                         *)
(*                                                                         *)
(* What it covers and the three do not: a zap that lands on another page   *)
(* (F8, CBRLGuestAddress), whatever Z does.  What it does not say that     *)
(* they do: ZeroBitClearedProp also forbids clearing Z too early (a        *)
(* discard not carried out, content kept that the guest gave up, D283),    *)
(* and QueuedDiscardProp's Z clause also fixes Z on pages no zap reaches.  *)
(* So all three stay, as step checks, and refimpl/essa/properties.py and   *)
(* the conformance judge (conformance/essa/protocol.py) name each.        *)
(***************************************************************************)
EXTENDS ESSAProperties, ESSABareInstruction

VARIABLE
    \* @type: PAGE -> Bool;
    storedSince     \* the guest stored to the page since it was last queued on the CBRL

zapVars == <<vars, storedSince>>

\* HostProcessCBRL's condition for entry p and target t (spec/ESSA.tla).
ZapWouldFire(p, t) ==
    LET asked == ~valid[p] \/ (Gmap /\ gmapPte[p] = "Empty")
    IN  asked /\ (usage[p] = "U" \/ zbit[p]) /\ t # NoPage /\ ~valid[t] /\ swapped[t]

QueuedZapHarmlessInv ==
    \A i \in DOMAIN cbrl, t \in Pages :
        (KVM /\ t \in ZapTargets(cbrl[i]) /\ ZapWouldFire(cbrl[i], t))
            => t = cbrl[i] /\ (usage[t] \in {"U", "V"} \/ ~storedSince[t])

StoredSinceNext ==
    storedSince' = [p \in Pages |->
        IF Len(cbrl') > Len(cbrl) /\ cbrl'[Len(cbrl')] = p THEN FALSE
        ELSE IF /\ lastOp'.op \in {"GuestWrite", "Write"} /\ lastOp'.page = p
                /\ lastOp'.outcome = "Done"
             THEN TRUE
        ELSE storedSince[p]]

ZapInit(concreteInit) == concreteInit /\ storedSince = [p \in Pages |-> FALSE]
ZapNext(concreteNext) == concreteNext /\ StoredSinceNext

\* ESSA's Spec, and ESSABareInstruction's ContractSpec (every ORC on every page as a bare
\* instruction, with the host and bare accesses), each with the history variable.
ZapSpec == ZapInit(Init) /\ [][ZapNext(Next)]_zapVars
ZapContractSpec ==
    ZapInit(Init)
    /\ [][ZapNext(\/ \E p \in Pages, orc \in ORCs : ESSAInstruction(p, orc)
                  \/ \E p \in Pages : BareAccess(p) \/ HostReclaim(p) \/ HostUnmapGmap(p) \/ HostAge(p)
                  \/ HostProcessCBRL)]_zapVars

\* No data loss.  MCESSAQueuedZap_KVMClassic, MCESSAQueuedZap_KVMGmap (ESSA's own Next),
\* MCESSAQueuedZap_KVMClassicContract, MCESSAQueuedZap_KVMGmapContract (the bare instruction),
\* MCESSAQueuedZap_KVMGmapSwitches, MCESSAQueuedZap_KVMGmapContractSwitches (the other switches;
\* MCESSAQueuedZap_KVMClassicTwoPages and, the bare instruction, MCESSAQueuedZap_KVMClassicContractTwoPages,
\* deep); twins
\* MCESSAQueuedZap_Twin_StickyZero, MCESSAQueuedZap_Twin_CBRLGuestAddress (the new gmap before its S9
\* fixes, Bugs outside the hypothesis).
THEOREM (Impl # "Paper2007" /\ Bugs = {} /\ CMMAEnabled) => (ZapSpec => []QueuedZapHarmlessInv)
THEOREM (Impl # "Paper2007" /\ Bugs = {} /\ CMMAEnabled)
            => (ZapContractSpec => []QueuedZapHarmlessInv)

=============================================================================
