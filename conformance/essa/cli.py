"""The ESSA mode's part of ``python -m conformance`` (``--machine ESSA``): its profile options,
its engines, the profiles ``run`` drives and the trace files ``validate`` reads. The commands
themselves are :mod:`conformance.commands`' (any machine's), and ``classify`` is
:mod:`conformance.essa.classify`'s.
"""

from __future__ import annotations

import argparse
import json
import typing
from pathlib import Path
from typing import Any

from refimpl.essa import CONSTANTS, IMPLS, EssaProfile, EssaProfileError
from refimpl.essa.profile import KNOWN_BUGS
from refimpl.essa.profile import profiles as run_profiles

from .protocol import (
    ESSA_MACHINE, EssaEngine, EssaJsonLinesEngine, EssaProfileRequest, EssaReply,
    EssaRequest, check_essa_reply, essa_request,
)  # fmt: skip
from ..driver import load_class
from ..protocol import EngineFault, ProtocolError, Unsupported

DEFAULT_PAGES = 2


def _option(attr: str) -> str:
    return "--" + attr.replace("_", "-")


def add_profile_options(p: argparse.ArgumentParser, impl: bool = True, engine: bool = True) -> None:
    """One option per constant of :data:`refimpl.essa.CONSTANTS` (``--impl`` only if ``impl``):
    ``--storage-keys`` / ``--no-storage-keys`` for a Boolean, ``--cbrl-size N``, ``--bugs
    StickyZero,...`` (``--bugs none``: the fixed kernel). A constant left open is tried with
    every value of its domain. ``engine`` false: for a recorded trace, whose header names the
    profile."""
    g = p.add_argument_group("ESSA profile (--machine ESSA)",
                             "fixes a constant; a constant left open is tried with every value")
    for c in CONSTANTS:
        if c.attr == "impl":
            if impl:
                g.add_argument("--impl", choices=IMPLS, help="the Impl (default: the one the "
                               + ("engine announces)" if engine else "trace's header names)"))
            continue
        kind = c.domain[0]
        if isinstance(kind, bool):
            pair = g.add_mutually_exclusive_group()
            pair.add_argument(_option(c.attr), dest=c.attr, action="store_true", default=None,
                              help=f"{c.tla}: {c.doc}")  # fmt: skip
            pair.add_argument("--no-" + c.attr.replace("_", "-"), dest=c.attr,
                              action="store_false", help=f"{c.tla} = FALSE")  # fmt: skip
        elif isinstance(kind, int):
            g.add_argument(_option(c.attr), dest=c.attr, type=int, help=f"{c.tla}: {c.doc}")
        else:
            g.add_argument(_option(c.attr), dest=c.attr, type=_bug_set,
                           help=f"{c.tla}, comma-separated, or none: {c.doc}")  # fmt: skip


def _bug_set(text: str) -> frozenset[str]:
    bugs = frozenset() if text == "none" else frozenset(t for t in text.split(",") if t)
    if not bugs <= frozenset(KNOWN_BUGS):
        raise argparse.ArgumentTypeError(f"not a set of {', '.join(KNOWN_BUGS)}: {text!r}")
    return bugs


def essa_request_of(args: argparse.Namespace) -> EssaProfileRequest:
    """The constants the command line fixes (the others are left open)."""
    return EssaProfileRequest(**{c.attr: getattr(args, c.attr, None) for c in CONSTANTS})


def essa_engine(args: argparse.Namespace) -> EssaEngine:
    """The engine the command line names; raises ValueError."""
    if args.engine is not None:
        return EssaJsonLinesEngine(args.engine, timeout=args.timeout, window=args.window)
    loaded = load_class(args.engine_class)
    if not isinstance(loaded, EssaEngine):
        raise ValueError(f"{args.engine_class} is not an ESSA engine (hello/reset/step/close)")
    return loaded


