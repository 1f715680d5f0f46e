"""The ESSAMigration mode of the conformance protocol (PROTOCOL.md, "Incremental migration"):
spec/ESSAMigration.tla, KVM's CMMA migration in rounds while the guest runs.

Every request of the ESSA mode (:mod:`conformance.essa`), and two of its own: ``MigrationStart``
(KVM_S390_VM_MIGRATION_START: every page CMMA-dirty) and ``MigrationSend`` of a page (one value of
a KVM_S390_GET_CMMA_BITS round: the page's usage and N, its CMMA-dirty bit cleared). ``Migrate``
is the switch: refused outside migration mode; the destination resumes with the values last
sent. ``HostResetCMMA`` is refused in migration mode (the spec leaves it out there). Every reply
carries each page's ``cmmaDirty`` bit, and ``MigrationSend``'s ``value`` is the CMMA value sent
(:func:`cmma_value`).

The oracle is :mod:`refimpl.essa.migration` (equal to TLC's graph of the spec): the mode's own
requests are its ``migration_start``, ``migration_send`` and ``migration_switch``; every other
request is the ESSA mode's oracle on the ESSA part of the state, and an ESSA carried out during
migration marks its page CMMA-dirty (``dirty_mark``, __do_essa's rule). An engine speaks this
mode only when it says so: the driver asks only engines whose ``machines`` name it (an
in-process engine) or whose hello reply carries ``"machine": "ESSAMigration"`` (over JSON lines),
so the ESSA engines that do not implement it are never asked.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any, Final

from refimpl.core.package import Refused
from refimpl.essa import EssaProfile, EssaState
from refimpl.essa import migration as reference
from refimpl.essa.migration import MigrationState

from ..essa.mode import EssaDriver
from ..essa.protocol import (
    ESSA_MACHINE,
    MIGRATION_OPS, NONE, EssaReply, EssaRequest, HostPage, _key, all_requests, host_pages,
    oracle_rule, oracle_steps,
)  # fmt: skip
from ..protocol import Unsupported
from ..search import Budget, Group

#: The value of ``machine`` in the hello of this mode.
MIGRATION_MACHINE: Final = "ESSAMigration"
#: A usage as the PGSTE's usage field holds it (_PGSTE_GPS_USAGE_*, sources 5: S12): the low
#: two bits of a KVM_S390_GET_CMMA_BITS value.
USAGE_CODES: Final = {"S": 0, "U": 1, "P": 2, "V": 3}
#: N in a KVM_S390_GET_CMMA_BITS value (_PGSTE_GPS_NODAT >> 24).
NODAT_BIT: Final = 0x40


def cmma_value(usage: str, nodat: bool) -> int:
    """The value KVM_S390_GET_CMMA_BITS gives for a page of ``usage`` and N (sources 5:
    "returns usage and N per page"; kvm_s390_get_cmma: ``(pgstev >> 24) & 0x43``)."""
    return USAGE_CODES[usage] | (NODAT_BIT if nodat else 0)


def migration_pages(profile: EssaProfile, s: MigrationState) -> tuple[HostPage, ...]:
    """The pages as a reply of this mode reports them: the ESSA mode's, with ``cmmaDirty``."""
    return tuple(pg._replace(cmmaDirty=d) for pg, d in zip(host_pages(profile, s.essa), s.cmmaDirty))


def _tracked(s: MigrationState, t: EssaState, outcome: str) -> MigrationState:
    """Spec: Tracked(A): the ESSA step to ``t``; during migration an ESSA carried out marks its
    page (reference.dirty_mark). A refused request changes nothing."""
    if outcome == "Refused":
        return s
    dirty = s.cmmaDirty
    if s.migrating and reference.dirty_mark(t):
        p = t.lastOp.page
        dirty = dirty[:p] + (True,) + dirty[p + 1:]
    return s._replace(essa=t, cmmaDirty=dirty)


