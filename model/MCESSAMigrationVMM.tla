--------------------------- MODULE MCESSAMigrationVMM ---------------------------
(***************************************************************************)
(* Models MCESSAMigrationVMM_*.cfg of spec/ESSAMigrationVMM.tla: CMMA      *)
(* migration as a VMM drives it, on pages in guest-frame order p1, p2, p3 *)
(* in one memslot s1 (MCOneSlot) or two, s1 = {p1} and s2 the rest         *)
(* (MCSlotOf).  No symmetry: a GET treats pages by their order.            *)
(***************************************************************************)
EXTENDS ESSAMigrationVMM

CONSTANTS p1, p2, p3, s1, s2

MCGfnOrder == SelectSeq(<<p1, p2, p3>>, LAMBDA p : p \in Pages)
MCSlotOf == [p \in Pages |-> IF p = p1 THEN s1 ELSE s2]
\* The SET's masks a model offers: QEMU's (every bit), the usage alone, none.  Each bit of a
\* PGSTE is taken from the value or kept independently of the others
\* (set_pgste_bits: (pgste & ~mask) | (value & mask)), so these give each bit both cases; N
\* alone is the usage-alone case with the bits' roles swapped, and the models' guest (ORC 1
\* and 2) never sets N.
MCSetMasks == {FullMask, UsageMask, 0}
\* One memslot of every page.
MCOneSlot == [p \in Pages |-> s1]

\* Today's guest's allocation and freeing (ORC 1, 2: S and U) and CBRL processing, on pages in
\* memslots.
VMMGuestNext ==
    GuestStep(\/ HostProcessCBRL
              \/ \E p \in Pages : GuestAlloc(p) \/ GuestFree(p))

\* Every request of the VMM but the creation of memslots and the change of their logging.
VMMRoundsNext ==
    \/ VMMStart \/ VMMStop \/ \E m \in SetMasks : VMMSwitch(m)
    \/ \E g \in 0 .. NGfns, c \in 1 .. MaxCount : Get(g, c) \/ Peek(g, c)
    \/ \E s \in Slots : SlotDelete(s)
VMMRoundsSpec == VMMInit /\ [][VMMRoundsNext \/ VMMGuestNext]_allVars

\* Start, stop and peeks: what a peek reads and leaves.
VMMPeekNext ==
    \/ VMMStart \/ VMMStop
    \/ \E g \in 0 .. NGfns, c \in 1 .. MaxCount : Peek(g, c)
VMMPeekSpec == VMMInit /\ [][VMMPeekNext \/ VMMGuestNext]_allVars

\* Start, stop, restart, GETs, the switch and the destination migrating on.
VMMDeliveryNext ==
    \/ VMMStart \/ VMMStop \/ \E m \in SetMasks : VMMSwitch(m)
    \/ \E g \in 0 .. NGfns, c \in 1 .. MaxCount : Get(g, c)
VMMDeliverySpec == VMMInit /\ [][VMMDeliveryNext \/ VMMGuestNext]_allVars

\* Start, batched GETs and the switch (the peeks and stops of VMMRoundsSpec left out).
VMMBatchNext ==
    \/ VMMStart \/ \E m \in SetMasks : VMMSwitch(m)
    \/ \E g \in 0 .. NGfns, c \in 1 .. MaxCount : Get(g, c)
VMMBatchSpec == VMMInit /\ [][VMMBatchNext \/ VMMGuestNext]_allVars

\* Every request of the VMM but peeks: the memslots created, their logging changed, deleted.
VMMSlotsNext ==
    \/ VMMStart \/ VMMStop \/ \E m \in SetMasks : VMMSwitch(m)
    \/ \E g \in 0 .. NGfns, c \in 1 .. MaxCount : Get(g, c)
    \/ \E s \in Slots : \/ SlotDelete(s)
                        \/ \E log \in BOOLEAN : SlotCreate(s, log) \/ SlotLogging(s, log)
VMMSlotsSpec == VMMInit /\ [][VMMSlotsNext \/ VMMGuestNext]_allVars
=============================================================================
