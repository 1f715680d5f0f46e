------------------------- MODULE ApalacheBallooning -------------------------
(***************************************************************************)
(* Apalache models of CMM1 ballooning (spec/Ballooning.tla);               *)
(* model/apalache.json lists the checks.  Constants as in                  *)
(* model/MCBallooning_Safety.cfg: one guest of three pages, a floor of one *)
(* page.  ShrinkMetProp is a liveness property: Apalache's bounded checks  *)
(* do not reach it (TLC checks it).                                        *)
(***************************************************************************)
EXTENDS BallooningStepChecks

CInit ==
    /\ Guests = {"g1_OF_GUEST"}
    /\ GuestPages = {"q1_OF_GPAGE", "q2_OF_GPAGE", "q3_OF_GPAGE"}
    /\ Floor = 1
    /\ Values = {0, 1}

AllStateInvariants ==
    /\ TypeOK
    /\ FloorInv
    /\ BalloonedPagesUnusedInv
    /\ ReleasedFrameReturnedInv
    /\ OwedContentKeptInv
    /\ UnbackedReadsZeroInv

=============================================================================
