"""The properties of spec/ESSAProperties.tla as Python predicates, with the spec's names.

Invariants take ``(profile, state)``; action properties take ``(profile, before, after)``
(:mod:`refimpl.core.properties`). Like the spec's, they are stated from the state variables only, never through the machine's tables
(:mod:`refimpl.essa.rules`), so a broken table cannot break its own check.

What the 2006/07 Linux guest assumes of ESSA: the 2007 model (``Paper2007``) keeps every one;
the KVM implementations break some, which are the findings of docs/findings.md.
"""

from __future__ import annotations

from typing import Final

from ..core.properties import PropertySet, boxed, by_name
from .profile import NO_VALUE, EssaProfile
from .state import GMAP_PTES, USAGES, WRITTEN, EssaPage, EssaState

# ruff: noqa: N802 - the spec's names


def EssaTypeOK(profile: EssaProfile, s: EssaState) -> bool:
    return (
        len(s.pages) == profile.pages
        and all(
            pg.usage in USAGES
            and isinstance(pg.valid, bool) and isinstance(pg.swapped, bool)
            and isinstance(pg.zbit, bool) and isinstance(pg.nodat, bool)
            and pg.data in (0, WRITTEN)
            and isinstance(pg.keyDirty, bool) and isinstance(pg.gc, bool)
            and pg.owed in (NO_VALUE, 0, WRITTEN)
            and pg.belief in USAGES
            and isinstance(pg.modified, bool)
            and pg.gmapPte in GMAP_PTES and isinstance(pg.pteUnused, bool)
            for pg in s.pages
        )
        and all(0 <= p < profile.pages for p in s.cbrl)
        and len(s.cbrl) <= profile.cbrl_size
        and isinstance(s.migrated, bool)
        and isinstance(s.pageTable, bool)
    )  # fmt: skip


def Readable(s: EssaState, p: int) -> int:
    """What a read of the page would return now (a fault-in reads the swap copy)."""
    pg = s.pages[p]
    return pg.data if pg.valid or pg.swapped else 0


def GuestStableBeliefInv(profile: EssaProfile, s: EssaState) -> bool:
    """A page the guest believes stable is stable in the host."""
    return all(pg.usage == "S" for pg in s.pages if pg.belief == "S")


def BelievedStableContentKeptInv(profile: EssaProfile, s: EssaState) -> bool:
    """What the guest is owed of a page it believes stable is what a read returns."""
    return all(
        Readable(s, p) == pg.owed
        for p, pg in enumerate(s.pages)
        if pg.owed != NO_VALUE and pg.belief == "S"
    )


def ModifiedPContentKeptInv(profile: EssaProfile, s: EssaState) -> bool:
    """A page the guest made P and then modified keeps what the guest is owed."""
    return all(
        Readable(s, p) == pg.owed
        for p, pg in enumerate(s.pages)
        if pg.owed != NO_VALUE and pg.belief == "P" and pg.modified
    )


def UnwrittenContentKeptInv(profile: EssaProfile, s: EssaState) -> bool:
    """Content the guest stored and has not written back, and is owed, is never lost, whatever
    usage the guest asked for (D231)."""
    return all(
        Readable(s, p) == pg.owed
        for p, pg in enumerate(s.pages)
        if pg.owed != NO_VALUE and pg.modified
    )


def GuestDirtyRecordInv(profile: EssaProfile, s: EssaState) -> bool:
    """What the guest must still write back is, for every page it holds content of, the page's
    change bit (D247)."""
    return all(pg.modified == pg.keyDirty for pg in s.pages if pg.owed != NO_VALUE)


def ReadReturnsOwedInv(profile: EssaProfile, s: EssaState) -> bool:
    """A read returns what the guest is owed, or a discard fault: never a silent wrong value."""
    lo = s.lastOp
    if not (lo.op == "GuestRead" and lo.outcome == "Value"):
        return True
    return lo.value == s.pages[lo.page].owed


def _essa_valid(profile: EssaProfile, pg: EssaPage) -> bool:
    """Spec: EssaValid(p): the host PTE, or in the new gmap the gmap PTE, is valid."""
    return pg.gmapPte == "Valid" if profile.impl == "KVMGmap" else pg.valid


