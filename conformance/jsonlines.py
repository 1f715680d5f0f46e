"""Plugging an engine in, out of process: JSON lines over the engine's stdin and stdout.

:class:`JsonLinesEngine` starts the engine's command, speaks PROTOCOL.md to it and presents it as
an in-process :class:`~conformance.engine.Engine`, so the rest of the suite does not know which
transport it drives. Every request is one line and waits for its one reply line: no batching, so
a step's figure in the benchmark is a real round trip.

What can go wrong is reported as an :class:`~conformance.protocol.EngineFault` whose message says
what the engine did: output that is not JSON, a reply with a wrong field, a second line for one
request, an exit (with its status and the last lines it wrote to stderr), or no reply within the
timeout (the engine is then killed).
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from typing import Any, Final

from refimpl.pagestates.profile import NO_VALUE

from .protocol import (
    VERSION, EngineFault, EngineInfo, ProfileRequest, ProtocolError, Reply, Unsupported,
    check_hello, check_reply,
)  # fmt: skip

DEFAULT_TIMEOUT: Final = 5.0
_STDERR_TAIL: Final = 5  # lines of the engine's stderr quoted when it dies


def _shorten(data: bytes, limit: int = 120) -> str:
    text = data.decode("utf-8", errors="replace")
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


class JsonLinesEngine:
    """An engine in another process, driven over JSON lines.

    ``command`` is a shell-style command line (split with :func:`shlex.split`, not run by a
    shell) or an argument list. ``timeout`` bounds the wait for each reply, in seconds.
    """

    def __init__(self, command: str | Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("empty engine command")
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.timeout = timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._buf = bytearray()
        self._next_id = 0

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
        self._buf.clear()
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
        tail = [ln for ln in lines if ln.strip()][-_STDERR_TAIL:]
        return ("; its last words on stderr: " + " | ".join(tail)) if tail else ""

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

    # ------------------------------------------------------------------ one round trip

    def _send(self, line: str) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            os.write(proc.stdin.fileno(), line.encode())
        except (BrokenPipeError, OSError):
            raise self._exit_fault() from None

    def _read_line(self) -> bytes:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        buf = self._buf
        while True:
            end = buf.find(b"\n")
            if end >= 0:
                line = bytes(buf[:end])
                del buf[: end + 1]
                if buf:
                    raise EngineFault(
                        "extra output",
                        f"the engine wrote more than one line for one request: after "
                        f"{_shorten(line)} came {_shorten(bytes(buf))} (one reply line per "
                        "request; logs go to stderr)",
                    )
                return line
            remaining = deadline - time.monotonic()
            ready = select.select([fd], [], [], remaining)[0] if remaining > 0 else []
            if not ready:
                self._kill()
                partial = f" (it had written {_shorten(bytes(buf))} without a newline)" if buf else ""
                raise EngineFault(
                    "hang",
                    f"no reply within {self.timeout:g} s{partial}; the engine was stopped",
                )
            chunk = os.read(fd, 65536)
            if not chunk:
                if buf:
                    raise EngineFault(
                        "crash",
                        f"the engine exited ({self._exit_status()}) after writing "
                        f"{_shorten(bytes(buf))} without a newline",
                    )
                raise self._exit_fault()
            buf += chunk

    def _round_trip(self, line: str, rid: int) -> dict[str, Any]:
        self._send(line)
        raw = self._read_line()
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

    def _request_id(self) -> int:
        rid = self._next_id
        self._next_id = rid + 1
        return rid

    @staticmethod
    def _error(obj: dict[str, Any]) -> str:
        return f"{obj.get('error')}: {obj.get('message', '(no message)')}"

    # ------------------------------------------------------------------ Engine

    def hello(self, request: ProfileRequest) -> EngineInfo:
        if self._proc is not None:
            self.close()
        self._start()
        rid = self._request_id()
        message: dict[str, Any] = {"type": "hello", "id": rid, "version": VERSION}
        if not request.is_empty():
            message["profile"] = request.to_json()
        obj = self._round_trip(json.dumps(message) + "\n", rid)
        if "error" in obj:
            if obj["error"] == "Unsupported":
                raise Unsupported(str(obj.get("message", "the engine does not run this profile")))
            raise EngineFault("error reply", f"the engine refused the hello: {self._error(obj)}")
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
        rid = self._request_id()
        # Built by hand: the names are fixed identifiers, and json.dumps is a third of the cost.
        if arg == NO_VALUE:
            line = f'{{"type":"step","id":{rid},"op":"{op}","page":{page}}}\n'
        else:
            line = f'{{"type":"step","id":{rid},"op":"{op}","page":{page},"arg":{arg}}}\n'
        obj = self._round_trip(line, rid)
        if "error" in obj:
            raise EngineFault("error reply", f"the engine answered with an error: {self._error(obj)}")
        try:
            return check_reply(op, obj)
        except ProtocolError as exc:
            raise EngineFault("protocol", str(exc)) from None

    def close(self) -> None:
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
