"""The ESSA mode of the conformance suite: the reference engines of each profile are classified
as their own profile and fail the others at the documented points (conformance/essa/classify.py)."""

from __future__ import annotations

import io
import json
import sys

import pytest

from conformance.essa.classify import classify
from conformance.cli import main
from conformance.essa import (
    ENGINES, EssaJsonLinesEngine, EssaProfileRequest, EssaReferenceEngine, EssaRequest,
)  # fmt: skip
from conformance.essa.mutants import R1AfterNotBefore as LyingR1Engine
from conformance.protocol import EngineFault

IMPLS = ("Paper2007", "KVMClassic", "KVMGmap")
#: One constant set: classify then tries each Impl once (a few seconds).
ONE_SET = EssaProfileRequest(storage_keys=False, facility147=False, cbrl_size=1,
                             prebuilt_page_tables=False, cmma_enabled=True)

#: (engine's Impl, candidate Impl) -> (sequence, step) of the first divergence.
DOCUMENTED = {
    ("Paper2007", "KVMClassic"): ("F1-classic", 1),  # ORC 3 in Init: R1 0x03 vs 0x02, Z set
    ("Paper2007", "KVMGmap"): ("F1-classic", 1),
    ("KVMClassic", "Paper2007"): ("F1-classic", 1),
    ("KVMGmap", "Paper2007"): ("F1-classic", 1),
    # A new gmap VM has no page table: its first ESSA answers 0x10 (D97).
    ("KVMClassic", "KVMGmap"): ("F1-classic", 1),
    ("KVMGmap", "KVMClassic"): ("F1-classic", 1),
}


@pytest.mark.parametrize("keys", [False, True])
@pytest.mark.parametrize("impl", IMPLS)
def test_reference_engines_are_classified(impl: str, keys: bool) -> None:
    c = classify(ENGINES[impl](), EssaProfileRequest(storage_keys=keys, facility147=True,
                                                     cbrl_size=1, prebuilt_page_tables=False,
                                                     cmma_enabled=True))  # fmt: skip
    assert c.matched == (impl,)
    for v in c.verdicts:
        if v.profile.impl == impl and not v.profile.bugs:
            assert v.divergence is None and v.steps > 1000
        elif v.profile.bugs:  # the new gmap before a fix: caught somewhere in the tours
            assert v.divergence is not None
        else:
            d = v.divergence
            assert d is not None
            assert (d.sequence, d.step) == DOCUMENTED[impl, v.profile.impl]


def test_classic_and_gmap_part_at_the_missing_gmap_page_table() -> None:
    c = classify(ENGINES["KVMClassic"](), ONE_SET)
    d = next(v.divergence for v in c.verdicts if v.profile.impl == "KVMGmap")
    assert d is not None and d.request == EssaRequest("ESSA", 0, 3)
    # the new gmap's walk finds no page table: exception indication, nothing changes (D97)
    assert d.expected.result == 0x10 and d.expected.pages[0].usage == "S"
    assert d.observed.result == 0x02 and d.observed.pages[0].usage == "V"


def test_a_gmap_access_allocates_the_page_table_of_every_page() -> None:
    e = EssaReferenceEngine("KVMGmap")
    e.hello(EssaProfileRequest(pages=2))
    assert e.step(EssaRequest("ESSA", 0, 2)).result == 0x10  # no page table yet
    assert e.step(EssaRequest("Read", 1)).outcome == "Value"  # a fault-in of page 1 ...
    r = e.step(EssaRequest("ESSA", 0, 2))  # ... makes page 0's ESSA take effect
    assert r.result == 0x02 and r.pages[0].usage == "U" and r.pages[0].zbit


def test_a_lying_r1_byte_is_caught() -> None:
    c = classify(LyingR1Engine(), ONE_SET)
    assert c.matched == ()
    d = c.verdicts[1].divergence  # its own profile, KVMClassic
    assert d is not None and d.request.op == "ESSA"
    assert d.expected.pages == d.observed.pages and d.expected.result != d.observed.result


