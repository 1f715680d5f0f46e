---------------------- MODULE LinuxGuestProtocolCheckWritable ----------------------
(***************************************************************************)
(* Contract (docs/contract.md).  One promise, with its THEOREM after its   *)
(* definition naming the model that checks it and the finding that fails   *)
(* it.                                                                     *)
(*                                                                         *)
(*   No data loss. WritableMappedNotVInv: a page a process can write       *)
(*       through a writable mapping is never volatile, "The state change   *)
(*       has to be done before the first writable mapping is established"  *)
(*       (paper 3.5).                                                      *)
(*                                                                         *)
(* CheckWritableTypeOK checks the type of the mapping count.               *)
(***************************************************************************)
(***************************************************************************)
(* The writable mapping of the 2007 patch (sources S16), D274: do_no_page  *)
(* calls __page_check_writable, which spins for PG_state_change, sets      *)
(* PG_writable (TestSetPageWritable) and the state (P if the page could be *)
(* volatile, else it stays stable), and releases the bit; the page-table   *)
(* entry is installed and counted (set_pte_at, page_add_file_rmap) after   *)
(* that.  Paper 3.5: "whenever a writable page table entry is created, a   *)
(* call to a function is required that checks if the page state needs to   *)
(* be corrected.  The state change has to be done before the first         *)
(* writable mapping is established."                                       *)
(*                                                                         *)
(* LinuxGuestProtocol.tla makes a writable mapping in one step (D38), so   *)
(* its last unmap's reset of PG_writable (__page_reset_writable, which     *)
(* clears the flag only if it gets the bit at once) never races with the   *)
(* check.  Here the writable mapping is made in the check's steps instead  *)
(* (users map read-only through the spec's own actions, UserOps = {"Map"}),*)
(* and the writable mappings are counted apart from PG_writable (wmaps), so *)
(* that WritableMappedNotVInv can state the paper's intent without reading *)
(* the flag.  InstallUnderBit chooses where the entry is installed: before *)
(* the bit is released (the bit then closes the race with the reset), or   *)
(* after it, in the patch's order (a finding: the reset can run between    *)
(* the release and the installation).                                      *)
(***************************************************************************)
EXTENDS LinuxGuestProtocol

CONSTANT
    \* @type: Bool;
    InstallUnderBit     \* TRUE: the entry is installed before the bit is released

VARIABLE
    \* @type: PAGE -> Int;
    wmaps               \* the writable page-table mappings among maps

cwVars == <<vars, wmaps>>

\* The spec's own steps.  Its unmap (one mapping fewer, the page still cached)
\* removes a read-only mapping here; the discard path and truncation take the
\* page out of the cache with all its mappings, writable ones too.
SpecStep ==
    /\ Next
    /\ \A p \in Pages : (maps'[p] = maps[p] - 1 /\ inCache'[p]) => maps[p] > wmaps[p]
    /\ wmaps' = [p \in Pages |-> IF maps'[p] = 0 THEN 0 ELSE wmaps[p]]

\* The unmap of a writable mapping: the spec's UnmapPage, reset included.
UnmapWritable(p) ==
    /\ wmaps[p] > 0
    /\ UnmapPage(p)
    /\ wmaps' = [wmaps EXCEPT ![p] = @ - 1]

\* A user holding the page stable takes a write fault on it (do_no_page).
CheckWritableStart(c) ==
    LET p == pg[Proc(c)]
    IN  /\ HeldPage(c)
        /\ ~lockHeld[c] /\ inCache[p] /\ maps[p] < MaxMaps
        /\ SetPC(Proc(c), "CWWait")
        /\ UNCHANGED <<pageVars, pg, ret, ref, lockHeld, wmaps>>

\* "while (page_test_set_state_change(page)) cpu_relax();"
CheckWritableTakeBit(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "CWWait"
        /\ stateChange[p] = {}
        /\ stateChange' = [stateChange EXCEPT ![p] = {Proc(c)}]
        /\ SetPC(Proc(c), "CWSet")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, pg, ret, ref, lockHeld, wmaps>>

\* TestSetPageWritable; if the flag was clear, P when the page could be made
\* volatile with the fault's own reference counted (check_bits, check_counts
\* with offset 2), else it stays stable (the user holds it stable).
CheckWritableSet(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "CWSet"
        /\ IF ~writable[p]
           THEN /\ writable' = [writable EXCEPT ![p] = TRUE]
                /\ usage' = [usage EXCEPT ![p] =
                     IF HasP /\ ~VolatileForbiddenByFlags(p) /\ maps[p] = PageCount(p) - 2
                     THEN "P" ELSE @]
           ELSE UNCHANGED <<writable, usage>>
        /\ SetPC(Proc(c), IF InstallUnderBit THEN "CWInstall" ELSE "CWRelease")
        /\ UNCHANGED <<discarded, inCache, backed, dirty, unsaved, io, mlocked,
                       pgDiscarded, maps, stateChange, pg, ret, ref, lockHeld, wmaps>>

\* page_clear_state_change (the patch's order: before the entry is installed).
CheckWritableRelease(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "CWRelease"
        /\ stateChange' = [stateChange EXCEPT ![p] = {}]
        /\ SetPC(Proc(c), "CWInstall")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, pg, ret, ref, lockHeld, wmaps>>

\* set_pte_at and page_add_file_rmap: the writable mapping is counted.  In the
\* patch's order the fault's reference becomes the mapping's at once and the
\* attempt to make the page volatile follows ("when the page map counter is
\* increased", 3.2); under the bit, both wait for the bit's release.
CheckWritableInstall(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "CWInstall"
        /\ maps[p] < MaxMaps      \* the model's bound (minor faults may have mapped meanwhile)
        /\ maps' = [maps EXCEPT ![p] = @ + 1]
        /\ wmaps' = [wmaps EXCEPT ![p] = @ + 1]
        /\ IF InstallUnderBit
           THEN /\ SetPC(Proc(c), "CWReleaseAfter")
                /\ UNCHANGED <<pg, ret, ref>>
           ELSE /\ ref' = [ref EXCEPT ![c] = FALSE]
                /\ CallMakeVolatile(Proc(c), p, "Idle")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, stateChange, lockHeld>>

\* Under the bit: release it once the entry is installed; the fault's
\* reference becomes the mapping's, and the attempt follows ("when the page
\* reference counter is decreased", 3.2).  While the bit is held the reference
\* is counted twice, which no check can see: every check needs the bit.
CheckWritableReleaseAfter(c) ==
    LET p == pg[Proc(c)]
    IN  /\ Runs(Proc(c))
        /\ pc[Proc(c)] = "CWReleaseAfter"
        /\ stateChange' = [stateChange EXCEPT ![p] = {}]
        /\ ref' = [ref EXCEPT ![c] = FALSE]
        /\ CallMakeVolatile(Proc(c), p, "Idle")
        /\ UNCHANGED <<usage, discarded, inCache, backed, dirty, unsaved, io, mlocked, writable,
                       pgDiscarded, maps, lockHeld, wmaps>>

CheckWritableInit == Init /\ wmaps = [p \in Pages |-> 0]

CheckWritableNext ==
    \/ SpecStep
    \/ \E p \in Pages : UnmapWritable(p)
    \/ \E c \in CPUs :
          \/ CheckWritableStart(c) \/ CheckWritableTakeBit(c) \/ CheckWritableSet(c)
          \/ CheckWritableRelease(c) \/ CheckWritableInstall(c) \/ CheckWritableReleaseAfter(c)

CheckWritableSpec == CheckWritableInit /\ [][CheckWritableNext]_cwVars

(***************************************************************************)
(* WritableMappedNotVInv.  Paper 3.5: "For platforms without the ability   *)
(* to access the guest page dirty bit information from the host, the       *)
(* correct state is the stable state, for platforms with the ability, it   *)
(* is the potentially volatile state": a page a process can write through  *)
(* a writable mapping is never volatile, whatever PG_writable says (the    *)
(* host discards a V page without looking at its dirty bit, and the write  *)
(* is lost).  Stated over the writable mappings themselves; PG_writable is *)
(* the protocol's means to this end (D274).                                *)
(***************************************************************************)
WritableMappedNotVInv == \A p \in Pages : wmaps[p] > 0 => usage[p] # "V"
\* Contract (no data loss).  MCLinuxGuestProtocolCheckWritable_UnderBit; finding
\* MCLinuxGuestProtocolCheckWritable_Finding_F10_KernelOrder (the patch's order, InstallUnderBit = FALSE).
THEOREM (CheckOrder = "Atomic" /\ InstallUnderBit /\ UserOps = {"Map"})
            => (CheckWritableSpec => []WritableMappedNotVInv)

\* The type of the new variable, and the check's places in the code.
CheckWritableTypeOK ==
    /\ wmaps \in [Pages -> 0..MaxMaps]
    /\ \A p \in Pages : wmaps[p] <= maps[p]

=============================================================================
