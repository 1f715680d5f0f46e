"""The ESSAMigrationVMM mode (conformance/essa_migration/vmm.py, PROTOCOL.md's "CMMA migration as
a VMM drives it"): the reference engine conforms, essa-rs conforms, the engines that do not
announce the mode are not asked it, the mutants of the kernel's CMMA functions are caught with a
readable report, the wire vocabulary reads what it writes, and a trace replays in TLC against
spec/ESSAMigrationVMM.tla where the oracle says it does. Masked switches are asked only of an
engine that announces MaskedMigrate, and a SET that ignores its mask is caught."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.essa.protocol import EssaRequest as R
from conformance.essa.protocol import ProtocolError, check_essa_reply, essa_request
from conformance.essa_migration.vmm import (
    VMM_DRIVER, VMM_MUTANTS, EssaVmmReferenceEngine, Memslot, SetIgnoresMask, VmmProfile,
    VmmProfileRequest, run_layouts, vmm_step,
)  # fmt: skip
from refimpl.core.package import REPO_ROOT
from refimpl.essa import vmm as reference

PROTOCOL = REPO_ROOT / "conformance" / "PROTOCOL.md"
SMALL = ["--cover-edges", "4000", "--swarm", "300", "--no-tlc", "--quiet"]


def _section() -> str:
    text = PROTOCOL.read_text(encoding="utf-8")
    return text[text.index("## CMMA migration as a VMM drives it"):]


def _json_blocks() -> list[str]:
    return re.findall(r"^```json\n(.*?)^```\n", _section(), re.S | re.M)


def _sessions() -> list[str]:
    """The section's hello, its reply, the example session and the masked switch's example."""
    return [b for b in _json_blocks() if not b.startswith("{\"op\"")]


def test_the_reference_engine_conforms() -> None:
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigrationVMM", "--engine-class",
                   "conformance.essa_migration:EssaVmmReferenceEngine", "--impl", "KVMClassic",
                   *SMALL], out)  # fmt: skip
    assert status == 0, out.getvalue()
    assert "conforms: 3 profiles checked" in out.getvalue()


@pytest.mark.parametrize("mutant, field", [("PeekStuck", "values"),
                                           ("GetCountsCleanPages", "remaining"),
                                           ("DestinationNoUsesCmm", "values")])  # fmt: skip
def test_the_kernels_missed_regressions_are_caught_with_a_readable_report(mutant: str, field: str,
                                                                          tmp_path: Path) -> None:  # fmt: skip
    """The three regressions kernel-check missed, as mutants of the reference: each diverges,
    and the report names the request, the field that differs and the kernel function's rule."""
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigrationVMM", "--engine-class",
                   f"conformance.essa_migration.vmm:{mutant}", "--impl", "KVMClassic",
                   "--out", str(tmp_path), "--no-tlc", "--quiet"], out)  # fmt: skip
    text = out.getvalue()
    assert status == 1, text
    head = re.search(r"DIVERGENCE at step \d+ \((Get|Peek) start \d+ count \d+\): (.*)", text)
    assert head is not None and field in head.group(2), text
    assert re.search(r"kvm_s390_(peek|get)_cmma", text), text
    [trace] = tmp_path.rglob("trace.jsonl")
    assert json.loads(trace.read_text().splitlines()[0])["machine"] == "ESSAMigrationVMM"


def test_every_mutant_is_caught() -> None:
    out = io.StringIO()
    assert main(["mutants", "--machine", "ESSAMigrationVMM"], out) == 0, out.getvalue()
    assert out.getvalue().count("killed") == len(VMM_MUTANTS)


def test_an_engine_that_does_not_announce_the_mode_is_not_asked() -> None:
    """The ESSAMigration mode's reference engine (no ESSAMigrationVMM among its machines) is
    skipped before its hello; the summary says nothing was checked."""
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigrationVMM", "--engine-class",
                   "conformance.essa_migration:EssaMigrationReferenceEngine", "--impl",
                   "KVMClassic", *SMALL], out)  # fmt: skip
    assert status == 4, out.getvalue()
    assert "does not speak the ESSAMigrationVMM mode" in out.getvalue()


def test_the_rust_engine_conforms(rs_engine: str) -> None:
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigrationVMM", "--engine", f"{rs_engine} --impl KVMClassic",
                   "--impl", "KVMClassic", *SMALL], out)  # fmt: skip
    assert status == 0, out.getvalue()


def test_the_go_engine_is_not_asked() -> None:
    from conformance.c_engine import ensure_essa_go_built

    try:
        binary = ensure_essa_go_built()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigrationVMM", "--engine", f"{binary} -impl KVMClassic",
                   "--impl", "KVMClassic", *SMALL], out)  # fmt: skip
    assert status == 4, out.getvalue()
    assert "speaks the ESSA mode only" in out.getvalue()


