"""An ESSA trace as a TLA+ module that TLC checks against spec/ESSA.tla (trace validation).

The technique of :mod:`conformance.pagestates.tla` (a ``Trace`` constant walked by a ``cursor``; a step that
is not a behaviour of the spec leaves no successor, and TLC reports a deadlock at its number).
Every request is replayed by the spec's own action or operator, so the module holds no rule of
its own:

    | request                  | spec                                                      |
    |--------------------------|-----------------------------------------------------------|
    | ESSA orc p               | ESSA("ESSA", orc, p), codes above 8 as 8; R1 checked      |
    |   from problem state     | GuestEssaProblemState(p)                                  |
    |   beyond guest memory    | GuestEssaBeyondMemory with lastOp'.orc = orc              |
    | Read p, Write p v        | ReadAccess, WriteAccess (the host-visible part of         |
    |                          | GuestRead and GuestWrite); Read's value checked           |
    | Writeback p              | ResetChangeBit (the host-visible part of GuestWriteback)  |
    | HostReclaim p, HostAge p,| the host action of that name                              |
    | HostUnmapGmap p,         |                                                           |
    | HostProcessCBRL, Migrate,|                                                           |
    | HostResetCMMA            |                                                           |
    | outcome Refused          | ~ENABLED of the action, nothing changes                   |

The outcome is the spec's lastOp'.outcome, except that the spec's ExceptionIndication (R1 0x10)
and Interpreted (an ESSA the machine interpreted, D101) are the wire's Done. After each step
every page must be as the engine reported it: ``usage``, ``valid``, ``swapped``, ``zbit``,
``nodat``, and each optional field the engine reported (``dirty`` as keyDirty, ``gc``,
``gmapPte``, ``pteUnused``). The guest's variables (owed, belief, modified) are the actions'
own: a harness has no guest, so the steps that are only the host-visible part of a guest action
leave them unchanged. The .cfg assigns every
constant of :data:`refimpl.essa.CONSTANTS`, so a new constant needs no change here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from refimpl.core.constants import constant_lines
from refimpl.essa import CONSTANTS, EssaProfile

from .protocol import NONE, EssaReply, EssaRequest, HostPage
from ..tlc import MODULE, TRACE_WALK, TlcVerdict, run_trace_module

#: A page field the engine did not report, as the module writes it.
NOT_REPORTED = "-1"


def _bool(b: bool) -> str:
    return "TRUE" if b else "FALSE"


def _optional_bit(b: bool | None) -> str:
    return NOT_REPORTED if b is None else str(int(b))


def _page(pg: HostPage) -> str:
    # gmapPte and pteUnused are optional fields a protocol may add to HostPage; absent: unreported.
    gmap_pte = getattr(pg, "gmapPte", None)
    fields = [f'usage |-> "{pg.usage}"', f"valid |-> {_bool(pg.valid)}",
              f"swapped |-> {_bool(pg.swapped)}", f"zbit |-> {_bool(pg.zbit)}",
              f"nodat |-> {_bool(pg.nodat)}", f"dirty |-> {_optional_bit(pg.dirty)}",
              f"gc |-> {_optional_bit(pg.gc)}",
              f'gmapPte |-> "{NOT_REPORTED if gmap_pte is None else gmap_pte}"',
              f"pteUnused |-> {_optional_bit(getattr(pg, 'pteUnused', None))}",
              f"cmmaDirty |-> {_optional_bit(getattr(pg, 'cmmaDirty', None))}"]  # fmt: skip
    return f"[{', '.join(fields)}]"


def _entry(req: EssaRequest, reply: EssaReply) -> str:
    pages = " @@ ".join(f"{q} :> {_page(pg)}" for q, pg in enumerate(reply.pages))
    # problem_state and beyond_memory: the ESSA request's flags where the protocol has them.
    ps, bm = getattr(req, "problem_state", False), getattr(req, "beyond_memory", False)
    return (f'[op |-> "{req.op}", page |-> {req.page}, orc |-> {min(req.orc, 8)}, '
            f"arg |-> {1 if req.arg == NONE else req.arg}, ps |-> {_bool(ps)}, bm |-> {_bool(bm)}, "
            f'outcome |-> "{reply.outcome}", result |-> {reply.result}, value |-> {reply.value}, '
            f"seen |-> ({pages})]")  # fmt: skip


#: The ESSAMigration mode's replay (``migration``): every ESSA-mode step is the spec's Tracked
#: step (an ESSA carried out in migration mode marks its page), the reset only outside
#: migration, Migrate the switch; MigrationSend's value is the usage and N it sent.
_MIGRATION_REPLAY: Final = r"""
\* KVM_S390_GET_CMMA_BITS's value: the PGSTE's usage code, 0x40 for N.
CmmaValue(u, n) == (CASE u = "S" -> 0 [] u = "U" -> 1 [] u = "P" -> 2 [] u = "V" -> 3)
                   + (IF n THEN 64 ELSE 0)

