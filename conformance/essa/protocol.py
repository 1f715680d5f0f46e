"""The ESSA mode of the conformance protocol (PROTOCOL.md, "The ESSA machine"): the instruction
layer of spec/ESSA.tla, for a harness around real hypervisor code.

An ESSA engine holds a few guest pages in the host's view (usage, valid, swapped, Z, no-DAT, the
content, the storage key's change bit, GC, and under KVMGmap the gmap PTE and _PAGE_UNUSED) and
the CBRL. The driver sends it requests, one at a
time (:data:`ESSA_OPS`): the ESSA instruction with an operation-request code (also from problem
state, or on an address beyond guest memory), the host's actions (``HostReclaim``,
``HostProcessCBRL``, ``Migrate``, ``HostUnmapGmap``, ``HostAge``, ``HostResetCMMA``) and the
guest's accesses (``Read``, ``Write``, ``Writeback``). Every reply carries the outcome, the R1 byte (ESSA), the value
(``Read``) and the host state of every page, so a divergence is caught at the step it happens.

The oracle is :mod:`refimpl.essa` (:func:`oracle_step`): the instruction is its ``essa``, the host
actions its ``step``; the guest's accesses are the spec's GuestRead / GuestWrite /
GuestWriteback on the host's variables without the guest's bookkeeping (a harness issues any
access, not only those a correct guest would). Three engines are here: the reference engine of a
profile (:class:`EssaReferenceEngine`), the JSON-lines client (:class:`EssaJsonLinesEngine`), and
a JSON-lines server around the reference engine (``python -m conformance.essa --impl KVMGmap``),
which is also an example of an adapter.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, Protocol, TextIO, runtime_checkable

from refimpl import essa as oracle
from refimpl.core.constants import from_json as constants_from_json
from refimpl.core.constants import combinations, json_value
from refimpl.core.package import Refused
from refimpl.essa import CONSTANTS, ESSA, USAGES, EssaPage, EssaProfile, EssaProfileError, EssaState, rules
from refimpl.essa import machine
from refimpl.essa.profile import KNOWN_BUGS
from refimpl.essa.profile import profiles as run_profiles
from refimpl.essa.vmm import SET_MASKS

from ..jsonlines import DEFAULT_TIMEOUT, DEFAULT_WINDOW, JsonLinesEngine
from ..protocol import VERSION, EngineFault, ProtocolError, Unsupported

#: The value of ``machine`` in the hello of the ESSA mode.
ESSA_MACHINE: Final = "ESSA"
#: Every request of the ESSA mode, by ``op``.
ESSA_OPS: Final = ("ESSA", "HostReclaim", "HostProcessCBRL", "Migrate", "Read", "Write",
                   "Writeback", "HostUnmapGmap", "HostAge", "HostResetCMMA")  # fmt: skip
#: The requests of the ESSAMigration mode beside :data:`ESSA_OPS` (conformance.essa_migration).
MIGRATION_OPS: Final = ("MigrationStart", "MigrationSend")
#: The ESSAMigrationVMM mode's own requests (besides ``MigrationStart``; no ``MigrationSend``).
VMM_OPS: Final = ("MigrationStart", "MigrationStop", "Get", "Peek", "SlotCreate", "SlotLogging",
                  "SlotDelete")
#: Requests of no page (HostProcessCBRL takes the CBRL's head; Migrate, HostResetCMMA and
#: MigrationStart act on every page).
PAGELESS_OPS: Final = frozenset({"HostProcessCBRL", "Migrate", "HostResetCMMA", "MigrationStart",
                                 "MigrationStop", "Get", "Peek", "SlotCreate", "SlotLogging",
                                 "SlotDelete"})  # fmt: skip
#: The outcomes a reply may carry.
ESSA_OUTCOMES: Final = (
    "Done", "SpecificationException", "OperationException", "PrivilegedOperation", "Zapped",
    "ZappedOtherPage", "Kept", "Value", "DiscardFault", "AddressingException", "Refused",
)  # fmt: skip
#: The ORCs of an ESSA on an address beyond guest memory (the spec's GuestEssaBeyondMemory).
BEYOND_MEMORY_ORCS: Final = machine.BEYOND_MEMORY_ORCS
#: The values of a page's optional ``gmapPte`` (KVMGmap's gmap PTE).
GMAP_PTES: Final = ("Valid", "Aged", "Empty")
NONE: Final = -1  # no page, no ORC, no R1 byte, no value
#: The ORC field of ESSA is four bits.
MAX_ORC: Final = oracle.MAX_ORC_FIELD
#: ORC 0-7 by the names of the Linux kernel's asm/page-states.h (ESSA_GET_STATE ...).
ORC_NAMES: Final[dict[int, str]] = {
    0: "ESSA_GET_STATE",
    1: "ESSA_SET_STABLE",
    2: "ESSA_SET_UNUSED",
    3: "ESSA_SET_VOLATILE",
    4: "ESSA_SET_POT_VOLATILE",
    5: "ESSA_SET_STABLE_RESIDENT",
    6: "ESSA_SET_STABLE_IF_RESIDENT",
    7: "ESSA_SET_STABLE_NODAT",
}


#: The conditions of the effect tables, in the words of the reply's page fields.
CONDITION_TEXT: Final[dict[str, str]] = {
    "any": "otherwise",
    "valid": "`valid`",
    "Z": "`zbit`",
    "GC clear": "`gc` clear",
    "preserved": "not `valid`, `swapped`",
    "preserved, dirty": "not `valid`, `swapped`, `dirty`",
    "zero": "not `valid`, not `swapped`",
    "V, zero": "usage V, not `valid`, not `swapped`",
}


#: The value a Write stores when the request names none (the spec's Written).
WRITTEN: Final = 1
_HOST_FIELDS: Final = ("usage", "valid", "swapped", "zbit", "nodat")
#: Page fields an engine may leave out (then they are not compared): the storage key's change
#: bit, KVM's guest-change bit GC, and the new gmap's gmap PTE and _PAGE_UNUSED bit.
_OPTIONAL_FIELDS: Final = ("dirty", "gc", "gmapPte", "pteUnused")
#: Page fields of the ESSAMigration mode only (PROTOCOL.md, "Incremental migration"): required
#: there, absent here.
MIGRATION_FIELDS: Final = ("cmmaDirty",)


# --------------------------------------------------------------------------- vocabulary


@dataclass(frozen=True)
class EssaRequest:
    """One request: ``op`` (one of :data:`ESSA_OPS`), ``page`` (:data:`NONE` for the pageless
    ones), ``orc`` (ESSA only) and ``arg`` (Write only, as in the PageStates mode; :data:`NONE`
    stores 1). An ESSA may come from problem state (``problem_state``, wire ``problemState``) or
    name an address beyond guest memory (``beyond_memory``, wire ``beyondMemory``; no page).
    The ESSAMigrationVMM mode's ``Get`` and ``Peek`` name a guest frame ``start`` and a
    ``count``; its memslot requests a ``slot`` and (``SlotCreate``, ``SlotLogging``) whether
    it ``logging`` dirty pages; its ``Migrate`` may carry the SET's ``mask`` (:data:`NONE`:
    QEMU's, every bit)."""

    op: str
    page: int = NONE
    orc: int = NONE
    arg: int = NONE
    problem_state: bool = False
    beyond_memory: bool = False
    start: int = NONE
    count: int = NONE
    slot: int = NONE
    logging: bool | None = None
    mask: int = NONE

    def fields(self) -> dict[str, Any]:
        """The request's fields as a step request and a trace line carry them."""
        obj: dict[str, Any] = {"op": self.op}
        if self.page != NONE:
            obj["page"] = self.page
        if self.orc != NONE:
            obj["orc"] = self.orc
        if self.arg != NONE:
            obj["arg"] = self.arg
        if self.problem_state:
            obj["problemState"] = True
        if self.beyond_memory:
            obj["beyondMemory"] = True
        if self.start != NONE:
            obj["start"] = self.start
        if self.count != NONE:
            obj["count"] = self.count
        if self.slot != NONE:
            obj["slot"] = self.slot
        if self.logging is not None:
            obj["logging"] = self.logging
        if self.mask != NONE:
            obj["mask"] = self.mask
        return obj

    def to_json(self, rid: int) -> dict[str, Any]:
        return {"type": "step", "id": rid, **self.fields()}

    def describe(self) -> str:
        if self.op == "ESSA":
            name = ORC_NAMES.get(self.orc, "undefined")
            if self.beyond_memory:
                return f"ESSA ORC {self.orc} ({name}) beyond guest memory"
            where = " from problem state" if self.problem_state else ""
            return f"ESSA ORC {self.orc} ({name}) page {self.page}{where}"
        if self.start != NONE:
            return f"{self.op} start {self.start} count {self.count}"
        if self.slot != NONE:
            log = "" if self.logging is None else (" logging" if self.logging else " not logging")
            return f"{self.op} memslot {self.slot}{log}"
        if self.mask != NONE:
            return f"{self.op} mask 0x{self.mask:02x}"
        page = "" if self.page == NONE else f" {self.page}"
        arg = "" if self.arg == NONE else f" {self.arg}"
        return f"{self.op}{page}{arg}"


