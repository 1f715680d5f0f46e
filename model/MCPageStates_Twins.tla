------------------------- MODULE MCPageStates_Twins -------------------------
(***************************************************************************)
(* Broken twins: each replaces one decision operator or step of            *)
(* PageStates.tla (through a definition override in its                    *)
(* MCPageStates_Twin_*.cfg, D355) with a                                   *)
(* plausible implementation mistake.  Each must make TLC report a         *)
(* violation of exactly the property its cfg checks; model/manifest.json  *)
(* records which.  A property no twin can violate would prove nothing.     *)
(*                                                                         *)
(* The twins run the machine with its history variable (AugSpec of        *)
(* PageStatesRefinesFull.tla, whose steps on PageStates' variables are     *)
(* Spec's), so that a twin's contract includes the refinement of the       *)
(* guest's view, RefinesGuestMemory, checked on the twin itself (D396).    *)
(* The liveness twins, which run FairSpec, are in MCPageStates.tla.        *)
(***************************************************************************)
EXTENDS MCPageStatesRefinement

\* A host that ignores the dirty bit and discards any P page.
\* Caught by HostDiscardsOnlyDiscardableProp.
DiscardableIgnoringDirty(u, d) == u \in {"U", "V", "P"}

\* A machine without Pp that discards a dirty P page instead of making it Sp.
\* Caught by StableContentKeptInv.
NormaliseDroppingDirtyP(u, r, d) ==
    IF HasState(u, r) THEN Keep(u, r)
    ELSE IF u = "P" /\ r = "z" THEN Keep("V", "z")
    ELSE IF r = "p" /\ u \in {"U", "V", "P"} THEN Discard(u)
    ELSE Keep(u, r)

\* A host that forgets the change bit when it pages a page back in, so a P
\* page the guest modified looks clean and is discarded.  Caught by
\* StableContentKeptInv (which judges "modified" by the guest's own record).
PageInDirtyForgotten(d) == FALSE

\* A collapsed machine whose discard keeps a P page's usage: it produces Pz,
\* a state the full machine has but a collapsed one does not.  Caught by
\* VariantStatesInv (refinement of the full machine cannot see it).
DiscardKeepingP(u) == [u |-> u, r |-> "z", dropped |-> TRUE]

\* SetStableIfNotDiscarded that does not look at the discarded condition.
\* Caught by SetStableIfNotDiscardedProp.
SSINDAlwaysSucceeds(u, r) == TRUE

\* A read (or write) of a discarded page that returns zero instead of faulting,
\* as if the host had supplied a fresh zero frame.  Caught by ReadResultInv.
AccessOutcomeDiscardedReadsZero(u, r, x) ==
    IF u = "U" THEN IF UnusedAccess = "AddressingException"
                    THEN [kind |-> "AddressingException", value |-> NoValue]
                    ELSE [kind |-> "Value", value |-> Zero]
    ELSE IF IsDiscarded(u, r) THEN [kind |-> "Value", value |-> 0]
    ELSE IF r = "r" THEN ResidentAccess(x)
    ELSE [kind |-> "Wait", value |-> NoValue]

\* A host that reports a discard fault for a preserved volatile page instead of
\* paging it in.  Caught by DiscardFaultOnlyWhenDiscardedInv.
AccessOutcomeFaultingPreserved(u, r, x) ==
    IF u = "U" THEN IF UnusedAccess = "AddressingException"
                    THEN [kind |-> "AddressingException", value |-> NoValue]
                    ELSE [kind |-> "Value", value |-> Zero]
    ELSE IF u \in {"V", "P"} /\ r \in {"p", "z"} THEN [kind |-> "DiscardFault", value |-> NoValue]
    ELSE IF r = "r" THEN ResidentAccess(x)
    ELSE [kind |-> "Wait", value |-> NoValue]

\* A SetStable that also pages the page in: the guest setting residency.
\* Caught by GuestKeepsResidencyProp.
PrimitiveResultPagingIn(p, target) ==
    LET r == IF target = "S" /\ resid[p] = "p" THEN "r" ELSE resid[p]
    IN  IF HostService /\ r = "p" /\ Discardable(target, dirty[p])
        THEN Discard(target)
        ELSE Normalise(target, r, dirty[p])

\* Under "ReadsZero", an access to a resident unused page that goes to the old
\* frame.  Caught by UnusedAccessInv.
AccessOutcomeUnusedStale(u, r, x) ==
    IF u = "U" THEN IF UnusedAccess = "AddressingException"
                    THEN [kind |-> "AddressingException", value |-> NoValue]
                    ELSE IF r = "r" THEN ResidentAccess(x) ELSE [kind |-> "Value", value |-> 0]
    ELSE IF IsDiscarded(u, r) THEN [kind |-> "DiscardFault", value |-> NoValue]
    ELSE IF r = "r" THEN ResidentAccess(x)
    ELSE [kind |-> "Wait", value |-> NoValue]

\* A discard that records a usage code of its own ("D") for discarded pages,
\* outside the architecture's four.  Caught by TypeOK.
DiscardWithOwnCode(u) == [u |-> "D", r |-> "z", dropped |-> TRUE]

\* A machine without Pp whose host preserves a clean P page too, as Sp: the
\* dirty-bit test of the Pp rule dropped ("If the page is clean the host can
\* discard the page").  The host takes away the guest's consent to lose the
\* page.  Caught by HostKeepsUsageProp.
NormalisePreservingCleanP(u, r, d) ==
    IF HasState(u, r) THEN Keep(u, r)
    ELSE IF u = "P" /\ r = "z" THEN Keep("V", "z")
    ELSE IF u = "P" /\ r = "p" THEN Keep("S", "p")
    ELSE IF r = "p" /\ Discardable(u, d) THEN Discard(u)
    ELSE Keep(u, r)

\* An Extract that reports a preserved stable page as logically zero and a
\* logically zero one as preserved (two names exchanged).  Caught by
\* ExtractReportsStateProp.
StateNameSpSzExchanged(u, r) ==
    CASE u = "S" /\ r = "r" -> "Sr" [] u = "S" /\ r = "p" -> "Sz" [] u = "S" /\ r = "z" -> "Sp"
      [] u = "U" /\ r = "r" -> "Ur" [] u = "U" /\ r = "p" -> "Up" [] u = "U" /\ r = "z" -> "Uz"
      [] u = "V" /\ r = "r" -> "Vr" [] u = "V" /\ r = "p" -> "Vp" [] u = "V" /\ r = "z" -> "Vz"
      [] u = "P" /\ r = "r" -> "Pr" [] u = "P" /\ r = "p" -> "Pp" [] u = "P" /\ r = "z" -> "Pz"

\* An engine that answers an unconditional primitive as it answers the conditional
\* one: SetVolatile reports Success.  Caught by PrimitiveOutcomeInv.
SetVolatileAnsweringSuccess(p) == Offered("V") /\ ApplyPrimitive("SetVolatile", p, "V", "Success")

=============================================================================
