"""kernel-check's VMM pass: CMMA migration as a VMM drives it (spec/ESSAMigrationVMM.tla), through
the kernel's own code, in lockstep with its reference implementation (refimpl/essa/vmm.py).

The classic harness (MIG 2 of its line protocol) runs kvm-s390.c's kvm_s390_vm_start_migration,
kvm_s390_vm_stop_migration, kvm_s390_get_cmma_bits with and without KVM_S390_CMMA_PEEK
(kvm_s390_peek_cmma, kvm_s390_get_cmma, kvm_s390_next_dirty_cmma), kvm_s390_set_cmma_bits on the
destination with the switch's mask (QEMU's every bit, or the usage alone, N alone, none) and the
memslot hooks kvm_arch_prepare_memory_region and
kvm_arch_commit_memory_region; the guest's ESSAs are handle_essa's. Every request goes to the
harness and to the reference; each reply is compared with the reference's state after it: the
outcome, the answer of a GET or a peek (start, values, remaining), migration mode, and each page
of a present memslot (usage, residency, swap, Z, N, and its CMMA-dirty bit in migration mode).

Three sources of requests, each from a reset:

* :data:`SCRIPTS`, a VMM's sessions as QEMU's storage-attribute device drives them
  (hw/s390x/s390-stattrib-kvm.c): rounds of GETs until ``remaining`` is 0, a stop and a
  restart, the switch, a second migration from the destination, peeks, a memslot deleted or
  created during migration, switches whose SET takes some of the bits;
* the kernel selftest's page-level tests (:mod:`conformance.essa_migration.cmma_selftest`) at
  :data:`SELFTEST_SIZES` (384 pages; TEST_DATA of 256);
* :data:`WALKS` seeded random walks of :data:`WALK_STEPS` requests over every request the
  reference enables in the VMM layout (:data:`LAYOUT`: two memslots on segments, three pages and
  one).

The reference's SlotDeleteFix (a deleted memslot's dirty pages leave the count) is what the spec
asks; Linux 6.12 keeps them (docs/findings.md F12). The pass first replays F12's witness and
takes the reference the kernel follows, and says which.

This is the direct drive of the kernel against the oracle; the ESSAMigrationVMM mode of the
conformance driver (PROTOCOL.md) speaks the same requests through :mod:`.engine`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Final, NamedTuple

from conformance.essa import EssaProfileRequest
from conformance.essa_migration.cmma_selftest import (
    SCENARIOS, Sizes, ReferenceVM,
)  # fmt: skip
from conformance.essa_migration.mode import cmma_value
from refimpl.core.package import Refused
from refimpl.essa import EssaProfile, vmm
from refimpl.essa.machine import essa as essa_step
from refimpl.essa.machine import guest_alloc, guest_free, host_process_cbrl
from refimpl.essa.profile import NO_PAGE
from refimpl.essa.rules import zap_targets
from refimpl.essa.vmm import FULL_MASK, NODAT_MASK, SET_MASKS, USAGE_MASK, Answer, Layout, VMMState

from .blame import Call, blame, bodies, changed_state, look_back
from .engine import KernelEssaEngine
from .kernels import HARNESSES, Built

#: The kernel functions a request of the pass entered, gathered as each harness closes
#: (harness_trace.h); :func:`check_vmm` reports them in its :class:`Result`.
ENTERED: Final[set[str]] = set()

#: The mode's name (the hello's MIG 2 on the classic harness).
VMM_MACHINE: Final = "ESSAMigrationVMM"


class Slot(NamedTuple):
    base: int
    pages: int
    at_boot: int  # 0 absent, 1 present, 2 present with dirty logging


#: The walks' layout: memslot 0 of three pages at gfn 0, memslot 1 of one page at gfn 256 (KVM
#: maps a memslot by segments, 256 pages).
LAYOUT: Final = (Slot(0, 3, 2), Slot(256, 1, 2))
#: The same with memslot 1 not there at boot (a VMM creates it).
LAYOUT_LATE: Final = (Slot(0, 3, 2), Slot(256, 1, 0))
#: One memslot of 64 pages: room for a clean gap longer than KVM_S390_MAX_BIT_DISTANCE.
LAYOUT_WIDE: Final = (Slot(0, 64, 2),)
#: The selftest's memslots at the harness's size (MAIN 64, TEST_DATA 256, TEST_DATA_TWO 64).
SELFTEST_SIZES: Final = Sizes(main=64, test_data=256, test_data_two=64)
WALKS: Final = 40
WALK_STEPS: Final = 40
SEED: Final = 0


def profile_of(pages: int) -> EssaProfile:
    return EssaProfile("KVMClassic", storage_keys=False, facility147=True, cbrl_size=1,
                       pages=pages, bugs=frozenset())  # fmt: skip


def layout_of(slots: Sequence[Slot], fix: bool) -> Layout:
    gfns: list[int] = []
    slot_of: list[int] = []
    for i, s in enumerate(slots):
        gfns += range(s.base, s.base + s.pages)
        slot_of += [i] * s.pages
    return Layout(tuple(gfns), tuple(slot_of), frozenset(i for i, s in enumerate(slots) if s.at_boot),
                  slot_delete_fix=fix)  # fmt: skip


#: The fields of a page :class:`Observed` compares, in its order (the spec's names; by these names
#: blame.FIELD_MARKS finds their writers).
PAGE_FIELDS: Final = ("usage", "valid", "swapped", "zbit", "nodat", "cmmaDirty")


class Observed(NamedTuple):
    """What the pass compares of one reply."""

    outcome: str
    migrating: bool
    pages: tuple[tuple[object, ...], ...]  # per page of a present memslot
    answer: tuple[int, tuple[int, ...], int] | None  # start, values, remaining

    def differs(self, other: Observed) -> list[str]:
        out = [f for f in ("outcome", "migrating", "answer") if getattr(self, f) != getattr(other, f)]
        for i, (a, b) in enumerate(zip(self.pages, other.pages)):
            out += [f"pages[{i}].{name}" for name, x, y in zip(PAGE_FIELDS, a, b) if x != y]
        return out



def wrong_fields(want: Observed, seen: Observed) -> list[tuple[str, str, str]]:
    """Each field of a reply that differs, as (name, the kernel's, the spec's): the blame's
    fields (an answer's start, values and remaining; a page's own fields)."""
    out = [(f, str(getattr(seen, f)), str(getattr(want, f))) for f in ("outcome", "migrating")
           if getattr(want, f) != getattr(seen, f)]  # fmt: skip
    if want.answer != seen.answer:
        if want.answer is None or seen.answer is None:
            out.append(("value", str(seen.answer), str(want.answer)))
        else:
            out += [(name, str(b), str(a)) for name, a, b in
                    zip(("start", "value", "remaining"), want.answer, seen.answer) if a != b]  # fmt: skip
    for i, (a, b) in enumerate(zip(want.pages, seen.pages)):
        out += [(f"pages[{i}].{name}", str(y), str(x)) for name, x, y in zip(PAGE_FIELDS, a, b) if x != y]
    return out


def calls_in(lines: Sequence[str]) -> list[Call]:
    """The call tree of the harness's ``explain`` lines (``call DEPTH CHANGED NAME``)."""
    out: list[Call] = []
    for ln in lines:
        if ln.startswith("call "):
            _, depth, changed, name = ln.split()
            out.append((int(depth), changed == "1", name))
    return out


