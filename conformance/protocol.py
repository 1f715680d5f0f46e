"""The vocabulary of the conformance protocol (conformance/PROTOCOL.md), shared by both transports.

An engine answers three kinds of request: ``hello`` (which machine it implements), ``reset``
(every page back to the spec's Init) and ``step`` (one operation of the spec on one page). The
in-process transport passes the values defined here; the JSON-lines transport
(:mod:`conformance.jsonlines`) encodes them as JSON objects with the same field names. Either way
every reply goes through :func:`check_reply` or :func:`check_hello`, so a malformed reply is
caught the same way whatever language the engine is written in.

Names are the spec's: the operations of ``Perform`` in spec/PageStates.tla, the fields of its
``lastOp`` record (op, page, arg, outcome, value), the variable ``dirty``, and the constants
``Variant``, ``HostService``, ``UnusedAccess``. ``Pages`` is the number of pages (the spec's set
``Pages`` is ``0 .. Pages-1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from refimpl.pagestates.profile import (
    NO_VALUE, UNUSED_ACCESSES, VARIANT_FEATURES, VARIANTS, Profile, ProfileError,
)  # fmt: skip
from refimpl.pagestates.state import OPS, OUTCOMES, STATE_NAME

#: The protocol version this driver speaks; a hello carries it both ways.
VERSION: Final = 1

#: The paper's two-letter page states (the spec's StateName), e.g. ``"Sr"``, ``"Vz"``.
STATE_NAMES: Final = tuple(STATE_NAME.values())
_STATE_NAME_SET: Final = frozenset(STATE_NAMES)

#: What a step reply may say happened. The spec's outcomes (without "None", which only Init
#: records), plus "Refused": the spec has no such step in this state, and nothing changed.
#: Extract answers with the page's two-letter state instead (spec: Extract, D15).
REFUSED: Final = "Refused"
STEP_OUTCOMES: Final = tuple(o for o in OUTCOMES if o != "None") + (REFUSED,)
_OUTCOME_SET: Final = frozenset(STEP_OUTCOMES)

#: Every operation a driver may send, in the spec's order (GuestNext, then HostNext).
OPERATIONS: Final = OPS
#: Operations an engine may leave out (it says so in its hello): they are then not tested, and
#: the suite reports them as skipped. Every other operation is part of the machine.
OPTIONAL_OPERATIONS: Final = ("ClearDirty",)

#: The largest value a Write may carry: engines store at least 31-bit non-negative integers.
MAX_VALUE: Final = 2**31 - 1


class ProtocolError(ValueError):
    """A reply that breaks the protocol: what is wrong, in words (the caller adds where)."""


class Unsupported(Exception):
    """The engine does not implement what was asked (a profile, an operation): a skip, not a
    failure. Raised by in-process engines; the JSON-lines transport raises it for an
    ``"error": "Unsupported"`` reply."""


class Reply(NamedTuple):
    """An engine's answer to one step: the page's state afterwards and what the guest saw.

    ``state`` is the page's two-letter state after the step (before it, if refused); ``dirty``
    its change bit; ``outcome`` one of :data:`STEP_OUTCOMES` (Extract: the two-letter state);
    ``value`` the value read when ``outcome`` is ``"Value"``, else the spec's NoValue (-1);
    ``reason`` an optional explanation of a refusal, for people.
    """

    state: str
    dirty: bool
    outcome: str
    value: int = NO_VALUE
    reason: str = ""


@dataclass(frozen=True)
class ProfileRequest:
    """What the driver asks an engine to run: any field left ``None`` is the engine's choice."""

    variant: str | None = None
    host_service: bool | None = None
    unused_access: str | None = None
    pages: int | None = None

    @staticmethod
    def of(profile: Profile) -> ProfileRequest:
        return ProfileRequest(
            profile.variant, profile.host_service, profile.unused_access, profile.pages
        )

    def to_json(self) -> dict[str, Any]:
        fields = {
            "Variant": self.variant,
            "HostService": self.host_service,
            "UnusedAccess": self.unused_access,
            "Pages": self.pages,
        }
        return {k: v for k, v in fields.items() if v is not None}

    def is_empty(self) -> bool:
        return self == ProfileRequest()

    def merged(self, fallback: ProfileRequest) -> ProfileRequest:
        """This request with its gaps filled from ``fallback``."""
        return ProfileRequest(
            self.variant if self.variant is not None else fallback.variant,
            self.host_service if self.host_service is not None else fallback.host_service,
            self.unused_access if self.unused_access is not None else fallback.unused_access,
            self.pages if self.pages is not None else fallback.pages,
        )

    def conflicts(self, other: ProfileRequest) -> list[str]:
        """The fields both set to different values, as ``"Variant: Full, not NoP"``."""
        pairs = [
            ("Variant", self.variant, other.variant),
            ("HostService", self.host_service, other.host_service),
            ("UnusedAccess", self.unused_access, other.unused_access),
            ("Pages", self.pages, other.pages),
        ]
        return [
            f"{name}: {json_text(a)}, not {json_text(b)}"
            for name, a, b in pairs
            if a is not None and b is not None and a != b
        ]

    def complete(self, values: tuple[int, ...]) -> Profile:
        """The full profile; raises ProfileError naming what is missing or not allowed."""
        missing = [
            name
            for name, v in (
                ("Variant", self.variant),
                ("HostService", self.host_service),
                ("UnusedAccess", self.unused_access),
                ("Pages", self.pages),
            )
            if v is None
        ]
        if missing:
            raise ProfileError(
                f"the engine did not announce {', '.join(missing)} and none was given "
                "(--variant, --host-service/--direct, --unused-access, --pages)"
            )
        assert self.variant is not None and self.host_service is not None
        assert self.unused_access is not None and self.pages is not None
        return Profile(self.variant, self.host_service, self.unused_access, self.pages, values)

    def describe(self) -> str:
        return ", ".join(f"{k} = {json_text(v)}" for k, v in self.to_json().items()) or "any"


