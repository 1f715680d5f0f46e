"""The search of ``run`` (conformance/search.py): the coverage tour takes every edge of the
graph it enumerates, the default budget kills bugs no shipped mutant has (the two below, quoted
from the design's own motivation: a reset confined to page 0, and a reclaim that reads page 0's
change bit), and ``run`` ends with one summary line, each distinct divergence reported once.

Cost: about 9 s with the coverage graphs cached (.cache/coverage), 25 to 30 s the first time after a
change of the code on a loaded 2-core machine (the graphs enumerated).
"""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

from conformance.cli import main
from conformance.commands import default_budget, distinct, summary_line
from conformance.essa import ESSA_DRIVER, EssaProfileRequest, EssaReply, EssaRequest, oracle_step
from conformance.essa.mutants import EssaMutant, _page, _reply
from conformance.search import Group, coverage_graph, cover, search
from refimpl.essa import EssaProfile, EssaState


class ResetOnlyPage0(EssaMutant):
    """HostResetCMMA resets only page 0 (KVMClassic)."""

    impl = "KVMClassic"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "HostResetCMMA" and reply.outcome == "Done":
            t = t._replace(pages=t.pages[:1] + s.pages[1:])
        return t, _reply(profile, t, reply)


class ResetOnlyPage0Gmap(ResetOnlyPage0):
    impl = "KVMGmap"


class ReclaimGCFromPage0(EssaMutant):
    """HostReclaim with storage keys copies page 0's change bit into the reclaimed page's GC."""

    impl = "KVMClassic"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "HostReclaim" and reply.outcome == "Done" and profile.storage_keys:
            t = _page(t, req.page, gc=s.pages[0].keyDirty)
        return t, _reply(profile, t, reply)


def _graph(profile: EssaProfile, depth: int | None) -> Any:
    return coverage_graph(ESSA_DRIVER, profile, ESSA_DRIVER.coverage_groups(profile, depth),
                          ESSA_DRIVER.state_key, ESSA_DRIVER.refused)  # fmt: skip


@pytest.mark.parametrize("impl", ["Paper2007", "KVMClassic", "KVMGmap"])
def test_the_walks_take_every_edge_of_the_graph(impl: str) -> None:
    profile = EssaProfile(impl, storage_keys=True, cbrl_size=1 if impl == "KVMGmap" else 2, pages=2)
    g = _graph(profile, 1)
    walks = cover(g, length=50)
    taken = set()
    for walk in walks:
        s, state = 0, ESSA_DRIVER.init(profile)
        for r in walk:
            taken.add((s, r))
            # the graph's successor is the reference's
            state, _ = oracle_step(profile, state, g.requests[r])
            s = g.succ[(s, r)]
            assert ESSA_DRIVER.state_key(state) == ESSA_DRIVER.state_key(g.states[s])
        assert len(walk) <= 50
    assert set(g.edges) <= taken
    assert len(set(g.edges)) == len(g.edges)
    # the one-page machine of page 1 is enumerated to its end, each state with each request
    # on page 1 (a bug of page 1 alone is on some walk)
    page1 = {i for i, r in enumerate(g.requests) if r.page == 1}
    every_page1 = {s for s, _ in taken if all((s, r) in taken for r in page1)}
    assert g.sizes["page 1"] > 10 and g.complete
    assert len(every_page1) >= g.sizes["page 1"]


def test_a_bound_on_the_edges_keeps_the_shallow_ones() -> None:
    profile = EssaProfile("KVMGmap", pages=2)
    whole = _graph(profile, 2)
    cut = coverage_graph(ESSA_DRIVER, profile, ESSA_DRIVER.coverage_groups(profile, 2),
                         ESSA_DRIVER.state_key, ESSA_DRIVER.refused, max_edges=500)  # fmt: skip
    assert whole.complete and not cut.complete
    assert 500 <= len(cut.edges) < len(whole.edges)
    # enumerated in the same order, level by level: the bound keeps a prefix
    assert cut.edges == whole.edges[: len(cut.edges)]
    assert set(cover(cut)[0]) and len(cut.always_refused) < len(cut.requests)


@pytest.mark.parametrize("mutant", [ResetOnlyPage0, ResetOnlyPage0Gmap, ReclaimGCFromPage0],
                         ids=lambda m: m.__name__)  # fmt: skip
