"""The ESSAMigrationVMM mode of the conformance protocol (PROTOCOL.md, "CMMA migration as a VMM
drives it"): spec/ESSAMigrationVMM.tla, KVM's CMMA migration through the interface a VMM has.

The ESSAMigration mode (:mod:`.mode`) with the VMM's requests in place of ``MigrationSend``:
``MigrationStart`` whenever migration mode is off, ``MigrationStop``, a batched ``Get`` and a
read-only ``Peek`` of a range of guest frames (``start``, ``count``; the reply's ``start``,
``values`` and ``remaining``), and ``SlotCreate``, ``SlotLogging``, ``SlotDelete`` of a
memslot. The profile is the ESSA mode's with the memslot layout (:class:`VmmProfile`), which
the hello carries; ``Migrate`` carries the SET's ``mask`` for an engine whose hello reply
announces ``MaskedMigrate``. The oracle is :mod:`refimpl.essa.vmm` (equal to TLC's graph of the spec).
An engine is asked only when it announces the mode: in-process, ``machines`` names it; over
JSON lines, its hello reply carries ``"machine": "ESSAMigrationVMM"`` (an engine that does not
speak it answers ``Unsupported`` and is skipped).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
import functools
from dataclasses import dataclass, fields, replace
from typing import Any, Final, NamedTuple

from refimpl.core.package import Refused
from refimpl.essa import EssaProfile
from refimpl.essa import vmm as reference
from refimpl.essa.machine import _record
from refimpl.essa.profile import EssaProfileError
from refimpl.essa.vmm import HOOKS, Hooks, Layout, VMMState

from ..essa.mode import _conflict
from ..essa.protocol import NONE, EssaProfileRequest, EssaReply, EssaRequest, oracle_rule, oracle_steps
from ..protocol import VERSION, ProtocolError, Unsupported
from ..search import Budget, Group
from .mode import NODAT_BIT, USAGE_CODES, EssaMigrationDriver, cmma_value, migration_pages

#: The value of ``machine`` in the hello of this mode.
VMM_MACHINE: Final = "ESSAMigrationVMM"


class Memslot(NamedTuple):
    """A memslot of the profile: its first guest frame, its pages, and whether it is there at
    boot (``present`` false: a ``SlotCreate`` makes it)."""

    base: int
    pages: int
    present: bool = True

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"base": self.base, "pages": self.pages}
        if not self.present:
            obj["present"] = False
        return obj


@dataclass(frozen=True)
class VmmProfile(EssaProfile):
    """An ESSA profile with the memslot layout (hello ``Memslots``) and the spec's
    ``SlotDeleteFix`` (hello ``SlotDeleteFix``), and whether the engine takes a ``Migrate``
    with a ``mask`` (hello ``MaskedMigrate``, which the engine announces). The pages are the
    memslots' in order: memslot 0's first, at its base and on."""

    memslots: tuple[Memslot, ...] = (Memslot(0, 1),)
    slot_delete_fix: bool = True
    masked_migrate: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        check_memslots(self.memslots, self.pages)

    @functools.cached_property
    def layout(self) -> Layout:
        gfns: list[int] = []
        slot_of: list[int] = []
        for i, m in enumerate(self.memslots):
            gfns += range(m.base, m.base + m.pages)
            slot_of += [i] * m.pages
        return Layout(tuple(gfns), tuple(slot_of),
                      frozenset(i for i, m in enumerate(self.memslots) if m.present),
                      slot_delete_fix=self.slot_delete_fix)  # fmt: skip

    def essa(self) -> EssaProfile:
        """The ESSA profile alone."""
        return EssaProfile(**essa_fields(self))


def essa_fields(p: EssaProfile) -> dict[str, Any]:
    """The ESSA profile's fields of ``p``."""
    return {f.name: getattr(p, f.name) for f in fields(EssaProfile)}


def check_memslots(memslots: Sequence[Memslot], pages: int) -> None:
    """The layout's rule: at least one memslot present at boot, each of at least one page, in
    increasing order of their frames without overlap, their pages adding up to ``pages``.
    Raises ValueError."""
    if not any(m.present for m in memslots):
        raise ValueError("Memslots: at least one memslot must be present at boot")
    end = 0
    for i, m in enumerate(memslots):
        if m.pages < 1 or m.base < end:
            raise ValueError(f"Memslots[{i}]: base {m.base}, {m.pages} pages: a memslot has a page "
                             f"at least and starts past the one before it (gfn {end})")  # fmt: skip
        end = m.base + m.pages
    if sum(m.pages for m in memslots) != pages:
        raise ValueError(f"Memslots: {sum(m.pages for m in memslots)} pages, not Pages {pages}")


