"""Broken engines: each breaks one rule of the spec, and the suite must kill every one.

Each mutant is the reference engine with one departure, the kind of bug a real hypervisor's
page-state code could have. ``breaks`` is the rule the suite must name when it kills it: a
property of spec/PageStateProperties.tla where the departure breaks one at once, else the spec
action whose definition it departs from (see :mod:`conformance.pagestates.judge`). ``request`` is the profile
it runs under (a mutant that only shows under ``ReadsZero`` asks for it).

They are in-process engines like any other: ``python -m conformance run --engine-class
conformance.pagestates.mutants:DiscardsDirtyP`` shows the suite's report for one.
"""

from __future__ import annotations

from typing import ClassVar, Final

from refimpl import Refused, State
from refimpl.pagestates.profile import NO_VALUE, ZERO
from refimpl.pagestates.state import LastOp, Page

from .engine import DEFAULT_REQUEST, ReferenceEngine
from ..protocol import ProfileRequest


def _set(state: State, op: str, page: int, arg: int, pg: Page, outcome: str = "Done",
         value: int = NO_VALUE) -> State:  # fmt: skip
    pages = state.pages[:page] + (pg,) + state.pages[page + 1 :]
    return State(pages, LastOp(op, page, arg, outcome, value))


class Mutant(ReferenceEngine):
    """A reference engine with one rule broken (see :meth:`_perform` of each)."""

    breaks: ClassVar[str]
    #: Other rules a kill may name: the same bug seen through another door (see the mutant).
    also_breaks: ClassVar[tuple[str, ...]] = ()
    request: ClassVar[ProfileRequest] = DEFAULT_REQUEST

    @classmethod
    def rules(cls) -> tuple[str, ...]:
        return (cls.breaks, *cls.also_breaks)

    def __init__(self) -> None:
        super().__init__(self.request)
        self.name = f"mutant {type(self).__name__}"

    def _spec(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        return super()._perform(state, op, page, arg)


class SSINDSucceedsOnDiscarded(Mutant):
    """SetStableIfNotDiscarded succeeds on a discarded page (no compare-and-swap on the
    discarded state): the guest keeps a page cache page whose content is gone."""

    breaks = "SetStableIfNotDiscardedProp"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        if op == "SetStableIfNotDiscarded" and pg.name in ("Vz", "Pz"):
            return _set(state, op, page, arg, pg._replace(usage="S"), "Success")
        return self._spec(state, op, page, arg)


class DiscardsDirtyP(Mutant):
    """The host discards a potentially volatile page without looking at its change bit."""

    breaks = "HostDiscardsOnlyDiscardableProp"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        if op == "HostDiscard" and pg.usage == "P" and pg.dirty and pg.resid != "z":
            return _set(state, op, page, arg, pg._replace(resid="z", dirty=False, data=ZERO))
        return self._spec(state, op, page, arg)


class DiscardedReadsZero(Mutant):
    """A read of a discarded page returns zero instead of raising the discard fault: the guest
    silently sees an empty page where its data was."""

    breaks = "ReadResultInv"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        if op == "Read" and pg.name in ("Vz", "Pz"):
            return _set(state, op, page, arg, pg, "Value", ZERO)
        return self._spec(state, op, page, arg)


class ExtractReportsResident(Mutant):
    """Extract encodes a preserved page's residency as resident (a wrong bit in the result)."""

    breaks = "ExtractReportsStateProp"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        if op == "Extract" and pg.resid == "p":
            return _set(state, op, page, arg, pg, pg.usage + "r")
        return self._spec(state, op, page, arg)


class UnusedLeaksContent(Mutant):
    """Under ReadsZero, a read of a resident unused page returns the frame's old content."""

    breaks = "UnusedAccessInv"
    request = ProfileRequest("Full", True, "ReadsZero", 2)

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        if op == "Read" and pg.name == "Ur":
            return _set(state, op, page, arg, pg, "Value", pg.data)
        return self._spec(state, op, page, arg)


class LosesSetStableAfterSetVolatile(Mutant):
    """A state change lost under one sequence: SetStable right after SetVolatile on the same
    page is answered but not applied (a stale cached copy of the page's state is written back)."""

    breaks = "PrimitiveSetsUsageProp"

    def __init__(self) -> None:
        super().__init__()
        self.previous: dict[int, str] = {}

    def reset(self) -> None:
        super().reset()
        self.previous = {}

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        before = self.previous.get(page)
        self.previous[page] = op
        if op == "SetStable" and before == "SetVolatile":
            return _set(state, op, page, arg, state.pages[page])
        return self._spec(state, op, page, arg)


class GuestSetsResidency(Mutant):
    """SetStable on a preserved page brings it back in: a guest call that sets residency."""

    breaks = "GuestKeepsResidencyProp"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        if op == "SetStable" and pg.resid == "p":
            return _set(state, op, page, arg, pg._replace(usage="S", resid="r"))
        return self._spec(state, op, page, arg)


class RefusesPreserveOfVolatile(Mutant):
    """The host refuses to page out a resident volatile page, which the full machine allows
    (Vp): an allowed host action refused."""

    breaks = "HostPreserve"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        if op == "HostPreserve" and state.pages[page].name == "Vr":
            return Refused(op, page, arg, "volatile pages are never paged out")
        return self._spec(state, op, page, arg)


class PageInLosesDirty(Mutant):
    """Page-in forgets the change bit, so a modified P page looks clean afterwards."""

    breaks = "HostPageIn"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        result = self._spec(state, op, page, arg)
        if op == "HostPageIn" and isinstance(result, State):
            return _set(state, op, page, arg, result.pages[page]._replace(dirty=False))
        return result


class PreservedFaults(Mutant):
    """An access to a preserved volatile page raises a discard fault instead of waiting for
    the page-in: the guest throws away content the host still has."""

    breaks = "DiscardFaultOnlyWhenDiscardedInv"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        if op in ("Read", "Write") and pg.name in ("Vp", "Pp"):
            return _set(state, op, page, arg, pg, "DiscardFault")
        return self._spec(state, op, page, arg)


class ZeroFillReusesFrame(Mutant):
    """The host keeps the frames it frees (a page-out, a discard) on a free list and hands the
    most recent one to the next zero fill without clearing it: the page shows what the frame
    held last, another page's content, where the guest is owed zero.

    The guest is owed zero only if it wrote the page or re-created it after a discard (D10);
    after SetUnused and SetStable it is owed nothing, no property judges the value read, and the
    kill names the Read action (the spec reads the zero frame's content, 0)."""

    breaks = "ReadResultInv"
    also_breaks = ("Read",)

    def __init__(self) -> None:
        super().__init__()
        self.free_frames: list[int] = []

    def reset(self) -> None:
        super().reset()
        self.free_frames = []

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        result = self._spec(state, op, page, arg)
        if not isinstance(result, State):
            return result
        new = result.pages[page]
        if pg.resid == "r" and new.resid != "r":
            self.free_frames.append(pg.data)  # the frame is freed with its content
        elif pg.resid != "r" and new.resid == "r" and self.free_frames:
            content = self.free_frames.pop()
            if op == "HostZeroFill":  # a page-in overwrites the frame; a zero fill should
                return _set(state, op, page, arg, new._replace(data=content))
        return result


class WritesPreservedWithoutPageIn(Mutant):
    """A store to a preserved page goes to the backing copy at once instead of waiting for the
    host to page it in."""

    breaks = "Write"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        if op == "Write" and pg.resid == "p" and pg.usage != "U":
            new = pg._replace(data=arg, dirty=True, intended=arg, modified=True)
            return _set(state, op, page, arg, new)
        return self._spec(state, op, page, arg)


class SetUnusedKeepsBacking(Mutant):
    """With a host service, SetUnused on a preserved page keeps its backing (Up) instead of
    freeing it (Uz) as the implicit host transition does."""

    breaks = "SetUnused"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        pg = state.pages[page]
        if op == "SetUnused" and pg.resid == "p":
            return _set(state, op, page, arg, pg._replace(usage="U", intended=NO_VALUE, modified=False))
        return self._spec(state, op, page, arg)


class CollapsesDiscardedStates(Mutant):
    """The full machine shows a discarded P page as Vz, as only the collapsed machines may."""

    breaks = "HostKeepsUsageProp"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        result = self._spec(state, op, page, arg)
        if op == "HostDiscard" and isinstance(result, State) and result.pages[page].name == "Pz":
            return _set(state, op, page, arg, result.pages[page]._replace(usage="V"))
        return result


class VolatileAnswersSuccess(Mutant):
    """SetVolatile answers Success, not Done: the engine reports an unconditional primitive as one
    that could have failed, as only SetStableIfNotDiscarded may (a status copied from the wrong
    branch of the instruction's handler)."""

    breaks = "PrimitiveOutcomeInv"

    def _perform(self, state: State, op: str, page: int, arg: int) -> State | Refused:
        result = self._spec(state, op, page, arg)
        if op == "SetVolatile" and isinstance(result, State):
            return State(result.pages, result.lastOp._replace(outcome="Success"))
        return result


MUTANTS: Final[tuple[type[Mutant], ...]] = (
    SSINDSucceedsOnDiscarded, DiscardsDirtyP, DiscardedReadsZero, ExtractReportsResident,
    UnusedLeaksContent, LosesSetStableAfterSetVolatile, GuestSetsResidency,
    RefusesPreserveOfVolatile, PageInLosesDirty, PreservedFaults, ZeroFillReusesFrame,
    WritesPreservedWithoutPageIn, SetUnusedKeepsBacking, CollapsesDiscardedStates,
    VolatileAnswersSuccess,
)  # fmt: skip