def essa_request(obj: dict[str, Any], pages: int, migration: bool = False,
                 vmm: bool = False) -> EssaRequest:  # fmt: skip
    """A decoded step request, checked (for servers); raises ProtocolError. ``migration``: the
    ESSAMigration mode's, which has :data:`MIGRATION_OPS` too; ``vmm``: the ESSAMigrationVMM
    mode's, which has :data:`VMM_OPS` instead."""
    op = obj.get("op")
    ops = ESSA_OPS + (VMM_OPS if vmm else MIGRATION_OPS if migration else ())
    if op not in ops:
        raise ProtocolError(f"unknown op {op!r}: one of {', '.join(ops)}")
    flags = {}
    for key in ("problemState", "beyondMemory"):
        v = obj.get(key, False)
        if not isinstance(v, bool):
            raise ProtocolError(f"{key} must be true or false, not {v!r}")
        if v and op != "ESSA":
            raise ProtocolError(f"{key} is a field of ESSA only, not of {op}")
        flags[key] = v
    if flags["problemState"] and flags["beyondMemory"]:
        raise ProtocolError("an ESSA is either from problem state or beyond memory, not both")
    page = obj.get("page", NONE)
    if op in PAGELESS_OPS or flags["beyondMemory"]:
        page = NONE
    elif not _is_int(page) or not 0 <= page < pages:
        raise ProtocolError(f"{op}: page {page!r} is not one of 0 .. {pages - 1}")
    orc = obj.get("orc", NONE) if op == "ESSA" else NONE
    if op == "ESSA" and (not _is_int(orc) or not 0 <= orc <= MAX_ORC):
        raise ProtocolError(f"ESSA: orc {orc!r} is not one of 0 .. {MAX_ORC}")
    if flags["beyondMemory"] and orc not in BEYOND_MEMORY_ORCS:
        raise ProtocolError(f"ESSA beyond memory: orc {orc!r} is not one of "
                            f"{', '.join(map(str, BEYOND_MEMORY_ORCS))}")  # fmt: skip
    arg = obj.get("arg", NONE) if op == "Write" else NONE
    if op == "Write" and arg != NONE and (not _is_int(arg) or arg < 0):
        raise ProtocolError(f"Write: arg {arg!r} is not a non-negative integer")
    extra: dict[str, Any] = {}
    if op in ("Get", "Peek"):
        for key in ("start", "count"):
            v = obj.get(key)
            if not isinstance(v, int) or isinstance(v, bool) or v < (1 if key == "count" else 0):
                raise ProtocolError(f"{op}: {key} {v!r} is not a "
                                    f"{'positive' if key == 'count' else 'non-negative'} integer")  # fmt: skip
            extra[key] = v
    if op in ("SlotCreate", "SlotLogging", "SlotDelete"):
        v = obj.get("slot")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ProtocolError(f"{op}: slot {v!r} is not a non-negative integer")
        extra["slot"] = v
        if op != "SlotDelete":
            log = obj.get("logging")
            if not isinstance(log, bool):
                raise ProtocolError(f"{op}: logging must be true or false, not {log!r}")
            extra["logging"] = log
    if vmm and op == "Migrate" and "mask" in obj:
        m = obj["mask"]
        if m not in SET_MASKS or isinstance(m, bool):
            raise ProtocolError(f"Migrate: mask {m!r} is not one of "
                                f"{', '.join(f'0x{v:02x}' for v in SET_MASKS)}")  # fmt: skip
        extra["mask"] = m
    return EssaRequest(op, page, orc, arg, flags["problemState"], flags["beyondMemory"], **extra)