def test_specification_exception_and_facility147() -> None:
    e = EssaReferenceEngine("KVMClassic")
    e.hello(EssaProfileRequest(facility147=False))
    assert e.step(EssaRequest("ESSA", 0, 7)).outcome == "SpecificationException"
    assert e.step(EssaRequest("ESSA", 0, 9)).outcome == "SpecificationException"
    e.hello(EssaProfileRequest(facility147=True))
    r = e.step(EssaRequest("ESSA", 0, 7))
    assert r.outcome == "Done" and r.result == 0x02 and r.pages[0].nodat  # KVM: not valid, Z clear


FIDELITY_ARGS = ["--no-prebuilt-page-tables", "--cmma-enabled"]
ONE_SET_ARGS = ["--no-storage-keys", "--no-facility147", "--cbrl-size", "1", *FIDELITY_ARGS]


def test_cli_classify_in_process_and_json_lines() -> None:
    out = io.StringIO()
    assert main(["classify", "--engine-class", "conformance.essa:KVMGmapEngine", *ONE_SET_ARGS],
                out) == 0  # fmt: skip
    text = out.getvalue()
    assert "identified as KVMGmap" in text and "not a conformance verdict" in text
    assert "python -m conformance run --machine ESSA --impl KVMGmap" in text
    out = io.StringIO()
    cmd = f"{sys.executable} -m conformance.essa --impl Paper2007"
    assert main(["classify", "--engine", cmd, *ONE_SET_ARGS, "--pages", "1"], out) == 0
    assert "identified as Paper2007" in out.getvalue()
    out = io.StringIO()
    assert main(["classify", "--engine-class", "conformance.essa.mutants:R1AfterNotBefore",
                 *ONE_SET_ARGS], out) == 1  # fmt: skip
    assert "not identified: the engine matches no candidate" in out.getvalue()
    assert main(["classify", "--engine-class", "conformance.pagestates.engine:ReferenceEngine"],
                io.StringIO(), io.StringIO()) == 2  # fmt: skip


@pytest.mark.parametrize(("mutant", "args"), [
    ("SecondPageReportsFirst", ONE_SET_ARGS),                         # only on page 1
    ("PotVolatileIgnoresGC", ["--no-facility147", "--cbrl-size", "1", *FIDELITY_ARGS]),  # keys
    ("NoDatNotSet", ["--no-storage-keys", "--cbrl-size", "1", *FIDELITY_ARGS]),  # facility 147
])  # fmt: skip
def test_classify_misses_no_bug_of_page_1_keys_or_facility147(mutant: str, args: list[str]) -> None:
    out = io.StringIO()
    code = main(["classify", "--engine-class", f"conformance.essa.mutants:{mutant}", *args], out)
    assert code == 1, out.getvalue()
    assert "not identified" in out.getvalue()


def test_classify_reports_an_engine_fault() -> None:
    out = io.StringIO()
    code = main(["classify", "--engine", f"{sys.executable} -c \"print('not json')\"",
                 *ONE_SET_ARGS], out)  # fmt: skip
    assert code == 3, out.getvalue()
    assert "ENGINE FAULT" in out.getvalue()


