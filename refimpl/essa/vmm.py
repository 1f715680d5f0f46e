"""CMMA migration as a VMM drives it (spec/ESSAMigrationVMM.tla) as a package of the engine:
:data:`VMM`.

A state is a :class:`~refimpl.essa.migration.MigrationState` of spec/ESSAMigration.tla and the
VMM's own variables: each memslot's state (``slot``: "Absent", "Present" or "Deleted") and dirty
logging, the kernel's count of dirty pages (``dirtyCount``, cmma_dirty_pages), ``usesCmm``
(mm->context.uses_cmm), the last Get or Peek's ``answer`` and the ghost ``stopped``.

Pages sit at guest frames (:class:`Layout`): the spec's are 0 .. n-1 in page order, each in a
memslot; a layout may put the frames of a memslot anywhere (the kernel selftest's second memslot
starts at gfn 4096), which the spec's frames are the case of with no gap.

* ``MigrationStart``, ``MigrationStop``: kvm_s390_vm_start_migration, kvm_s390_vm_stop_migration.
* ``Get`` (start, count): KVM_S390_GET_CMMA_BITS (kvm_s390_get_cmma, kvm_s390_next_dirty_cmma).
* ``Peek`` (start, count): the same with KVM_S390_CMMA_PEEK (kvm_s390_peek_cmma).
* ``SlotCreate``, ``SlotLogging``, ``SlotDelete``: memslot changes (kvm_arch_prepare_memory_region).
* ``MigrationSwitch`` (lastOp ``Migrate``, its value the SET's mask): the destination applies
  what it received, the bits the mask selects (:data:`FULL_MASK`, :data:`USAGE_MASK`, 0).
* ``GuestStep``: ESSA.tla's guest and host on pages in memslots.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, NamedTuple

from ..core.graph import Presenter, Successors
from ..core.package import GraphModel, MachinePackage, Refused
from ..core.properties import PropertySet
from .machine import _record, guest_alloc, guest_free, host_process_cbrl, migrate
from .migration import MigrationState, MigrationStateReader, dirty_mark
from .migration import init as migration_init
from .migration import show as show_migration
from .profile import CONSTANTS, NO_PAGE, EssaProfile
from .rules import zap_targets
from .state import EssaState, show_last_op

#: KVM_S390_MAX_BIT_DISTANCE (2 * sizeof(void *)): the longest run of clean pages a GET sends.
KERNEL_MAX_BIT_DISTANCE: Final = 16

#: The SET's mask as bits of a CMMA value (spec: UsageMask, NoDatMask, FullMask): the usage
#: code (_PGSTE_GPS_USAGE_MASK >> 24) and N (_PGSTE_GPS_NODAT >> 24).
USAGE_MASK: Final = 0x03
NODAT_MASK: Final = 0x40
FULL_MASK: Final = USAGE_MASK | NODAT_MASK
#: Every mask a VMM's SET may carry: every bit, the usage alone (its two bits together: half a
#: usage code mixes two states' codes), N alone, none.
SET_MASKS: Final = (FULL_MASK, USAGE_MASK, NODAT_MASK, 0)
#: The spec's MCSetMasks: every bit, the usage alone, none.
MODEL_SET_MASKS: Final = (FULL_MASK, USAGE_MASK, 0)


def mask_selects_usage(m: int) -> bool:
    """Spec: MaskSelectsUsage(m)."""
    return m % NODAT_MASK == USAGE_MASK


def mask_selects_nodat(m: int) -> bool:
    """Spec: MaskSelectsNoDat(m)."""
    return m >= NODAT_MASK


class Attr(NamedTuple):
    """A page's usage and N as a GET or a Peek reports them (the spec's [u |-> .., n |-> ..])."""

    u: str
    n: bool


class Answer(NamedTuple):
    """What a Get or a Peek answered (the spec's ``answer``): start_gfn, the values, remaining."""

    op: str
    start: int
    values: tuple[Attr, ...]
    remaining: int


NO_ANSWER: Final = Answer("None", 0, (), 0)


class Layout(NamedTuple):
    """Where the pages sit: ``gfns[p]`` is page p's guest frame (increasing), ``slot_of[p]`` its
    memslot; ``at_start`` the memslots present at boot; ``max_bit_distance`` the kernel's
    KVM_S390_MAX_BIT_DISTANCE; ``max_count`` the largest count the graph's requests ask for;
    ``set_masks`` the masks the graph's switches carry (the spec's SetMasks)."""

    gfns: tuple[int, ...]
    slot_of: tuple[int, ...]
    at_start: frozenset[int]
    max_bit_distance: int = KERNEL_MAX_BIT_DISTANCE
    max_count: int = 3
    slot_delete_fix: bool = True
    set_masks: tuple[int, ...] = (FULL_MASK,)

    @property
    def slots(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.slot_of)))

    @classmethod
    def of_slots(cls, sizes: Sequence[tuple[int, int]], **kw: object) -> Layout:
        """Memslots of (base gfn, pages), numbered 0, 1 ...; all present at boot."""
        gfns: list[int] = []
        slot_of: list[int] = []
        for s, (base, n) in enumerate(sizes):
            gfns += range(base, base + n)
            slot_of += [s] * n
        return cls(tuple(gfns), tuple(slot_of), frozenset(range(len(sizes))), **kw)  # type: ignore[arg-type]


