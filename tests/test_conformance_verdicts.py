"""No verdict lost, no report overwritten: ``python -m conformance run`` refuses what it would
otherwise ignore (a misapplied option, a bad number, an engine that cannot start, an output it
cannot write) before any work, prints one summary line, last, keeps apart the reports and the
example databases of different engines, and ends cleanly on SIGINT and SIGTERM, keeping a
verdict reached before the signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conformance.cli import EXIT_DIVERGED, EXIT_NOTHING, EXIT_OK, EXIT_USAGE, main
from conformance.driver import engine_key

REPO = Path(__file__).resolve().parents[1]
C_SOURCE = REPO / "conformance" / "engines" / "cmma_engine.c"
PLANTED = ("(u == 'P' && !dirty)", "(u == 'P')")  # the host may discard a dirty P page
MUTANT = "conformance.pagestates.mutants:DiscardsDirtyP"
REFERENCE = "conformance.pagestates.engine:ReferenceEngine"
ESSA_LINES = f"{sys.executable} -m conformance.essa --impl KVMClassic"  # 16 profiles


@pytest.fixture(scope="module")
def buggy_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The C example engine with one planted bug (a dirty P page discarded)."""
    where = tmp_path_factory.mktemp("buggy")
    source = C_SOURCE.read_text()
    assert PLANTED[0] in source
    (where / "engine.c").write_text(source.replace(PLANTED[0], PLANTED[1]))
    built = subprocess.run(["cc", "-O1", "-std=c11", "-o", str(where / "engine"),
                            str(where / "engine.c")], capture_output=True, text=True)  # fmt: skip
    if built.returncode != 0:
        pytest.skip(f"no C compiler: {built.stderr[:200]}")
    return where / "engine"


