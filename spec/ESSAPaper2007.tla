--------------------------- MODULE ESSAPaper2007 ---------------------------
(***************************************************************************)
(* The 2007 guest-page-hinting machine (Impl = "Paper2007"): ESSA as the   *)
(* 2007 patch series defined it (sources 6) on the machine of the paper's  *)
(* section 2 (Figure 3).  A page is in one of Sr Sp Sz Ur Uz Vr Vz Pr:     *)
(* here r is valid, p swapped, z neither (ESSAMachine.tla).  The host     *)
(* discards V pages and clean P pages when it reclaims them; an access to  *)
(* a discarded page (Vz) raises the discard fault, and to an unused page   *)
(* an addressing exception.  This is the machine the 2007 Linux guest was *)
(* written for: every assumption of the guest holds on it.                *)
(***************************************************************************)
EXTENDS ESSAMachine

\* Sources 6 and the paper's section 2 (Figure 3 machine).  ORC 5 makes the page
\* resident (its name in the 2007 series: SET_STABLE_MAKE_RESIDENT); ORC 6
\* fails on Vz; ORC 7 did not exist (a specification exception, D104).  A row
\* whose last field is set drops a preserved page: a discard, which makes the
\* content logically zero "and resets the reference and change bits" ([Z5];
\* D6); ESSA (ESSA.tla) applies it, change bit included.
Paper2007Effect(orc, p) ==
    LET u == usage[p]
        preserved == ~valid[p] /\ swapped[p]
        zero == ~valid[p] /\ ~swapped[p]
    IN IF orc = 0 THEN Effect(u, nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 1 \/ orc = 5 THEN Effect("S", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 2 THEN Effect("U", nodat[p], FALSE, FALSE, preserved)   \* Sp -> Uz
       ELSE IF orc = 3 THEN Effect("V", nodat[p], FALSE, FALSE, preserved)   \* Sp -> Vz
       ELSE IF orc = 4 /\ zero THEN Effect("V", nodat[p], FALSE, FALSE, FALSE)   \* P on zero gives Vz
       ELSE IF orc = 4 /\ preserved /\ keyDirty[p] THEN Effect("S", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 4 /\ preserved THEN Effect("V", nodat[p], FALSE, FALSE, TRUE)   \* clean: discard
       ELSE IF orc = 4 THEN Effect("P", nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 6 /\ u = "V" /\ zero THEN Effect(u, nodat[p], FALSE, FALSE, FALSE)
       ELSE IF orc = 6 THEN Effect("S", nodat[p], FALSE, FALSE, FALSE)
       ELSE Effect(u, nodat[p], FALSE, FALSE, FALSE)

\* ORC 5 pages the page in (the fault is the host's): the page becomes
\* resident and its swap copy is dropped, Sp -> Sr (sources 6; D104).
Paper2007PageIn(p) ==
    /\ valid' = [valid EXCEPT ![p] = TRUE]
    /\ swapped' = [swapped EXCEPT ![p] = FALSE]
    /\ UNCHANGED data

\* The interruptions of a guest access (sources 6): "An access to a U page
\* raises an addressing exception; an access to Vz the discard fault".  KVM
\* has neither (sources 2: "no program interruption reaches the guest").
DiscardFault(p) == ~KVM /\ usage[p] = "V" /\ ~valid[p] /\ ~swapped[p]
AddressingException(p) == ~KVM /\ usage[p] = "U"

\* Reclaim of a resident page (sources 6): Ur -> Uz, Sr -> Sp, Vr -> Vz,
\* Pr -> Sp if dirty, Vz if clean.  HostReclaim (ESSA.tla) takes the frame
\* away and records the step; this is what happens to the rest of the page.
\* A page not kept is discarded, which makes its content logically zero "and
\* resets the reference and change bits" ([Z5]; D6); a page kept (paged out)
\* keeps its storage key, change bit included.
Paper2007Reclaim(p) ==
    LET keep == usage[p] = "S" \/ (usage[p] = "P" /\ keyDirty[p])
    IN  /\ swapped' = [swapped EXCEPT ![p] = keep]
        /\ data' = [data EXCEPT ![p] = IF keep THEN @ ELSE 0]
        /\ keyDirty' = [keyDirty EXCEPT ![p] = keep /\ @]
        /\ usage' = [usage EXCEPT ![p] = IF usage[p] = "P" /\ keep THEN "S"
                                         ELSE IF usage[p] = "P" THEN "V"
                                         ELSE @]
        /\ UNCHANGED <<gc, zbit, gmapPte, pteUnused>>

=============================================================================