def test_the_wire_vocabulary_reads_what_it_writes() -> None:
    for r in [R("Get", start=3, count=2), R("Peek", start=0, count=1), R("MigrationStop"),
              R("Migrate"), *(R("Migrate", mask=m) for m in reference.SET_MASKS),
              R("SlotCreate", slot=1, logging=False), R("SlotLogging", slot=0, logging=True),
              R("SlotDelete", slot=2), R("ESSA", 1, 7)]:
        assert essa_request(r.to_json(4), 3, migration=True, vmm=True) == r
    with pytest.raises(ProtocolError, match="count 0"):
        essa_request({"op": "Get", "start": 0, "count": 0}, 3, migration=True, vmm=True)
    with pytest.raises(ProtocolError, match="unknown op 'Get'"):
        essa_request({"op": "Get", "start": 0, "count": 1}, 3, migration=True)
    with pytest.raises(ProtocolError, match="mask 1 is not one of"):
        essa_request({"op": "Migrate", "mask": 1}, 3, migration=True, vmm=True)
    with pytest.raises(ProtocolError, match="come together"):
        check_essa_reply({"outcome": "Done", "start": 0, "pages": []}, 0, True, True)
    asked = VmmProfileRequest(impl="KVMClassic", pages=3, memslots=(Memslot(0, 1), Memslot(1, 2, False)))
    assert VmmProfileRequest.from_json(asked.to_json()) == asked
    assert asked.profile().layout.at_start == frozenset({0})
    announced = VmmProfileRequest(masked_migrate=True)
    assert announced.to_json() == {"MaskedMigrate": True}
    assert VmmProfileRequest.from_json(announced.to_json()) == announced


def test_the_layouts_run_asks_for() -> None:
    assert run_layouts(3) == [(Memslot(0, 1), Memslot(1, 2)), (Memslot(0, 1), Memslot(1, 2, False)),
                              (Memslot(0, 1), Memslot(1, 1, False), Memslot(2, 1))]  # fmt: skip
    with pytest.raises(ValueError, match="Pages"):
        VmmProfile("KVMClassic", pages=2, memslots=(Memslot(0, 3),))


def test_the_protocol_examples_are_the_references() -> None:
    """The hello of PROTOCOL.md's section is what the driver sends for its profile; the example
    session, from a reset, is what the reference engine answers (``dirty`` and ``gc`` left out,
    as the document says)."""
    hello, reply, session, _ = _sessions()
    request = json.loads(hello)
    profile = VmmProfileRequest.from_json(request["profile"]).profile()
    assert VmmProfileRequest.of(profile).to_json() == request["profile"]
    assert json.loads(reply)["machine"] == "ESSAMigrationVMM"
    lines = [json.loads(x) for x in session.splitlines()]
    s = reference.init(profile, profile.layout)
    for req, want in zip(lines[::2], lines[1::2]):
        s, got = vmm_step(profile, s, essa_request(req, profile.pages, True, True))
        obs = check_essa_reply({k: v for k, v in want.items() if k != "id"}, profile.pages, True, True)
        assert got.differences(obs) == [], (req, got.to_json(req["id"]), want)
    line = VMM_DRIVER.trace_line(essa_request(lines[-2], profile.pages, True, True), got)
    assert line["op"] == "Peek" and "answer" not in line  # the last step, a refused peek


def test_a_trace_replays_in_tlc_where_the_oracle_does(tmp_path: Path) -> None:
    """The example session as a trace log is a behaviour of spec/ESSAMigrationVMM.tla; the same
    with the peek's values changed stops at that step, for TLC as for the oracle."""
    _, _, session, _ = _sessions()
    lines = [json.loads(x) for x in session.splitlines()]
    hello = json.loads(next(b for b in _json_blocks() if '"type": "hello"' in b))
    steps = []
    for req, rep in zip(lines[::2], lines[1::2]):
        line = {k: v for k, v in req.items() if k not in ("type", "id")}
        reply = {k: v for k, v in rep.items() if k != "id"}
        answer = {k: reply.pop(k) for k in ("start", "values", "remaining") if k in reply}
        steps.append({**line, **reply, **({"answer": answer} if answer else {})})
    header = {"version": 1, "machine": "ESSAMigrationVMM", "profile": hello["profile"]}
    bad_steps = [dict(x) for x in steps]
    peek = next(i for i, x in enumerate(bad_steps) if x["op"] == "Peek")
    bad_steps[peek]["answer"] = dict(bad_steps[peek]["answer"], values=[64, 64, 64])
    _validate_good_and_bad(tmp_path, header, steps, bad_steps, peek + 1)


