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


def test_mutate_runs_of_several_files_make_one_table(tmp_path: Path) -> None:
    """A module's whole catalogue and another's seeded sample, each run on its own, are one table:
    the run that covered each module is named, and the totals are the sum of the rows."""
    row = {"generated": 4, "killed": 2, "pins": 1, "survived": 0, "equivalent": 1, "invalid": 0}
    whole = tmp_path / "a.json"
    whole.write_text(json.dumps({"max_per_module": None, "seed": 0, "scores": {"Ballooning": row}}))
    sample = tmp_path / "b.json"
    sample.write_text(json.dumps({"max_per_module": 25, "seed": 14,
                                  "scores": {"ESSA": {**row, "survived": 1, "generated": 5}}}))
    proc = subprocess.run([sys.executable, str(REPORT), "--mutate", str(whole), str(sample)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("| Ballooning | ") and "| whole catalogue | 4 | 2 | 1 | 0 | 1 | 0 |" in line
               for line in lines), proc.stdout
    assert any(line.startswith("| ESSA | ") and "| sample of 25, seed 14 | 5 | 2 | 1 | 1 | 1 | 0 |" in line
               for line in lines), proc.stdout
    assert "mutants: 9 run, 4 killed (0 by TLC's deadlock check, 0 by a reachability witness), 2 caught only by pins or a twin, 1 survived, 2 equivalent, 0 invalid" in proc.stdout
