"""SIGINT and SIGTERM in ``python -m conformance run``: the run stops at once, cleanly.

Within :func:`interruptible`, either signal raises KeyboardInterrupt in the main thread and is
remembered: the engine is closed (its process group killed), a TLC run is ended by
:mod:`tlcrunner.process` and its temporary folders removed as the exception unwinds, and
``run`` prints what it had found and its one summary line, and exits 130 (SIGINT) or 143
(SIGTERM), 128 plus the signal's number, as a shell reports a process the signal ended. A
verdict reached before the signal (a divergence, found and reported, whose TLC confirmation the
signal cut short) is kept: the exit status is the verdict's.

Python drops an exception raised while it runs a garbage collector callback (hypothesis has
one), so a signal can be lost there: every step of a drive asks :func:`stop_if_signalled`, which
raises it again.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from .exits import EXIT_INTERRUPTED, EXIT_TERMINATED

_received: list[int] = []


def signalled() -> int | None:
    """The signal received within :func:`interruptible`, if any."""
    return _received[0] if _received else None


def exit_status() -> int:
    """130 after SIGINT, 143 after SIGTERM."""
    return EXIT_TERMINATED if signalled() == signal.SIGTERM else EXIT_INTERRUPTED


def stop_if_signalled() -> None:
    if _received:
        raise KeyboardInterrupt(f"signal {signal.Signals(_received[0]).name}")


def _handler(signum: int, frame: FrameType | None) -> None:
    if not _received:
        _received.append(signum)
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGINT and SIGTERM handled as the module says, within the block (in the main thread;
    elsewhere nothing changes)."""
    _received.clear()
    try:
        previous = {s: signal.signal(s, _handler) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        _received.clear()