class HostPage(NamedTuple):
    """The host's view of one page, as a reply carries it. The optional fields (``dirty``,
    ``gc``, ``gmapPte``, ``pteUnused``) are None when the engine does not report them."""

    usage: str
    valid: bool
    swapped: bool
    zbit: bool
    nodat: bool
    dirty: bool | None = None
    gc: bool | None = None
    gmapPte: str | None = None
    pteUnused: bool | None = None
    #: The ESSAMigration mode's page bit in the second dirty bitmap (None in the ESSA mode).
    cmmaDirty: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self._asdict().items() if v is not None}

    def describe(self) -> str:
        flags = [n for n in ("valid", "swapped", "zbit", "nodat", "dirty", "gc", "pteUnused",
                             "cmmaDirty") if getattr(self, n)]  # fmt: skip
        pte = [] if self.gmapPte is None else [f"gmapPte={self.gmapPte}"]
        return " ".join([self.usage, *flags, *pte])

    def as_reported(self, other: HostPage) -> HostPage:
        """This page with the optional fields ``other`` leaves out (:data:`_OPTIONAL_FIELDS`)
        left out too. Spelled out field by field: the driver calls it on every step of an engine
        that leaves one out."""
        if other.dirty is not None and other.gc is not None and other.gmapPte is not None \
                and other.pteUnused is not None:  # fmt: skip
            return self
        return HostPage(self.usage, self.valid, self.swapped, self.zbit, self.nodat,
                        None if other.dirty is None else self.dirty,
                        None if other.gc is None else self.gc,
                        None if other.gmapPte is None else self.gmapPte,
                        None if other.pteUnused is None else self.pteUnused,
                        self.cmmaDirty)  # fmt: skip


class EssaReply(NamedTuple):
    """A reply: the outcome, the R1 byte (ESSA's ``Done``), the value (``Read``'s ``Value``), the
    host state of every page after the step, and a reason (ignored when compared). A ``Get`` or
    ``Peek`` of the ESSAMigrationVMM mode answers the first guest frame reported (``start``),
    the ``values`` (each as :func:`~conformance.essa_migration.cmma_value` encodes it) and
    ``remaining``."""

    outcome: str
    result: int = NONE
    value: int = NONE
    pages: tuple[HostPage, ...] = ()
    reason: str = ""
    start: int = NONE
    values: tuple[int, ...] | None = None
    remaining: int = NONE

    def observed(self) -> tuple[object, ...]:
        """What the driver compares (everything but the reason)."""
        return (self.outcome, self.result, self.value, self.pages, self.start, self.values,
                self.remaining)  # fmt: skip

    def as_reported(self, other: EssaReply) -> EssaReply:
        """This (expected) reply with the optional page fields ``other`` leaves out left out."""
        if len(self.pages) != len(other.pages):
            return self
        pages = tuple(a.as_reported(b) for a, b in zip(self.pages, other.pages))
        return self._replace(pages=pages)

    def differences(self, other: EssaReply) -> list[str]:
        """The fields in which ``other`` (observed) differs from this (expected) reply:
        ``outcome``, ``result``, ``value``, ``pages[1].zbit`` ..."""
        if self.observed() == other.observed():  # the common case, when every field is reported
            return []
        want = self.as_reported(other)
        if want.observed() == other.observed():  # equal but for the fields left out
            return []
        out = [f for f in ("outcome", "result", "value", "start", "values", "remaining")
               if getattr(want, f) != getattr(other, f)]  # fmt: skip
        if len(want.pages) != len(other.pages):
            return [*out, "pages"]
        for i, (a, b) in enumerate(zip(want.pages, other.pages)):
            out += [f"pages[{i}].{f}" for f in HostPage._fields if getattr(a, f) != getattr(b, f)]
        return out

    def to_json(self, rid: int) -> dict[str, Any]:
        obj: dict[str, Any] = {"id": rid, "outcome": self.outcome}
        if self.result != NONE:
            obj["result"] = self.result
        if self.value != NONE:
            obj["value"] = self.value
        if self.values is not None:
            obj["start"] = self.start
            obj["values"] = list(self.values)
            obj["remaining"] = self.remaining
        obj["pages"] = [pg.to_json() for pg in self.pages]
        if self.reason:
            obj["reason"] = self.reason
        return obj

    def describe(self) -> str:
        head = self.outcome
        if self.result != NONE:
            head += f" R1=0x{self.result:02X}"
        if self.value != NONE:
            head += f" {self.value}"
        if self.values is not None:
            head += f" start {self.start} values {list(self.values)} remaining {self.remaining}"
        pages = "; ".join(pg.describe() for pg in self.pages)
        return f"{head} [{pages}]"


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_essa_reply(obj: object, pages: int, migration: bool = False,
                     vmm: bool = False) -> EssaReply:  # fmt: skip
    """A decoded step reply, checked for its types and vocabulary; raises ProtocolError. With
    ``migration`` (the ESSAMigration modes) every page carries ``cmmaDirty``; else none does.
    With ``vmm`` (the ESSAMigrationVMM mode) a reply may answer ``start``, ``values`` and
    ``remaining``, all three or none."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"a reply must be an object, not {obj!r}")
    answer = ("start", "values", "remaining") if vmm else ()
    unknown = sorted(set(obj) - {"id", "outcome", "result", "value", "pages", "reason", *answer})
    if unknown:
        raise ProtocolError(f"the reply has unknown field(s) {', '.join(unknown)}")
    outcome = obj.get("outcome")
    if outcome not in ESSA_OUTCOMES:
        raise ProtocolError(f"unknown outcome {outcome!r}: one of {', '.join(ESSA_OUTCOMES)}")
    result = obj.get("result", NONE)
    if result is None:
        result = NONE
    if result != NONE and (not _is_int(result) or not 0 <= result <= 255):
        raise ProtocolError(f'"result" must be a byte (0 .. 255), not {result!r}')
    value = obj.get("value", NONE)
    if value is None:
        value = NONE
    if value != NONE and (not _is_int(value) or value < 0):
        raise ProtocolError(f'"value" must be a non-negative integer, not {value!r}')
    raw = obj.get("pages")
    if not isinstance(raw, list) or len(raw) != pages:
        raise ProtocolError(f'"pages" must be a list of {pages} page object(s), not {raw!r}')
    host = []
    for i, pg in enumerate(raw):
        required = _HOST_FIELDS + (MIGRATION_FIELDS if migration else ())
        if (not isinstance(pg, dict) or not set(required) <= set(pg)
                or not set(pg) <= set(required + _OPTIONAL_FIELDS)):  # fmt: skip
            raise ProtocolError(f'"pages"[{i}] must be an object with {", ".join(required)} '
                                f'and optionally {", ".join(_OPTIONAL_FIELDS)}')  # fmt: skip
        if pg["usage"] not in USAGES:
            raise ProtocolError(f'"pages"[{i}].usage must be one of {", ".join(USAGES)}')
        if "gmapPte" in pg and pg["gmapPte"] not in GMAP_PTES:
            raise ProtocolError(f'"pages"[{i}].gmapPte must be one of {", ".join(GMAP_PTES)}')
        for name in [*required[1:], *_OPTIONAL_FIELDS]:
            if name == "gmapPte":
                continue
            if name in pg and not isinstance(pg[name], bool):
                raise ProtocolError(f'"pages"[{i}].{name} must be true or false')
        host.append(HostPage(**pg))
    reason = obj.get("reason", "")
    if not isinstance(reason, str):
        raise ProtocolError(f'"reason" must be a string, not {reason!r}')
    given = [k for k in answer if k in obj]
    if not given:
        return EssaReply(outcome, result, value, tuple(host), reason)
    if len(given) != 3:
        raise ProtocolError('"start", "values" and "remaining" come together, not '
                            + ", ".join(f'"{k}"' for k in given) + " alone")  # fmt: skip
    start, values, remaining = obj["start"], obj["values"], obj["remaining"]
    if not _is_int(start) or start < 0 or not _is_int(remaining) or remaining < 0:
        raise ProtocolError('"start" and "remaining" must be non-negative integers')
    if not isinstance(values, list) or not all(_is_int(v) and 0 <= v <= 255 for v in values):
        raise ProtocolError(f'"values" must be a list of bytes (0 .. 255), not {values!r}')
    return EssaReply(outcome, result, value, tuple(host), reason, start, tuple(values), remaining)


class EssaProfileRequest:
    """An ESSA profile with every field optional: what a hello asks for or announces. The fields
    are the profile's (:data:`refimpl.essa.CONSTANTS` and ``pages``); a field left out is the
    other side's choice. Built from :data:`~refimpl.essa.CONSTANTS`, so a new constant of the spec
    reaches the hello, its JSON and every profile list without a change here."""

    ATTRS: tuple[str, ...] = tuple(c.attr for c in CONSTANTS) + ("pages",)

    def __init__(self, **fields: Any) -> None:
        unknown = sorted(set(fields) - set(self.ATTRS))
        if unknown:
            raise TypeError(f"unknown profile field(s) {', '.join(unknown)}")
        self.fields: dict[str, Any] = {k: v for k, v in fields.items() if v is not None}

    def __getattr__(self, name: str) -> Any:
        if name in type(self).ATTRS:
            return self.__dict__["fields"].get(name)
        raise AttributeError(name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EssaProfileRequest) and type(other) is type(self) \
            and self.fields == other.fields

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.fields.items(), key=lambda kv: kv[0])))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.fields.items())})"

    def to_json(self) -> dict[str, Any]:
        obj = {c.tla: json_value(self.fields[c.attr]) for c in CONSTANTS if c.attr in self.fields}
        if "pages" in self.fields:
            obj["Pages"] = self.fields["pages"]
        return obj

    @classmethod
    def from_json(cls, obj: object) -> EssaProfileRequest:
        if obj is None:
            return cls()
        if not isinstance(obj, dict):
            raise ProtocolError(f'"profile" must be an object, not {obj!r}')
        try:
            fields = constants_from_json(CONSTANTS, obj)
        except ValueError as exc:
            raise ProtocolError(f'"profile": {exc}') from None
        for c in CONSTANTS:
            v = fields.get(c.attr)
            if isinstance(v, str) and v not in c.domain:
                raise ProtocolError(f"unknown {c.tla} {v!r}: one of {', '.join(map(str, c.domain))}")
            if isinstance(v, int) and not isinstance(v, bool) and v < 1:
                raise ProtocolError(f"{c.tla} must be a positive integer, not {v!r}")
        return cls(**fields)

    @classmethod
    def of(cls, p: EssaProfile) -> EssaProfileRequest:
        return cls(**{a: getattr(p, a) for a in cls.ATTRS})

    def merged(self, other: EssaProfileRequest) -> EssaProfileRequest:
        """Fields of ``self``, else of ``other``."""
        return type(self)(**{**other.fields, **self.fields})

    def without(self, *attrs: str) -> EssaProfileRequest:
        return type(self)(**{k: v for k, v in self.fields.items() if k not in attrs})

    def conflicts(self, other: EssaProfileRequest) -> list[str]:
        """The fields both set, differently."""
        return [a for a in self.ATTRS
                if a in self.fields and a in other.fields and self.fields[a] != other.fields[a]]  # fmt: skip

    def profile(self, pages: int = 1) -> EssaProfile:
        """The profile, each field left open at its constant's first value (``pages``: the
        given default). Raises EssaProfileError."""
        fields = {c.attr: c.domain[0] for c in CONSTANTS}
        fields["pages"] = pages
        return EssaProfile(**{**fields, **self.fields})


class EssaEngineInfo(NamedTuple):
    """An ESSA engine's hello: its name and the profile it announces (fields may be ``None``)."""

    name: str
    profile: EssaProfileRequest