@dataclass
class Divergence:
    where: str
    requests: list[str]
    expected: Observed
    observed: Observed
    kernel: list[str] = field(default_factory=list)
    #: The kernel function that owns a wrong field (blame.py), or "set by X at step k" when an
    #: earlier request's did; "" when no writer ran. ``why``: in words.
    blame: str = ""
    why: str = ""

    def functions(self) -> list[str]:
        """The kernel functions the request called first (harness_trace.h's depth 0) that
        changed state, or all it called first where none did, in the order called."""
        calls = [c for c in (ln.split() for ln in self.kernel if ln.startswith("call 0 ")) if len(c) == 4]
        changed = [c[3] for c in calls if c[2] == "1"]
        return list(dict.fromkeys(changed or [c[3] for c in calls]))

    def headline(self) -> str:
        differ = f"{self.requests[-1]}: {', '.join(self.expected.differs(self.observed))} differ"
        if self.blame:  # the owner of the wrong field, last, as regressions.blamed reads it
            return f"{differ} ({self.where}) ({self.blame})"
        fns = self.functions()
        inside = f" in {', '.join(fns[:2])}" if fns else ""
        return f"{differ}{inside} ({self.where})"


class Lockstep:
    """One harness and the reference, driven request by request from a reset."""

    def __init__(self, built: Built, slots: Sequence[Slot], fix: bool) -> None:
        self.slots = tuple(slots)
        self.layout = layout_of(slots, fix)
        self.profile = profile_of(len(self.layout.gfns))
        self.engine = KernelEssaEngine("classic", memo=False)
        self.engine.built = built
        self.engine.machine = VMM_MACHINE
        self.engine.hello(EssaProfileRequest.of(self.profile))
        line = "layout " + " ".join([f"{len(slots)}", *(f"{s.base} {s.pages} {s.at_boot}" for s in slots)])
        if self.engine._send(line).strip() != "ok":
            raise RuntimeError(f"the harness refused {line!r}")
        self.steps = 0
        self.reset()

    def reset(self) -> None:
        self.engine._send("reset")
        self.s = vmm.init(self.profile, self.layout)
        self.requests: list[str] = []
        self.lines: list[str] = []  # the harness's lines since the reset
        self.states: list[VMMState] = []  # the reference's state after each of them

    def close(self) -> None:
        self.engine.close()
        ENTERED.update(self.engine.entered)

    # ---------------------------------------------------------------- the reference's side

    def _present(self, s: VMMState) -> list[bool]:
        index = {sl: i for i, sl in enumerate(self.layout.slots)}
        return [s.slot[index[sl]] == "Present" for sl in self.layout.slot_of]

    def expected(self, s: VMMState, outcome: str, answer: bool) -> Observed:
        present = self._present(s)
        pages = tuple((pg.usage, pg.valid, pg.swapped, pg.zbit, pg.nodat,
                       s.mig.cmmaDirty[p] if s.mig.migrating else None)
                      for p, pg in enumerate(s.mig.essa.pages) if present[p])  # fmt: skip
        a = s.answer
        ans = (a.start, tuple(cmma_value(v.u, v.n) for v in a.values), a.remaining) if answer else None
        return Observed(outcome, s.mig.migrating, pages, ans)

    # ---------------------------------------------------------------- the kernel's side

    def observed(self, line: str, answer: bool, s: VMMState) -> Observed:
        """The harness's reply, over the memslots present in the reference's ``s``."""
        head, _, tail = line.partition(" | ")
        fields = head.split()
        extra = tail.split()
        migrating = extra[0] == "1"
        present = self._present(s)
        pages = []
        for p, f in enumerate(fields[3:]):
            if not present[p]:
                continue
            bits = [c == "1" for c in f[1:6]]
            pages.append((f[0], bits[0], bits[1], bits[2], bits[3], (f[-1] == "1") if migrating else None))
        ans = None
        if answer and len(extra) >= 5:
            ans = (int(extra[2]), tuple(int(v) for v in extra[5:]), int(extra[4]))
            if int(extra[3]) != len(ans[1]):
                ans = (ans[0], ans[1], -1)
        outcome = "Refused" if fields[0] == "Refused" else fields[0]
        return Observed(outcome, migrating, tuple(pages), ans)

    # ---------------------------------------------------------------- a step

    def step(self, label: str, line: str, result: object, answer: bool = False) -> Divergence | None:
        """``line`` to the harness; ``result`` is the reference's (a state, a refusal with its
        state, or an ESSA step's state already wrapped)."""
        if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], str):
            t, outcome = result[0], "Refused"
        else:
            t, outcome = result, "Done"
        if not isinstance(t, VMMState):
            raise RuntimeError(f"the reference does not enable {label} here: {t}")
        self.requests.append(label)
        self.lines.append(line)
        got = self.engine._send(line)
        self.steps += 1
        if got.startswith("error"):
            raise RuntimeError(f"the harness answered {got.strip()!r} to {line!r}")
        want = self.expected(t, outcome, answer and outcome == "Done")
        seen = self.observed(got, answer and outcome == "Done", t)
        if line.startswith(("essa", "cbrl")):  # the guest's and host's steps: the pages
            want, seen = want._replace(outcome=""), seen._replace(outcome="")
        self.s = t
        self.states.append(t)
        if want.differs(seen):
            d = Divergence(label, list(self.requests), want, seen, self.explain())
            self.blame(d)
            return d
        return None

    def blame(self, d: Divergence) -> None:
        """``d``'s blame. A wrong ``remaining`` is ``cmma_dirty_pages``, which the harness shows
        after every step: when it already differed from the reference's count after an earlier
        step (and at every step since), the writer of that step is blamed, the count being
        hidden until a GET or a peek answers it. Else the writer of a wrong field the step ran,
        else the last writer an earlier step since the reset ran (those steps replayed on a
        fresh harness, each explained) when the step changed nothing; as it is when none ran."""
        built = self.engine.built
        if built is None:
            return
        texts, helpers = bodies(built, "classic"), HARNESSES["classic"].helpers
        values = wrong_fields(d.expected, d.observed)
        history: list[list[str]] | None = None
        if any(name == "remaining" for name, _, _ in values):
            history = self._history()
            k = self._count_drift(history)
            if k is not None:
                drifted = look_back([calls_in(history[k - 1])],
                                    [v for v in values if v[0] == "remaining"], texts, helpers)  # fmt: skip
                if drifted is not None:
                    fn = drifted[0]
                    name, kernel, spec = next(v for v in values if v[0] == "remaining")
                    d.blame = f"set by {fn} at step {k}"
                    d.why = (f"{name} is {kernel} where the spec says {spec}: cmma_dirty_pages "
                             f"differs from the spec's count from step {k} on, and {fn}, which "
                             f"writes it, ran at step {k}")  # fmt: skip
                    return
        found = blame(calls_in(d.kernel), values, texts, helpers)
        if found is not None:
            d.blame, d.why = found
            return
        if changed_state(calls_in(d.kernel), helpers):
            # the step changed the state: its own changer is the suspect, the deepest (D354)
            own = [(i, c) for i, c in enumerate(calls_in(d.kernel)) if c[1] and c[2] not in helpers]
            d.blame = max(own, key=lambda ic: (ic[1][0], ic[0]))[1][2]
            d.why = (f"no function of the step writes {', '.join(v[0] for v in values)}; "
                     f"{d.blame} changed the state deepest")  # fmt: skip
            return
        history = self._history() if history is None else history
        earlier = look_back([calls_in(h) for h in history], values, texts, helpers)
        if earlier is not None:
            fn, k, d.why = earlier
            d.blame = f"set by {fn} at step {k}"

    def _count_drift(self, history: list[list[str]]) -> int | None:
        """The earlier step after which the kernel's ``cmma_dirty_pages`` first differed from
        the reference's count and kept differing through the last earlier step (both in
        migration mode), or None."""
        first = None
        for k, (lines, t) in enumerate(zip(history, self.states), 1):
            count = next((int(m.group(2)) for ln in lines
                          if (m := re.match(r"dirty after migration_mode=(-?\d+) cmma_dirty_pages=(-?\d+)", ln))
                          and m.group(1) == "1"), None)  # fmt: skip
            if count is None or not t.mig.migrating or count == t.dirtyCount:
                first = None
            elif first is None:
                first = k
        return first

    def _history(self) -> list[list[str]]:
        """The harness's explain lines of each step since the reset but the last, replayed on a
        fresh harness."""
        assert self.engine.built is not None
        other = Lockstep(self.engine.built, self.slots, self.layout.slot_delete_fix)
        try:
            out = []
            for line in self.lines[:-1]:
                other.engine._send(line)
                out.append(other.explain())
            return out
        finally:
            other.engine.close()

    def explain(self) -> list[str]:
        assert self.engine._proc is not None and self.engine._proc.stdin
        self.engine._proc.stdin.write("explain\n")
        self.engine._proc.stdin.flush()
        lines = []
        while (ln := self.engine._readline("explain")) and ln.strip() != "end":
            lines.append(ln.rstrip("\n"))
        return lines

    # ---------------------------------------------------------------- the requests

    def start(self) -> Divergence | None:
        return self.step("MigrationStart", "migstart", vmm.migration_start(self.layout, self.s))

    def stop(self) -> Divergence | None:
        return self.step("MigrationStop", "migstop", vmm.migration_stop(self.s))

    def get(self, start: int, count: int) -> Divergence | None:
        return self.step(f"Get start {start} count {count}", f"get {start} {count}",
                         vmm.get(self.layout, self.s, start, count), answer=True)  # fmt: skip

    def peek(self, start: int, count: int) -> Divergence | None:
        return self.step(f"Peek start {start} count {count}", f"peek {start} {count}",
                         vmm.peek(self.layout, self.s, start, count), answer=True)  # fmt: skip

    def switch(self, mask: int = FULL_MASK) -> Divergence | None:
        """The switch; its SET with ``mask`` (bits of a CMMA value), QEMU's every bit by default."""
        label, line = (("Migrate (the switch)", "switch") if mask == FULL_MASK
                       else (f"Migrate (the switch, SET mask {mask:#04x})", f"switch {mask}"))  # fmt: skip
        return self.step(label, line, vmm.migration_switch(self.profile, self.layout, self.s,
                                                           mask=mask))  # fmt: skip

    def slot_delete(self, slot: int) -> Divergence | None:
        return self.step(f"SlotDelete memslot {slot}", f"slotdelete {slot}",
                         vmm.slot_delete(self.layout, self.s, slot))  # fmt: skip

    def slot_create(self, slot: int, log: bool) -> Divergence | None:
        return self.step(f"SlotCreate memslot {slot}{' logging' if log else ''}",
                         f"slotcreate {slot} {int(log)}", vmm.slot_create(self.layout, self.s, slot, log))  # fmt: skip

    def slot_logging(self, slot: int, log: bool) -> Divergence | None:
        return self.step(f"SlotLogging memslot {slot} {'on' if log else 'off'}",
                         f"slotlog {slot} {int(log)}", vmm.slot_logging(self.layout, self.s, slot, log))  # fmt: skip

    def essa(self, page: int, orc: int) -> Divergence | None:
        f = guest_alloc if orc == 1 else guest_free
        t = f(self.profile, self.s.mig.essa, page, -1)
        if isinstance(t, Refused) and self.s.mig.essa.cbrl:  # a full CBRL: the host empties it
            if (d := self.cbrl()) is not None:
                return d
            t = f(self.profile, self.s.mig.essa, page, -1)
        assert not isinstance(t, Refused), t
        u = vmm.guest_step(self.layout, self.s, t)
        assert u is not None, f"page {page} is outside the memslots"
        return self.step(f"ESSA ORC {orc} page {page}", f"essa {page} {orc} 0", u)

    def _essa_any(self, page: int, orc: int) -> VMMState | None:
        """The reference's ESSA with ``orc`` on ``page`` (ESSA.tla's host view: any ORC the
        guest may issue), None where it is refused or the page is outside the memslots."""
        r = essa_step(self.profile, self.s.mig.essa, orc, page)
        return None if isinstance(r, Refused) else vmm.guest_step(self.layout, self.s, r[0])

    def essa_orc(self, page: int, orc: int) -> Divergence | None:
        u = self._essa_any(page, orc)
        if u is None and self.s.mig.essa.cbrl:  # a full CBRL: the host empties it
            if (d := self.cbrl()) is not None:
                return d
            u = self._essa_any(page, orc)
        assert u is not None, f"ESSA ORC {orc} page {page} is not enabled"
        return self.step(f"ESSA ORC {orc} page {page}", f"essa {page} {orc} 0", u)

    def _cbrl(self) -> VMMState | None:
        """The reference's HostProcessCBRL, None where it does not enable it (the entry's page
        is outside the memslots)."""
        e = self.s.mig.essa
        if not e.cbrl:
            return None
        t = host_process_cbrl(self.profile, e, NO_PAGE, -1, zap_targets(self.profile, e.cbrl[0])[0])
        return None if isinstance(t, Refused) else vmm.guest_step(self.layout, self.s, t)

    def cbrl(self) -> Divergence | None:
        u = self._cbrl()
        assert u is not None
        return self.step("HostProcessCBRL", "cbrl", u)

    def enabled(self) -> Iterator[tuple[str, Callable[[], Divergence | None]]]:
        """Every request the reference enables now (a refusal the spec states is enabled)."""
        s, lay = self.s, self.layout
        if not isinstance(vmm.migration_start(lay, s), Refused):
            yield "start", self.start
        if not isinstance(vmm.migration_stop(s), Refused):
            yield "stop", self.stop
        if not isinstance(vmm.migration_switch(self.profile, lay, s), Refused):
            for mask in SET_MASKS:
                yield "switch", partial(self.switch, mask)
        starts = sorted({*lay.gfns, lay.gfns[-1] + 1})
        for g in starts:
            for c in (1, 2, 3):
                yield "get", partial(self.get, g, c)
                yield "peek", partial(self.peek, g, c)
        for sl in lay.slots:
            if not isinstance(vmm.slot_delete(lay, s, sl), Refused):
                yield "delete", partial(self.slot_delete, sl)
            for log in (False, True):
                if not isinstance(vmm.slot_create(lay, s, sl, log), Refused):
                    yield "create", partial(self.slot_create, sl, log)
                if not isinstance(vmm.slot_logging(lay, s, sl, log), Refused):
                    yield "logging", partial(self.slot_logging, sl, log)
        present = self._present(s)
        for p in range(len(lay.gfns)):
            for orc, f in ((1, guest_alloc), (2, guest_free)):
                if present[p] and not isinstance(f(self.profile, s.mig.essa, p, -1), Refused):
                    yield "essa", partial(self.essa, p, orc)
            for orc in (3, 7):  # volatile, stable without DAT (the value's N)
                if present[p] and self._essa_any(p, orc) is not None:
                    yield "essa", partial(self.essa_orc, p, orc)
        if self._cbrl() is not None:
            yield "cbrl", self.cbrl


