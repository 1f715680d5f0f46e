"""The reference implementation of spec/ESSA.tla is the spec's machine: equal state graphs.

For each Impl (and, for the two KVMs, with and without storage keys) TLC dumps the full state
graph of tests/fixtures/graph/MCEssaGraph.tla (no symmetry, one page, a CBRL of one) with
``-dump dot,actionlabels``; the test explores refimpl.essa from the same initial state and
requires the same states and the same (state, action, state) edges. Beyond the spec's Next:
  * "Probe" models probe every state of Spec with the bare instruction, every ORC 0 .. 8 on
    every page (refimpl.essa.essa, the entry point of a conformance harness), which reaches the
    codes the guest of Next never issues (ORC 5 everywhere, ORC 7 without facility 147 on KVM);
  * a "Queue" model has two pages and a CBRL of two, with the steps that fill and empty the list
    and migrate, so the order of the list and the migration of several pages are compared too.
``REFIMPL_ESSA_DEEP=1`` adds the instruction as a step of its own (InstructionSpec, up to 15,000
states), the 2007 model on two pages, and the queue model of the new gmap.

And it bites: a one-entry change of a refimpl table (monkeypatch), or a one-line change of a spec
operator (a twin in MCEssaGraph.tla, put in by the .cfg's ``<-``), makes the comparison fail and
name the first differing step with the path to it.

TLC's JVM start dominates, so every TLC run the selected tests need is started when the first of
them asks, two at a time in the background, the largest first.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple, TypeVar

import pytest

from refimpl import essa_rules as rules
from refimpl.essa import ACTION_NAMES, ORC_CODES, init
from refimpl.essa_graph import (
    GRAPH_MODELS, INSTRUCTION_LABEL, QUEUE_ACTIONS, EssaGraph, compare, reachable_graph,
)  # fmt: skip
from refimpl.essa_rules import KEEP, EffectEntry, Reclaim
from refimpl.essa_state import EssaProfile
from refimpl.essa_tlcgraph import TlcEssaGraph, tlc_essa_graph
from tlcrunner.run import find_java

DEEP = os.environ.get("REFIMPL_ESSA_DEEP", "") not in ("", "0")


class Job(NamedTuple):
    """One TLC run: a profile, a graph model, and the overrides of a spec twin (if any)."""

    profile: EssaProfile
    model: str = "Spec"
    overrides: tuple[tuple[str, str], ...] = ()

    def id(self) -> str:
        p = self.profile
        name = (
            f"{self.model}-{p.impl}-{'keys' if p.storage_keys else 'nokeys'}-"
            f"{'f147' if p.facility147 else 'nof147'}-cbrl{p.cbrl_size}-{p.pages}p"
        )
        return name + "".join(f"-{a}<-{b}" for a, b in self.overrides)


PAPER = EssaProfile("Paper2007")
CLASSIC_KEYS = EssaProfile("KVMClassic", storage_keys=True, facility147=True)
CLASSIC_NOKEYS = EssaProfile("KVMClassic", storage_keys=False, facility147=True)
GMAP_KEYS = EssaProfile("KVMGmap", storage_keys=True, facility147=True)
GMAP_NOKEYS = EssaProfile("KVMGmap", storage_keys=False, facility147=True)
SPEC_PROFILES = [PAPER, CLASSIC_KEYS, CLASSIC_NOKEYS, GMAP_KEYS, GMAP_NOKEYS]

PROBE_PAPER = Job(EssaProfile("Paper2007", facility147=True), "Probe")
PROBE_CLASSIC = Job(EssaProfile("KVMClassic", storage_keys=True), "Probe")
PROBE_GMAP = Job(EssaProfile("KVMGmap"), "Probe")
QUEUE_CLASSIC = Job(EssaProfile("KVMClassic", facility147=True, cbrl_size=2, pages=2), "Queue")

# The largest first: their TLC runs start first.
GRAPH_JOBS = [
    Job(GMAP_KEYS), Job(CLASSIC_KEYS), PROBE_CLASSIC, PROBE_GMAP, Job(GMAP_NOKEYS),
    Job(CLASSIC_NOKEYS), QUEUE_CLASSIC, PROBE_PAPER, Job(PAPER),
]  # fmt: skip
DEEP_JOBS = [
    *(Job(p, "Instruction") for p in SPEC_PROFILES),
    Job(EssaProfile("Paper2007", pages=2)),
    Job(EssaProfile("KVMGmap", facility147=True, cbrl_size=2, pages=2), "Queue"),
]
if DEEP:
    GRAPH_JOBS = DEEP_JOBS + GRAPH_JOBS


class TlcJobs:
    """TLC runs in the background, two at a time (the CI machine has two cores)."""

    def __init__(self, jar: Path, java: str) -> None:
        self.jar, self.java = jar, java
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tlc-essa")
        self.futures: dict[Job, Future[TlcEssaGraph]] = {}

    def submit(self, job: Job) -> Future[TlcEssaGraph]:
        if job not in self.futures:
            self.futures[job] = self.pool.submit(
                tlc_essa_graph, job.profile, jar=self.jar, java=self.java,
                overrides=dict(job.overrides), model=job.model,
            )  # fmt: skip
        return self.futures[job]

    def get(self, job: Job) -> TlcEssaGraph:
        return self.submit(job).result()


@pytest.fixture(scope="session")
def essa_tlc_jobs(request: pytest.FixtureRequest, tlc_jar: Path) -> Iterator[TlcJobs]:
    jobs = TlcJobs(tlc_jar, find_java())
    # Start every run a selected test of this module needs, in the order the tests run.
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        job = callspec.params.get("job") if callspec is not None else None
        if isinstance(job, Job):
            jobs.submit(job)
    yield jobs
    jobs.pool.shutdown(wait=True, cancel_futures=True)


def refimpl_graph(job: Job) -> EssaGraph:
    return reachable_graph(job.profile, init(job.profile), GRAPH_MODELS[job.model].successors)


def _fail(job: Job, what: str, message: str) -> None:
    pytest.fail(f"{job.id()} ({job.profile.describe()}): {what}:\n{message}", pytrace=False)


# --------------------------------------------------------------------------- equality


def expected_labels(job: Job) -> set[str]:
    labels = set(ACTION_NAMES)
    if not job.profile.kvm:
        labels.discard("Migrate")
        labels.discard("HostProcessCBRL")  # the 2007 model queues nothing
    if job.model == "Queue":
        labels &= QUEUE_ACTIONS
    if job.model in ("Probe", "Instruction"):
        labels.add(INSTRUCTION_LABEL)
    return labels


@pytest.mark.parametrize("job", GRAPH_JOBS, ids=Job.id)
def test_refimpl_essa_graph_equals_tlc(job: Job, essa_tlc_jobs: TlcJobs) -> None:
    spec = essa_tlc_jobs.get(job).graph
    diff = compare(spec, refimpl_graph(job))
    if diff is not None:
        _fail(job, "the reference implementation is not the spec's machine", diff.message)
    # Not vacuous: every action occurs, the instruction with every ORC, and the graph is large.
    labels = {label for out in spec.edges for label, _ in out}
    assert labels == expected_labels(job)
    if job.model in ("Probe", "Instruction"):
        orcs = {s.lastOp.orc for s in spec.states if s.lastOp.op == "ESSA"}
        assert orcs == set(ORC_CODES)
    if job.model == "Queue":
        assert max(len(s.cbrl) for s in spec.states) == 2
        assert any(len(set(s.cbrl)) == 2 for s in spec.states)
    assert len(spec.states) > 150


def test_every_effect_table_row_decides_a_compared_step(essa_tlc_jobs: TlcJobs) -> None:
    """Each row of each effect table is the first that holds for some ESSA from a state of a
    compared graph, so a change of any row changes a compared step (the probes try every ORC in
    every state)."""
    hit: dict[str, set[tuple[int, str]]] = {impl: set() for impl in rules.EFFECT_TABLES}
    for job in (PROBE_PAPER, PROBE_CLASSIC, PROBE_GMAP, Job(CLASSIC_KEYS), Job(GMAP_KEYS)):
        profile = job.profile
        table = rules.EFFECT_TABLES[profile.impl]
        pages = {pg for s in essa_tlc_jobs.get(job).graph.states for pg in s.pages}
        for pg in pages:
            for orc in ORC_CODES:
                if rules.specification_exception(profile, orc):
                    continue
                for key in (orc, rules.OTHER):
                    row = next((k for k in table if k[0] == key and rules.CONDITIONS[k[1]](pg)),
                               None)  # fmt: skip
                    if row is not None:
                        hit[profile.impl].add(row)
                        break
    for impl, table in rules.EFFECT_TABLES.items():
        # The KVM tables have rows for every ORC 0 .. 7, and 8 raises the specification
        # exception: their OTHER arm is never reached (in the spec neither).
        dead = {(rules.OTHER, "any")} if impl != "Paper2007" else set()
        missing = sorted(set(table) - hit[impl] - dead)
        assert not missing, f"{impl}: rows that decide no step of a compared graph: {missing}"
        assert not hit[impl] & dead


# --------------------------------------------------------------------------- it bites: refimpl side


K = TypeVar("K")
V = TypeVar("V")


def _set_entry(table: dict[K, V], key: K, value: V) -> Callable[[pytest.MonkeyPatch], None]:
    """Change one entry of a refimpl table, for the duration of a test."""
    return lambda mp: mp.setitem(table, key, value)


# (id, job whose TLC graph is compared, the one-entry change, text the report must contain)
REFIMPL_MUTANTS = [
    ("Classic-ORC6-stable-if-not-discarded", Job(CLASSIC_KEYS),
     _set_entry(rules.CLASSIC_EFFECT, (6, "any"), EffectEntry("S", KEEP, KEEP)),
     "only refimpl has the step GuestMakeStable 0 ORC 6 -> Done R1=0x0F (action GuestMakeStable), "
     "to [page 0: S Z data=0"),
    ("Gmap-ORC0-keeps-Z", Job(GMAP_NOKEYS),
     _set_entry(rules.GMAP_EFFECT, (0, "any"), EffectEntry(KEEP, KEEP, KEEP)),
     "only refimpl has the step GuestExtract 0 ORC 0 -> Done R1=0x"),
    ("Paper2007-reclaim-discards-dirty-P", Job(PAPER),
     _set_entry(rules.RECLAIM_PAPER2007, ("P", True), Reclaim("V", False)),
     "only refimpl has the step HostReclaim 0 -> Done"),
    ("Paper2007-ORC5-not-resident", PROBE_PAPER,
     lambda mp: mp.setattr(rules, "MAKES_RESIDENT", frozenset()),
     "only TLC has the step ESSA 0 ORC 5 -> Done"),
]  # fmt: skip


@pytest.mark.parametrize(("job", "mutate", "expect"), [m[1:] for m in REFIMPL_MUTANTS],
                         ids=[m[0] for m in REFIMPL_MUTANTS])  # fmt: skip
def test_changed_refimpl_table_entry_is_caught(
    job: Job,
    mutate: Callable[[pytest.MonkeyPatch], None],
    expect: str,
    essa_tlc_jobs: TlcJobs,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = essa_tlc_jobs.get(job).graph
    mutate(monkeypatch)
    diff = compare(spec, refimpl_graph(job))
    assert diff is not None, "a changed refimpl table entry went unnoticed"
    assert expect in diff.message, diff.message
    assert diff.edges_only_left + diff.edges_only_right > 0


# --------------------------------------------------------------------------- it bites: spec side

SPEC_TWINS = [
    (Job(PAPER, overrides=(("Paper2007Effect", "Paper2007EffectPOnZeroStaysP"),)),
     "only TLC has the step GuestMakePotentiallyVolatile 0 ORC 4 -> Done R1=0x03 (action "
     "GuestMakeVolatile), to [page 0: P data=0 | owed=0 believes P"),
    (Job(PAPER, overrides=(("SpecificationException", "SpecificationExceptionIgnoringFacility"),)),
     "only TLC has the step GuestSetStableNoDat 0 ORC 7 -> Done"),
]  # fmt: skip


@pytest.mark.parametrize(("job", "expect"), SPEC_TWINS, ids=[t[0].id() for t in SPEC_TWINS])
def test_changed_spec_operator_is_caught(job: Job, expect: str, essa_tlc_jobs: TlcJobs) -> None:
    spec = essa_tlc_jobs.get(job)
    assert "<-" in spec.cfg  # the override reached TLC
    diff = compare(spec.graph, refimpl_graph(job))
    assert diff is not None, "a changed spec operator went unnoticed"
    assert expect in diff.message, diff.message


def test_difference_report_names_the_first_differing_step(essa_tlc_jobs: TlcJobs) -> None:
    """The report gives the shortest path to the state whose steps differ, then the steps."""
    job = Job(PAPER)
    spec = essa_tlc_jobs.get(job).graph
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(rules.RECLAIM_PAPER2007, ("P", True), Reclaim("V", False))
        impl = refimpl_graph(job)
    diff = compare(spec, impl)
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
