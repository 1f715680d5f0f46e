"""``run``'s default search order (conformance/search.py): a quick tour of every profile before
the full search of any, and a stop at the first divergence, which the other profiles replay so
that the report still names every profile it shows under; ``--keep-going`` searches them all.

Cost: about 20 s with the coverage graphs cached (.cache/coverage), most of it the 32 KVMGmap
profiles searched in full.
"""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

from conformance.cli import main
from conformance.commands import default_budget, distinct, summary_line
from conformance.essa import ESSA_DRIVER, EssaProfileRequest, EssaReply, EssaRequest
from conformance.essa.mutants import EssaMutant, _reply
from conformance.search import fold_profiles, search
from refimpl.essa import EssaProfile, EssaState


class ResetOnlyPage0Cbrl2(EssaMutant):
    """HostResetCMMA resets only page 0, and only with a CBRL of two entries: a bug no
    profile before the first CBRL-size-2 one shows."""

    impl = "KVMClassic"

    def mutate(self, profile: EssaProfile, s: EssaState, req: EssaRequest, t: EssaState,
               reply: EssaReply) -> tuple[EssaState, EssaReply]:  # fmt: skip
        if req.op == "HostResetCMMA" and reply.outcome == "Done" and profile.cbrl_size == 2:
            t = t._replace(pages=t.pages[:1] + s.pages[1:])
        return t, _reply(profile, t, reply)


def _profiles() -> list[EssaProfile]:
    return ESSA_DRIVER.profiles(EssaProfileRequest(impl="KVMClassic"), 2)


def test_a_bug_of_a_later_profile_is_found_by_the_quick_tour() -> None:
    profiles = _profiles()
    first_cbrl2 = next(n for n, p in enumerate(profiles) if p.cbrl_size == 2)
    assert first_cbrl2 > 0  # the profiles before it would otherwise be searched in full first
    outcomes = search(ESSA_DRIVER, ResetOnlyPage0Cbrl2(), profiles,
                      default_budget(ESSA_DRIVER, "KVMClassic"))  # fmt: skip
    found = [o for o in outcomes if o.status == "diverged"]
    assert found[0].drive == "quick tour" and found[0].profile.cbrl_size == 2
    # no profile was searched in full, and the quick tours before it were short
    assert not [o for o in outcomes if o.drive in ("cover", "swarm")]
    assert sum(o.steps for o in outcomes) < 20_000
    # the other profiles replayed its program: one divergence, under every CBRL-size-2
    # profile it shows in, and none of the others
    groups = distinct(ESSA_DRIVER, outcomes)
    assert len(groups) == 1
    under = groups[0][1]
    assert len(under) >= 2 and all(p.cbrl_size == 2 for p in under)
    # the profiles whose reference graph another's is (CMMA disabled) are run as that one
    run, folded = fold_profiles(ESSA_DRIVER, profiles)
    assert {o.drive for o in outcomes if o.status != "folded"} == {"quick tour", "replay"}
    assert len([o for o in outcomes if o.status == "folded"]) == len(folded) > 0
    replayed = {id(o.profile) for o in outcomes if o.drive == "replay"}
    assert len(replayed) == len(run) - 1
    line = summary_line(ESSA_DRIVER, outcomes, 1.0)
    assert f"{len(run)} profiles checked ({len(folded)} more run as " in line
    assert f"{len(run) - 1} searched no further than the quick tour and a replay of the first " \
        "divergence)" in line  # fmt: skip
    assert f"(also under {len(under) - 1} other profiles)" in line


def test_keep_going_searches_every_profile_to_its_budget() -> None:
    profiles = [p for p in _profiles() if not p.storage_keys and not p.facility147]
    budget = replace(default_budget(ESSA_DRIVER, "KVMClassic"), first_only=False, swarm=100)
    outcomes = search(ESSA_DRIVER, ResetOnlyPage0Cbrl2(), profiles, budget)
    assert not [o for o in outcomes if o.drive == "replay"]
    # every profile whose quick tour passed was toured in full
    for p in profiles:
        mine = [o for o in outcomes if o.profile is p]
        if mine[0].status == "folded":
            assert len(mine) == 1 and not p.cmma_enabled
        elif mine[0].status == "passed":
            assert [o.drive for o in mine] == ["quick tour", "cover", "swarm"]
        else:
            assert mine[0].status == "diverged" and len(mine) == 1 and p.cbrl_size == 2
    assert len(distinct(ESSA_DRIVER, outcomes)) == 1


def test_the_order_is_printed_and_keep_going_turns_the_stop_off(tmp_path: Any) -> None:
    args = ["run", "--machine", "ESSA", "--engine-class",
            "tests.test_search_first:ResetOnlyPage0Cbrl2", "--no-storage-keys",
            "--no-facility147", "--no-tlc", "--swarm", "0", "--quiet", "--out", str(tmp_path)]
    out = io.StringIO()
    assert main(args, out=out) == 1
    head = out.getvalue().splitlines()[0]
    assert "first a quick tour of every profile (pairs of pages to depth 2)" in head
    assert head.endswith("stopping at the first divergence (the other profiles replay it)")
    out = io.StringIO()
    assert main([*args, "--keep-going"], out=out) == 1
    text = out.getvalue()
    assert "stopping at the first" not in text.splitlines()[0]
    assert "searched no further" not in text.splitlines()[-1]


def test_the_bench_names_the_drive_that_found_a_bug() -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "bench" / "heldout_bench.py"
    spec = importlib.util.spec_from_file_location("heldout_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = "\n".join([
        "16 profiles of KVMClassic, 2 pages; budget per profile: ...",
        "  KVMClassic-nokeys-nof147-cbrl1-2p quick tour passed: 352 steps in 0.0 s (1 steps/s)",
        "  KVMClassic-keys-nof147-cbrl2-2p quick tour diverged: 2,299 steps in 0.1 s (1 steps/s)",
        "  KVMClassic-keys-f147-cbrl2-2p replay diverged: 4 steps in 0.0 s (1 steps/s)",
        "SUMMARY: DIVERGES: 16 profiles checked (15 searched no further than the quick tour and "
        "a replay of the first divergence), 2,651 steps in 0.5 s, 1 distinct divergence",
    ])  # fmt: skip
    assert bench._found_by(out) == ("quick tour", "KVMClassic-keys-nof147-cbrl2-2p", 2651)
    assert bench._found_by("SUMMARY: conforms: 1 profile checked, 10 steps in 0.1 s") == \
        ("", "", 10)  # fmt: skip


def test_a_first_profile_cheaper_than_the_quick_pass_is_searched_first() -> None:
    from conformance.essa import KVMGmapEngine

    # KVMGmap: the first profile's tour (at most 4,000 edges) costs fewer steps than the quick
    # tours of its profiles together; KVMClassic's first tour costs more than all quick tours
    gmap = ESSA_DRIVER.profiles(EssaProfileRequest(impl="KVMGmap"), 2)[:32]
    outcomes = search(ESSA_DRIVER, KVMGmapEngine(), gmap, default_budget(ESSA_DRIVER, "KVMGmap"))
    assert all(o.passed for o in outcomes)
    assert [o.drive for o in outcomes[:4]] == ["quick tour", "cover", "swarm", "quick tour"]
    assert [o.drive for o in outcomes[3:34]] == ["quick tour"] * 31
    assert {o.drive for o in outcomes[34:]} == {"cover", "swarm"}
    assert not any(o.profile is gmap[0] for o in outcomes[34:])