# -------------------------------------------------------------------- a VMM's sessions


def _final_pass(m: Lockstep, count: int = 3) -> Divergence | None:
    """QEMU's rounds: GETs from the frame after the last batch until remaining is 0."""
    start = 0
    for _ in range(4 * len(m.layout.gfns) + 4):
        if (d := m.get(start, count)) is not None:
            return d
        a = m.s.answer
        if a.remaining == 0 and a.op == "Get":
            return None
        start = a.start + max(len(a.values), 1)
    return None


def _qemu_session(m: Lockstep) -> Iterator[Divergence | None]:
    """Start, a peek, rounds of GETs with ESSAs between them, a stop and a restart, the final
    pass, the switch, and a second migration from the destination before its guest issues an
    ESSA (kvm_s390_set_cmma_bits sets uses_cmm)."""
    yield m.essa(1, 2)
    yield m.essa_orc(2, 7)
    yield m.start()
    yield m.peek(0, 3)
    yield m.get(0, 1)
    yield m.essa(0, 2)
    yield m.stop()
    yield m.start()
    yield _final_pass(m)
    yield m.switch()
    yield m.peek(0, 3)
    yield m.start()
    yield _final_pass(m)


def _clean_between(m: Lockstep) -> Iterator[Divergence | None]:
    """A clean page inside a short gap between two dirty ones (kvm_s390_get_cmma sends it and
    lowers the count only for the dirty ones)."""
    yield m.start()
    yield m.get(1, 1)
    yield m.get(0, 3)
    yield _final_pass(m)
    yield m.switch()


