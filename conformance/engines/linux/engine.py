"""The kernel harness as an ESSA engine: in-process (:class:`KernelEssaEngine`, for
``classify --engine-class``) and over JSON lines (``python -m conformance.engines.linux``).

The harness binary (built by :mod:`.kernels` from a kernel tree, run under qemu-s390x) speaks a
small line protocol (classic_harness.c's header); this module translates PROTOCOL.md's ESSA
mode to it and back. It decides nothing about page states: every outcome, R1 byte and page
state in a reply is what the kernel's functions left in the PTEs and PGSTEs.

Replies are memoized (D121): the harness is a deterministic program of the lines it has read since
its last ``reset`` (one thread, no clock, no randomness), so the reply to a request is a function
of the profile and the requests since the reset. The engine keeps the replies of each profile in
a trie of those request sequences and asks the harness only for a sequence it has not run; when
the harness is elsewhere, the reset and the sequence's prefix go to it in one write (one round
trip), and every replayed reply must equal the one kept, or the engine faults (an error reply,
"nondeterministic").
classify's tours, tens of thousands of sequences that share their prefixes, cost one harness step
per new sequence instead of one per request. ``memo=False`` sends every request.
"""

from __future__ import annotations

import subprocess
from typing import Final, TypeAlias

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
                   "Migrate": "the VM has been migrated already",
                   "HostUnmapGmap": "the gmap PTE is empty",
                   "HostAge": "the gmap PTE is not valid"}  # fmt: skip
#: The gmap harness's verbs for the requests of the new gmap's own PTEs.
_GMAP_VERBS: Final = {"HostUnmapGmap": "unmap", "HostAge": "age"}
#: A gmap harness's reply reports the gmap PTE: V valid, A aged (invalid, present), E empty.
_GMAP_PTE: Final = {"V": "Valid", "A": "Aged", "E": "Empty"}


def parse_reply(line: str, pages: int, op: str = "") -> EssaReply:
    """A harness reply line: ``OUTCOME RESULT VALUE`` then one field per page: usage, then
    valid, swapped, Z, N, GC as 0/1, then the change bit as 0/1, or "-" where it is not
    reported (a VM without storage keys)."""
    fields = line.split()
    if len(fields) != 3 + pages or fields[0] == "error":
        raise EngineFault("protocol", f"the kernel harness answered {line.strip()!r}")
    host = []
    for f in fields[3:]:
        if (len(f) not in (7, 9) or f[0] not in _USAGE or set(f[1:6]) - {"0", "1"}
                or f[6] not in "01-" or len(f) == 9 and (f[7] not in _GMAP_PTE or f[8] not in "01")):
            raise EngineFault("protocol", f"the kernel harness answered {line.strip()!r}")
        valid, swapped, zbit, nodat, gc = (c == "1" for c in f[1:6])
        dirty = None if f[6] == "-" else f[6] == "1"
        # the gmap harness adds the gmap PTE and the host PTE's _PAGE_UNUSED
        gmap_pte = _GMAP_PTE[f[7]] if len(f) == 9 else None
        unused = f[8] == "1" if len(f) == 9 else None
        host.append(HostPage(f[0], valid, swapped, zbit, nodat, dirty=dirty, gc=gc,
                             gmapPte=gmap_pte, pteUnused=unused))  # fmt: skip
    outcome = fields[0]
    reason = _REASONS.get(op, "") if outcome == "Refused" else ""
    return EssaReply(outcome, int(fields[1]), int(fields[2]), tuple(host), reason)


#: Memoized replies: each request line's answer, its parsed reply, and the replies after it.
_Trie: TypeAlias = "dict[str, tuple[str, EssaReply, _Trie]]"


