"""The reference implementation is the spec's machine: exhaustive equality of state graphs.

One test for every machine package (refimpl.pagestates, refimpl.essa): TLC dumps the full state
graph of the package's graph model (tests/fixtures/graph/MCGraph.tla, MCEssaGraph.tla: no
symmetry) with ``-dump dot,actionlabels``; the test explores the refimpl from the same initial
state with the same steps and requires the same states and the same (state, action, state)
edges.

* PageStates: every profile the spec's ASSUMEs allow (each Variant, HostService, UnusedAccess)
  on one page, the full machine and the z/VM prototype on two.
* ESSA: each Impl (the KVMs with and without storage keys) on one page, a CBRL of one. "Probe"
  models probe every state of Spec with the bare instruction, every ORC 0 .. 8 on every page
  (refimpl.essa.essa, the entry point of a conformance harness); a "Queue" model has two pages
  and a CBRL of two, so the order of the list and the migration of several pages are compared
  too. ``REFIMPL_ESSA_DEEP=1`` adds the instruction as a step of its own (up to 15,000 states),
  the 2007 model on two pages, and the queue model of the new gmap.

And it bites: a one-entry change of a refimpl table (monkeypatch) or a one-line change of a spec
operator (a twin in the graph module, put in by the .cfg's ``<-``) makes the comparison fail and
name the first differing step with the path to it. By hand: ``python -m refimpl equal``.

TLC's JVM start dominates, so every TLC run the selected tests need is started when the first of
them asks, two at a time in the background, the largest first.
"""

from __future__ import annotations

import dataclasses

import os
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import pytest

from refimpl import MACHINES
from refimpl.core.graph import Difference, StateGraph, compare
from refimpl.core.tlc import TlcGraph, tlc_state_graph
from refimpl.essa import ACTION_NAMES, ESSA, ORC_CODES, EssaProfile
from refimpl.essa import rules as essa_rules
from refimpl.essa.migration import MIGRATION
from refimpl.essa.package import INSTRUCTION_LABEL, QUEUE_ACTIONS
from refimpl.essa.rules import KEEP, EffectEntry, Reclaim
from refimpl.pagestates import PAGE_STATES
from refimpl.pagestates import profile as profile_module
from refimpl.pagestates import rules
from refimpl.pagestates.profile import Features, Profile, all_profiles
from tlcrunner.run import find_java

DEEP = os.environ.get("REFIMPL_ESSA_DEEP", "") not in ("", "0")


class Job(NamedTuple):
    """One TLC run: a machine, a profile, a graph model, and the overrides of a spec twin."""

    machine: str
    profile: Hashable
    model: str = "Spec"
    overrides: tuple[tuple[str, str], ...] = ()

    @property
    def package(self) -> Any:
        return MACHINES[self.machine]

    def id(self) -> str:
        name = f"{self.machine}-{self.model}-{self.package.short_name(self.profile)}"
        return name + "".join(f"-{a}<-{b}" for a, b in self.overrides)

    def refimpl_graph(self) -> StateGraph[Any]:
        return self.package.state_graph(self.profile, self.model)  # type: ignore[no-any-return]

    def compare(self, spec: StateGraph[Any], impl: StateGraph[Any] | None = None) -> Difference | None:
        return compare(spec, impl if impl is not None else self.refimpl_graph(), self.package.show)


def page_job(profile: Profile, overrides: tuple[tuple[str, str], ...] = ()) -> Job:
    return Job(PAGE_STATES.name, profile, "Spec", overrides)


def essa_job(profile: EssaProfile, model: str = "Spec",
             overrides: tuple[tuple[str, str], ...] = ()) -> Job:  # fmt: skip
    return Job(ESSA.name, profile, model, overrides)


