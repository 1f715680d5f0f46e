"""The ESSA trace module (conformance/essa/tla.py) on the kernel-fidelity requests: TLC confirms a
reference trace through HostAge, HostUnmapGmap and HostResetCMMA on a new gmap VM, and refutes a
wrong reply at its step."""

from __future__ import annotations

from pathlib import Path

from conformance.essa import tla as essa_tla
from conformance.essa import NONE, EssaReply, EssaRequest, HostPage, oracle_step
from refimpl import essa as oracle
from refimpl.essa import EssaProfile, EssaState

#: A new KVMGmap VM (no gmap page table yet) with storage keys: its first ESSA answers 0x10.
PROFILE = EssaProfile("KVMGmap", storage_keys=True, facility147=True, cbrl_size=1, pages=2)
#: The host actions the ESSA mode gained with the kernel-fidelity work.
FIDELITY_ACTIONS = frozenset({"HostAge", "HostUnmapGmap", "HostResetCMMA"})


def _reply(s: EssaState, req: EssaRequest) -> tuple[EssaState, EssaReply]:
    """The reference's reply: the fidelity actions straight from refimpl.essa's step (the
    spec's action of that name), every other request through conformance's oracle_step."""
    if req.op not in FIDELITY_ACTIONS:
        return oracle_step(PROFILE, s, req)
    t = oracle.step(PROFILE, s, req.op, req.page)
    if isinstance(t, oracle.Refused):
        t, outcome = s, "Refused"
    else:
        outcome = t.lastOp.outcome
    pages = tuple(HostPage(p.usage, p.valid, p.swapped, p.zbit, p.nodat, p.keyDirty, p.gc)
                  for p in t.pages)  # fmt: skip
    return t, EssaReply(outcome, NONE, NONE, pages)


#: ESSA on fresh memory (0x10); a store allocates the page table; aging leaves the page resident
#: but ESSA reports it preserved; a read maps it again; unmap; reset; aging a page with no gmap
#: PTE is refused.
REQUESTS = (
    EssaRequest("ESSA", 0, 2), EssaRequest("Write", 0), EssaRequest("HostAge", 0),
    EssaRequest("ESSA", 0, 0), EssaRequest("Read", 0), EssaRequest("HostAge", 0),
    EssaRequest("HostUnmapGmap", 0), EssaRequest("ESSA", 0, 2), EssaRequest("HostResetCMMA"),
    EssaRequest("ESSA", 0, 0), EssaRequest("HostAge", 1),
)  # fmt: skip


def _steps() -> list[tuple[EssaRequest, EssaReply]]:
    s, steps = oracle.init(PROFILE), []
    for r in REQUESTS:
        s, reply = _reply(s, r)
        steps.append((r, reply))
    return steps


def test_the_reference_trace_exercises_what_it_claims() -> None:
    steps = _steps()
    outcomes = [(r.op, a.outcome, a.result) for r, a in steps]
    assert outcomes[0] == ("ESSA", "Done", 0x10)  # the exception indication: no page table
    assert outcomes[3] == ("ESSA", "Done", 2)  # aged: resident, yet reported preserved
    assert outcomes[5] == ("HostAge", "Done", NONE)  # the read mapped the aged page again
    assert outcomes[-1] == ("HostAge", "Refused", NONE)  # page 1 has no gmap PTE
    assert steps[8][1].pages[0].usage == "S"  # the reset made the U page stable


def test_tlc_confirms_a_trace_through_the_fidelity_requests(tlc_jar: Path) -> None:
    verdict = essa_tla.check_with_tlc(PROFILE, _steps())
    assert verdict.behaviour, verdict.message


def test_tlc_refutes_a_wrong_reply_to_an_aged_page_at_its_step(tlc_jar: Path) -> None:
    """An engine that reports an aged page as resident (R1 content 0, not 2) is refuted at that
    ESSA, the step after HostAge."""
    steps = _steps()
    req, reply = steps[3]
    steps[3] = (req, reply._replace(result=reply.result - 2))
    verdict = essa_tla.check_with_tlc(PROFILE, steps)
    assert not verdict.behaviour
    assert verdict.stuck_at == 4, verdict.message


def test_tlc_refutes_a_refused_host_age_that_the_spec_allows(tlc_jar: Path) -> None:
    steps = _steps()
    req, reply = steps[2]
    assert req.op == "HostAge" and reply.outcome == "Done"
    _, before = steps[1]
    steps[2] = (req, reply._replace(outcome="Refused", pages=before.pages))
    verdict = essa_tla.check_with_tlc(PROFILE, steps)
    assert verdict.stuck_at == 3, verdict.message


def test_tlc_accepts_either_path_of_an_essa_the_machine_may_interpret(tlc_jar: Path) -> None:
    """With MachineInterpretsESSA the wire's Done is the intercepted or the interpreted path
    (D101): an engine whose ESSA kept Z, as the machine does, is confirmed too."""
    profile = EssaProfile("KVMGmap", prebuilt_page_tables=True, machine_interprets_essa=True)
    s = oracle.init(profile)
    steps = []
    for r in (EssaRequest("ESSA", 0, 2), EssaRequest("HostProcessCBRL")):
        s, reply = oracle_step(profile, s, r)
        steps.append((r, reply))
    assert s.pages[0].zbit  # the queued discard set Z
    done = oracle.essa(profile, s, 0, 0, interpreted=True)
    assert not isinstance(done, oracle.Refused)
    t, r1 = done
    assert isinstance(r1, int) and t.pages[0].zbit  # the machine kept Z; KVM would clear it
    pages = tuple(HostPage(p.usage, p.valid, p.swapped, p.zbit, p.nodat) for p in t.pages)
    steps.append((EssaRequest("ESSA", 0, 0), EssaReply("Done", r1, NONE, pages)))
    verdict = essa_tla.check_with_tlc(profile, steps)
    assert verdict.behaviour, verdict.message
