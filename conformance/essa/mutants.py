"""Broken ESSA engines: the reference engine of one Impl with one plausible bug each.

``python -m conformance mutants --machine ESSA`` runs ``run``'s default settings against each and
reports the time to kill it (tests/test_conformance_essa_run.py requires every one killed).
Each names the Impl it breaks and where its bug shows (:attr:`EssaMutant.shows`): on one page
from a reset, only with two pages, only with storage keys, only with facility 147, only after
five or more steps, or only in the order of the CBRL. The bugs are those a harness or an
emulator plausibly has: a table row read wrongly, the R1 byte taken at the wrong time, a queue
processed from the wrong end, a counter that wraps.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from refimpl.essa import EssaProfile, EssaState, rules

from .protocol import (
    NONE, EssaReferenceEngine, EssaReply, EssaRequest, host_pages, oracle_step,
)  # fmt: skip

#: Where a mutant's bug shows.
ONE_PAGE, TWO_PAGES, STORAGE_KEYS, FACILITY_147, FIVE_STEPS, CBRL_ORDER = (
    "one page", "only with 2 pages", "only with storage keys", "only with facility 147",
    "only after 5 or more steps", "only in the CBRL's order",
)  # fmt: skip


def _page(s: EssaState, p: int, **changes: Any) -> EssaState:
    return s._replace(pages=s.pages[:p] + (s.pages[p]._replace(**changes),) + s.pages[p + 1 :])


def _reply(profile: EssaProfile, t: EssaState, reply: EssaReply) -> EssaReply:
    return reply._replace(pages=host_pages(profile, t))


class EssaMutant(EssaReferenceEngine):
    """The reference engine of :attr:`impl` with :meth:`mutate` changing some steps."""

    impl: ClassVar[str]
    shows: ClassVar[str] = ONE_PAGE
    #: What is broken, in a few words.
    breaks: ClassVar[str] = ""

    def __init__(self) -> None:
        super().__init__(self.impl)
        self.name = f"mutant-{type(self).__name__}"
        self.essas = 0

    def reset(self) -> None:
        super().reset()
        self.essas = 0

    def step(self, request: EssaRequest) -> EssaReply:
        assert self.profile is not None and self.state is not None, "hello first"
        t, reply = oracle_step(self.profile, self.state, request)
        if request.beyond_memory:  # the bugs are of the instruction on a page
            self.state = t
            return reply
        self.state, reply = self.mutate(self.profile, self.state, request, t, reply)
        return reply

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        """The step's successor and reply, given the reference's ``t`` and ``reply``."""
        return t, reply


class R1AfterNotBefore(EssaMutant):
    impl, breaks = "KVMClassic", "R1 reports the page's state after the instruction, not before"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "ESSA" and reply.outcome == "Done":
            return t, reply._replace(result=rules.result_byte(profile, t.pages[req.page]))
        return t, reply


class StableIfNotDiscarded(EssaMutant):
    impl = "KVMClassic"
    breaks = "ORC 6 sets S on a page that is not resident and not Z (if not discarded)"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "ESSA" and req.orc == 6 and reply.outcome == "Done":
            pg = s.pages[req.page]
            if not pg.valid and not pg.zbit:
                t = _page(t, req.page, usage="S")
        return t, _reply(profile, t, reply)


class GetStateKeepsZ(EssaMutant):
    impl, breaks = "KVMGmap", "ORC 0 keeps Z, as the classic code does"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "ESSA" and req.orc == 0 and reply.outcome == "Done":
            t = _page(t, req.page, zbit=s.pages[req.page].zbit)
        return t, _reply(profile, t, reply)


class PotVolatileIgnoresGC(EssaMutant):
    impl, shows = "KVMClassic", STORAGE_KEYS
    breaks = "ORC 4 on a page that is not resident queues a discard even when GC is set"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        pg = s.pages[req.page] if req.page != NONE else None
        if (req.op == "ESSA" and req.orc == 4 and reply.outcome == "Done" and pg is not None
                and not pg.valid and not pg.zbit and pg.gc):  # fmt: skip
            if len(s.cbrl) < profile.cbrl_size:
                t = _page(t, req.page, usage="V", zbit=True)._replace(cbrl=s.cbrl + (req.page,))
        return t, _reply(profile, t, reply)


class NoDatNotSet(EssaMutant):
    impl, shows = "KVMGmap", FACILITY_147
    breaks = "ORC 7 sets the usage but not the no-DAT bit"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "ESSA" and req.orc == 7 and reply.outcome == "Done":
            t = _page(t, req.page, nodat=s.pages[req.page].nodat)
        return t, _reply(profile, t, reply)


class SecondPageReportsFirst(EssaMutant):
    impl, shows = "KVMClassic", TWO_PAGES
    breaks = "R1 of an ESSA on any page but 0 is computed from page 0's state"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "ESSA" and req.page > 0 and reply.outcome == "Done":
            return t, reply._replace(result=rules.result_byte(profile, s.pages[0]))
        return t, reply


class CBRLLastInFirstOut(EssaMutant):
    impl, shows = "KVMClassic", CBRL_ORDER
    breaks = "HostProcessCBRL takes the newest entry, not the oldest"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "HostProcessCBRL" and len(s.cbrl) > 1:
            flipped = s._replace(cbrl=s.cbrl[::-1])
            t, reply = oracle_step(profile, flipped, req)
            t = t._replace(cbrl=t.cbrl[::-1])
            return t, _reply(profile, t, reply)
        return t, reply


class FullCBRLDropsOldest(EssaMutant):
    impl = "KVMGmap"
    breaks = "a discard that finds the CBRL full pushes out the oldest entry instead of " \
        "intercepting"  # fmt: skip

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "ESSA" and reply.outcome == "Refused" and s.cbrl:
            room = s._replace(cbrl=s.cbrl[1:])
            return oracle_step(profile, room, req)
        return t, reply


class MigrationCarriesZ(EssaMutant):
    impl, breaks = "KVMClassic", "Migrate carries the Z bit with the CMMA attributes"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "Migrate" and reply.outcome == "Done":
            for p, pg in enumerate(s.pages):
                t = _page(t, p, zbit=pg.zbit)
        return t, _reply(profile, t, reply)


class MigrationAllResident(EssaMutant):
    impl, breaks = "KVMGmap", "every page arrives resident after Migrate, zero pages too"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "Migrate" and reply.outcome == "Done":
            for p in range(len(t.pages)):
                t = _page(t, p, valid=True)
        return t, _reply(profile, t, reply)


class ReclaimForgetsChangeBit(EssaMutant):
    impl, shows = "KVMClassic", STORAGE_KEYS
    breaks = "HostReclaim does not save the change bit in GC"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "HostReclaim" and reply.outcome == "Done":
            t = _page(t, req.page, gc=s.pages[req.page].gc)
        return t, _reply(profile, t, reply)


class SixthEssaSetsNoDat(EssaMutant):
    impl, shows = "KVMGmap", FIVE_STEPS
    breaks = "from the sixth ESSA after a reset on, R1's no-DAT bit is flipped (a counter wraps)"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "ESSA" and reply.outcome == "Done":
            self.essas += 1
            if self.essas >= 6:
                return t, reply._replace(result=reply.result ^ rules.NODAT_BIT)
        return t, reply


class FaultInKeepsSwap(EssaMutant):
    impl, breaks = "KVMClassic", "a fault-in from swap keeps the swap copy (swapped stays set)"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op in ("Read", "Write") and s.pages[req.page].swapped and not s.pages[req.page].valid:
            t = _page(t, req.page, swapped=True)
        return t, _reply(profile, t, reply)


class NoDiscardFault(EssaMutant):
    impl, breaks = "Paper2007", "a read of a discarded volatile page returns 0 instead of faulting"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "Read" and reply.outcome == "DiscardFault":
            t = _page(s, req.page, valid=True)
            return t, EssaReply("Value", NONE, 0, host_pages(profile, t))
        return t, reply


class ZapsStableSwap(EssaMutant):
    impl = "KVMGmap"
    breaks = "HostProcessCBRL frees the swap copy of any queued page, even one made stable " \
        "since it was queued"  # fmt: skip

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "HostProcessCBRL" and reply.outcome == "Kept":
            p = s.cbrl[0]
            if not s.pages[p].valid and s.pages[p].swapped:
                t = _page(t, p, swapped=False, data=0)
                return t, _reply(profile, t, reply._replace(outcome="Zapped"))
        return t, reply


class WritebackKeepsChangeBit(EssaMutant):
    impl, breaks = "Paper2007", "Writeback does not clear the change bit"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "Writeback":
            t = _page(t, req.page, keyDirty=s.pages[req.page].keyDirty)
        return t, _reply(profile, t, reply)


class AgedPageReportsResident(EssaMutant):
    impl = "KVMGmap"
    breaks = "ESSA reads the host PTE, not the gmap PTE: an aged page reports content 0 (resident)"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "ESSA" and reply.outcome == "Done" and req.page != NONE:
            pg = s.pages[req.page]
            if pg.gmapPte == "Aged" and pg.valid and reply.result != rules.EXCEPTION_INDICATION:
                return t, reply._replace(result=reply.result & ~0x03)
        return t, reply


class ProblemStateIgnored(EssaMutant):
    impl = "KVMClassic"
    breaks = "an ESSA from problem state is performed instead of raising PIC 2 (handle_essa " \
        "checks no PSW bit)"  # fmt: skip

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.problem_state and reply.outcome == "PrivilegedOperation":
            return oracle_step(profile, s, EssaRequest("ESSA", req.page, req.orc))
        return t, reply


class ResetKeepsNoDat(EssaMutant):
    impl, shows = "KVMClassic", FACILITY_147
    breaks = "the CMMA reset makes every page S but leaves N set"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "HostResetCMMA" and reply.outcome == "Done":
            t = t._replace(pages=tuple(pg._replace(nodat=old.nodat)
                                       for pg, old in zip(t.pages, s.pages)))  # fmt: skip
            return t, _reply(profile, t, reply)
        return t, reply


#: Every ESSA mutant.
ESSA_MUTANTS: Final[tuple[type[EssaMutant], ...]] = (
    R1AfterNotBefore, StableIfNotDiscarded, GetStateKeepsZ, PotVolatileIgnoresGC, NoDatNotSet,
    SecondPageReportsFirst, CBRLLastInFirstOut, FullCBRLDropsOldest, MigrationCarriesZ,
    MigrationAllResident, ReclaimForgetsChangeBit, SixthEssaSetsNoDat, FaultInKeepsSwap,
    NoDiscardFault, ZapsStableSwap, WritebackKeepsChangeBit, AgedPageReportsResident,
    ProblemStateIgnored, ResetKeepsNoDat,
)  # fmt: skip
