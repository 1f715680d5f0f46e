----------------------- MODULE MemoryDowngradeInductive -----------------------
(***************************************************************************)
(* Contract (docs/contract.md).  A proof aid, not a promise of its own:    *)
(* IndInv holds initially and every step from a state satisfying it keeps  *)
(* it, and IndInv implies OwedContentKeptInv, the key promise of           *)
(* MemoryDowngrade.tla (no data loss).  The THEOREMs at the end name the   *)
(* models that check them and the twin that shows the strengthening is     *)
(* needed.                                                                 *)
(***************************************************************************)
(***************************************************************************)
(* An inductive invariant for Dynamic Memory Downgrade's key safety        *)
(* property, OwedContentKeptInv ([Z2]: "Before memory can be reclaimed,    *)
(* the content of that memory must be copied elsewhere, either to other    *)
(* memory or paged out to DASD").  IndInv holds initially and every step   *)
(* from every state satisfying it, reachable or not, keeps it; so no       *)
(* content the guest is owed is lost, for these bounds, without            *)
(* enumerating the reachable states.  TLC checks the step from every state *)
(* of IndInit (model/MCMemoryDowngradeInductive.tla); Apalache with        *)
(* --init=IndInit --inv=IndInv --length=1                                  *)
(* (model/ApalacheMemoryDowngrade.tla).                                    *)
(***************************************************************************)
EXTENDS MemoryDowngradeProperties

\* Every state of the types (TypeOK's well-formedness is in IndInv), with
\* the usages and pinnings of the model's bounds: Init draws them from
\* UsageChoice and PinChoice and no step changes them (D63, D64), so these are
\* all the states the model's behaviours can be in, and more.
StatesOfType ==
    /\ usage \in [Pages -> UsageChoice]
    /\ pinned \in [Pages -> PinChoice]
    /\ dirty \in [Pages -> BOOLEAN]
    /\ frame \in [Pages -> Frames \cup {NoFrame}]
    /\ paged \in [Pages -> BOOLEAN]
    /\ data \in [Pages -> Values]
    /\ owed \in [Pages -> Values \cup {NoValue}]
    /\ modified \in [Pages -> BOOLEAN]
    /\ online \in [Frames -> BOOLEAN]
    /\ req \in [state : ReqStates, frames : SUBSET Frames]
    /\ copy \in [page : Pages \cup {NoPage}, target : Frames \cup {NoFrame},
                 value : Values \cup {NoValue}]
    /\ removed \in SUBSET Frames

\* A copy in progress read what its page holds, and the page keeps it: the
\* source is invalidated (stores wait), and the page is neither reclaimed
\* nor moved otherwise meanwhile.  Its target is a frame no page has, so
\* CopyFinish keeps a frame to one page.
CopyConsistent ==
    copy.page # NoPage =>
        /\ copy.page \in Pages
        /\ frame[copy.page] # NoFrame
        /\ copy.value = data[copy.page]
        /\ copy.target \in Frames
        /\ \A p \in Pages : frame[p] # copy.target

\* A P page the guest stored to and has not written back has its change bit
\* set, so the host keeps it (Keep) instead of discarding it.  (A V page's
\* change bit may be reset by a discard with the store still unsaved: its
\* content may be dropped, so nothing is said of it.)
ModifiedPIsDirty == \A p \in Pages : (usage[p] = "P" /\ modified[p]) => dirty[p]

\* The operator's record of removed memory is the memory offline outside an
\* active request: it adds nothing to the states IndInit starts from.
RemovedRecorded ==
    removed = {f \in Frames : ~online[f]} \ (IF req.state = "active" THEN req.frames ELSE {})

IndInv ==
    /\ TypeOK
    /\ CopyConsistent
    /\ ModifiedPIsDirty
    /\ RemovedRecorded
    /\ OwedContentKeptInv

IndInit == StatesOfType /\ IndInv

\* For the twin that shows the strengthening is needed: the property alone
\* (with the operator's record, which the strengthening is not about).
PropertyAloneInit == StatesOfType /\ TypeOK /\ RemovedRecorded /\ OwedContentKeptInv

\* Contract.  IndInv is inductive, one step from every state of IndInit: MCMemoryDowngradeInductive_OnePageP.
THEOREM IndInit /\ [][Next]_vars => []IndInv
\* It holds initially: the Apalache check MemoryDowngrade_Safety_initial (model/apalache.json).
THEOREM Init => IndInv
\* It implies the promise (one of its conjuncts); the promise alone is not inductive: twin
\* MCMemoryDowngradeInductive_Twin_PropertyAlone.
THEOREM IndInv => OwedContentKeptInv

=============================================================================
