------------------------------ MODULE MCESSAQueuedZap ------------------------------
(***************************************************************************)
(* Models MCESSAQueuedZap_*.cfg of spec/ESSAQueuedZap.tla: model/MCESSA.tla *)
(* specifications with the history variable storedSince.                   *)
(***************************************************************************)
EXTENDS MCESSA, ESSAQueuedZap

ZapSpec == ZapInit(Init) /\ [][ZapNext(Next)]_zapVars
ZapContractInit == ZapInit(Init)
ZapContractNext ==
    ZapNext(\/ \E p \in Pages, orc \in ORCs : ESSAInstruction(p, orc)
            \/ \E p \in Pages : BareAccess(p) \/ HostReclaim(p) \/ HostUnmapGmap(p) \/ HostAge(p)
            \/ HostProcessCBRL)
ZapContractSpec == ZapContractInit /\ [][ZapContractNext]_zapVars

\* Witness (D130): an entry whose zap would drop its own page's swap copy now.
ZapPending == \E i \in DOMAIN cbrl : ZapWouldFire(cbrl[i], cbrl[i])

=============================================================================
