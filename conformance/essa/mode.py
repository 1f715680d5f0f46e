"""The ESSA mode for the driver (:mod:`conformance.driver`) and the command line
(:mod:`conformance.commands`): :data:`ESSA_DRIVER`, which :data:`conformance.machines.MACHINES`
registers. Its vocabulary, oracle and engines are :mod:`conformance.essa.protocol`'s; its
command-line options :mod:`~conformance.essa.cli`'s, its TLA+ trace module
:mod:`~conformance.essa.tla`'s, its mutants :mod:`~conformance.essa.mutants`'.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from refimpl import essa as oracle
from refimpl.essa import CONSTANTS, ESSA, EssaProfile, EssaState
from refimpl.essa.profile import folded, profiles as run_profiles

from ..driver import marker
from ..protocol import VERSION, Unsupported
from ..search import Budget, Group
from . import cli, mutants, tla
from .protocol import (
    _HOST_FIELDS, _OPTIONAL_FIELDS, ESSA_MACHINE, NEIGHBOUR_DEPTH, NONE, QUEUE_OPS,
    RESIDENCY_OPS, EssaEngine, EssaProfileRequest, EssaReply, EssaRequest, _key, all_requests,
    decode_r1, host_pages, oracle_rule, oracle_step, oracle_steps, page_requests, tours,
)  # fmt: skip


#: ``run``'s budget per profile, per Impl (``--cover-edges``, ``--depth``, ``--swarm``,
#: ``--examples`` change it): a quick tour of every profile (the pairs of pages to a small
#: depth and the CBRL queue), then per profile the coverage tour and the swarm walk, stopping at
#: the first divergence (``--keep-going``: every profile to its budget). KVMGmap has 128
#: profiles (Bugs, PrebuiltPageTables and CMMAEnabled multiply the first four constants' 8; 66
#: searched, the others folded into them, D361), so each gets less; the figures of a default run
#: are in conformance/README.md.
DEFAULT_BUDGETS: Final[dict[str, Budget]] = {
    "Paper2007": Budget(cover_edges=None, depth=None, swarm=2000, quick_depth=2, first_only=True),
    "KVMClassic": Budget(cover_edges=None, depth=3, swarm=2000, quick_depth=2, first_only=True),
    "KVMGmap": Budget(cover_edges=4000, depth=2, swarm=1000, quick_depth=2, first_only=True),
}


def _conflict(attr: str, announced: EssaProfileRequest, asked: EssaProfileRequest) -> str:
    """One field an engine announces otherwise than asked, in words: ``Impl KVMClassic, not
    KVMGmap``."""
    tla = next((c.tla for c in CONSTANTS if c.attr == attr), "Pages")
    one = EssaProfileRequest(**{attr: announced.fields[attr]}).to_json()[tla]
    other = EssaProfileRequest(**{attr: asked.fields[attr]}).to_json()[tla]
    return f"{tla} {one}, not {other}"


class EssaDriver:
    """The ESSA mode for :mod:`conformance.driver` and :mod:`conformance.commands`."""

    name = ESSA_MACHINE
    spec = "spec/ESSA.tla"
    #: Hypothesis sizes of ``--profile quick|thorough``: examples, steps per example.
    sizes: dict[str, tuple[int, int]] = {"quick": (100, 40), "thorough": (1000, 100)}
    #: No example database by default: the runs are derandomized, so a failure recurs anyway.
    database: Path | None = None
    mutant_header: tuple[str, ...] = ("Impl", "shows")

    # ------------------------------------------------------------------ the command line

    def speaks(self, args: argparse.Namespace) -> bool:
        return cli.speaks_essa(args)

    def add_options(self, parser: argparse.ArgumentParser, engine: bool = True) -> None:
        cli.add_profile_options(parser, engine=engine)

    def engine(self, args: argparse.Namespace) -> EssaEngine:
        return cli.essa_engine(args)

    def profiles_of(self, args: argparse.Namespace, engine: EssaEngine
                    ) -> tuple[list[EssaProfile], str]:  # fmt: skip
        return cli.profiles(args, engine)

    def read_trace(self, path: Any, args: argparse.Namespace
                   ) -> tuple[EssaProfile, list[EssaRequest], list[EssaReply]]:  # fmt: skip
        return cli.read_trace(path, args)

    def trace_module(self, profile: EssaProfile, steps: Sequence[tuple[EssaRequest, EssaReply]]
                     ) -> tuple[str, str]:  # fmt: skip
        return tla.module_text(profile, steps), tla.config_text(profile)

    def check_with_tlc(self, profile: EssaProfile,
                       steps: Sequence[tuple[EssaRequest, EssaReply]],
                       directory: Any = None) -> Any:  # fmt: skip
        return tla.check_with_tlc(profile, steps, directory=directory)

    def mutants(self) -> list[type]:
        return list(mutants.ESSA_MUTANTS)

    def mutant_profiles(self, mutant: Any) -> list[EssaProfile]:
        return self.profiles(EssaProfileRequest(impl=mutant.impl), cli.DEFAULT_PAGES)

    def kills(self, mutant: Any, outcome: Any) -> bool:
        return bool(outcome.status == "diverged")

    def mutant_row(self, mutant: Any, outcome: Any) -> tuple[str, ...]:
        return mutant.impl, mutant.shows

    # ------------------------------------------------------------------ the driver

    def init(self, profile: EssaProfile) -> EssaState:
        return oracle.init(profile)

    def oracle(self, profile: EssaProfile, s: EssaState, request: EssaRequest
               ) -> tuple[EssaState, EssaReply]:  # fmt: skip
        return oracle_step(profile, s, request)

    def alternatives(self, profile: EssaProfile, s: EssaState, request: EssaRequest
                     ) -> Iterator[tuple[EssaState, EssaReply]]:  # fmt: skip
        """The other answers the spec allows (CBRLGuestAddress's zap), tried when the first
        differs."""
        return oracle_steps(profile, s, request)

    def differences(self, expected: EssaReply, observed: EssaReply) -> list[str]:
        return expected.differences(observed)

    def rule(self, profile: EssaProfile, s: EssaState, request: EssaRequest,
             observed: EssaReply | None) -> str:  # fmt: skip
        return oracle_rule(profile, s, request)

    def short_name(self, profile: EssaProfile) -> str:
        return ESSA.short_name(profile)

    def describe(self, profile: EssaProfile) -> str:
        return profile.describe()

    def show_request(self, request: EssaRequest) -> str:
        return request.describe()

    def show_reply(self, reply: EssaReply, marked: Sequence[str] = ()) -> str:
        m = marker(marked)
        head = reply.outcome + m("outcome")
        if reply.result != NONE or "result" in marked:
            head += f" R1={decode_r1(reply.result) if reply.result != NONE else '-'}{m('result')}"
        if reply.value != NONE or "value" in marked:
            head += f" value={reply.value if reply.value != NONE else 'none'}{m('value')}"
        pages = []
        for i, pg in enumerate(reply.pages):
            flags = [pg.usage + m(f"pages[{i}].usage")]
            for f in ("valid", "swapped", "zbit", "nodat", "dirty", "gc", "pteUnused", "cmmaDirty"):
                on, mark = getattr(pg, f), m(f"pages[{i}].{f}")
                if on or mark:
                    flags.append(("" if on else "no ") + f + mark)
            if pg.gmapPte is not None and (pg.gmapPte != "Empty" or m(f"pages[{i}].gmapPte")):
                flags.append(f"gmapPte={pg.gmapPte}{m(f'pages[{i}].gmapPte')}")
            pages.append(" ".join(flags))
        return f"{head} [{'; '.join(pages)}]"

    def trace_header(self, profile: EssaProfile) -> dict[str, Any]:
        return {"version": VERSION, "machine": ESSA_MACHINE,
                "profile": EssaProfileRequest.of(profile).to_json()}  # fmt: skip

    def trace_line(self, request: EssaRequest, reply: EssaReply) -> dict[str, Any]:
        obj = reply.to_json(0)
        del obj["id"]
        return {**request.fields(), **obj}

    def connect(self, engine: EssaEngine, profile: EssaProfile) -> tuple[str, EssaProfile]:
        if hasattr(engine, "machine"):  # an engine of several modes: this one
            engine.machine = self.name
        asked = EssaProfileRequest.of(profile)
        info = engine.hello(asked)
        conflicts = asked.conflicts(info.profile)
        if conflicts:
            raise Unsupported("the engine announces " + ", ".join(
                _conflict(a, info.profile, asked) for a in conflicts))  # fmt: skip
        return info.name, profile

    def requests(self, profile: EssaProfile) -> Sequence[EssaRequest]:
        return all_requests(profile)

    def tours(self, profile: EssaProfile) -> Iterator[tuple[str, tuple[EssaRequest, ...]]]:
        return tours(profile)

    # ------------------------------------------------------------------ the search

    #: What identifies a state of the graph (a reply does not show the last operation).
    state_key = staticmethod(_key)

    def coverage_groups(self, profile: EssaProfile, depth: int | None) -> list[Group]:
        """The graph the coverage tour takes every edge of: every request on every page from
        each state within ``depth`` steps of the reset (the pairs of pages), and the one-page
        machine of each page index to its end (the other pages as they start), and with two
        pages and two CBRL entries the queue tour's graph (:func:`queue_tour`) to its end."""
        # Each page's own machine to its end, once with the other pages as they start and once
        # against every residency the next page can be given (stored, reclaimed to swap, faulted
        # back in): a leak from one page into its neighbour's frame or swap slot shows in states
        # deeper than the pairs' depth.
        neighbour = [Group(f"page {p} beside page {q}'s residency",
                           (*page_requests(p), *(EssaRequest(op, q) for op in RESIDENCY_OPS)),
                           NEIGHBOUR_DEPTH)
                     for p in range(profile.pages) for q in ((p + 1) % profile.pages,)
                     if profile.pages >= 2]  # fmt: skip
        groups = [Group("pairs", all_requests(profile), depth),
                  *(Group(f"page {p}", page_requests(p)) for p in range(profile.pages)),
                  *neighbour]
        if profile.pages >= 2 and profile.cbrl_size >= 2:
            queue = [EssaRequest(op, p, orc) for p in (0, 1) for op, orc in QUEUE_OPS]
            groups.append(Group("queue", (*queue, EssaRequest("HostProcessCBRL"))))
        return groups

    def refused(self, reply: EssaReply) -> bool:
        return reply.outcome == "Refused"

    def kind(self, request: EssaRequest) -> tuple[object, ...]:
        """A request without its page: what the swarm walk draws a few of per program."""
        return request.op, request.orc, request.problem_state, request.beyond_memory

    def budget(self, impl: str | None) -> Budget:
        """``run``'s default budget per profile of ``impl`` (:data:`DEFAULT_BUDGETS`)."""
        return DEFAULT_BUDGETS.get(impl or "", DEFAULT_BUDGETS["KVMClassic"])

    def profiles(self, fixed: EssaProfileRequest, pages: int) -> list[EssaProfile]:
        """Every combination of the constants ``fixed`` leaves open, on ``pages`` pages."""
        return run_profiles(fixed.without("pages").fields, pages)

    def further(self, args: argparse.Namespace, profiles: Sequence[EssaProfile]
                ) -> list[EssaProfile]:  # fmt: skip
        """The profiles ``run`` gives a quick tour alone, beyond those it searches: with neither
        ``--pages`` nor ``--cbrl-size`` given, the first profile's constants on one page more
        and with one CBRL entry more than any searched (a reset that stops short of the last
        page, a queue that overflows one entry later), D362."""
        if not profiles or getattr(args, "pages", None) or getattr(args, "cbrl_size", None):
            return []
        pages = max(p.pages for p in profiles) + 1
        slots = max(p.cbrl_size for p in profiles) + 1
        return [replace(profiles[0], pages=pages, cbrl_size=slots)]

    def fold(self, profile: EssaProfile) -> tuple[EssaProfile, str] | None:
        """The profile run for ``profile`` when the reference ignores some of its constants
        (:data:`refimpl.essa.profile.FOLDS`: its graph is the stand-in's), and why; None when
        it is run itself."""
        stand_in, folds = folded(profile)
        if not folds:
            return None
        tla = {c.attr: c.tla for c in CONSTANTS}
        why = "; ".join(f"{f.name} ignores {', '.join(tla[a] for a in f.ignored)}: {f.reason}"
                        for f in folds)  # fmt: skip
        return stand_in, why

    def itf_state(self, profile: EssaProfile, before: EssaState, request: EssaRequest | None,
                  reply: EssaReply | None) -> dict[str, Any]:  # fmt: skip
        pages = host_pages(profile, before) if reply is None else reply.pages
        state: dict[str, Any] = {
            f: {i: getattr(pg, f) for i, pg in enumerate(pages)} for f in _HOST_FIELDS
        }
        for f in _OPTIONAL_FIELDS:
            if all(getattr(pg, f) is not None for pg in pages):
                state[f] = {i: getattr(pg, f) for i, pg in enumerate(pages)}
        last: dict[str, Any] = {"op": "Init", "page": NONE, "orc": NONE, "arg": NONE,
                                "problemState": False, "beyondMemory": False,
                                "outcome": "None", "result": NONE, "value": NONE}  # fmt: skip
        if request is not None and reply is not None:
            last.update(op=request.op, page=request.page, orc=request.orc, arg=request.arg,
                        problemState=request.problem_state, beyondMemory=request.beyond_memory,
                        outcome=reply.outcome, result=reply.result, value=reply.value)  # fmt: skip
        state["lastOp"] = last
        return state


#: The ESSA mode of the driver.
ESSA_DRIVER: Final = EssaDriver()
