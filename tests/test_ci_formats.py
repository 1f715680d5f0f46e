"""The verdict files CI reads (tlcrunner/ci_formats.py): JUnit XML and JSON from conformance run,
classify, kernel-check and tlcrunner check, a case per profile or model, a failure's text its
shrunk trace; and the runner's TLC workers and heap."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conformance.cli import EXIT_DIVERGED, EXIT_OK, EXIT_USAGE, main
from tlcrunner import ci_formats
from tlcrunner.check import Row, case_of
from tlcrunner.tool_output import TraceStep


def _cases(xml: Path) -> dict[str, ET.Element]:
    root = ET.parse(xml).getroot()
    (suite,) = root.findall("testsuite")
    return {tc.get("name", ""): tc for tc in suite.findall("testcase")}


def test_the_writer_counts_and_keeps_every_case(tmp_path: Path) -> None:
    cases = [ci_formats.Case("a", "passed", 1.0), ci_formats.Case("b", "failed", 2.0, "b broke", "the trace"),
             ci_formats.Case("c", "error", 0.5, "crash"), ci_formats.Case("d", "skipped", 0, "unsupported")]
    ci_formats.write("suite", cases, "SUMMARY: x", 1, junit=tmp_path / "j.xml", json_path=tmp_path / "d" / "v.json")
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("4", "1", "1", "1")
    b = _cases(tmp_path / "j.xml")["b"].find("failure")
    assert b is not None and b.get("message") == "b broke" and b.text == "the trace"
    doc = json.loads((tmp_path / "d" / "v.json").read_text())
    assert doc["exit_status"] == 1 and doc["summary"] == "SUMMARY: x"
    assert [c["name"] for c in doc["cases"]] == ["a", "b", "c", "d"]
    with pytest.raises(ValueError):
        ci_formats.Case("e", "ok")


def test_run_writes_the_shrunk_trace_as_the_failure_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml, doc = tmp_path / "run.xml", tmp_path / "run.json"
    code = main(["run", "--engine-class", "conformance.pagestates.mutants:DiscardsDirtyP", "--no-tour",
                 "--no-database", "--seed", "0", "--out", str(tmp_path / "r"), "--quiet", "--no-tlc",
                 "--junit-xml", str(xml), "--json", str(doc)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_DIVERGED
    (case,) = _cases(xml).values()
    failure = case.find("failure")
    assert failure is not None and failure.text is not None
    # the report's trace table, as printed
    table = out[out.index("from a reset:"):out.index("(! marks")]
    assert table in failure.text and "->" in failure.text
    verdict = json.loads(doc.read_text())
    assert verdict["exit_status"] == EXIT_DIVERGED
    assert verdict["summary"] == out.rstrip().splitlines()[-1]
    assert verdict["cases"][0]["status"] == "failed" and table in verdict["cases"][0]["text"]


def test_classify_writes_a_case_per_candidate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "classify.json"
    code = main(["classify", "--engine-class", "conformance.essa:KVMClassicEngine", "--no-storage-keys",
                 "--no-facility147", "--cbrl-size", "1", "--no-prebuilt-page-tables", "--cmma-enabled",
                 "--json", str(doc)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    verdict = json.loads(doc.read_text())
    statuses = {c["name"]: c["status"] for c in verdict["cases"]}
    assert statuses["KVMClassic-nokeys-nof147-cbrl1-2p"] == "passed"
    others = [c for c in verdict["cases"] if c["status"] != "passed"]
    # identified: the other candidates' divergences tell them apart, they fail nothing
    assert others and all(c["status"] == "skipped" and "from a reset:" in c["text"] for c in others)


def test_an_unwritable_path_is_refused_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--engine-class", "conformance.pagestates.engine:ReferenceEngine",
                 "--junit-xml", str(tmp_path)])  # fmt: skip
    captured = capsys.readouterr()
    assert code == EXIT_USAGE and "is a directory" in captured.err and captured.out == ""


def test_a_model_not_as_expected_is_a_failure_with_its_counterexample() -> None:
    trace = [TraceStep(1, "Init", "", {"x": "0"}), TraceStep(2, "Next", "", {"x": "1"})]
    row = Row("MCX", "holds", "violated", False, True, "Inv", 3, 2, 0.4, ["TLC: violated (Inv)"], trace)
    case = case_of(row)
    assert case.status == "failed" and "counterexample" in case.text and "x = 1" in case.text.replace("/\\ ", "")
    ok = Row("MCY", "holds", "holds", True, True, None, 3, 2, 0.1)
    assert case_of(ok).status == "passed"


def test_tlc_check_writes_junit_and_takes_workers_and_heap(tmp_path: Path, tlc_jar: Path) -> None:
    from tlcrunner.check import main as check_main
    from tlcrunner.run import build_command

    xml = tmp_path / "check.xml"
    code = check_main(["--models", "MCPageStates_Twin_SSIND", "--json", str(tmp_path / "c.json"),
                       "--junit-xml", str(xml), "--workers", "1", "--heap", "256m", "--jar", str(tlc_jar)])
    assert code == 0
    assert list(_cases(xml)) == ["MCPageStates_Twin_SSIND", "MCPageStates_Twin_SSIND (intent)"]
    cmd = build_command("java", Path("t.jar"), Path("M.tla"), Path("M.cfg"), workdir=tmp_path,
                        library=None, workers="auto", heap="4g")  # fmt: skip
    assert "-Xmx4g" in cmd and cmd[cmd.index("-workers") + 1] == "auto"
    assert not any(a.startswith("-Xmx") for a in build_command(
        "java", Path("t.jar"), Path("M.tla"), Path("M.cfg"), workdir=tmp_path, library=None, workers=1))


def test_kernel_check_cases_carry_each_profiles_reports() -> None:
    from conformance.engines.linux import check
    from conformance.essa import EssaRequest
    from refimpl.essa import EssaProfile

    bad, good = EssaProfile("KVMClassic", pages=2), EssaProfile("KVMClassic", storage_keys=True, pages=2)
    failure = check.Failure("run", ("ESSA ORC 3 page 1", ("pages[1].usage",)), (EssaRequest("ESSA", 1, orc=3),))
    report = "found by run:\nDIVERGENCE at step 1 (...)\n\nfrom a reset:\n->  1  ESSA ORC 3 page 1 ..."
    rows = [check.Row(bad, "matches", [], [report], [failure]), check.Row(good, "matches", [], [])]
    cases = check.row_cases(rows)
    assert [c.status for c in cases] == ["failed", "passed"]
    assert cases[0].name == check.label(bad) and cases[0].text == report
    assert cases[0].message == "found by run: ESSA ORC 3 page 1: pages[1].usage differ"
