------------------------- MODULE ApalacheESSAQueuedZap -------------------------
(***************************************************************************)
(* Apalache models of QueuedZapHarmlessInv (spec/ESSAQueuedZap.tla);       *)
(* model/apalache.json lists the checks.  The specification is            *)
(* ESSAQueuedZap's ZapContractSpec (every ORC on every page as a bare      *)
(* instruction, with the host and bare accesses, the history variable      *)
(* storedSince kept alongside); constants as in                            *)
(* model/MCESSAQueuedZap_KVMClassicContract.cfg and                        *)
(* MCESSAQueuedZap_KVMGmapContract.cfg: one page.                          *)
(***************************************************************************)
EXTENDS ESSAQueuedZap

CInitCommon ==
    /\ Pages = {"p1_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"
    /\ StorageKeys = TRUE
    /\ Facility147 = TRUE
    /\ CBRLSize = 1
    /\ Bugs = {}
    /\ PrebuiltPageTables = FALSE
    /\ ModernGuest = FALSE
    /\ CMMAEnabled = TRUE

CInitKVMClassic == CInitCommon /\ Impl = "KVMClassic" /\ MachineInterpretsESSA = FALSE
CInitKVMGmap == CInitCommon /\ Impl = "KVMGmap" /\ MachineInterpretsESSA = TRUE

(***************************************************************************)
(* The specification is ESSAQueuedZap's ZapContractSpec, restated in two   *)
(* places for Apalache 0.62.1.  Init is given as an expression            *)
(* (Init /\ TRUE): an action passed by name is bound in a LET.  And       *)
(* ZapNext is taken into each action of ZapContractNext (under its         *)
(* quantifier): (A \/ B) /\ S is (A /\ S) \/ (B /\ S), and \E p : A(p) /\ S *)
(* is \E p : (A(p) /\ S) where S does not name p.  Undistributed, Apalache *)
(* fails: a branch of ESSA that the constants disable is simplified to     *)
(* FALSE with its assignments, while StoredSinceNext, in the same          *)
(* transition, still reads cbrl' ("cbrl' is not assigned a value").        *)
(* Distributed, and with rewriter.shortCircuit (the check's tuning in      *)
(* model/apalache.json), the FALSE conjunct cuts the rest off.             *)
(***************************************************************************)
ZapInitExpr == ZapInit(Init /\ TRUE)
ZapContractNextDistributed ==
    \/ \E p \in Pages, orc \in ORCs : ZapNext(ESSAInstruction(p, orc))
    \/ \E p \in Pages : \/ ZapNext(BareAccess(p)) \/ ZapNext(HostReclaim(p))
                      \/ ZapNext(HostUnmapGmap(p)) \/ ZapNext(HostAge(p))
    \/ ZapNext(HostProcessCBRL)
=============================================================================