@runtime_checkable
class EssaEngine(Protocol):
    """An ESSA engine in-process: hello, reset, step, close (as the PageStates engine)."""

    def hello(self, request: EssaProfileRequest) -> EssaEngineInfo: ...

    def reset(self) -> None: ...

    def step(self, request: EssaRequest) -> EssaReply: ...

    def close(self) -> None: ...


# --------------------------------------------------------------------------- the oracle


def host_pages(profile: EssaProfile, s: EssaState) -> tuple[HostPage, ...]:
    """The pages as the reference engine reports them: every field, ``gmapPte`` and
    ``pteUnused`` under KVMGmap only (elsewhere they do not exist)."""
    if profile.gmap:
        return tuple(HostPage(pg.usage, pg.valid, pg.swapped, pg.zbit, pg.nodat, pg.keyDirty,
                              pg.gc, pg.gmapPte, pg.pteUnused) for pg in s.pages)  # fmt: skip
    return tuple(HostPage(pg.usage, pg.valid, pg.swapped, pg.zbit, pg.nodat, pg.keyDirty, pg.gc)
                 for pg in s.pages)  # fmt: skip


def _with(s: EssaState, p: int, pg: EssaPage) -> EssaState:
    return s._replace(pages=s.pages[:p] + (pg,) + s.pages[p + 1 :])


