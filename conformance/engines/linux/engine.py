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

import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from conformance.essa import (
    NONE, WRITTEN, EssaEngineInfo, EssaProfileRequest, EssaReply, EssaRequest, HostPage,
)  # fmt: skip
from conformance.protocol import EngineFault, Unsupported

from refimpl.essa import EssaProfile

from .kernels import HARNESSES, Built, build

#: Seconds the harness may take over one answer (a request, or a batch's next answer) before the
#: step is taken to hang: a lock never released, a loop that never ends in the kernel's code. A
#: request takes milliseconds under qemu-s390x; a loaded machine stays far below this.
REQUEST_TIMEOUT: Final = float(os.environ.get("KERNEL_CHECK_REQUEST_TIMEOUT", "60"))


class _Watchdog:
    """Stops the harness when an answer it owes is late: ``arm(what)`` before a blocking read,
    ``disarm()`` after it. One thread per engine, asleep while nothing is owed. When it fires
    it kills the harness's process group, so the read returns end of file and :meth:`fault`
    names what was owed."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._what = ""
        self._pid: int | None = None
        self.fired: str | None = None
        self._thread: threading.Thread | None = None

    def watch(self, pid: int | None) -> None:
        with self._cond:
            self._pid, self.fired = pid, None

    def arm(self, what: str) -> None:
        with self._cond:
            self._deadline, self._what = time.monotonic() + self.timeout, what
            if self._thread is None:  # started on demand; it ends after a while of nothing owed
                self._thread = threading.Thread(target=self._run, daemon=True,
                                                name="kernel-check watchdog")  # fmt: skip
                self._thread.start()
            self._cond.notify()

    def disarm(self) -> None:
        with self._cond:
            self._deadline = None

    def _run(self) -> None:
        with self._cond:
            while True:
                if self._deadline is None:
                    if not self._cond.wait(5.0) and self._deadline is None:
                        self._thread = None
                        return
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                self.fired, self._deadline = self._what, None
                if self._pid is not None:
                    try:
                        os.killpg(self._pid, signal.SIGKILL)
                    except OSError:
                        pass

    def fault(self, stack: Sequence[str] = ()) -> EngineFault | None:
        """The hang, if the watchdog stopped the harness; ``stack``: the kernel functions open
        when it was stopped (:func:`read_where`), outermost first."""
        if self.fired is None:
            return None
        where = (f" in the kernel function {stack[-1]} (called by "
                 f"{' < '.join(reversed(stack[:-1])) or 'the harness'})" if stack else "")
        return EngineFault("hang", f"the kernel's code did not answer {self.fired} within "
                           f"{self.timeout:g} s{where} (a lock never released, or a loop that "
                           "never ends); the harness was stopped")  # fmt: skip


@dataclass(frozen=True)
class Where:
    """What a harness keeps in its shared file (harness_trace.h, $KERNEL_CHECK_WHERE): the
    kernel functions open now, outermost first; every kernel function it took from the tree;
    those a request entered."""

    stack: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    entered: frozenset[str] = frozenset()


#: harness_trace.h's offsets in the shared file.
_WHERE_ENTERED: Final = 4096
_WHERE_NAMES: Final = 8192


def read_where(path: str | None) -> Where:
    """The harness's shared file at ``path`` (empty if there is none, or it was not written)."""
    try:
        with open(path or "", "rb") as f:
            data = f.read()
    except OSError:
        return Where()
    if len(data) <= _WHERE_NAMES:
        return Where()
    stack = data[:_WHERE_ENTERED].split(b"\0", 1)[0].decode(errors="replace").split()
    names = data[_WHERE_NAMES:].split(b"\0", 1)[0].decode(errors="replace").split()
    flags = data[_WHERE_ENTERED:_WHERE_ENTERED + len(names)]
    return Where(tuple(stack), tuple(names),
                 frozenset(n for n, f in zip(names, flags) if f == ord("1")))  # fmt: skip


