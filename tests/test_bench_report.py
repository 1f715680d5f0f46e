"""bench/report.py prints only figures some run produced, and says so when there are none."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPORT = Path(__file__).resolve().parents[1] / "bench" / "report.py"


def _report(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(REPORT)], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_no_results_is_nothing_reported_exit_4(tmp_path: Path) -> None:
    proc = _report(tmp_path)
    assert proc.returncode == 4 and proc.stdout == ""
    assert "nothing to report" in proc.stderr and "make bench" in proc.stderr


def test_a_results_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "bench-refimpl.json").write_text(json.dumps({
        "runs": 3, "ops_per_run": 1000, "single_page_ops_per_s": 12345, "multi_page_ops_per_s": 678,
    }))  # fmt: skip
    proc = _report(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "| one page, full machine | 12,345 |" in proc.stdout


def test_the_loops_are_reported_and_written(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "bench-loops.json").write_text(json.dumps({"check": {
        "command": "python -m tlcrunner check --size all", "exit": 0, "wall": 512.3, "cpu": 980.1,
        "load_start": "0.1, 0.2, 0.3", "load_end": "2.0, 1.5, 1.0", "at": "2026-11-28T09:00:00+00:00",
        "cpus": 2, "phases": {"set-up": 1.2, "JVM start": 300.0, "state space": 600.0},
        "detail": {"TLC runs": 295}, "top": [["MCBig", 120.5, 580609]]}}))  # fmt: skip
    proc = subprocess.run([sys.executable, str(REPORT), "--loops-doc", "loops.md"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    row = ("| check | `python -m tlcrunner check --size all` | 0 | 512.3 | 980.1 | 0.1, 0.2, 0.3; "
           "2.0, 1.5, 1.0 | set-up 1.2; JVM start 300.0; state space 600.0 |")
    assert row in proc.stdout
    doc = (tmp_path / "loops.md").read_text()
    assert row in doc and "| MCBig | 120.5 | 580609 |" in doc


def test_mutate_runs_are_merged_mutant_by_mutant(tmp_path: Path) -> None:
    """A whole-catalogue run, then a re-run of the mutant it left caught only by pins, are one
    table: the last file naming a mutant wins, the equivalents listed now count as equivalent, a
    mutant no longer in the catalogue is left out, and a partly covered module says how much."""
    from tlcrunner import mutate
    from tlcrunner.locations import default_manifest

    manifest = mutate.load_manifest(default_manifest())
    catalogue = mutate.whole_catalogue(manifest)
    equivalent = set(mutate.load_equivalents(manifest.directory / mutate.DEFAULT_EQUIVALENTS))
    balloon = [m.id for m in catalogue if m.module == "Ballooning"]
    essa = [m.id for m in catalogue if m.module == "ESSA" and m.id not in equivalent][:2]
    row = lambda i, v, p=None: {"id": i, "verdict": v, "property": p}  # noqa: E731
    whole = tmp_path / "a.json"
    whole.write_text(json.dumps({"mutants": [row(i, "killed", "SomeInv") for i in balloon[1:]]
                                 + [row(balloon[0], "pins"), row("deadbeef00", "survived"),
                                    row(essa[0], "survived"), row(essa[1], "killed", "deadlock")]}))
    rerun = tmp_path / "b.json"
    rerun.write_text(json.dumps({"mutants": [row(balloon[0], "killed", "witness W of P")]}))
    proc = subprocess.run([sys.executable, str(REPORT), "--mutate", str(whole), str(rerun)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    eq = len(equivalent & set(balloon))
    essa_size = sum(m.module == "ESSA" for m in catalogue)
    assert f"| Ballooning | {len(balloon)} | whole catalogue | {len(balloon) - eq} | 0 | 0 | {eq} | 0 |" in lines
    essa_eq = len(equivalent & {m.id for m in catalogue if m.module == "ESSA"})
    assert f"| ESSA | {essa_size} | {2 + essa_eq} of {essa_size} | 1 | 0 | 1 | {essa_eq} | 0 |" in lines
    assert not any(line.startswith("| FrameReuse ") for line in lines)  # no file covers it
    assert (f"mutants: {len(balloon) + 2 + essa_eq} run, {len(balloon) - eq + 1} killed (1 by TLC's deadlock "
            f"check, {1 if balloon[0] not in equivalent else 0} by a reachability witness), 0 caught "
            f"only by pins or a twin, 1 survived, {eq + essa_eq} equivalent, 0 invalid, "
            f"of {len(catalogue)} in the catalogue.") in proc.stdout


def test_models_doc_is_generated_from_the_manifest(tmp_path: Path) -> None:
    """docs/models.md is bench/report.py's output for model/manifest.json: every model once, by
    spec then by purpose, and a model's purpose is the one its name says."""
    repo = REPORT.parents[1]
    out = tmp_path / "models.md"
    proc = subprocess.run([sys.executable, str(REPORT), "--manifest-doc", str(out)], cwd=repo,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == (repo / "docs" / "models.md").read_text(), "regenerate docs/models.md"
    models = json.loads((repo / "model" / "manifest.json").read_text())["models"]
    section = ""
    seen = []
    for line in out.read_text().splitlines():
        if line.startswith("### "):
            section = line
        elif line.startswith("| `MC"):
            name = line.split("`")[1]
            seen.append(name)
            kind = "Findings" if "_Finding_" in name else "Broken twins" if "_Twin_" in name else "Checks"
            assert section.startswith("### " + kind), (name, section)
    assert sorted(seen) == sorted(m["name"] for m in models)