def _peek_pages(m: Lockstep) -> Iterator[Divergence | None]:
    """A peek of pages of different values, outside and in migration mode."""
    yield m.essa(1, 2)
    yield m.essa_orc(0, 7)
    yield m.peek(0, 3)
    yield m.start()
    yield m.peek(1, 2)
    yield m.peek(256, 1)


def _slot_created(m: Lockstep) -> Iterator[Divergence | None]:
    """A memslot created during migration, with logging (migration goes on, its pages clean)
    and without (migration stops); memslot 1 is not there at boot (:data:`LAYOUT_LATE`)."""
    yield m.start()
    yield m.slot_create(1, True)
    yield m.get(0, 3)
    yield _final_pass(m)
    yield m.slot_logging(1, False)
    yield m.start()


def _end_of_memory(m: Lockstep) -> Iterator[Divergence | None]:
    """The last dirty page before the end of memory, clean pages after it: a GET sends no
    trailing clean values (kvm_s390_get_cmma stops when the next dirty page is the end of
    memory); memslot 1 is not there (:data:`LAYOUT_LATE`)."""
    yield m.start()
    yield m.get(1, 2)
    yield m.get(0, 4)
    yield m.get(0, 4)


def _long_gap(m: Lockstep) -> Iterator[Divergence | None]:
    """Two dirty pages 40 frames apart: a GET of the whole memslot stops after the first, the
    gap being longer than KVM_S390_MAX_BIT_DISTANCE (:data:`LAYOUT_WIDE`)."""
    yield m.start()
    yield _final_pass(m, 64)
    yield m.essa(0, 2)
    yield m.essa(40, 2)
    yield m.get(0, 64)
    yield m.get(0, 64)