def test_the_default_budget_kills_page_confined_bugs(mutant: type[EssaMutant]) -> None:
    profiles = ESSA_DRIVER.profiles(EssaProfileRequest(impl=mutant.impl), 2)
    outcomes = search(ESSA_DRIVER, mutant(), profiles, default_budget(ESSA_DRIVER, mutant.impl),
                      stop_at_first=True)  # fmt: skip
    last = outcomes[-1]
    assert last.status == "diverged", [o.note for o in outcomes[:3]]
    assert last.error is not None and len(last.error.steps) <= 4
    assert any(r.request.page == 1 for r in last.error.steps)


def test_one_summary_line_and_each_divergence_once(tmp_path: Any) -> None:
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine-class",
                 "tests.test_conformance_search:ReclaimGCFromPage0", "--storage-keys",
                 "--no-facility147", "--cbrl-size", "1", "--no-tlc", "--swarm", "0",
                 "--out", str(tmp_path)], out=out)  # fmt: skip
    text = out.getvalue()
    lines = text.rstrip().splitlines()
    assert code == 1
    # keys, CMMA on and off: the same reclaim divergence under both, reported once
    assert text.count("DIVERGENCE at") == 1, text
    assert "the same divergence under 2 profiles" in text
    # the search stops at it; the other profile replays its program
    assert lines[-1].startswith("SUMMARY: DIVERGES: 2 profiles checked (1 searched no further "
                                "than the quick tour and a replay of the first divergence), ")
    assert "1 distinct divergence; first: KVMClassic-keys-nof147-cbrl1-2p step " in lines[-1]
    assert "(also under 1 other profile)" in lines[-1]
    assert sum(ln.startswith("SUMMARY") for ln in lines) == 1


def test_the_summary_of_a_conforming_run() -> None:
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine-class", "conformance.essa:PaperEngine",
                 "--storage-keys", "--facility147", "--cbrl-size", "2", "--no-cmma-enabled",
                 "--quiet"], out=out)  # fmt: skip
    last = out.getvalue().rstrip().splitlines()[-1]
    assert code == 0
    assert last.startswith("SUMMARY: conforms: 1 profile checked, ")
    assert ", 0 distinct divergences; scope: 1 profile, pages 2, CBRL sizes 2, " in last
    # the whole graph within the budget's depth was toured: the pass says how much that is
    assert re.search(r", [\d,]+ transitions of the reference graphs covered \(1 of 1 profiles' "
                     r"graphs whole to the budget's depth, 0 by a quick tour only\)", last), last
    assert last.endswith("; more: --pages 3, --cbrl-size 3, --profile thorough")


def test_the_scope_names_what_the_tours_covered() -> None:
    from conformance.driver import Outcome
    from conformance.search import scope
    from refimpl.essa import EssaProfile

    one = EssaProfile("KVMClassic", cbrl_size=1, pages=2)
    two = EssaProfile("KVMClassic", cbrl_size=2, pages=2)
    outcomes = [Outcome("passed", "quick tour", one, 10, 0.1, edges=40),
                Outcome("passed", "cover", one, 900, 1.0, edges=700, whole=True),
                Outcome("passed", "quick tour", two, 10, 0.1, edges=50),
                Outcome("diverged", "cover", two, 20, 0.1)]  # fmt: skip
    assert scope([one, two], outcomes) == (
        "scope: 2 profiles, pages 2, CBRL sizes 1, 2, 750 transitions of the reference graphs "
        "covered (1 of 2 profiles' graphs whole to the budget's depth, 1 by a quick tour only); "
        "more: --pages 3, --cbrl-size 3, --profile thorough")  # fmt: skip
    assert scope([one], more="--pages 3") == "scope: 1 profile, pages 2, CBRL sizes 1; more: --pages 3"


def test_distinct_and_summary_are_machine_independent() -> None:
    assert summary_line(ESSA_DRIVER, [], 0.0).startswith("SUMMARY: nothing checked: 0 profiles")
    assert distinct(ESSA_DRIVER, []) == []


