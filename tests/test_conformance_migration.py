"""The ESSAMigration mode (conformance/essa_migration/, PROTOCOL.md's "Incremental migration"):
its oracle is refimpl/essa/migration.py, its search reaches each migration bug of its mutants,
its trace module is checked by TLC against spec/ESSAMigration.tla, and an ESSA engine that does
not announce the mode is never asked for it."""

from __future__ import annotations

import io
import shlex
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.essa import (
    EssaJsonLinesEngine, EssaProfileRequest, EssaReferenceEngine, EssaRequest as R,
    check_essa_reply, essa_request,
)  # fmt: skip
from conformance.essa_migration import (
    MIGRATION_DRIVER as M, MIGRATION_MUTANTS, EssaMigrationReferenceEngine, cmma_value,
    migration_step,
)  # fmt: skip
from conformance.protocol import ProtocolError
from conformance.search import search

PROFILES = M.profiles(EssaProfileRequest(impl="KVMClassic", storage_keys=False, cbrl_size=1), 2)
assert [p.facility147 for p in PROFILES] == [False, True]  # the last has ORC 7 (N)


def test_the_mode_is_kvm_with_cmma_and_intercepted_essa() -> None:
    every = M.profiles(EssaProfileRequest(), 2)
    assert every and all(p.kvm and p.cmma_enabled and not p.machine_interprets_essa for p in every)
    assert {p.impl for p in every} == {"KVMClassic", "KVMGmap"}


def test_the_value_sent_is_usage_and_n_as_kvm_encodes_them() -> None:
    assert [cmma_value(u, False) for u in "SUPV"] == [0, 1, 2, 3]
    assert cmma_value("U", True) == 0x41


def test_a_round_sends_the_current_attributes_and_the_switch_applies_what_was_sent() -> None:
    p = PROFILES[0]
    s = M.init(p)
    replies = []
    for r in [R("ESSA", 0, 2), R("MigrationSend", 0), R("MigrationStart"), R("MigrationSend", 0),
              R("ESSA", 0, 1), R("HostProcessCBRL"), R("ESSA", 1, 2), R("MigrationSend", 1),
              R("Migrate"), R("Migrate")]:
        s, reply = migration_step(p, s, r)
        replies.append(reply)
    del replies[5]  # the CBRL emptied, for page 1's discard
    assert replies[0].pages[0].cmmaDirty is False  # outside migration nothing is marked
    assert replies[1].outcome == "Refused"  # no migration yet
    assert [pg.cmmaDirty for pg in replies[2].pages] == [True, True]
    assert (replies[3].value, replies[3].pages[0].cmmaDirty) == (1, False)  # U sent, bit cleared
    assert replies[4].pages[0].cmmaDirty  # ORC 1 marks the page again
    assert replies[6].value == 1  # page 1's current U, not the start's S
    assert replies[7].outcome == "Done" and replies[7].pages[0].usage == "S"  # page 0 resent
    assert not any(pg.cmmaDirty for pg in replies[7].pages)
    assert replies[8].outcome == "Refused"  # migrated once


def test_the_wire_fields_belong_to_the_mode() -> None:
    page = {"usage": "S", "valid": False, "swapped": False, "zbit": False, "nodat": False}
    check_essa_reply({"outcome": "Done", "pages": [{**page, "cmmaDirty": True}]}, 1, migration=True)
    with pytest.raises(ProtocolError, match="cmmaDirty"):
        check_essa_reply({"outcome": "Done", "pages": [page]}, 1, migration=True)
    with pytest.raises(ProtocolError):
        check_essa_reply({"outcome": "Done", "pages": [{**page, "cmmaDirty": True}]}, 1)
    assert essa_request({"op": "MigrationSend", "page": 0}, 1, migration=True) == R("MigrationSend", 0)
    assert essa_request({"op": "MigrationStart", "page": 0}, 1, migration=True).page == -1
    with pytest.raises(ProtocolError, match="unknown op 'MigrationStart'"):
        essa_request({"op": "MigrationStart"}, 1)


def test_the_reference_passes_and_every_mutant_is_killed() -> None:
    outcomes = search(M, EssaMigrationReferenceEngine(), PROFILES, M.budget("KVMClassic"), seed=1,
                      cache=None)  # fmt: skip
    assert outcomes and all(o.status == "passed" for o in outcomes), [o.note for o in outcomes]
    for mutant in MIGRATION_MUTANTS:
        found = search(M, mutant(), PROFILES[-1:], M.budget("KVMClassic"), seed=1, cache=None,
                       stop_at_first=True)  # fmt: skip
        assert any(o.status == "diverged" for o in found), mutant.__name__


