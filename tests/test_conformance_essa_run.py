"""``conformance run --machine ESSA``: the reference engines conform, every ESSA mutant is killed
by the default settings, the report names the profile, the step, the reference's rule and the
differing fields, and a divergence or a fault leaves a reproducer that ``validate`` replays.

Cost: about a minute in all, most of it the mutants (each run stops at its first divergence;
those that show only with storage keys are found in the fifth profile, after four full tours).
"""

from __future__ import annotations

import io
import re
import json
import sys
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.commands import default_budget
from conformance.search import search
from conformance.driver import Fault
from conformance.search import run_machine
from conformance.testing import EssaEngineContract
from conformance.essa import ESSA_DRIVER, EssaProfileRequest, KVMClassicEngine
from conformance.essa.mutants import (
    ESSA_MUTANTS, FIVE_STEPS, CBRLLastInFirstOut, EssaMutant, NoDatNotSet, PotVolatileIgnoresGC,
    ReclaimForgetsChangeBit, SecondPageReportsFirst, SixthEssaSetsNoDat,
)  # fmt: skip

DEFAULT_PAGES = 2


def test_there_are_at_least_twelve_mutants_of_every_kind() -> None:
    assert len(ESSA_MUTANTS) >= 12
    shows = {m.shows for m in ESSA_MUTANTS}
    assert {"only with 2 pages", "only with storage keys", "only with facility 147",
            "only after 5 or more steps", "only in the CBRL's order"} <= shows  # fmt: skip


@pytest.mark.parametrize("mutant", ESSA_MUTANTS, ids=lambda m: m.__name__)
def test_default_run_kills_every_mutant(mutant: type[EssaMutant]) -> None:
    profiles = ESSA_DRIVER.profiles(EssaProfileRequest(impl=mutant.impl), DEFAULT_PAGES)
    outcomes = search(ESSA_DRIVER, mutant(), profiles, default_budget(ESSA_DRIVER, mutant.impl),
                      stop_at_first=True)  # fmt: skip
    last = outcomes[-1]
    assert last.status == "diverged", f"{mutant.__name__} survived: {mutant.breaks}"
    assert last.error is not None
    if mutant.shows == FIVE_STEPS:
        assert len(last.error.steps) >= 6


# Each "only" mutant passes a run whose constants leave its bug out: the claim is true.
ONLY = [
    (SecondPageReportsFirst, ["--pages", "1"]),
    (PotVolatileIgnoresGC, ["--no-storage-keys"]),
    (ReclaimForgetsChangeBit, ["--no-storage-keys"]),
    (NoDatNotSet, ["--no-facility147"]),
    (CBRLLastInFirstOut, ["--cbrl-size", "1"]),
]


@pytest.mark.parametrize(("mutant", "leave_out"), ONLY, ids=lambda x: getattr(x, "__name__", ""))
def test_a_mutant_shows_only_where_it_says(mutant: type[EssaMutant], leave_out: list[str]) -> None:
    fixed = {"--storage-keys": [], "--facility147": [], "--cbrl-size": ["2"], "--cmma-enabled": [],
             "--no-prebuilt-page-tables": [], "--bugs": ["none"]}
    for flag in leave_out:
        fixed.pop(flag.replace("no-", ""), None)
    args = [a for flag, rest in fixed.items() for a in (flag, *rest)] + leave_out
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine-class",
                 f"conformance.essa.mutants:{mutant.__name__}", "--quiet", *args], out)  # fmt: skip
    assert code == 0, out.getvalue()


def test_a_reference_engine_conforms() -> None:
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine-class", "conformance.essa:KVMClassicEngine",
                 "--storage-keys", "--facility147", "--cbrl-size", "2"], out)  # fmt: skip
    assert code == 0, out.getvalue()
    assert "KVMClassic-keys-f147-cbrl2-2p cover passed" in out.getvalue()
    assert out.getvalue().rstrip().splitlines()[-1].startswith("SUMMARY: conforms: ")


