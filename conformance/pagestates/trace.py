"""Traces of the PageStates mode: what an engine did, step by step, read from the two formats.

A :class:`Trace` is a profile and a list of :class:`TraceStep`: each request (op, page, arg) with
what the engine observed (outcome, value) and the state it reported afterwards (the page's
two-letter state and change bit; an ITF trace may report every page). The driver writes the trace
of every divergence it finds (:func:`conformance.driver.write_trace`, with the PageStates mode's
header, lines and ITF states), and ``python -m conformance validate`` reads one an engine
recorded itself, in either format:

* **JSON lines** (``.jsonl``, PROTOCOL.md "Trace log"): a header line
  ``{"version": 1, "profile": {...}}``, then one line per step, the request's fields and the
  reply's: ``{"op": "Write", "page": 0, "arg": 1, "outcome": "Done", "state": "Sr", "dirty": true}``.
* **ITF** (``.itf.json``, the Informal Trace Format of Apalache and Quint, read and written with
  itf-py): one state per step with the spec's variables ``usage``, ``resid``, ``dirty`` (functions
  of the page) and ``lastOp`` (the record op, page, arg, outcome, value); the suite also writes the
  oracle's ``data``, ``intended`` and ``modified``, which a reader may leave out. State 0 is Init.

A malformed file raises :class:`TraceFormatError` naming the line (JSON lines) or the state (ITF).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refimpl import Profile, ProfileError
from refimpl.pagestates.profile import NO_VALUE
from refimpl.pagestates.state import State

from ..protocol import (
    OPERATIONS, VERSION, ProfileRequest, ProtocolError, check_profile_json,
    check_reply, check_state_name,
)  # fmt: skip

#: A page's observed state: its two-letter name and its change bit.
Observed = tuple[str, bool]


class TraceFormatError(ValueError):
    """A trace file that cannot be read; the message names the file and line or state."""


@dataclass(frozen=True)
class TraceStep:
    """One step as the engine reported it. ``seen`` maps each page whose state after the step
    is known to its observed state; it always has ``page``."""

    op: str
    page: int
    arg: int
    outcome: str
    value: int
    seen: dict[int, Observed]

    @property
    def state(self) -> str:
        return self.seen[self.page][0]

    @property
    def dirty(self) -> bool:
        return self.seen[self.page][1]

    def request_text(self) -> str:
        return f"{self.op} {self.page}" + ("" if self.arg == NO_VALUE else f" {self.arg}")


@dataclass
class Trace:
    """A profile and the steps an engine took under it; ``meta`` is free-form (engine, notes)."""

    profile: Profile
    steps: list[TraceStep]
    meta: dict[str, Any] = field(default_factory=dict)
    #: the full states, when known (written traces from the suite): state 0 is Init
    states: list[State] | None = None

    def values(self) -> tuple[int, ...]:
        """Every value the trace writes or reads, with 0: the spec's Values for checking it."""
        found = {0, *self.profile.values}
        for s in self.steps:
            if s.arg != NO_VALUE:
                found.add(s.arg)
            if s.value != NO_VALUE:
                found.add(s.value)
        return tuple(sorted(found))


# --------------------------------------------------------------------------- JSON lines


def _parse_step(obj: Any, pages: int) -> TraceStep:
    if not isinstance(obj, dict):
        raise ProtocolError("a step must be a JSON object")
    unknown = sorted(set(obj) - {"op", "page", "arg", "outcome", "value", "state", "dirty", "reason", "id"})
    if unknown:
        raise ProtocolError(f"unknown field(s) {', '.join(unknown)}")
    op = obj.get("op")
    if op not in OPERATIONS:
        raise ProtocolError(f'"op" must be one of {", ".join(OPERATIONS)}, not {op!r}')
    page = obj.get("page")
    if not isinstance(page, int) or isinstance(page, bool) or not 0 <= page < pages:
        raise ProtocolError(f'"page" must be a page number 0 .. {pages - 1}, not {page!r}')
    arg = obj.get("arg", NO_VALUE)
    if op == "Write":
        if not isinstance(arg, int) or isinstance(arg, bool) or arg < 0:
            raise ProtocolError(f'a Write needs "arg", a non-negative integer, not {arg!r}')
    elif arg not in (NO_VALUE, None):
        raise ProtocolError(f'only a Write has "arg" (got {arg!r})')
    reply = check_reply(op, {k: v for k, v in obj.items() if k not in ("op", "page", "arg")})
    return TraceStep(op, page, NO_VALUE if arg is None else arg, reply.outcome, reply.value,
                     {page: (reply.state, reply.dirty)})  # fmt: skip


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, line


