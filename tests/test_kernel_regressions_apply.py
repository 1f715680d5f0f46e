"""Planting a catalogue regression: the edit lands inside the named function only, and a tree
that differs from the catalogue's is refused by name (conformance/engines/linux/regressions.py)."""

from __future__ import annotations

import pytest

from conformance.engines.linux.extract import ExtractError
from conformance.engines.linux.regressions import Regression, apply, compiled_functions, load

SOURCE = """static int helper(int x)
{
\treturn x & 0x03;
}

int target(int x)
{
\tint y = x & 0x03;
\treturn y;
}
"""


def _regression(find: str, function: str = "target") -> Regression:
    return Regression("r", "f.c", function, find, find.replace("0x03", "0x43"), "what", "wrong-mask")


def test_the_edit_lands_in_the_named_function_only() -> None:
    out = apply(SOURCE, _regression("x & 0x03"))
    assert "return x & 0x03;" in out  # the helper's identical snippet is untouched
    assert "int y = x & 0x43;" in out


def test_a_tree_that_differs_is_refused_by_name() -> None:
    with pytest.raises(ExtractError, match="occurs 0 times in target"):
        apply(SOURCE, _regression("x & 0x07"))
    with pytest.raises(ExtractError, match="no definition of missing"):
        apply(SOURCE, _regression("x & 0x03", "missing"))


def test_the_catalogue_loads_and_names_functions_the_harness_compiles() -> None:
    catalogue = load()
    assert len(catalogue) >= 12
    assert len({r.name for r in catalogue}) == len(catalogue)
    assert {r.function for r in catalogue} & compiled_functions()
