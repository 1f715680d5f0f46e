"""Shared fixtures: the TLC jar, fetched and verified once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlcrunner.fetch import ensure_tlc


@pytest.fixture(scope="session")
def tlc_jar() -> Path:
    return ensure_tlc()
