"""Checking the manifest's models side by side, longest first, and not again when nothing changed.

``python -m tlcrunner check`` runs ``--jobs`` TLC processes at once (D411). The models go longest
first (the classic longest-processing-time order: the long ones start while the short ones can
still fill the other core at the end), by the seconds each took the last time it ran on this
machine (recorded in the cache folder), else by an estimate from the manifest's pinned distinct
states. A model whose manifest says ``"workers": "auto"`` uses every core: it runs alone.

With ``--cache`` (``make check`` passes it outside CI), a model whose last run was as expected is
not run again while nothing it depends on changed (D412): the key is a hash of TLC's jar (the
pinned one, by its SHA-256), the manifest entry (expectation, pins, witnesses, workers, size), the
model's .cfg, every module the model reads (its own and, transitively, every module it EXTENDS or
INSTANCEs found beside it or in spec/; TLC's standard modules are in the jar) and the runner's own
code that builds and judges the run. A fresh clone has no cache and runs everything; CI never
passes ``--cache``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as futures
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .check import FINDING_PICTURES, Row
from .fetch import PINNED_SHA256
from .locations import CHECKOUT, in_checkout, user_cache_dir
from .manifest import ModelEntry
from .process import sessions_stopped
from .results import write_atomically

#: The runner's files whose code decides a row: a change to one of them invalidates every entry.
RUNNER_FILES = ("check.py", "run.py", "tool_output.py", "witness.py", "cfg.py", "schedule.py", "contract.py",
                "findings.py", "finding_pictures.py")
#: Seconds of an unmeasured model: a JVM start, then the distinct states at a rate TLC reaches
#: on these specs with one worker (docs/checking.md: 1,700-3,900 distinct states per second).
JVM_START_S = 2.0
STATES_PER_S = 2000.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=default_jobs(), metavar="N",
                        help="TLC processes at once, longest model first (default: the cores, "
                        "at most 4: %(default)s)")  # fmt: skip
    parser.add_argument("--cache", action="store_true",
                        help="skip a model whose last run was as expected and whose files, "
                        "manifest entry and TLC are unchanged (make check outside CI)")  # fmt: skip


def default_jobs() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def cache_dir() -> Path:
    return (CHECKOUT / ".cache" if in_checkout() else user_cache_dir()) / "check"


# --- what a model reads -------------------------------------------------------------------

_EXTENDS = re.compile(r"^\s*EXTENDS\b(.*(?:\n\s+[A-Za-z_].*,?)*)", re.MULTILINE)
_INSTANCE = re.compile(r"\bINSTANCE\s+([A-Za-z_][A-Za-z0-9_]*)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMMENT = re.compile(r"\(\*.*?\*\)|\\\*[^\n]*", re.DOTALL)


def _imported(text: str) -> set[str]:
    text = _COMMENT.sub("", text)
    names = {m.group(1) for m in _INSTANCE.finditer(text)}
    for m in _EXTENDS.finditer(text):
        names |= set(_NAME.findall(m.group(1)))
    return names


def dependencies(entry: ModelEntry, library: Path | None) -> list[Path]:
    """The model's .cfg and every module it reads that is not one of TLC's own: its module and,
    transitively, what it EXTENDS and INSTANCEs, found in its folder or in ``library``."""
    folders = [entry.module.parent, *([library] if library is not None else [])]
    found: dict[str, Path] = {}
    todo = [entry.module]
    while todo:
        module = todo.pop()
        if module.stem in found:
            continue
        found[module.stem] = module
        for name in _imported(module.read_text(encoding="utf-8")):
            path = next((f / f"{name}.tla" for f in folders if (f / f"{name}.tla").is_file()), None)
            if path is not None and name not in found:
                todo.append(path)
    return [entry.config, *sorted(found.values())]


def cache_key(entry: ModelEntry, library: Path | None) -> str:
    digest = hashlib.sha256(f"tlc {PINNED_SHA256}\n".encode())
    fields = {"name": entry.name, "expect": str(entry.expect), "distinct": entry.distinct,
              "depth": entry.depth, "size": entry.size, "workers": entry.workers,
              "timeout": entry.timeout, "witnesses": entry.witnesses,
              "breaks": entry.breaks}  # fmt: skip
    digest.update(json.dumps(fields, sort_keys=True).encode())
    here = Path(__file__).resolve().parent
    picture = FINDING_PICTURES / f"{entry.name}.svg"  # a finding's run checks its picture too
    for path in [*(here / f for f in RUNNER_FILES), *dependencies(entry, library),
                 *([picture] if picture.is_file() else [])]:  # fmt: skip
        digest.update(f"\n{path.name}\n".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


# --- the cache ----------------------------------------------------------------------------


def cached_rows(key: str) -> list[Row] | None:
    """The rows of the last as-expected run with this key, marked as cached; None if none."""
    path = cache_dir() / "rows" / f"{key}.json"
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return [Row(name=r["name"], expected=r["expected"], result=r["result"], outcome_ok=True,
                pins_ok=True, violated=r["violated"], distinct=r["distinct"], depth=r["depth"],
                seconds=0.0, notes=[f"cached: unchanged since its run of {saved['at']}"
                                    + (f" ({r['seconds']:.1f} s)" if r["seconds"] else "")])
            for r in saved["rows"]]  # fmt: skip


def store_rows(key: str, rows: list[Row], at: str) -> None:
    """Keep the rows of a run for the next, only when every one was as expected."""
    if rows and all(r.as_expected for r in rows):
        data = {"at": at, "rows": [r.to_json() for r in rows]}
        write_atomically(cache_dir() / "rows" / f"{key}.json", data)


def recorded_seconds() -> dict[str, float]:
    try:
        data = json.loads((cache_dir() / "seconds.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in data.items()}


def record_seconds(rows: Iterable[Row]) -> None:
    """Each model's seconds (its row's, its witnesses' and a twin's run against its contract
    alone, added up), for the next run's order."""
    from .contract import INTENT_SUFFIX

    seconds = recorded_seconds()
    this_run: dict[str, float] = {}
    for r in rows:
        if r.seconds > 0:
            name = r.name.removesuffix(INTENT_SUFFIX).split(":")[0]
            this_run[name] = this_run.get(name, 0.0) + r.seconds
    seconds.update({name: round(s, 1) for name, s in this_run.items()})
    write_atomically(cache_dir() / "seconds.json", dict(sorted(seconds.items())))


