"""Child processes that never outlive the run, and SIGTERM handled like Ctrl-C.

TLC is started in a session of its own so a timeout can kill it and everything it started with
one ``killpg``. The price is that Ctrl-C in a terminal no longer reaches it (the terminal signals
only its foreground process group), so whoever started it must end it: :func:`run_in_session`
does, on a timeout and on any exception, KeyboardInterrupt included. :func:`sigterm_as_interrupt`
turns SIGTERM (``kill``, a CI job cancelled) into the same KeyboardInterrupt, so one code path
stops the children and keeps what was finished.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType


@dataclass(frozen=True)
class Finished:
    stdout: str
    stderr: str
    returncode: int | None  # None when it was killed for the timeout
    timed_out: bool


def _kill_group(proc: subprocess.Popen[str]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # already gone, and reaped below


#: The sessions :func:`run_in_session` is waiting on, from any thread: a run of several models
#: side by side waits in worker threads, which no signal reaches, so the main thread ends them
#: with :func:`kill_all_sessions` when it is interrupted.
_LIVE: set[subprocess.Popen[str]] = set()
_LIVE_LOCK = threading.Lock()
_STOPPED = threading.Event()


def sessions_stopped(stop: bool) -> None:
    """With ``stop``, kill every session :func:`run_in_session` is waiting on (their waits then
    return) and any it starts from now on; without, let sessions run again."""
    if not stop:
        _STOPPED.clear()
        return
    _STOPPED.set()
    with _LIVE_LOCK:
        live = list(_LIVE)
    for proc in live:
        _kill_group(proc)


def run_in_session(command: list[str], *, cwd: Path, timeout: float | None) -> Finished:
    """Run ``command`` in a new session, capturing its output as text.

    On a timeout the whole process group is killed and what it printed is kept. On any
    exception while waiting (KeyboardInterrupt above all) the group is killed and reaped before
    the exception goes on, so no JVM is left running with its temporary folder deleted.
    """
    proc = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, text=True, start_new_session=True,
    )  # fmt: skip
    with _LIVE_LOCK:
        _LIVE.add(proc)
    if _STOPPED.is_set():
        _kill_group(proc)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        stdout, stderr = proc.communicate()
        return Finished(stdout, stderr, None, True)
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(proc)
    return Finished(stdout, stderr, proc.returncode, False)


def stream_in_session(
    command: list[str], *, cwd: Path, timeout: float | None, on_line: Callable[[str], None],
    env: dict[str, str] | None = None,
) -> Finished:
    """Run ``command`` in a new session as :func:`run_in_session` does, but hand each line of its
    standard output to ``on_line`` as it comes (for progress), stderr merged into it.

    The output is read by a thread so the deadline is kept even while the child prints
    nothing; on the timeout, or any exception, the process group is killed and reaped.
    """
    proc = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, text=True, start_new_session=True, env=env,
    )  # fmt: skip
    lines: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            on_line(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.wait()
        reader.join()
        return Finished("".join(lines), "", None, True)
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    reader.join()
    return Finished("".join(lines), "", proc.returncode, False)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt in the main thread, as SIGINT does.
    Outside the main thread (where handlers cannot be set) it does nothing."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
