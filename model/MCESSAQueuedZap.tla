------------------------------ MODULE MCESSAQueuedZap ------------------------------
(***************************************************************************)
(* Models MCESSAQueuedZap_*.cfg of spec/ESSAQueuedZap.tla (ZapSpec,        *)
(* ZapContractSpec): the twins and symmetry of model/MCESSA.tla, and the   *)
(* witness of QueuedZapHarmlessInv.                                        *)
(***************************************************************************)
EXTENDS MCESSA, ESSAQueuedZap

\* Witness (D130): an entry whose zap would drop its own page's swap copy now.
ZapPending == \E i \in DOMAIN cbrl : ZapWouldFire(cbrl[i], cbrl[i])

=============================================================================
