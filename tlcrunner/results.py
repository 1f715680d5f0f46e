"""results/check.json that no run can lose: a file per run, and a merge by model under a lock.

Every run writes its own record (``runs/check-<time>-<pid>.json`` beside the merged file), never
touched again. It then merges its rows into the merged file by model name, holding an exclusive
``flock`` on ``<file>.lock`` from reading the old rows to renaming the new file into place, so two
runs at once both land and a ``--models`` subset replaces only its own models' rows. The rename
is atomic: a reader sees the old file or the new one, never half of one.

Each merged row says which run produced it (``run``), when (``checked_at``), and whether that run
finished (``run_complete``): rows kept from an interrupted run are marked, and rows of models the
current run did not reach are left as they were, with their older run id.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


def run_id(now: datetime | None = None) -> str:
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%S.%fZ")
    return f"{stamp}-{os.getpid()}"


def write_atomically(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; results are ordinary files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock tied to ``path`` (on ``<path>.lock``, which is never deleted: deleting
    it would let two runs lock two different files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _old_rows(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        print(f"warning: {path} is unreadable ({exc}); starting it afresh", file=sys.stderr)
        return []
    if not isinstance(data, list) or not all(isinstance(r, dict) and "name" in r for r in data):
        print(f"warning: {path} is not a list of model rows; starting it afresh", file=sys.stderr)
        return []
    return data


def record_run(
    merged: Path, rows: list[dict[str, Any]], *, complete: bool, arguments: list[str],
    started: datetime,
) -> Path:  # fmt: skip
    """Write this run's own file, then merge ``rows`` into ``merged``. Returns the run's file.
    ``arguments`` are the run's command-line arguments, kept so a record says what was asked."""
    ident = run_id(started)
    finished = datetime.now(timezone.utc)
    stamped = [
        {**r, "run": ident, "checked_at": finished.isoformat(timespec="seconds"),
         "run_complete": complete}
        for r in rows
    ]  # fmt: skip
    own = merged.parent / "runs" / f"{merged.stem}-{ident}.json"
    write_atomically(own, {
        "run": ident, "started": started.isoformat(timespec="seconds"),
        "finished": finished.isoformat(timespec="seconds"), "complete": complete,
        "arguments": arguments, "models": stamped,
    })  # fmt: skip
    with locked(merged):
        by_name = {r["name"]: r for r in _old_rows(merged)}
        by_name.update({r["name"]: r for r in stamped})  # keeps first-seen order, new ones last
        write_atomically(merged, list(by_name.values()))
    return own
