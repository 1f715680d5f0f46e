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
