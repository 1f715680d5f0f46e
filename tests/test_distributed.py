"""tlcrunner check --distributed: TLC's TLCServer and TLCWorker on loopback.

The CI test proper is ``test_loopback_pinned_counts_and_a_violation``: a server and two workers
check a model and reach its pinned distinct-state count, and find another model's violation with
its whole counterexample. The others show each way a run can go wrong ending with a clear error
and no JVM left behind. Every run is bounded by the entry's timeout (set small here).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tlcrunner import distributed as dist
from tlcrunner import exitcodes
from tlcrunner.check import Row
from tlcrunner.manifest import ModelEntry, load_manifest
from tlcrunner.replay import replay_files, value_expression, without_symmetry
from tlcrunner.tool_output import (
    INITIAL_PREDICATE, Outcome, TraceStep, parse_messages, parse_tool_output,
)

REPO = Path(__file__).resolve().parents[1]
MANIFEST = load_manifest(REPO / "model" / "manifest.json")
LIBRARY = REPO / "spec"
ENTRIES = {e.name: e for e in MANIFEST.entries}
SAVED = Path(__file__).resolve().parent / "fixtures" / "distributed"


def entry(name: str, timeout: float = 120.0) -> ModelEntry:
    return dataclasses.replace(ENTRIES[name], timeout=timeout)


def jvms_on(port: int) -> list[int]:
    """Pids of live processes started with this run's RMI port: server, workers, anything."""
    needle = f"-Dtlc2.tool.distributed.TLCServer.port={port}".encode()
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if needle in cmdline:
            pids.append(int(proc.name))
    return pids


def check(name: str, jar: Path, *, timeout: float = 120.0, **options: object) -> tuple[Row, dist.DistributedRun | None, int]:
    port = dist.free_port()
    opts = dist.Options(port=port, **options)  # type: ignore[arg-type]
    row, drun = dist.check_entry(entry(name, timeout), jar=jar, library=LIBRARY, options=opts)
    return row, drun, port


# --------------------------------------------------------------------------- without TLC


def test_commands_agree_on_port_and_address() -> None:
    server = dist.server_command(
        "java", Path("/j.jar"), Path("/m/M.tla"), Path("/m/M.cfg"), workdir=Path("/w"),
        library=Path("/s"), host="127.0.0.1", port=4242, fpsets=2,
    )  # fmt: skip
    worker = dist.worker_command(
        "java", Path("/j.jar"), "127.0.0.1", port=4242, advertise="127.0.0.1", fpset=True,
        tmpdir=Path("/t"),
    )  # fmt: skip
    for cmd in (server, worker):
        assert "-Djava.rmi.server.hostname=127.0.0.1" in cmd
        assert "-Dtlc2.tool.distributed.TLCServer.port=4242" in cmd
    assert "-Dtlc2.tool.distributed.TLCServer.expectedFPSetCount=2" in server
    assert server[-3:] == ["-config", "M.cfg", "M.tla"]
    assert worker[-2:] == [dist.WORKER_FPSET_CLASS, "127.0.0.1"]
    assert "-Dtlc2.tool.distributed.TLCWorker.threadCount=1" in worker


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="fingerprint-set"):
        dist.Options(workers=1, fpsets=2)
    with pytest.raises(ValueError):
        dist.Options(workers=-1)


def test_model_values_become_constants() -> None:
    seen: set[str] = set()
    text = '[ page |-> p1,\n  op |-> "HostDiscard p1",\n  ok |-> TRUE ] @@ (c1 :> NoPage)'
    assert value_expression(text, seen) == (
        '[ page |-> TLCRunnerMV_p1, op |-> "HostDiscard p1", ok |-> TRUE ] @@ '
        "(TLCRunnerMV_c1 :> TLCRunnerMV_NoPage)"
    )
    assert seen == {"p1", "c1", "NoPage"}


def test_replay_files() -> None:
    step = TraceStep(1, INITIAL_PREDICATE, INITIAL_PREDICATE, {"x": "p1", "y": "<<1, 2>>"})
    cfg = "CONSTANTS P = {p1}\nSYMMETRY Sym \\* a comment\nINVARIANT Inv\n"
    module, replay_cfg = replay_files("MCFoo", cfg, target=step)
    assert "EXTENDS MCFoo, TLC" in module
    assert "TLCRunnerNotReached == <<x, y>> # <<TLCRunnerMV_p1, <<1, 2>>>>" in module
    assert "SYMMETRY" not in replay_cfg and "TLCRunnerMV_p1 = p1" in replay_cfg
    assert replay_cfg.rstrip().endswith("INVARIANT\n    TLCRunnerNotReached\nCHECK_DEADLOCK FALSE")
    module, replay_cfg = replay_files("MCFoo", cfg, path=[step, step])
    assert "TLCRunnerOnPath == <<x, y>> \\in TLCRunnerPath" in module
    assert "CONSTRAINT\n    TLCRunnerOnPath" in replay_cfg
    assert without_symmetry("SYMMETRY Perms\nINVARIANT I") .split() == ["INVARIANT", "I"]


