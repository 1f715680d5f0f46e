"""Plugging an engine in, out of process: JSON lines over the engine's stdin and stdout.

:class:`JsonLinesEngine` starts the engine's command, speaks PROTOCOL.md to it and presents it as
an in-process :class:`~conformance.pagestates.engine.Engine`, so the rest of the suite does not know which
transport it drives. Every request is one line, answered by one reply line. The hello is
lock-step; a program (a reset and its steps, all known before it starts) goes through
:meth:`JsonLinesEngine.exchange`, which keeps up to ``window`` requests in flight ahead of the
replies the driver is judging (PROTOCOL.md, "Pipelining"; D163), so a step costs the engine's
and the driver's work rather than a round trip. The replies are still read and judged one by
one, in order; those sent ahead of a divergence are read and dropped by their ids.

What can go wrong is reported as an :class:`~conformance.protocol.EngineFault` whose message says
what the engine did: output that is not JSON, a reply with a wrong field, a second line for one
request, an exit (with its status and the last lines it wrote to stderr), or no reply within the
timeout (the engine is then killed).
"""

from __future__ import annotations

import json
import os
import re
import select
import shlex
import signal
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final

from refimpl.pagestates.profile import NO_VALUE

from .protocol import (
    VERSION, EngineFault, EngineInfo, ProfileRequest, ProtocolError, Reply, Unsupported,
    check_hello, check_reply,
)  # fmt: skip

DEFAULT_TIMEOUT: Final = 5.0
#: Requests sent ahead of their replies by default (D163: measured in bench/conformance_bench.py).
DEFAULT_WINDOW: Final = 128
_STDERR_TAIL: Final = 5  # lines of the engine's stderr quoted when it dies
_STDERR_HEAD: Final = 2  # and its first lines, when there are more
#: Lines that say why a program died (Rust's panic, C's assert, Go's panic, Python's exception),
#: quoted wherever they are: a backtrace after them would push them out of the tail.
_DEATH: Final = re.compile(r"panicked at|^panic:|^fatal error:|Assertion .* failed|"
                           r"^Traceback|^\w*(Error|Exception)\b|error:|Aborted|Segmentation fault")


def stderr_words(lines: list[str]) -> str:
    """What a report quotes of a dead engine's stderr: every line if a few, else its first
    lines, the lines that say why it died (with the line after each: Rust prints the panic's
    message under its "panicked at" line) and its last lines, "..." where lines are left
    out."""
    text = [ln for ln in lines if ln.strip()]
    if not text:
        return ""
    keep = set(range(min(_STDERR_HEAD, len(text))))
    keep |= set(range(max(0, len(text) - _STDERR_TAIL), len(text)))
    deaths = [i for i, ln in enumerate(text) if _DEATH.search(ln)][:3]
    for i in deaths:
        keep |= {i, i + 1} & set(range(len(text)))
    out: list[str] = []
    last = -1
    for i in sorted(keep):
        if i > last + 1:
            out.append("...")
        out.append(text[i].strip())
        last = i
    if last < len(text) - 1:
        out.append("...")
    return "; its last words on stderr: " + " | ".join(out)
_MEMO_SIZE: Final = 100_000  # replies _answer keeps, by their lines
_RESET: Final = object()  # in a window: the reset that starts a program


def _shorten(data: bytes, limit: int = 120) -> str:
    text = data.decode("utf-8", errors="replace")
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