Replay(e) ==
    /\ CASE e.op = "ESSA" -> Performed(e, Tracked(Instruction(e)))
          [] e.op = "Read" -> Performed(e, Tracked(ReadAccess("Read", e.page) /\ UNCHANGED GuestVars))
          [] e.op = "Write" -> Performed(e, Tracked(WriteAccess("Write", e.page, e.arg) /\ UNCHANGED GuestVars))
          [] e.op = "Writeback" -> Performed(e, Tracked(ResetChangeBit("Writeback", e.page) /\ UNCHANGED GuestVars))
          [] e.op = "HostReclaim" -> Performed(e, Tracked(HostReclaim(e.page)))
          [] e.op = "HostUnmapGmap" -> Performed(e, Tracked(HostUnmapGmap(e.page)))
          [] e.op = "HostAge" -> Performed(e, Tracked(HostAge(e.page)))
          [] e.op = "HostProcessCBRL" -> Performed(e, Tracked(HostProcessCBRL))
          [] e.op = "HostResetCMMA" -> Performed(e, Tracked(~migrating /\ HostResetCMMA))
          [] e.op = "Migrate" -> Performed(e, MigrationSwitch)
          [] e.op = "MigrationStart" -> Performed(e, MigrationStart)
          [] e.op = "MigrationSend" -> Performed(e, MigrationSend(e.page))
    /\ e.result # -1 => lastOp'.result = e.result
    /\ e.value # -1 /\ e.op # "MigrationSend" => lastOp'.value = e.value
    /\ e.op = "MigrationSend" /\ e.outcome # "Refused" =>
           CmmaValue(sentUsage'[e.page], sentNoDat'[e.page]) = e.value
    /\ Seen(e)
    /\ \A q \in DOMAIN e.seen : cmmaDirty'[q] = (e.seen[q].cmmaDirty = 1)
"""


def module_text(profile: EssaProfile, steps: Sequence[tuple[EssaRequest, EssaReply]],
                migration: bool = False) -> str:
    """The trace module; ``migration``: of the ESSAMigration mode, against
    spec/ESSAMigration.tla."""
    text = _module_text(profile, steps)
    if not migration:
        return text
    start = text.index("Replay(e) ==")
    end = text.index("TraceInit ==")
    walk = text[end:].replace("TraceInit == Init", "TraceInit == MInit").replace(
        "UNCHANGED <<vars, cursor>>", "UNCHANGED <<mvars, cursor>>")  # fmt: skip
    text = text[:start] + _MIGRATION_REPLAY.lstrip("\n") + "\n" + walk
    return (text.replace("EXTENDS ESSA, Sequences, TLC", "EXTENDS ESSAMigration, Sequences, TLC")
            .replace("checked against spec/ESSA.tla.    ", "checked against ESSAMigration.tla.")
            .replace("THEN ~ENABLED A /\\ UNCHANGED vars", "THEN ~ENABLED A /\\ UNCHANGED mvars"))


def _module_text(profile: EssaProfile, steps: Sequence[tuple[EssaRequest, EssaReply]]) -> str:
    entries = ",\n    ".join(_entry(r, a) for r, a in steps)
    header = f"MODULE {MODULE}"
    rule = "-" * max(4, (77 - len(header)) // 2)
    return f"""{rule} {header} {rule}