def memslots_from_json(obj: object) -> tuple[Memslot, ...]:
    """The hello's ``Memslots``; raises ProtocolError."""
    if not isinstance(obj, list) or not obj:
        raise ProtocolError(f'"Memslots" must be a non-empty list of memslots, not {obj!r}')
    out = []
    for i, m in enumerate(obj):
        if not isinstance(m, dict) or not {"base", "pages"} <= set(m) \
                or not set(m) <= {"base", "pages", "present"}:  # fmt: skip
            raise ProtocolError(f'"Memslots"[{i}] must be an object with base, pages and '
                                f"optionally present, not {m!r}")  # fmt: skip
        base, n, present = m["base"], m["pages"], m.get("present", True)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (base, n)) \
                or not isinstance(present, bool):  # fmt: skip
            raise ProtocolError(f'"Memslots"[{i}]: base and pages are integers, present a Boolean')
        out.append(Memslot(base, n, present))
    return tuple(out)


def _answered(profile: VmmProfile, t: VMMState) -> EssaReply:
    a = t.answer
    return EssaReply("Done", NONE, NONE, migration_pages(profile, t.mig), "", a.start,
                     tuple(cmma_value(x.u, x.n) for x in a.values), a.remaining)  # fmt: skip


def vmm_steps(profile: VmmProfile, s: VMMState, req: EssaRequest, hooks: Hooks = HOOKS
              ) -> Iterator[tuple[VMMState, EssaReply]]:  # fmt: skip
    """Every answer the spec allows to ``req`` in ``s`` (one, but for the ESSA mode's
    CBRLGuestAddress zap): the successor and the reply."""
    layout = profile.layout
    op = req.op
    r: object
    if op == "MigrationStart":
        r = reference.migration_start(layout, s, hooks)
    elif op == "MigrationStop":
        r = reference.migration_stop(s)
    elif op == "Get":
        r = reference.get(layout, s, req.start, req.count, hooks)
    elif op == "Peek":
        r = reference.peek(layout, s, req.start, req.count, hooks)
    elif op in ("SlotCreate", "SlotLogging", "SlotDelete"):
        if not 0 <= req.slot < len(profile.memslots):
            raise ProtocolError(f"{op}: slot {req.slot} is not one of 0 .. {len(profile.memslots) - 1}")
        if op == "SlotCreate":
            r = reference.slot_create(layout, s, req.slot, bool(req.logging))
        elif op == "SlotLogging":
            r = reference.slot_logging(layout, s, req.slot, bool(req.logging))
        else:
            r = reference.slot_delete(layout, s, req.slot)
    elif op == "Migrate":
        r = reference.migration_switch(profile, layout, s, hooks,
                                       reference.FULL_MASK if req.mask == NONE else req.mask)  # fmt: skip
    elif op in ("MigrationSend", "HostResetCMMA"):
        yield s, EssaReply("Refused", NONE, NONE, migration_pages(profile, s.mig), f"no {op} in this mode")
        return
    else:
        if req.page != NONE and not reference._View(layout, s).in_slot[req.page]:
            yield s, EssaReply("Refused", NONE, NONE, migration_pages(profile, s.mig),
                               "the page is in no present memslot")  # fmt: skip
            return
        for e, reply in oracle_steps(profile, s.mig.essa, req):
            if reply.outcome == "Refused":
                yield s, reply._replace(pages=migration_pages(profile, s.mig))
                continue
            if op != "ESSA":  # the ESSA mode's oracle records an ESSA's lastOp only
                e = e._replace(lastOp=_record(op, req.page, reply.outcome))
            u = reference.guest_step(layout, s, e)
            assert u is not None
            yield u, reply._replace(pages=migration_pages(profile, u.mig))
        return
    if isinstance(r, Refused):
        yield s, EssaReply("Refused", NONE, NONE, migration_pages(profile, s.mig), r.reason)
    elif isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], str):  # RefuseVMM: a step
        t, why = r
        yield t, EssaReply("Refused", NONE, NONE, migration_pages(profile, t.mig), why)
    elif op in ("Get", "Peek"):
        assert isinstance(r, VMMState)
        yield r, _answered(profile, r)
    else:
        assert isinstance(r, VMMState)
        yield r, EssaReply("Done", NONE, NONE, migration_pages(profile, r.mig))


_MEMO: dict[tuple[VmmProfile, VMMState, EssaRequest, Hooks], tuple[VMMState, EssaReply]] = {}
#: The most answers :func:`vmm_step` remembers (the oracle and the reference engine ask the same
#: steps again and again; forgotten all at once when full).
MEMO_SIZE: Final = 200_000


def vmm_step(profile: VmmProfile, s: VMMState, req: EssaRequest, hooks: Hooks = HOOKS
             ) -> tuple[VMMState, EssaReply]:  # fmt: skip
    """The reference's answer (the first of :func:`vmm_steps`), remembered."""
    key = (profile, s, req, hooks)
    found = _MEMO.get(key)
    if found is None:
        if len(_MEMO) >= MEMO_SIZE:
            _MEMO.clear()
        found = _MEMO[key] = next(vmm_steps(profile, s, req, hooks))
    return found