class VMMState(NamedTuple):
    """A state of spec/ESSAMigrationVMM.tla. Hashable, immutable."""

    mig: MigrationState
    slot: tuple[str, ...]  # by memslot, in Layout.slots order
    logging: tuple[bool, ...]
    dirtyCount: int  # noqa: N815 - the spec's name
    usesCmm: bool  # noqa: N815 - the spec's name
    answer: Answer
    stopped: bool


def init(profile: EssaProfile, layout: Layout) -> VMMState:
    """Spec: VMMInit."""
    slots = layout.slots
    return VMMState(migration_init(profile),
                    tuple("Present" if s in layout.at_start else "Absent" for s in slots),
                    (True,) * len(slots), 0, True, NO_ANSWER, False)  # fmt: skip


class _View:
    """The spec's derived operators over one state and layout."""

    def __init__(self, layout: Layout, s: VMMState) -> None:
        self.layout = layout
        self.s = s
        index = {sl: i for i, sl in enumerate(layout.slots)}
        self.in_slot = tuple(s.slot[index[sl]] == "Present" for sl in layout.slot_of)
        self.page_at = {g: p for p, g in enumerate(layout.gfns)}
        backed = [g for p, g in enumerate(layout.gfns) if self.in_slot[p]]
        self.mem_end = max(backed) + 1 if backed else 0

    def backed(self, g: int) -> bool:
        p = self.page_at.get(g)
        return p is not None and self.in_slot[p]

    def next_dirty(self, d: Sequence[bool], cur: int) -> int:
        """Spec: NextDirty(d, cur) (kvm_s390_next_dirty_cmma)."""
        start = 0 if cur >= self.mem_end else cur
        for p, g in enumerate(self.layout.gfns):
            if g >= start and self.in_slot[p] and d[p]:
                return g
        return self.mem_end

    def attr(self, p: int) -> Attr:
        pg = self.s.mig.essa.pages[p]
        return Attr(pg.usage, pg.nodat)


class Hooks(NamedTuple):
    """The spec's hooks (a twin of model/MCESSAMigration_Twins.tla replaces one)."""

    get_lowers: Callable[[bool], int] = lambda was: 1 if was else 0
    peek_stride: int = 1
    start_marks: Callable[[VMMState], bool] = lambda s: True
    set_sets_uses_cmm: bool = True
    set_mask: Callable[[int], int] = lambda m: m


HOOKS: Final = Hooks()


def _rec(s: VMMState, op: str, outcome: str = "Done") -> EssaState:
    return s.mig.essa._replace(lastOp=_record(op, NO_PAGE, outcome))