FULL_1_PROFILE = Profile("Full", True, "AddressingException", pages=1)
FULL_1 = page_job(FULL_1_PROFILE)
PAPER = EssaProfile("Paper2007")
CLASSIC_KEYS = EssaProfile("KVMClassic", storage_keys=True, facility147=True)
CLASSIC_NOKEYS = EssaProfile("KVMClassic", storage_keys=False, facility147=True)
GMAP_KEYS = EssaProfile("KVMGmap", storage_keys=True, facility147=True)
GMAP_NOKEYS = EssaProfile("KVMGmap", storage_keys=False, facility147=True)
SPEC_PROFILES = [PAPER, CLASSIC_KEYS, CLASSIC_NOKEYS, GMAP_KEYS, GMAP_NOKEYS]
PROBE_PAPER = essa_job(EssaProfile("Paper2007", facility147=True), "Probe")
PROBE_CLASSIC = essa_job(EssaProfile("KVMClassic", storage_keys=True), "Probe")
PROBE_GMAP = essa_job(EssaProfile("KVMGmap"), "Probe")
QUEUE_CLASSIC = essa_job(EssaProfile("KVMClassic", facility147=True, cbrl_size=2, pages=2), "Queue")
# The kernel-fidelity options (decisions D97-D106): the fixed new gmap under today's
# guest with the machine's interpretation, each 2026 bug, prebuilt page tables, CMMA off; the
# misdirected CBRL zap on two pages through the queue model (one page has no other page to hit).
GMAP_FIXED = EssaProfile("KVMGmap", storage_keys=True, facility147=True,
                         machine_interprets_essa=True, modern_guest=True)  # fmt: skip
FIDELITY_JOBS = [
    essa_job(GMAP_FIXED),
    *(essa_job(dataclasses.replace(GMAP_FIXED, bugs=frozenset({bug})))
      for bug in ("StickyZero", "StaleUnusedBit", "CBRLGuestAddress")),
    essa_job(EssaProfile("KVMGmap", storage_keys=True, cbrl_size=2, pages=2,
                         bugs=frozenset({"CBRLGuestAddress"})), "Queue"),
    essa_job(EssaProfile("KVMGmap", prebuilt_page_tables=True), "Probe"),
    essa_job(EssaProfile("KVMClassic", storage_keys=True, modern_guest=True, cmma_enabled=False)),
]  # fmt: skip

# The largest first: their TLC runs start first.
GRAPH_JOBS = [
    essa_job(GMAP_KEYS), essa_job(CLASSIC_KEYS), PROBE_CLASSIC, PROBE_GMAP,
    page_job(Profile("Full", True, "AddressingException", pages=2)),
    page_job(Profile("ZVMPrototype", True, "AddressingException", pages=2)),
    essa_job(GMAP_NOKEYS), essa_job(CLASSIC_NOKEYS), QUEUE_CLASSIC, PROBE_PAPER, essa_job(PAPER),
    *FIDELITY_JOBS,
    *(page_job(p) for p in all_profiles(pages=1)),
]  # fmt: skip
assert FULL_1 in GRAPH_JOBS
DEEP_JOBS = [
    *(essa_job(p, "Instruction") for p in SPEC_PROFILES),
    essa_job(EssaProfile("Paper2007", pages=2)),
    essa_job(EssaProfile("KVMGmap", facility147=True, cbrl_size=2, pages=2), "Queue"),
]
if DEEP:
    GRAPH_JOBS = DEEP_JOBS + GRAPH_JOBS


class TlcJobs:
    """TLC runs in the background, two at a time (the CI machine has two cores)."""

    def __init__(self, jar: Path, java: str) -> None:
        self.jar, self.java = jar, java
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tlc")
        self.futures: dict[Job, Future[TlcGraph[Any]]] = {}

    def submit(self, job: Job) -> Future[TlcGraph[Any]]:
        if job not in self.futures:
            self.futures[job] = self.pool.submit(
                tlc_state_graph, job.package, job.profile, jar=self.jar, java=self.java,
                overrides=dict(job.overrides), model=job.model,
            )  # fmt: skip
        return self.futures[job]

    def get(self, job: Job) -> TlcGraph[Any]:
        return self.submit(job).result()


@pytest.fixture(scope="session")
def tlc_jobs(request: pytest.FixtureRequest, tlc_jar: Path) -> Iterator[TlcJobs]:
    jobs = TlcJobs(tlc_jar, find_java())
    # Start every run a selected test of this module needs, in the order the tests run. Not
    # under pytest-xdist: a worker collects every test but runs only those it is handed (which
    # is decided as the run goes), so it would run the other workers' TLC jobs too (measured: the
    # first test waited 137 s); there each test starts its own run and the workers run side by side.
    in_xdist_worker = "PYTEST_XDIST_WORKER" in os.environ
    for item in [] if in_xdist_worker else request.session.items:
        callspec = getattr(item, "callspec", None)
        job = callspec.params.get("job") if callspec is not None else None
        if isinstance(job, Job):
            jobs.submit(job)
    yield jobs
    jobs.pool.shutdown(wait=True, cancel_futures=True)


def _fail(job: Job, what: str, message: str) -> None:
    pytest.fail(f"{job.id()} ({job.profile.describe()}): {what}:\n{message}",  # type: ignore[attr-defined]
                pytrace=False)  # fmt: skip