def test_an_engine_that_does_not_announce_the_mode_is_not_asked() -> None:
    """An in-process ESSA engine without ESSAMigration among its ``machines`` is skipped before
    any hello; so is a JSON-lines ESSA engine that answers the mode's hello Unsupported."""
    (o,) = search(M, EssaReferenceEngine("KVMClassic"), PROFILES[:1], M.budget("KVMClassic"),
                  cache=None)  # fmt: skip
    assert (o.status, o.steps) == ("skipped", 0) and "ESSAMigration" in o.note
    engine = EssaJsonLinesEngine(shlex.join([sys.executable, "-m", "conformance.essa", "--impl",
                                             "KVMClassic"]))  # fmt: skip
    try:
        (o,) = search(M, engine, PROFILES[:1], M.budget("KVMClassic"), cache=None)
    finally:
        engine.close()
    assert o.status == "skipped" and "speaks the ESSA mode" in o.note


def test_run_drives_the_mode_from_the_command_line() -> None:
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigration", "--engine-class",
                   "conformance.essa_migration:EssaMigrationReferenceEngine", "--impl", "KVMClassic",
                   "--no-storage-keys", "--facility147", "--cbrl-size", "1", "--quiet", "--no-tlc"],
                  out)  # fmt: skip
    assert status == 0, out.getvalue()


def test_tlc_replays_a_migration_trace_and_stops_at_a_wrong_mark(tmp_path: Path) -> None:
    from conformance.essa import tla as essa_tla

    p = M.profiles(EssaProfileRequest(impl="KVMClassic", storage_keys=True, facility147=True,
                                      cbrl_size=1), 2)[0]  # fmt: skip
    s, steps = M.init(p), []
    for r in [R("ESSA", 0, 7), R("MigrationStart"), R("MigrationSend", 0), R("ESSA", 0, 2),
              R("MigrationSend", 1), R("MigrationSend", 1), R("Write", 1), R("Migrate")]:
        s, reply = migration_step(p, s, r)
        steps.append((r, reply))
    assert essa_tla.check_with_tlc(p, steps, migration=True, directory=tmp_path).behaviour
    r, reply = steps[3]  # the ESSA in migration mode does not mark its page
    unmarked = reply._replace(pages=(reply.pages[0]._replace(cmmaDirty=False), *reply.pages[1:]))
    verdict = essa_tla.check_with_tlc(p, [*steps[:3], (r, unmarked)], migration=True)
    assert verdict.stuck_at == 4
    r, reply = steps[2]  # the value sent is not the page's usage and N
    verdict = essa_tla.check_with_tlc(p, [*steps[:2], (r, reply._replace(value=0))], migration=True)
    assert verdict.stuck_at == 3


def test_the_protocol_example_is_what_the_reference_answers() -> None:
    import json
    import re

    from refimpl.core.package import REPO_ROOT

    text = (REPO_ROOT / "conformance" / "PROTOCOL.md").read_text(encoding="utf-8")
    section = text[text.index("## Incremental migration (the ESSAMigration mode)"):]
    block = re.search(r"^```json\n(.*?)^```\n", section, re.S | re.M)
    assert block is not None
    lines = [json.loads(ln) for ln in block.group(1).splitlines() if ln.strip()]
    p = M.profiles(EssaProfileRequest(impl="KVMClassic", storage_keys=False, facility147=True,
                                      cbrl_size=1), 1)[0]  # fmt: skip
    s = M.init(p)
    for request, documented in zip(lines[::2], lines[1::2], strict=True):
        assert documented["id"] == request["id"]
        s, expected = migration_step(p, s, essa_request(request, 1, migration=True))
        observed = check_essa_reply(documented, 1, migration=True)
        assert expected.differences(observed) == [], (request, expected.describe())


@pytest.mark.parametrize("which", ["essa-rs", "essa-go"])
def test_the_essa_engines_are_not_asked_for_the_mode(which: str) -> None:
    """essa-rs and essa-go, which do not implement the mode, answer its hello Unsupported:
    every profile is skipped, and run says nothing was checked (exit 4)."""
    from conformance.c_engine import ensure_essa_go_built, ensure_essa_rs_built

    try:
        binary = ensure_essa_rs_built() if which == "essa-rs" else ensure_essa_go_built()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    impl = "--impl KVMClassic" if which == "essa-rs" else "-impl KVMClassic"
    out = io.StringIO()
    status = main(["run", "--machine", "ESSAMigration", "--engine", f"{binary} {impl}", "--impl",
                   "KVMClassic", "--no-storage-keys", "--facility147", "--cbrl-size", "1",
                   "--no-tlc"], out)  # fmt: skip
    assert status == 4, out.getvalue()
    said = "speaks the ESSA mode only" if which == "essa-go" else "the ESSA and ESSAMigrationVMM modes"
    assert said in out.getvalue()
