"""Trace validation with TLC, for every machine: a machine's trace module (named :data:`MODULE`)
holds its trace as a sequence constant ``Trace`` and walks it with a ``cursor``
(:data:`TRACE_WALK`); :func:`run_trace_module` runs TLC on it and says at which step, if any, the
trace stops being a behaviour of the machine's spec (a deadlock at that cursor). The trace
modules: :mod:`conformance.pagestates.tla`, :mod:`conformance.essa.tla`.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

MODULE: Final = "ConformanceTrace"
SPEC_DIR: Final = Path(__file__).resolve().parents[1] / "spec"


#: The walk of ``Trace`` every trace module ends with: Init, then each entry's ``Replay``, then
#: stuttering (so that only a step that is not a behaviour of the spec deadlocks).
TRACE_WALK: Final = r"""TraceInit == Init /\ cursor = 1

TraceNext ==
    \/ /\ cursor <= Len(Trace)
       /\ Replay(Trace[cursor])
       /\ cursor' = cursor + 1
    \* The whole trace replayed: stutter, so that only a stuck step deadlocks.
    \/ /\ cursor > Len(Trace)
       /\ UNCHANGED <<vars, cursor>>

TraceSpec == TraceInit /\ [][TraceNext]_<<vars, cursor>>
"""


@dataclass(frozen=True)
class TlcVerdict:
    """What TLC said about a trace. ``stuck_at`` is the 1-based step TLC could not replay
    (None when the whole trace is a behaviour of the spec, or TLC did not get that far)."""

    behaviour: bool
    stuck_at: int | None
    seconds: float
    message: str


_CURSOR = re.compile(r"^\s*(\d+)\s*$")


def run_trace_module(module_text: str, config_text: str, *, directory: Path | None = None,
                     timeout: float = 300.0) -> TlcVerdict:  # fmt: skip
    """Run TLC on a trace module named :data:`MODULE` (any machine's: it walks ``Trace`` with
    ``cursor`` and deadlocks at the first step that is not a behaviour of its spec)."""
    from tlcrunner.fetch import default_jar
    from tlcrunner.run import run_tlc
    from tlcrunner.tool_output import Outcome

    with tempfile.TemporaryDirectory(prefix="cmma-trace-") as tmp:
        where = directory if directory is not None else Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        module, config = where / f"{MODULE}.tla", where / f"{MODULE}.cfg"
        module.write_text(module_text, encoding="utf-8")
        config.write_text(config_text, encoding="utf-8")
        result = run_tlc(module, config, jar=default_jar(), library=SPEC_DIR, timeout=timeout)
    outcome = result.outcome
    if outcome is Outcome.HOLDS:
        return TlcVerdict(True, None, result.seconds, "")
    if outcome is Outcome.DEADLOCK and result.tool.trace:
        last = result.tool.trace[-1].state.get("cursor", "")
        m = _CURSOR.match(last)
        if m:
            return TlcVerdict(False, int(m.group(1)), result.seconds, "deadlock")
    return TlcVerdict(False, None, result.seconds, f"{outcome.value}: {result.tool.error.strip()[:500]}")