#: The answers :func:`oracle_step` gave, by (profile, state, request): the tours replay every
#: program from a reset, hypothesis's examples share prefixes, and an in-process reference
#: engine asks the same question as the driver, so most steps are asked before (measured in
#: bench/conformance_bench.py). Cleared when full, so memory stays bounded.
_ORACLE_MEMO: dict[tuple[EssaProfile, EssaState, EssaRequest], tuple[EssaState, EssaReply]] = {}
_ORACLE_BY_ID: dict[tuple[int, int, EssaRequest], tuple[EssaState, EssaProfile,
                                                       tuple[EssaState, EssaReply]]] = {}
ORACLE_MEMO_SIZE: Final = 200_000


def forget_oracle_answers() -> None:
    """Empty the memo, so that a measurement starts as a fresh ``run`` process does (the bench
    times each run from a cold memo; a warm one would flatter every run after the first)."""
    _ORACLE_MEMO.clear()
    _ORACLE_BY_ID.clear()


def oracle_step(profile: EssaProfile, s: EssaState, req: EssaRequest) -> tuple[EssaState, EssaReply]:
    """The reference's answer to ``req`` in state ``s``: the successor and the reply (the first of
    :func:`oracle_steps`)."""
    # First by identity: a tour asks about the very state objects the memo returned, and hashing
    # a state (a tuple of page tuples) is most of a lookup's cost. The entry keeps its state
    # alive, so an id is not reused while its entry is there.
    by_id = _ORACLE_BY_ID.get((id(profile), id(s), req))
    if by_id is not None and by_id[0] is s and by_id[1] is profile:
        return by_id[2]
    key = (profile, s, req)
    found = _ORACLE_MEMO.get(key)
    if found is None:
        t, outcome, result, value, reason = _oracle(profile, s, req)
        found = t, EssaReply(outcome, result, value, host_pages(profile, t), reason)
        if len(_ORACLE_MEMO) >= ORACLE_MEMO_SIZE:
            _ORACLE_MEMO.clear()
            _ORACLE_BY_ID.clear()
        _ORACLE_MEMO[key] = found
    _ORACLE_BY_ID[(id(profile), id(s), req)] = (s, profile, found)
    return found


def oracle_steps(profile: EssaProfile, s: EssaState, req: EssaRequest
                 ) -> Iterator[tuple[EssaState, EssaReply]]:  # fmt: skip
    """Every answer the spec allows: one, except HostProcessCBRL under CBRLGuestAddress, whose
    zap may land on any other page or on none (D100)."""
    if req.op != "HostProcessCBRL" or not s.cbrl or "CBRLGuestAddress" not in profile.bugs:
        yield oracle_step(profile, s, req)
        return
    for t in oracle.successors(profile, s, ("HostProcessCBRL", NONE, NONE)):
        yield t, EssaReply(t.lastOp.outcome, NONE, NONE, host_pages(profile, t), "")


#: The spec's outcomes of an ESSA that are an R1 on the wire: 0x10 is an answer, not an event.
_R1_OUTCOMES: Final = frozenset({"Done", "ExceptionIndication"})


def _oracle(profile: EssaProfile, s: EssaState, req: EssaRequest) -> tuple[EssaState, str, int, int, str]:
    op, p = req.op, req.page
    if op == "ESSA" and (req.problem_state or req.beyond_memory):
        # The spec's GuestEssaProblemState (ORC 1; the outcome does not depend on the ORC) and
        # GuestEssaBeyondMemory: a program interruption or R1 = 0x10; nothing changes.
        action = "GuestEssaBeyondMemory" if req.beyond_memory else "GuestEssaProblemState"
        t0 = oracle.step(profile, s, action, NONE if req.beyond_memory else p,
                         req.orc if req.beyond_memory else NONE)  # fmt: skip
        assert not isinstance(t0, Refused), t0
        last = t0.lastOp
        if last.outcome in _R1_OUTCOMES:
            return t0, "Done", last.result, NONE, ""
        return t0, last.outcome, NONE, NONE, ""
    if op == "ESSA":
        r = oracle.essa(profile, s, req.orc, p)
        if isinstance(r, Refused):
            return s, "Refused", NONE, NONE, r.reason
        t, r1 = r
        if isinstance(r1, oracle.SpecificationException):
            return t, "SpecificationException", NONE, NONE, ""
        if isinstance(r1, oracle.ProgramInterruption):
            return t, r1.outcome, NONE, NONE, ""
        return t, "Done", r1, NONE, ""
    if op in ("HostReclaim", "HostProcessCBRL", "Migrate", "HostUnmapGmap", "HostAge",
              "HostResetCMMA"):  # fmt: skip
        r2 = oracle.step(profile, s, op, NONE if op in PAGELESS_OPS else p)
        if isinstance(r2, Refused):
            return s, "Refused", NONE, NONE, r2.reason
        return r2, r2.lastOp.outcome, NONE, NONE, ""
    pg = s.pages[p]
    if op == "Writeback":
        # The spec's GuestWriteback on the host's variables: with storage keys an SSKE, which
        # resets GC too and in the new gmap allocates the page table (D98).
        sske = profile.kvm and profile.storage_keys
        t = _with(s, p, pg._replace(keyDirty=False, gc=False if sske else pg.gc))
        return t._replace(pageTable=s.pageTable or (profile.gmap and profile.storage_keys)), \
            "Done", NONE, NONE, ""
    if rules.discard_fault(profile, pg):
        return s, "DiscardFault", NONE, NONE, ""
    if rules.addressing_exception(profile, pg):
        return s, "AddressingException", NONE, NONE, ""
    faulted, table = oracle.fault_in(profile, s, p)
    if op == "Read":
        return _with(s, p, faulted)._replace(pageTable=table), "Value", NONE, pg.data, ""
    assert op == "Write", op
    value = WRITTEN if req.arg == NONE else req.arg
    t = _with(s, p, faulted._replace(data=value, keyDirty=True))._replace(pageTable=table)
    return t, "Done", NONE, NONE, ""


# --------------------------------------------------------------------------- the driver's view


#: The ORCs the driver sends: every defined code, 8 (the first undefined) and 15 (the highest).
DRIVER_ORCS: Final = (*range(9), 15)


#: The ESSAs of no page: on an address beyond guest memory, with each ORC the spec models.
BEYOND_MEMORY: Final = tuple(EssaRequest("ESSA", NONE, o, beyond_memory=True)
                             for o in BEYOND_MEMORY_ORCS)  # fmt: skip


#: The requests that set a page's residency (its frame, its swap copy): what the neighbour groups
#: of the coverage tour vary on the other page.
RESIDENCY_OPS: Final = ("Write", "HostReclaim", "Read")
#: How far from the reset the neighbour groups go: the other page stored and reclaimed (two
#: steps) and this page two steps into its own machine, then every request from there.
NEIGHBOUR_DEPTH: Final = 5