class JsonLinesEngine:
    """An engine in another process, driven over JSON lines.

    ``command`` is a shell-style command line (split with :func:`shlex.split`, not run by a
    shell) or an argument list. ``timeout`` bounds the wait for each reply, in seconds.
    """

    def __init__(self, command: str | Sequence[str], timeout: float = DEFAULT_TIMEOUT,
                 window: int = DEFAULT_WINDOW) -> None:  # fmt: skip
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("empty engine command")
        if window < 1:
            raise ValueError(f"the window must be at least 1, not {window}")
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.timeout = timeout
        #: Requests :meth:`exchange` sends ahead of their replies (1: lock-step).
        self.window = window
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._rfd = self._wfd = -1
        self._buf = bytearray()
        self._pos = 0  # where the unread part of _buf starts
        self._last_line: bytes | None = None
        self._prior: bytes | None = None
        self._pending: deque[tuple[int, bytes]] = deque()  # request lines not yet written
        self._written = -1  # the last request id written whole
        self._broken = False  # the engine closed its input
        self._next_id = 0
        self._hello: tuple[bytes, dict[str, Any]] | None = None  # for a restart (_revive)
        self._lost = False
        self._memo: dict[tuple[Any, bytes], Any] = {}  # replies by request and line (_answer)
        #: Faults on replies that were dropped unjudged (sent ahead of a divergence).
        self.dropped_faults: list[EngineFault] = []

    # ------------------------------------------------------------------ process

    def _start(self) -> subprocess.Popen[bytes]:
        self._stderr = tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                bufsize=0,
                # Its own session, so a hung engine and anything it started can be killed.
                start_new_session=True,
            )
        except OSError as exc:
            raise EngineFault("crash", f"could not start the engine `{self.command}`: {exc}") from exc
        self._proc = proc
        assert proc.stdin is not None and proc.stdout is not None
        self._wfd, self._rfd = proc.stdin.fileno(), proc.stdout.fileno()
        # The driver never blocks writing: a request the pipe cannot take waits in _pending
        # while the driver reads replies, so neither pipe can fill up both ways (deadlock).
        os.set_blocking(self._wfd, False)
        self._buf.clear()
        self._pos = 0
        self._pending.clear()
        self._last_line = self._prior = None  # the last two lines read (_stray)
        self._written = -1
        self._broken = False
        self._next_id = 0
        return proc

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            lines = self._stderr.read().decode("utf-8", errors="replace").splitlines()
        except (OSError, ValueError):
            return ""
        return stderr_words(lines)

    def _kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        proc.wait()

    def _exit_status(self) -> str:
        """How the engine ended, once it closed its output: ``exit status 3``, ``killed by
        SIGSEGV``; and its last words on stderr."""
        proc = self._proc
        assert proc is not None
        try:
            code = proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self._kill()
            code = proc.returncode
        if code is not None and code < 0:
            try:
                status = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                status = f"killed by signal {-code}"
        else:
            status = f"exit status {code}"
        return status + self._stderr_tail()

    def _exit_fault(self) -> EngineFault:
        return EngineFault("crash", f"the engine closed its output and exited ({self._exit_status()})")

    # ------------------------------------------------------------------ the wire

    def _queue(self, rid: int, line: bytes) -> None:
        """Queue request ``rid``'s line; it is written while the driver waits for replies."""
        self._pending.append((rid, line))

    def _flush(self) -> None:
        """Write what is queued, as much as the pipe takes now (the engine's stdin does not
        block: a full pipe waits for the engine to read, while the driver reads its replies)."""
        pending = self._pending
        if not pending or self._broken:
            return
        data = pending[0][1] if len(pending) == 1 else b"".join(line for _, line in pending)
        try:
            n = os.write(self._wfd, data)
        except BlockingIOError:
            return
        except OSError:  # BrokenPipeError: the engine closed its input (it exited, or will)
            self._broken = True
            pending.clear()
            return
        while pending and n >= len(pending[0][1]):
            rid, line = pending.popleft()
            n -= len(line)
            self._written = rid
        if n:
            rid, line = pending[0]
            pending[0] = (rid, line[n:])

    def _read_line(self, rid: int) -> bytes:
        """The next line the engine wrote, the reply to request ``rid``: within the timeout,
        writing the queued requests meanwhile."""
        buf, pos = self._buf, self._pos
        end = buf.find(b"\n", pos)
        if end < 0:
            end = self._wait_line(rid)
            buf, pos = self._buf, self._pos
        line = bytes(buf[pos:end])
        self._pos = end + 1
        if self._pos == len(buf):
            buf.clear()
            self._pos = 0
        elif rid == self._next_id - 1:
            # Nothing was asked after this request: what follows its reply is a line no request
            # asked for (in lock-step, after every reply). The fault is this request's own.
            self._last_line = None
            fault = EngineFault(
                "extra output",
                f"the engine wrote more than one line for one request: after {_shorten(line)} "
                f"came {_shorten(bytes(buf[self._pos:]))} (one reply line per request; logs go "
                "to stderr)",
            )
            fault.line = line  # the reply it did give (:meth:`_answer` decodes it)
            raise fault
        self._prior, self._last_line = self._last_line, line
        return line

    def _wait_line(self, rid: int) -> int:
        """Read until the buffer holds a whole line (the reply to request ``rid``), writing the
        queued requests meanwhile; where the line ends. Raises the hang (after the timeout:
        the engine is then killed) or the crash."""
        assert self._proc is not None
        fd = self._rfd
        self._flush()
        deadline = time.monotonic() + self.timeout
        while True:
            buf, pos = self._buf, self._pos
            end = buf.find(b"\n", pos)
            if end >= 0:
                return end
            if self._broken and self._written < rid:
                raise self._exit_fault()  # its request never reached the engine
            remaining = deadline - time.monotonic()
            writing = [self._wfd] if self._pending and not self._broken else []
            ready_r, ready_w, _ = (select.select([fd], writing, [], remaining) if remaining > 0
                                   else ([], [], []))  # fmt: skip
            if ready_w:
                self._flush()
            if not ready_r:
                if ready_w:
                    continue
                self._kill()
                rest = bytes(buf[pos:])
                partial = f" (it had written {_shorten(rest)} without a newline)" if rest else ""
                raise EngineFault(
                    "hang",
                    f"no reply within {self.timeout:g} s{partial}; the engine was stopped",
                )
            chunk = os.read(fd, 65536)
            if not chunk:
                if len(buf) > pos:
                    raise EngineFault(
                        "crash",
                        f"the engine exited ({self._exit_status()}) after writing "
                        f"{_shorten(bytes(buf[pos:]))} without a newline",
                    )
                raise self._exit_fault()
            if pos:
                del buf[:pos]
                self._pos = 0
            buf += chunk

    def _stray(self, rid: int, fault: EngineFault, later: bool) -> EngineFault:
        """``fault``, found on the line read as the reply to ``rid`` (not JSON, or not ``rid``'s
        reply), or extra output after the previous reply when the next line is ``rid``'s: a
        second line for the previous request, which lock-step finds in the same read as that
        reply. The next line is waited for only if a reply is due anyway (``later``: requests
        after ``rid`` are in flight), so an engine that wrote a bad reply is not waited on."""
        if fault.kind not in ("malformed", "protocol", "extra output") or self._last_line is None:
            return fault
        stray = self._last_line
        if self._buf.find(b"\n", self._pos) < 0 and not later:
            return fault
        try:
            end = self._wait_line(rid)
            obj = json.loads(self._buf[self._pos : end])
        except (EngineFault, ValueError):
            return fault
        if not isinstance(obj, dict) or obj.get("id") != rid:
            return fault
        return EngineFault(
            "extra output",
            f"the engine wrote more than one line for one request: after "
            f"{_shorten(self._prior or b'')} "
            f"came {_shorten(stray)} (one reply line per request; logs go to stderr)",
            previous=True,
        )

    def _receive(self, rid: int) -> dict[str, Any]:
        """The reply to request ``rid``, decoded, its ``id`` checked."""
        return self._parse(self._read_line(rid), rid)

    def _parse(self, raw: bytes, rid: int) -> dict[str, Any]:
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise EngineFault(
                "malformed", f"the reply {_shorten(raw)} is not JSON ({exc})"
            ) from None
        if not isinstance(obj, dict):
            raise EngineFault("malformed", f"the reply {_shorten(raw)} is not a JSON object")
        got = obj.get("id")
        if got != rid:
            if "id" not in obj:
                raise EngineFault("protocol", f'the reply {_shorten(raw)} has no "id" (expected {rid})')
            raise EngineFault(
                "extra output",
                f"the reply {_shorten(raw)} answers request {got!r}, not {rid}: the engine wrote "
                "a line no request asked for, or skipped one",
            )
        return obj

    def _round_trip(self, line: str, rid: int) -> dict[str, Any]:
        self._revive()
        self._queue(rid, line.encode())
        return self._receive(rid)

    def _request_id(self) -> int:
        rid = self._next_id
        self._next_id = rid + 1
        return rid

    @staticmethod
    def _error(obj: dict[str, Any]) -> str:
        return f"{obj.get('error')}: {obj.get('message', '(no message)')}"

    # ------------------------------------------------------------------ pipelining

    def exchange(self, programs: Iterable[Sequence[Any]]) -> Iterator[Any]:
        """Programs, each a reset then its steps, with up to :attr:`window` requests in flight
        (sent, their replies not yet read), across program boundaries: every program is known
        before its first reply is judged. Yields None for each reset, then each step's reply, in
        order, each checked as :meth:`step` checks it (a bad one raises EngineFault). The window
        is refilled when half of it has been answered, so requests go out in batches. Closed
        before its end (the driver found a divergence), it reads and drops the replies still in
        flight, by their ids, so that nothing stale is judged later. With a window of 1 the
        wire sees exactly what :meth:`reset` and :meth:`step` send."""
        self._revive()
        window, low = self.window, self.window // 2
        flight: deque[tuple[int, Any]] = deque()  # (id, request) sent, not yet answered
        source = iter(programs)
        current: Iterator[Any] = iter(())  # the rest of the program being sent
        more = True
        try:
            while True:
                if more and len(flight) <= low:
                    while len(flight) < window:
                        request = next(current, _RESET)
                        if request is _RESET:
                            program = next(source, None)
                            if program is None:
                                more = False
                                break
                            current = iter(program)
                        rid = self._request_id()
                        self._queue(rid, f'{{"type":"reset","id":{rid}}}\n'.encode()
                                    if request is _RESET else self._encode(rid, request))  # fmt: skip
                        flight.append((rid, request))
                if not flight:
                    return
                rid, request = flight.popleft()
                try:
                    reply = self._receive(rid) if request is _RESET else self._answer(rid, request)
                except EngineFault as exc:
                    stray = self._stray(rid, exc, bool(flight))
                    if stray is not exc:
                        flight.appendleft((rid, request))  # its reply is still to be read
                    raise stray from None
                if request is not _RESET:
                    yield reply
                elif "error" in reply:
                    raise EngineFault("error reply", f"the engine refused the reset: "
                                      f"{self._error(reply)}")  # fmt: skip
                else:
                    yield None
        except GeneratorExit:
            self._drop(flight)
            raise
        except EngineFault:
            # The fault is the verdict; the replies sent after it are dropped as after a
            # divergence, unless the engine is gone (a crash, or killed for a hang).
            if self._proc is not None and self._proc.poll() is None:
                self._drop(flight)
            raise

    def _drop(self, flight: Iterable[tuple[int, Any]]) -> None:
        """Read and drop the replies to the requests in ``flight``, sent ahead of a divergence
        or a fault: the driver never judges them. If the engine fails on one (a request
        lock-step would not have sent), it is restarted before the next request, with the
        hello it answered, so the drive goes on as it would have in lock-step."""
        try:
            for rid, _ in flight:
                self._receive(rid)
            if self._pos < len(self._buf):
                raise EngineFault("extra output", "a line after the last reply in flight: "
                                  f"{_shorten(bytes(self._buf[self._pos:]))}")  # fmt: skip
        except EngineFault as exc:
            self.dropped_faults.append(exc)
            self._kill()
            self._lost = True

    def _revive(self) -> None:
        """Restart an engine lost while its replies were being dropped (:meth:`_drop`): the
        same hello, whose reply must be the one it gave before."""
        if not self._lost:
            return
        self._lost = False
        assert self._hello is not None
        line, answer = self._hello
        self._close_process()
        self._start()
        rid = self._request_id()
        self._queue(rid, line)
        try:
            again = self._receive(rid)
        except EngineFault as exc:
            raise EngineFault(exc.kind, "restarting the engine (it failed on requests sent "
                              f"ahead of a divergence): {exc.message}") from None  # fmt: skip
        if again != answer:
            raise EngineFault("protocol", "restarted with the same hello, the engine answered "
                              f"{again!r}, not {answer!r}")  # fmt: skip

    # ------------------------------------------------------------------ the mode's messages

    def _encode(self, rid: int, request: Any) -> bytes:
        """A step request's line (PageStates: ``request`` is ``(op, page, arg)``)."""
        op, page, arg = request
        # Built by hand: the names are fixed identifiers, and json.dumps is a third of the cost.
        if arg == NO_VALUE:
            return f'{{"type":"step","id":{rid},"op":"{op}","page":{page}}}\n'.encode()
        return f'{{"type":"step","id":{rid},"op":"{op}","page":{page},"arg":{arg}}}\n'.encode()

    def _decode(self, request: Any, obj: dict[str, Any]) -> Any:
        """A step reply, checked (PageStates: a :class:`~conformance.protocol.Reply`)."""
        try:
            return check_reply(request[0], obj)
        except ProtocolError as exc:
            raise EngineFault("protocol", str(exc)) from None

    def _call(self, request: Any) -> Any:
        """One step in lock-step: its request, then its reply."""
        self._revive()
        rid = self._request_id()
        self._queue(rid, self._encode(rid, request))
        return self._answer(rid, request)

    def _answer(self, rid: int, request: Any) -> Any:
        """The reply to step ``rid`` (``request``), checked. A reply line is the engine's
        ``{"id":N,`` followed by the rest of the object, and its decoded, checked reply is a
        function of that rest and of the request (and of the hello, which empties the memo):
        the rest is looked up first, and parsed only the first time it comes."""
        try:
            raw = self._read_line(rid)
        except EngineFault as exc:
            if exc.line is not None:
                # Extra output after this reply: the reply itself is reported with the fault.
                try:
                    obj = self._parse(exc.line, rid)
                    if "error" not in obj:
                        exc.reply = self._decode(request, obj)
                except EngineFault:
                    pass
            raise
        rest = None
        if raw.startswith(b'{"id":'):
            comma = raw.find(b",", 6)
            if comma > 0 and raw[6:comma].strip(b" \t\r") == b"%d" % rid:
                rest = raw[comma + 1 :]
                hit = self._memo.get((request, rest))
                if hit is not None:
                    return hit
        obj = self._parse(raw, rid)
        if "error" in obj:
            raise EngineFault("error reply", f"the engine answered with an error: {self._error(obj)}")
        reply = self._decode(request, obj)
        # A rest naming "id" again would decode to another id: such a line is never kept.
        if rest is not None and b'"id"' not in rest:
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            self._memo[(request, rest)] = reply
        return reply

    def _open(self, message: dict[str, Any]) -> dict[str, Any]:
        """Start the engine and say ``message`` (a hello, lock-step); its reply, kept for a
        restart. An error reply: Unsupported, or an EngineFault."""
        if self._proc is not None:
            self.close()
        self._start()
        rid = self._request_id()
        line = (json.dumps({"type": message["type"], "id": rid, **message}) + "\n").encode()
        self._queue(rid, line)
        obj = self._receive(rid)
        if "error" in obj:
            if obj["error"] == "Unsupported":
                raise Unsupported(str(obj.get("message", "the engine does not run this profile")))
            raise EngineFault("error reply", f"the engine refused the hello: {self._error(obj)}")
        self._hello = (line, obj)
        self._memo.clear()
        return obj

    # ------------------------------------------------------------------ Engine

    def hello(self, request: ProfileRequest) -> EngineInfo:
        message: dict[str, Any] = {"type": "hello", "version": VERSION}
        if not request.is_empty():
            message["profile"] = request.to_json()
        obj = self._open(message)
        try:
            return check_hello(obj)
        except ProtocolError as exc:
            raise EngineFault("protocol", f"hello reply: {exc}") from None

    def reset(self) -> None:
        rid = self._request_id()
        obj = self._round_trip(f'{{"type":"reset","id":{rid}}}\n', rid)
        if "error" in obj:
            raise EngineFault("error reply", f"the engine refused the reset: {self._error(obj)}")

    def step(self, op: str, page: int, arg: int) -> Reply:
        return self._call((op, page, arg))  # type: ignore[no-any-return]

    def close(self) -> None:
        self._hello = None
        self._lost = False
        self._close_process()

    def _close_process(self) -> None:
        proc = self._proc
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=1.0)
        except (subprocess.TimeoutExpired, OSError):
            self._kill()
        finally:
            if proc.stdout is not None:
                proc.stdout.close()
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None
            self._proc = None