def _masked_set(m: Lockstep) -> Iterator[Divergence | None]:
    """Switches whose SET takes some bits only (api.rst: "mask indicates which PGSTE bits are to
    be considered"): a page made U, one made stable without DAT; the usage alone, N alone, then
    none; the destination keeps its own S and no N for the bits left out."""
    for mask in (USAGE_MASK, NODAT_MASK, 0):
        yield m.essa(1, 2)
        yield m.essa_orc(2, 7)
        yield m.start()
        yield _final_pass(m)
        yield m.switch(mask)
        yield m.peek(0, 3)
        m.reset()


def _slot_deleted(m: Lockstep) -> Iterator[Divergence | None]:
    """F12's witness: a memslot deleted during migration while its page is dirty."""
    yield m.start()
    yield m.slot_delete(1)
    yield m.get(0, 3)


#: The VMM's sessions, by name.
SCRIPTS: Final[dict[str, Callable[[Lockstep], Iterator[Divergence | None]]]] = {
    "a QEMU migration with a stop, a restart and a second migration": _qemu_session,
    "a clean page between dirty ones": _clean_between,
    "peeks": _peek_pages,
    "a memslot created during migration": _slot_created,  # in LAYOUT_LATE
    "no trailing clean values at the end of memory": _end_of_memory,  # in LAYOUT_LATE
    "a clean gap longer than 16 pages": _long_gap,  # in LAYOUT_WIDE
    "switches whose SET takes some bits": _masked_set,
    "a memslot deleted during migration (F12)": _slot_deleted,
}