def page_requests(page: int) -> tuple[EssaRequest, ...]:
    """Every request on one page: each driver ORC, an ESSA from problem state, the host actions,
    the guest's accesses; and the requests of no page."""
    return (
        *(EssaRequest("ESSA", page, o) for o in DRIVER_ORCS),
        EssaRequest("ESSA", page, 1, problem_state=True),
        *(EssaRequest(op, NONE if op in PAGELESS_OPS else page) for op in ESSA_OPS if op != "ESSA"),
        *BEYOND_MEMORY,
    )  # fmt: skip


def _pageless(r: EssaRequest) -> bool:
    return r.op in PAGELESS_OPS or r.beyond_memory


def all_requests(profile: EssaProfile) -> tuple[EssaRequest, ...]:
    """Every request on every page, the pageless ones once."""
    out = [r for p in range(profile.pages) for r in page_requests(p) if not _pageless(r)]
    return (*out, *(r for r in page_requests(0) if _pageless(r)))


def _key(s: EssaState) -> tuple[object, ...]:
    """A state without its last operation (which a reply does not show)."""
    return (s.pages, s.cbrl, s.pageTable, s.migrated)


def explore(profile: EssaProfile, requests: Sequence[EssaRequest], label: str
            ) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:  # fmt: skip
    """Every transition of the machine restricted to ``requests``: every state reachable from
    the initial state by them (breadth first, a shortest program to each), each followed by
    each request."""
    init = oracle.init(profile)
    seen: set[tuple[object, ...]] = {_key(init)}
    queue: deque[tuple[EssaState, tuple[EssaRequest, ...]]] = deque([(init, ())])
    while queue:
        s, prog = queue.popleft()
        text = f"{label} from {'; '.join(x.describe() for x in prog) or 'reset'}"  # once a state
        for r in requests:
            yield text, (*prog, r)
            t, reply = oracle_step(profile, s, r)
            if reply.outcome != "Refused" and _key(t) not in seen:
                seen.add(_key(t))
                queue.append((t, (*prog, r)))


def tour(profile: EssaProfile, page: int = 0) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:
    """Every transition of the one-page machine on ``page`` (the other pages stay as they
    start)."""
    return explore(profile, page_requests(page), f"tour of page {page}")


#: The requests of the queue tour, per page: a store, a reclaim (a swap copy to zap) and the
#: ESSA that queues a discard; HostProcessCBRL once.
QUEUE_OPS: Final = (("Write", NONE), ("HostReclaim", NONE), ("ESSA", 3))


def queue_tour(profile: EssaProfile) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:
    """The CBRL's order: every state of pages 0 and 1 reachable by stores, reclaims, ORC 3 and
    CBRL processing, each followed by each of them (the spec's Queue graph model, narrowed)."""
    reqs = [EssaRequest(op, p, orc) for p in (0, 1) for op, orc in QUEUE_OPS]
    return explore(profile, (*reqs, EssaRequest("HostProcessCBRL")), "queue tour")


def tours(profile: EssaProfile) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:
    """What ``run`` tours: the one-page machine on page 0, and with two pages or more and room
    for two CBRL entries, the queue tour."""
    yield from tour(profile, 0)
    if profile.pages >= 2 and profile.cbrl_size >= 2:
        yield from queue_tour(profile)


def decode_r1(r1: int) -> str:
    """The R1 byte in words: ``0x0F (V, zero)``, ``0x22 (S, preserved, N)``."""
    usage = {0: "S", 1: "U", 2: "P", 3: "V"}[(r1 >> 2) & 3]
    content = {0: "resident", 1: "content 1?", 2: "preserved", 3: "zero"}[r1 & 3]
    flags = [name for bit, name in ((0x20, "N"), (0x10, "exception")) if r1 & bit]
    extra = [f"bits 0x{r1 & 0xC0:02X}"] if r1 & 0xC0 else []
    return f"0x{r1:02X} ({', '.join([usage, content, *flags, *extra])})"


def _z_exchange(profile: EssaProfile) -> str:
    """What _gmap_ptep_xchg does to Z under ``profile`` (D100)."""
    if "StickyZero" in profile.bugs:
        return "Z kept (StickyZero: before the fix, _gmap_ptep_xchg kept pgste.zero)"
    return "Z cleared (_gmap_ptep_xchg)"


def _essa_rule(profile: EssaProfile, s: EssaState, req: EssaRequest) -> str:
    impl = profile.impl
    if not profile.cmma_enabled:
        return "CMMA not enabled for the VM: operation exception (PIC 1) before every other check"
    if req.problem_state:
        return "ESSA from problem state: privileged-operation exception (PIC 2), after the CMMA check"
    if req.beyond_memory:
        if profile.gmap:
            return "KVMGmap ESSA beyond guest memory: the gmap walk fails, R1 = 0x10"
        return f"{impl} ESSA beyond guest memory: addressing exception (PIC 5)"
    orc = min(req.orc, rules.HIGHEST_ORC)
    if rules.specification_exception(profile, orc):
        return f"specification exception: ORC {req.orc} (facility 147 {profile.facility147})"
    if profile.gmap and not s.pageTable:
        return ("KVMGmap ESSA without the gmap page table (a new VM; D97): R1 = 0x10, nothing "
                "changes; a Read or Write of any page, a Writeback with storage keys or Migrate "
                "creates it")  # fmt: skip
    pg = s.pages[req.page]
    row = rules.effect_row(profile, orc, pg)
    name = ORC_NAMES.get(orc, "undefined")
    which = "any other ORC" if row[0] == rules.OTHER else f"ORC {orc} {name}"
    text = f"{impl} ESSA, {which}, row \"{CONDITION_TEXT[row[1]]}\""
    if profile.gmap:
        text += f" (`valid` here is the gmap PTE: {pg.gmapPte})"
    if rules.EFFECT_TABLES[impl][row].queue and len(s.cbrl) >= profile.cbrl_size:
        text += f"; the CBRL is full ({len(s.cbrl)} of {profile.cbrl_size}): refused"
    return text