# --------------------------------------------------------------------------- equality


def expected_labels(job: Job) -> set[str]:
    """Every action occurs as a transition of the graph (not vacuous)."""
    if job.machine == PAGE_STATES.name:
        labels = set(rules.ACTIONS)
        if not job.profile.features.has_p:  # type: ignore[attr-defined]
            labels.discard("SetPotentialVolatile")
        return labels
    labels = set(ACTION_NAMES)
    if not job.profile.kvm:  # type: ignore[attr-defined]
        # the 2007 model queues nothing, migrates nothing, has no CMMA reset
        labels -= {"Migrate", "HostProcessCBRL", "HostResetCMMA"}
    if not job.profile.gmap:  # type: ignore[attr-defined]
        labels -= {"HostUnmapGmap", "HostAge"}  # only the new gmap has gmap PTEs
    if not job.profile.cmma_enabled:  # type: ignore[attr-defined]
        labels.discard("HostProcessCBRL")  # every ESSA refused: nothing is ever queued
    if job.profile.modern_guest:  # type: ignore[attr-defined]
        labels -= {"GuestMakeVolatile", "GuestMakeStable"}  # today's guest: ORC 0, 1, 2, 7
    if job.model == "Queue":
        labels &= QUEUE_ACTIONS
    if job.model in ("Probe", "Instruction"):
        labels.add(INSTRUCTION_LABEL)
    return labels


@pytest.mark.parametrize("job", GRAPH_JOBS, ids=Job.id)
def test_refimpl_state_graph_equals_tlc(job: Job, tlc_jobs: TlcJobs) -> None:
    spec = tlc_jobs.get(job).graph
    diff = job.compare(spec)
    if diff is not None:
        _fail(job, "the reference implementation is not the spec's machine", diff.message)
    labels = {label for out in spec.edges for label, _ in out}
    assert labels == expected_labels(job)
    if job.model in ("Probe", "Instruction"):
        orcs = {s.lastOp.orc for s in spec.states if s.lastOp.op == "ESSA"}
        assert orcs == set(ORC_CODES)
    if job.model == "Queue":
        assert max(len(s.cbrl) for s in spec.states) == 2
        assert any(len(set(s.cbrl)) == 2 for s in spec.states)
    minimum = 200 * job.profile.pages if job.machine == PAGE_STATES.name else 150  # type: ignore[attr-defined]
    assert len(spec.states) > minimum


def test_every_effect_table_row_decides_a_compared_step(tlc_jobs: TlcJobs) -> None:
    """Each row of each effect table is the first that holds for some ESSA from a state of a
    compared graph, so a change of any row changes a compared step (the probes try every ORC in
    every state)."""
    hit: dict[str, set[tuple[int, str]]] = {impl: set() for impl in essa_rules.EFFECT_TABLES}
    for job in (PROBE_PAPER, PROBE_CLASSIC, PROBE_GMAP, essa_job(CLASSIC_KEYS), essa_job(GMAP_KEYS)):
        profile: Any = job.profile
        table = essa_rules.EFFECT_TABLES[profile.impl]
        pages = {pg for s in tlc_jobs.get(job).graph.states for pg in s.pages}
        for pg in pages:
            for orc in ORC_CODES:
                if essa_rules.specification_exception(profile, orc):
                    continue
                for key in (orc, essa_rules.OTHER):
                    row = next((k for k in table if k[0] == key and essa_rules.CONDITIONS[k[1]](pg)),
                               None)  # fmt: skip
                    if row is not None:
                        hit[profile.impl].add(row)
                        break
    for impl, table in essa_rules.EFFECT_TABLES.items():
        # The KVM tables have rows for every ORC 0 .. 7, and 8 raises the specification
        # exception; the 2007 table lacks only ORC 7, which the 2007 machine refuses whatever
        # Facility147 says (D104): no OTHER arm is ever reached (in the spec neither).
        dead = {(essa_rules.OTHER, "any")}
        missing = sorted(set(table) - hit[impl] - dead)
        assert not missing, f"{impl}: rows that decide no step of a compared graph: {missing}"
        assert not hit[impl] & dead


# --------------------------------------------------------------------------- it bites: refimpl side


K = TypeVar("K")
V = TypeVar("V")


def _set(table: dict[K, V], key: K, value: V) -> Callable[[pytest.MonkeyPatch], None]:
    """Change one entry of a refimpl table, for the duration of a test."""
    return lambda mp: mp.setitem(table, key, value)