class KernelEssaEngine:
    """The kernel's ESSA code as an in-process ESSA engine. ``harness``: ``classic`` (or, with
    a 7.x tree, ``gmap``); ``kernel_src``: the tree, else $KERNEL_SRC, else Debian's tarball."""

    def __init__(self, harness: str = "classic", kernel_src: str | None = None,
                 memo: bool = True) -> None:  # fmt: skip
        self.harness = harness
        self.kernel_src = kernel_src
        self.built: Built | None = None
        self.pages = 1
        self.memo = memo
        self._proc: subprocess.Popen[str] | None = None
        self._root: _Trie = {}
        self._node: _Trie = self._root  # where the driver is: the requests since its reset
        self._path: list[str] = []
        self._harness_path: list[str] | None = None  # what the harness ran since its reset
        #: Requests the harness ran (replays included), requests answered from the trie, and
        #: the writes to the harness that waited for its answers.
        self.sent = self.memoized = self.round_trips = 0

    def _send(self, line: str) -> str:
        assert self._proc is not None and self._proc.stdin and self._proc.stdout, "hello first"
        self.round_trips += 1
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
            answer = self._proc.stdout.readline()
        except (BrokenPipeError, OSError) as exc:
            raise EngineFault("crash", f"the kernel harness stopped: {exc}") from None
        if not answer:
            raise EngineFault("crash", f"the kernel harness exited (status {self._proc.poll()})")
        return answer

    def _batch(self, lines: list[str]) -> list[str]:
        """Several lines in one write; their answers, in order (one round trip). A batch is a
        reset and one request sequence (up to run's 100 steps, a few kB each way), far below a
        pipe's buffer, so writing it all before reading cannot block."""
        assert self._proc is not None and self._proc.stdin and self._proc.stdout, "hello first"
        self.round_trips += 1
        try:
            self._proc.stdin.write("".join(line + "\n" for line in lines))
            self._proc.stdin.flush()
            answers = [self._proc.stdout.readline() for _ in lines]
        except (BrokenPipeError, OSError) as exc:
            raise EngineFault("crash", f"the kernel harness stopped: {exc}") from None
        if not all(answers):
            raise EngineFault("crash", f"the kernel harness exited (status {self._proc.poll()})")
        return answers

    def hello(self, request: EssaProfileRequest) -> EssaEngineInfo:
        impl = IMPL[self.harness]
        if request.impl is not None and request.impl != impl:
            raise Unsupported(f"this harness runs the kernel's {impl} code only")
        if self.harness == "gmap" and request.machine_interprets_essa:
            raise Unsupported("the harness runs KVM's emulation of ESSA (migration mode) only")
        if self.built is None:
            self.built = build(self.harness, self.kernel_src)
        self.close()
        chosen = request.merged(EssaProfileRequest(impl=impl, storage_keys=False, facility147=False,
                                                   cbrl_size=1, pages=1))  # fmt: skip
        if self.harness == "gmap":
            chosen = chosen.merged(EssaProfileRequest(prebuilt_page_tables=False,
                                                      machine_interprets_essa=False))  # fmt: skip
        self._proc = subprocess.Popen(self.built.command, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)  # fmt: skip
        self.pages = chosen.pages or 1
        cmma = chosen.cmma_enabled is not False
        answer = self._send(f"hello {int(bool(chosen.storage_keys))} "
                            f"{int(bool(chosen.facility147))} {chosen.cbrl_size} {self.pages} "
                            f"{int(cmma)}"
                            + (f" {int(bool(chosen.prebuilt_page_tables))}"
                               if self.harness == "gmap" else ""))  # fmt: skip
        if answer.strip() != "ok":
            raise Unsupported(answer.strip().removeprefix("error "))
        # a new profile: nothing kept; the harness is fresh, as after a reset
        self._root = self._node = {}
        self._path, self._harness_path = [], []
        return EssaEngineInfo(f"Linux {self.built.kernel} {self.harness} (kernel code)", chosen)

    def reset(self) -> None:
        if self.memo:
            self._node, self._path = self._root, []
            return
        if self._send("reset").strip() != "ok":
            raise EngineFault("error reply", "the kernel harness did not reset")

    def step(self, request: EssaRequest) -> EssaReply:
        line = self._line(request)
        if not self.memo:
            self.sent += 1
            return self._parse(self._send(line), request.op)
        kept = self._node.get(line)
        if kept is not None:
            self.memoized += 1
            answer, reply, self._node = kept
            self._path.append(line)
            return reply
        in_step, self._harness_path = self._harness_path == self._path, None  # unknown if it fails
        if in_step:
            answers = [self._send(line)]
        else:  # reset the harness and replay the driver's requests since its reset
            answers = self._batch(["reset", *self._path, line])
            if answers[0].strip() != "ok":
                raise EngineFault("error reply", "the kernel harness did not reset")
            answers = answers[1:]
            node = self._root
            for replayed, answer in zip(self._path, answers):
                kept_answer, _, node = node[replayed]
                if answer != kept_answer:
                    raise EngineFault("error reply", f"nondeterministic: the kernel harness answered "
                                      f"{kept_answer.strip()!r} to {replayed!r}, and now "
                                      f"{answer.strip()!r} to the same requests")  # fmt: skip
        self.sent += len(answers)
        reply = self._parse(answers[-1], request.op)
        child: _Trie = {}
        self._node[line] = (answers[-1], reply, child)
        self._node = child
        self._path.append(line)
        self._harness_path = list(self._path)
        return reply

    def _line(self, request: EssaRequest) -> str:
        """The harness's line for ``request``."""
        if request.op in _GMAP_ONLY:
            if self.harness != "gmap":
                return "refuse"
            return f"{_GMAP_VERBS[request.op]} {request.page}"
        if request.op == "ESSA" and request.beyond_memory:
            return f"essabeyond {request.orc}"
        args = [_VERBS[request.op]]
        if request.page != NONE:
            args.append(str(request.page))
        if request.op == "ESSA":
            args.append(str(request.orc))
            args.append("1" if request.problem_state else "0")
        if request.op == "Write":
            args.append(str(WRITTEN if request.arg == NONE else request.arg))
        return " ".join(args)

    def _parse(self, answer: str, op: str) -> EssaReply:
        reply = parse_reply(answer, self.pages, op)
        if op in _GMAP_ONLY and self.harness != "gmap":
            return reply._replace(reason=_GMAP_ONLY[op])
        return reply

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.stdin:
                self._proc.stdin.close()
            self._proc.wait(timeout=10)
            if self._proc.stdout:
                self._proc.stdout.close()
            self._proc = None


class GmapKernelEngine(KernelEssaEngine):
    """The new gmap's code (dat_perform_essa, Linux 7.x) of $KERNEL_SRC."""

    def __init__(self) -> None:
        super().__init__("gmap")


class ClassicKernelEngine(KernelEssaEngine):
    """The classic KVM code (pgste_perform_essa) of $KERNEL_SRC or Debian's linux-source."""

    def __init__(self) -> None:
        super().__init__("classic")
