"""Reports people can act on: the divergence table, and the files saved with it.

:func:`divergence_report` turns a :class:`~conformance.session.DivergenceError` into text: the
rule broken (a property of spec/PageStateProperties.tla, or the spec action departed from), what
it would lead to, and a table with one row per step (operation, what the spec expected, what the
engine observed, every page's state before and after). :func:`fault_report` does the same for an
engine that broke the protocol. :func:`save` writes the trace next to the report, as JSON lines,
ITF and a TLA+ module that TLC checks (:mod:`conformance.tla`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from refimpl import Profile, Refused, State
from refimpl.pagestates.profile import NO_VALUE
from refimpl.pagestates.state import Page

from .judge import consequence
from .protocol import REFUSED, Reply
from .session import DivergenceError, EngineFaultError, StepRecord
from .trace import Trace, TraceStep, write_itf, write_jsonl

LEGEND = "states: page 0 first; * = dirty (change bit set); -> marks the step where the engine went wrong"


def _page(pg: Page) -> str:
    return pg.name + ("*" if pg.dirty else "")


def _pages(state: State | None) -> str:
    return " ".join(_page(pg) for pg in state.pages) if state is not None else "?"


def _request(rec: StepRecord) -> str:
    return f"{rec.op} {rec.page}" + ("" if rec.arg == NO_VALUE else f" {rec.arg}")


def _expected(rec: StepRecord) -> str:
    if isinstance(rec.expected, Refused):
        return "Refused"
    lo = rec.expected.lastOp
    pg = rec.expected.pages[rec.page]
    outcome = f"Value {lo.value}" if lo.outcome == "Value" else lo.outcome
    return f"{outcome}, {_page(pg)}"


def _observed(rec: StepRecord) -> str:
    r = rec.reply
    if r is None:
        return "(no valid reply)"
    outcome = f"Value {r.value}" if r.outcome == "Value" else r.outcome
    state = f"{r.state}{'*' if r.dirty else ''}"
    return outcome if r.outcome == REFUSED and rec.agreed else f"{outcome}, {state}"


def _after(rec: StepRecord) -> State | None:
    """Every page after the step as the engine has them (the claimed state, or the state before
    with the engine's reported page when it refused)."""
    if rec.after is not None:
        return rec.after
    if rec.reply is None:
        return None
    pg = rec.before.pages[rec.page]
    reported = pg._replace(usage=rec.reply.state[0], resid=rec.reply.state[1], dirty=rec.reply.dirty)
    return rec.before._replace(pages=rec.before.pages[: rec.page] + (reported,) + rec.before.pages[rec.page + 1 :])


def table(steps: list[StepRecord], mark_last: bool = True) -> str:
    """One row per step: step, operation, expected, observed, state before, state after."""
    header = ("step", "operation", "expected (spec)", "observed (engine)", "before", "after")
    rows = [header]
    for rec in steps:
        rows.append((
            ("-> " if mark_last and rec is steps[-1] else "") + str(rec.index),
            _request(rec), _expected(rec), _observed(rec), _pages(rec.before), _pages(_after(rec)),
        ))  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for n, r in enumerate(rows):
        cells = [r[0].rjust(widths[0])] + [c.ljust(w) for c, w in zip(r[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def divergence_report(err: DivergenceError, *, engine: str, with_consequence: bool = True) -> str:
    v = err.verdict
    last = err.steps[-1]
    kind = {"property": "property", "action": "spec action", "variant": "variant"}[v.kind]
    lines = [
        f"DIVERGENCE: {engine} departs from the spec at step {last.index} of {len(err.steps)} "
        f"({_request(last)})",
        f"profile: {err.profile.describe()}",
        "",
        f"rule broken ({kind}): {v.headline}",
    ]
    if len(v.properties) > 1:
        lines.append(f"also broken: {', '.join(v.properties[1:])}")
    if v.kind != "action":  # an action's explanation already lists the differences
        lines += [f"  {d}" for d in v.differences]
    if with_consequence and not v.properties and v.claimed is not None:
        after = consequence(err.profile, v.claimed, last.page)
        if after:
            lines.append(f"consequence: {after}")
    lines += ["", table(err.steps), "", LEGEND]
    return "\n".join(lines)


def fault_report(err: EngineFaultError, *, engine: str) -> str:
    lines = [
        f"ENGINE FAULT: {engine} broke the protocol at {err.where}",
        f"problem ({err.fault.kind}): {err.fault.message}",
    ]
    if err.profile is not None:
        lines.append(f"profile: {err.profile.describe()}")
    if err.steps:
        lines += ["", "the trace so far:", table(err.steps), "", LEGEND]
    return "\n".join(lines)


def trace_of(profile: Profile, steps: list[StepRecord], meta: dict[str, object]) -> Trace:
    """The steps as a :class:`~conformance.trace.Trace`: what the engine reported, with the
    oracle's full states (and the engine's claims at the divergent step). A last step without a
    valid reply (a fault) is left out: the trace holds what the engine did say."""
    out: list[TraceStep] = []
    states: list[State] = [steps[0].before] if steps else []
    for rec in steps:
        r: Reply | None = rec.reply
        after = _after(rec)
        if r is None or after is None:
            break
        out.append(TraceStep(rec.op, rec.page, rec.arg, r.outcome, r.value, {rec.page: (r.state, r.dirty)}))
        states.append(after)
    if not states:
        from refimpl import Machine

        states = [Machine(profile).init()]
    return Trace(profile, out, dict(meta), states)


@dataclass(frozen=True)
class Saved:
    report: Path
    jsonl: Path
    itf: Path
    tla: Path
    cfg: Path


def save(directory: Path, report: str, trace: Trace) -> Saved:
    """The report and the trace in every format, in ``directory`` (created)."""
    from .tla import write_module

    directory.mkdir(parents=True, exist_ok=True)
    saved_report = directory / "report.txt"
    saved_report.write_text(report + "\n", encoding="utf-8")
    jsonl = directory / "trace.jsonl"
    write_jsonl(trace, jsonl)
    itf = directory / "trace.itf.json"
    write_itf(trace, itf)
    module, config = write_module(trace, directory)
    return Saved(saved_report, jsonl, itf, module, config)
