"""An ESSAMigrationVMM trace as a TLA+ module that TLC checks against spec/ESSAMigrationVMM.tla.

The ESSA mode's trace module (:mod:`conformance.essa.tla`), with each request replayed by the
spec's own action: the ESSA mode's requests as ``GuestStep`` of the ESSA action (an ESSA on a
page outside a present memslot has none), ``MigrationStart`` as ``VMMStart``, ``MigrationStop``
as ``VMMStop``, ``Get`` and ``Peek`` as ``Get(start, count)`` and ``Peek(start, count)``, the
memslot requests as ``SlotCreate``, ``SlotLogging``, ``SlotDelete``, ``Migrate`` as
``VMMSwitch(mask)`` (no ``mask``: ``FullMask``, QEMU's SET of every bit). A refused request is
either no step of the action or the action's own refusal (``RefuseVMM``: EINVAL, EFAULT). After each step every page must be as reported, with its
``cmmaDirty``, and a ``Get``'s or ``Peek``'s ``start``, ``values`` and ``remaining`` must be the
spec's ``answer``. The spec's guest frames are 0 .. Pages-1 (``GfnOrder``): a layout with a
hole between memslots, or a first memslot past gfn 0, has no replay there
(:func:`expressible`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from refimpl.core.constants import constant_lines
from refimpl.essa import CONSTANTS
from refimpl.essa.vmm import FULL_MASK

from ..essa import tla as essa_tla
from ..essa.protocol import NONE, EssaReply, EssaRequest
from ..tlc import TlcVerdict, run_trace_module

_REPLAY = r"""
\* KVM_S390_GET_CMMA_BITS's value: the PGSTE's usage code, 0x40 for N.
CmmaValue(u, n) == (CASE u = "S" -> 0 [] u = "U" -> 1 [] u = "P" -> 2 [] u = "V" -> 3)
                   + (IF n THEN 64 ELSE 0)

\* A request of the VMM: carried out, refused by its own check (RefuseVMM), or not enabled.
VMMPerformed(e, A) ==
    IF e.outcome = "Refused"
    THEN \/ ~ENABLED A /\ UNCHANGED allVars
         \/ A /\ lastOp'.outcome = "Refused"
    ELSE A /\ lastOp'.outcome = e.outcome

\* A step of the guest or the host, as the spec's GuestStep takes it.
Guest(e, A) == Performed(e, GuestStep(A))