def profiles(args: argparse.Namespace, engine: EssaEngine, driver: Any = None
             ) -> tuple[list[EssaProfile], str]:  # fmt: skip
    """The profiles ``run`` drives: every combination of the constants the command line leaves
    open, on ``--pages`` pages (default 2); the Impl, unless named, is the one the engine
    announces (``driver``: a mode whose ``profiles`` narrows them, the ESSAMigration mode's).
    Raises ValueError."""
    fixed = essa_request_of(args)
    pages = args.pages or DEFAULT_PAGES
    if fixed.impl is None:
        info = engine.hello(EssaProfileRequest())
        fixed = fixed.merged(EssaProfileRequest(impl=info.profile.impl))
        if fixed.impl is None:
            raise ValueError("the engine announces no Impl: name one with --impl")
    try:
        found = (run_profiles(fixed.without("pages").fields, pages) if driver is None
                 else driver.profiles(fixed, pages))  # fmt: skip
    except EssaProfileError as exc:
        raise ValueError(str(exc)) from None
    return found, f"{len(found)} profiles of {fixed.impl}, {pages} pages"


# --------------------------------------------------------------------------- validate


def read_essa_trace(path: Path, fallback: EssaProfileRequest, pages: int,
                    machine: str = ESSA_MACHINE) -> tuple[Any, list[EssaRequest], list[EssaReply]]:  # fmt: skip
    """A trace log of the ESSA mode (or, ``machine`` ESSAMigration, of the incremental
    migration's): the profile, the requests and the recorded replies. Raises ValueError
    naming the line."""
    migration = machine != ESSA_MACHINE
    vmm = machine == "ESSAMigrationVMM"
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    lines = [(n, ln) for n, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if ln.strip()]  # fmt: skip
    if not lines:
        raise ValueError(f"{path}: empty")
    try:
        header = json.loads(lines[0][1])
        if not isinstance(header, dict) or header.get("machine") != machine:
            raise ValueError(f'the header must be an object with "machine": "{machine}"')
        asked = type(fallback).from_json(header.get("profile")).merged(fallback)
        profile = asked.profile(pages)
    except (ValueError, ProtocolError, EssaProfileError) as exc:
        raise ValueError(f"{path}:{lines[0][0]}: {exc}") from None
    requests, replies = [], []
    for n, text in lines[1:]:
        try:
            obj = json.loads(text)
            if not isinstance(obj, dict):
                raise ValueError("a step must be an object")
            requests.append(essa_request(obj, profile.pages, migration, vmm))
            reply = {k: v for k, v in obj.items()
                     if k not in ("op", "page", "orc", "arg", "problemState", "beyondMemory",
                                  *(("start", "count", "slot", "logging", "mask", "answer") if vmm else ()))}
            if vmm and "answer" in obj:  # a Get's or Peek's start, values, remaining
                if not isinstance(obj["answer"], dict):
                    raise ValueError('"answer" must be an object')
                reply.update(obj["answer"])
            replies.append(check_essa_reply(reply, profile.pages, migration, vmm))
        except (ValueError, ProtocolError) as exc:
            raise ValueError(f"{path}:{n}: {exc}") from None
    return profile, requests, replies


def read_trace(path: Path, args: argparse.Namespace
               ) -> tuple[EssaProfile, list[EssaRequest], list[EssaReply]]:  # fmt: skip
    """``validate``'s reading: the constants the command line fixes fill the header's gaps."""
    return read_essa_trace(path, essa_request_of(args), args.pages or 1)


def speaks_essa(args: argparse.Namespace) -> bool:
    """Whether the engine answers an ESSA hello (for ``run`` without ``--machine``)."""
    if args.engine_class is not None:
        # Both modes' in-process engines have hello/reset/step/close: tell them apart by what
        # hello takes.
        try:
            hello = getattr(load_class(args.engine_class), "hello", None)
            return typing.get_type_hints(hello).get("request") is EssaProfileRequest
        except (ValueError, TypeError, NameError):
            return False
    engine = EssaJsonLinesEngine(args.engine, timeout=args.timeout, window=args.window)
    try:
        engine.hello(EssaProfileRequest())
        return True
    except (Unsupported, EngineFault):
        return False
    finally:
        engine.close()