class VmmProfileRequest(EssaProfileRequest):
    """A hello's profile of this mode: the ESSA mode's fields and ``memslots`` (hello
    ``Memslots``), ``slot_delete_fix`` (hello ``SlotDeleteFix``) and ``masked_migrate``
    (hello ``MaskedMigrate``)."""

    ATTRS: tuple[str, ...] = (*EssaProfileRequest.ATTRS, "memslots", "slot_delete_fix",
                              "masked_migrate")  # fmt: skip

    @classmethod
    def of(cls, p: EssaProfile) -> VmmProfileRequest:
        """The profile's fields, ``masked_migrate`` only when set (a hello or a trace of an
        engine that does not take a mask says nothing of it)."""
        req = super().of(p)
        return req if req.fields.get("masked_migrate") else req.without("masked_migrate")  # type: ignore[return-value]

    def to_json(self) -> dict[str, Any]:
        obj = super().to_json()
        if "memslots" in self.fields:
            obj["Memslots"] = [m.to_json() for m in self.fields["memslots"]]
        if "slot_delete_fix" in self.fields:
            obj["SlotDeleteFix"] = self.fields["slot_delete_fix"]
        if "masked_migrate" in self.fields:
            obj["MaskedMigrate"] = self.fields["masked_migrate"]
        return obj

    @classmethod
    def from_json(cls, obj: object) -> VmmProfileRequest:
        if not isinstance(obj, dict):
            return cls(**EssaProfileRequest.from_json(obj).fields)
        rest = {k: v for k, v in obj.items()
                if k not in ("Memslots", "SlotDeleteFix", "MaskedMigrate")}  # fmt: skip
        fields = EssaProfileRequest.from_json(rest).fields
        if "Memslots" in obj:
            fields["memslots"] = memslots_from_json(obj["Memslots"])
        if "SlotDeleteFix" in obj:
            if not isinstance(obj["SlotDeleteFix"], bool):
                raise ProtocolError('"SlotDeleteFix" must be true or false')
            fields["slot_delete_fix"] = obj["SlotDeleteFix"]
        if "MaskedMigrate" in obj:
            if not isinstance(obj["MaskedMigrate"], bool):
                raise ProtocolError('"MaskedMigrate" must be true or false')
            fields["masked_migrate"] = obj["MaskedMigrate"]
        return cls(**fields)

    def profile(self, pages: int = 1) -> VmmProfile:
        """The profile, each field left open at its default (one memslot of every page)."""
        essa = EssaProfileRequest(**{k: v for k, v in self.fields.items()
                                     if k in EssaProfileRequest.ATTRS}).profile(pages)  # fmt: skip
        memslots = self.fields.get("memslots") or (Memslot(0, essa.pages),)
        if "pages" not in self.fields:
            essa = EssaProfile(**{**essa_fields(essa), "pages": sum(m.pages for m in memslots)})
        try:
            return VmmProfile(**essa_fields(essa), memslots=tuple(memslots),
                              slot_delete_fix=self.fields.get("slot_delete_fix", True),
                              masked_migrate=self.fields.get("masked_migrate", False))  # fmt: skip
        except ValueError as exc:
            raise EssaProfileError(str(exc)) from None


#: The layouts ``run`` asks for on ``pages`` pages: memslot 0 of one page at gfn 0 and memslot
#: 1 of the rest at gfn 1 (model/MCESSAMigrationVMM.tla's); the same with memslot 1 created
#: later; and (three pages or more) memslot 1 of one page created later between memslots 0 and
#: 2, a hole of guest frames until it is.
def run_layouts(pages: int) -> list[tuple[Memslot, ...]]:
    if pages < 2:
        return [(Memslot(0, pages),)]
    out: list[tuple[Memslot, ...]] = [(Memslot(0, 1), Memslot(1, pages - 1)),
                                      (Memslot(0, 1), Memslot(1, pages - 1, False))]  # fmt: skip
    if pages >= 3:
        out.append((Memslot(0, 1), Memslot(1, 1, False), Memslot(2, pages - 2)))
    return out


#: The ESSA constants of the profiles ``run`` asks for unless the command line fixes them:
#: spec/ESSAMigrationVMM.tla's VMMClaimed (storage keys, facility 147, a CBRL of one entry, a
#: new VM), with the fixed kernel's gmap.
VMM_CONSTANTS: Final = {"storage_keys": True, "facility147": True, "cbrl_size": 1,
                        "bugs": frozenset(), "prebuilt_page_tables": False}