def read_jsonl(path: Path, fallback: ProfileRequest = ProfileRequest(),
               values: tuple[int, ...] = (0, 1)) -> Trace:  # fmt: skip
    """A JSON-lines trace log. The header's profile may leave fields out when ``fallback``
    (the command line's --variant etc.) supplies them."""
    text = path.read_text(encoding="utf-8")
    lines = list(_lines(text))
    if not lines:
        raise TraceFormatError(f"{path}: empty: a trace log starts with a header line")
    number, first = lines[0]
    try:
        header = json.loads(first)
        if not isinstance(header, dict) or "profile" not in header:
            raise ProtocolError('the first line must be the header {"version": 1, "profile": {...}}')
        if header.get("version") != VERSION:
            raise ProtocolError(f'the header needs "version": {VERSION}')
        request = check_profile_json(header["profile"]).merged(fallback)
        profile = request.complete(values)
    except (json.JSONDecodeError, ProtocolError, ProfileError) as exc:
        raise TraceFormatError(f"{path}:{number}: {exc}") from None
    steps = []
    for number, line in lines[1:]:
        try:
            steps.append(_parse_step(json.loads(line), profile.pages))
        except json.JSONDecodeError as exc:
            raise TraceFormatError(f"{path}:{number}: not JSON: {exc}") from None
        except ProtocolError as exc:
            raise TraceFormatError(f"{path}:{number}: {exc}") from None
    meta = header.get("meta", {})
    return Trace(profile, steps, meta if isinstance(meta, dict) else {})


# --------------------------------------------------------------------------- ITF


def _itf_map(value: Any, name: str, where: str) -> dict[int, Any]:
    from itf_py import value_from_json

    decoded = value_from_json(value)
    if not isinstance(decoded, dict):
        raise TraceFormatError(f'{where}: "{name}" must be a function of the page ({{"#map": ...}})')
    return {int(k): v for k, v in decoded.items()}


def read_itf(path: Path, fallback: ProfileRequest = ProfileRequest(),
             values: tuple[int, ...] = (0, 1)) -> Trace:  # fmt: skip
    """An ITF trace: state 0 is Init, each later state the one after a step, whose ``lastOp``
    names it. The profile comes from ``#meta.profile`` and ``fallback``."""
    from itf_py import value_from_json

    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TraceFormatError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("states"), list):
        raise TraceFormatError(f'{path}: not an ITF trace: no "states" list')
    meta = doc.get("#meta", {}) if isinstance(doc.get("#meta"), dict) else {}
    try:
        request = check_profile_json(meta.get("profile"), "#meta.profile").merged(fallback)
        profile = request.complete(values)
    except (ProtocolError, ProfileError) as exc:
        raise TraceFormatError(f"{path}: {exc}") from None
    states = doc["states"]
    if not states:
        raise TraceFormatError(f"{path}: no states: state 0 must be Init")
    steps: list[TraceStep] = []
    for index, raw in enumerate(states[1:], start=1):
        where = f"{path}: state {index}"
        if not isinstance(raw, dict):
            raise TraceFormatError(f"{where}: not an object")
        missing = [v for v in ("usage", "resid", "dirty", "lastOp") if v not in raw]
        if missing:
            raise TraceFormatError(f"{where}: no {', '.join(missing)}")
        try:
            usage = _itf_map(raw["usage"], "usage", where)
            resid = _itf_map(raw["resid"], "resid", where)
            dirty = _itf_map(raw["dirty"], "dirty", where)
            last = value_from_json(raw["lastOp"])
            fields = last._asdict() if hasattr(last, "_asdict") else None
            if not isinstance(fields, dict):
                raise ProtocolError('"lastOp" must be a record {op, page, arg, outcome, value}')
            seen: dict[int, Observed] = {}
            for q in range(profile.pages):
                if q not in usage or q not in resid or q not in dirty:
                    raise ProtocolError(f"page {q} is missing from usage, resid or dirty")
                name = check_state_name(f"{usage[q]}{resid[q]}", "usage/resid")
                if not isinstance(dirty[q], bool):
                    raise ProtocolError(f"dirty[{q}] must be a boolean, not {dirty[q]!r}")
                seen[q] = (name, dirty[q])
            value = fields.get("value", NO_VALUE)
            reply = {"state": seen.get(fields.get("page", -1), ("", False))[0],
                     "dirty": seen.get(fields.get("page", -1), ("", False))[1],
                     "outcome": fields.get("outcome"), "value": value}  # fmt: skip
            step = _parse_step({"op": fields.get("op"), "page": fields.get("page"),
                                "arg": fields.get("arg", NO_VALUE), **reply}, profile.pages)  # fmt: skip
        except (ProtocolError, ValueError, TypeError) as exc:
            raise TraceFormatError(f"{where}: {exc}") from None
        steps.append(TraceStep(step.op, step.page, step.arg, step.outcome, step.value, seen))
    extra = {k: v for k, v in meta.items() if k not in ("profile",)}
    return Trace(profile, steps, extra)


def read_trace(path: Path, fallback: ProfileRequest = ProfileRequest(),
               values: tuple[int, ...] = (0, 1)) -> Trace:  # fmt: skip
    """A trace file in either format: ITF if it is one JSON document with ``states``, else
    JSON lines."""
    if not path.is_file():
        raise TraceFormatError(f"{path}: no such file")
    text = path.read_text(encoding="utf-8")
    head = text.lstrip()[:1]
    if head == "{":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            doc = None  # several JSON lines: a log
        if isinstance(doc, dict) and "states" in doc:
            return read_itf(path, fallback, values)
    return read_jsonl(path, fallback, values)