def migration_steps(profile: EssaProfile, s: MigrationState, req: EssaRequest
                    ) -> Iterator[tuple[MigrationState, EssaReply]]:  # fmt: skip
    """Every answer the spec allows to ``req`` in ``s`` (one, but for the ESSA mode's
    CBRLGuestAddress zap): the successor and the reply."""
    refused = EssaReply("Refused", NONE, NONE, migration_pages(profile, s))
    if req.op == "MigrationStart":
        t = reference.migration_start(s)
    elif req.op == "MigrationSend":
        t = reference.migration_send(s, req.page)
        if not isinstance(t, Refused):
            pg = s.essa.pages[req.page]
            yield t, EssaReply("Done", NONE, cmma_value(pg.usage, pg.nodat),
                               migration_pages(profile, t))  # fmt: skip
            return
    elif req.op == "Migrate":
        t = reference.migration_switch(profile, s)
    elif req.op == "HostResetCMMA" and s.migrating:
        yield s, refused._replace(reason="no CMMA reset in migration mode")
        return
    else:
        for e, reply in oracle_steps(profile, s.essa, req):
            u = _tracked(s, e, reply.outcome)
            yield u, reply._replace(pages=migration_pages(profile, u))
        return
    if isinstance(t, Refused):
        yield s, refused._replace(reason=t.reason)
        return
    yield t, EssaReply("Done", NONE, NONE, migration_pages(profile, t))


def migration_step(profile: EssaProfile, s: MigrationState, req: EssaRequest
                   ) -> tuple[MigrationState, EssaReply]:  # fmt: skip
    """The reference's answer (the first of :func:`migration_steps`)."""
    return next(migration_steps(profile, s, req))


#: Requests of the ESSA mode this mode does not send: the spec leaves the CMMA reset during
#: migration out (KVM would do it, and mark nothing), and a driver cannot send it only outside.
NOT_SENT: Final = frozenset({"HostResetCMMA"})


def migration_requests(profile: EssaProfile) -> tuple[EssaRequest, ...]:
    """Every request of the ESSA mode (but :data:`NOT_SENT`) and this mode's own, on every
    page."""
    own = (EssaRequest("MigrationStart"),
           *(EssaRequest("MigrationSend", p) for p in range(profile.pages)))  # fmt: skip
    return (*(r for r in all_requests(profile) if r.op not in NOT_SENT), *own)


#: The requests of the migration groups of the coverage tour, per page: every ORC that changes
#: usage or N (and 0, which marks nothing), a store and a reclaim (the residency ESSA reads),
#: migration's own and the switch.
_GROUP_OPS: Final = (*(("ESSA", o) for o in range(8)), ("Write", NONE), ("HostReclaim", NONE),
                     ("MigrationSend", NONE))  # fmt: skip
#: How far from the reset each page's migration group goes: start, a round, an ESSA, another
#: round and one more step (a mark the count forgot shows as a refused second send).
PAGE_DEPTH: Final = 6


def page_migration_requests(page: int) -> tuple[EssaRequest, ...]:
    return (*(EssaRequest(op, page, orc) for op, orc in _GROUP_OPS),
            EssaRequest("MigrationStart"), EssaRequest("Migrate"))  # fmt: skip


def _state_key(s: MigrationState) -> tuple[object, ...]:
    """A state without its last operation (which a reply does not show)."""
    return (_key(s.essa), s.migrating, s.cmmaDirty, s.sentUsage, s.sentNoDat)


#: ``run``'s budget per profile, per Impl: the migration groups to their depth, every request
#: of the mode from the reset to depth 2 (capped), and a swarm walk.
DEFAULT_BUDGETS: Final[dict[str, Budget]] = {
    "KVMClassic": Budget(cover_edges=12000, depth=2, swarm=1000),
    "KVMGmap": Budget(cover_edges=3000, depth=1, swarm=500),
}


