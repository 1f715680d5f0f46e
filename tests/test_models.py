"""Every CI-sized model in model/manifest.json, through the same code path as `make check`: a
model with witnesses checks them in the same TLC run (D410)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlcrunner.check import check_model, default_library
from tlcrunner.manifest import Manifest, ManifestError, ModelEntry, load_manifest

MANIFEST = Path(__file__).resolve().parents[1] / "model" / "manifest.json"


def _load() -> tuple[Manifest | None, str]:
    try:
        return load_manifest(MANIFEST), ""
    except ManifestError as exc:
        return None, str(exc)


_MANIFEST, _PROBLEM = _load()
_ENTRIES = [e for e in _MANIFEST.entries if e.size == "ci"] if _MANIFEST else []
if _MANIFEST is not None and not _ENTRIES:
    _PROBLEM = f"{MANIFEST}: no model has size \"ci\", so `make test` would check none"

# A missing or broken manifest must fail the suite, not leave it with nothing to parametrize
# (pytest would then skip the test silently).
_PARAMS = [pytest.param(e, id=e.name) for e in _ENTRIES] or [pytest.param(None, id="manifest")]


@pytest.mark.parametrize("entry", _PARAMS)
def test_model_as_expected(entry: ModelEntry | None, tlc_jar: Path) -> None:
    if entry is None or _MANIFEST is None:
        pytest.fail(_PROBLEM, pytrace=False)
    rows = check_model(entry, jar=tlc_jar, library=default_library(_MANIFEST))
    bad = [f"{r.name} (expected {r.expected}): {r.note}" for r in rows if not r.as_expected]
    if bad:
        pytest.fail("; ".join(bad), pytrace=False)