def _validate_good_and_bad(tmp_path: Path, header: dict[str, Any], steps: list[dict[str, Any]],
                           bad_steps: list[dict[str, Any]], bad_at: int) -> None:
    """`conformance validate` (TLC) accepts the trace ``steps`` and says that ``bad_steps``
    stops being a behaviour of the spec at step ``bad_at``."""
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_text("\n".join(json.dumps(x) for x in [header, *steps]) + "\n")
    bad.write_text("\n".join(json.dumps(x) for x in [header, *bad_steps]) + "\n")
    for path, status, said in [(good, 0, "TLC: the trace is a behaviour of spec/ESSAMigrationVMM.tla"),
                               (bad, 1, f"stops being a behaviour of spec/ESSAMigrationVMM.tla at step {bad_at}")]:  # fmt: skip
        done = subprocess.run([sys.executable, "-m", "conformance", "validate", "--machine",
                               "ESSAMigrationVMM", str(path)], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)  # fmt: skip
        assert done.returncode == status, done.stdout + done.stderr
        assert said in done.stdout, done.stdout


def test_the_reference_engine_is_the_oracle() -> None:
    engine = EssaVmmReferenceEngine()
    info = engine.hello(VmmProfileRequest(impl="KVMClassic", facility147=True, pages=3,
                                          memslots=(Memslot(0, 1), Memslot(1, 2))))  # fmt: skip
    assert info.profile.memslots == (Memslot(0, 1), Memslot(1, 2))
    for r in [R("MigrationStart"), R("Get", start=1, count=1), R("Get", start=0, count=3)]:
        reply = engine.step(r)
    # Page 1, sent by the first GET, is clean between two dirty pages: the batch sends it too.
    assert (reply.start, reply.values, reply.remaining) == (0, (0, 0, 0), 0)


def test_an_incremental_migration_verdict_names_the_vmm_mode_as_not_checked() -> None:
    """A pass of the ESSAMigration mode does not cover the VMM's requests: its scope says which
    mode does, and that it is asked only of an engine that announces it."""
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigration", "--engine-class",
                   "conformance.essa_migration:EssaMigrationReferenceEngine", "--impl", "KVMClassic",
                   "--no-storage-keys", "--facility147", "--cbrl-size", "1", "--cover-edges", "300",
                   "--swarm", "30", "--no-tlc", "--quiet"], out)  # fmt: skip
    assert status == 0, out.getvalue()
    summary = out.getvalue().splitlines()[-1]
    assert "more: " in summary and "--machine ESSAMigrationVMM (" in summary
    assert "asked only of an engine that announces that mode" in summary


def _asked(name: str) -> set[int]:
    """The masks the class ``name`` of this module was asked, as ``--engine-class`` imported it
    (under the package name, a module apart from pytest's)."""
    import importlib

    cls = getattr(importlib.import_module("tests.test_conformance_vmm"), name)
    return set(cls.asked)


class RecordsMigrates(EssaVmmReferenceEngine):
    """The reference engine, keeping every Migrate it is asked (its mask, -1 for none)."""

    asked: set[int] = set()

    def step(self, request: R) -> object:
        if request.op == "Migrate":
            type(self).asked.add(request.mask)
        return super().step(request)


class SilentRecordsMigrates(RecordsMigrates):
    """The same, not announcing MaskedMigrate."""

    asked: set[int] = set()
    masked_migrate = False


class SilentIgnoresMask(SetIgnoresMask):
    """A SET that ignores its mask, in an engine that does not announce MaskedMigrate."""

    masked_migrate = False


def test_an_engine_announcing_masked_migrate_is_asked_masked_switches_and_conforms() -> None:
    """Its hello reply says MaskedMigrate: the profile run takes it, the requests hold a
    switch with every mask, and the run asks each of them and conforms."""
    asked = VMM_DRIVER.profiles(VmmProfileRequest(impl="KVMClassic"), 3)[0]
    assert not asked.masked_migrate
    _, runs = VMM_DRIVER.connect(RecordsMigrates(), asked)
    assert runs.masked_migrate
    assert {r.mask for r in VMM_DRIVER.requests(runs) if r.op == "Migrate"} == {-1, 3, 64, 0}
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigrationVMM", "--engine-class",
                   "tests.test_conformance_vmm:RecordsMigrates", "--impl", "KVMClassic",
                   *SMALL], out)  # fmt: skip
    assert status == 0, out.getvalue()
    assert _asked("RecordsMigrates") == {-1, 3, 64, 0}