def refuse(s: VMMState, op: str, reason: str) -> tuple[VMMState, str]:
    """Spec: RefuseVMM(op): nothing changes but the record."""
    return s._replace(mig=s.mig._replace(essa=_rec(s, op, "Refused")), answer=NO_ANSWER), reason


def migration_start(layout: Layout, s: VMMState, hooks: Hooks = HOOKS) -> VMMState | Refused | tuple[VMMState, str]:
    """Spec: VMMStart."""
    if s.mig.migrating:
        return Refused("MigrationStart", NO_PAGE, -1, "migration mode is on")
    if "Present" not in s.slot:  # unreachable in the spec, which keeps a memslot
        return refuse(s, "MigrationStart", "no memslot (EINVAL)")
    if not all(lg for st, lg in zip(s.slot, s.logging) if st == "Present"):
        return refuse(s, "MigrationStart", "a memslot does not log dirty pages (EINVAL)")
    v = _View(layout, s)
    marks = hooks.start_marks(s)
    dirty = v.in_slot if marks else s.mig.cmmaDirty
    count = sum(v.in_slot) if marks else s.dirtyCount
    mig = s.mig._replace(essa=_rec(s, "MigrationStart"), migrating=True, cmmaDirty=tuple(dirty))
    return s._replace(mig=mig, dirtyCount=count, answer=NO_ANSWER)


def migration_stop(s: VMMState) -> VMMState | Refused:
    """Spec: VMMStop."""
    if not s.mig.migrating:
        return Refused("MigrationStop", NO_PAGE, -1, "migration mode is off")
    mig = s.mig._replace(essa=_rec(s, "MigrationStop"), migrating=False)
    return s._replace(mig=mig, stopped=True, answer=NO_ANSWER)


def get(layout: Layout, s: VMMState, start: int, count: int,
        hooks: Hooks = HOOKS) -> VMMState | tuple[VMMState, str]:  # fmt: skip
    """Spec: Get(start, count) (kvm_s390_get_cmma_bits without PEEK, kvm_s390_get_cmma)."""
    if not s.mig.migrating:
        return refuse(s, "Get", "migration mode is off (EINVAL)")
    v = _View(layout, s)
    mig = s.mig._replace(essa=_rec(s, "Get"))
    if not s.usesCmm or s.dirtyCount == 0:
        return s._replace(mig=mig, answer=Answer("Get", 0, (), 0))
    d = list(s.mig.cmmaDirty)
    first = v.next_dirty(d, start)
    if not v.backed(first):
        return s._replace(mig=mig, answer=Answer("Get", first, (), s.dirtyCount))
    n = s.dirtyCount
    values: list[Attr] = []
    sent: list[int] = []
    cur, nxt = first, v.next_dirty(d, first + 1)
    while True:
        p = v.page_at[cur]
        was = d[p]
        d[p] = False
        n -= hooks.get_lowers(was)
        values.append(v.attr(p))
        sent.append(p)
        if len(values) >= count or nxt > cur + layout.max_bit_distance:
            break
        if cur == nxt:
            nxt = v.next_dirty(d, cur + 1)
        if nxt >= v.mem_end or nxt < first or nxt - first >= count or not v.backed(cur + 1):
            break
        cur += 1
    usage = list(s.mig.sentUsage)
    nodat = list(s.mig.sentNoDat)
    for p in sent:
        usage[p], nodat[p] = v.attr(p)
    mig = mig._replace(cmmaDirty=tuple(d), sentUsage=tuple(usage), sentNoDat=tuple(nodat))
    return s._replace(mig=mig, dirtyCount=n, answer=Answer("Get", first, tuple(values), n))