def ReportedZero(profile: EssaProfile, s: EssaState, p: int) -> bool:
    """The page's content state as ESSA reports it is 3, logically zero (ContentBits(p) = 3)."""
    pg = s.pages[p]
    if _essa_valid(profile, pg):
        return False
    return not pg.swapped if profile.impl == "Paper2007" else pg.zbit


def ReportedZeroReadsZeroInv(profile: EssaProfile, s: EssaState) -> bool:
    """A page whose content state ESSA reports as logically zero reads as zero."""
    return all(
        Readable(s, p) == 0 for p in range(len(s.pages)) if ReportedZero(profile, s, p)
    )


def ChangeBitTrackedInv(profile: EssaProfile, s: EssaState) -> bool:
    """With storage keys, GC is the guest's change bit whenever ESSA sees the page not valid."""
    if not (profile.kvm and profile.storage_keys):
        return True
    return all(pg.gc == pg.keyDirty for pg in s.pages if not _essa_valid(profile, pg))


def GCClearWithoutKeysInv(profile: EssaProfile, s: EssaState) -> bool:
    """In KVM without storage keys GC is never set (sources 2, D199)."""
    return not (profile.kvm and not profile.storage_keys) or not any(pg.gc for pg in s.pages)


def UnallocatedUnchangedInv(profile: EssaProfile, s: EssaState) -> bool:
    """Without a gmap page table there is no CMMA state and nothing is queued."""
    if s.pageTable:
        return True
    return not s.cbrl and all(pg.usage == "S" and not pg.nodat and not pg.zbit for pg in s.pages)


def GmapPteResidentInv(profile: EssaProfile, s: EssaState) -> bool:
    """A present gmap PTE (valid or aged) exists only in the new gmap, and maps a page in a host
    frame (D283, D313)."""
    gmap = profile.impl == "KVMGmap"
    return all(gmap and pg.valid for pg in s.pages if pg.gmapPte != "Empty")


def UnusedBitPresentInv(profile: EssaProfile, s: EssaState) -> bool:
    """In the new gmap _PAGE_UNUSED is a bit of the present host PTE of a resident page: a page
    in no host frame has none (sources 3.3; D311)."""
    return profile.impl != "KVMGmap" or all(pg.valid for pg in s.pages if pg.pteUnused)


def PaperContentStateInv(profile: EssaProfile, s: EssaState) -> bool:
    """In the 2007 model a page is in one of sources 6's states Sr Sp Sz Ur Uz Vr Vz Pr: never
    both in a frame and in swap, preserved only if stable, P only if resident (D104, D314)."""
    return profile.impl != "Paper2007" or all(
        not (pg.valid and pg.swapped)
        and (not pg.swapped or pg.usage == "S")
        and (pg.usage != "P" or pg.valid)
        for pg in s.pages
    )


def _host_unchanged(s: EssaState, t: EssaState) -> bool:
    """UNCHANGED <<usage, valid, swapped, zbit, nodat, data, cbrl>>."""
    return s.cbrl == t.cbrl and all(
        (a.usage, a.valid, a.swapped, a.zbit, a.nodat, a.data)
        == (b.usage, b.valid, b.swapped, b.zbit, b.nodat, b.data)
        for a, b in zip(s.pages, t.pages)
    )


def SpecificationExceptionStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    orc = t.lastOp.orc
    if not profile.cmma_enabled or t.lastOp.op == "GuestEssaProblemState":
        return True
    if not (orc > 7 or (orc == 7 and (not profile.facility147 or profile.impl == "Paper2007"))):
        return True
    return t.lastOp.outcome == "SpecificationException" and _host_unchanged(s, t)


def MigrationStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    if t.lastOp.op != "Migrate":
        return True
    return all(Readable(t, p) == Readable(s, p)
               for p, pg in enumerate(s.pages) if pg.usage == "S")  # fmt: skip


def MigrationAttributesStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """What the guest asked of each page survives migration: its usage and N (sources 5)."""
    if t.lastOp.op != "Migrate":
        return True
    return all(b.usage == a.usage and b.nodat == a.nodat for a, b in zip(s.pages, t.pages))


def MigrationArrivalStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """How KVM rebuilds a migrated page (a step check): no Z, no swap copy, no CBRL entry."""
    if t.lastOp.op != "Migrate":
        return True
    return not t.cbrl and t.pageTable and all(
        not b.zbit and not b.swapped
        and b.valid == (b.data != 0)
        and b.gmapPte == "Empty" and not b.pteUnused
        for a, b in zip(s.pages, t.pages)
    )  # fmt: skip


def StableIfNotDiscardedStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """An ORC 6 that completes makes the page stable, unless ESSA reported it discarded (V or P,
    logically zero): then its usage stays (D193). Classic KVM's and the new gmap's ORC 6 is
    SET_STABLE_IF_RESIDENT and breaks it."""
    lo, p = t.lastOp, t.lastOp.page
    if lo.orc != 6 or lo.outcome not in ("Done", "Interpreted") or not 0 <= p < len(s.pages):
        return True
    discarded = s.pages[p].usage in ("V", "P") and ReportedZero(profile, s, p)
    return t.pages[p].usage == (s.pages[p].usage if discarded else "S")


def OrcContractStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """An ESSA that completes does to the usage and N what its code's name says (D199)."""
    lo, p = t.lastOp, t.lastOp.page
    if lo.outcome not in ("Done", "Interpreted") or not 0 <= p < len(s.pages):
        return True
    a, b, o = s.pages[p], t.pages[p], lo.orc
    valid = _essa_valid(profile, a)
    return (
        (o != 0 or (b.usage == a.usage and b.nodat == a.nodat))
        and (o not in (1, 5, 7) or b.usage == "S")
        and (o != 5 or b.valid == (a.valid or profile.impl == "Paper2007"))
        and (o != 1 or not b.nodat)
        and (o != 7 or b.nodat)
        and (o != 2 or b.usage == "U")
        and (o != 3 or b.usage == "V")
        and (o != 4 or not valid or b.usage == "P")
        and (o != 4 or not ReportedZero(profile, s, p) or b.usage == "V")
        and (o != 4 or valid or ReportedZero(profile, s, p)
             or not (a.gc if profile.kvm else a.keyDirty)
             or b.usage == (a.usage if profile.gmap else "S"))
        and (o != 6 or not profile.kvm or b.usage == ("S" if valid else a.usage))
    )


def _completed_on_page(s: EssaState, t: EssaState) -> bool:
    """The step is an ESSA (ORC 0 .. 7) that completed on a page of guest memory."""
    lo = t.lastOp
    return lo.outcome in ("Done", "Interpreted") and 0 <= lo.page < len(s.pages) and 0 <= lo.orc <= 7


def QueuedDiscardStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """KVM queues a discard exactly for a non-resident page made U or V, setting Z; a call that
    queues none keeps Z, or clears it on the new gmap's intercepted path (D228), which every ESSA
    takes without MachineInterpretsESSA (D281)."""
    if not profile.kvm or not _completed_on_page(s, t):
        return True
    p, o = t.lastOp.page, t.lastOp.orc
    a, b = s.pages[p], t.pages[p]
    valid = _essa_valid(profile, a)
    queued = len(t.cbrl) == len(s.cbrl) + 1
    if queued and not (not valid and b.usage in ("U", "V") and b.zbit and t.cbrl == (*s.cbrl, p)):
        return False
    if not queued and (
        (o in (2, 3) and not valid) or (o == 4 and not valid and not a.zbit and not a.gc)
    ):
        return False
    # Without MachineInterpretsESSA every ESSA is intercepted (D281), whatever the step records.
    intercepted = not profile.machine_interprets_essa or t.lastOp.outcome == "Done"
    intercepted_gmap = profile.impl == "KVMGmap" and intercepted
    return queued or (t.cbrl == s.cbrl and b.zbit == (False if intercepted_gmap else a.zbit))


_USAGE_CODE: Final = {"S": 0, "U": 4, "P": 8, "V": 12}


def ResultByteStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """An ESSA that completes leaves in R1 the page's usage, N and content state before the
    operation, in sources 1's encoding (D230)."""
    if not _completed_on_page(s, t):
        return True
    a = s.pages[t.lastOp.page]
    zero = a.zbit if profile.kvm else not a.swapped
    content = 0 if _essa_valid(profile, a) else 3 if zero else 2
    return t.lastOp.result == content + _USAGE_CODE[a.usage] + (32 if a.nodat else 0)


def CMMAResetStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """A CMMA reset leaves every page S with N clear, and its Z, residency and content as they
    were (D233)."""
    if t.lastOp.op != "HostResetCMMA":
        return True
    return all(
        b.usage == "S" and not b.nodat and b.zbit == a.zbit
        and (b.valid, b.swapped, b.data) == (a.valid, a.swapped, a.data)
        for a, b in zip(s.pages, t.pages)
    )  # fmt: skip


def GuestAccessInUseStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """The guest never reads, stores to or writes back a page it freed or dropped (D234, D248)."""
    lo = t.lastOp
    return (
        lo.op not in ("GuestRead", "GuestWrite", "GuestWriteback")
        or s.pages[lo.page].belief != "U"
    )


#: The loads and stores: the guest's, and a harness's bare ones (spec/ESSABareInstruction.tla's BareAccess).
ACCESS_OPS: Final = frozenset({"GuestRead", "GuestWrite", "Read", "Write"})


def AccessOutcomeStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """An access is interrupted as sources 6 says (the 2007 model: U an addressing exception, Vz
    the discard fault; KVM never, sources 2); otherwise the page is left in a frame holding the
    value loaded (the page's content) or stored (with the change bit set) (D286)."""
    lo = t.lastOp
    if lo.op not in ACCESS_OPS:
        return True
    a, b = s.pages[lo.page], t.pages[lo.page]
    load = lo.op in ("GuestRead", "Read")
    interruption = None
    if not profile.kvm and a.usage == "U":
        interruption = "AddressingException"
    elif not profile.kvm and a.usage == "V" and not a.valid and not a.swapped:
        interruption = "DiscardFault"
    if interruption is not None:
        return lo.outcome == interruption
    return (
        lo.outcome == ("Value" if load else "Done")
        and b.valid and b.data == lo.value
        and (lo.value == Readable(s, lo.page) if load else b.keyDirty)
    )  # fmt: skip


def PageTableCreatedStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """The gmap page table comes into existence only in a fault-in, an SSKE (a writeback with
    storage keys) or migration's SET_CMMA_BITS (sources 3, 5; D289)."""
    if s.pageTable or not t.pageTable:
        return True
    lo = t.lastOp
    return (
        (lo.op in ACCESS_OPS and not _essa_valid(profile, s.pages[lo.page]))
        or (lo.op in ("GuestWriteback", "Writeback") and profile.storage_keys)
        or lo.op == "Migrate"
    )


def SwapCopyFromFrameStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """A page gains a swap copy only in a step that takes it out of its frame (sources 2, 6; D283)."""
    return all(
        a.swapped or not b.swapped or (a.valid and not b.valid) for a, b in zip(s.pages, t.pages)
    )


def DiscardLeavesZeroStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """A step that drops a page's content leaves it logically zero: neither a frame nor a swap
    copy is kept (paper 2: "no associated frame or backed content"; sources 2: CBRL processing
    frees the swap slot; D321)."""
    return all(
        not (Readable(s, p) != 0 and b.data == 0) or (not b.valid and not b.swapped)
        for p, b in enumerate(t.pages)
    )


def CBRLOutcomeStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """A step that processes a CBRL entry records what its zap did: "Zapped" (the entry's page lost
    its swap copy), "ZappedOtherPage" (another page did: the CBRLGuestAddress bug) or "Kept"
    (sources 2, 3.2; D329). An entry whose page has a present PTE (the gmap PTE in the new gmap)
    is left alone."""
    lo = t.lastOp
    if lo.op != "HostProcessCBRL":
        return True
    entry = s.pages[lo.page]
    present = entry.gmapPte != "Empty" if profile.gmap else entry.valid
    zapped = [a.swapped and not b.swapped for a, b in zip(s.pages, t.pages)]
    if present and lo.outcome != "Kept":
        return False
    if zapped[lo.page]:
        return lo.outcome == "Zapped"
    if any(z for q, z in enumerate(zapped) if q != lo.page):
        return lo.outcome == "ZappedOtherPage"
    return lo.outcome == "Kept"


def ZeroBitClearedStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """In KVM, Z goes from set to clear only when the PTE ESSA looks at is installed (classic) or
    exchanged (the new gmap), in the new gmap's intercepted ESSA on the page, or on a migration's
    arrival (sources 2, 3, 5; D283)."""
    if not profile.kvm:
        return True
    lo = t.lastOp
    gmap = profile.impl == "KVMGmap"
    for p, (a, b) in enumerate(zip(s.pages, t.pages)):
        if a.zbit and not b.zbit and not (
            lo.op == "Migrate"
            or (not gmap and not a.valid and b.valid)
            or (gmap and a.gmapPte != b.gmapPte)
            or (gmap and lo.page == p and 0 <= lo.orc <= 7 and lo.outcome == "Done")
        ):
            return False
    return True


def UnusedBitMarksUnusedStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """In the new gmap _PAGE_UNUSED is set only where KVM unmaps the present gmap PTE of a U page
    (sources 3.3; D317)."""
    return profile.impl != "KVMGmap" or all(
        a.pteUnused or not b.pteUnused or (a.usage == "U" and a.gmapPte != "Empty")
        for a, b in zip(s.pages, t.pages)
    )


def UnusedNotSwappedStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """In KVM a reclaim never writes to swap a page core mm is told is unused: classic KVM, a U
    page; the new gmap, a page whose host PTE carries _PAGE_UNUSED (sources 2, 3.3; D315)."""
    lo = t.lastOp
    if not profile.kvm or lo.op != "HostReclaim":
        return True
    a = s.pages[lo.page]
    unused = a.pteUnused if profile.impl == "KVMGmap" else a.usage == "U"
    return not unused or not t.pages[lo.page].swapped


def PteExchangeClearsZeroStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """In KVM a step that installs the PTE ESSA looks at (classic: the host PTE of a fault-in) or
    changes the gmap PTE leaves Z clear (sources 2, 3.3; D310)."""
    if not profile.kvm:
        return True
    gmap = profile.impl == "KVMGmap"
    return all(
        not b.zbit
        for a, b in zip(s.pages, t.pages)
        if (a.gmapPte != b.gmapPte if gmap else not a.valid and b.valid)
    )


#: The ORC each guest operation issues (sources 1, 4, 6; D235).
GUEST_ORCS: Final = {
    "GuestAlloc": 1, "GuestFree": 2, "GuestMakeVolatile": 3, "GuestMakePotentiallyVolatile": 4,
    "GuestMakeStable": 6, "GuestSetStableNoDat": 7,
}  # fmt: skip


def GuestOrcStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    """Each guest step that issues ESSA is named for the operation whose ORC it issues (D235)."""
    lo = t.lastOp
    return lo.op not in GUEST_ORCS or lo.orc == GUEST_ORCS[lo.op]


ESSA_OPS: Final = frozenset({
    "GuestAlloc", "GuestFree", "GuestMakeVolatile", "GuestMakePotentiallyVolatile",
    "GuestMakeStable", "GuestExtract", "GuestSetStableNoDat", "GuestBadOrc",
    "GuestEssaProblemState", "GuestEssaBeyondMemory",
})  # fmt: skip
REFUSALS: Final = frozenset({
    "OperationException", "PrivilegedOperation", "SpecificationException",
    "AddressingException", "ExceptionIndication",
})  # fmt: skip