def test_a_crash_report_quotes_the_panic_above_a_backtrace() -> None:
    from conformance.jsonlines import stderr_words

    rust = ["thread 'main' panicked at src/engine.rs:41:9:",
            "index out of bounds: the len is 2 but the index is 2", "stack backtrace:",
            *(f"   {i}: frame{i}" for i in range(12)),
            "note: Some details are omitted, run with RUST_BACKTRACE=full"]  # fmt: skip
    words = stderr_words(rust)
    assert "panicked at src/engine.rs:41:9" in words
    assert "index out of bounds: the len is 2 but the index is 2" in words
    assert "frame11" in words and "frame5" not in words and " ... " in words
    assert stderr_words(["bad engine: segmentation fault"]) == \
        "; its last words on stderr: bad engine: segmentation fault"  # fmt: skip


class AnnouncesClassic(EssaMutant):
    """An engine that announces KVMClassic whatever it is asked (a harness of one kernel)."""

    impl = "KVMClassic"

    def hello(self, request: EssaProfileRequest) -> Any:
        info = super().hello(request.without("impl"))
        return info


def test_a_skip_names_the_field_the_engine_announces_otherwise() -> None:
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--impl", "KVMGmap", "--engine-class",
                 "tests.test_conformance_search:AnnouncesClassic", "--storage-keys",
                 "--facility147", "--cbrl-size", "2", "--bugs", "none", "--prebuilt-page-tables",
                 "--cmma-enabled", "--quiet"], out=out)  # fmt: skip
    text = out.getvalue()
    assert code == 4
    assert "the engine announces Impl KVMClassic, not KVMGmap" in text
    assert "{" not in text.split("skipped", 1)[1]


def test_the_budget_is_printed_and_set_by_the_options() -> None:
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine-class", "conformance.essa:KVMGmapEngine",
                 "--storage-keys", "--facility147", "--cbrl-size", "2", "--bugs", "none",
                 "--prebuilt-page-tables", "--cmma-enabled", "--cover-edges", "300", "--depth",
                 "1", "--swarm", "50"], out=out)  # fmt: skip
    lines = out.getvalue().splitlines()
    assert code == 0
    assert lines[0].endswith("budget per profile: first a quick tour of every profile (pairs of "
                             "pages to depth 2), coverage tour of up to 300 edges (pairs of "
                             "pages to depth 1, each page to the end), swarm walk of 50 steps, "
                             "stopping at the first divergence (the other profiles replay it)")
    cover_line = next(ln for ln in lines if " cover passed: " in ln)
    assert "(cut by the budget)" in cover_line
    assert " swarm passed: 50 steps" in out.getvalue()
    # --cover-edges 0: the fixed tours instead (the one-page tour and the queue tour)
    out = io.StringIO()
    code = main(["run", "--machine", "ESSA", "--engine-class", "conformance.essa:KVMGmapEngine",
                 "--storage-keys", "--facility147", "--cbrl-size", "1", "--bugs", "none",
                 "--prebuilt-page-tables", "--cmma-enabled", "--cover-edges", "0", "--swarm",
                 "0"], out=out)  # fmt: skip
    assert code == 0 and "budget per profile: the fixed tours, stopping at" in out.getvalue()
    assert " tour passed: " in out.getvalue()


def test_each_modes_graphs_keep_their_own_cache_folder(tmp_path: Any) -> None:
    """kernel-check runs the ESSA and ESSAMigration modes side by side: a graph written by one
    (a new code hash of its own) drops only that mode's older folders, never the other mode's."""
    from conformance.essa_migration import MIGRATION_DRIVER
    from conformance.search import Budget, _cache_dir, graph_and_walks

    budget, profile = Budget(depth=1), EssaProfile("KVMClassic", pages=1)
    stale_essa = tmp_path / f"{type(ESSA_DRIVER).__module__}-0123456789abcdef"
    old_layout = tmp_path / "fedcba9876543210"
    for d in (stale_essa, old_layout):
        d.mkdir()
    graph_and_walks(MIGRATION_DRIVER, profile, budget, tmp_path)
    graph_and_walks(ESSA_DRIVER, profile, budget, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [_cache_dir(ESSA_DRIVER), _cache_dir(MIGRATION_DRIVER)])
    # and each is read back, not enumerated again
    assert graph_and_walks(MIGRATION_DRIVER, profile, budget, tmp_path)[2]
    assert graph_and_walks(ESSA_DRIVER, profile, budget, tmp_path)[2]