@pytest.mark.parametrize("argv, says", [
    (["--engine-class", REFERENCE, "--impl", "KVMGmap", "--cbrl-size", "3"],
     "--impl applies to --machine ESSA or --machine ESSAMigration or --machine ESSAMigrationVMM, not to PageStates"),
    (["--machine", "ESSA", "--engine-class", REFERENCE, "--variant", "Full"],
     "--variant applies to --machine PageStates, not to ESSA"),
    (["--engine-class", REFERENCE, "--timeout", "-1"], "--timeout must be a positive number"),
    (["--engine-class", REFERENCE, "--examples", "-5"], "--examples must be at least 0, not -5"),
    (["--engine", "./no-such-engine"], "./no-such-engine does not exist"),
    (["--engine", "conformance/PROTOCOL.md"], "is not an executable file: chmod +x"),
    (["--engine", "no-such-command-anywhere"], "is not a command on PATH"),
])  # fmt: skip
def test_usage_errors_are_refused_naming_the_fix(argv: list[str], says: str,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.chdir(REPO)
    code = main(["run", *argv, "--no-database"])
    captured = capsys.readouterr()
    assert code == EXIT_USAGE and says in captured.err and captured.out == ""
    assert captured.err.count("\n") == 1


def test_unwritable_outputs_are_refused_before_any_work(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = main(["run", "--engine-class", MUTANT, "--no-database", "--out", str(blocker / "r")])
    captured = capsys.readouterr()
    assert code == EXIT_USAGE and captured.out == "" and "--out: cannot write" in captured.err
    # A file where the example database should be is said, not silently ignored.
    code = main(["run", "--engine-class", MUTANT, "--database", str(blocker)])
    captured = capsys.readouterr()
    assert code == EXIT_USAGE and "--database:" in captured.err and "is a file" in captured.err


def test_an_engine_of_another_mode_without_machine_gets_one_summary_line_last(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """``run`` without ``--machine``: the default mode's run checks nothing, the ESSA mode's run
    decides, and only its summary line is printed, last. (The runs are stand-ins printing what
    ``run`` prints: a real JSON-lines ESSA engine is started once per profile, about a minute
    for KVMClassic's 16 on a busy machine.)"""
    import conformance.cli as cli

    def fake_run(mode, args, out, err_out):  # type: ignore[no-untyped-def]
        print(f"{mode.name}: checking", file=out, flush=True)
        if mode.name == "PageStates":
            print("nothing checked: the engine runs none of the profiles asked for", file=out)
            print("SUMMARY: nothing checked: 0 profiles checked", file=out)
            return EXIT_NOTHING
        print("SUMMARY: conforms: 16 profiles checked", file=out)
        return EXIT_OK

    monkeypatch.setitem(cli.COMMANDS, "run", fake_run)
    monkeypatch.setattr(cli, "_guess", lambda args, out: "ESSA")
    code = main(["run", "--engine", "true", "--no-database"])
    lines = capsys.readouterr().out.splitlines()
    assert code == EXIT_OK
    assert lines == ["PageStates: checking",
                     "nothing checked: the engine runs none of the profiles asked for",
                     "ESSA: checking", "SUMMARY: conforms: 16 profiles checked"]  # fmt: skip


def test_reports_of_two_engines_are_kept_apart(tmp_path: Path, buggy_engine: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """The same profile, two engines, one --out: two reports, each replay line names its own."""
    replays = {}
    for engine in (["--engine-class", MUTANT], ["--engine", str(buggy_engine)]):
        code = main(["run", *engine, "--no-tour", "--no-database", "--seed", "0", "--no-tlc",
                     "--quiet", "--out", str(tmp_path)])  # fmt: skip
        out = capsys.readouterr().out
        assert code == EXIT_DIVERGED, out
        (line,) = [ln for ln in out.splitlines() if ln.startswith("replay: ")]
        replays[engine[1]] = Path(line.split()[-1])
    assert len(set(replays.values())) == 2
    engines = set()
    for trace in replays.values():
        header = json.loads(trace.read_text().splitlines()[0])
        engines.add(header["meta"]["engine"])
        assert trace.parent.parent.name == engine_key(header["meta"]["engine"])
    assert len(engines) == 2


def test_the_example_database_is_kept_per_engine(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A passing engine's run does not replay, and so delete, another engine's failing example."""
    db = tmp_path / "db"
    common = ["--no-tour", "--no-tlc", "--quiet", "--seed", "3", "--database", str(db),
              "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(["run", "--engine-class", MUTANT, *common]) == EXIT_DIVERGED
    saved = sorted(p.relative_to(db) for p in db.rglob("*") if p.is_file())
    assert saved
    assert main(["run", "--engine-class", REFERENCE, *common]) == EXIT_OK
    capsys.readouterr()
    assert set(saved) <= {p.relative_to(db) for p in db.rglob("*") if p.is_file()}


def test_kernel_reproducers_are_kept_per_tree(tmp_path: Path) -> None:
    from conformance.engines.linux.check import tree_dir
    from conformance.engines.linux.kernels import Built

    a = Built(Path("h"), ("h",), "6.12", tmp_path / "linux-a")
    b = Built(Path("h"), ("h",), "6.12", tmp_path / "linux-b")
    out = Path(".cache/kernel-check")
    assert tree_dir(out, a, "classic") != tree_dir(out, b, "classic")
    assert tree_dir(out, a, "classic") != tree_dir(out, a, "gmap")


def _start(argv: list[str], tmp: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.Popen([sys.executable, "-m", "conformance", "run", *argv], cwd=tmp,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def _wait_for(proc: subprocess.Popen[str], text: str, seen: list[str], limit: float = 60) -> None:
    assert proc.stdout is not None
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if text in line:
            return
    raise AssertionError(f"{text!r} not printed: {''.join(seen)}")


def _children_left(tmp: Path) -> list[str]:
    """Processes whose command line names ``tmp`` (TLC's JVM has its temporary folder there)."""
    left = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(tmp) in cmd:
            left.append(cmd)
    return left


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_the_search_ends_it_cleanly(sig: signal.Signals, status: int,
                                                    tmp_path: Path) -> None:  # fmt: skip
    proc = _start(["--engine", ESSA_LINES, "--machine", "ESSA", "--no-database"], tmp_path)
    seen: list[str] = []
    _wait_for(proc, "budget per profile", seen)
    time.sleep(1.0)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    lines = ("".join(seen) + out).splitlines()
    assert proc.returncode == status, (lines, err)
    assert "Traceback" not in err and "@seed" not in out + err, err
    assert lines[-1].startswith(f"SUMMARY: INTERRUPTED by {sig.name}")
    assert [ln for ln in lines if ln.startswith("SUMMARY:")] == [lines[-1]]
    assert not _children_left(tmp_path)


def test_sigterm_during_tlc_confirmation_keeps_the_divergence(buggy_engine: Path, tmp_path: Path,
                                                              tlc_jar: Path) -> None:  # fmt: skip
    proc = _start(["--engine", str(buggy_engine), "--no-tour", "--no-database", "--seed", "0",
                   "--quiet"], tmp_path)  # fmt: skip
    seen: list[str] = []
    _wait_for(proc, "replay: ", seen)
    time.sleep(0.5)  # TLC's JVM is starting
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    lines = ("".join(seen) + out).splitlines()
    assert proc.returncode == EXIT_DIVERGED, (lines, err)
    assert "Traceback" not in err, err
    assert lines[-1].startswith("SUMMARY: DIVERGES") and "interrupted by SIGTERM" in lines[-1]
    assert not _children_left(tmp_path)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(("tlcrunner-", "cmma-trace-"))]