(***************************************************************************)
(* A trace recorded from an ESSA engine, checked against spec/ESSA.tla.    *)
(* Generated by the conformance suite (conformance/essa/tla.py): each      *)
(* entry is a request with the engine's reply and the host state of every *)
(* page it reported afterwards (seen; a field it did not report: -1).      *)
(* A deadlock at cursor = k means step k is not a behaviour of the spec.   *)
(***************************************************************************)
\\* Profile: {profile.describe()}; {len(steps)} steps.
EXTENDS ESSA, Sequences, TLC

TracePages  == 0 .. {profile.pages - 1}
TraceNoPage == -1

Trace == <<
    {entries}
    >>

VARIABLE cursor   \\* the next step of Trace to replay

Unreported == {NOT_REPORTED}

\\* Every page as the engine reported it after the step.
Seen(e) ==
    \\A q \\in DOMAIN e.seen :
        LET s == e.seen[q] IN
        /\\ usage'[q] = s.usage
        /\\ valid'[q] = s.valid
        /\\ swapped'[q] = s.swapped
        /\\ zbit'[q] = s.zbit
        /\\ nodat'[q] = s.nodat
        /\\ s.dirty # Unreported => keyDirty'[q] = (s.dirty = 1)
        /\\ s.gc # Unreported => gc'[q] = (s.gc = 1)
        /\\ s.gmapPte # "{NOT_REPORTED}" => gmapPte'[q] = s.gmapPte
        /\\ s.pteUnused # Unreported => pteUnused'[q] = (s.pteUnused = 1)

\\* The wire says Done for the spec's ExceptionIndication (R1 = 0x10) and for an ESSA the
\\* machine interpreted (D101): either path the spec allows may be the engine's; Seen decides.
WireOutcome(o) == IF o \\in {{"ExceptionIndication", "Interpreted"}} THEN "Done" ELSE o

\\* The action A performed with the observed outcome, or refused: not enabled.
Performed(e, A) ==
    IF e.outcome = "Refused"
    THEN ~ENABLED A /\\ UNCHANGED vars
    ELSE A /\\ WireOutcome(lastOp'.outcome) = e.outcome

\\* The instruction, from supervisor state on a page, from problem state, or beyond memory.
Instruction(e) ==
    IF e.ps THEN GuestEssaProblemState(e.page)
    ELSE IF e.bm THEN GuestEssaBeyondMemory /\\ lastOp'.orc = e.orc
    ELSE ESSA("ESSA", e.orc, e.page) /\\ UNCHANGED GuestVars

Replay(e) ==
    /\\ CASE e.op = "ESSA" -> Performed(e, Instruction(e))
          [] e.op = "Read" -> Performed(e, ReadAccess("Read", e.page) /\\ UNCHANGED GuestVars)
          [] e.op = "Write" -> Performed(e, WriteAccess("Write", e.page, e.arg) /\\ UNCHANGED GuestVars)
          [] e.op = "Writeback" -> Performed(e, ResetChangeBit("Writeback", e.page) /\\ UNCHANGED GuestVars)
          [] e.op = "HostReclaim" -> Performed(e, HostReclaim(e.page))
          [] e.op = "HostUnmapGmap" -> Performed(e, HostUnmapGmap(e.page))
          [] e.op = "HostAge" -> Performed(e, HostAge(e.page))
          [] e.op = "HostProcessCBRL" -> Performed(e, HostProcessCBRL)
          [] e.op = "Migrate" -> Performed(e, Migrate)
          [] e.op = "HostResetCMMA" -> Performed(e, HostResetCMMA)
    /\\ e.result # {NONE} => lastOp'.result = e.result
    /\\ e.value # {NONE} => lastOp'.value = e.value
    /\\ Seen(e)

{TRACE_WALK}{"=" * 77}
"""


def config_text(profile: EssaProfile) -> str:
    constants = "\n".join(constant_lines(CONSTANTS, profile))
    return f"""\\* The recorded engine's profile; pages are 0 .. Pages-1.
CONSTANTS
    Pages <- TracePages
    NoPage <- TraceNoPage
{constants}
SPECIFICATION TraceSpec
"""


def check_with_tlc(profile: EssaProfile, steps: Sequence[tuple[EssaRequest, EssaReply]], *,
                   directory: object = None, timeout: float = 300.0,
                   migration: bool = False) -> TlcVerdict:  # fmt: skip
    """TLC's verdict on the trace; the module and .cfg stay in ``directory`` if given."""
    from pathlib import Path

    where = Path(str(directory)) if directory is not None else None
    return run_trace_module(module_text(profile, steps, migration), config_text(profile),
                            directory=where, timeout=timeout)  # fmt: skip