#: ``run``'s default number of pages: three, the fewest that show a clean page inside a GET's
#: batch between two dirty ones.
DEFAULT_VMM_PAGES: Final = 3
#: The largest ``count`` the requests ask for (the spec model's MaxCount).
MAX_COUNT: Final = 3
#: The ESSA requests of the VMM group of the coverage tour, per page: ORC 1, 2, 3 and 7 (what
#: today's guest issues, and a discard), a store and a reclaim.
_GUEST_OPS: Final = (("ESSA", 1), ("ESSA", 2), ("ESSA", 3), ("ESSA", 7), ("Write", NONE),
                     ("HostReclaim", NONE))  # fmt: skip
#: How far from the reset the groups of the coverage tour go: the rounds far enough for a
#: start, a round, a stop, a restart and a final pass, or a switch and a second migration.
ROUNDS_DEPTH: Final = 8
MEMSLOT_DEPTH: Final = 5
VMM_DEPTH: Final = 3


def migrate_requests(profile: VmmProfile) -> tuple[EssaRequest, ...]:
    """The switch: QEMU's SET (no ``mask``, every bit), and for an engine that announces
    ``MaskedMigrate`` the SET with each other mask (``SET_MASKS``)."""
    masked = [EssaRequest("Migrate", mask=m) for m in reference.SET_MASKS if m != reference.FULL_MASK]
    return (EssaRequest("Migrate"), *(masked if profile.masked_migrate else ()))


def round_requests(profile: VmmProfile) -> tuple[EssaRequest, ...]:
    """What QEMU's storage-attribute device does (sources 5c), and the guest between its
    requests: start, a GET of a whole batch from each memslot's first frame and of one page
    from the first, a peek, stop, the switch (every mask the engine takes); an ESSA that sets
    N on the first page and one that makes the last page unused, and the CBRL's processing."""
    bases = sorted({m.base for m in profile.memslots})
    return (EssaRequest("MigrationStart"), EssaRequest("MigrationStop"), *migrate_requests(profile),
            *(EssaRequest("Get", start=b, count=MAX_COUNT) for b in bases),
            EssaRequest("Get", start=0, count=1), EssaRequest("Peek", start=0, count=MAX_COUNT),
            EssaRequest("ESSA", 0, 7), EssaRequest("ESSA", profile.pages - 1, 2),
            EssaRequest("HostProcessCBRL"))  # fmt: skip


def memslot_requests(profile: VmmProfile) -> tuple[EssaRequest, ...]:
    """Every memslot change, with start, a whole batch from frame 0, the switch and an ESSA on
    the last page."""
    slots = [r for r in own_requests(profile) if r.slot != NONE]
    return (*slots, EssaRequest("MigrationStart"), EssaRequest("Get", start=0, count=MAX_COUNT),
            EssaRequest("Migrate"), EssaRequest("ESSA", profile.pages - 1, 7))  # fmt: skip


def frames(profile: VmmProfile) -> range:
    """The guest frames a ``Get`` or ``Peek`` starts at: every frame to one past the last
    memslot (the holes between memslots and the end of memory included)."""
    return range(profile.layout.gfns[-1] + 2)


def own_requests(profile: VmmProfile) -> tuple[EssaRequest, ...]:
    """This mode's own requests: start, stop, the switch (every mask the engine takes), every
    Get and Peek, every memslot change the layout allows."""
    layout = profile.layout
    out = [EssaRequest("MigrationStart"), EssaRequest("MigrationStop"), *migrate_requests(profile)]
    for g in frames(profile):
        for c in range(1, MAX_COUNT + 1):
            out += [EssaRequest("Get", start=g, count=c), EssaRequest("Peek", start=g, count=c)]
    for sl in range(len(profile.memslots)):
        if sl not in layout.at_start:
            out += [EssaRequest("SlotCreate", slot=sl, logging=log) for log in (True, False)]
        out += [EssaRequest("SlotLogging", slot=sl, logging=log) for log in (False, True)]
        out.append(EssaRequest("SlotDelete", slot=sl))
    return tuple(out)


def vmm_requests(profile: VmmProfile) -> tuple[EssaRequest, ...]:
    """Every request of the ESSA mode this mode sends (not ``HostResetCMMA``) and its own."""
    from ..essa.protocol import all_requests

    return (*(r for r in all_requests(profile) if r.op not in ("HostResetCMMA", "Migrate")),
            *own_requests(profile))  # fmt: skip


def group_requests(profile: VmmProfile) -> tuple[EssaRequest, ...]:
    """The VMM group of the coverage tour: this mode's own requests and what the guest does
    to change a page's value (:data:`_GUEST_OPS` on every page, the CBRL's processing)."""
    return (*(EssaRequest(op, p, orc) for p in range(profile.pages) for op, orc in _GUEST_OPS),
            EssaRequest("HostProcessCBRL"), *own_requests(profile))  # fmt: skip


def _state_key(s: VMMState) -> tuple[object, ...]:
    """A state without its last operation (which a reply does not show)."""
    from .mode import _state_key as migration_key

    return (migration_key(s.mig), s.slot, s.logging, s.dirtyCount, s.usesCmm, s.answer, s.stopped)