def peek(layout: Layout, s: VMMState, start: int, count: int,
         hooks: Hooks = HOOKS) -> VMMState | tuple[VMMState, str]:  # fmt: skip
    """Spec: Peek(start, count) (KVM_S390_CMMA_PEEK, kvm_s390_peek_cmma)."""
    v = _View(layout, s)
    if s.usesCmm and not v.backed(start):
        return refuse(s, "Peek", "no memslot at start_gfn (EFAULT)")
    mig = s.mig._replace(essa=_rec(s, "Peek"))
    if not s.usesCmm:
        return s._replace(mig=mig, answer=Answer("Peek", 0, (), 0))
    values: list[Attr] = []
    while len(values) < count and v.backed(start + len(values) * hooks.peek_stride):
        values.append(v.attr(v.page_at[start + len(values) * hooks.peek_stride]))
    rem = s.dirtyCount if s.mig.migrating else 0
    return s._replace(mig=mig, answer=Answer("Peek", start, tuple(values), rem))


def _slot_index(layout: Layout, slot: int) -> int:
    return layout.slots.index(slot)


def slot_create(layout: Layout, s: VMMState, slot: int, log: bool) -> VMMState | Refused:
    """Spec: SlotCreate(s, log)."""
    i = _slot_index(layout, slot)
    if s.slot[i] != "Absent":
        return Refused("SlotCreate", NO_PAGE, -1, "the memslot exists or was deleted")
    stop = s.mig.migrating and not log
    mig = s.mig._replace(essa=_rec(s, "SlotCreateLogging" if log else "SlotCreate"),
                         migrating=s.mig.migrating and log)  # fmt: skip
    return s._replace(mig=mig, slot=_set(s.slot, i, "Present"), logging=_set(s.logging, i, log),
                      stopped=s.stopped or stop, answer=NO_ANSWER)  # fmt: skip


def slot_logging(layout: Layout, s: VMMState, slot: int, log: bool) -> VMMState | Refused:
    """Spec: SlotLogging(s, log)."""
    i = _slot_index(layout, slot)
    if s.slot[i] != "Present" or s.logging[i] == log:
        return Refused("SlotLogging", NO_PAGE, -1, "no such memslot, or its logging is already so")
    stop = s.mig.migrating and not log
    mig = s.mig._replace(essa=_rec(s, "SlotLoggingOn" if log else "SlotLoggingOff"),
                         migrating=s.mig.migrating and log)  # fmt: skip
    return s._replace(mig=mig, logging=_set(s.logging, i, log), stopped=s.stopped or stop,
                      answer=NO_ANSWER)  # fmt: skip


def slot_delete(layout: Layout, s: VMMState, slot: int) -> VMMState | Refused:
    """Spec: SlotDelete(s)."""
    i = _slot_index(layout, slot)
    if s.slot[i] != "Present" or sum(st == "Present" for st in s.slot) < 2:
        return Refused("SlotDelete", NO_PAGE, -1, "no such memslot, or the last one")
    mine = [sl == slot for sl in layout.slot_of]
    d = s.mig.cmmaDirty
    gone = sum(1 for m, x in zip(mine, d) if m and x)
    count = s.dirtyCount - gone if layout.slot_delete_fix else s.dirtyCount
    mig = s.mig._replace(essa=_rec(s, "SlotDelete"),
                         cmmaDirty=tuple(x and not m for m, x in zip(mine, d)))  # fmt: skip
    return s._replace(mig=mig, slot=_set(s.slot, i, "Deleted"), dirtyCount=count, answer=NO_ANSWER)


def migration_switch(profile: EssaProfile, layout: Layout, s: VMMState,
                     hooks: Hooks = HOOKS, mask: int = FULL_MASK) -> VMMState | Refused:  # fmt: skip
    """Spec: VMMSwitch(mask): the destination, every PGSTE S without N, takes the bits of the
    values sent that the SET's mask selects."""
    if not (s.mig.migrating and s.answer.op == "Get" and s.answer.remaining == 0):
        return Refused("Migrate", NO_PAGE, -1, "the final GET has not answered remaining 0")
    v = _View(layout, s)
    moved = migrate(profile, s.mig.essa._replace(migrated=False), NO_PAGE, -1)
    assert not isinstance(moved, Refused)
    m = hooks.set_mask(mask)
    takes_u, takes_n = mask_selects_usage(m), mask_selects_nodat(m)
    pages = tuple(pg._replace(usage=s.mig.sentUsage[p] if takes_u else "S",
                              nodat=takes_n and s.mig.sentNoDat[p])
                  if v.in_slot[p] else pg._replace(usage=s.mig.essa.pages[p].usage,
                                                   nodat=s.mig.essa.pages[p].nodat)
                  for p, pg in enumerate(moved.pages))  # fmt: skip
    e = moved._replace(pages=pages, lastOp=moved.lastOp._replace(value=mask))
    n = len(pages)
    mig = MigrationState(e, False, (False,) * n, ("S",) * n, (False,) * n)
    return s._replace(mig=mig, dirtyCount=0, usesCmm=hooks.set_sets_uses_cmm, stopped=False,
                      answer=NO_ANSWER)  # fmt: skip