# (id, job whose TLC graph is compared, the one-entry change, text the report must contain)
REFIMPL_MUTANTS = [
    ("discard-dirty-P", FULL_1, _set(rules.DISCARDABLE, ("P", True), True),
     "only refimpl has the step HostDiscard 0"),
    ("unused-not-discardable", FULL_1, _set(rules.DISCARDABLE, ("U", False), False),
     "only refimpl has the step SetUnused 0 -> Done, to [page 0: Up"),
    ("SetVolatile-asks-for-P", FULL_1, _set(rules.PRIMITIVE_TARGET, "SetVolatile", "P"),
     "SetVolatile 0 -> Done"),
    ("Full-without-Vp", FULL_1, _set(profile_module.VARIANT_FEATURES, "Full",
                                     Features(True, False, True, True, False)),
     "only TLC has the step HostPreserve 0"),
    ("Classic-ORC6-stable-if-not-discarded", essa_job(CLASSIC_KEYS),
     _set(essa_rules.CLASSIC_EFFECT, (6, "any"), EffectEntry("S", KEEP, KEEP)),
     "only refimpl has the step GuestMakeStable 0 ORC 6 -> Done R1=0x0F (action GuestMakeStable), "
     "to [page 0: S Z data=0"),
    ("Gmap-ORC0-keeps-Z", essa_job(GMAP_NOKEYS),
     _set(essa_rules.GMAP_EFFECT, (0, "any"), EffectEntry(KEEP, KEEP, KEEP)),
     "only refimpl has the step GuestExtract 0 ORC 0 -> Done R1=0x"),
    ("Paper2007-reclaim-discards-dirty-P", essa_job(PAPER),
     _set(essa_rules.RECLAIM_PAPER2007, ("P", True), Reclaim("V", False)),
     "only refimpl has the step HostReclaim 0 -> Done"),
    ("Paper2007-discard-keeps-change-bit", essa_job(PAPER),
     lambda mp: mp.setattr(essa_rules, "DISCARD_RESETS_CHANGE_BIT", frozenset()),
     "only refimpl has the step HostReclaim 0 -> Done (action HostReclaim), to [page 0: U keyDirty "
     "data=0"),
    ("Paper2007-ORC5-not-resident", PROBE_PAPER,
     lambda mp: mp.setattr(essa_rules, "MAKES_RESIDENT", frozenset()),
     "only TLC has the step ESSA 0 ORC 5 -> Done"),
]  # fmt: skip


@pytest.mark.parametrize(("job", "mutate", "expect"), [m[1:] for m in REFIMPL_MUTANTS],
                         ids=[m[0] for m in REFIMPL_MUTANTS])  # fmt: skip