def test_an_engine_not_announcing_masked_migrate_is_never_asked_one() -> None:
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigrationVMM", "--engine-class",
                   "tests.test_conformance_vmm:SilentRecordsMigrates", "--impl", "KVMClassic",
                   *SMALL], out)  # fmt: skip
    assert status == 0, out.getvalue()
    assert _asked("SilentRecordsMigrates") == {-1}


def test_a_set_that_ignores_its_mask_is_caught_where_announced(tmp_path: Path) -> None:
    """kvm_s390_set_cmma_bits without ``mask &=``: caught at a masked Migrate, the report
    naming the switch's rule and the mask; the same engine not announcing MaskedMigrate is
    asked QEMU's switch alone and conforms."""
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigrationVMM", "--engine-class",
                   "conformance.essa_migration.vmm:SetIgnoresMask", "--impl", "KVMClassic",
                   "--out", str(tmp_path), "--no-tlc", "--quiet"], out)  # fmt: skip
    text = out.getvalue()
    assert status == 1, text
    assert re.search(r"DIVERGENCE at step \d+ \(Migrate mask 0x(03|40|00)\)", text), text
    assert "VMMSwitch(mask)" in text, text
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigrationVMM", "--engine-class",
                   "tests.test_conformance_vmm:SilentIgnoresMask", "--impl", "KVMClassic",
                   *SMALL], out)  # fmt: skip
    assert status == 0, out.getvalue()


def test_the_masked_switch_example_is_the_references() -> None:
    """PROTOCOL.md's masked switch: the session's first two steps, then the example, is what
    the reference engine answers."""
    hello, _, session, masked = _sessions()
    profile = replace(VmmProfileRequest.from_json(json.loads(hello)["profile"]).profile(),
                      masked_migrate=True)  # fmt: skip
    lines = [json.loads(x) for x in session.splitlines()][:4] + [json.loads(x) for x in masked.splitlines()]
    s = reference.init(profile, profile.layout)
    for req, want in zip(lines[::2], lines[1::2]):
        s, got = vmm_step(profile, s, essa_request(req, profile.pages, True, True))
        obs = check_essa_reply({k: v for k, v in want.items() if k != "id"}, profile.pages, True, True)
        assert got.differences(obs) == [], (req, got.to_json(req["id"]), want)
    assert lines[-2] == {"type": "step", "id": 6, "op": "Migrate", "mask": 3}


def test_the_rust_engine_announces_masked_migrate_and_conforms_under_masks(rs_engine: str) -> None:
    from conformance.jsonlines import JsonLinesEngine
    from conformance.essa import EssaJsonLinesEngine

    asked = VMM_DRIVER.profiles(VmmProfileRequest(impl="KVMClassic"), 3)[0]
    engine = EssaJsonLinesEngine(f"{rs_engine} --impl KVMClassic")
    try:
        _, runs = VMM_DRIVER.connect(engine, asked)
        assert runs.masked_migrate
        want = reference.init(runs, runs.layout)
        engine.reset()
        for r in [R("ESSA", 0, 7), R("ESSA", 2, 2), R("MigrationStart"), R("Get", start=0, count=3),
                  R("Migrate", mask=64)]:
            want, reply = vmm_step(runs, want, r)
            assert engine.step(r).differences(reply) == [], r
    finally:
        engine.close()


def test_a_masked_switch_replays_in_tlc_with_its_mask(tmp_path: Path) -> None:
    """The masked switch's example as a trace log is a behaviour of spec/ESSAMigrationVMM.tla
    (VMMSwitch(3)); the same switch written without its mask (QEMU's, every bit) stops being
    one at the switch, for TLC as for the oracle."""
    hello, _, session, masked = _sessions()
    pairs = [json.loads(x) for x in session.splitlines()][:4] + [json.loads(x) for x in masked.splitlines()]
    steps = []
    for req, rep in zip(pairs[::2], pairs[1::2]):
        line = {k: v for k, v in req.items() if k not in ("type", "id")}
        reply = {k: v for k, v in rep.items() if k != "id"}
        answer = {k: reply.pop(k) for k in ("start", "values", "remaining") if k in reply}
        steps.append({**line, **reply, **({"answer": answer} if answer else {})})
    header = {"version": 1, "machine": "ESSAMigrationVMM",
              "profile": {**json.loads(hello)["profile"], "MaskedMigrate": True}}  # fmt: skip
    unmasked = [*steps[:-1], {k: v for k, v in steps[-1].items() if k != "mask"}]
    _validate_good_and_bad(tmp_path, header, steps, unmasked, len(steps))