def test_json_lines_messages_and_faults(tmp_path: object) -> None:
    e = EssaJsonLinesEngine(f"{sys.executable} -m conformance.essa --impl KVMClassic")
    try:
        info = e.hello(EssaProfileRequest(pages=2))
        assert info.profile.impl == "KVMClassic" and info.profile.pages == 2
        r = e.step(EssaRequest("ESSA", 1, 3))
        assert (r.outcome, r.result, len(r.pages), r.pages[1].zbit) == ("Done", 0x02, 2, True)
        assert e.step(EssaRequest("HostProcessCBRL")).outcome == "Kept"
        assert e.step(EssaRequest("Write", 0, arg=5)).outcome == "Done"
        r = e.step(EssaRequest("Read", 0))
        assert (r.outcome, r.value) == ("Value", 5)
    finally:
        e.close()
    bad = EssaJsonLinesEngine([sys.executable, "-c", (
        "import json,sys\n"
        "for l in sys.stdin:\n"
        " o=json.loads(l)\n"
        " print(json.dumps({'id':o['id'],'version':1,'machine':'ESSA'} if o['type']=='hello'"
        " else {'id':o['id'],'outcome':'Done','result':300,'pages':[]}),flush=True)\n")])  # fmt: skip
    try:
        bad.hello(EssaProfileRequest())
        bad.reset()
        with pytest.raises(EngineFault) as exc:
            bad.step(EssaRequest("ESSA", 0, 0))
        assert exc.value.kind == "protocol"
    finally:
        bad.close()
    assert json.dumps(EssaRequest("ESSA", 0, 3).to_json(4)) == (
        '{"type": "step", "id": 4, "op": "ESSA", "page": 0, "orc": 3}'
    )


def test_the_protocol_example_is_what_the_kvm_classic_engine_answers() -> None:
    from pathlib import Path

    from conformance.essa import essa_request

    text = (Path(__file__).parent.parent / "conformance" / "PROTOCOL.md").read_text()
    section = text[text.index("## The ESSA machine"):]
    section = section[section.index("F2 of docs/findings.md"):]
    section = section[:section.index("\n```\n", section.index("```json"))]  # that example only
    lines = [json.loads(ln) for ln in section.splitlines()
             if ln.startswith('{"type": "step"') or ln.startswith('{"id": ')]  # fmt: skip
    assert len(lines) == 16
    e = EssaReferenceEngine("KVMClassic")
    e.hello(EssaProfileRequest())
    for request, reply in zip(lines[::2], lines[1::2]):
        assert e.step(essa_request(request, 1)).to_json(request["id"]) == reply


def test_protocol_holds_the_reference_implementation_tables() -> None:
    """PROTOCOL.md's ESSA and reclaim tables are the reference implementation's, row by row."""
    from pathlib import Path

    from conformance.essa.tables import render

    text = (Path(__file__).parent.parent / "conformance" / "PROTOCOL.md").read_text()
    assert render() in text


#: One constant set on one page: enough to tell the 2026 bugs apart (a few seconds each).
ONE_PAGE = ONE_SET.merged(EssaProfileRequest(pages=1))


@pytest.mark.parametrize("bug", [None, "StickyZero", "CBRLGuestAddress", "StaleUnusedBit"])
def test_classify_names_the_bug_of_a_kernel_before_its_fix(bug: str | None) -> None:
    """The new gmap before each 2026 fix (a harness around that kernel leaves Bugs open) is
    identified with its bug and the fix's title; the fixed kernel with none."""
    from conformance.essa.classify import report
    from conformance.essa import KernelGmapEngine
    from refimpl.essa.profile import BUG_FIXES

    bugs = frozenset() if bug is None else frozenset({bug})
    c = classify(KernelGmapEngine(bugs), ONE_PAGE)
    out = io.StringIO()
    report(c, out)
    if bug is None:
        assert c.identified == "KVMGmap", out.getvalue()
        assert "identified as KVMGmap:" in out.getvalue()
    else:
        assert c.identified == f"KVMGmap with bug {bug}", out.getvalue()
        assert f"identified as KVMGmap with bug {bug} (fixed by '{BUG_FIXES[bug]}')" in out.getvalue()
    assert "--impl KVMGmap" + ("" if bug is None else f" --bugs {bug}") in out.getvalue()