def oracle_rule(profile: EssaProfile, s: EssaState, req: EssaRequest) -> str:
    """The rule of the reference implementation (refimpl.essa.rules) that decides ``req``."""
    impl = profile.impl
    sske = profile.kvm and profile.storage_keys
    if req.op == "ESSA":
        return _essa_rule(profile, s, req)
    if req.op == "HostReclaim":
        pg = s.pages[req.page]
        if not pg.valid:
            return "HostReclaim of a page that is not valid: refused"
        keys = "GC := dirty" if sske else "GC kept"
        text = f"{impl} HostReclaim, row ({pg.usage}, dirty {pg.keyDirty}); {keys}"
        if profile.gmap:
            text += f"; gmap PTE emptied, {_z_exchange(profile)}" if pg.gmapPte != "Empty" else ""
            if pg.pteUnused:
                text += ("; the host PTE still has _PAGE_UNUSED (StaleUnusedBit, CVE-2026-72412): "
                         "the page is dropped whatever its usage")  # fmt: skip
        return text
    if req.op == "HostUnmapGmap":
        pg = s.pages[req.page]
        if not profile.gmap or pg.gmapPte == "Empty":
            return "HostUnmapGmap: refused (KVMGmap only, on a page whose gmap PTE is set)"
        unused = ("; a U page keeps _PAGE_UNUSED (StaleUnusedBit)" if "StaleUnusedBit" in
                  profile.bugs else "")  # fmt: skip
        return (f"KVMGmap HostUnmapGmap: the gmap PTE emptied, the host frame kept; "
                f"{_z_exchange(profile)}; GC := {'dirty' if sske else 'kept'}{unused}")
    if req.op == "HostAge":
        if not profile.gmap or s.pages[req.page].gmapPte != "Valid":
            return "HostAge: refused (KVMGmap only, on a page whose gmap PTE is valid)"
        return (f"KVMGmap HostAge: the gmap PTE aged (invalid bit set, still present: ESSA sees "
                f"content 2, a CBRL pass skips it); {_z_exchange(profile)}")
    if req.op == "HostResetCMMA":
        if not profile.kvm:
            return "HostResetCMMA under Paper2007: refused"
        return "KVM HostResetCMMA: every page S with N cleared; Z, residency and the CBRL kept"
    if req.op == "HostProcessCBRL":
        if not s.cbrl:
            return "HostProcessCBRL of an empty CBRL: refused"
        head = s.pages[s.cbrl[0]]
        asked = rules.cbrl_asked(profile, head)
        present = ("the gmap PTE is empty or the host PTE is not valid" if profile.gmap
                   else "not valid")  # fmt: skip
        text = (f"HostProcessCBRL of page {s.cbrl[0]} (the CBRL's head): zap if {present}, and U "
                f"or Z ({'yes' if asked else 'no'}); the zap frees a swap copy only")
        if "CBRLGuestAddress" in profile.bugs:
            text += ("; CBRLGuestAddress: the zap lands on the host page at the guest absolute "
                     "address, another page or none (any of them is accepted)")
        elif asked:
            text += f": {'zapped' if rules.zappable(head) else 'kept'}"
        return text
    if req.op == "Migrate":
        if not profile.kvm or s.migrated:
            return "Migrate: refused (KVM only, once)"
        gc = "GC := the migrated change bit (s390-skeys)" if profile.storage_keys else "GC cleared"
        gmap = "; the gmap PTEs empty, the page table created" if profile.gmap else ""
        return (f"Migrate: usage and N travel; the content as a read returns it; valid iff the "
                f"content is not 0; swapped, Z, the CBRL cleared; {gc}{gmap}")
    pg = s.pages[req.page]
    if req.op == "Writeback":
        if sske:
            table = ", and the gmap page table is created" if profile.gmap else ""
            return f"Writeback with storage keys (the guest's SSKE): dirty and GC cleared{table}"
        return "Writeback: the change bit is cleared"
    if rules.discard_fault(profile, pg):
        return "Paper2007 discard fault: usage V, not valid, not swapped"
    if rules.addressing_exception(profile, pg):
        return "Paper2007 addressing exception: usage U"
    if machine.faults(profile, pg):
        z = _z_exchange(profile) if profile.gmap else "Z cleared"
        gmap = ", the gmap PTE set valid and the page table created" if profile.gmap else ""
        fault = f" after a fault-in (valid set, swapped cleared if it was not valid, {z}{gmap})"
    else:
        fault = ""
    return f"{req.op}{fault}" + (": the change bit is set" if req.op == "Write" else "")


# --------------------------------------------------------------------------- engines


class EssaReferenceEngine:
    """The reference implementation of one Impl as an ESSA engine. The other constants come from
    the driver's hello, else from ``defaults`` (profile fields), else from each constant's
    default (:data:`refimpl.essa.CONSTANTS`); asked for another Impl it is Unsupported.

    ``bugs`` makes it the kernel before the fixes of those bugs, as a harness around that
    kernel's code is: it runs them whatever the hello asks and leaves ``Bugs`` out of its reply
    (it cannot know them; ``classify`` finds them out)."""

    def __init__(self, impl: str = "Paper2007", bugs: frozenset[str] | None = None,
                 **defaults: Any) -> None:  # fmt: skip
        self.default = EssaProfileRequest(impl=impl, pages=1).merged(
            EssaProfileRequest(**{c.attr: c.domain[0] for c in CONSTANTS}))
        self.default = EssaProfileRequest(**defaults).merged(self.default)
        self.bugs = bugs
        self.name = f"refimpl-{impl}" + (f"-{'+'.join(sorted(bugs))}" if bugs else "")
        self.profile: EssaProfile | None = None
        self.state: EssaState | None = None

    def hello(self, request: EssaProfileRequest) -> EssaEngineInfo:
        if request.impl is not None and request.impl != self.default.impl:
            raise Unsupported(f"this engine implements {self.default.impl} only")
        if self.bugs is not None:
            request = EssaProfileRequest(bugs=self.bugs).merged(request.without("bugs"))
        try:
            self.profile = request.merged(self.default).profile()
        except EssaProfileError as exc:
            raise Unsupported(str(exc)) from exc
        self.state = oracle.init(self.profile)
        announced = EssaProfileRequest.of(self.profile)
        if self.bugs is not None:
            announced = announced.without("bugs")
        return EssaEngineInfo(self.name, announced)

    def reset(self) -> None:
        assert self.profile is not None, "hello first"
        self.state = oracle.init(self.profile)

    def step(self, request: EssaRequest) -> EssaReply:
        assert self.profile is not None and self.state is not None, "hello first"
        self.state, reply = oracle_step(self.profile, self.state, request)
        return reply

    def close(self) -> None:
        self.profile = None
        self.state = None


class PaperEngine(EssaReferenceEngine):
    """The reference engine of the 2007 model."""

    def __init__(self) -> None:
        super().__init__("Paper2007")


