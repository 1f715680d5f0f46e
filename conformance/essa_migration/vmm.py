"""The ESSAMigrationVMM mode of the conformance protocol (PROTOCOL.md, "CMMA migration as a VMM
drives it"): spec/ESSAMigrationVMM.tla, KVM's CMMA migration through the interface a VMM has.

The ESSAMigration mode (:mod:`.mode`) with the VMM's requests in place of ``MigrationSend``:
``MigrationStart`` whenever migration mode is off, ``MigrationStop``, a batched ``Get`` and a
read-only ``Peek`` of a range of guest frames (``start``, ``count``; the reply's ``start``,
``values`` and ``remaining``), and ``SlotCreate``, ``SlotLogging``, ``SlotDelete`` of a
memslot. The profile is the ESSA mode's with the memslot layout (:class:`VmmProfile`), which
the hello carries. The oracle is :mod:`refimpl.essa.vmm` (equal to TLC's graph of the spec).
An engine is asked only when it announces the mode: in-process, ``machines`` names it; over
JSON lines, its hello reply carries ``"machine": "ESSAMigrationVMM"`` (an engine that does not
speak it answers ``Unsupported`` and is skipped).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from refimpl.core.package import Refused
from refimpl.essa import EssaProfile
from refimpl.essa import vmm as reference
from refimpl.essa.vmm import HOOKS, Hooks, Layout, VMMState

from ..essa.protocol import NONE, EssaReply, EssaRequest, oracle_steps
from ..protocol import ProtocolError
from .mode import cmma_value, migration_pages

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
    ``SlotDeleteFix`` (hello ``SlotDeleteFix``). The pages are the memslots' in order: memslot
    0's first, at its base and on."""

    memslots: tuple[Memslot, ...] = (Memslot(0, 1),)
    slot_delete_fix: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        check_memslots(self.memslots, self.pages)

    @property
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
        return EssaProfile(self.impl, self.storage_keys, self.facility147, self.cbrl_size,
                           self.pages, self.bugs, self.prebuilt_page_tables,
                           self.machine_interprets_essa, self.modern_guest, self.cmma_enabled)  # fmt: skip


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
        r = reference.migration_switch(profile, layout, s, hooks)
    elif op in ("MigrationSend", "HostResetCMMA"):
        yield s, EssaReply("Refused", NONE, NONE, migration_pages(profile, s.mig), f"no {op} in this mode")
        return
    else:
        for e, reply in oracle_steps(profile, s.mig.essa, req):
            u = None if reply.outcome == "Refused" else reference.guest_step(layout, s, e)
            if u is None:
                why = reply.reason if reply.outcome == "Refused" else "the page is in no memslot"
                yield s, EssaReply("Refused", NONE, NONE, migration_pages(profile, s.mig), why)
            else:
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


def vmm_step(profile: VmmProfile, s: VMMState, req: EssaRequest, hooks: Hooks = HOOKS
             ) -> tuple[VMMState, EssaReply]:  # fmt: skip
    """The reference's answer (the first of :func:`vmm_steps`)."""
    return next(vmm_steps(profile, s, req, hooks))