class EssaMigrationDriver(EssaDriver):
    """The ESSAMigration mode for :mod:`conformance.driver` and :mod:`conformance.commands`:
    the ESSA mode's vocabulary with the state of spec/ESSAMigration.tla."""

    def fold(self, profile: EssaProfile) -> tuple[EssaProfile, str] | None:
        """None: no profile folded, refimpl.essa.profile.FOLDS being proved of spec/ESSA.tla's
        graphs, not of the migration's."""
        return None

    def further(self, args: Any, profiles: Sequence[EssaProfile]) -> list[EssaProfile]:
        """None beyond the profiles searched: the migration's default run is sized apart."""
        return []

    name = MIGRATION_MACHINE
    spec = "spec/ESSAMigration.tla"
    state_key = staticmethod(_state_key)  # type: ignore[assignment]

    def speaks(self, args: Any) -> bool:
        """Never guessed: ``run`` drives this mode only when ``--machine ESSAMigration`` names
        it (an engine of both ESSA modes is run in the ESSA mode otherwise)."""
        return False

    #: The mode whose profile options this one takes (``run`` refuses the others' options).
    options_from = ESSA_MACHINE
    #: What the scope of a verdict of this mode names as not checked: the VMM's interface, a
    #: mode of its own asked only of an engine that announces it.
    scope_also = ("--machine ESSAMigrationVMM (stop, restart, batched Get, Peek, memslots: "
                  "asked only of an engine that announces that mode)")  # fmt: skip

    def add_options(self, parser: Any, engine: bool = True) -> None:
        """None of its own: the ESSA mode's profile options (added once) serve both."""

    def init(self, profile: EssaProfile) -> MigrationState:  # type: ignore[override]
        return reference.init(profile)

    def oracle(self, profile: EssaProfile, s: MigrationState,  # type: ignore[override]
               request: EssaRequest) -> tuple[MigrationState, EssaReply]:  # fmt: skip
        return migration_step(profile, s, request)

    def alternatives(self, profile: EssaProfile, s: MigrationState,  # type: ignore[override]
                     request: EssaRequest) -> Iterator[tuple[MigrationState, EssaReply]]:  # fmt: skip
        return migration_steps(profile, s, request)

    def rule(self, profile: EssaProfile, s: MigrationState,  # type: ignore[override]
             request: EssaRequest, observed: EssaReply | None) -> str:  # fmt: skip
        op = request.op
        if op == "MigrationStart":
            return ("MigrationStart (kvm_s390_vm_start_migration): every page CMMA-dirty; "
                    "refused while migrating or after the switch")  # fmt: skip
        if op == "MigrationSend":
            return ("MigrationSend (one value of KVM_S390_GET_CMMA_BITS, kvm_s390_get_cmma): a "
                    "CMMA-dirty page's usage and N sent (value usage | 0x40 for N), its bit "
                    "cleared; refused unless migrating and the page is CMMA-dirty")  # fmt: skip
        if op == "Migrate":
            return ("Migrate is the switch (MigrationSwitch): refused outside migration mode; "
                    "usage and N as last sent (the pages still dirty sent now, "
                    "KVM_S390_SET_CMMA_BITS on the destination), the rest as ESSA.tla's "
                    "Migrate; every page clean")  # fmt: skip
        if op == "HostResetCMMA" and s.migrating:
            return "HostResetCMMA in migration mode: refused (left out of the spec)"
        text = oracle_rule(profile, s.essa, request)
        if s.migrating and op == "ESSA" and not request.problem_state and not request.beyond_memory:
            text += ("; in migration mode an ESSA with ORC 1 .. 7 that is carried out marks the "
                     "page CMMA-dirty (__do_essa)")  # fmt: skip
        return text

    def show_state(self, profile: EssaProfile, s: MigrationState) -> str:
        return reference.show(s)

    def trace_header(self, profile: EssaProfile) -> dict[str, Any]:
        return {**super().trace_header(profile), "machine": MIGRATION_MACHINE}

    def connect(self, engine: Any, profile: EssaProfile) -> tuple[str, EssaProfile]:
        """Asks only an engine that names this mode among its ``machines`` (PROTOCOL.md: an
        engine that does not announce it is not asked)."""
        if MIGRATION_MACHINE not in getattr(engine, "machines", ()):
            raise Unsupported(f"the engine does not speak the {MIGRATION_MACHINE} mode")
        if not profile.kvm or profile.machine_interprets_essa or not profile.cmma_enabled:
            raise Unsupported("incremental migration is KVM's, with CMMA enabled and every ESSA "
                              "intercepted")  # fmt: skip
        engine.machine = MIGRATION_MACHINE
        return super().connect(engine, profile)

    def requests(self, profile: EssaProfile) -> Sequence[EssaRequest]:
        return migration_requests(profile)

    def tours(self, profile: EssaProfile) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:
        for p in range(profile.pages):
            yield from explore(profile, page_migration_requests(p), f"migration tour of page {p}",
                               PAGE_DEPTH)  # fmt: skip

    def coverage_groups(self, profile: EssaProfile, depth: int | None) -> list[Group]:
        """Each page's migration group to :data:`PAGE_DEPTH` (the other pages as they start),
        then every request of the mode on every page to ``depth``."""
        return [*(Group(f"migration of page {p}", page_migration_requests(p), PAGE_DEPTH)
                  for p in range(profile.pages)),
                Group("pairs", migration_requests(profile), depth)]  # fmt: skip

    def budget(self, impl: str | None) -> Budget:
        return DEFAULT_BUDGETS.get(impl or "", DEFAULT_BUDGETS["KVMClassic"])

    def profiles_of(self, args: Any, engine: Any) -> tuple[list[EssaProfile], str]:
        from ..essa.cli import profiles

        if hasattr(engine, "machine"):
            engine.machine = MIGRATION_MACHINE
        return profiles(args, engine, self)

    def mutants(self) -> list[type]:
        return list(MIGRATION_MUTANTS)

    def mutant_profiles(self, mutant: Any) -> list[EssaProfile]:
        from ..essa.cli import DEFAULT_PAGES
        from ..essa.protocol import EssaProfileRequest

        return self.profiles(EssaProfileRequest(impl="KVMClassic"), DEFAULT_PAGES)

    def mutant_row(self, mutant: Any, outcome: Any) -> tuple[str, ...]:
        return "KVMClassic", mutant.breaks

    def profiles(self, fixed: Any, pages: int) -> list[EssaProfile]:
        """The ESSA mode's profiles the spec's ASSUME admits (KVM, every ESSA intercepted),
        with CMMA enabled: a VM without CMMA has no CMMA values to migrate
        (kvm_s390_vm_start_migration marks nothing, KVM_S390_GET_CMMA_BITS fails with ENXIO),
        which spec/ESSAMigration.tla does not model."""
        return [p for p in super().profiles(fixed, pages)
                if p.kvm and not p.machine_interprets_essa and p.cmma_enabled]  # fmt: skip

    def itf_state(self, profile: EssaProfile, before: MigrationState,  # type: ignore[override]
                  request: EssaRequest | None, reply: EssaReply | None) -> dict[str, Any]:  # fmt: skip
        state = super().itf_state(profile, before.essa, request, reply)
        after = before if request is None else migration_step(profile, before, request)[0]
        pages = range(profile.pages)
        state["cmmaDirty"] = ({i: pg.cmmaDirty for i, pg in enumerate(reply.pages)}
                              if reply is not None else dict(enumerate(before.cmmaDirty)))  # fmt: skip
        state["migrating"] = after.migrating
        state["sentUsage"] = {i: after.sentUsage[i] for i in pages}
        state["sentNoDat"] = {i: after.sentNoDat[i] for i in pages}
        return state

    def trace_module(self, profile: EssaProfile, steps: Sequence[tuple[EssaRequest, EssaReply]]
                     ) -> tuple[str, str]:  # fmt: skip
        from ..essa import tla

        return tla.module_text(profile, steps, migration=True), tla.config_text(profile)

    def check_with_tlc(self, profile: EssaProfile, steps: Sequence[tuple[EssaRequest, EssaReply]],
                       directory: Any = None) -> Any:  # fmt: skip
        from ..essa import tla

        return tla.check_with_tlc(profile, steps, directory=directory, migration=True)

    def read_trace(self, path: Any, args: Any) -> tuple[EssaProfile, list[EssaRequest], list[EssaReply]]:
        from ..essa.cli import essa_request_of, read_essa_trace

        return read_essa_trace(path, essa_request_of(args), args.pages or 1,
                               machine=MIGRATION_MACHINE)  # fmt: skip