def _run(m: Lockstep, script: Iterator[Divergence | None]) -> Divergence | None:
    for d in script:
        if d is not None:
            return d
    return None


# -------------------------------------------------------------------- the selftest in lockstep


class KernelSelftestVM:
    """The selftest's VM (:class:`~conformance.essa_migration.cmma_selftest.VM`) on the kernel's
    code, each request checked against the reference first: a difference is a
    :class:`SelftestDivergence`; the scenario's own checks then see the kernel's answers."""

    def __init__(self, built: Built, with_memslots: bool, sizes: Sizes) -> None:
        self.sizes = sizes
        ref = ReferenceVM(False, sizes)
        slots = [Slot(b, n, 0) for b, n in sizes.slots()]
        self.m = Lockstep(built, slots, True)
        self.m.s = ref.s
        assert self.m.layout.gfns == ref.layout.gfns
        self.page_of = {g: p for p, g in enumerate(self.m.layout.gfns)}
        if with_memslots:
            self.create_slot(0, False)
            self.create_slot(1, False)

    def _do(self, d: Divergence | None) -> None:
        if d is not None:
            raise SelftestDivergence(d)

    def create_slot(self, slot: int, log: bool) -> None:
        self._do(self.m.slot_create(slot, log))

    def set_logging(self, slot: int, log: bool) -> None:
        self._do(self.m.slot_logging(slot, log))

    def start(self) -> str | None:
        r = vmm.migration_start(self.m.layout, self.m.s)
        self._do(self.m.start())
        return r[1] if isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], str) else None

    def migration_mode_on(self) -> bool:
        return self.m.s.mig.migrating

    def essa_stable(self, gfns: range) -> None:
        for g in gfns:
            self._do(self.m.essa(self.page_of[g], 1))

    def _answer(self, r: object, d: Divergence | None) -> Answer | str:
        self._do(d)
        if isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], str):
            return r[1]
        return self.m.s.answer

    def get(self, start: int, count: int) -> Answer | str:
        r = vmm.get(self.m.layout, self.m.s, start, count)
        return self._answer(r, self.m.get(start, count))

    def peek(self, start: int, count: int) -> Answer | str:
        r = vmm.peek(self.m.layout, self.m.s, start, count)
        return self._answer(r, self.m.peek(start, count))