def test_changed_refimpl_table_entry_is_caught(
    job: Job,
    mutate: Callable[[pytest.MonkeyPatch], None],
    expect: str,
    tlc_jobs: TlcJobs,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = tlc_jobs.get(job).graph
    mutate(monkeypatch)
    diff = job.compare(spec)
    assert diff is not None, "a changed refimpl table entry went unnoticed"
    assert expect in diff.message, diff.message
    assert diff.edges_only_left + diff.edges_only_right > 0


# --------------------------------------------------------------------------- it bites: spec side

SPEC_TWINS = [
    (page_job(FULL_1_PROFILE, (("Discardable", "DiscardableIgnoringDirty"),)),
     "only TLC has the step HostDiscard 0"),
    (page_job(FULL_1_PROFILE, (("SSINDSucceeds", "SSINDAlwaysSucceeds"),)),
     "only TLC has the step SetStableIfNotDiscarded 0 -> Success"),
    (essa_job(PAPER, overrides=(("Paper2007Effect", "Paper2007EffectPOnZeroStaysP"),)),
     "only TLC has the step GuestMakePotentiallyVolatile 0 ORC 4 -> Done R1=0x03 (action "
     "GuestMakeVolatile), to [page 0: P data=0 | owed=0 believes P"),
    (essa_job(PAPER, overrides=(("SpecificationException", "SpecificationExceptionIgnoringFacility"),)),
     "only TLC has the step GuestSetStableNoDat 0 ORC 7 -> Done"),
]  # fmt: skip


@pytest.mark.parametrize(("job", "expect"), SPEC_TWINS, ids=[t[0].id() for t in SPEC_TWINS])
def test_changed_spec_operator_is_caught(job: Job, expect: str, tlc_jobs: TlcJobs) -> None:
    spec = tlc_jobs.get(job)
    assert "<-" in spec.cfg  # the override reached TLC
    diff = job.compare(spec.graph)
    assert diff is not None, "a changed spec operator went unnoticed"
    assert expect in diff.message, diff.message


# --------------------------------------------------------------------------- the difference report


def test_page_states_report_names_the_first_differing_step(tlc_jobs: TlcJobs) -> None:
    """The report gives the shortest path to the state whose steps differ, then the steps."""
    spec = tlc_jobs.get(FULL_1).graph
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(rules.DISCARDABLE, ("P", True), True)
        impl: StateGraph[Any] = FULL_1.refimpl_graph()
    diff = FULL_1.compare(spec, impl)
    assert diff is not None
    lines = diff.message.splitlines()
    assert lines[0].startswith("TLC and refimpl differ in the steps from a state reached by")
    # A dirty P page needs at least: a zero frame (Sz -> Sr), SetPotentialVolatile, a Write.
    path = [ln for ln in lines if ln.startswith("    ")]
    assert len(path) == 4, diff.message
    assert "Init" in path[0] and "Pr" in path[-1] and "dirty" in path[-1]
    assert any("only refimpl has the step HostDiscard 0 -> Done" in ln for ln in lines)
    assert lines[-1].startswith("TLC: 361 states")



def test_essa_report_names_the_first_differing_step(tlc_jobs: TlcJobs) -> None:
    """The report gives the shortest path to the state whose steps differ, then the steps."""
    job = essa_job(PAPER)
    spec = tlc_jobs.get(job).graph
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(essa_rules.RECLAIM_PAPER2007, ("P", True), Reclaim("V", False))
        impl = job.refimpl_graph()
    diff = job.compare(spec, impl)
    assert diff is not None
    lines = diff.message.splitlines()
    assert lines[0].startswith("TLC and refimpl differ in the steps from a state reached by")
    # A dirty, resident P page needs: a store (faults the page in), then ORC 4.
    path = [ln for ln in lines if ln.startswith("    ")]
    assert len(path) == 3, diff.message
    assert "Init" in path[0] and "GuestWrite 0 -> Done 1" in path[1]
    assert "GuestMakePotentiallyVolatile 0 ORC 4 -> Done R1=0x00" in path[2]
    assert "P valid keyDirty data=1" in path[2]
    assert any(ln.startswith("  only TLC has the step HostReclaim 0 -> Done") and "S swapped" in ln
               for ln in lines), diff.message  # fmt: skip
    assert any(ln.startswith("  only refimpl has the step HostReclaim 0 -> Done")
               and "(a state TLC does not have)" in ln for ln in lines), diff.message  # fmt: skip
    assert lines[-1].startswith(f"TLC: {len(spec.states)} states")


# --------------------------------------------------------------------------- incremental migration

MIGRATION_PROFILE = EssaProfile("KVMClassic", storage_keys=True, facility147=True, modern_guest=True)


def _migration_graph(tlc_jar: Path, overrides: dict[str, str] | None = None) -> StateGraph[Any]:
    return tlc_state_graph(MIGRATION, MIGRATION_PROFILE, jar=tlc_jar, java=find_java(),
                           overrides=overrides or {}, model="Spec").graph  # fmt: skip


def test_refimpl_migration_state_graph_equals_tlc(tlc_jar: Path) -> None:
    """refimpl.essa.migration is spec/ESSAMigration.tla's machine: the same states and steps,
    every migration step taken, and migration's dirty bitmap exercised."""
    spec = _migration_graph(tlc_jar)
    diff = compare(spec, MIGRATION.state_graph(MIGRATION_PROFILE, "Spec"), MIGRATION.show)
    assert diff is None, diff.message
    labels = {label for out in spec.edges for label, _ in out}
    assert labels == {"Tracked", "MigrationStart", "MigrationSend", "MigrationSwitch"}
    # an ESSA during migration set the bit of a page a round had cleared
    assert any(s.migrating and s.cmmaDirty[0] and s.essa.lastOp.op == "GuestAlloc"
               for s in spec.states)  # fmt: skip


def test_changed_dirty_marking_is_caught(tlc_jar: Path) -> None:
    """The twin __do_essa (marks only on a queued discard) is another machine."""
    spec = _migration_graph(tlc_jar, {"DirtyMark": "DirtyMarkOnlyOnQueue"})
    assert compare(spec, MIGRATION.state_graph(MIGRATION_PROFILE, "Spec"), MIGRATION.show) is not None