def explore(profile: EssaProfile, requests: Sequence[EssaRequest], label: str,
            depth: int | None = None) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:  # fmt: skip
    """Every transition of the migration machine restricted to ``requests`` from each state
    within ``depth`` steps of the reset (breadth first, a shortest program to each)."""
    init = reference.init(profile)
    seen = {_state_key(init)}
    queue: deque[tuple[MigrationState, tuple[EssaRequest, ...]]] = deque([(init, ())])
    while queue:
        s, prog = queue.popleft()
        text = f"{label} from {'; '.join(x.describe() for x in prog) or 'reset'}"
        for r in requests:
            yield text, (*prog, r)
            t, reply = migration_step(profile, s, r)
            if reply.outcome != "Refused" and _state_key(t) not in seen and (
                    depth is None or len(prog) + 1 < depth):  # fmt: skip
                seen.add(_state_key(t))
                queue.append((t, (*prog, r)))


#: The ESSAMigration mode of the driver.
MIGRATION_DRIVER: Final = EssaMigrationDriver()


class EssaMigrationReferenceEngine:
    """The reference implementation as an engine of this mode (in process): the profile the
    hello asks for (every field given; ``bugs``: the ESSA mode's, as asked)."""

    machines: Final = (MIGRATION_MACHINE,)

    def __init__(self) -> None:
        self.machine = MIGRATION_MACHINE
        self.profile: EssaProfile | None = None
        self.state: MigrationState | None = None

    def hello(self, request: Any) -> Any:
        from ..essa.protocol import EssaEngineInfo, EssaProfileRequest

        self.profile = request.profile(request.pages or 1)
        self.state = reference.init(self.profile)
        return EssaEngineInfo("refimpl-ESSAMigration", EssaProfileRequest.of(self.profile))

    def reset(self) -> None:
        assert self.profile is not None, "hello first"
        self.state = reference.init(self.profile)

    def step(self, request: EssaRequest) -> EssaReply:
        assert self.profile is not None and self.state is not None, "hello first"
        self.state, reply = migration_step(self.profile, self.state, request)
        return reply

    def close(self) -> None:
        self.profile = self.state = None