class SelftestDivergence(Exception):
    def __init__(self, d: Divergence) -> None:
        super().__init__(d.headline())
        self.divergence = d


# -------------------------------------------------------------------- the pass


@dataclass
class Result:
    scripts: int = 0
    selftest: int = 0
    selftest_instances: int = 0
    walks: int = 0
    steps: int = 0
    slot_delete_fix: bool = True
    divergences: list[Divergence] = field(default_factory=list)
    #: The kernel functions a request of the pass entered (harness_trace.h).
    entered: set[str] = field(default_factory=set)

    def line(self) -> str:
        f12 = ("; a memslot deleted during migration leaves its dirty pages in remaining "
               "(docs/findings.md F12): checked against the spec with SlotDeleteFix FALSE"
               if not self.slot_delete_fix else "")  # fmt: skip
        verdict = (f"{len(self.divergences)} divergence{'s' if len(self.divergences) != 1 else ''}"
                   if self.divergences else "conforms")  # fmt: skip
        return (f"VMM (spec/ESSAMigrationVMM.tla through kvm-s390.c's migration, GET, peek, SET and "
                f"memslot code): {verdict}: {self.scripts} VMM sessions, the kernel selftest's "
                f"{self.selftest} page-level tests ({self.selftest_instances} assertion instances), "
                f"{self.walks} random walks of {WALK_STEPS} requests (seed {SEED}); {self.steps} "
                f"requests{f12}")  # fmt: skip


