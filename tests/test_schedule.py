"""tlcrunner/schedule.py: models side by side, longest first (D411), and the cache of unchanged
models (D412), tested with a fake check (no TLC) and one small model's files."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import pytest

from tlcrunner import schedule
from tlcrunner.check import Row
from tlcrunner.locations import default_manifest
from tlcrunner.manifest import ModelEntry, load_manifest


def _row(name: str, ok: bool = True, seconds: float = 1.0) -> Row:
    return Row(name=name, expected="holds", result="holds", outcome_ok=ok, pins_ok=True,
               violated=None, distinct=3, depth=2, seconds=seconds)  # fmt: skip


def _entries(tmp_path: Path) -> list[ModelEntry]:
    (tmp_path / "Base.tla").write_text("---- MODULE Base ----\nEXTENDS Naturals\nVARIABLE x\n====\n")
    (tmp_path / "Other.tla").write_text("---- MODULE Other ----\n====\n")
    (tmp_path / "MCA.tla").write_text(
        "---- MODULE MCA ----\nEXTENDS Base,\n    TLC\n\\* INSTANCE Unrelated\nO == INSTANCE Other\n====\n")
    (tmp_path / "MCA.cfg").write_text("INIT Init\n")
    base = load_manifest(default_manifest()).entries[0]
    return [dataclasses.replace(base, name=f"MC{n}", module=tmp_path / "MCA.tla",
                                config=tmp_path / "MCA.cfg", distinct=d, workers=w)
            for n, d, w in (("Small", 10, 1), ("Big", 100_000, 1), ("Auto", 50_000, "auto"),
                            ("Mid", 5_000, 1))]  # fmt: skip


def test_dependencies_follow_extends_and_instance(tmp_path: Path) -> None:
    e = _entries(tmp_path)[0]
    names = [p.name for p in schedule.dependencies(e, None)]
    assert names == ["MCA.cfg", "Base.tla", "MCA.tla", "Other.tla"]


def test_the_key_changes_with_every_file_and_the_entry(tmp_path: Path) -> None:
    e = _entries(tmp_path)[0]
    key = schedule.cache_key(e, None)
    assert schedule.cache_key(e, None) == key
    (tmp_path / "Other.tla").write_text("---- MODULE Other ----\nY == 1\n====\n")
    changed = schedule.cache_key(e, None)
    assert changed != key
    assert schedule.cache_key(dataclasses.replace(e, distinct=11), None) != changed
    (tmp_path / "MCA.cfg").write_text("INIT Init\nINVARIANT Inv\n")
    assert schedule.cache_key(e, None) != changed


def test_only_as_expected_runs_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedule, "cache_dir", lambda: tmp_path / "cache")
    schedule.store_rows("k1", [_row("MCA"), _row("MCA:witnesses", ok=False)], "then")
    assert schedule.cached_rows("k1") is None
    schedule.store_rows("k2", [_row("MCA"), _row("MCA:witnesses")], "then")
    rows = schedule.cached_rows("k2")
    assert rows is not None and [r.name for r in rows] == ["MCA", "MCA:witnesses"]
    assert all(r.as_expected and r.seconds == 0 and "cached" in r.note for r in rows)
    schedule.record_seconds([_row("MCA", seconds=7.25), _row("MCA:witnesses", seconds=0)])
    assert schedule.recorded_seconds() == {"MCA": 7.2}


def test_longest_first_by_recorded_seconds_else_pinned_states(tmp_path: Path) -> None:
    entries = _entries(tmp_path)
    order = schedule.longest_first(entries, {})
    assert [e.name for e in order] == ["MCBig", "MCAuto", "MCMid", "MCSmall"]
    order = schedule.longest_first(entries, {"MCSmall": 500.0})
    assert order[0].name == "MCSmall"


def test_side_by_side_holds_the_cores_it_needs(tmp_path: Path) -> None:
    entries = schedule.longest_first(_entries(tmp_path), {})
    lock = threading.Lock()
    running: list[str] = []
    overlaps: list[tuple[str, ...]] = []

    def work(e: ModelEntry) -> list[Row]:
        with lock:
            running.append(e.name)
            overlaps.append(tuple(running))
        time.sleep(0.05)
        with lock:
            running.remove(e.name)
        return [_row(e.name)]

    done = [rows[0].name for rows in schedule.run_side_by_side(entries, work, 2)]
    assert sorted(done) == sorted(e.name for e in entries)
    assert max(len(o) for o in overlaps) == 2  # two at once
    assert all(o == ("MCAuto",) for o in overlaps if "MCAuto" in o)  # "auto" alone
