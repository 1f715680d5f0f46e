"""Every CI-sized model in model/manifest.json, through the same code path as `make check`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlcrunner.check import check_entry, default_library
from tlcrunner.manifest import Manifest, ManifestError, ModelEntry, load_manifest
from tlcrunner.witness import SUFFIX, check_witnesses

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
    row = check_entry(entry, jar=tlc_jar, library=default_library(_MANIFEST))
    if not row.as_expected:
        pytest.fail(f"{entry.name} (expected {entry.expect}): {row.note}", pytrace=False)


# Each CI model's witnesses, one TLC run per model, beside the models under pytest-xdist (D130).
_WITNESSED = [pytest.param(e, id=e.name + SUFFIX) for e in _ENTRIES if e.witnesses]


@pytest.mark.parametrize("entry", _WITNESSED)
def test_witnesses_reached(entry: ModelEntry, tlc_jar: Path) -> None:
    assert _MANIFEST is not None
    row = check_witnesses(entry, jar=tlc_jar, library=default_library(_MANIFEST))
    if not row.as_expected:
        pytest.fail(f"{row.name}: {row.note}", pytrace=False)