def test_the_kernel_fidelity_requests_on_the_wire() -> None:
    """problemState, beyondMemory, HostUnmapGmap, HostAge, HostResetCMMA as PROTOCOL.md has them."""
    from conformance.essa import essa_request

    e = EssaReferenceEngine("KVMGmap")
    e.hello(EssaProfileRequest(pages=1))
    ps = essa_request({"type": "step", "op": "ESSA", "page": 0, "orc": 1, "problemState": True}, 1)
    assert e.step(ps).outcome == "PrivilegedOperation"
    bm = essa_request({"type": "step", "op": "ESSA", "orc": 0, "beyondMemory": True}, 1)
    assert bm.page == -1 and (e.step(bm).outcome, e.step(bm).result) == ("Done", 0x10)
    r = e.step(EssaRequest("Write", 0))
    assert r.pages[0].gmapPte == "Valid" and r.pages[0].pteUnused is False
    assert e.step(EssaRequest("HostAge", 0)).pages[0].gmapPte == "Aged"
    assert e.step(EssaRequest("ESSA", 0, 0)).result == 0x02  # aged: content preserved
    assert e.step(EssaRequest("HostUnmapGmap", 0)).pages[0].gmapPte == "Empty"
    assert e.step(EssaRequest("HostUnmapGmap", 0)).outcome == "Refused"
    e.step(EssaRequest("ESSA", 0, 2))
    r = e.step(EssaRequest("HostResetCMMA"))
    assert r.outcome == "Done" and r.pages[0].usage == "S"
    c = EssaReferenceEngine("KVMClassic")
    c.hello(EssaProfileRequest(pages=1))
    r = c.step(bm)
    assert r.outcome == "AddressingException" and "gmapPte" not in r.pages[0].to_json()
    assert c.step(EssaRequest("HostAge", 0)).outcome == "Refused"
    c.hello(EssaProfileRequest(pages=1, cmma_enabled=False))
    assert c.step(ps).outcome == "OperationException"
    assert c.step(EssaRequest("ESSA", 0, 3)).outcome == "OperationException"
    with pytest.raises(Exception, match="beyond memory"):
        essa_request({"op": "ESSA", "orc": 3, "beyondMemory": True}, 1)


def test_classify_tries_no_candidate_twice() -> None:
    """Over every constant set classify asks for, no two candidates are equivalent: Paper2007
    and KVMClassic are candidates where the new gmap's own constants are at their defaults only
    (D165), and they were equivalent there, since every tour program gets the same replies from
    them under either value; no candidate is lost (the same ones up to those constants)."""
    import dataclasses

    from conformance.essa.classify import _DEFAULTS, candidates
    from conformance.essa import oracle_step, tour
    from refimpl.core.constants import combinations
    from refimpl.essa import CONSTANTS, init
    from refimpl.essa.profile import GMAP_ONLY, IDENTITY, profiles

    def normal(p: object) -> object:
        return p if p.gmap else dataclasses.replace(p, **{a: _DEFAULTS[a] for a in GMAP_ONLY})  # type: ignore[attr-defined]

    asked = tuple(c for c in CONSTANTS if c.attr not in IDENTITY)
    now, before = [], []
    for fields in combinations(asked, {}):
        now += candidates(fields, 2, IMPLS)
        before += [p for p in profiles(dict(fields), 2) if p.impl in IMPLS]
    assert len({normal(p) for p in now}) == len(now) < len(before)
    assert {normal(p) for p in now} == {normal(p) for p in before}
    # A command line that fixes a gmap constant keeps every Impl a candidate.
    fixed = {"prebuilt_page_tables": True}
    assert {p.impl for p in candidates({**ONE_SET.fields, **fixed}, 1, IMPLS, fixed)} == set(IMPLS)
    for impl in ("Paper2007", "KVMClassic"):
        kept = EssaProfileRequest(impl=impl, pages=1).merged(ONE_SET).profile()
        dropped = dataclasses.replace(kept, prebuilt_page_tables=True)
        programs = 0
        for _, program in tour(kept):
            s, t = init(kept), init(dropped)
            for r in program:
                (s, a), (t, b) = oracle_step(kept, s, r), oracle_step(dropped, t, r)
                assert a == b, (impl, program)
            programs += 1
        assert programs > 100