Replay(e) ==
    /\ CASE e.op = "ESSA" -> Guest(e, Instruction(e))
          [] e.op = "Read" -> Guest(e, ReadAccess("Read", e.page) /\ UNCHANGED GuestVars)
          [] e.op = "Write" -> Guest(e, WriteAccess("Write", e.page, e.arg) /\ UNCHANGED GuestVars)
          [] e.op = "Writeback" -> Guest(e, ResetChangeBit("Writeback", e.page) /\ UNCHANGED GuestVars)
          [] e.op = "HostReclaim" -> Guest(e, HostReclaim(e.page))
          [] e.op = "HostUnmapGmap" -> Guest(e, HostUnmapGmap(e.page))
          [] e.op = "HostAge" -> Guest(e, HostAge(e.page))
          [] e.op = "HostProcessCBRL" -> Guest(e, HostProcessCBRL)
          [] e.op = "Migrate" -> VMMPerformed(e, VMMSwitch(e.mask))
          [] e.op = "MigrationStart" -> VMMPerformed(e, VMMStart)
          [] e.op = "MigrationStop" -> VMMPerformed(e, VMMStop)
          [] e.op = "Get" -> VMMPerformed(e, Get(e.start, e.count))
          [] e.op = "Peek" -> VMMPerformed(e, Peek(e.start, e.count))
          [] e.op = "SlotCreate" -> VMMPerformed(e, SlotCreate(e.slot, e.log))
          [] e.op = "SlotLogging" -> VMMPerformed(e, SlotLogging(e.slot, e.log))
          [] e.op = "SlotDelete" -> VMMPerformed(e, SlotDelete(e.slot))
    /\ e.result # -1 => lastOp'.result = e.result
    /\ e.value # -1 => lastOp'.value = e.value
    /\ e.answered =>
           /\ answer'.start = e.astart
           /\ answer'.remaining = e.aremaining
           /\ Len(answer'.values) = Len(e.avalues)
           /\ \A i \in 1 .. Len(e.avalues) :
                  CmmaValue(answer'.values[i].u, answer'.values[i].n) = e.avalues[i]
    /\ Seen(e)
    /\ \A q \in DOMAIN e.seen : cmmaDirty'[q] = (e.seen[q].cmmaDirty = 1)
"""


def expressible(profile: Any) -> bool:
    """Whether the layout's frames are the spec's: 0 .. Pages-1, no hole."""
    return bool(profile.layout.gfns == tuple(range(profile.pages)))


def _entry(req: EssaRequest, reply: EssaReply) -> str:
    base = essa_tla._entry(req, reply)
    start = 0 if req.start == NONE else req.start
    count = 0 if req.count == NONE else req.count
    slot = 0 if req.slot == NONE else req.slot
    answered = reply.values is not None
    values = ", ".join(str(v) for v in (reply.values or ()))
    mask = FULL_MASK if req.mask == NONE else req.mask
    extra = (f"start |-> {start}, count |-> {count}, slot |-> {slot}, mask |-> {mask}, "
             f"log |-> {essa_tla._bool(bool(req.logging))}, "
             f"answered |-> {essa_tla._bool(answered)}, "
             f"astart |-> {reply.start if answered else 0}, avalues |-> <<{values}>>, "
             f"aremaining |-> {reply.remaining if answered else 0}, ")  # fmt: skip
    return "[" + extra + base[1:]


def module_text(profile: Any, steps: Sequence[tuple[EssaRequest, EssaReply]]) -> str:
    """The trace module, against spec/ESSAMigrationVMM.tla."""
    text = essa_tla._module_text(profile, ())
    entries = ",\n    ".join(_entry(r, a) for r, a in steps)
    text = text.replace("Trace == <<\n    \n    >>", f"Trace == <<\n    {entries}\n    >>")
    start = text.index("Replay(e) ==")
    end = text.index("TraceInit ==")
    walk = text[end:].replace("TraceInit == Init", "TraceInit == VMMInit").replace(
        "UNCHANGED <<vars, cursor>>", "UNCHANGED <<allVars, cursor>>").replace(
        "[][TraceNext]_<<vars, cursor>>", "[][TraceNext]_<<allVars, cursor>>")  # fmt: skip
    layout = profile.layout
    consts = (f"TraceGfnOrder == <<{', '.join(str(p) for p in range(profile.pages))}>>\n"
              f"TraceSlotOf == [p \\in TracePages |-> CASE "
              + " [] ".join(f"p = {p} -> {s}" for p, s in enumerate(layout.slot_of))
              + "]\n")  # fmt: skip
    text = text[:start] + consts + _REPLAY.lstrip("\n") + "\n" + walk
    return (text.replace("EXTENDS ESSA, Sequences, TLC", "EXTENDS ESSAMigrationVMM, Sequences, TLC")
            .replace("checked against spec/ESSA.tla.    ", "checked against ESSAMigrationVMM.tla.")
            .replace("THEN ~ENABLED A /\\ UNCHANGED vars", "THEN ~ENABLED A /\\ UNCHANGED allVars"))


def config_text(profile: Any) -> str:
    """The .cfg: the ESSA constants, and the layout's."""
    constants = "\n".join(constant_lines(CONSTANTS, profile))
    layout = profile.layout
    at_start = ", ".join(str(s) for s in sorted(layout.at_start))
    return f"""\\* The recorded engine's profile; pages are 0 .. Pages-1, memslots 0, 1, ...
CONSTANTS
    Pages <- TracePages
    NoPage <- TraceNoPage
{constants}
    GfnOrder <- TraceGfnOrder
    SlotOf <- TraceSlotOf
    SlotsAtStart = {{{at_start}}}
    MaxBitDistance = {layout.max_bit_distance}
    MaxCount = {max(3, layout.max_count)}
    SlotDeleteFix = {"TRUE" if profile.slot_delete_fix else "FALSE"}
SPECIFICATION TraceSpec
"""


def check_with_tlc(profile: Any, steps: Sequence[tuple[EssaRequest, EssaReply]], *,
                   directory: object = None, timeout: float = 300.0) -> TlcVerdict:  # fmt: skip
    """TLC's verdict on the trace; the module and .cfg stay in ``directory`` if given."""
    from pathlib import Path

    if not expressible(profile):
        return TlcVerdict(False, None, 0.0, "not checked by TLC: spec/ESSAMigrationVMM.tla's guest "
                          "frames are 0 .. Pages-1, and this layout has a hole or starts past 0")  # fmt: skip
    where = Path(str(directory)) if directory is not None else None
    return run_trace_module(module_text(profile, steps), config_text(profile),
                            directory=where, timeout=timeout)  # fmt: skip
