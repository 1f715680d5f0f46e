------------------------ MODULE MCLinuxGuestProtocol ------------------------
(***************************************************************************)
(* The one model module for spec/LinuxGuestProtocol.tla, serving every     *)
(* configuration in model/MCLinuxGuestProtocol_*.cfg; the broken twins are *)
(* in MCLinuxGuestProtocol_Twins.tla.                                      *)
(*                                                                         *)
(* Bounds: two CPUs (four contexts) and one page in the CI models, three   *)
(* CPUs or two pages in the deep ones.  Every race of the protocol is      *)
(* between two contexts on one page: the make_volatile that checks and     *)
(* the user that takes a reference, makes the page stable and sets a       *)
(* condition; the deadlock needs one CPU's two contexts.  Pages interact   *)
(* only through the interleaving, so a second page adds no new race (the   *)
(* deep model with two pages measures that).  MaxMaps = 1 gives mapped and *)
(* unmapped pages and the map-count condition; UserOps selects the         *)
(* operations a model needs (D37).                                         *)
(***************************************************************************)
EXTENDS LinuxGuestProtocolStepChecks, TLC

(***************************************************************************)
(* Symmetry: every action and property quantifies over CPUs and Pages      *)
(* uniformly, no constant names a particular CPU or page, and nothing      *)
(* CHOOSEs one, so permuting CPUs (and with them their contexts <<c, ..>>) *)
(* or pages maps behaviours to behaviours and preserves every property     *)
(* checked here (all are safety properties; TLC's deadlock check is        *)
(* preserved too).  NoPage is not permuted.                                *)
(***************************************************************************)
Symmetry == Permutations(CPUs) \cup Permutations(Pages)

=============================================================================