# --- the order and the runs ---------------------------------------------------------------


def estimated_seconds(entry: ModelEntry, recorded: dict[str, float]) -> float:
    if entry.name in recorded:
        return recorded[entry.name]
    return JVM_START_S + (entry.distinct or 0) / STATES_PER_S


def longest_first(entries: list[ModelEntry], recorded: dict[str, float]) -> list[ModelEntry]:
    return sorted(entries, key=lambda e: -estimated_seconds(e, recorded))


def run_side_by_side(
    entries: list[ModelEntry], work: Callable[[ModelEntry], list[Row]], jobs: int,
) -> Iterator[list[Row]]:
    """``work`` on each entry, ``jobs`` at once in the order given, an entry with ``"workers":
    "auto"`` alone; yields each entry's rows as it finishes. On KeyboardInterrupt every running
    TLC is killed and the interrupt goes on (rows not yet yielded are lost, as in a serial
    run)."""
    queue = list(entries)
    jobs = max(1, jobs)
    sessions_stopped(False)
    running: dict[futures.Future[list[Row]], int] = {}  # the cores each one holds
    with futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        try:
            while queue or running:
                while queue:
                    need = jobs if queue[0].workers == "auto" else 1
                    if sum(running.values()) + need > jobs:
                        break
                    entry = queue.pop(0)
                    running[pool.submit(work, entry)] = need
                done, _ = futures.wait(running, return_when=futures.FIRST_COMPLETED)
                for f in done:
                    del running[f]
                    yield f.result()
        except BaseException:
            for f in running:
                f.cancel()
            sessions_stopped(True)
            raise