def guest_step(layout: Layout, s: VMMState, t: EssaState) -> VMMState | None:
    """Spec: GuestStep(A) for the step of ESSA.tla to ``t``; None when its page is outside the
    memslots."""
    v = _View(layout, s)
    p = t.lastOp.page
    if p != NO_PAGE and not v.in_slot[p]:
        return None
    d, n = s.mig.cmmaDirty, s.dirtyCount
    if s.mig.migrating and dirty_mark(t) and not d[p]:
        d, n = _set(d, p, True), n + 1
    lo = t.lastOp
    intercepted = 0 <= lo.orc <= 7 and lo.outcome == "Done" and lo.page != NO_PAGE
    return s._replace(mig=s.mig._replace(essa=t, cmmaDirty=d), dirtyCount=n,
                      usesCmm=s.usesCmm or (not s.mig.migrating and intercepted),
                      answer=NO_ANSWER)  # fmt: skip


def _set(t: tuple, i: int, v: object) -> tuple:  # type: ignore[type-arg]
    return t[:i] + (v,) + t[i + 1:]


def _ok(r: object) -> VMMState | None:
    if isinstance(r, Refused):
        return None
    return r[0] if isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], str) else r  # type: ignore[return-value]


def next_steps(profile: EssaProfile, layout: Layout, s: VMMState, hooks: Hooks = HOOKS,
               slot_changes: bool = False) -> Iterator[tuple[str, VMMState]]:  # fmt: skip
    """Spec: model/MCESSAMigrationVMM.tla's VMMRoundsNext (with ``slot_changes`` VMMNext) and
    its guest VMMGuestNext (ORC 1 and 2 on every page, CBRL processing), labelled as TLC labels
    them."""
    for label, r in (("VMMStart", migration_start(layout, s, hooks)), ("VMMStop", migration_stop(s)),
                     *(("VMMSwitch", migration_switch(profile, layout, s, hooks, m))
                       for m in layout.set_masks)):  # fmt: skip
        t = _ok(r)
        if t is not None:
            yield label, t
    for g in range(len(layout.gfns) + 1):
        for c in range(1, layout.max_count + 1):
            yield "Get", _ok(get(layout, s, g, c, hooks))  # type: ignore[misc]
            yield "Peek", _ok(peek(layout, s, g, c, hooks))  # type: ignore[misc]
    for sl in layout.slots:
        for label, r in (("SlotDelete", slot_delete(layout, s, sl)),
                         *(("SlotCreate", slot_create(layout, s, sl, log))
                           for log in (False, True) if slot_changes),
                         *(("SlotLogging", slot_logging(layout, s, sl, log))
                           for log in (False, True) if slot_changes)):  # fmt: skip
            t = _ok(r)
            if t is not None:
                yield label, t
    e = s.mig.essa
    essa_steps: list[EssaState] = []
    if e.cbrl:
        for target in zap_targets(profile, e.cbrl[0]):
            essa_steps.append(host_process_cbrl(profile, e, NO_PAGE, -1, target))  # type: ignore[arg-type]
    for p in range(profile.pages):
        essa_steps += [guest_alloc(profile, e, p, -1), guest_free(profile, e, p, -1)]  # type: ignore[list-item]
    for step in essa_steps:
        if not isinstance(step, Refused):
            u = guest_step(layout, s, step)
            if u is not None:
                yield "GuestStep", u


