"""The reference implementation is the spec's machine: exhaustive equality of state graphs.

For every profile the spec's ASSUMEs allow (each Variant, each HostService, each UnusedAccess),
TLC dumps the full state graph of tests/fixtures/graph/MCGraph.tla (no symmetry, Values {0, 1})
with ``-dump dot,actionlabels``; the test explores the refimpl from the same initial state and
requires the same states and the same (state, action, state) edges. One page for every profile,
two pages for the full machine and the z/VM prototype.

And it bites: a one-line change to either side makes the comparison fail, naming the first
differing step.
  * refimpl side: one entry of a table in refimpl.rules / refimpl.profile is changed (pytest's
    monkeypatch) and a fresh Machine is compared with TLC's graph of the correct spec;
  * spec side: TLC runs the same model with a .cfg definition override of one decision operator
    (``Discardable <- DiscardableIgnoringDirty``, ``SSINDSucceeds <- SSINDAlwaysSucceeds``, the
    twins defined in MCGraph.tla) and its graph is compared with the correct refimpl.
By hand: ``python -m refimpl equal`` prints the comparison per profile as a table.

TLC's JVM start dominates the one-page runs, so every TLC run the selected tests need is started
when the first of them asks, two at a time in the background, the largest first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple, TypeVar

import pytest

from refimpl import profile as profile_module
from refimpl import rules
from refimpl.graph import StateGraph, compare, reachable_graph
from refimpl.machine import Machine
from refimpl.profile import Features, Profile, all_profiles
from refimpl.tlcgraph import TlcGraph, tlc_state_graph
from tlcrunner.run import find_java


class Job(NamedTuple):
    """One TLC run: a profile, and the definition overrides of a spec twin (if any)."""

    profile: Profile
    overrides: tuple[tuple[str, str], ...] = ()

    def id(self) -> str:
        p = self.profile
        name = (
            f"{p.variant}-{'hs' if p.host_service else 'direct'}-"
            f"{'AE' if p.unused_access == 'AddressingException' else 'RZ'}-{p.pages}p"
        )
        return name + "".join(f"-{a}<-{b}" for a, b in self.overrides)


# The largest first: their TLC runs start first.
GRAPH_JOBS = [
    Job(Profile("Full", True, "AddressingException", pages=2)),
    Job(Profile("ZVMPrototype", True, "AddressingException", pages=2)),
    *(Job(p) for p in all_profiles(pages=1)),
]
FULL_1 = Job(Profile("Full", True, "AddressingException", pages=1))
assert FULL_1 in GRAPH_JOBS


class TlcJobs:
    """TLC runs in the background, two at a time (the CI machine has two cores)."""

    def __init__(self, jar: Path, java: str) -> None:
        self.jar, self.java = jar, java
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tlc")
        self.futures: dict[Job, Future[TlcGraph]] = {}

    def submit(self, job: Job) -> Future[TlcGraph]:
        if job not in self.futures:
            self.futures[job] = self.pool.submit(
                tlc_state_graph, job.profile, jar=self.jar, java=self.java,
                overrides=dict(job.overrides),
            )  # fmt: skip
        return self.futures[job]

    def get(self, job: Job) -> TlcGraph:
        return self.submit(job).result()


@pytest.fixture(scope="session")
def tlc_jobs(request: pytest.FixtureRequest, tlc_jar: Path) -> Iterator[TlcJobs]:
    jobs = TlcJobs(tlc_jar, find_java())
    # Start every run a selected test of this module needs, in the order the tests run.
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        job = callspec.params.get("job") if callspec is not None else None
        if isinstance(job, Job):
            jobs.submit(job)
    yield jobs
    jobs.pool.shutdown(wait=True, cancel_futures=True)


def _fail(job: Job, what: str, message: str) -> None:
    pytest.fail(f"{job.profile.describe()}: {what}:\n{message}", pytrace=False)


# --------------------------------------------------------------------------- equality


@pytest.mark.parametrize("job", GRAPH_JOBS, ids=Job.id)
def test_refimpl_state_graph_equals_tlc(job: Job, tlc_jobs: TlcJobs) -> None:
    spec = tlc_jobs.get(job).graph
    impl = reachable_graph(Machine(job.profile))
    diff = compare(spec, impl)
    if diff is not None:
        _fail(job, "the reference implementation is not the spec's machine", diff.message)
    # Not vacuous: every operation occurs as a transition, and the graph is not trivial.
    labels = {label for out in spec.edges for label, _ in out}
    expected = set(rules.ACTIONS)
    if not job.profile.features.has_p:
        expected.discard("SetPotentialVolatile")
    assert labels == expected
    assert len(spec.states) > 200 * job.profile.pages


# --------------------------------------------------------------------------- it bites: refimpl side


K = TypeVar("K")
V = TypeVar("V")


def _set(table: dict[K, V], key: K, value: V) -> Callable[[pytest.MonkeyPatch], None]:
    """Change one entry of a refimpl table, for the duration of a test."""
    return lambda mp: mp.setitem(table, key, value)


# (id, the one-entry change, text the difference report must contain)
REFIMPL_MUTANTS = [
    ("discard-dirty-P", _set(rules.DISCARDABLE, ("P", True), True),
     "only refimpl has the step HostDiscard 0"),
    ("unused-not-discardable", _set(rules.DISCARDABLE, ("U", False), False),
     "only refimpl has the step SetUnused 0 -> Done, to [page 0: Up"),
    ("SetVolatile-asks-for-P", _set(rules.PRIMITIVE_TARGET, "SetVolatile", "P"),
     "SetVolatile 0 -> Done"),
    ("Full-without-Vp", _set(profile_module.VARIANT_FEATURES, "Full",
                             Features(True, False, True, True, False)),
     "only TLC has the step HostPreserve 0"),
]  # fmt: skip


@pytest.mark.parametrize("job", [FULL_1], ids=Job.id)
@pytest.mark.parametrize(("mutate", "expect"), [m[1:] for m in REFIMPL_MUTANTS],
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
    diff = compare(spec, reachable_graph(Machine(job.profile)))
    assert diff is not None, "a changed refimpl rule went unnoticed"
    assert expect in diff.message, diff.message
    assert diff.edges_only_left + diff.edges_only_right > 0


# --------------------------------------------------------------------------- it bites: spec side

SPEC_TWINS = [
    (Job(FULL_1.profile, (("Discardable", "DiscardableIgnoringDirty"),)),
     "only TLC has the step HostDiscard 0"),
    (Job(FULL_1.profile, (("SSINDSucceeds", "SSINDAlwaysSucceeds"),)),
     "only TLC has the step SetStableIfNotDiscarded 0 -> Success"),
]  # fmt: skip


@pytest.mark.parametrize(("job", "expect"), SPEC_TWINS, ids=[t[0].id() for t in SPEC_TWINS])
def test_changed_spec_operator_is_caught(job: Job, expect: str, tlc_jobs: TlcJobs) -> None:
    spec = tlc_jobs.get(job)
    assert "<-" in spec.cfg  # the override reached TLC
    diff = compare(spec.graph, reachable_graph(Machine(job.profile)))
    assert diff is not None, "a changed spec operator went unnoticed"
    assert expect in diff.message, diff.message


def test_difference_report_names_the_first_differing_step(tlc_jobs: TlcJobs) -> None:
    """The report gives the shortest path to the state whose steps differ, then the steps."""
    spec = tlc_jobs.get(FULL_1).graph
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(rules.DISCARDABLE, ("P", True), True)
        impl: StateGraph = reachable_graph(Machine(FULL_1.profile))
    diff = compare(spec, impl)
    assert diff is not None
    lines = diff.message.splitlines()
    assert lines[0].startswith("TLC and refimpl differ in the steps from a state reached by")
    # A dirty P page needs at least: a zero frame (Sz -> Sr), SetPotentialVolatile, a Write.
    path = [ln for ln in lines if ln.startswith("    ")]
    assert len(path) == 4, diff.message
    assert "Init" in path[0] and "Pr" in path[-1] and "dirty" in path[-1]
    assert any("only refimpl has the step HostDiscard 0 -> Done" in ln for ln in lines)
    assert lines[-1].startswith("TLC: 317 states")