class EngineInfo(NamedTuple):
    """An engine's hello: its name, the profile it runs (fields it leaves out are ``None``) and
    the operations it implements."""

    name: str
    profile: ProfileRequest
    ops: tuple[str, ...] = OPERATIONS


def json_text(v: object) -> str:
    """A value as JSON shows it (``true``, ``"Full"``, ``2``), for messages."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    return repr(v)


def _show(v: object) -> str:
    text = json_text(v) if isinstance(v, (bool, str, int)) else repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_state_name(v: object, field: str = "state") -> str:
    if not isinstance(v, str):
        raise ProtocolError(f'"{field}" must be a two-letter state such as "Sr", not {_show(v)}')
    if v not in _STATE_NAME_SET:
        raise ProtocolError(
            f'unknown state {_show(v)} in "{field}": one of {", ".join(STATE_NAMES)}'
        )
    return v


_REPLY_FIELDS: Final = frozenset({"id", "state", "dirty", "outcome", "value", "reason"})


def check_reply(op: str, reply: object) -> Reply:
    """A step reply, checked: its types and vocabulary (not its correctness, which is the
    oracle's business). ``reply`` is a :class:`Reply` (in-process) or a decoded JSON object."""
    if isinstance(reply, Reply):
        fields: dict[str, object] = {
            "state": reply.state, "dirty": reply.dirty, "outcome": reply.outcome,
            "value": reply.value, "reason": reply.reason,
        }  # fmt: skip
    elif isinstance(reply, dict):
        unknown = sorted(set(reply) - _REPLY_FIELDS)
        if unknown:
            raise ProtocolError(
                f"the reply has unknown field(s) {', '.join(unknown)}: a step reply has "
                f"{', '.join(sorted(_REPLY_FIELDS))}"
            )
        fields = reply
    else:
        raise ProtocolError(f"a reply must be an object, not {_show(reply)}")
    for name in ("state", "dirty", "outcome"):
        if name not in fields:
            raise ProtocolError(f'the reply has no "{name}" field')
    state = check_state_name(fields["state"])
    dirty = fields["dirty"]
    if not isinstance(dirty, bool):
        raise ProtocolError(f'"dirty" must be true or false, not {_show(dirty)}')
    outcome = fields["outcome"]
    if not isinstance(outcome, str):
        raise ProtocolError(f'"outcome" must be a string, not {_show(outcome)}')
    if op == "Extract" and outcome != REFUSED:
        check_state_name(outcome, "outcome")
    elif outcome not in _OUTCOME_SET:
        raise ProtocolError(
            f'unknown outcome {_show(outcome)}: one of {", ".join(STEP_OUTCOMES)}'
            + ("" if op != "Extract" else ", or for Extract a two-letter state")
        )
    raw_value = fields.get("value")
    if outcome == "Value":
        if not _is_int(raw_value) or not 0 <= raw_value <= MAX_VALUE:  # type: ignore[operator]
            raise ProtocolError(
                f'outcome "Value" needs "value", a non-negative integer, not {_show(raw_value)}'
            )
        value = int(raw_value)  # type: ignore[call-overload]
    else:
        if raw_value is not None and raw_value != NO_VALUE:
            raise ProtocolError(
                f'"value" is only for outcome "Value" (got {_show(raw_value)} with {_show(outcome)})'
            )
        value = NO_VALUE
    reason = fields.get("reason", "")
    if not isinstance(reason, str):
        raise ProtocolError(f'"reason" must be a string, not {_show(reason)}')
    return Reply(state, dirty, outcome, value, reason)


def check_profile_json(obj: object, where: str = "profile") -> ProfileRequest:
    """A ``profile`` object (hello reply, trace header): every field optional, each checked."""
    if obj is None:
        return ProfileRequest()
    if not isinstance(obj, dict):
        raise ProtocolError(f'"{where}" must be an object, not {_show(obj)}')
    unknown = sorted(set(obj) - {"Variant", "HostService", "UnusedAccess", "Pages"})
    if unknown:
        raise ProtocolError(
            f'"{where}" has unknown field(s) {", ".join(unknown)}: '
            "Variant, HostService, UnusedAccess, Pages"
        )
    variant = obj.get("Variant")
    if variant is not None and variant not in VARIANT_FEATURES:
        raise ProtocolError(f'unknown Variant {_show(variant)}: one of {", ".join(VARIANTS)}')
    host_service = obj.get("HostService")
    if host_service is not None and not isinstance(host_service, bool):
        raise ProtocolError(f'"HostService" must be true or false, not {_show(host_service)}')
    access = obj.get("UnusedAccess")
    if access is not None and access not in UNUSED_ACCESSES:
        raise ProtocolError(
            f'unknown UnusedAccess {_show(access)}: one of {", ".join(UNUSED_ACCESSES)}'
        )
    pages = obj.get("Pages")
    if pages is not None and (not _is_int(pages) or pages < 1):
        raise ProtocolError(f'"Pages" must be a positive integer, not {_show(pages)}')
    return ProfileRequest(variant, host_service, access, pages)


def check_ops(obj: object) -> tuple[str, ...]:
    """The ``ops`` of a hello: the operations the engine implements (all when absent)."""
    if obj is None:
        return OPERATIONS
    if not isinstance(obj, list) or not all(isinstance(o, str) for o in obj):
        raise ProtocolError(f'"ops" must be a list of operation names, not {_show(obj)}')
    unknown = [o for o in obj if o not in OPERATIONS]
    if unknown:
        raise ProtocolError(
            f'unknown operation(s) in "ops": {", ".join(unknown)}; one of {", ".join(OPERATIONS)}'
        )
    missing = [o for o in OPERATIONS if o not in obj and o not in OPTIONAL_OPERATIONS]
    if missing:
        raise ProtocolError(
            f'"ops" leaves out {", ".join(missing)}: only {", ".join(OPTIONAL_OPERATIONS)} '
            "may be left out"
        )
    return tuple(o for o in OPERATIONS if o in obj)


def check_hello(obj: object) -> EngineInfo:
    """A decoded hello reply (JSON lines)."""
    if not isinstance(obj, dict):
        raise ProtocolError(f"the hello reply must be an object, not {_show(obj)}")
    version = obj.get("version")
    if version != VERSION:
        raise ProtocolError(
            f'the engine speaks protocol version {_show(version)}; this driver speaks {VERSION} '
            '(the hello reply needs "version": 1)'
        )
    name = obj.get("engine", "engine")
    if not isinstance(name, str):
        raise ProtocolError(f'"engine" must be a string, not {_show(name)}')
    return EngineInfo(name, check_profile_json(obj.get("profile")), check_ops(obj.get("ops")))


def variant_has_state(variant: str, name: str) -> bool:
    """Spec: HasState. Whether ``variant``'s machine has the two-letter state ``name``."""
    f = VARIANT_FEATURES[variant]
    u, r = name[0], name[1]
    return (
        (u != "P" or f.has_p)
        and (name != "Up" or f.has_up)
        and (name != "Vp" or f.has_vp)
        and (name != "Pp" or f.has_pp)
        and (name != "Pz" or not f.collapse_discarded)
        and r in "rpz"
    )


class EngineFault(Exception):
    """The engine broke the protocol: a malformed reply, extra output, a crash, a hang, an error
    reply or (in-process) an exception. ``kind`` names the problem for tables and tests
    (one of :data:`FAULT_KINDS`); the message says what happened in words. A fault ends a run:
    the suite reports it with the step it happened at and saves the trace so far."""

    def __init__(self, kind: str, message: str, previous: bool = False) -> None:
        assert kind in FAULT_KINDS, kind
        super().__init__(message)
        self.kind = kind
        self.message = message
        #: The fault is the previous request's, found while reading the next one's reply (a
        #: pipelined engine's second line for one request: PROTOCOL.md, Pipelining).
        self.previous = previous
        #: Extra output after a reply the engine did give: that reply's line, and the reply
        #: decoded (set by the transport), so that a report shows it and not "(no reply)".
        self.line: bytes | None = None
        self.reply: Any = None


FAULT_KINDS: Final = (
    "malformed",  # not JSON, or not an object
    "protocol",  # JSON, but a field is missing, of the wrong type, or an unknown name
    "extra output",  # more than one line for one request, or a reply to another request
    "crash",  # the engine exited (or raised, in-process)
    "hang",  # no reply within the timeout
    "error reply",  # the engine answered {"error": ...} to a request it must handle
)