class KVMClassicEngine(EssaReferenceEngine):
    """The reference engine of Linux KVM's classic pgste_perform_essa."""

    def __init__(self) -> None:
        super().__init__("KVMClassic")


class KVMGmapEngine(EssaReferenceEngine):
    """The reference engine of Linux KVM's gmap dat_perform_essa."""

    def __init__(self) -> None:
        super().__init__("KVMGmap")


class KernelGmapEngine(EssaReferenceEngine):
    """The reference engine of the new gmap as a harness around one kernel: ``bugs`` names the
    2026 fixes it lacks (the empty set: a kernel with all three)."""

    def __init__(self, bugs: frozenset[str] = frozenset()) -> None:
        super().__init__("KVMGmap", bugs=bugs)


class EssaJsonLinesEngine(JsonLinesEngine):
    """An ESSA engine in another process, over JSON lines (the transport of
    :class:`~conformance.jsonlines.JsonLinesEngine`, the messages of the ESSA mode)."""

    def __init__(self, command: str | Sequence[str], timeout: float = DEFAULT_TIMEOUT,
                 window: int = DEFAULT_WINDOW) -> None:  # fmt: skip
        super().__init__(command, timeout, window)
        self.pages = 1
        #: The modes the driver may ask for (the engine answers Unsupported to one it does not
        #: speak), and the one the next hello asks for; ESSAMigration's replies carry each
        #: page's cmmaDirty.
        self.machines: tuple[str, ...] = (ESSA_MACHINE, "ESSAMigration", "ESSAMigrationVMM")
        self.machine: str = ESSA_MACHINE
        #: Each request's line around its id, built once (the driver sends a few dozen
        #: distinct requests millions of times).
        self._lines: dict[EssaRequest, tuple[str, str]] = {}

    def hello(self, request: EssaProfileRequest) -> EssaEngineInfo:  # type: ignore[override]
        obj = self._open({"type": "hello", "version": VERSION, "machine": self.machine,
                          "profile": request.to_json()})  # fmt: skip
        if obj.get("version") != VERSION:
            raise EngineFault("protocol", f"hello reply: protocol version {obj.get('version')!r}, "
                              f"not {VERSION}")  # fmt: skip
        if obj.get("machine") != self.machine:
            raise EngineFault("protocol", f'hello reply: "machine" is {obj.get("machine")!r}, '
                              f'not "{self.machine}"')  # fmt: skip
        try:
            profile = type(request).from_json(obj.get("profile"))
        except ProtocolError as exc:
            raise EngineFault("protocol", f"hello reply: {exc}") from None
        self.pages = profile.pages or request.pages or 1
        return EssaEngineInfo(str(obj.get("engine", "engine")), profile)

    def step(self, request: EssaRequest) -> EssaReply:  # type: ignore[override]
        return self._call(request)  # type: ignore[no-any-return]

    def _encode(self, rid: int, request: Any) -> bytes:
        around = self._lines.get(request)
        if around is None:
            fields = json.dumps(request.fields())
            around = self._lines[request] = ('{"type": "step", "id": ', ", " + fields[1:] + "\n")
        return f"{around[0]}{rid}{around[1]}".encode()

    def _decode(self, request: Any, obj: dict[str, Any]) -> EssaReply:
        try:
            return check_essa_reply(obj, self.pages, self.machine != ESSA_MACHINE,
                                    self.machine == "ESSAMigrationVMM")  # fmt: skip
        except ProtocolError as exc:
            raise EngineFault("protocol", str(exc)) from None


# --------------------------------------------------------------------------- a server


def serve(engine: EssaEngine, inp: TextIO, out: TextIO) -> None:
    """Speak the ESSA mode over JSON lines for ``engine`` (any in-process ESSA engine) until
    ``inp`` ends."""
    pages = 0  # the number of pages of the profile the engine announced; 0 before the hello
    machine = ESSA_MACHINE  # the mode of the last hello: ESSA, or one the engine names

    def reply(obj: dict[str, Any]) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    for line in inp:
        rid = None
        try:
            obj = json.loads(line)
            rid = obj.get("id")
            kind = obj.get("type")
            if kind == "hello":
                spoken = getattr(engine, "machines", (ESSA_MACHINE,))
                if obj.get("machine") not in spoken:
                    reply({"id": rid, "error": "Unsupported",
                           "message": f"this engine speaks the {', '.join(spoken)} mode(s)"})  # fmt: skip
                    continue
                machine = obj["machine"]
                if hasattr(engine, "machine"):
                    engine.machine = machine
                info = engine.hello(EssaProfileRequest.from_json(obj.get("profile")))
                pages = info.profile.pages or 1
                reply({"type": "hello", "id": rid, "version": VERSION, "machine": machine,
                       "engine": info.name, "profile": info.profile.to_json()})  # fmt: skip
            elif kind == "reset":
                engine.reset()
                reply({"id": rid})
            elif kind == "step":
                assert pages, "hello first"
                reply(engine.step(essa_request(obj, pages, machine != ESSA_MACHINE)).to_json(rid))
            else:
                reply({"id": rid, "error": "BadRequest", "message": f"unknown type {kind!r}"})
        except Unsupported as exc:
            reply({"id": rid, "error": "Unsupported", "message": str(exc)})
        except (ValueError, AttributeError, AssertionError) as exc:
            reply({"id": rid, "error": "BadRequest", "message": str(exc)})


ENGINES: Final[dict[str, type[EssaReferenceEngine]]] = {
    "Paper2007": PaperEngine, "KVMClassic": KVMClassicEngine, "KVMGmap": KVMGmapEngine,
}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m conformance.essa --impl KVMGmap [--bugs StickyZero,...]``: a reference engine
    over JSON lines; with ``--bugs`` the new gmap before those fixes, which leaves ``Bugs`` out
    of its hello reply as a kernel harness does."""
    parser = argparse.ArgumentParser(prog="python -m conformance.essa", description=main.__doc__)
    parser.add_argument("--impl", choices=sorted(ENGINES), required=True)
    parser.add_argument("--bugs", help="comma-separated: " + ", ".join(KNOWN_BUGS))
    args = parser.parse_args(argv)
    if args.bugs is not None:
        bugs = frozenset(b for b in args.bugs.split(",") if b)
        if args.impl != "KVMGmap" or not bugs <= frozenset(KNOWN_BUGS):
            parser.error(f"--bugs takes {', '.join(KNOWN_BUGS)}, with --impl KVMGmap")
        serve(KernelGmapEngine(bugs), sys.stdin, sys.stdout)
        return 0
    serve(ENGINES[args.impl](), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
