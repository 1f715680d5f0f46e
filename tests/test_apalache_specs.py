"""The real Apalache, where it is installed: every module of spec/ typechecks.

Skipped, with the reason, where Apalache or a Java 21 is absent (as in CI: Apalache is on no
registry CI reaches). About 15 s per module on two busy cores, so a few minutes in all.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from tlcrunner import apalache, exitcodes

ROOT = Path(__file__).resolve().parents[1]


def test_every_spec_module_typechecks() -> None:
    if apalache.find_apalache() is None:
        pytest.skip("Apalache is not installed (no apalache-mc on PATH, APALACHE_HOME not set)")
    if apalache.find_java(lambda line: None) is None:
        pytest.skip(f"no Java {apalache.MIN_JAVA} or later to run Apalache with")
    out = io.StringIO()
    status = apalache.main(["--typecheck", "--timeout", "300"], out=out)
    text = out.getvalue()
    modules = sorted(p.stem for p in (ROOT / "spec").glob("*.tla"))
    passed = re.findall(r"typecheck (\w+)\s+no error found", text)
    assert sorted(passed) == modules, text
    assert status == exitcodes.OK, text