#: ``run``'s budget per profile, per Impl: the VMM group and the pairs within the edges, then
#: a swarm walk.
DEFAULT_VMM_BUDGETS: Final[dict[str, Budget]] = {
    "KVMClassic": Budget(cover_edges=20000, depth=2, swarm=3000, first_only=True),
    "KVMGmap": Budget(cover_edges=20000, depth=2, swarm=3000, first_only=True),
}


class EssaVmmDriver(EssaMigrationDriver):
    """The ESSAMigrationVMM mode for :mod:`conformance.driver` and :mod:`conformance.commands`:
    the ESSAMigration mode with the state of spec/ESSAMigrationVMM.tla."""

    name = VMM_MACHINE
    spec = "spec/ESSAMigrationVMM.tla"
    scope_also = ""
    state_key = staticmethod(_state_key)  # type: ignore[assignment]

    def speaks(self, args: Any) -> bool:
        """Never guessed: ``run`` drives this mode only when ``--machine ESSAMigrationVMM``
        names it."""
        return False

    def add_options(self, parser: Any, engine: bool = True) -> None:
        """Its own: ``--no-slot-delete-fix`` (the ESSA mode's profile options serve it too)."""
        g = parser.add_argument_group("ESSAMigrationVMM profile (--machine ESSAMigrationVMM)")
        g.add_argument("--no-slot-delete-fix", dest="slot_delete_fix", action="store_false",
                       default=None, help="SlotDeleteFix = FALSE: a deleted memslot's dirty pages "
                       "stay in the count, as in Linux 6.12 (finding F12); default TRUE")  # fmt: skip

    def init(self, profile: VmmProfile) -> VMMState:  # type: ignore[override]
        return reference.init(profile, profile.layout)

    def oracle(self, profile: VmmProfile, s: VMMState,  # type: ignore[override]
               request: EssaRequest) -> tuple[VMMState, EssaReply]:  # fmt: skip
        return vmm_step(profile, s, request)

    def alternatives(self, profile: VmmProfile, s: VMMState,  # type: ignore[override]
                     request: EssaRequest) -> Iterator[tuple[VMMState, EssaReply]]:  # fmt: skip
        return vmm_steps(profile, s, request)

    def rule(self, profile: VmmProfile, s: VMMState,  # type: ignore[override]
             request: EssaRequest, observed: EssaReply | None) -> str:  # fmt: skip
        op = request.op
        text = RULES.get(op)
        if text is not None:
            return text
        base = oracle_rule(profile, s.mig.essa, request)
        if request.page != NONE and not _in_slot(profile, s, request.page):
            return f"{request.describe()}: the page is in no present memslot: refused"
        if s.mig.migrating and op == "ESSA" and not request.problem_state and not request.beyond_memory:
            base += ("; in migration mode an ESSA with ORC 1 .. 7 that is carried out marks the "
                     "page CMMA-dirty and counts it when its bit was clear (__do_essa)")  # fmt: skip
        return base

    def show_state(self, profile: VmmProfile, s: VMMState) -> str:  # type: ignore[override]
        return reference.show(s)

    def show_reply(self, reply: EssaReply, marked: Sequence[str] = ()) -> str:
        from ..driver import marker

        text = super().show_reply(reply, marked)
        if reply.values is None and not {"start", "values", "remaining"} & set(marked):
            return text
        m = marker(marked)
        head, rest = text.split(" [", 1) if " [" in text else (text, "]")
        vals = "-" if reply.values is None else " ".join(_show_value(v) for v in reply.values)
        return (f"{head} start={reply.start}{m('start')} values=[{vals}]{m('values')} "
                f"remaining={reply.remaining}{m('remaining')} [{rest}")  # fmt: skip

    def short_name(self, profile: VmmProfile) -> str:  # type: ignore[override]
        slots = "+".join(f"{m.base}:{m.pages}" + ("" if m.present else "late")
                         for m in profile.memslots)  # fmt: skip
        fix = "" if profile.slot_delete_fix else "-noSlotDeleteFix"
        masked = "-masked" if profile.masked_migrate else ""
        return f"{super().short_name(profile.essa())}-slots{slots}{fix}{masked}"

    def describe(self, profile: VmmProfile) -> str:  # type: ignore[override]
        slots = ", ".join(f"memslot {i}: {m.pages} page(s) at gfn {m.base}"
                          + ("" if m.present else ", created later")
                          for i, m in enumerate(profile.memslots))  # fmt: skip
        return f"{profile.essa().describe()}; {slots}" + (
            "" if profile.slot_delete_fix else "; a deleted memslot's pages stay counted") + (
            "; masked switches" if profile.masked_migrate else "")

    def trace_line(self, request: EssaRequest, reply: EssaReply) -> dict[str, Any]:
        """The ESSA mode's line, with a Get's or Peek's answer under ``answer`` (its ``start``
        is not the request's)."""
        obj = reply.to_json(0)
        del obj["id"]
        answer = {k: obj.pop(k) for k in ("start", "values", "remaining") if k in obj}
        return {**request.fields(), **obj, **({"answer": answer} if answer else {})}

    def trace_header(self, profile: VmmProfile) -> dict[str, Any]:  # type: ignore[override]
        return {"version": VERSION, "machine": VMM_MACHINE,
                "profile": VmmProfileRequest.of(profile).to_json()}  # fmt: skip

    def connect(self, engine: Any, profile: VmmProfile) -> tuple[str, VmmProfile]:  # type: ignore[override]
        """Asks only an engine that names this mode among its ``machines`` (PROTOCOL.md: an
        engine that does not announce it is not asked). The hello does not ask for
        ``MaskedMigrate``: the engine's reply announces it or not, and the profile run takes
        its answer (a profile that needs it, a trace's with masked switches, is not run on an
        engine that does not announce it)."""
        if VMM_MACHINE not in getattr(engine, "machines", ()):
            raise Unsupported(f"the engine does not speak the {VMM_MACHINE} mode")
        if not profile.kvm or profile.machine_interprets_essa or not profile.cmma_enabled:
            raise Unsupported("CMMA migration is KVM's, with CMMA enabled and every ESSA "
                              "intercepted")  # fmt: skip
        engine.machine = VMM_MACHINE
        asked = VmmProfileRequest.of(profile).without("masked_migrate")
        info = engine.hello(asked)
        announced = info.profile
        if not isinstance(announced, VmmProfileRequest):
            announced = VmmProfileRequest(**announced.fields)
        conflicts = asked.conflicts(announced)
        if conflicts:
            raise Unsupported("the engine announces " + ", ".join(
                _differs(a, announced, asked) for a in conflicts))  # fmt: skip
        masked = announced.fields.get("masked_migrate") is True
        if profile.masked_migrate and not masked:
            raise Unsupported("the engine does not announce MaskedMigrate (a Migrate with a mask)")
        return info.name, replace(profile, masked_migrate=masked)

    def requests(self, profile: VmmProfile) -> Sequence[EssaRequest]:  # type: ignore[override]
        return vmm_requests(profile)

    def tours(self, profile: VmmProfile) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:  # type: ignore[override]
        return iter(())

    def coverage_groups(self, profile: VmmProfile, depth: int | None) -> list[Group]:  # type: ignore[override]
        """The rounds a VMM runs (:func:`round_requests`) to :data:`ROUNDS_DEPTH`, the memslot
        changes among them (:func:`memslot_requests`) to :data:`MEMSLOT_DEPTH`, the VMM group
        (every request of this mode's own and the guest's value changes) to :data:`VMM_DEPTH`,
        then every request of the mode to ``depth``."""
        return [Group("rounds", round_requests(profile), ROUNDS_DEPTH),
                Group("memslots", memslot_requests(profile), MEMSLOT_DEPTH),
                Group("VMM", group_requests(profile), VMM_DEPTH),
                Group("pairs", vmm_requests(profile), depth)]  # fmt: skip

    def kind(self, request: EssaRequest) -> tuple[object, ...]:
        return (*super().kind(request), request.count, request.slot, request.logging, request.mask)

    def budget(self, impl: str | None) -> Budget:
        return DEFAULT_VMM_BUDGETS.get(impl or "", DEFAULT_VMM_BUDGETS["KVMClassic"])

    def profiles_of(self, args: Any, engine: Any) -> tuple[list[VmmProfile], str]:  # type: ignore[override]
        from ..essa.cli import essa_request_of

        fixed = essa_request_of(args)
        pages = args.pages or DEFAULT_VMM_PAGES
        if fixed.impl is None:
            fixed = fixed.merged(EssaProfileRequest(impl="KVMClassic"))
        try:
            found = self.profiles(fixed, pages)
        except EssaProfileError as exc:
            raise ValueError(str(exc)) from None
        if getattr(args, "slot_delete_fix", None) is False:
            found = [replace(p, slot_delete_fix=False) for p in found]
        return found, (f"{len(found)} profiles of {fixed.impl}, {pages} pages, "
                       f"{len(run_layouts(pages))} memslot layouts")  # fmt: skip

    def profiles(self, fixed: Any, pages: int) -> list[VmmProfile]:  # type: ignore[override]
        """The ESSA constants the command line leaves open at :data:`VMM_CONSTANTS` (the
        machine spec/ESSAMigrationVMM.tla's models check), each with every layout of
        :func:`run_layouts`: the ESSA mode's constants are the ESSA and ESSAMigration modes'
        to vary, this mode's the layout."""
        fixed = fixed.merged(EssaProfileRequest(**VMM_CONSTANTS))
        return [VmmProfile(**essa_fields(p), memslots=layout)
                for p in super().profiles(fixed, pages) for layout in run_layouts(pages)]  # fmt: skip

    def mutants(self) -> list[type]:
        return list(VMM_MUTANTS)

    def mutant_profiles(self, mutant: Any) -> list[VmmProfile]:  # type: ignore[override]
        return self.profiles(EssaProfileRequest(impl="KVMClassic"), DEFAULT_VMM_PAGES)

    def itf_state(self, profile: VmmProfile, before: VMMState,  # type: ignore[override]
                  request: EssaRequest | None, reply: EssaReply | None) -> dict[str, Any]:  # fmt: skip
        from ..essa.mode import EssaDriver

        state = EssaDriver.itf_state(self, profile, before.mig.essa, request, reply)
        state["cmmaDirty"] = ({i: pg.cmmaDirty for i, pg in enumerate(reply.pages)}
                              if reply is not None else dict(enumerate(before.mig.cmmaDirty)))  # fmt: skip
        after = before if request is None else vmm_step(profile, before, request)[0]
        state["migrating"] = after.mig.migrating
        state["sentUsage"] = dict(enumerate(after.mig.sentUsage))
        state["sentNoDat"] = dict(enumerate(after.mig.sentNoDat))
        state["slot"] = dict(enumerate(after.slot))
        state["logging"] = dict(enumerate(after.logging))
        state["dirtyCount"] = after.dirtyCount
        state["usesCmm"] = after.usesCmm
        state["answer"] = {"op": after.answer.op, "start": after.answer.start,
                           "values": [{"u": a.u, "n": a.n} for a in after.answer.values],
                           "remaining": after.answer.remaining}  # fmt: skip
        state["stopped"] = after.stopped
        return state

    def trace_module(self, profile: VmmProfile,  # type: ignore[override]
                     steps: Sequence[tuple[EssaRequest, EssaReply]]) -> tuple[str, str]:  # fmt: skip
        from . import vmm_tla

        return vmm_tla.module_text(profile, steps), vmm_tla.config_text(profile)

    def check_with_tlc(self, profile: VmmProfile,  # type: ignore[override]
                       steps: Sequence[tuple[EssaRequest, EssaReply]], directory: Any = None) -> Any:  # fmt: skip
        from . import vmm_tla

        return vmm_tla.check_with_tlc(profile, steps, directory=directory)

    def read_trace(self, path: Any, args: Any) -> tuple[VmmProfile, list[EssaRequest], list[EssaReply]]:
        from ..essa.cli import essa_request_of, read_essa_trace

        return read_essa_trace(path, VmmProfileRequest(**essa_request_of(args).fields),
                               args.pages or 1, machine=VMM_MACHINE)  # fmt: skip