def test_report_and_reproducer(tmp_path: Path) -> None:
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine-class",
                 "conformance.essa.mutants:CBRLLastInFirstOut", "--quiet", "--out", str(tmp_path),
                 "--storage-keys", "--no-facility147", "--cbrl-size", "2", "--no-tlc"], out)  # fmt: skip
    text = out.getvalue()
    assert code == 1, text
    assert "profile KVMClassic-keys-nof147-cbrl2-2p" in text
    assert "DIVERGENCE at step" in text and "HostProcessCBRL" in text
    assert "the reference decides this step by: HostProcessCBRL of page 0 (the CBRL's head)" in text
    assert "!" in text.split("from a reset:")[1]
    (saved,) = tmp_path.glob("*/KVMClassic-keys-nof147-cbrl2-2p")  # <engine key>/<profile>
    lines = (saved / "trace.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["machine"] == "ESSA"
    itf = json.loads((saved / "trace.itf.json").read_text())
    assert len(itf["states"]) == len(lines) and "zbit" in itf["vars"]
    out = io.StringIO()
    assert main(["validate", "--machine", "ESSA", "--no-tlc", str(saved / "trace.jsonl")], out) == 1
    assert "DIVERGENCE at step" in out.getvalue()


def test_a_reference_trace_validates(tmp_path: Path) -> None:
    engine = KVMClassicEngine()
    outcomes = run_machine(ESSA_DRIVER, engine, ESSA_DRIVER.profiles(
        EssaProfileRequest(impl="KVMClassic", storage_keys=True, facility147=True, cbrl_size=1), 1),
        tour=False, examples=5)  # fmt: skip
    assert all(o.passed for o in outcomes)
    path = tmp_path / "trace.jsonl"
    profile = outcomes[0].profile
    lines = [ESSA_DRIVER.trace_header(profile)]
    from conformance.essa import EssaRequest, oracle_step

    s = ESSA_DRIVER.init(profile)
    for r in (EssaRequest("Write", 0), EssaRequest("HostReclaim", 0), EssaRequest("ESSA", 0, 3)):
        s, reply = oracle_step(profile, s, r)
        lines.append(ESSA_DRIVER.trace_line(r, reply))
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = io.StringIO()
    assert main(["validate", "--machine", "ESSA", str(path)], out) == 0, out.getvalue()


CRASHY = """
import json, sys
n = 0
for line in sys.stdin:
    o = json.loads(line)
    if o["type"] == "hello":
        print(json.dumps({"id": o["id"], "version": 1, "machine": "ESSA",
                          "profile": {"Impl": "KVMGmap"}}), flush=True)
    elif o["type"] == "reset":
        print(json.dumps({"id": o["id"]}), flush=True)
    else:
        n += 1
        if n == 3:
            sys.exit(7)
        page = {"usage": "S", "valid": False, "swapped": False, "zbit": False, "nodat": False}
        print(json.dumps({"id": o["id"], "outcome": "Done", "result": 2,
                          "pages": [page, page]}), flush=True)
"""


def test_a_fault_gets_the_full_report(tmp_path: Path) -> None:
    engine = tmp_path / "crashy.py"
    engine.write_text(CRASHY)
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine", f"{sys.executable} {engine}",
                 "--prebuilt-page-tables", "--quiet", "--out", str(tmp_path / "out"), "--no-tlc"],
                out)  # fmt: skip
    text = out.getvalue()
    assert code == 3, text
    assert "profile KVMGmap-nokeys-nof147-cbrl1-pt-2p" in text
    assert re.search(r"ENGINE FAULT \(crash\) at step \d+ \(ESSA ORC 2 ", text) and "exit status 7" in text
    assert list((tmp_path / "out").glob("*/KVMGmap-nokeys-nof147-cbrl1-pt-2p/trace.jsonl"))


def test_json_lines_engine_conforms_and_an_unsupported_profile_is_skipped() -> None:
    cmd = f"{sys.executable} -m conformance.essa --impl KVMGmap"
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine", cmd, "--no-tour", "--examples", "20",
                 "--storage-keys", "--facility147", "--cbrl-size", "1"], out)  # fmt: skip
    assert code == 0, out.getvalue()
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine", cmd, "--impl", "Paper2007"], out)
    assert code == 4 and "nothing checked" in out.getvalue()


def test_fault_at_hello_is_reported() -> None:
    profiles = ESSA_DRIVER.profiles(EssaProfileRequest(impl="KVMClassic"), 1)[:1]

    class Broken(KVMClassicEngine):
        def hello(self, request: EssaProfileRequest) -> object:  # type: ignore[override]
            from conformance.protocol import EngineFault

            raise EngineFault("malformed", "not JSON")

    outcomes = run_machine(ESSA_DRIVER, Broken(), profiles)
    assert outcomes[-1].status == "fault" and isinstance(outcomes[-1].error, Fault)


