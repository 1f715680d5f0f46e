"""The pictures of the findings (docs/findings/*.svg): what the drawing shows, and that each
committed picture is what TLC's counterexample gives today: the run that checks a finding's model
(make check, and make test's for the CI-sized ones) redraws its picture and compares it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tlcrunner.check import check_model, default_library
from tlcrunner.fetch import default_jar
from tlcrunner.finding_pictures import Step, draw, generic_steps
from tlcrunner.findings import FINDINGS, picture_drift
from tlcrunner.locations import default_manifest
from tlcrunner.manifest import load_manifest
from tlcrunner.tool_output import TraceStep

REPO = Path(__file__).resolve().parents[1]
PICTURES = REPO / "docs" / "findings"
SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_steps_go_to_their_lanes_and_the_violating_step_is_marked() -> None:
    steps = [Step("start", "Init", ("page: Sz",)), Step("guest", "GuestWrite", ("page: Sr",)),
             Step("host", "HostReclaim", ("page: Sp",)), Step("guest", "GuestRead: Value 0", ("page: Sr",))]  # fmt: skip
    svg = draw("F0. a title", "a subtitle", steps, ("guest", "host"))
    root = ET.fromstring(svg)  # well-formed
    texts = _texts(svg)
    assert texts[:4] == ["F0. a title", "a subtitle", "guest", "host"]
    assert "3. GuestRead: Value 0" in texts and "page: Sp" in texts
    rects = [r for r in root.iter(f"{SVG}rect") if r.get("rx")]
    assert len(rects) == 4
    # the last step, and only it, is outlined in red; the host's step sits right of the guest's
    assert [r.get("stroke") for r in rects].count("#c0392b") == 1 and rects[-1].get("stroke") == "#c0392b"
    assert float(rects[2].get("x", 0)) > float(rects[1].get("x", 0)) == float(rects[3].get("x", 0))
    assert draw("F0. a title", "a subtitle", steps, ("guest", "host")) == svg  # the same bytes


def test_generic_lanes_follow_the_cpu_whose_program_counter_moved() -> None:
    def state(pc1: str, pc2: str, dirty: str) -> dict[str, str]:
        return {"pc": f"(<<c1, Proc>> :> \"{pc1}\" @@ <<c2, Proc>> :> \"{pc2}\")", "dirty": dirty}

    trace = [TraceStep(1, "Init", "Initial predicate", state("Idle", "Idle", "FALSE")),
             TraceStep(2, "FindGetPage", "", state("MSWait", "Idle", "FALSE")),
             TraceStep(3, "FindGetPage", "", state("MSWait", "MSWait", "FALSE")),
             TraceStep(4, "SetPageDirty", "", state("MSWait", "MSWait", "TRUE"))]  # fmt: skip
    lanes = [s.lane for s in generic_steps(trace)]
    assert lanes == ["start", "CPU c1", "CPU c2", "the page (a store, I/O, the host)"]


def test_findings_md_shows_every_picture() -> None:
    text = (REPO / "docs" / "findings.md").read_text(encoding="utf-8")
    names = [name for f in FINDINGS for name in f.models]
    for name in names:
        assert f"](findings/{name}.svg)" in text, name
    assert sorted(p.stem for p in PICTURES.glob("*.svg")) == sorted(names)


def test_a_findings_run_checks_its_picture(tmp_path: Path) -> None:
    """The run that checks a finding's model checks its picture (tlcrunner.check.check_model:
    make check for every finding, make test for the CI-sized ones): no second run draws it."""
    manifest = load_manifest(default_manifest())
    entry = next(e for e in manifest.entries if e.name == "MCESSA_Finding_F1_KVMClassic")
    (row,) = check_model(entry, jar=default_jar(), library=default_library(manifest))
    assert row.as_expected and row.trace, row.note
    assert picture_drift(entry, row, PICTURES) == ""
    (tmp_path / f"{entry.name}.svg").write_text("<svg/>", encoding="utf-8")
    assert "run `make findings`" in picture_drift(entry, row, tmp_path)
    assert picture_drift(entry, row, tmp_path / "none") == ""  # an installed package: no pictures
