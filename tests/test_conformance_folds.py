"""The folds of refimpl.essa.profile.FOLDS are proved by the reference graphs: every profile a
fold runs as another gives, under the reference, the same reply to every request sequence from
the reset as that other one (search.same_graph walks both graphs together to their ends), on one
page for every profile ``run`` asks and on two pages for the profile that differs from its
stand-in in the most constants; and the comparison tells apart what no fold folds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from conformance.essa.mode import EssaDriver
from conformance.search import fold_profiles, same_graph
from refimpl.essa.profile import CONSTANTS, FOLDS, IMPLS, folded, profiles

MODE = EssaDriver()


@pytest.mark.parametrize("impl", IMPLS)
def test_every_folded_profile_has_its_stand_ins_graph_on_one_page(impl: str) -> None:
    asked = profiles({"impl": impl}, 1)
    run, folds = fold_profiles(MODE, asked)
    assert run and len(run) + len(folds) == len(asked)
    for p, stand_in, why in folds:
        assert stand_in in run and why
        assert same_graph(MODE, stand_in, p), (p.describe(), stand_in.describe())


@pytest.mark.parametrize("fold", FOLDS, ids=lambda f: f.name)
def test_each_fold_holds_on_two_pages(fold: object) -> None:
    defaults = {c.attr: c.domain[0] for c in CONSTANTS}
    others = {c.attr: c.domain[-1] for c in CONSTANTS}
    impls = [fold.when["impl"]] if "impl" in fold.when else list(IMPLS)  # type: ignore[attr-defined]
    for impl in impls:
        base = replace(profiles({"impl": impl}, 2)[0], **{
            a: v for a, v in fold.when.items() if a != "impl"})  # type: ignore[attr-defined]
        try:
            changed = replace(base, **{a: others[a] for a in fold.ignored})  # type: ignore[attr-defined]
        except ValueError:  # Bugs and the page tables are the new gmap's alone
            changed = replace(base, **{a: others[a] for a in fold.ignored  # type: ignore[attr-defined]
                                       if a not in ("bugs", "prebuilt_page_tables")})
        stand_in, _ = folded(changed)
        assert stand_in == replace(changed, **{a: defaults[a] for a in fold.ignored})  # type: ignore[attr-defined]
        assert same_graph(MODE, stand_in, changed), changed.describe()


def test_the_comparison_tells_apart_what_no_fold_folds() -> None:
    base = profiles({"impl": "KVMClassic"}, 1)[0]
    for attr, value in (("storage_keys", True), ("facility147", True), ("cbrl_size", 2),
                        ("cmma_enabled", False)):  # fmt: skip
        other = replace(base, **{attr: value})
        assert folded(other)[0] == other and same_graph(MODE, base, other) is False, attr


def test_the_readme_counts_the_profiles_searched() -> None:
    """conformance/README.md's budget table: each Impl's two-page profiles, and those searched."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "conformance" / "README.md").read_text()
    for impl in IMPLS:
        asked = profiles({"impl": impl}, 2)
        run, _ = fold_profiles(MODE, asked)
        assert re.search(rf"^\| {impl} \| {len(asked)} \({len(run)}\) \|", text, re.M), impl
        assert f"{impl} searches {len(run)} of {len(asked)}" in text.replace("\n", " ") or \
            f"{impl} {len(run)} of {len(asked)}" in text.replace("\n", " "), impl
