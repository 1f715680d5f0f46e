------------------------- MODULE PageStatesInductive -------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  A proof aid, not a promise of its own:    *)
(* IndInv holds initially and every step from a state satisfying it keeps  *)
(* it, and IndInv implies StableContentKeptInv, the key promise of         *)
(* PageStates.tla (no data loss).  The THEOREMs at the end name the models *)
(* that check them and the twin that shows the strengthening is needed.    *)
(***************************************************************************)
(***************************************************************************)
(* An inductive invariant for the core safety property of the page-state  *)
(* machine, StableContentKeptInv ("the host is responsible for preserving *)
(* the page content").  IndInv holds initially and is preserved by every   *)
(* step from every state that satisfies it, reachable or not; so the       *)
(* property holds in every reachable state for these bounds, without       *)
(* enumerating them.  TLC checks the step from every state of IndInit      *)
(* (model/MCPageStatesInductive.tla); Apalache checks the same with        *)
(* --init=IndInit --inv=IndInv --length=1.                                 *)
(***************************************************************************)
EXTENDS PageStateProperties

\* The step of every action ignores lastOp (it only records), so one value of
\* it in the initial states stands for all of them.
InitialOp == [op |-> "Init", page |-> NoPage, arg |-> NoValue, outcome |-> "None", value |-> NoValue]

\* Every state of the types, with lastOp fixed as above.
StatesOfType ==
    /\ usage \in [Pages -> Usages]
    /\ resid \in [Pages -> Residencies]
    /\ dirty \in [Pages -> BOOLEAN]
    /\ data \in [Pages -> Values]
    /\ intended \in [Pages -> Values \cup {NoValue}]
    /\ modified \in [Pages -> BOOLEAN]
    /\ requested \in [Pages -> Usages]
    /\ lastOp = InitialOp

\* A logically zero page holds nothing and has a clean change bit.
ZeroPageIsEmpty == \A p \in Pages : resid[p] = "z" => (data[p] = 0 /\ ~dirty[p])

\* Stores the guest has not written back show in the change bit, unless the
\* page was discarded (the content and its change bit went together).
ModifiedIsDirty == \A p \in Pages : (modified[p] /\ ~Discarded(p)) => dirty[p]

\* The guest is owed nothing from an unused page.
UnusedOwesNothing == \A p \in Pages : usage[p] = "U" => (intended[p] = NoValue /\ ~modified[p])

\* Whatever is owed and not discarded is there: stable pages, and also volatile
\* and potentially volatile pages until the host discards them.
OwedContentPresent ==
    \A p \in Pages :
        (intended[p] # NoValue /\ ~Discarded(p))
        => (IF resid[p] = "z" THEN 0 ELSE data[p]) = intended[p]

\* The usage the guest last requested is the page's, but where the host took
\* an implicit transition: a dirty P page preserved as Sp where there is no
\* Pp (S from then on, whatever the residency), a discarded P page collapsed
\* to Vz (logically zero until the guest's next primitive).
RequestedIsUsage ==
    \A p \in Pages :
        \/ requested[p] = usage[p]
        \/ requested[p] = "P" /\ usage[p] = "S"
        \/ requested[p] = "P" /\ usage[p] = "V" /\ resid[p] = "z"

\* A discarded page the guest last made P holds no stores of the guest: the
\* host discards a P page only while it is clean, and a primitive on a
\* discarded page clears the record.
DiscardedPUnmodified == \A p \in Pages : (Discarded(p) /\ requested[p] = "P") => ~modified[p]

\* Only the states the machine can be in: the variant's states.
InVariant == \A p \in Pages : HasState(usage[p], resid[p])

IndInv ==
    /\ TypeOK
    /\ InVariant
    /\ ZeroPageIsEmpty
    /\ ModifiedIsDirty
    /\ UnusedOwesNothing
    /\ RequestedIsUsage
    /\ DiscardedPUnmodified
    /\ OwedContentPresent
    /\ StableContentKeptInv

IndInit == StatesOfType /\ IndInv

\* For the twin that shows the strengthening is needed: the property alone.
PropertyAloneInit == StatesOfType /\ TypeOK /\ InVariant /\ StableContentKeptInv

\* Contract.  IndInv is inductive, one step from every state of IndInit: MCPageStatesInductive_Full, MCPageStatesInductive_ZVMPrototype.
THEOREM IndInit /\ [][Next]_vars => []IndInv
\* It holds initially: MCPageStatesInductive_Reachable (IndInv in every reachable state).
THEOREM Init => IndInv
\* It implies the promise (one of its conjuncts); the promise alone is not inductive: twin
\* MCPageStatesInductive_Twin_PropertyAlone.
THEOREM IndInv => StableContentKeptInv

=============================================================================