def RefusalStep(profile: EssaProfile, s: EssaState, t: EssaState) -> bool:
    lo = t.lastOp
    if lo.op in ESSA_OPS and not profile.cmma_enabled and lo.outcome != "OperationException":
        return False
    if lo.op == "GuestEssaProblemState" and profile.cmma_enabled and lo.outcome != "PrivilegedOperation":
        return False
    beyond = "ExceptionIndication" if profile.impl == "KVMGmap" else "AddressingException"
    if lo.op == "GuestEssaBeyondMemory" and profile.cmma_enabled and lo.outcome != beyond:
        return False
    if lo.op in ESSA_OPS and lo.outcome in REFUSALS:
        return s.cbrl == t.cbrl and s.pageTable == t.pageTable and all(
            (a.usage, a.valid, a.swapped, a.zbit, a.nodat, a.data, a.keyDirty, a.gc, a.gmapPte,
             a.pteUnused)
            == (b.usage, b.valid, b.swapped, b.zbit, b.nodat, b.data, b.keyDirty, b.gc, b.gmapPte,
                b.pteUnused)
            for a, b in zip(s.pages, t.pages)
        )  # fmt: skip
    return True


SpecificationExceptionProp = boxed("SpecificationExceptionProp", SpecificationExceptionStep)
MigrationKeepsStableContentProp = boxed("MigrationKeepsStableContentProp", MigrationStep)
MigrationKeepsAttributesProp = boxed("MigrationKeepsAttributesProp", MigrationAttributesStep)
MigrationArrivalProp = boxed("MigrationArrivalProp", MigrationArrivalStep)
RefusalProp = boxed("RefusalProp", RefusalStep)
StableIfNotDiscardedProp = boxed("StableIfNotDiscardedProp", StableIfNotDiscardedStep)
OrcContractProp = boxed("OrcContractProp", OrcContractStep)
QueuedDiscardProp = boxed("QueuedDiscardProp", QueuedDiscardStep)
ResultByteProp = boxed("ResultByteProp", ResultByteStep)
CMMAResetProp = boxed("CMMAResetProp", CMMAResetStep)
GuestAccessInUseProp = boxed("GuestAccessInUseProp", GuestAccessInUseStep)
AccessOutcomeProp = boxed("AccessOutcomeProp", AccessOutcomeStep)
PageTableCreatedProp = boxed("PageTableCreatedProp", PageTableCreatedStep)
SwapCopyFromFrameProp = boxed("SwapCopyFromFrameProp", SwapCopyFromFrameStep)
DiscardLeavesZeroProp = boxed("DiscardLeavesZeroProp", DiscardLeavesZeroStep)
CBRLOutcomeProp = boxed("CBRLOutcomeProp", CBRLOutcomeStep)
ZeroBitClearedProp = boxed("ZeroBitClearedProp", ZeroBitClearedStep)
UnusedNotSwappedProp = boxed("UnusedNotSwappedProp", UnusedNotSwappedStep)
UnusedBitMarksUnusedProp = boxed("UnusedBitMarksUnusedProp", UnusedBitMarksUnusedStep)
PteExchangeClearsZeroProp = boxed("PteExchangeClearsZeroProp", PteExchangeClearsZeroStep)
GuestOrcProp = boxed("GuestOrcProp", GuestOrcStep)

#: The invariants and action properties, by name, in the spec's order.
PROPERTIES: Final = PropertySet[EssaProfile, EssaState](
    by_name(EssaTypeOK, GuestStableBeliefInv, BelievedStableContentKeptInv, ModifiedPContentKeptInv,
            UnwrittenContentKeptInv, GuestDirtyRecordInv, ReadReturnsOwedInv, ReportedZeroReadsZeroInv,
            ChangeBitTrackedInv, GCClearWithoutKeysInv, UnallocatedUnchangedInv,
            GmapPteResidentInv, UnusedBitPresentInv, PaperContentStateInv),
    by_name(SpecificationExceptionProp, MigrationKeepsStableContentProp,
            MigrationKeepsAttributesProp, MigrationArrivalProp,
            StableIfNotDiscardedProp, OrcContractProp, QueuedDiscardProp, ResultByteProp,
            CMMAResetProp, GuestAccessInUseProp, AccessOutcomeProp, PageTableCreatedProp,
            SwapCopyFromFrameProp, DiscardLeavesZeroProp, CBRLOutcomeProp, ZeroBitClearedProp,
            UnusedNotSwappedProp, PteExchangeClearsZeroProp, UnusedBitMarksUnusedProp,
            GuestOrcProp, RefusalProp),
)  # fmt: skip
INVARIANTS: Final = PROPERTIES.invariants
ACTION_PROPERTIES: Final = PROPERTIES.action_properties