def _die_with_parent() -> None:
    """In the harness's process before it runs: it is killed when the process that started it
    ends (PR_SET_PDEATHSIG), so a worker stopped by Ctrl-C or by its pool leaves no harness
    spinning in its own session."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


#: The Impl each harness implements (announced in the hello: reported, not trusted).
IMPL: Final = {"classic": "KVMClassic", "gmap": "KVMGmap"}
_USAGE: Final = "SUPV"
#: The line protocol's verb for each request of the ESSA mode.
_VERBS: Final = {"ESSA": "essa", "HostReclaim": "reclaim", "HostProcessCBRL": "cbrl",
                 "Migrate": "migrate", "Read": "read", "Write": "write", "Writeback": "writeback",
                 "HostResetCMMA": "resetcmma", "MigrationStart": "migstart",
                 "MigrationSend": "migsend"}  # fmt: skip
#: The machines (PROTOCOL.md's modes) the engine announces. The classic harness also speaks the
#: ESSAMigrationVMM mode's requests (its MIG 2), but only with memslots on 1 MB segments, as KVM
#: maps them (D376), while the mode's layouts put a memslot at any guest frame: kernel-check's VMM
#: pass (vmm_check) drives that mode with layouts of its own, and the engine does not announce it.
MACHINES: Final = {"classic": ("ESSA", "ESSAMigration"), "gmap": ("ESSA",)}
#: The modes a harness speaks when its driver sets them (the VMM pass).
SPOKEN: Final = {"classic": ("ESSA", "ESSAMigration", "ESSAMigrationVMM"), "gmap": ("ESSA",)}
#: The ESSAMigrationVMM mode's requests (PROTOCOL.md): the harness's verbs (MIG 2).
_VMM_VERBS: Final = {"MigrationStart": "migstart", "MigrationStop": "migstop", "Get": "get",
                     "Peek": "peek", "SlotCreate": "slotcreate", "SlotLogging": "slotlog",
                     "SlotDelete": "slotdelete", "Migrate": "switch"}  # fmt: skip
#: Requests of the new gmap's own PTEs: the classic code has none, so the host never takes them.
_GMAP_ONLY: Final = {"HostUnmapGmap": "only the new gmap has gmap PTEs",
                     "HostAge": "only the new gmap has gmap PTEs"}  # fmt: skip
#: Why a harness refuses, for people.
_REASONS: Final = {"ESSA": "the CBRL is full: the ESSA intercepts and the host empties it first",
                   "HostReclaim": "the page is not resident", "HostProcessCBRL": "the CBRL is empty",
                   "Migrate": "the VM has been migrated already",
                   "MigrationStart": "the VM is migrating or was migrated already",
                   "MigrationSend": "KVM_S390_GET_CMMA_BITS does not send the page: it is not "
                                    "CMMA-dirty, or no migration is on",
                   "HostUnmapGmap": "the gmap PTE is empty",
                   "HostAge": "the gmap PTE is not valid"}  # fmt: skip
#: The gmap harness's verbs for the requests of the new gmap's own PTEs.
_GMAP_VERBS: Final = {"HostUnmapGmap": "unmap", "HostAge": "age"}
#: A gmap harness's reply reports the gmap PTE: V valid, A aged (invalid, present), E empty.
_GMAP_PTE: Final = {"V": "Valid", "A": "Aged", "E": "Empty"}


def parse_reply(line: str, pages: int, op: str = "", migration: bool = False) -> EssaReply:
    """A harness reply line: ``OUTCOME RESULT VALUE`` then one field per page: usage, then
    valid, swapped, Z, N, GC as 0/1, then the change bit as 0/1, or "-" where it is not
    reported (a VM without storage keys); with ``migration`` (the hello's MIG 1) then the page's
    bit in the second dirty bitmap, 0/1."""
    fields = line.split()
    if len(fields) != 3 + pages or fields[0] == "error":
        raise EngineFault("protocol", f"the kernel harness answered {line.strip()!r}")
    host = []
    cmma_dirty: list[bool | None] = []
    for f in fields[3:]:
        if migration:
            if f[-1:] not in ("0", "1"):
                raise EngineFault("protocol", f"the kernel harness answered {line.strip()!r}")
            cmma_dirty.append(f[-1] == "1")
            f = f[:-1]
        else:
            cmma_dirty.append(None)
        if (len(f) not in (7, 9) or f[0] not in _USAGE or set(f[1:6]) - {"0", "1"}
                or f[6] not in "01-" or len(f) == 9 and (f[7] not in _GMAP_PTE or f[8] not in "01")):
            raise EngineFault("protocol", f"the kernel harness answered {line.strip()!r}")
        valid, swapped, zbit, nodat, gc = (c == "1" for c in f[1:6])
        dirty = None if f[6] == "-" else f[6] == "1"
        # the gmap harness adds the gmap PTE and the host PTE's _PAGE_UNUSED
        gmap_pte = _GMAP_PTE[f[7]] if len(f) == 9 else None
        unused = f[8] == "1" if len(f) == 9 else None
        host.append(HostPage(f[0], valid, swapped, zbit, nodat, dirty=dirty, gc=gc,
                             gmapPte=gmap_pte, pteUnused=unused,
                             cmmaDirty=cmma_dirty[-1]))  # fmt: skip
    outcome = fields[0]
    reason = _REASONS.get(op, "") if outcome == "Refused" else ""
    return EssaReply(outcome, int(fields[1]), int(fields[2]), tuple(host), reason)


#: Memoized replies: each request line's answer, its parsed reply, and the replies after it.
#: An answer "" is in flight (sent ahead by :meth:`KernelEssaEngine.exchange`, not read yet).
_Trie: TypeAlias = "dict[str, tuple[str, EssaReply, _Trie]]"
_PENDING: Final = EssaReply("Pending")
#: The harness's snapshot slots (classic_harness.c's MAX_SNAPSHOTS).
SNAPSHOTS: Final = 1024


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
        #: The modes this harness speaks, and the one the next hello is in (the driver of a
        #: mode sets it: in ESSAMigration each reply carries the pages' CMMA-dirty bits, and
        #: Migrate is the incremental migration's switch).
        self.machines: tuple[str, ...] = MACHINES.get(harness, ("ESSA",))
        self.machine = "ESSA"
        self._proc: subprocess.Popen[str] | None = None
        self._root: _Trie = {}
        self._node: _Trie = self._root  # where the driver is: the requests since its reset
        self._path: list[str] = []
        self._harness_path: list[str] | None = None  # what the harness ran since its reset
        #: The harness's snapshot slot of a trie node (by id: the state after its requests), and
        #: each slot's node.
        self._slots: dict[int, int] = {}
        self._slot_owner: dict[int, int] = {}
        self._lines: dict[EssaRequest, str] = {}
        self._next_slot = 0
        #: Requests the harness ran (replays included), requests answered from the trie, and
        #: the writes to the harness that waited for its answers.
        self.sent = self.memoized = self.round_trips = 0
        self._dog = _Watchdog(REQUEST_TIMEOUT)
        #: The harness's shared file (harness_trace.h), while it runs.
        self._where: str | None = None
        #: The kernel functions the harness took from the tree, and those a request entered,
        #: over every harness this engine has run (read as each ends).
        self.functions: tuple[str, ...] = ()
        self.entered: set[str] = set()

    def _readline(self, what: str) -> str:
        """The harness's next line, within the request timeout; a hang is an EngineFault."""
        assert self._proc is not None and self._proc.stdout, "hello first"
        self._dog.arm(what)
        try:
            answer = self._proc.stdout.readline()
        except KeyboardInterrupt:  # Ctrl-C: the harness is in a session of its own
            self._kill()
            raise
        finally:
            self._dog.disarm()
        if not answer:
            hang = self._dog.fault(read_where(self._where).stack)
            if hang is not None:
                raise hang
            raise EngineFault("crash", f"the kernel harness exited (status {self._proc.poll()})"
                              + self._in_kernel())  # fmt: skip
        return answer

    def _broken(self, exc: OSError) -> EngineFault:
        """The fault of a write to a harness that has gone: the hang that stopped it, if one
        did (every later request of the profile meets the same hang), else a crash."""
        hang = self._dog.fault(read_where(self._where).stack)
        if hang is not None:
            return hang
        return EngineFault("crash", f"the kernel harness stopped: {exc}{self._in_kernel()}")

    def _in_kernel(self) -> str:
        """Where the harness was in the kernel's code, for a fault's message ("" if nowhere)."""
        stack = read_where(self._where).stack
        return f" in the kernel function {' < '.join(reversed(stack))}" if stack else ""

    def _kill(self) -> None:
        """Stop the harness's process group at once (qemu and what it runs)."""
        if self._proc is not None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except OSError:
                pass

    def _send(self, line: str) -> str:
        assert self._proc is not None and self._proc.stdin and self._proc.stdout, "hello first"
        self.round_trips += 1
        try:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
            answer = self._readline(repr(line))
        except (BrokenPipeError, OSError) as exc:
            raise self._broken(exc) from None
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
            answers = [self._readline(repr(line)) for line in lines]
        except (BrokenPipeError, OSError) as exc:
            raise self._broken(exc) from None
        if not all(answers):
            raise EngineFault("crash", f"the kernel harness exited (status {self._proc.poll()})")
        return answers

    def hello(self, request: EssaProfileRequest) -> EssaEngineInfo:
        impl = IMPL[self.harness]
        if request.impl is not None and request.impl != impl:
            raise Unsupported(f"this harness runs the kernel's {impl} code only")
        if self.machine not in SPOKEN.get(self.harness, self.machines):
            raise Unsupported(f"the {self.harness} harness speaks {', '.join(self.machines)}, "
                              f"not {self.machine}")
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
        # a session of its own: a hang's watchdog stops the harness and all it started (qemu);
        # the shared file says where in the kernel's code it was (harness_trace.h)
        fd, self._where = tempfile.mkstemp(prefix="kernel-check-where-")
        os.close(fd)
        # a build in use is the most recently used: a build beside a long check (kernels.prune)
        # keeps the few most recent and must not take this one away under it
        try:
            os.utime(self.built.binary.parent)
        except OSError:
            pass
        self._proc = subprocess.Popen(self.built.command, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True, start_new_session=True,
                                      env={**os.environ, "KERNEL_CHECK_WHERE": self._where},
                                      preexec_fn=_die_with_parent)  # fmt: skip
        self._dog.watch(self._proc.pid)
        self.pages = chosen.pages or 1
        cmma = chosen.cmma_enabled is not False
        answer = self._send(f"hello {int(bool(chosen.storage_keys))} "
                            f"{int(bool(chosen.facility147))} {chosen.cbrl_size} {self.pages} "
                            f"{int(cmma)}"
                            + (f" {int(bool(chosen.prebuilt_page_tables))}"
                               if self.harness == "gmap" else
                               f" {2 if self.machine == 'ESSAMigrationVMM' else int(self.machine == 'ESSAMigration')}"))  # fmt: skip
        if answer.strip() != "ok":
            raise Unsupported(answer.strip().removeprefix("error "))
        # a new profile: nothing kept; the harness is fresh, as after a reset
        self._root = self._node = {}
        self._slots, self._slot_owner, self._next_slot = {}, {}, 0
        self._path, self._harness_path = [], []
        self._lines = {}  # Migrate's line depends on the mode
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

    def exchange(self, programs: Iterable[Sequence[EssaRequest]]) -> Iterator[EssaReply | None]:
        """The driver's pipelined drive (:meth:`conformance.driver.Drive.run_all`): programs,
        each from a reset; yields None for each reset, then each step's reply, in order. With
        the memo, a program the trie holds whole is answered from it; any other goes to the
        harness as a reset and the whole program (its known prefix replayed and checked), and
        the programs are sent ahead of their replies, up to :meth:`_window` lines in flight, so
        the harness's answers are read in a few large reads instead of one round trip per
        program. Closed early (a divergence), it reads the answers in flight into the trie."""
        if not self.memo:
            for program in programs:
                self.reset()
                yield None
                for request in program:
                    yield self.step(request)
            return
        assert self._proc is not None and self._proc.stdin and self._proc.stdout, "hello first"
        stdin, stdout = self._proc.stdin, self._proc.stdout
        window = self._window()
        snapshots = HARNESSES[self.harness].snapshots
        #: Lines sent, answers not read: None for a reset, else (parent, line, op): the entry
        #: parent[line] is filled in (or checked) with the answer.
        flight: deque[tuple[_Trie, str, str] | None] = deque()
        #: Programs pulled from ``programs``, not yet yielded: each step's (parent, line).
        queue: deque[list[tuple[_Trie, str]]] = deque()
        harness: list[str] | None = self._harness_path
        source: Iterator[Sequence[EssaRequest] | None] = iter(programs)
        more = True

        def read_one() -> None:
            entry = flight.popleft()
            answer = self._readline("the next request of a batch" if entry is None else repr(entry[1]))
            if not answer:
                raise EngineFault("crash", f"the kernel harness exited (status {self._proc.poll() if self._proc else None})")
            if entry is None:
                if answer.strip() != "ok":
                    raise EngineFault("error reply", "the kernel harness did not reset")
                return
            parent, line, op = entry
            kept_answer, _, child = parent[line]
            if not kept_answer:
                parent[line] = (answer, self._parse(answer, op), child)
            elif answer != kept_answer:
                raise EngineFault("error reply", f"nondeterministic: the kernel harness answered "
                                  f"{kept_answer.strip()!r} to {line!r}, and now "
                                  f"{answer.strip()!r} to the same requests")  # fmt: skip

        def send(program: Sequence[EssaRequest]) -> None:
            nonlocal harness
            lines = [(self._line(r), r.op) for r in program]
            steps: list[tuple[_Trie, str]] = []
            node, known = self._root, 0
            for line, _ in lines:
                if line not in node:
                    break
                steps.append((node, line))
                node = node[line][2]
                known += 1
            prefix = node
            if known == len(lines):
                self.memoized += len(lines)
                queue.append(steps)
                return
            for line, _ in lines[known:]:
                child: _Trie = {}
                node[line] = ("", _PENDING, child)
                steps.append((node, line))
                node = child
            texts = [line for line, _ in lines]
            new = list(zip(steps[known:], lines[known:]))
            slot = self._slots.get(id(prefix)) if known and snapshots else None
            if harness == texts[:known]:  # the harness is where the program's new part starts
                out = new
            elif slot is not None:  # the prefix's state was saved: back to it
                flight.append(None)
                stdin.write(f"restore {slot}\n")
                out = new
            else:  # from a reset, the prefix replayed (and its answers checked), then saved
                flight.append(None)
                stdin.write("reset\n")
                replayed = list(zip(steps[:known], lines[:known]))
                self._queue_lines(flight, replayed)
                if known and snapshots:
                    flight.append(None)
                    stdin.write(f"save {self._slot_for(prefix)}\n")
                out = replayed + new
                self._queue_lines(flight, new)
                self.sent += len(out)
                self.memoized += len(lines) - len(out)
                harness = texts
                queue.append(steps)
                return
            self._queue_lines(flight, out)
            self.sent += len(out)
            self.memoized += len(lines) - len(out)
            harness = texts
            queue.append(steps)

        try:
            while True:
                if more and len(flight) <= window // 2:
                    sent_before = len(flight)
                    while len(flight) < window and len(queue) < 4096:
                        ahead = next(source, None)
                        if ahead is None:
                            more = False
                            break
                        send(ahead)
                    if len(flight) > sent_before:
                        stdin.flush()
                        self.round_trips += 1
                if not queue:
                    return
                steps = queue.popleft()
                yield None
                for parent, line in steps:
                    while not parent[line][0]:
                        read_one()
                    yield parent[line][1]
        except (BrokenPipeError, OSError) as exc:
            raise self._broken(exc) from None
        finally:
            try:
                while flight:
                    read_one()
            except EngineFault:
                self._harness_path = None
            else:
                self._harness_path = harness
            self._node, self._path = self._root, []

    def _queue_lines(self, flight: deque[tuple[_Trie, str, str] | None],
                     out: list[tuple[tuple[_Trie, str], tuple[str, str]]]) -> None:
        assert self._proc is not None and self._proc.stdin
        for (parent, line), (_, op) in out:
            flight.append((parent, line, op))
        self._proc.stdin.write("".join(line + "\n" for _, (line, _) in out))

    def _slot_for(self, node: _Trie) -> int:
        """A harness snapshot slot for the state after the requests that lead to ``node`` (the
        oldest slot is taken over when all are used)."""
        slot = self._next_slot
        self._next_slot = (slot + 1) % SNAPSHOTS
        old = self._slot_owner.get(slot)
        if old is not None:
            self._slots.pop(old, None)
        self._slot_owner[slot] = id(node)
        self._slots[id(node)] = slot
        return slot

    def _window(self) -> int:
        """Lines in flight at most: their answers (about 8 bytes a page each) stay well below a
        pipe's 64 kB, so the harness never blocks on a full stdout while we write."""
        return max(64, 24_000 // (16 + 8 * self.pages))

    def _line(self, request: EssaRequest) -> str:
        """The harness's line for ``request`` (kept: the driver asks for the same few often)."""
        line = self._lines.get(request)
        if line is None:
            line = self._lines[request] = self._new_line(request)
        return line

    def _new_line(self, request: EssaRequest) -> str:
        if request.op in _GMAP_ONLY:
            if self.harness != "gmap":
                return "refuse"
            return f"{_GMAP_VERBS[request.op]} {request.page}"
        if request.op == "ESSA" and request.beyond_memory:
            return f"essabeyond {request.orc}"
        if self.machine == "ESSAMigrationVMM" and request.op in _VMM_VERBS:
            args = [_VMM_VERBS[request.op]]
            if request.op in ("Get", "Peek"):
                args += [str(getattr(request, "start")), str(getattr(request, "count"))]
            elif request.op.startswith("Slot"):
                args.append(str(getattr(request, "slot")))
                args.append("1" if getattr(request, "logging", None) else "0")
            return " ".join(args)
        if request.op == "Migrate" and self.machine == "ESSAMigration":
            return "switch"  # the incremental migration's switch, in migration mode only
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
        if self.machine == "ESSAMigrationVMM":
            head, _, tail = answer.partition(" | ")
            reply = parse_reply(head, self.pages, op, True)
            extra = tail.split()
            if op in ("Get", "Peek") and reply.outcome == "Done" and len(extra) >= 5 \
                    and "values" in EssaReply._fields:  # fmt: skip
                reply = reply._replace(start=int(extra[2]), remaining=int(extra[4]),
                                       values=tuple(int(v) for v in extra[5:]))  # fmt: skip
            return reply
        reply = parse_reply(answer, self.pages, op, self.machine == "ESSAMigration")
        if op in _GMAP_ONLY and self.harness != "gmap":
            return reply._replace(reason=_GMAP_ONLY[op])
        return reply

    def explain(self, profile: EssaProfile, requests: Sequence[EssaRequest]) -> list[str]:
        """``requests`` from a reset on a fresh harness of ``profile``, then the last one in the
        kernel's terms (the harness's ``explain``): what the harness did beside the kernel, the
        kernel functions it ran, the raw PTE, PGSTE and CBRL before and after, decoded with the
        kernel's macro names. The lines of a report, headed; the first after the heading names
        the kernel function most to blame ("kernel function: X")."""
        if not HARNESSES[self.harness].trace:
            return [f"(the {self.harness} harness does not show a step in the kernel's terms)"]
        self.hello(EssaProfileRequest.of(profile))
        self._send("reset")
        for r in requests:
            self._send(self._line(r))
        assert self._proc is not None and self._proc.stdin and self._proc.stdout
        self._proc.stdin.write("explain\n")
        self._proc.stdin.flush()
        got = []
        while (line := self._readline("explain")) and line.strip() != "end":
            got.append(line.rstrip("\n"))
        if not line:
            raise EngineFault("crash", "the kernel harness exited during explain")
        return kernel_terms(got, self.built.kernel if self.built else "?", self.harness,
                            HARNESSES[self.harness].helpers)  # fmt: skip

    def close(self) -> None:
        try:
            self._close()
        except KeyboardInterrupt:
            self._kill()
            raise
        finally:
            if self._where is not None:
                where = read_where(self._where)
                self.functions = self.functions or where.functions
                self.entered |= where.entered
                try:
                    os.unlink(self._where)
                except OSError:
                    pass
                self._where = None

    def _close(self) -> None:
        if self._proc is not None:
            self._dog.watch(None)
            if isinstance(sys.exc_info()[1], KeyboardInterrupt):
                self._kill()  # Ctrl-C: the harness may be spinning in a lock; no waiting for it
            if self._proc.stdin:
                try:
                    self._proc.stdin.close()
                except OSError:  # the harness was stopped (a hang): nothing to flush to
                    pass
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            if self._proc.stdout:
                self._proc.stdout.close()
            self._proc = None


class GmapKernelEngine(KernelEssaEngine):
    """The new gmap's code (dat_perform_essa, Linux 7.x) of $KERNEL_SRC."""

    def __init__(self) -> None:
        super().__init__("gmap")


def kernel_terms(lines: Sequence[str], kernel: str, harness: str,
                 helpers: frozenset[str] = frozenset()) -> list[str]:  # fmt: skip
    """The harness's ``explain`` lines as a report's: the kernel function most to blame (the
    deepest one, not a helper of ``helpers``, that changed a PTE, PGSTE or the CBRL, else the
    deepest one called; the last of them), the harness's note, the PTEs and PGSTEs, the CBRL, the calls."""
    notes = [ln.removeprefix("note ") for ln in lines if ln.startswith("note ")]
    pages = [ln.removeprefix("page ") for ln in lines if ln.startswith("page ")]
    cbrl = [ln.removeprefix("cbrl ") for ln in lines if ln.startswith("cbrl ")]
    dirty = [ln.removeprefix("dirty ").replace("migration_mode=-1 ", "")
             for ln in lines if ln.startswith("dirty ")]  # fmt: skip
    calls = []
    for ln in lines:
        if ln.startswith("call "):
            _, d, c, n = ln.split()
            calls.append((int(d), c == "1", n))
    own = [c for c in calls if c[2] not in helpers]
    # the deepest, and of those the last: what it left is what the step left
    deepest = [c for _, c in sorted(enumerate(own), key=lambda ic: (ic[1][0], ic[0]))]
    blamed = next((c for c in reversed(deepest) if c[1]), deepest[-1] if deepest else None)
    out = [f"In the kernel's terms (the step replayed on the {harness} harness, Linux {kernel}):"]
    if blamed is not None:
        out.append(f"kernel function: {blamed[2]}")
    out += [f"the harness: {n}" for n in notes]
    out += [f"page {p}" for p in pages]
    out += [f"CBRL {c}" for c in cbrl]
    out += [f"CMMA-dirty {d}" for d in dirty]
    if calls:
        out.append("kernel functions the step ran, by call depth (* changed a PTE, a PGSTE, "
                   "the CBRL or the CMMA-dirty bitmap):")
        shown: list[tuple[int, bool, str, int]] = []
        for depth, changed, name in calls:
            if shown and shown[-1][:3] == (depth, changed, name):
                shown[-1] = (depth, changed, name, shown[-1][3] + 1)  # called again: counted
                continue
            shown.append((depth, changed, name, 1))
        for depth, changed, name, times in shown:
            out.append(f"  {'  ' * depth}{name}{' *' if changed else ''}"
                       + (f" (x{times})" if times > 1 else ""))
    else:
        out.append("kernel functions the step ran: none")
    return out


class ClassicKernelEngine(KernelEssaEngine):
    """The classic KVM code (pgste_perform_essa) of $KERNEL_SRC or Debian's linux-source."""

    def __init__(self) -> None:
        super().__init__("classic")
