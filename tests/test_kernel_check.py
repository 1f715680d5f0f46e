"""make kernel-check's parts that need no toolchain: classify and the driver's run per profile
(against the reference engines and a mutant), the table, and the parsing of the harness's reply
lines. docs/kernel.md's block is what the real kernel's check prints: `make kernel-check
KERNEL_CHECK_FLAGS=--check-readme` fails otherwise, and CI runs it so (.ci/run), once; no test
runs the whole check again."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import pytest

from conformance.engines.linux import check
from conformance.engines.linux.engine import parse_reply
from conformance.essa import EssaEngineInfo, EssaProfileRequest, HostPage, KVMClassicEngine
from conformance.essa.mutants import SecondPageReportsFirst
from conformance.essa_migration import EssaMigrationReferenceEngine, MarksOnlyWhenQueued
from conformance.protocol import EngineFault




#: classify under CBRLSize 1 only: its queue tour (CBRLSize 2) is most of classify's cost with the
#: reference engines, and make test runs these tests (the kernel's check runs every set).
SMALL: Final = EssaProfileRequest(pages=check.PAGES, cbrl_size=1, prebuilt_page_tables=False)


def test_classify_request_leaves_the_gmap_constants_to_the_gmap() -> None:
    assert check.classify_request("KVMClassic") == EssaProfileRequest(
        pages=check.PAGES, prebuilt_page_tables=False, machine_interprets_essa=False)
    assert check.classify_request("KVMGmap") == EssaProfileRequest(pages=check.PAGES)


def test_the_reference_itself_is_identified_and_passes_every_profile(tmp_path: Path) -> None:
    c, rows = check.check(KVMClassicEngine(), KVMClassicEngine, "KVMClassic", tmp_path, examples=5,
                          max_steps=10, request=SMALL)  # fmt: skip
    assert c.identified == "KVMClassic"
    # classify folds as `python -m conformance classify` does: with CMMA off, a candidate takes
    # the verdict of the one whose reference graph is its own, unrun
    copies = [v for v in c.verdicts if v.stand_in is not None]
    assert copies and all(not v.profile.cmma_enabled or v.profile.impl == "Paper2007"
                          for v in copies)  # fmt: skip
    assert all(v.steps == 0 and v.stand_in in {w.profile for w in c.verdicts} for v in copies)
    # the Impl's own candidate is checked under every set (the SUMMARY's steps are its own)
    assert not any(v.profile.impl == "KVMClassic" and not v.profile.bugs for v in copies)
    # every classic profile once: StorageKeys x Facility147 x CBRLSize x CMMAEnabled
    assert len(rows) == len({r.profile for r in rows}) == 16
    assert {r.profile.pages for r in rows} == {check.PAGES}
    assert all(not r.diverged and not r.reports for r in rows)
    assert {r.classify for r in rows if r.profile.cbrl_size == 1} == {"matches"}
    assert {r.classify for r in rows if r.profile.cbrl_size == 2} == {"not run"}
    assert not any(tmp_path.iterdir()), "nothing to reproduce"
    # a pass says what it covered, and how to go further
    last = check.summary("6.12", "KVMClassic", c, rows, [])
    assert last.startswith("kernel-check: Linux 6.12 conforms to KVMClassic: 16 profiles, ")
    assert ", 0 divergences; scope: 16 profiles, pages 2, CBRL sizes 1, 2, " in last
    assert "transitions of the reference graphs covered (16 of 16 profiles' graphs whole" in last
    assert last.endswith("; more: KERNEL_CHECK_FLAGS='--profile thorough'")
    # the CMMA-off sets with Facility147 or CBRLSize off their first values get the coverage
    # tour alone: their reference graphs are those of the two sets that also run the random
    # phases (D464), and the scope says so
    assert ("; run once: the swarm walk and hypothesis of 2 profiles stand for 6 others with the "
            "same reference graph (CMMA disabled), which get the coverage tour alone; more:") in last
    toured = {r.profile for r in rows if check.tour_only(r.profile, [x.profile for x in rows])}
    assert len(toured) == 6 and not any(p.cmma_enabled for p in toured)
    for r in rows:
        drives = {o.drive for o in r.outcomes}
        assert "cover" in drives, "every constant set gets the coverage tour of its whole graph"
        assert ({"hypothesis", "swarm"} & drives) == (set() if r.profile in toured
                                                     else {"hypothesis", "swarm"})  # fmt: skip


def test_a_two_page_bug_is_reported_with_the_drivers_reproducers(tmp_path: Path) -> None:
    c, rows = check.check(SecondPageReportsFirst(), SecondPageReportsFirst, "KVMClassic",
                          tmp_path, examples=5, max_steps=10, request=SMALL)  # fmt: skip
    assert c.identified is None
    # with CMMA off every ESSA is an operation exception, which may hide the bug
    assert all(r.classify.startswith("diverges") for r in rows
               if r.profile.cmma_enabled and r.profile.cbrl_size == 1)  # fmt: skip
    diverged = [r for r in rows if r.reports]
    assert diverged, "run over two pages must catch a bug of page 1"
    first = diverged[0]
    (report, *_) = first.reports
    assert report.startswith("found by classify") and "DIVERGENCE at step" in report
    (saved,) = (tmp_path / "classify").glob(f"*/{check.ESSA_DRIVER.short_name(first.profile)}")
    for name in ("report.txt", "trace.jsonl", "trace.itf.json"):
        assert (saved / name).is_file() and str(saved / name) in report
    assert (saved / "ConformanceTrace.tla").is_file()
    out = io.StringIO()
    check.table("A mutant", c, rows, out)
    text = out.getvalue()
    assert "classify: matches no Impl" in text
    # one report per distinct divergence (the request and the fields), naming every profile
    found = check.findings(rows)
    assert sum(len(r.reports) for r in rows) >= 4 > len(found) >= 1
    assert text.count("DIVERGENCE at step") == len(found)
    assert all(text.count(check.label(p)) >= 1 for f in found for p in f.profiles)
    assert sum(len(f.profiles) for f in found) >= len([r for r in rows if r.reports])
    last = check.summary("9.9", "KVMClassic", c, rows, found)
    diverged = sum(1 for r in rows if r.diverged)
    assert last.startswith(f"kernel-check: {diverged} of {len(rows)} profiles diverge")
    assert last.endswith(f"first: {found[0].headline()}") and "\n" not in last


def test_parse_reply() -> None:
    r = parse_reply("Done 15 -1 V011010 S100001\n", 2, "ESSA")
    assert (r.outcome, r.result, r.value) == ("Done", 15, -1)
    assert r.pages == (HostPage("V", False, True, True, False, dirty=False, gc=True),
                       HostPage("S", True, False, False, False, dirty=True, gc=False))
    refused = parse_reply("Refused -1 -1 S00000-", 1, "HostReclaim")
    assert refused.reason == "the page is not resident" and refused.pages[0].dirty is None
    for bad in ("error cannot do: x", "Done 0 -1 S00000", "Done 0 -1 X000000", "Done 0 -1",
                "Done 0 -1 S00000x"):
        with pytest.raises(EngineFault):
            parse_reply(bad, 1)


def test_every_varying_constant_is_a_column_so_no_row_repeats() -> None:
    profiles = check.ESSA_DRIVER.profiles(check.EssaProfileRequest(impl="KVMClassic"), check.PAGES)
    rows = [check.Row(p, "matches", [], []) for p in profiles]
    c = check.Classification(EssaEngineInfo("reference", EssaProfileRequest()), ())
    out = io.StringIO()
    check.table("Reference", c, rows, out)
    lines = [line for line in out.getvalue().splitlines() if line.startswith("| ")]
    header, body = lines[0], lines[1:]
    assert [k.tla for k in check.varying(rows)] == ["StorageKeys", "Facility147", "CBRLSize", "CMMAEnabled"]
    assert header.startswith("| StorageKeys | Facility147 | CBRLSize | CMMAEnabled |")
    assert len(body) == len(rows) == len(set(body)) == 16
    # a constant the same in every row: in the title when not at its default
    gmap = [check.Row(replace(p, impl="KVMGmap", prebuilt_page_tables=True), "matches", [], [])
            for p in profiles]  # fmt: skip
    out = io.StringIO()
    check.table("Gmap", c, gmap, out)
    assert "; PrebuiltPageTables True." in out.getvalue().splitlines()[0]


class BothModes:
    """A reference engine of both ESSA modes, as the classic harness is: the ESSA mode's
    KVMClassic engine, or the ESSAMigration mode's (``migration_engine``), by ``machine``."""

    machines = ("ESSA", "ESSAMigration")

    def __init__(self, migration_engine: type = EssaMigrationReferenceEngine) -> None:
        self.machine = "ESSA"
        self.essa, self.migration = KVMClassicEngine(), migration_engine()

    def _engine(self) -> Any:
        return self.migration if self.machine == "ESSAMigration" else self.essa

    def hello(self, request: EssaProfileRequest) -> EssaEngineInfo:
        info: EssaEngineInfo = self._engine().hello(request.merged(EssaProfileRequest(impl="KVMClassic")))
        return info

    def reset(self) -> None:
        self._engine().reset()

    def step(self, request: Any) -> Any:
        return self._engine().step(request)

    def close(self) -> None:
        self.essa.close()
        self.migration.close()