def _differs(attr: str, announced: EssaProfileRequest, asked: EssaProfileRequest) -> str:
    if attr in ("memslots", "slot_delete_fix"):
        key = "Memslots" if attr == "memslots" else "SlotDeleteFix"
        one = VmmProfileRequest(**{attr: announced.fields[attr]}).to_json()[key]
        other = VmmProfileRequest(**{attr: asked.fields[attr]}).to_json()[key]
        return f"{key} {json.dumps(one)}, not {json.dumps(other)}"
    return _conflict(attr, announced, asked)


def _in_slot(profile: VmmProfile, s: VMMState, page: int) -> bool:
    return reference._View(profile.layout, s).in_slot[page]


def _show_value(v: int) -> str:
    """A value as a report shows it: the usage, and N."""
    usage = {c: u for u, c in USAGE_CODES.items()}.get(v & 3, "?")
    return usage + ("N" if v & NODAT_BIT else "") + ("" if v & ~0x43 == 0 else f"(0x{v:02x})")


#: The rule a report names for each of this mode's requests.
RULES: Final = {
    "MigrationStart": ("MigrationStart (kvm_s390_vm_start_migration): refused while migrating or "
                       "when a present memslot does not log dirty pages; else every page of a "
                       "present memslot CMMA-dirty and the count set to their number"),
    "MigrationStop": ("MigrationStop (kvm_s390_vm_stop_migration): migration mode off, the bits "
                      "and the count kept; refused when migration mode is off"),
    "Get": ("Get (KVM_S390_GET_CMMA_BITS, kvm_s390_get_cmma): from the first CMMA-dirty page at "
            "or after start, page by page while the next dirty page is within 16 frames, within "
            "count of the first and in a memslot; each page sent is cleared and lowers the count "
            "only when its bit was set; remaining is the count; refused outside migration mode"),
    "Peek": ("Peek (KVM_S390_CMMA_PEEK, kvm_s390_peek_cmma): the values of start, start+1, ... "
             "to count or the first frame outside a memslot, remaining the count in migration "
             "mode; nothing changes; refused (EFAULT) when start is outside every memslot"),
    "SlotCreate": ("SlotCreate (kvm_arch_prepare_memory_region): the memslot present with its "
                   "pages clean; without dirty logging migration mode goes off"),
    "SlotLogging": "SlotLogging: dirty logging turned on or off; off turns migration mode off",
    "SlotDelete": ("SlotDelete (kvm_free_memslot): its pages' bits go with it, and the count is "
                   "lowered by them (as the profile's SlotDeleteFix says)"),
    "Migrate": ("Migrate is the switch (VMMSwitch(mask)): refused unless the last answer is a "
                "Get's remaining 0; the destination resumes with the values last sent, of each "
                "the bits the mask selects (usage 0x03, N 0x40; no mask: both) and S without N "
                "for the others, and sets uses_cmm (KVM_S390_SET_CMMA_BITS), migration mode "
                "off, every bit clear"),
}