class TestPaper2007ReferenceContract(EssaEngineContract):
    """conformance.testing's ESSA contract on the reference engine of the 2007 model."""

    impl = "Paper2007"
    engine_class = "conformance.essa:PaperEngine"
    examples = 30


class _MutantContract(EssaEngineContract):
    impl = "KVMGmap"
    engine_class = "conformance.essa.mutants:GetStateKeepsZ"


def test_the_contract_fails_on_a_mutant_with_the_report(tmp_path: Path) -> None:
    contract = _MutantContract()
    contract.report_dir = tmp_path  # type: ignore[misc]
    # A new gmap VM answers 0x10 until an access creates the page table: step 3 is the first
    # ORC 0 with an effect (D97).
    with pytest.raises(pytest.fail.Exception, match=r"DIVERGENCE at step 3 \(ESSA ORC 0"):
        contract.test_tour({"storage_keys": False, "facility147": False, "cbrl_size": 1})


@pytest.mark.parametrize(("impl", "bugs"), [
    ("KVMClassic", ()), ("Paper2007", ()), ("KVMGmap", ()), ("KVMGmap", ("StaleUnusedBit",)),
    ("KVMGmap", ("StickyZero", "CBRLGuestAddress")),
])  # fmt: skip
def test_tlc_confirms_a_reference_trace(impl: str, bugs: tuple[str, ...], tlc_jar: Path) -> None:
    """150 random requests of the reference engine (every kind, refusals and faults included)
    are a behaviour of spec/ESSA.tla by TLC's trace module: the module's harness steps mean
    what the reference means."""
    import random

    from conformance.essa import tla as essa_tla
    from conformance.essa import EssaRequest, all_requests, oracle_step
    from refimpl.essa import EssaProfile

    profile = EssaProfile(impl, storage_keys=True, facility147=True, cbrl_size=2, pages=2,
                          bugs=frozenset(bugs))  # fmt: skip
    rng = random.Random(5)
    requests = [*all_requests(profile), EssaRequest("Write", 0, arg=0)]
    s, steps = ESSA_DRIVER.init(profile), []
    for _ in range(150):
        r = rng.choice(requests)
        s, reply = oracle_step(profile, s, r)
        steps.append((r, reply))
    assert len({reply.outcome for _, reply in steps}) >= 5
    verdict = essa_tla.check_with_tlc(profile, steps)
    assert verdict.behaviour, verdict.message


def test_tlc_confirms_a_divergence_at_its_step(tmp_path: Path, tlc_jar: Path) -> None:
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine-class",
                 "conformance.essa.mutants:MigrationCarriesZ", "--quiet", "--out", str(tmp_path),
                 "--no-storage-keys", "--no-facility147", "--cbrl-size", "1"], out)  # fmt: skip
    text = out.getvalue()
    assert code == 1, text
    step = text.split("DIVERGENCE at step ")[1].split(" ")[0]
    assert f"TLC: the trace stops being a behaviour of spec/ESSA.tla at step {step} " in text
    assert list(tmp_path.glob("*/KVMClassic-nokeys-nof147-cbrl1-2p/ConformanceTrace.tla"))


# --------------------------------------------------------------------------- the Go engine


@pytest.mark.parametrize("impl", ["Paper2007", "KVMClassic", "KVMGmap"])
def test_the_go_engine_conforms_and_is_identified(impl: str, go_engine: str) -> None:
    """conformance/engines/essa-go, written from PROTOCOL.md's ESSA section, passes run for
    each Impl (one constant set here; the bench runs all) and classify identifies it."""
    cmd = f"{go_engine} -impl {impl}"
    one_set = ["--no-storage-keys", "--no-facility147", "--cbrl-size", "1"]
    out = io.StringIO()
    assert main(["run", "--machine", "ESSA", "--engine", cmd, "--quiet", "--no-tlc",
                 *one_set], out) == 0, out.getvalue()  # fmt: skip
    out = io.StringIO()
    assert main(["classify", "--engine", cmd, *one_set, "--pages", "1"], out) == 0, out.getvalue()
    assert f"identified as {impl}" in out.getvalue()