class VMMStateReader(MigrationStateReader):
    """States of spec/ESSAMigrationVMM.tla as TLC prints them."""

    variables = MigrationStateReader.variables | {"slot", "logging", "dirtyCount", "usesCmm",
                                                  "answer", "stopped"}  # fmt: skip

    def state(self, text: str) -> VMMState:  # type: ignore[override]
        from tlcrunner.tlavalues import parse_value

        parts = self.variables_of(text)
        mig = MigrationStateReader.state(self, text)
        # TLC's values, of the shapes ESSAMigrationVMM's TypeOK gives them
        slot: Any = parse_value(parts["slot"])
        logging: Any = parse_value(parts["logging"])
        ans: Any = parse_value(parts["answer"])
        dirty: Any = parse_value(parts["dirtyCount"])
        uses: Any = parse_value(parts["usesCmm"])
        stopped: Any = parse_value(parts["stopped"])
        keys = sorted(slot)
        values = tuple(Attr(v["u"], v["n"]) for v in ans["values"])
        return VMMState(mig, tuple(slot[k] for k in keys), tuple(logging[k] for k in keys),
                        dirty, uses, Answer(ans["op"], ans["start"], values, ans["remaining"]),
                        stopped)  # fmt: skip


def show(s: VMMState) -> str:
    slots = " ".join(f"{st[0]}{'l' if lg else ''}" for st, lg in zip(s.slot, s.logging))
    ans = "" if s.answer.op == "None" else (
        f" answer {s.answer.op} start {s.answer.start} "
        f"{''.join(a.u + ('N' if a.n else '') for a in s.answer.values) or '-'} "
        f"remaining {s.answer.remaining}")  # fmt: skip
    return (f"{show_migration(s.mig)} slots {slots} count {s.dirtyCount}"
            f"{'' if s.usesCmm else ' no-cmm'}{' stopped' if s.stopped else ''}{ans}")  # fmt: skip


def _edge(label: str, t: VMMState) -> str:
    return f"{show_last_op(t.mig.essa.lastOp)} (action {label}), to {show(t)}"


def _row(s: VMMState) -> str:
    return f"{show_last_op(s.mig.essa.lastOp):<48} {show(s)}"


#: The layout of model/MCESSAMigrationVMM.tla: pages p1, p2 (, p3) at gfns 0, 1 (, 2); p1 in
#: memslot s1, the rest in s2.
def model_layout(pages: int, **kw: object) -> Layout:
    return Layout(tuple(range(pages)), tuple(0 if p == 0 else 1 for p in range(pages)),
                  frozenset({0, 1}), **kw)  # type: ignore[arg-type]


def _model(layout: Layout, hooks: Hooks) -> GraphModel[EssaProfile, VMMState]:
    def steps(profile: EssaProfile, s: VMMState) -> Iterator[tuple[str, VMMState]]:
        return ((lbl, t) for lbl, t in next_steps(profile, layout, s, hooks) if t is not None)

    def successors(profile: EssaProfile) -> Successors[VMMState]:
        return functools.partial(steps, profile)

    return GraphModel("VMMRoundsSpec", None, successors)


def package(layout: Layout, hooks: Hooks = HOOKS) -> MachinePackage[EssaProfile, VMMState]:
    """The VMM machine over ``layout`` (model/MCESSAMigrationVMM.tla's VMMRoundsSpec: every
    request but the creation of memslots and the change of their logging, which
    :func:`next_steps` also takes and the model's layouts never enable)."""
    return MachinePackage[EssaProfile, VMMState](
        name="ESSAMigrationVMM", spec_module="ESSAMigrationVMM", graph_module="MCEssaMigrationVMMGraph",
        constants=CONSTANTS, profile_type=EssaProfile, init=lambda profile: init(profile, layout),
        graph_models={"Spec": _model(layout, hooks)}, reader=VMMStateReader,
        show=Presenter(show, _edge, _row), properties=PropertySet[EssaProfile, VMMState]({}, {}),
    )  # fmt: skip
