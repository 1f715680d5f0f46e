"""tlcrunner check under signals and concurrent runs: no orphaned TLC, no lost results.

The interrupt tests send a real signal to a real ``python -m tlcrunner check`` while TLC runs a
model that cannot finish (tests/fixtures/tlc/Slow.tla), and are bounded in time: each takes
about two seconds (one JVM for the finished model, one that is stopped).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tlcrunner.results import record_run

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "tlc"
SLOW = {
    "name": "Slow", "module": "Slow.tla", "config": "Slow.cfg", "expect": "holds",
    "distinct": None, "depth": None, "size": "deep", "timeout": 120,
    "about": "never finishes within the test",
}  # fmt: skip


def _children(pid: int) -> list[int]:
    """Direct children of ``pid``, from /proc (TLC is in a session of its own, so not in the
    runner's process group, but it is still the runner's child)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc to find TLC")
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_signal_ends_tlc_and_keeps_finished_rows(how: str, tlc_jar: Path, tmp_path: Path) -> None:
    models = tmp_path / "model"
    shutil.copytree(FIXTURES, models, ignore=shutil.ignore_patterns("output"))
    manifest = models / "manifest.json"
    raw = json.loads(manifest.read_text())
    raw["models"].append(SLOW)
    manifest.write_text(json.dumps(raw))
    results = tmp_path / "results" / "check.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tlcrunner", "check", "--manifest", str(manifest),
         "--models", "Ok,Slow", "--json", str(results), "--jar", str(tlc_jar)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,  # its own process group, as a shell gives a foreground job
        # and Ctrl-C's default meaning, as a terminal gives it: a job a non-interactive shell
        # starts in the background (`make test &`) inherits SIGINT ignored, and Python then
        # installs no KeyboardInterrupt handler, so the runner would never see the Ctrl-C.
        preexec_fn=_sigint_default,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        # The Ok row is printed once Ok finished; then TLC starts on Slow.
        for line in proc.stdout:
            if line.startswith("Ok "):
                break
        deadline = time.monotonic() + 30
        java: list[int] = []
        while not java and time.monotonic() < deadline:
            java = [p for p in _children(proc.pid) if b"tlc2.TLC" in Path(f"/proc/{p}/cmdline").read_bytes()]
            time.sleep(0.05)
        assert java, "TLC did not start on Slow"
        time.sleep(0.3)  # let it get under way
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)  # what the terminal does: the foreground group
        else:
            proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "interrupted" in rest and "1 of 2 models finished" in rest
    assert not any(_alive(p) for p in java), "TLC outlived the runner"
    rows = json.loads(results.read_text())
    assert [(r["name"], r["as_expected"], r["run_complete"]) for r in rows] == [("Ok", True, False)]
    (own,) = (results.parent / "runs").glob("check-*.json")
    record = json.loads(own.read_text())
    assert record["complete"] is False and [r["name"] for r in record["models"]] == ["Ok"]
    assert record["arguments"][:2] == ["--manifest", str(manifest)]


def test_signal_during_setup_is_exit_130_with_nothing_written(tmp_path: Path) -> None:
    """SIGTERM while Java is being checked (here a java that hangs): 130, no results file."""
    java = tmp_path / "java"
    java.write_text("#!/bin/sh\nexec sleep 60\n")
    java.chmod(0o755)
    results = tmp_path / "check.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tlcrunner", "check", "--manifest", str(FIXTURES / "manifest.json"),
         "--json", str(results), "--jar", str(tmp_path / "unused.jar")],
        cwd=REPO, env={**os.environ, "JAVA": str(java)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not _children(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # the handler is installed before java is started; leave it a moment
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted before any model" in err and "Traceback" not in err
    assert out == "" and not results.exists()


_MERGER = """
import sys
from datetime import datetime, timezone
from pathlib import Path
from tlcrunner.results import record_run
merged, who = Path(sys.argv[1]), sys.argv[2]
for i in range(15):
    record_run(merged, [{"name": f"{who}-{i}"}], complete=True, arguments=[], started=datetime.now(timezone.utc))
"""


def test_concurrent_runs_lose_no_rows(tmp_path: Path) -> None:
    merged = tmp_path / "check.json"
    procs = [
        subprocess.Popen([sys.executable, "-c", _MERGER, str(merged), f"w{n}"], cwd=REPO)
        for n in range(6)
    ]
    for p in procs:
        assert p.wait(timeout=60) == 0
    names = {r["name"] for r in json.loads(merged.read_text())}
    assert names == {f"w{n}-{i}" for n in range(6) for i in range(15)}
    assert len(list((tmp_path / "runs").glob("check-*.json"))) == 6 * 15


def test_a_subset_replaces_only_its_own_rows(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    merged = tmp_path / "check.json"
    t = datetime.now(timezone.utc)
    record_run(merged, [{"name": "A", "v": 1}, {"name": "B", "v": 1}], complete=True, arguments=[], started=t)
    record_run(merged, [{"name": "B", "v": 2}], complete=False, arguments=[], started=t)
    rows = json.loads(merged.read_text())
    assert [(r["name"], r["v"], r["run_complete"]) for r in rows] == [("A", 1, True), ("B", 2, False)]
