"""The kernel harness as an ESSA engine: in-process (:class:`KernelEssaEngine`, for
``classify --engine-class``) and over JSON lines (``python -m conformance.engines.linux``).

The harness binary (built by :mod:`.kernels` from a kernel tree, run under qemu-s390x) speaks a
small line protocol (classic_harness.c's header); this module translates PROTOCOL.md's ESSA
mode to it and back. It decides nothing about page states: every outcome, R1 byte and page
state in a reply is what the kernel's functions left in the PTEs and PGSTEs.
"""

from __future__ import annotations

import subprocess
from typing import Final

from conformance.essa import (
    NONE, WRITTEN, EssaEngineInfo, EssaProfileRequest, EssaReply, EssaRequest, HostPage,
)  # fmt: skip
from conformance.protocol import EngineFault, Unsupported

from .kernels import Built, build

#: The Impl each harness implements (announced in the hello: reported, not trusted).
IMPL: Final = {"classic": "KVMClassic", "gmap": "KVMGmap"}
_USAGE: Final = "SUPV"
#: The line protocol's verb for each request of the ESSA mode.
_VERBS: Final = {"ESSA": "essa", "HostReclaim": "reclaim", "HostProcessCBRL": "cbrl",
                 "Migrate": "migrate", "Read": "read", "Write": "write", "Writeback": "writeback",
                 "HostResetCMMA": "resetcmma"}  # fmt: skip
#: Requests of the new gmap's own PTEs: the classic code has none, so the host never takes them.
_GMAP_ONLY: Final = {"HostUnmapGmap": "only the new gmap has gmap PTEs",
                     "HostAge": "only the new gmap has gmap PTEs"}  # fmt: skip
#: Why a harness refuses, for people.
_REASONS: Final = {"ESSA": "the CBRL is full: the ESSA intercepts and the host empties it first",
                   "HostReclaim": "the page is not resident", "HostProcessCBRL": "the CBRL is empty",
                   "Migrate": "the VM has been migrated already"}  # fmt: skip


def parse_reply(line: str, pages: int, op: str = "") -> EssaReply:
    """A harness reply line: ``OUTCOME RESULT VALUE`` then one field per page: usage, then
    valid, swapped, Z, N, GC as 0/1, then the change bit as 0/1, or "-" where it is not
    reported (a VM without storage keys)."""
    fields = line.split()
    if len(fields) != 3 + pages or fields[0] == "error":
        raise EngineFault("protocol", f"the kernel harness answered {line.strip()!r}")
    host = []
    for f in fields[3:]:
        if len(f) != 7 or f[0] not in _USAGE or set(f[1:6]) - {"0", "1"} or f[6] not in "01-":
            raise EngineFault("protocol", f"the kernel harness answered {line.strip()!r}")
        valid, swapped, zbit, nodat, gc = (c == "1" for c in f[1:6])
        dirty = None if f[6] == "-" else f[6] == "1"
        host.append(HostPage(f[0], valid, swapped, zbit, nodat, dirty=dirty, gc=gc))
    outcome = fields[0]
    reason = _REASONS.get(op, "") if outcome == "Refused" else ""
    return EssaReply(outcome, int(fields[1]), int(fields[2]), tuple(host), reason)


class KernelEssaEngine:
    """The kernel's ESSA code as an in-process ESSA engine. ``harness``: ``classic`` (or, with
    a 7.x tree, ``gmap``); ``kernel_src``: the tree, else $KERNEL_SRC, else Debian's tarball."""

    def __init__(self, harness: str = "classic", kernel_src: str | None = None) -> None:
        self.harness = harness
        self.kernel_src = kernel_src
        self.built: Built | None = None
        self.pages = 1
        self._proc: subprocess.Popen[str] | None = None

    def _send(self, line: str) -> str:
        assert self._proc is not None and self._proc.stdin and self._proc.stdout, "hello first"
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
            answer = self._proc.stdout.readline()
        except (BrokenPipeError, OSError) as exc:
            raise EngineFault("crash", f"the kernel harness stopped: {exc}") from None
        if not answer:
            raise EngineFault("crash", f"the kernel harness exited (status {self._proc.poll()})")
        return answer

    def hello(self, request: EssaProfileRequest) -> EssaEngineInfo:
        impl = IMPL[self.harness]
        if request.impl is not None and request.impl != impl:
            raise Unsupported(f"this harness runs the kernel's {impl} code only")
        if self.built is None:
            self.built = build(self.harness, self.kernel_src)
        self.close()
        chosen = request.merged(EssaProfileRequest(impl=impl, storage_keys=False, facility147=False,
                                                   cbrl_size=1, pages=1))  # fmt: skip
        self._proc = subprocess.Popen(self.built.command, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)  # fmt: skip
        self.pages = chosen.pages or 1
        cmma = chosen.cmma_enabled is not False
        answer = self._send(f"hello {int(bool(chosen.storage_keys))} "
                            f"{int(bool(chosen.facility147))} {chosen.cbrl_size} {self.pages} "
                            f"{int(cmma)}")  # fmt: skip
        if answer.strip() != "ok":
            raise Unsupported(answer.strip().removeprefix("error "))
        return EssaEngineInfo(f"Linux {self.built.kernel} {self.harness} (kernel code)", chosen)

    def reset(self) -> None:
        if self._send("reset").strip() != "ok":
            raise EngineFault("error reply", "the kernel harness did not reset")

    def step(self, request: EssaRequest) -> EssaReply:
        if request.op in _GMAP_ONLY:
            refused = parse_reply(self._send("refuse"), self.pages, request.op)
            return refused._replace(reason=_GMAP_ONLY[request.op])
        if request.op == "ESSA" and request.beyond_memory:
            return parse_reply(self._send(f"essabeyond {request.orc}"), self.pages, request.op)
        args = [_VERBS[request.op]]
        if request.page != NONE:
            args.append(str(request.page))
        if request.op == "ESSA":
            args.append(str(request.orc))
            args.append("1" if request.problem_state else "0")
        if request.op == "Write":
            args.append(str(WRITTEN if request.arg == NONE else request.arg))
        return parse_reply(self._send(" ".join(args)), self.pages, request.op)

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            self._proc.wait(timeout=10)
            if self._proc.stdout:
                self._proc.stdout.close()
            self._proc = None


class ClassicKernelEngine(KernelEssaEngine):
    """The classic KVM code (pgste_perform_essa) of $KERNEL_SRC or Debian's linux-source."""

    def __init__(self) -> None:
        super().__init__("classic")