#: The ESSAMigrationVMM mode of the driver.
VMM_DRIVER: Final = EssaVmmDriver()


class EssaVmmReferenceEngine:
    """The reference implementation as an engine of this mode (in process): the profile the
    hello asks for (every field given)."""

    machines: Final = (VMM_MACHINE,)
    #: The spec's hooks the engine runs (a mutant replaces one).
    hooks: Hooks = HOOKS
    #: Whether the hello reply announces ``MaskedMigrate`` (a Migrate with a mask).
    masked_migrate: bool = True

    def __init__(self) -> None:
        self.machine = VMM_MACHINE
        self.profile: VmmProfile | None = None
        self.state: VMMState | None = None

    def hello(self, request: VmmProfileRequest) -> Any:
        from ..essa.protocol import EssaEngineInfo

        if not isinstance(request, VmmProfileRequest):
            request = VmmProfileRequest(**request.fields)
        self.profile = self.runs(replace(request.profile(request.pages or 1),
                                         masked_migrate=self.masked_migrate))  # fmt: skip
        self.state = reference.init(self.profile, self.profile.layout)
        return EssaEngineInfo("refimpl-ESSAMigrationVMM", VmmProfileRequest.of(self.profile))

    def runs(self, profile: VmmProfile) -> VmmProfile:
        """The profile the engine runs for the one asked for (a mutant may differ)."""
        return profile

    def reset(self) -> None:
        assert self.profile is not None, "hello first"
        self.state = reference.init(self.profile, self.profile.layout)

    def step(self, request: EssaRequest) -> EssaReply:
        assert self.profile is not None and self.state is not None, "hello first"
        self.state, reply = vmm_step(self.profile, self.state, request, self.hooks)
        return reply

    def close(self) -> None:
        self.profile = self.state = None


