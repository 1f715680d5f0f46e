------------------ MODULE MCLinuxGuestProtocolCheckWritable ------------------
(***************************************************************************)
(* Models MCLinuxGuestProtocolCheckWritable_*.cfg of                       *)
(* spec/LinuxGuestProtocolCheckWritable.tla (do_no_page's check of a       *)
(* writable mapping, D274): the protocol's symmetry, the broken twin of    *)
(* CheckWritableTypeOK and the witness of WritableMappedNotVInv.           *)
(***************************************************************************)
EXTENDS MCLinuxGuestProtocol, LinuxGuestProtocolCheckWritable

\* Broken twin (D308): the spec's unmap taken for any mapping, a writable one
\* included, without counting it off the writable ones: more writable mappings
\* are counted than there are mappings.  Caught by CheckWritableTypeOK.
SpecStepUncounted ==
    /\ Next
    /\ wmaps' = [p \in Pages |-> IF maps'[p] = 0 THEN 0 ELSE wmaps[p]]
UncountedUnmapSpec == CheckWritableInit /\ [][CheckWritableNext \/ SpecStepUncounted]_cwVars

\* What WritableMappedNotVInv is about (its witness): the race window of the
\* reset: a check has set PG_writable and not yet installed its entry, while
\* a read-only mapping, whose unmap may be the last, is still there.
CheckWritableRaceWindow ==
    \E c \in CPUs : pc[Proc(c)] = "CWInstall" /\ maps[pg[Proc(c)]] > wmaps[pg[Proc(c)]]

=============================================================================