def check_vmm(built: Built, walks: int = WALKS, seed: int = SEED) -> Result:
    """The pass: F12's witness picks the reference, then the sessions, the selftest, the walks.
    Stops at the first divergence of each source."""
    res = Result()
    ENTERED.clear()
    probe = Lockstep(built, LAYOUT, True)
    try:
        d = _run(probe, _slot_deleted(probe))
        res.steps += probe.steps
    finally:
        probe.close()
    res.slot_delete_fix = d is None
    for name, script in SCRIPTS.items():
        late = script in (_slot_created, _end_of_memory)
        layout = LAYOUT_WIDE if script is _long_gap else LAYOUT_LATE if late else LAYOUT
        m = Lockstep(built, layout, res.slot_delete_fix)
        try:
            res.scripts += 1
            if (d := _run(m, script(m))) is not None:
                d.where = f"{name}: {d.where}"
                res.divergences.append(d)
                break
        finally:
            res.steps += m.steps
            m.close()
    m = Lockstep(built, LAYOUT, res.slot_delete_fix)
    try:
        rng = random.Random(seed)
        for _ in range(walks):
            m.reset()
            res.walks += 1
            d = None
            for _ in range(WALK_STEPS):
                choices = list(m.enabled())
                _, act = rng.choice(choices)
                if (d := act()) is not None:
                    break
            if d is not None:
                res.divergences.append(d)
                break
        res.steps += m.steps
    finally:
        m.close()
    count = [0]

    def check(line: int, ok: bool, what: str = "") -> None:
        if not ok:
            raise AssertionError(f"cmma_test.c:{line}: {what}")
        if line:
            count[0] += 1

    for name, scenario in SCENARIOS.items():
        vms: list[KernelSelftestVM] = []

        def make(with_memslots: bool) -> KernelSelftestVM:
            vms.append(KernelSelftestVM(built, with_memslots, SELFTEST_SIZES))
            return vms[-1]

        try:
            scenario(make, check)
            res.selftest += 1
        except SelftestDivergence as exc:
            exc.divergence.where = f"{name}, {exc.divergence.where}"
            res.divergences.append(exc.divergence)
        except AssertionError as exc:
            res.divergences.append(Divergence(f"{name}: {exc}", [], Observed("", False, (), None),
                                              Observed("?", False, (), None)))  # fmt: skip
        finally:
            for vm in vms:
                res.steps += vm.m.steps
                vm.m.close()
    res.selftest_instances = count[0]
    res.entered = set(ENTERED)
    return res


def report(res: Result) -> list[str]:
    """The pass's lines for kernel-check's output: its one line, then each divergence."""
    out = [res.line()]
    for i, d in enumerate(res.divergences, 1):
        out += ["", f"VMM divergence {i} of {len(res.divergences)}: {d.headline()}", "", "```",
                "from a reset: " + "; ".join(d.requests),
                f"the spec:   {d.expected}", f"the kernel: {d.observed}", *d.kernel,
                *([f"blame: {d.why}"] if d.why else []), "```"]
    return out
