-------------------- MODULE ApalacheMemoryDowngradeCompare --------------------
(***************************************************************************)
(* Apalache models of bulk and incremental removal compared                *)
(* (spec/MemoryDowngradeCompare.tla); model/apalache.json lists the        *)
(* checks.  Constants as in model/MCMemoryDowngradeCompare_SlotsFirst.cfg  *)
(* and _AnyRoomUnpinned.cfg.                                               *)
(***************************************************************************)
EXTENDS MemoryDowngradeCompare

CInitCommon ==
    /\ Frames = {"f1_OF_FRAME", "f2_OF_FRAME", "f3_OF_FRAME", "f4_OF_FRAME"}
    /\ Permanent = {"f1_OF_FRAME", "f2_OF_FRAME"}
    /\ MinPermanent = 2
    /\ NoFrame = "none_OF_FRAME"
    /\ Pages = {"p1_OF_PAGE", "p2_OF_PAGE"}
    /\ NoPage = "none_OF_PAGE"
    /\ Slots = 1
    /\ Values = {0}
    /\ UsageChoice = {"S", "U", "V", "P"}
    /\ PinChoice = {FALSE, TRUE}

CInitSlotsFirst == CInitCommon /\ MovePolicy = "SlotsFirst"
CInitAnyRoom    == CInitCommon /\ MovePolicy = "AnyRoom"

=============================================================================