def test_server_output_as_measured() -> None:
    """What TLCServer 2.18 prints for a violation, saved: no property name, only the last
    step, the first state mislabelled "Initial predicate", exit status 0."""
    tool = parse_tool_output((SAVED / "server_violation.txt").read_text(encoding="utf-8"), 0)
    assert tool.violated is None and tool.outcome is Outcome.OTHER_ERROR
    assert [s.index for s in tool.trace] == [1, 2]
    assert dist.server_counterexample(tool) == tool.trace
    tool = parse_tool_output((SAVED / "server_initial.txt").read_text(encoding="utf-8"), 0)
    (step,) = dist.server_counterexample(tool)
    assert step.label == INITIAL_PREDICATE and step.state["lock"] == "NoCPU"


# --------------------------------------------------------------------------- on loopback


def test_loopback_pinned_counts_and_a_violation(tlc_jar: Path) -> None:
    """The CI test: a server and 2 workers on 127.0.0.1."""
    row, drun, port = check("MCHostReclaim_ZVM", tlc_jar, workers=2)
    assert row.as_expected, row.note
    assert row.result == "holds" and row.distinct == ENTRIES["MCHostReclaim_ZVM"].distinct
    assert drun is not None and drun.workers_started == 2 and not drun.events
    # Its action properties get the caveat of D211 beside the verdict.
    assert "no proof of the action properties" in row.note and "StealOrderProp" in row.note
    assert jvms_on(port) == []

    # An invariant's violation: an action property's is not reported by TLCServer every time
    # (D211), so a twin of an action property would make this test flaky.
    name = "MCPageStates_Twin_ReadResult"
    row, drun, port = check(name, tlc_jar, workers=2)
    assert row.as_expected, row.note
    assert row.violated == "ReadResultInv"
    # The whole behaviour, from an initial state, as long as the pinned local counterexample.
    assert row.trace[0].action == INITIAL_PREDICATE
    assert len(row.trace) == ENTRIES[name].depth
    assert drun is not None and drun.server_trace  # what TLCServer printed, kept
    assert row.trace[-1].state == drun.server_trace[-1].state or "before reaching" in row.note
    assert jvms_on(port) == []


def test_liveness_model_is_refused(tlc_jar: Path) -> None:
    row, drun, port = check("MCDiscardHandling_Liveness", tlc_jar)
    assert drun is None and not row.as_expected
    assert "does not check liveness" in row.note and "DiscardedMappingRemovedProp" in row.note
    assert jvms_on(port) == []


def test_port_in_use(tlc_jar: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        opts = dist.Options(port=port, workers=1)
        row, drun = dist.check_entry(
            entry("MCESSA_Paper2007", 60), jar=tlc_jar, library=LIBRARY, options=opts
        )
    assert drun is None and row.result == "could not run"
    assert f"port {port} is in use" in row.note
    assert jvms_on(port) == []


def test_timeout_stops_every_process(tlc_jar: Path) -> None:
    start = time.monotonic()
    row, drun, port = check("MCPageStates_Full", tlc_jar, timeout=6, workers=2)
    assert row.result == "timeout" and "did not finish within 6 s" in row.note
    assert time.monotonic() - start < 60
    assert jvms_on(port) == []


def kill_first_worker_mid_run(fleet: dist.Fleet, server_text: str) -> None:
    """Observer: SIGKILL worker 1 once the search is under way (some successors are back)."""
    worker = next((p for p in fleet.procs if p.role == "worker 1"), None)
    if worker is None or worker.popen.poll() is not None:
        return
    tool = parse_tool_output(server_text)
    if tool.distinct is not None and tool.distinct > 2000:
        os.killpg(worker.popen.pid, signal.SIGKILL)


def test_worker_killed_mid_run_loses_no_states(tlc_jar: Path) -> None:
    name = "MCPageStates_Full"
    port = dist.free_port()
    row, drun = dist.check_entry(
        entry(name), jar=tlc_jar, library=LIBRARY, options=dist.Options(port=port, workers=2),
        observer=kill_first_worker_mid_run,
    )  # fmt: skip
    assert drun is not None
    assert any("worker 1" in e and "SIGKILL" in e for e in drun.events), drun.events
    assert any("worker 3 started to replace it" in e for e in drun.events)
    # TLC saw the worker go (7006, 7002) and re-queued its block: the complete search still
    # finds every state.
    codes = {m.code for m in parse_messages(drun.run.raw_output)[0]}
    assert {dist.MSG_WORKER_LOST, dist.MSG_WORKER_DEREGISTERED} <= codes
    assert row.as_expected and row.distinct == ENTRIES[name].distinct, row.note
    assert jvms_on(port) == []


def test_every_worker_lost_is_an_error(tlc_jar: Path) -> None:
    port = dist.free_port()
    row, drun = dist.check_entry(
        entry("MCPageStates_Full"), jar=tlc_jar, library=LIBRARY,
        options=dist.Options(port=port, workers=1, respawn=0), observer=kill_first_worker_mid_run,
    )  # fmt: skip
    assert drun is None and row.result == "could not run"
    assert "every local worker is gone" in row.note
    assert jvms_on(port) == []


def test_documented_worker_command_joins(tlc_jar: Path, tmp_path: Path) -> None:
    """A worker started by `python -m tlcrunner worker HOST --port P`, as on another host."""
    port = dist.free_port()
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "tlcrunner", "worker", "127.0.0.1", "--port", str(port),
             "--timeout", "120", "--jar", str(tlc_jar)],
            cwd=REPO, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def worker_alive(fleet: dist.Fleet, server_text: str) -> None:
        if worker.poll() not in (None, 0):
            raise AssertionError(f"the worker command failed:\n{log.read_text()}")

    try:
        row, drun = dist.check_entry(
            entry("MCESSA_Paper2007", 120), jar=tlc_jar, library=LIBRARY,
            options=dist.Options(port=port, workers=0), observer=worker_alive,
        )  # fmt: skip
        assert row.as_expected and row.distinct == ENTRIES["MCESSA_Paper2007"].distinct, row.note
        assert worker.wait(timeout=30) == 0  # it exits by itself when the server is done
    finally:
        if worker.poll() is None:
            worker.terminate()  # SIGTERM: the command kills its JVM before it exits
        worker.wait()
    assert jvms_on(port) == []