class VmmMutant(EssaVmmReferenceEngine):
    """The reference engine of this mode with one of the kernel's CMMA functions broken."""

    breaks: str = ""


class PeekStuck(VmmMutant):
    """kvm_s390_peek_cmma without its ``cur_gfn++``: every value is the first frame's."""

    breaks = "a peek does not move on from its first frame"
    hooks = Hooks(peek_stride=0)



class GetCountsCleanPages(VmmMutant):
    """kvm_s390_get_cmma lowers cmma_dirty_pages for every page it sends, clean or not."""

    breaks = "a GET lowers the count for a clean page it sends"
    hooks = Hooks(get_lowers=lambda was: 1)


class DestinationNoUsesCmm(VmmMutant):
    """kvm_s390_set_cmma_bits does not set mm->context.uses_cmm on the destination."""

    breaks = "the destination's uses_cmm is not set"
    hooks = Hooks(set_sets_uses_cmm=False)


class RestartUnmarked(VmmMutant):
    """kvm_s390_vm_start_migration marks the pages only on the first start (a restart after a
    stop keeps the bitmap as the stop left it)."""

    breaks = "a restart after a stop marks nothing"
    hooks = Hooks(start_marks=lambda s: not s.stopped)


class SetIgnoresMask(VmmMutant):
    """kvm_s390_set_cmma_bits without ``mask &=``: every value sent is set whole, whatever
    the mask (the twin MCESSAMigration_Twin_SetIgnoresMask's bug)."""

    breaks = "the switch's SET ignores its mask"
    hooks = Hooks(set_mask=lambda m: reference.FULL_MASK)


class SlotDeleteKeepsCount(VmmMutant):
    """Linux 6.12's memslot deletion: the memslot's dirty pages stay in the count (finding F12),
    in a profile that asks for the fix."""

    breaks = "a deleted memslot's dirty pages stay counted"

    def runs(self, profile: VmmProfile) -> VmmProfile:
        return replace(profile, slot_delete_fix=False)

    def hello(self, request: VmmProfileRequest) -> Any:
        from ..essa.protocol import EssaEngineInfo

        info = super().hello(request)
        return EssaEngineInfo(info.name, info.profile.without("slot_delete_fix"))


VMM_MUTANTS: Final = (PeekStuck, GetCountsCleanPages, DestinationNoUsesCmm, RestartUnmarked,
                      SlotDeleteKeepsCount, SetIgnoresMask)  # fmt: skip