class MigrationMutant(EssaMigrationReferenceEngine):
    """The reference engine of this mode with one bug of a migration's bookkeeping."""

    breaks: str = ""

    def step(self, request: EssaRequest) -> EssaReply:
        assert self.profile is not None and self.state is not None, "hello first"
        s = self.state
        t, reply = migration_step(self.profile, s, request)
        self.state = self.mutate(s, request, t)
        if self.state is not t:
            reply = reply._replace(pages=migration_pages(self.profile, self.state))
        return reply

    def mutate(self, s: MigrationState, request: EssaRequest, t: MigrationState) -> MigrationState:
        raise NotImplementedError


class MarksOnlyWhenQueued(MigrationMutant):
    """An ESSA marks its page CMMA-dirty only when it queued a discard (spec twin
    MCESSAMigration_Twin_DirtyOnlyOnQueue)."""

    breaks = "an ESSA marks its page only when it queues a CBRL entry"

    def mutate(self, s: MigrationState, request: EssaRequest, t: MigrationState) -> MigrationState:
        if request.op == "ESSA" and s.migrating and len(t.essa.cbrl) <= len(s.essa.cbrl):
            return t._replace(cmmaDirty=s.cmmaDirty)
        return t


class SendKeepsDirty(MigrationMutant):
    """A send leaves the page CMMA-dirty (test_bit for test_and_clear_bit)."""

    breaks = "a send does not clear the page's CMMA-dirty bit"

    def mutate(self, s: MigrationState, request: EssaRequest, t: MigrationState) -> MigrationState:
        if request.op == "MigrationSend" and t is not s:
            return t._replace(cmmaDirty=s.cmmaDirty)
        return t


class SwitchForgetsNoDat(MigrationMutant):
    """The destination resumes without N (the value's 0x40 dropped on the way)."""

    breaks = "the switch drops N"

    def mutate(self, s: MigrationState, request: EssaRequest, t: MigrationState) -> MigrationState:
        if request.op == "Migrate" and t is not s:
            pages = tuple(pg._replace(nodat=False) for pg in t.essa.pages)
            return t._replace(essa=t.essa._replace(pages=pages))
        return t


MIGRATION_MUTANTS: Final = (MarksOnlyWhenQueued, SendKeepsDirty, SwitchForgetsNoDat)