def test_terminated_check_leaves_no_jvm(tlc_jar: Path, tmp_path: Path) -> None:
    """SIGTERM to `tlcrunner check --distributed` mid-run: the server and workers go with it."""
    port = dist.free_port()
    check_cmd = subprocess.Popen(
        [sys.executable, "-m", "tlcrunner", "check", "--distributed", "--port", str(port),
         "--models", "MCPageStates_Full", "--json", str(tmp_path / "c.json"),
         "--jar", str(tlc_jar)],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while len(jvms_on(port)) < 2 and time.monotonic() < deadline:  # server and a worker
            time.sleep(0.2)
        assert len(jvms_on(port)) >= 2
        check_cmd.terminate()
        assert check_cmd.wait(timeout=30) == exitcodes.INTERRUPTED
    finally:
        if check_cmd.poll() is None:
            check_cmd.kill()
            check_cmd.wait()
    assert jvms_on(port) == []


def test_worker_command_is_bounded(tlc_jar: Path) -> None:
    """No server: the worker keeps retrying, and --timeout stops it with its JVM."""
    port = dist.free_port()
    done = subprocess.run(
        [sys.executable, "-m", "tlcrunner", "worker", "127.0.0.1", "--port", str(port),
         "--timeout", "3", "--jar", str(tlc_jar)],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "was stopped" in done.stderr
    assert jvms_on(port) == []


def test_check_deadlock_false_is_read() -> None:
    model = REPO / "model"
    assert not dist.checks_deadlock(model / "MCMemoryDowngrade_Twin_NeverGivesUp.cfg")
    assert dist.checks_deadlock(model / "MCPageStates_Full.cfg")


def test_distributed_fingerprint_set(tlc_jar: Path) -> None:
    """--fpsets: the fingerprint set is split over two worker JVMs (TLCWorkerAndFPSet). TLC 2.18's
    workers sometimes exit (status 0) in the middle of such a run, one after the other, and the
    runner then reports, rightly, that the run cannot go on (seen in one of four full runs of the
    suite on 2 busy cores, never when the test runs alone): that race is TLC's, so it gets one
    more try, and a second one fails the test."""
    row, drun, port = check("MCESSA_Paper2007", tlc_jar, workers=2, fpsets=2)
    if row.result == "could not run" and "exited with status 0 while the search was running" in row.note:
        row, drun, port = check("MCESSA_Paper2007", tlc_jar, workers=2, fpsets=2)
    assert row.as_expected and row.distinct == ENTRIES["MCESSA_Paper2007"].distinct, row.note
    assert drun is not None and "2 out of 2 FPSet server(s) registered" in drun.run.raw_output
    assert jvms_on(port) == []


def test_deadlock_is_named_by_the_replay(tlc_jar: Path) -> None:
    """TLCServer prints one state and no reason; the local replay finds it has no successor. The
    twin has several deadlocked states: the replay reaches the one the server printed, not the
    first local TLC meets."""
    row, drun, port = check("MCLinuxGuestProtocol_Twin_Deadlock", tlc_jar, workers=2)
    assert row.as_expected and row.result == "deadlock", row.note
    assert drun is not None and row.trace[-1].state == drun.server_trace[-1].state
    assert row.trace[0].action == INITIAL_PREDICATE
    assert jvms_on(port) == []