ONE_PROFILE: Final = EssaProfileRequest(storage_keys=False, facility147=True, cbrl_size=1,
                                        cmma_enabled=True)  # fmt: skip


def test_an_engine_of_both_modes_gets_the_migration_column(tmp_path: Path) -> None:
    c, rows = check.check(BothModes(), BothModes, "KVMClassic", tmp_path, examples=5, max_steps=10,
                          only=ONE_PROFILE)  # fmt: skip
    (row,) = rows
    assert row.migration and all(o.passed for o in row.migration) and not row.diverged
    out = io.StringIO()
    check.table("Both", c, rows, out)
    assert "| classify (this Impl) | run | migration |" in out.getvalue()
    assert "migration (the ESSAMigration mode, where the profile has it)" in out.getvalue()


def test_a_migration_bug_is_found_by_migration(tmp_path: Path) -> None:
    c, rows = check.check(BothModes(MarksOnlyWhenQueued), lambda: BothModes(MarksOnlyWhenQueued),
                          "KVMClassic", tmp_path, examples=5, max_steps=10, only=ONE_PROFILE)  # fmt: skip
    (row,) = rows
    assert row.diverged and [e.found_by for e in row.errors] == ["migration"]
    assert row.errors[0].machine == "ESSAMigration" and row.reports[0].startswith("found by migration")
    assert list((tmp_path / "migration").glob(f"*/{check.ESSA_DRIVER.short_name(row.profile)}/trace.jsonl"))
    assert check._run_cell(row).startswith("passed") and check._run_cell(row, row.migration).startswith("diverged")
