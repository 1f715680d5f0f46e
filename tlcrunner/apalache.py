"""``python -m tlcrunner apalache``: run the Apalache checks of model/apalache.json.

Apalache is not on the package registries this project can reach, so it is used where it is
installed (``apalache-mc`` on PATH, or ``$APALACHE_HOME/bin/apalache-mc``; docs/apalache.md says how to
build it). It needs Java 21 or later: the driver takes ``$JAVA_HOME`` if its Java is recent
enough, else ``java`` on PATH, else the newest JDK under /usr/lib/jvm, and runs Apalache with that
one. Each check prints the step Apalache is at while it runs, then its result and time; a check
that outlives ``--timeout`` is stopped. The exit status says which of these happened (see
:data:`EXIT_HELP`); it is 0 only when checks ran and every one found no error. It never reports a
result it did not get from Apalache.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from . import exitcodes, usage
from .locations import data_root
from .process import sigterm_as_interrupt, stream_in_session

MIN_JAVA: Final = 21  # Apalache 0.62 is built for class-file version 65 (Java 21)
SYSTEM_JVM_DIR = Path("/usr/lib/jvm")  # where Debian, Ubuntu and Temurin packages put JDKs
DEFAULT_TIMEOUT: Final = 600.0  # seconds per check: the CI set's checks take about 2 minutes

INSTALL_HINT = f"""\
To install it: build it from source as docs/apalache.md says ("How to verify Apalache here"), or
download a release archive from https://github.com/apalache-mc/apalache/releases (it needs
Java {MIN_JAVA} or later), unpack it, and either put its bin/ directory on PATH or set
APALACHE_HOME to the unpacked directory. Then run `make apalache` again."""

JAVA_HINT = f"""\
Apalache needs Java {MIN_JAVA} or later. Set JAVA_HOME to such a JDK, or install one (for
example a Temurin {MIN_JAVA} or later package, which goes under {SYSTEM_JVM_DIR})."""

EXIT_HELP = f"""\
exit status:
  {exitcodes.OK}    every check ran and found no error
  {exitcodes.FAILED}    some check found a counterexample, or Apalache stopped with an error
  {exitcodes.SETUP}    no Java {MIN_JAVA} or later was found: nothing was run
  {exitcodes.NOTHING}    Apalache is not installed: nothing was checked
  {exitcodes.TIMED_OUT}    no check failed, but some did not finish within --timeout
  {exitcodes.INTERRUPTED}  interrupted (Ctrl-C or SIGTERM)"""

# Apalache's exit codes (at.forsyte.apalache.infra.ExitCodes).
EXIT_OK = 0
EXIT_COUNTEREXAMPLE = 12
EXIT_TYPECHECK = 120

KINDS: Final = ("invariants", "steps", "inductive", "initial")
SIZES: Final = ("ci", "deep")

PASSED = "no error found"
COUNTEREXAMPLE = "COUNTEREXAMPLE"
TIMEOUT = "TIMED OUT"


@dataclass(frozen=True)
class ApalacheCheck:
    name: str
    module: str
    cinit: str
    init: str
    next: str
    inv: str
    length: int
    kind: str
    size: str
    about: str
    tuning: str = ""  # Apalache's --tuning-options, e.g. "rewriter.shortCircuit=true"; "" for none


def load_checks(path: Path) -> list[ApalacheCheck]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    checks = []
    for i, item in enumerate(raw.get("checks", [])):
        try:
            check = ApalacheCheck(
                name=str(item["name"]), module=str(item["module"]), cinit=str(item["cinit"]),
                init=str(item["init"]), next=str(item["next"]), inv=str(item["inv"]),
                length=int(item["length"]), kind=str(item["kind"]), size=str(item["size"]),
                about=str(item.get("about", "")), tuning=str(item.get("tuning", "")),
            )  # fmt: skip
        except (KeyError, TypeError, ValueError) as exc:
            raise SystemExit(f"{path}: check {i}: missing or malformed field: {exc}") from exc
        if check.kind not in KINDS or check.size not in SIZES:
            raise SystemExit(f"{path}: check {check.name}: kind must be one of {KINDS}, size one of {SIZES}")
        checks.append(check)
    return checks


def find_apalache() -> str | None:
    on_path = shutil.which("apalache-mc")
    if on_path:
        return on_path
    home = os.environ.get("APALACHE_HOME")
    if home:
        candidate = Path(home) / "bin" / "apalache-mc"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


def java_major(java: str) -> int | None:
    """The major version `java -version` reports (8 for "1.8.0_x"), or None if it cannot run."""
    try:
        proc = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = _VERSION.search(proc.stderr + proc.stdout)
    if proc.returncode != 0 or found is None:
        return None
    major = int(found.group(1))
    return int(found.group(2) or 0) if major == 1 else major


@dataclass(frozen=True)
class Java:
    home: Path  # the JDK's folder: its bin/java is what Apalache runs with
    major: int


def find_java(log: Callable[[str], None]) -> Java | None:
    """A Java of at least MIN_JAVA: $JAVA_HOME's, then the one on PATH, then the newest JDK in
    SYSTEM_JVM_DIR. Each one passed over is logged with its version, so a user sees why."""
    candidates: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    on_path = shutil.which("java")
    if on_path:
        candidates.append(Path(on_path).resolve())
    system: list[Java] = []
    if SYSTEM_JVM_DIR.is_dir():
        for home in sorted(SYSTEM_JVM_DIR.iterdir()):
            java = home / "bin" / "java"
            if java.is_file() and not home.is_symlink():
                major = java_major(str(java))
                if major is not None:
                    system.append(Java(home, major))
    for java in candidates:
        major = java_major(str(java))
        if major is not None and major >= MIN_JAVA:
            return Java(java.parent.parent, major)
        log(f"apalache: {java}: {'does not run' if major is None else f'Java {major}'}, "
            f"not {MIN_JAVA} or later; looking further")  # fmt: skip
    recent = [j for j in system if j.major >= MIN_JAVA]
    return max(recent, key=lambda j: j.major) if recent else None


def command(apalache: str, check: ApalacheCheck, out_dir: Path) -> list[str]:
    tuning = [f"--tuning-options={check.tuning}"] if check.tuning else []
    return [
        apalache, "check", *tuning,
        f"--cinit={check.cinit}", f"--init={check.init}", f"--next={check.next}",
        f"--inv={check.inv}", f"--length={check.length}", f"--out-dir={out_dir}",
        check.module,
    ]  # fmt: skip


def java_env(java: Java) -> dict[str, str]:
    """The environment Apalache runs in: its script starts `java` from PATH."""
    env = dict(os.environ)
    env["JAVA_HOME"] = str(java.home)
    env["PATH"] = f"{java.home / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


# "Step 3: picking a transition out of 5 transition(s)" (TransitionExecutorImpl) and the like.
_STEP = re.compile(r"\bStep (\d+):")


@dataclass(frozen=True)
class Outcome:
    result: str  # PASSED, COUNTEREXAMPLE, TIMEOUT or "ERROR (exit n): ..."
    seconds: float


def _workdir(spec_dir: Path, model_dir: Path) -> tempfile.TemporaryDirectory[str]:
    # Apalache looks up modules next to the one it checks: give it one folder holding both.
    tmp = tempfile.TemporaryDirectory(prefix="apalache-")
    for src in [*spec_dir.glob("*.tla"), *model_dir.glob("*.tla")]:
        shutil.copy(src, Path(tmp.name) / src.name)
    return tmp


def _result(returncode: int | None, timed_out: bool, output: str) -> str:
    if timed_out:
        return TIMEOUT
    if returncode == EXIT_OK:
        return PASSED
    if returncode == EXIT_COUNTEREXAMPLE:
        return COUNTEREXAMPLE
    # Apalache ends each log line with its level and time ("E@23:06:01.536" for an error): its
    # error lines say what went wrong; "Checker has found an error" and the exit line do not.
    lines = [" ".join(ln.split()) for ln in output.strip().splitlines() if ln.strip()]
    logged = [re.sub(r"\s*E@[\d:.]+$", "", ln) for ln in lines if re.search(r"\sE@[\d:.]+$", ln)]
    errors = [ln for ln in lines if "error" in ln.lower() or "exception" in ln.lower()]
    tail = " | ".join(dict.fromkeys(logged)) if logged else " | ".join((errors or lines)[-3:])
    return f"ERROR (exit {returncode}): {tail}"


def run_check(
    apalache: str, check: ApalacheCheck, spec_dir: Path, model_dir: Path, java: Java,
    timeout: float, out: TextIO,
) -> Outcome:  # fmt: skip
    start = time.monotonic()
    last_step = [-1]

    def progress(line: str) -> None:
        found = _STEP.search(line)
        if found and int(found.group(1)) != last_step[0]:
            last_step[0] = int(found.group(1))
            print(f"    step {last_step[0]} of {check.length}  ({time.monotonic() - start:.0f} s)",
                  file=out, flush=True)  # fmt: skip

    with _workdir(spec_dir, model_dir) as tmp:
        work = Path(tmp)
        done = stream_in_session(
            command(apalache, check, work / "out"), cwd=work, timeout=timeout,
            on_line=progress, env=java_env(java),
        )  # fmt: skip
    return Outcome(_result(done.returncode, done.timed_out, done.stdout), time.monotonic() - start)


def typecheck(apalache: str, module: Path, java: Java, timeout: float) -> Outcome:
    """`apalache-mc typecheck` of one module, with the spec and model folders beside it."""
    start = time.monotonic()
    with _workdir(module.parent.parent / "spec", module.parent.parent / "model") as tmp:
        done = stream_in_session(
            [apalache, "typecheck", f"--out-dir={Path(tmp) / 'out'}", module.name], cwd=Path(tmp),
            timeout=timeout, on_line=lambda line: None, env=java_env(java),
        )  # fmt: skip
    return Outcome(_result(done.returncode, done.timed_out, done.stdout), time.monotonic() - start)


def _status(results: list[str]) -> int:
    if any(r != PASSED and r != TIMEOUT for r in results):
        return exitcodes.FAILED
    if TIMEOUT in results:
        return exitcodes.TIMED_OUT
    return exitcodes.OK


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(
        prog=usage.prog("python -m tlcrunner apalache", "apalache"), epilog=EXIT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--checks", type=Path, default=None,
                        help="the checks (default: model/apalache.json of the checkout or package)")
    parser.add_argument("--size", choices=["ci", "all"], default="ci",
                        help="ci: the checks of about two minutes each (default); all: the deep ones too")
    parser.add_argument("--only", default=None, metavar="GLOB",
                        help="only the checks whose name matches this shell pattern")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds each check may run before it is stopped (default {DEFAULT_TIMEOUT:.0f})")
    parser.add_argument("--typecheck", action="store_true",
                        help="instead of the checks, typecheck every module of spec/")
    args = parser.parse_args(argv)
    if args.checks is None:
        args.checks = data_root() / "model" / "apalache.json"
    checks = load_checks(args.checks)
    if args.size == "ci":
        checks = [c for c in checks if c.size == "ci"]
    if args.only:
        from fnmatch import fnmatchcase

        checks = [c for c in checks if fnmatchcase(c.name, args.only)]
    if not checks and not args.typecheck:
        print(f"apalache: no check of {args.checks} is selected", file=out)
        return exitcodes.USAGE
    apalache = find_apalache()
    if apalache is None:
        print("Apalache is not installed (no apalache-mc on PATH, APALACHE_HOME not set), so no",
              file=out)  # fmt: skip
        print("Apalache check was run. These checks are ready in", f"{args.checks}:", file=out)
        for c in checks:
            print(f"  {c.name}: {c.about}", file=out)
        print(INSTALL_HINT, file=out)
        return exitcodes.NOTHING
    java = find_java(lambda line: print(line, file=out, flush=True))
    if java is None:
        print(f"apalache: found {apalache}, but no Java {MIN_JAVA} or later to run it with.", file=out)
        print(JAVA_HINT, file=out)
        return exitcodes.SETUP
    print(f"apalache: {apalache} with Java {java.major} ({java.home})", file=out, flush=True)
    model_dir = args.checks.parent
    spec_dir = model_dir.parent / "spec"
    results: list[str] = []
    started = time.monotonic()
    try:
        with sigterm_as_interrupt():
            if args.typecheck:
                modules = sorted(spec_dir.glob("*.tla"))
                for i, module in enumerate(modules, 1):
                    o = typecheck(apalache, module, java, args.timeout)
                    results.append(o.result)
                    print(f"[{i}/{len(modules)}] typecheck {module.stem:<34} {o.result}  ({o.seconds:.1f} s)",
                          file=out, flush=True)  # fmt: skip
            else:
                for i, c in enumerate(checks, 1):
                    print(f"[{i}/{len(checks)}] {c.name} ({c.kind}, length {c.length}): {c.about}",
                          file=out, flush=True)  # fmt: skip
                    o = run_check(apalache, c, spec_dir, model_dir, java, args.timeout, out)
                    results.append(o.result)
                    print(f"[{i}/{len(checks)}] {c.name}: {o.result}  ({o.seconds:.1f} s)", file=out, flush=True)
    except KeyboardInterrupt:
        print(f"apalache: interrupted after {len(results)} of {len(checks)} checks", file=out)
        return exitcodes.INTERRUPTED
    passed = results.count(PASSED)
    timed_out = results.count(TIMEOUT)
    print(f"apalache: {len(results)} run, {passed} without error, {len(results) - passed - timed_out} "
          f"failed, {timed_out} timed out, in {time.monotonic() - started:.0f} s", file=out)  # fmt: skip
    return _status(results)
