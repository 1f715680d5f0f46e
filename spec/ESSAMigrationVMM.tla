--------------------------- MODULE ESSAMigrationVMM ---------------------------
(***************************************************************************)
(* Contract (docs/contract.md).  What CMMA migration promises the VMM that *)
(* drives it through KVM's interface; each promise has a THEOREM at the    *)
(* end of this module naming the models whose .cfg checks it and the twin  *)
(* that fails it.                                                          *)
(*                                                                         *)
(*   Peek is read-only. PeekChangesNothingProp: "no other action is        *)
(*       performed" (sources 5c); PeekReportsCurrentProp: the values are   *)
(*       "the existing storage attributes" of the range, page by page.     *)
(*   Remaining. RemainingIsDirtyCountProp: "remaining will indicate the    *)
(*       total number of dirty CMMA values still remaining" (sources 5c).  *)
(*   Delivery. AttributesDeliveredProp: every complete migration, one     *)
(*       after a stop and a restart or a second one from the destination   *)
(*       included, resumes with the usage and N the guest gave each page   *)
(*       (sources 5: "KVM_S390_GET_CMMA_BITS returns usage and N per       *)
(*       page"); NoStaleArrivalInv: during migration a page that is not    *)
(*       CMMA-dirty was last sent with its current usage and N, so no page *)
(*       set after its last send arrives stale.                            *)
(*   Masked SET. SetHonoursMaskProp: "mask indicates which PGSTE bits      *)
(*       are to be considered" (sources 5c, KVM_S390_SET_CMMA_BITS): the   *)
(*       destination takes the bits the mask selects from the values and   *)
(*       keeps its own for the others.                                     *)
(*                                                                         *)
(* VMMTypeOK checks types and the bookkeeping.                             *)
(***************************************************************************)
(***************************************************************************)
(* CMMA migration as a VMM drives it (sources 5c): QEMU's storage-         *)
(* attribute device starts migration mode, GETs in batches until          *)
(* remaining is 0, in rounds while the guest runs, then a final pass with *)
(* the VM stopped; a cancelled migration STOPs and a retry STARTs again.   *)
(* ESSAMigration.tla sends one page at a time; here every ioctl a VMM has  *)
(* is a step, with the kernel's semantics (kvm-s390.c, Linux 6.12).        *)
(*                                                                         *)
(*   MigrationStart  KVM_S390_VM_MIGRATION_START, whenever migration mode  *)
(*                   is off: refused (EINVAL) unless every memslot logs    *)
(*                   dirty pages; every page of every memslot CMMA-dirty   *)
(*                   and the count of dirty pages set to the number of     *)
(*                   pages (kvm_s390_vm_start_migration).                  *)
(*   MigrationStop   KVM_S390_VM_MIGRATION_STOP: migration mode off; the   *)
(*                   bitmap and the count are left as they are             *)
(*                   (kvm_s390_vm_stop_migration).                         *)
(*   Get(s, c)       KVM_S390_GET_CMMA_BITS without PEEK, start_gfn s,     *)
(*                   count c: the first dirty page at or after s (past the *)
(*                   end of memory: from the first memslot), then on page  *)
(*                   by page while the next dirty page is at most          *)
(*                   MaxBitDistance pages on (KVM_S390_MAX_BIT_DISTANCE,   *)
(*                   16), within c of the first and in a memslot; each     *)
(*                   page sent is cleared, the count lowered for each bit  *)
(*                   that was set; remaining is the count                  *)
(*                   (kvm_s390_get_cmma, kvm_s390_next_dirty_cmma).        *)
(*   Peek(s, c)      the same ioctl with KVM_S390_CMMA_PEEK: the values of *)
(*                   s .. s+c-1, to the first page outside the memslots    *)
(*                   (EFAULT when that is s), nothing changed              *)
(*                   (kvm_s390_peek_cmma).                                 *)
(*   SlotCreate      a memslot created: its bitmap starts clean; created   *)
(*                   without dirty logging it stops migration              *)
(*                   (kvm_arch_prepare_memory_region).                     *)
(*   SlotLogging     dirty logging turned on or off (a flags-only change); *)
(*                   off stops migration.                                  *)
(*   SlotDelete      a memslot deleted: its bitmap goes with it.  Linux    *)
(*                   6.12 leaves the count as it is (SlotDeleteFix FALSE, *)
(*                   finding F12); the fix lowers it by the slot's dirty   *)
(*                   pages.                                                *)
(*   MigrationSwitch the final pass's last GET answered remaining 0 with   *)
(*                   the VM stopped: the destination applies every value   *)
(*                   it received (KVM_S390_SET_CMMA_BITS, which also sets  *)
(*                   uses_cmm) under the SET's mask m (SetMasks: QEMU's    *)
(*                   ~0 unless a model says more), the rest arrives as in  *)
(*                   ESSA.tla's Migrate; the switch's lastOp.value is m.   *)
(*                   The destination may migrate again.                    *)
(*   the guest       ESSA.tla's steps on pages in memslots; an ESSA marks  *)
(*                   its page CMMA-dirty in migration mode (__do_essa) and *)
(*                   sets uses_cmm outside it (handle_essa).               *)
(*                                                                         *)
(* KVM reports no values at all while uses_cmm is clear                    *)
(* (kvm_s390_get_cmma_bits); the guest is taken to have issued its first   *)
(* ESSA before migration starts (uses_cmm set at boot, as the selftest     *)
(* does with guest_do_one_essa).  A GET batch is one step: the kernel      *)
(* holds slots_lock and tests, clears and reads each page in turn; an ESSA *)
(* between two pages of a batch orders before or after the batch for each  *)
(* page (D421).                                                            *)
(***************************************************************************)
EXTENDS ESSAMigration, FiniteSets

CONSTANTS
    \* @type: Seq(PAGE);
    GfnOrder,       \* the pages in guest-frame order: page GfnOrder[g + 1] is gfn g
    \* @type: PAGE -> SLOT;
    SlotOf,         \* the memslot of each page (every memslot a run of consecutive gfns)
    \* @type: Set(SLOT);
    SlotsAtStart,   \* the memslots present at boot (every page of one, logging dirty pages)
    \* @type: Int;
    MaxBitDistance, \* KVM_S390_MAX_BIT_DISTANCE: the longest run of clean pages a GET sends
    \* @type: Int;
    MaxCount,       \* the largest count a Get or a Peek asks for
    \* @type: Bool;
    SlotDeleteFix   \* TRUE: a deleted memslot's dirty pages leave the count (F12's fix)

Slots == {SlotOf[p] : p \in Pages}
NGfns == Len(GfnOrder)
Gfns == 0 .. NGfns - 1
PageAt(g) == GfnOrder[g + 1]

ASSUME /\ NGfns = Cardinality(Pages) /\ \A p \in Pages : \E g \in Gfns : PageAt(g) = p
       /\ SlotsAtStart \subseteq Slots /\ SlotsAtStart # {}
       /\ MaxBitDistance \in Nat /\ MaxCount \in Nat \ {0} /\ SlotDeleteFix \in BOOLEAN

VARIABLES
    \* @type: SLOT -> Str;
    slot,           \* each memslot "Absent" (not yet created), "Present" or "Deleted"
    \* @type: SLOT -> Bool;
    logging,        \* the memslot logs dirty pages (KVM_MEM_LOG_DIRTY_PAGES)
    \* @type: Int;
    dirtyCount,     \* kvm->arch.cmma_dirty_pages
    \* @type: Bool;
    usesCmm,        \* mm->context.uses_cmm
    \* @type: { op: Str, start: Int, values: Seq({ u: Str, n: Bool }), remaining: Int };
    answer,         \* what the last Get or Peek answered (NoAnswer after any other step)
    \* @type: Bool;
    stopped         \* the VMM stopped this migration mode once since the last switch (ghost)

VMMVars == <<slot, logging, dirtyCount, usesCmm, answer, stopped>>
allVars == <<vars, MigrationVars, VMMVars>>

NoAnswer == [op |-> "None", start |-> 0, values |-> <<>>, remaining |-> 0]

InSlot(p) == slot[SlotOf[p]] = "Present"
\* A gfn backed by a memslot (gfn_to_hva succeeds).
Backed(g) == g \in Gfns /\ InSlot(PageAt(g))
Attr(p) == [u |-> usage[p], n |-> nodat[p]]
Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Max(S) == CHOOSE x \in S : \A y \in S : x >= y
\* kvm_s390_get_gfn_end: the end of the highest memslot.
MemEnd == 1 + Max({g \in Gfns : Backed(g)})

(***************************************************************************)
(* kvm_s390_next_dirty_cmma(cur): the first gfn at or after cur whose bit  *)
(* is set in bitmap d; from the first memslot when cur is past the end of  *)
(* memory ("If we are above the highest slot, wrap around"); the end of    *)
(* memory when there is none.                                              *)
(***************************************************************************)
NextDirty(d, cur) ==
    LET from == IF cur >= MemEnd THEN 0 ELSE cur
        found == {g \in Gfns : g >= from /\ Backed(g) /\ d[PageAt(g)]}
    IN  IF found = {} THEN MemEnd ELSE Min(found)

(***************************************************************************)
(* Hooks, each the kernel's line; each twin of                             *)
(* model/MCESSAMigration_Twins.tla replaces one.                           *)
(***************************************************************************)
\* kvm_s390_get_cmma: "Decrement only if we actually flipped the bit to 0".
GetLowersCount(wasDirty) == IF wasDirty THEN 1 ELSE 0
\* kvm_s390_peek_cmma: "cur_gfn++" after each value.
PeekStride == 1
\* kvm_s390_peek_cmma reads the PGSTE only (get_pgste); the bitmap is not touched.
PeekBitmap(d, g) == d
\* kvm_s390_vm_start_migration: "memset(kvm_second_dirty_bitmap(ms), 0xff, ...)" on every start.
StartMarks == TRUE
\* kvm_s390_set_cmma_bits: "kvm->mm->context.uses_cmm = 1" on the destination.
SetSetsUsesCmm == TRUE
\* The bits a batch clears besides the pages it sends (none).
GetClearsBeyond(d, start, c, last) == d

(***************************************************************************)
(* The loop of kvm_s390_get_cmma, from its page cur with the next dirty   *)
(* gfn next, the bitmap d and the count n, the values sent so far vs;     *)
(* first is the first page sent (args->start_gfn), c the buffer's size.   *)
(* It yields the bitmap, the count and the values when it stops.          *)
(***************************************************************************)
RECURSIVE GetLoop(_, _, _, _, _, _, _)
GetLoop(cur, next, d, n, vs, first, c) ==
    LET p == PageAt(cur)
        d1 == [d EXCEPT ![p] = FALSE]
        n1 == n - GetLowersCount(d[p])
        vs1 == Append(vs, Attr(p))
        next1 == IF cur = next THEN NextDirty(d1, cur + 1) ELSE next
        done == [d |-> d1, n |-> n1, values |-> vs1, last |-> cur]
    IN  IF Len(vs1) >= c THEN done
        ELSE IF next > cur + MaxBitDistance THEN done
        ELSE IF next1 >= MemEnd \/ next1 < first \/ next1 - first >= c THEN done
        ELSE IF ~Backed(cur + 1) THEN done
        ELSE GetLoop(cur + 1, next1, d1, n1, vs1, first, c)

(***************************************************************************)
(* The SET's mask, as bits of a CMMA value (the kernel shifts both by 24   *)
(* into the PGSTE): the usage (_PGSTE_GPS_USAGE_MASK, value bits 0x03) and *)
(* N (_PGSTE_GPS_NODAT, 0x40), the bits kvm_s390_set_cmma_bits keeps of    *)
(* the mask ("mask &= _PGSTE_GPS_USAGE_MASK | _PGSTE_GPS_NODAT").  A mask  *)
(* takes the usage's two bits together or not at all: half a usage code    *)
(* mixes two states' codes, which no VMM sends.                            *)
(***************************************************************************)
UsageMask == 3
NoDatMask == 64
FullMask == UsageMask + NoDatMask
MaskSelectsUsage(m) == m % NoDatMask = UsageMask
MaskSelectsNoDat(m) == m >= NoDatMask
\* The masks a VMM's SET carries: QEMU's ~0 (s390-stattrib-kvm.c), which the kernel cuts to
\* FullMask; a model may offer more (MCSetMasks).
SetMasks == {FullMask}
\* kvm_s390_set_cmma_bits: "set_pgste_bits(kvm->mm, hva, mask, pgstev)": the bits of the value
\* the mask m selects replace the PGSTE's, the others stay.
SetMask(m) == m

Answer(op, start, vs, rem) == [op |-> op, start |-> start, values |-> vs, remaining |-> rem]

RecordVMM(op, outcome) == Record(op, NoPage, NoValue, NoValue, outcome, NoValue)

\* Refused: EINVAL or EFAULT; nothing changes.
RefuseVMM(op) ==
    /\ RecordVMM(op, "Refused")
    /\ answer' = NoAnswer
    /\ UNCHANGED <<HostVars, GuestVars, MigrationVars, slot, logging, dirtyCount, usesCmm, stopped>>

\* kvm_s390_vm_start_migration.
VMMStart ==
    /\ ~migrating
    /\ IF \A s \in Slots : slot[s] = "Present" => logging[s]
       THEN /\ migrating' = TRUE
            /\ cmmaDirty' = IF StartMarks THEN [p \in Pages |-> InSlot(p)] ELSE cmmaDirty
            /\ dirtyCount' = IF StartMarks THEN Cardinality({p \in Pages : InSlot(p)})
                             ELSE dirtyCount
            /\ RecordVMM("MigrationStart", "Done")
            /\ answer' = NoAnswer
            /\ UNCHANGED <<HostVars, GuestVars, sentUsage, sentNoDat, slot, logging, usesCmm,
                           stopped>>
       ELSE RefuseVMM("MigrationStart")

\* kvm_s390_vm_stop_migration.
VMMStop ==
    /\ migrating
    /\ migrating' = FALSE
    /\ stopped' = TRUE
    /\ RecordVMM("MigrationStop", "Done")
    /\ answer' = NoAnswer
    /\ UNCHANGED <<HostVars, GuestVars, cmmaDirty, sentUsage, sentNoDat, slot, logging,
                   dirtyCount, usesCmm>>

\* kvm_s390_get_cmma_bits without KVM_S390_CMMA_PEEK, then kvm_s390_get_cmma.
Get(start, c) ==
    IF ~migrating THEN RefuseVMM("Get")
    ELSE
    /\ IF ~usesCmm \/ dirtyCount = 0
       THEN \* "memset(args, 0, sizeof(*args))": start_gfn, count and remaining 0.
            /\ answer' = Answer("Get", 0, <<>>, 0)
            /\ UNCHANGED <<cmmaDirty, sentUsage, sentNoDat, dirtyCount>>
       ELSE LET first == NextDirty(cmmaDirty, start)
            IN  IF ~Backed(first)
                THEN /\ answer' = Answer("Get", first, <<>>, dirtyCount)
                     /\ UNCHANGED <<cmmaDirty, sentUsage, sentNoDat, dirtyCount>>
                ELSE LET r == GetLoop(first, NextDirty(cmmaDirty, first + 1), cmmaDirty,
                                      dirtyCount, <<>>, first, c)
                         sent == {first + i - 1 : i \in 1 .. Len(r.values)}
                     IN  /\ cmmaDirty' = GetClearsBeyond(r.d, first, c, r.last)
                         /\ dirtyCount' = r.n
                         /\ sentUsage' = [p \in Pages |->
                                IF \E g \in sent : PageAt(g) = p THEN usage[p] ELSE sentUsage[p]]
                         /\ sentNoDat' = [p \in Pages |->
                                IF \E g \in sent : PageAt(g) = p THEN nodat[p] ELSE sentNoDat[p]]
                         /\ answer' = Answer("Get", first, r.values, r.n)
    /\ RecordVMM("Get", "Done")
    /\ UNCHANGED <<HostVars, GuestVars, migrating, slot, logging, usesCmm, stopped>>

\* kvm_s390_peek_cmma: how many values a peek of c from start reads (to the first gfn outside
\* the memslots).
RECURSIVE PeekRun(_, _, _)
PeekRun(start, c, k) == IF k < c /\ Backed(start + k * PeekStride) THEN PeekRun(start, c, k + 1) ELSE k

\* kvm_s390_get_cmma_bits with KVM_S390_CMMA_PEEK, then kvm_s390_peek_cmma.

Peek(start, c) ==
    IF usesCmm /\ ~Backed(start) THEN RefuseVMM("Peek")
    ELSE
    /\ answer' = IF ~usesCmm THEN Answer("Peek", 0, <<>>, 0)
                 ELSE Answer("Peek", start,
                             [i \in 1 .. PeekRun(start, c, 0) |->
                                 Attr(PageAt(start + (i - 1) * PeekStride))],
                             IF migrating THEN dirtyCount ELSE 0)
    /\ cmmaDirty' = PeekBitmap(cmmaDirty, start)
    /\ RecordVMM("Peek", "Done")
    /\ UNCHANGED <<HostVars, GuestVars, migrating, sentUsage, sentNoDat, slot, logging,
                   dirtyCount, usesCmm, stopped>>

\* kvm_arch_prepare_memory_region: a memslot created, its second bitmap zeroed; without dirty
\* logging it turns migration mode off.
SlotCreate(s, log) ==
    /\ slot[s] = "Absent"
    /\ slot' = [slot EXCEPT ![s] = "Present"]
    /\ logging' = [logging EXCEPT ![s] = log]
    /\ migrating' = (migrating /\ log)
    /\ stopped' = (stopped \/ (migrating /\ ~log))
    /\ RecordVMM(IF log THEN "SlotCreateLogging" ELSE "SlotCreate", "Done")
    /\ answer' = NoAnswer
    /\ UNCHANGED <<HostVars, GuestVars, cmmaDirty, sentUsage, sentNoDat, dirtyCount, usesCmm>>

\* A flags-only change of a memslot's dirty logging; off turns migration mode off.
SlotLogging(s, log) ==
    /\ slot[s] = "Present" /\ logging[s] # log
    /\ logging' = [logging EXCEPT ![s] = log]
    /\ migrating' = (migrating /\ log)
    /\ stopped' = (stopped \/ (migrating /\ ~log))
    /\ RecordVMM(IF log THEN "SlotLoggingOn" ELSE "SlotLoggingOff", "Done")
    /\ answer' = NoAnswer
    /\ UNCHANGED <<HostVars, GuestVars, cmmaDirty, sentUsage, sentNoDat, slot, dirtyCount,
                   usesCmm>>

\* A memslot deleted (never the last): its bitmap is freed with it (kvm_free_memslot).
SlotDelete(s) ==
    /\ slot[s] = "Present" /\ \E t \in Slots \ {s} : slot[t] = "Present"
    /\ slot' = [slot EXCEPT ![s] = "Deleted"]
    /\ cmmaDirty' = [p \in Pages |-> cmmaDirty[p] /\ SlotOf[p] # s]
    /\ dirtyCount' = IF SlotDeleteFix
                     THEN dirtyCount - Cardinality({p \in Pages : SlotOf[p] = s /\ cmmaDirty[p]})
                     ELSE dirtyCount
    /\ RecordVMM("SlotDelete", "Done")
    /\ answer' = NoAnswer
    /\ UNCHANGED <<HostVars, GuestVars, migrating, sentUsage, sentNoDat, logging, usesCmm,
                   stopped>>

\* The switch: the last GET of the final pass, with the VM stopped, answered remaining 0; the
\* destination, a fresh VM whose every PGSTE holds S and no N, applies every value it received
\* (sentUsage, sentNoDat) by a SET with mask m.
VMMSwitch(m) ==
    /\ migrating /\ answer.op = "Get" /\ answer.remaining = 0
    /\ usage' = [p \in Pages |-> IF ~InSlot(p) THEN usage[p]
                                 ELSE IF MaskSelectsUsage(SetMask(m)) THEN sentUsage[p] ELSE "S"]
    /\ nodat' = [p \in Pages |-> IF ~InSlot(p) THEN nodat[p]
                                 ELSE MaskSelectsNoDat(SetMask(m)) /\ sentNoDat[p]]
    /\ LET moved == [p \in Pages |-> MigratedContent(p)]
       IN  /\ data' = moved
           /\ valid' = [p \in Pages |-> moved[p] # 0]
    /\ swapped' = [p \in Pages |-> FALSE]
    /\ zbit' = [p \in Pages |-> ArrivalZ(p)]
    /\ gc' = [p \in Pages |-> ArrivalGC(p)]
    /\ cbrl' = <<>>
    /\ pageTable' = TRUE
    /\ gmapPte' = [p \in Pages |-> "Empty"]
    /\ pteUnused' = [p \in Pages |-> FALSE]
    /\ migrated' = TRUE
    /\ lastOp' = [op |-> "Migrate", page |-> NoPage, orc |-> NoValue, result |-> NoValue,
                  outcome |-> "Done", value |-> m]
    \* The destination: a VM of its own, migration mode off, its bitmap clean.
    /\ migrating' = FALSE
    /\ cmmaDirty' = [p \in Pages |-> FALSE]
    /\ dirtyCount' = 0
    \* Nothing is sent to the next destination yet: a page it receives no value for keeps its
    \* PGSTE's initial S and no N.
    /\ sentUsage' = [p \in Pages |-> "S"]
    /\ sentNoDat' = [p \in Pages |-> FALSE]
    /\ usesCmm' = SetSetsUsesCmm
    /\ stopped' = FALSE
    /\ answer' = NoAnswer
    /\ UNCHANGED <<keyDirty, owed, belief, modified, slot, logging>>

\* handle_essa past its checks (operation, privileged operation, specification exception).
EssaIntercepted == lastOp'.orc \in 0 .. 7 /\ lastOp'.outcome = "Done" /\ lastOp'.page \in Pages

\* A step of the guest or the host on a page in a memslot (or on none): __do_essa marks the
\* page in migration mode and counts it ("Increment only if we are really flipping the bit");
\* handle_essa sets uses_cmm outside migration mode.
GuestStep(A) ==
    /\ A
    /\ lastOp'.page = NoPage \/ InSlot(lastOp'.page)
    /\ LET mark == migrating /\ DirtyMark /\ ~cmmaDirty[lastOp'.page]
       IN  /\ cmmaDirty' = IF mark THEN [cmmaDirty EXCEPT ![lastOp'.page] = TRUE] ELSE cmmaDirty
           /\ dirtyCount' = IF mark THEN dirtyCount + 1 ELSE dirtyCount
    /\ usesCmm' = (usesCmm \/ (~migrating /\ EssaIntercepted))
    /\ answer' = NoAnswer
    /\ UNCHANGED <<migrating, sentUsage, sentNoDat, slot, logging, stopped>>

VMMInit ==
    /\ MInit
    /\ slot = [s \in Slots |-> IF s \in SlotsAtStart THEN "Present" ELSE "Absent"]
    /\ logging = [s \in Slots |-> TRUE]
    /\ dirtyCount = 0
    /\ usesCmm = TRUE
    /\ answer = NoAnswer
    /\ stopped = FALSE

\* The VMM's requests.
VMMNext ==
    \/ VMMStart \/ VMMStop \/ \E m \in SetMasks : VMMSwitch(m)
    \/ \E g \in 0 .. NGfns, c \in 1 .. MaxCount : Get(g, c) \/ Peek(g, c)
    \/ \E s \in Slots : \/ SlotDelete(s)
                        \/ \E log \in BOOLEAN : SlotCreate(s, log) \/ SlotLogging(s, log)

VMMSpec == VMMInit /\ [][VMMNext \/ GuestStep(GuestNext \/ MHostNext)]_allVars

(***************************************************************************)
(* Properties.                                                              *)
(***************************************************************************)
VMMTypeOK ==
    /\ EssaTypeOK
    /\ migrating \in BOOLEAN /\ cmmaDirty \in [Pages -> BOOLEAN]
    /\ sentUsage \in [Pages -> {"S", "U", "V", "P"}] /\ sentNoDat \in [Pages -> BOOLEAN]
    /\ slot \in [Slots -> {"Absent", "Present", "Deleted"}] /\ logging \in [Slots -> BOOLEAN]
    /\ dirtyCount \in Nat /\ usesCmm \in BOOLEAN /\ stopped \in BOOLEAN
    /\ answer.op \in {"None", "Get", "Peek"}
    \* A bit is set only in a memslot's bitmap.
    /\ \A p \in Pages : cmmaDirty[p] => InSlot(p)

(***************************************************************************)
(* PeekChangesNothingProp.  Sources 5c (api.rst, KVM_S390_GET_CMMA_BITS):  *)
(* with KVM_S390_CMMA_PEEK "the existing storage attributes are read even  *)
(* when not in migration mode, and no other action is performed".          *)
(***************************************************************************)
PeekChangesNothingStep ==
    lastOp'.op = "Peek" =>
        UNCHANGED <<HostVars, GuestVars, migrated, MigrationVars, slot, logging, dirtyCount,
                    usesCmm, stopped>>
PeekChangesNothingProp == [][PeekChangesNothingStep]_allVars

(***************************************************************************)
(* PeekReportsCurrentProp.  Sources 5c: a peek reads "the existing storage *)
(* attributes" of the pages from start_gfn, one value a page: value i is   *)
(* the usage and N of gfn start_gfn + i.                                   *)
(***************************************************************************)
PeekReportsCurrentStep ==
    (lastOp'.op = "Peek" /\ answer'.op = "Peek") =>
        \A i \in 1 .. Len(answer'.values) :
            answer'.start + i - 1 \in Gfns
            /\ answer'.values[i] = Attr(PageAt(answer'.start + i - 1))
PeekReportsCurrentProp == [][PeekReportsCurrentStep]_allVars

(***************************************************************************)
(* RemainingIsDirtyCountProp.  Sources 5c: "the field remaining will       *)
(* indicate the total number of dirty CMMA values still remaining": after  *)
(* a GET that reported values, the number of pages still CMMA-dirty; QEMU  *)
(* GETs until it is 0 (sources 5c, s390-stattrib).                         *)
(***************************************************************************)
RemainingIsDirtyCountStep ==
    (answer'.op = "Get" /\ answer'.values # <<>>) =>
        answer'.remaining = Cardinality({p \in Pages : InSlot(p) /\ cmmaDirty'[p]})
RemainingIsDirtyCountProp == [][RemainingIsDirtyCountStep]_allVars

(***************************************************************************)
(* AttributesDeliveredProp.  Sources 5: "KVM_S390_GET_CMMA_BITS returns    *)
(* usage and N per page", the destination applies them "through            *)
(* KVM_S390_SET_CMMA_BITS, which writes usage and N"; sources 5c: a        *)
(* cancelled migration stops and a retry starts again.  Whatever stops,    *)
(* restarts and earlier migrations came before, a complete migration       *)
(* resumes every page of guest memory with the usage and N it had (the     *)
(* SET's mask selecting both, as QEMU's does).                             *)
(***************************************************************************)
AttributesDeliveredStep ==
    (lastOp'.op = "Migrate" /\ lastOp'.value = FullMask) =>
        \A p \in Pages : InSlot(p) => usage'[p] = usage[p] /\ nodat'[p] = nodat[p]
AttributesDeliveredProp == [][AttributesDeliveredStep]_allVars

(***************************************************************************)
(* NoStaleArrivalInv.  Sources 5: "Starting migration marks every page     *)
(* CMMA-dirty"; a GET sends a dirty page's usage and N and clears its bit, *)
(* an ESSA that changes them sets it again.  During migration a page of    *)
(* guest memory that is not dirty was last sent with the usage and N it    *)
(* has now: a page set after its last send is dirty, and is sent again     *)
(* before the final GET answers remaining 0.                               *)
(***************************************************************************)
NoStaleArrivalInv ==
    migrating => \A p \in Pages :
        (InSlot(p) /\ ~cmmaDirty[p]) => sentUsage[p] = usage[p] /\ sentNoDat[p] = nodat[p]

(***************************************************************************)
(* SetHonoursMaskProp.  Sources 5c (api.rst, KVM_S390_SET_CMMA_BITS):      *)
(* "mask indicates which PGSTE bits are to be considered".  A switch's SET *)
(* with mask m: each page of guest memory takes the usage and N it had     *)
(* where m selects them and keeps the fresh destination's (S, no N) where  *)
(* it does not.                                                            *)
(***************************************************************************)
SetHonoursMaskStep ==
    lastOp'.op = "Migrate" =>
        \A p \in Pages : InSlot(p) =>
            /\ usage'[p] = IF MaskSelectsUsage(lastOp'.value) THEN usage[p] ELSE "S"
            /\ nodat'[p] = (MaskSelectsNoDat(lastOp'.value) /\ nodat[p])
SetHonoursMaskProp == [][SetHonoursMaskStep]_allVars

\* Witnesses (model/manifest.json).
PeekOfTwoPages == lastOp'.op = "Peek" /\ Len(answer'.values) >= 2 /\ answer'.values[1] # answer'.values[2]
PeekInMigration == lastOp'.op = "Peek" /\ migrating /\ \E p \in Pages : cmmaDirty[p]
\* A GET that left a page dirty; one that sent a clean page between two dirty ones.
GetLeavesDirty == answer'.op = "Get" /\ answer'.values # <<>> /\ answer'.remaining > 0
GetAcrossCleanPage ==
    /\ answer'.op = "Get" /\ Len(answer'.values) >= 3
    /\ ~cmmaDirty[PageAt(answer'.start + 1)]
    /\ answer'.remaining > 0
SwitchAfterRestart == lastOp'.op = "Migrate" /\ stopped /\ \E p \in Pages : usage[p] # "S"
SecondSwitch == lastOp'.op = "Migrate" /\ migrated /\ \E p \in Pages : usage[p] # "S"
\* A SET whose mask leaves out the usage of a page the guest had made U.
MaskedSetKeeps ==
    lastOp'.op = "Migrate" /\ ~MaskSelectsUsage(lastOp'.value)
    /\ \E p \in Pages : InSlot(p) /\ usage[p] = "U"
SentAfterEssaVMM ==
    migrating /\ \E p \in Pages : InSlot(p) /\ ~cmmaDirty[p] /\ sentUsage[p] # "S"

\* The machine every model of this module checks: classic KVM with CMMA enabled, today's guest,
\* storage keys and facility 147, every ESSA intercepted, a CBRL of one; the other switches of
\* ESSAMachine.tla are not claimed.  VMMClaimed names it once for the THEOREMs below.
VMMClaimed ==
    /\ Impl = "KVMClassic" /\ StorageKeys /\ Facility147 /\ ModernGuest /\ CMMAEnabled
    /\ ~PrebuiltPageTables /\ ~MachineInterpretsESSA /\ CBRLSize = 1

\* Peek is read-only.  MCESSAMigrationVMM_KVMClassicPeek, MCESSAMigrationVMM_KVMClassicAll; twins
\* MCESSAMigration_Twin_PeekClears, MCESSAMigration_Twin_PeekStuck.  The models check it under
\* VMMSpec's requests restricted (VMMPeekSpec, VMMRoundsSpec of its model module).
THEOREM VMMClaimed => (VMMSpec => PeekChangesNothingProp /\ PeekReportsCurrentProp)
\* Remaining.  MCESSAMigrationVMM_KVMClassic, MCESSAMigrationVMM_KVMClassicSlots,
\* MCESSAMigrationVMM_KVMClassicAll, MCESSAMigrationVMM_KVMClassicThreePages (D423); twin
\* MCESSAMigration_Twin_CountsCleanPages; finding MCESSAMigrationVMM_Finding_F12_SlotDelete
\* (Linux 6.12).  Checked under the restricted request sets of its model module.
THEOREM (VMMClaimed /\ SlotDeleteFix) => (VMMSpec => RemainingIsDirtyCountProp)
\* Delivery.  MCESSAMigrationVMM_KVMClassic, MCESSAMigrationVMM_KVMClassicSlots,
\* MCESSAMigrationVMM_KVMClassicAll; twins MCESSAMigration_Twin_RestartUnmarked,
\* MCESSAMigration_Twin_DestinationNoUsesCmm, MCESSAMigration_Twin_GetClearsGap.  Checked under
\* the restricted request sets of its model module.
THEOREM (VMMClaimed /\ Bugs = {}) => (VMMSpec => AttributesDeliveredProp /\ []NoStaleArrivalInv)
\* Masked SET.  MCESSAMigrationVMM_KVMClassicMasks; twin MCESSAMigration_Twin_SetIgnoresMask.
\* Checked under the restricted request sets of its model module.
THEOREM (VMMClaimed /\ Bugs = {}) => (VMMSpec => SetHonoursMaskProp)
=============================================================================
