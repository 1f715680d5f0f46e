"""The search of ``run``: coverage tours of the reference's reachable graph, and a swarm walk.

A machine that can name its state graph (``coverage_groups``; the ESSA mode does) gets
:func:`coverage_graph`: the reference implementation's reachable graph, enumerated from the
initial state in groups (each a set of requests and a depth bound: the whole machine on every
page near the reset, the one-page machine of each page index to its end), and :func:`cover`:
walks from the reset that together take every edge (state, request) of that graph, refused
requests included (greedy: the next edge not taken from the state reached, else the shortest way
to the nearest state that has one; a walk ends at a length bound or where no such state is
reachable, and the next starts from a reset). A bug confined to one page index, or to a pair of
pages within the depth bound, is then reached by construction, whatever the random phases draw.

:func:`run_swarm` is the random phase, sized in steps: long programs (hundreds of steps) from
the reset, each over a few request kinds it leans on (swarm testing: Groce et al., ISSTA 2012),
with requests that are refused in every state of the graph drawn rarely. A divergence of either
is shrunk: first to the shortest path of the graph to the state before the failing step plus
that step, then by delta debugging (:func:`conformance.driver.shrink`).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import random
import shutil
import sys
import time
from pathlib import Path
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from .driver import (
    Divergence, Drive, DriverMachine, Fault, NOT_REPRODUCED, Outcome, _failure, _fails, _outcome, minimise,
    shrink,
)  # fmt: skip

#: The longest walk of a tour: a divergence late in a walk is shrunk from at most this.
WALK_LENGTH: Final = 400


@dataclass(frozen=True)
class Group:
    """Part of the graph to cover: every state reachable from the reset by ``requests`` within
    ``depth`` steps (None: all of them), each followed by each of ``requests``."""

    name: str
    requests: tuple[Any, ...]
    depth: int | None = None


@dataclass
class Graph:
    """The reference's graph, as far as it was enumerated: states by index (0 the initial one),
    a shortest program to each, and the successor of each enumerated edge (a refused request
    is an edge back to its state)."""

    requests: list[Any] = field(default_factory=list)
    states: list[Any] = field(default_factory=list)
    #: index of the request in :attr:`requests`, per (state, request) edge: the target state
    succ: dict[tuple[int, int], int] = field(default_factory=dict)
    #: the edges to cover, in the order of the groups (the first groups' first)
    edges: list[tuple[int, int]] = field(default_factory=list)
    #: a shortest way to each state: (previous state, request index); (-1, -1) for the initial
    parent: list[tuple[int, int]] = field(default_factory=list)
    #: requests refused in every state enumerated
    always_refused: frozenset[Any] = frozenset()
    #: states per group, for the reports
    sizes: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: whether every group was enumerated to its depth (not cut by a bound on the edges)
    complete: bool = True

    def path(self, state: int) -> list[Any]:
        """A shortest program from the reset to ``state``."""
        out = []
        while state > 0:
            state, r = self.parent[state]
            out.append(self.requests[r])
        return out[::-1]


def coverage_graph(machine: Any, profile: Any, groups: Sequence[Group],
                   key: Callable[[Any], Hashable] = lambda s: s,
                   refused: Callable[[Any], bool] = lambda reply: False,
                   max_edges: int | None = None) -> Graph:  # fmt: skip
    """Enumerate ``groups`` of the reference's graph breadth first (``machine.oracle``); ``key``
    is what identifies a state (not what a reply leaves out), ``refused`` whether a reply is a
    refusal (kept out of :attr:`Graph.always_refused` otherwise). The groups are enumerated
    level by level together, and with ``max_edges`` the enumeration stops at that many edges:
    the edges nearest the reset of every group are the ones kept."""
    start = time.monotonic()
    g = Graph()
    req_index: dict[Any, int] = {}
    index: dict[Hashable, int] = {}
    accepted: set[int] = set()
    seen_edges: set[tuple[int, int]] = set()

    def state_index(s: Any, parent: tuple[int, int]) -> int:
        k = key(s)
        i = index.get(k)
        if i is None:
            i = index[k] = len(g.states)
            g.states.append(s)
            g.parent.append(parent)
        return i

    init = machine.init(profile)
    state_index(init, (-1, -1))
    plan = []  # per group: its request indices, its depth of each state, its frontier
    for grp in groups:
        reqs = []
        for r in grp.requests:
            if r not in req_index:
                req_index[r] = len(g.requests)
                g.requests.append(r)
            reqs.append(req_index[r])
        plan.append((grp, reqs, {0: 0}, [0]))
    level = 0
    full = False
    while not full and any(frontier for *_, frontier in plan):
        # one level of every group, so that a bound on the edges keeps the shallow ones of each
        for n, (grp, reqs, depth, frontier) in enumerate(plan):
            nxt: list[int] = []
            for i in frontier:
                if max_edges is not None and len(g.edges) >= max_edges:
                    full = True
                    break
                s = g.states[i]
                for ri in reqs:
                    e = (i, ri)
                    if e not in seen_edges:
                        seen_edges.add(e)
                        g.edges.append(e)
                    t = g.succ.get(e)
                    if t is None:
                        after, reply = machine.oracle(profile, s, g.requests[ri])
                        if not refused(reply):
                            accepted.add(ri)
                        t = g.succ[e] = state_index(after, e)
                    if t not in depth:
                        depth[t] = level + 1
                        if grp.depth is None or level + 1 < grp.depth:
                            nxt.append(t)
            plan[n] = (grp, reqs, depth, nxt)
        level += 1
    g.complete = not full
    for grp, _, depth, _ in plan:
        g.sizes[grp.name] = len(depth)
    g.always_refused = frozenset(r for i, r in enumerate(g.requests) if i not in accepted)
    g.seconds = time.monotonic() - start
    return g


def cover(g: Graph, limit: int | None = None, length: int = WALK_LENGTH) -> list[list[int]]:
    """Walks from the reset (as request indices) that together take every edge of
    :attr:`Graph.edges` (the first ``limit`` of them, if given). Greedy: from the state reached,
    an edge not yet taken if it has one, else the shortest way over enumerated edges to the
    nearest state that has one; a walk ends after ``length`` steps or where no such state is
    reachable (then the next starts from the reset)."""
    todo = g.edges if limit is None else g.edges[:limit]
    out_todo: dict[int, list[int]] = {}
    for s, r in reversed(todo):
        out_todo.setdefault(s, []).append(r)  # popped from the end: the groups' order
    left = len(todo)
    adj: dict[int, list[tuple[int, int]]] = {}
    for (s, r), t in g.succ.items():
        if t != s:
            adj.setdefault(s, []).append((r, t))
    walks: list[list[int]] = []

    def take(s: int, r: int) -> int:
        nonlocal left
        rs = out_todo.get(s)
        if rs is not None and r in rs:
            rs.remove(r)
            left -= 1
            if not rs:
                del out_todo[s]
        return g.succ[(s, r)]

    #: states from which no state with an edge left is reachable (for good: edges are only
    #: ever taken)
    dead: set[int] = set()

    def nearest(s: int) -> list[tuple[int, int]] | None:
        """The shortest way (edges) from ``s`` to a state with an edge left: the first such
        state the breadth-first search meets. It is tested as it is queued, which finds the
        state a test as it leaves the queue would (the queue keeps the order states enter it)
        without expanding the states queued before it."""
        if s in dead:
            return None
        if s in out_todo:
            return []
        back: dict[int, tuple[int, int]] = {s: (-1, -1)}
        queue: deque[int] = deque([s])
        popleft, push, adjacent = queue.popleft, queue.append, adj.get
        while queue:
            u = popleft()
            for r, t in adjacent(u, ()):
                if t not in back and t not in dead:
                    back[t] = (u, r)
                    if t in out_todo:
                        way = []
                        while t != s:
                            p, q = back[t]
                            way.append((p, q))
                            t = p
                        return way[::-1]
                    push(t)
        dead.update(back)
        return None

    while left:
        s, walk = 0, list[int]()
        while left and len(walk) < length:
            rs = out_todo.get(s)
            if rs:
                r = rs[-1]
                walk.append(r)
                s = take(s, r)
                continue
            way = nearest(s)
            if way is None:
                break
            for p, r in way[: length - len(walk)]:
                walk.append(r)
                s = take(p, r)
        if not walk:  # nothing reachable from the reset is left (cannot happen: every
            break     # enumerated state was reached from it)
        walks.append(walk)
    return walks


def _shrunk(drive: Drive[Any, Any, Any, Any], err: Divergence, graph: Graph | None,
            key: Callable[[Any], Hashable]) -> Divergence | None:  # fmt: skip
    """``err`` shrunk: to the graph's shortest path to the state before its last step, plus
    that step, when that diverges the same way; then by delta debugging. None when it does not
    reproduce."""
    same = _failure(err)
    last = err.steps[-1]
    if graph is not None:
        index = {key(s): i for i, s in enumerate(graph.states)}
        i = index.get(key(last.before))
        if i is not None:
            program = [*graph.path(i), last.request]
            if len(program) < len(err.steps) and _fails(drive, program, same):
                return _fails(drive, shrink(drive, program, same), same)
    return minimise(drive, err)


def run_cover(drive: Drive[Any, Any, Any, Any], graph: Graph, walks: Sequence[Sequence[int]],
              key: Callable[[Any], Hashable] = lambda s: s) -> Outcome:  # fmt: skip
    """The tour: each walk from a reset (pipelined over JSON lines, as the fixed tours are)."""
    start, steps0 = time.monotonic(), drive.total_steps
    programs = ((f"coverage walk {n + 1}", [graph.requests[r] for r in w])
                for n, w in enumerate(walks))
    edges = sum(len(w) for w in walks)
    try:
        for _ in drive.run_all(programs):
            pass
    except Fault as err:
        return _outcome(drive, "cover", start, steps0, "fault", error=err, note=drive.label)
    except Divergence as err:
        try:
            smaller = _shrunk(drive, err, graph, key)
        except Fault as fault:
            return _outcome(drive, "cover", start, steps0, "fault", error=fault)
        return _outcome(drive, "cover", start, steps0, "diverged", error=smaller or err,
                        note=f"found by {drive.label}, shrunk" if smaller else NOT_REPRODUCED)
    return _outcome(drive, "cover", start, steps0, "passed",
                    note=f"{len(walks)} walks of {edges} steps", edges=len(graph.edges),
                    whole=graph.complete)  # fmt: skip


def _constant(profile: Any, name: str) -> Any:
    """A constant of a profile, or of the profile a connection wraps (PageStates' Connected)."""
    value = getattr(profile, name, None)
    return value if value is not None else getattr(getattr(profile, "profile", None), name, None)


def _sizes(values: set[Any]) -> str:
    shown = sorted(v for v in values if v is not None)
    return "-" if not shown else str(shown[0]) if len(shown) == 1 else ", ".join(map(str, shown))


def scope(profiles: Sequence[Any], outcomes: Sequence[Outcome] = (),
          more: str | None = None, also: str = "",
          folded: Sequence[Any] = ()) -> str:  # fmt: skip
    """What a verdict covered, for a summary line (so that a pass is not read as more): the
    profiles, their pages and CBRL sizes, the reference graph's transitions the coverage tours
    took (whole graphs, to the budget's depth, and quick tours' shallow ones), and the options
    that reach further (``more``; by default run's: a third page, a third CBRL slot; ``also``
    added to them: a mode that asks an engine only when it announces it).
    ``folded``: profiles run as one of ``profiles`` (:func:`fold_profiles`)."""
    ran = list({id(p): p for p in profiles}.values())
    # a folded profile's pages and CBRL size are covered by its stand-in's graph, its own
    pages = {_constant(p, "pages") for p in [*ran, *folded]}
    slots = {_constant(p, "cbrl_size") for p in [*ran, *folded]}
    if more is None:
        more = ", ".join([f"--pages {max((n for n in pages if n), default=2) + 1}",
                          *([f"--cbrl-size {max(n for n in slots if n) + 1}"]
                            if any(slots) else []), "--profile thorough"])  # fmt: skip
    text = (f"scope: {len(ran)} profile{'s' if len(ran) != 1 else ''}"
            + (f" run (and {len(folded)} folded into them)" if folded else "")
            + f", pages {_sizes(pages)}"
            + (f", CBRL sizes {_sizes(slots)}" if any(slots) else ""))  # fmt: skip
    best: dict[int, Outcome] = {}
    for o in outcomes:
        if o.edges is not None and o.passed:
            b = best.get(id(o.profile))
            if b is None or (o.whole, o.edges) > (b.whole, b.edges or 0):
                best[id(o.profile)] = o
    if best:
        whole = [o for o in best.values() if o.whole and o.drive == "cover"]
        text += (f", {sum(o.edges or 0 for o in best.values()):,} transitions of the reference "
                 f"graphs covered ({len(whole)} of {len(ran)} profiles' graphs whole to the "
                 f"budget's depth, {len(best) - len(whole)} by a quick tour only)")  # fmt: skip
    more = ", ".join(x for x in (more, also) if x)
    return text + (f"; more: {more}" if more else "")


def swarm_programs(requests: Sequence[Any], kind: Callable[[Any], Hashable], steps: int,
                   *, seed: int = 0, length: int = 300,
                   rare: frozenset[Any] = frozenset()) -> list[list[Any]]:  # fmt: skip
    """``steps`` requests in programs of about ``length``: each program draws a few request
    kinds (``kind``: what a request is without its page) and takes nine requests in ten among
    them, the tenth from all; a request of ``rare`` (refused in every state: it tests only the
    refusal) one in two hundred."""
    rng = random.Random(seed)
    common = [r for r in requests if r not in rare]
    rare_list = [r for r in requests if r in rare]
    kinds: dict[Hashable, list[Any]] = {}
    for r in common:
        kinds.setdefault(kind(r), []).append(r)
    names = list(kinds)
    out: list[list[Any]] = []
    done = 0
    while done < steps and common:
        n = min(steps - done, rng.randint(length // 2, length * 3 // 2))
        alphabet = [r for k in rng.sample(names, min(len(names), rng.randint(2, 6)))
                    for r in kinds[k]]  # fmt: skip
        program = []
        for _ in range(n):
            x = rng.random()
            if rare_list and x < 0.005:
                program.append(rng.choice(rare_list))
            elif x < 0.1:
                program.append(rng.choice(common))
            else:
                program.append(rng.choice(alphabet))
        out.append(program)
        done += n
    return out


def run_swarm(drive: Drive[Any, Any, Any, Any], programs: Sequence[Sequence[Any]],
              graph: Graph | None = None, key: Callable[[Any], Hashable] = lambda s: s,
              seed: int = 0) -> Outcome:  # fmt: skip
    """The random phase: ``programs`` (:func:`swarm_programs`), each from a reset, pipelined."""
    start, steps0 = time.monotonic(), drive.total_steps
    labelled = ((f"swarm program {n + 1}", p) for n, p in enumerate(programs))
    try:
        for _ in drive.run_all(labelled):
            pass
    except Fault as err:
        return _outcome(drive, "swarm", start, steps0, "fault", error=err, note=drive.label)
    except Divergence as err:
        try:
            smaller = _shrunk(drive, err, graph, key)
        except Fault as fault:
            return _outcome(drive, "swarm", start, steps0, "fault", error=fault)
        return _outcome(drive, "swarm", start, steps0, "diverged", error=smaller or err,
                        note=f"found by {drive.label}, shrunk" if smaller else NOT_REPRODUCED)
    return _outcome(drive, "swarm", start, steps0, "passed",
                    note=f"{len(programs)} programs, seed {seed}")  # fmt: skip


# --------------------------------------------------------------------------- the budget


def same_graph(machine: Any, one: Any, other: Any, limit: int | None = None) -> bool | None:
    """Whether the reference gives the same reply to every request sequence from the reset
    under profiles ``one`` and ``other`` (their graphs are the same as far as an engine can
    see): both graphs walked together, breadth first, over the requests of ``one`` (which must
    be ``other``'s). None when ``limit`` pairs of states were seen before the answer."""
    requests = list(machine.requests(one))
    if requests != list(machine.requests(other)):
        return False
    key = getattr(machine, "state_key", lambda s: s)
    a, b = machine.init(one), machine.init(other)
    seen = {(key(a), key(b))}
    queue: deque[tuple[Any, Any]] = deque([(a, b)])
    while queue:
        a, b = queue.popleft()
        for r in requests:
            a2, ra = machine.oracle(one, a, r)
            b2, rb = machine.oracle(other, b, r)
            if machine.differences(ra, rb):
                return False
            k = (key(a2), key(b2))
            if k not in seen:
                if limit is not None and len(seen) >= limit:
                    return None
                seen.add(k)
                queue.append((a2, b2))
    return True


def fold_profiles(machine: Any, profiles: Sequence[Any]
                  ) -> tuple[list[Any], list[tuple[Any, Any, str]]]:  # fmt: skip
    """``profiles`` split into those to run and those another one stands for: (profile, the one
    run for it, why), by the machine's ``fold`` (a profile's stand-in and the reason, or None;
    a machine without one folds nothing). A profile is folded only into one asked as well."""
    fold = getattr(machine, "fold", None)
    if fold is None:
        return list(profiles), []
    run, folded = [], []
    asked = list(profiles)
    for p in asked:
        found = fold(p)
        if found is not None and found[0] != p and found[0] in asked:
            folded.append((p, asked[asked.index(found[0])], found[1]))
        else:
            run.append(p)
    return run, folded


@dataclass(frozen=True)
class Budget:
    """What ``run`` spends on each profile: the tour (``cover_edges`` edges of the graph at
    most, the pairs of pages to ``depth`` steps from the reset; None: the whole graph to that
    depth; 0: the machine's fixed tours instead), hypothesis (``examples`` of up to
    ``max_steps``), the swarm walk (``swarm`` steps) and the uniform walk (``walk`` steps)."""

    cover_edges: int | None = None
    depth: int | None = 3
    examples: int = 0
    max_steps: int = 40
    swarm: int = 0
    walk: int = 0
    tour: bool = True
    #: the quick pass: before any profile's full search, every profile's pairs of pages (and
    #: CBRL queue) to this depth (None or 0: no quick pass)
    quick_depth: int | None = None
    #: whether the search stops at its first divergence (the other profiles then replay only
    #: its program); False: every profile is searched to its budget
    first_only: bool = False
    #: whether a profile whose reference graph another asked profile's equals (the machine's
    #: ``fold``: constants the reference ignores) is run once, as that other one
    fold: bool = True

    def describe(self, covers: bool = True) -> str:
        parts = []
        if self.tour and covers and self.quick_depth and self.cover_edges != 0:
            parts.append(f"first a quick tour of every profile (pairs of pages to depth "
                         f"{self.quick_depth})")
        if self.tour:
            if covers and self.cover_edges != 0:
                bound = "every edge" if self.cover_edges is None else \
                    f"up to {self.cover_edges:,} edges"  # fmt: skip
                pairs = ("the whole machine" if self.depth is None
                         else f"pairs of pages to depth {self.depth}")  # fmt: skip
                parts.append(f"coverage tour of {bound} ({pairs}, each page to the end)")
            else:
                parts.append("the fixed tours")
        if self.examples:
            parts.append(f"hypothesis {self.examples} examples of up to {self.max_steps} steps")
        if self.swarm:
            parts.append(f"swarm walk of {self.swarm:,} steps")
        if self.walk:
            parts.append(f"uniform walk of {self.walk:,} steps")
        if self.first_only:
            parts.append("stopping at the first divergence (the other profiles replay it)")
        return ", ".join(parts) or "nothing"


#: Where enumerated graphs and their walks are kept, by the hash of the code that makes them.
CACHE: Final = Path(__file__).resolve().parents[1] / ".cache" / "coverage"


_CODE_HASHES: dict[type, str] = {}


def code_hash(machine: Any) -> str:
    """The hash of the code a machine's graph comes from: the reference implementation
    (refimpl/), the machine's mode (its oracle) and this module (computed once a process)."""
    known = _CODE_HASHES.get(type(machine))
    if known is None:
        known = _CODE_HASHES[type(machine)] = _code_hash(machine)
    return known


def _code_hash(machine: Any) -> str:
    import refimpl

    files = sorted(Path(refimpl.__file__).resolve().parent.rglob("*.py"))
    files += [Path(sys.modules[type(machine).__module__].__file__ or ""), Path(__file__)]
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


#: The groups of the quick pass (:attr:`Budget.quick_depth`).
QUICK_GROUPS: Final = ("pairs", "queue")


def graph_and_walks(machine: Any, profile: Any, budget: Budget,
                    cache: Path | None = CACHE, only: Sequence[str] = ()
                    ) -> tuple[Graph, list[list[int]], bool]:  # fmt: skip
    """The coverage graph of ``profile`` under ``budget`` and the walks that cover it, from
    ``cache`` when they were enumerated before by the same code (whether they were), else
    enumerated and kept there (an unwritable cache is skipped). ``only``: just the groups of
    those names."""
    path = None
    if cache is not None:
        name = f"{machine.short_name(profile)}-d{budget.depth}-e{budget.cover_edges}" \
            + ("-" + "+".join(only) if only else "") + ".pickle"  # fmt: skip
        path = cache / _cache_dir(machine) / name
        try:
            with path.open("rb") as f:
                g, walks = pickle.load(f)
            return g, walks, True
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
            pass
    groups = [grp for grp in machine.coverage_groups(profile, budget.depth)
              if not only or grp.name in only]
    g = coverage_graph(machine, profile, groups,
                       getattr(machine, "state_key", lambda s: s), machine.refused,
                       max_edges=budget.cover_edges)  # fmt: skip
    start = time.monotonic()
    walks = cover(g)
    g.seconds += time.monotonic() - start
    if path is not None:
        try:
            if not path.parent.is_dir():
                # a new version of the machine's code: its older graphs are not read again (a
                # folder of another machine's, whose code hash differs, is kept: two modes of
                # one check, ESSA and ESSAMigration, must not take each other's away)
                mine = f"{_cache_dir(machine).rsplit('-', 1)[0]}-"
                for old in cache.glob("*") if cache is not None and cache.is_dir() else ():
                    if old.name.startswith(mine) or "-" not in old.name:
                        shutil.rmtree(old, ignore_errors=True)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps((g, walks), protocol=pickle.HIGHEST_PROTOCOL))
            tmp.replace(path)
        except OSError:
            pass
    return g, walks, False


def _cache_dir(machine: Any) -> str:
    """The folder of ``machine``'s graphs in the cache: its mode's module and the code hash
    (``conformance.essa.mode-71b3e2a90cb80a69``)."""
    return f"{type(machine).__module__}-{code_hash(machine)}"


def covers(machine: Any) -> bool:
    """Whether the machine names its state graph (the coverage tour applies)."""
    return hasattr(machine, "coverage_groups")


def search(machine: Any, engine: Any, profiles: Sequence[Any], budget: Budget, *,
           seed: int | None = None, database: Any = None,
           progress: Callable[[Outcome], None] | None = None,
           stop_at_first: bool = False, cache: Path | None = CACHE,
           further: Sequence[Any] = ()) -> list[Outcome]:  # fmt: skip
    """Every profile in turn: hello, the tour, hypothesis, the swarm walk, the uniform walk, as
    ``budget`` says. A profile stops at its first divergence and the search goes on with the
    next (unless ``stop_at_first``); a fault ends it; a profile the engine does not run is
    skipped (status ``skipped``). The coverage tour's outcome notes the graph's size; its graph
    and walks are kept in ``cache`` (:func:`graph_and_walks`; None: none). ``further``: profiles
    given the quick tour alone, after the quick tours of ``profiles`` (a larger scope cheaply).
    A profile whose graph another's equals is run as that one (``budget.fold``,
    :func:`fold_profiles`: status ``folded``)."""
    from .driver import run_hypothesis, run_programs, run_walk
    from .protocol import EngineFault, Unsupported

    outcomes: list[Outcome] = []
    key = getattr(machine, "state_key", lambda s: s)

    def add(o: Outcome) -> bool:
        outcomes.append(o)
        if progress is not None:
            progress(o)
        return o.status in ("passed", "skipped", "folded")

    def connect(asked: Any) -> Any:
        """The profile the engine runs for ``asked``; None (noted) when it runs none."""
        try:
            return machine.connect(engine, asked)[1]
        except Unsupported as exc:
            add(Outcome("skipped", "hello", asked, 0, 0.0, note=str(exc)))
        except EngineFault as exc:
            add(Outcome("fault", "hello", asked, 0, 0.0, error=Fault(asked, [], "hello", exc)))
        return None

    def first_found() -> bool:
        return budget.first_only and any(o.status not in ("passed", "skipped", "folded")
                                         for o in outcomes)  # fmt: skip

    if budget.fold:
        profiles, folded = fold_profiles(machine, profiles)
        for p, stand_in, why in folded:
            add(Outcome("folded", "hello", p, 0, 0.0, note=why, stand_in=stand_in))
    quick = bool(budget.tour and covers(machine) and budget.quick_depth
                 and budget.cover_edges != 0)  # fmt: skip
    loaded: dict[int, tuple[Graph, list[list[int]], bool]] = {}

    def full(n: int, profile: Any) -> bool:
        """The full budget on ``profile`` (the ``n``-th asked); whether it passed."""
        drive: Drive[Any, Any, Any, Any] = Drive(machine, engine, profile)
        graph: Graph | None = None
        ok = True
        if budget.tour and covers(machine) and budget.cover_edges != 0:
            g, walks, cached = (loaded.pop(n) if n in loaded
                                else graph_and_walks(machine, profile, budget, cache))  # fmt: skip
            graph = g
            o = run_cover(drive, g, walks, key)
            how = "from the cache" if cached else f"enumerated in {g.seconds:.1f} s"
            o.note = (f"graph {len(g.states):,} states ("
                      + ", ".join(f"{k} {v:,}" for k, v in g.sizes.items())
                      + f"), {len(g.edges):,} edges{'' if g.complete else ' (cut by the budget)'}"
                      + f", {how}; " + o.note)  # fmt: skip
            ok = add(o)
        elif budget.tour:
            ok = add(run_programs(drive, machine.tours(profile), shrunk=True))
        if ok and budget.examples > 0:
            ok = add(run_hypothesis(drive, examples=budget.examples, max_steps=budget.max_steps,
                                    seed=seed, database=database))  # fmt: skip
        if ok and budget.swarm > 0:
            kind = getattr(machine, "kind", lambda r: r)
            programs = swarm_programs(machine.requests(profile), kind, budget.swarm,
                                      seed=seed or 0, rare=graph.always_refused if graph else frozenset())
            ok = add(run_swarm(drive, programs, graph, key, seed=seed or 0))
        if ok and budget.walk > 0:
            ok = add(run_walk(drive, budget.walk, seed=seed or 0))
        return ok

    runs: dict[int, Any] = {}  # the profiles the engine runs, by their place in ``profiles``
    done: set[int] = set()  # the profiles searched in full
    decided = False  # whether the first profile's full search was weighed against the quick pass
    if quick:
        # Cheap, high-yield coverage of every profile before the full search of any: a bug
        # shown only under a later profile (storage keys, facility 147, a CBRL of two) is
        # found without first touring every earlier profile to its budget. The first
        # profile's full search comes first when it costs fewer steps than the quick tours
        # of all (many profiles with small tours: KVMGmap).
        shallow = replace(budget, depth=budget.quick_depth, cover_edges=None)
        for n, asked in enumerate(profiles):
            profile = connect(asked)
            if profile is None:
                if outcomes[-1].status == "fault":
                    return outcomes
                continue
            runs[n] = profile
            qg, qwalks, cached = graph_and_walks(machine, profile, shallow, cache, QUICK_GROUPS)
            o = run_cover(Drive(machine, engine, profile), qg, qwalks, key)
            o.drive = "quick tour"
            if not add(o) and (o.status == "fault" or budget.first_only or stop_at_first):
                break
            if not decided and o.passed:
                decided = True
                first = graph_and_walks(machine, profile, budget, cache)
                cost = sum(map(len, first[1])) + budget.swarm + budget.walk
                if cost <= sum(map(len, qwalks)) * len(profiles):
                    loaded[n] = first
                    done.add(n)
                    if not full(n, profile) and (budget.first_only or stop_at_first):
                        break
                    if outcomes[-1].status == "fault":
                        return outcomes
        for asked in further:
            if any(o.status not in ("passed", "skipped", "folded") for o in outcomes):
                break
            profile = connect(asked)
            if profile is None:
                continue
            qg, qwalks, _ = graph_and_walks(machine, profile, shallow, cache, QUICK_GROUPS)
            o = run_cover(Drive(machine, engine, profile), qg, qwalks, key)
            o.drive = "quick tour"
            add(o)
        if any(o.status == "fault" for o in outcomes) or (stop_at_first and first_found()):
            return outcomes
    for n, asked in enumerate(profiles):
        if first_found():
            break
        if n in done:
            continue
        if quick and n not in runs:
            continue  # skipped (noted) in the quick pass
        if quick and any(o.profile is runs[n] and o.status == "diverged" for o in outcomes):
            continue  # its quick tour found a divergence already
        profile = runs[n] if quick else connect(asked)
        if profile is None:
            if outcomes[-1].status == "fault":
                break
            continue
        if quick:
            machine.connect(engine, asked)
        ok = full(n, profile)
        if outcomes and outcomes[-1].status == "fault":
            break
        if not ok and stop_at_first:
            break
    if first_found() and not stop_at_first:
        replay_first(machine, engine, profiles, outcomes, add)
    return outcomes


def replay_first(machine: Any, engine: Any, profiles: Sequence[Any], outcomes: list[Outcome],
                 add: Callable[[Outcome], bool]) -> None:  # fmt: skip
    """After a search stopped at its first divergence: its program (the requests of its
    steps), replayed under every profile not searched, so that the report names the profiles
    the same divergence shows under (drive ``replay``; a profile where it passes is noted as
    passed that replay, nothing more)."""
    from .protocol import EngineFault, Unsupported

    first = next(o for o in outcomes if o.status not in ("passed", "skipped", "folded"))
    if not isinstance(first.error, Divergence):
        return
    program = [r.request for r in first.error.steps]
    searched = [first.profile,
                *(o.profile for o in outcomes if o.drive not in ("quick tour", "hello"))]
    for asked in profiles:
        if any(p == asked for p in searched):
            continue
        try:
            _, profile = machine.connect(engine, asked)
        except Unsupported as exc:
            add(Outcome("skipped", "hello", asked, 0, 0.0, note=str(exc)))
            continue
        except EngineFault:
            return
        drive: Drive[Any, Any, Any, Any] = Drive(machine, engine, profile)
        start, steps0 = time.monotonic(), drive.total_steps
        try:
            drive.run(program)
        except Divergence as err:
            add(_outcome(drive, "replay", start, steps0, "diverged", error=err,
                         note="the first divergence's program"))  # fmt: skip
            continue
        except Fault:
            return
        add(_outcome(drive, "replay", start, steps0, "passed",
                     note="the first divergence's program only"))  # fmt: skip


def run_machine(
    machine: DriverMachine,
    engine: Any,
    profiles: Iterable[Any],
    *,
    tour: bool = True,
    examples: int = 100,
    max_steps: int = 40,
    seed: int | None = None,
    walk: int = 0,
    database: Path | None = None,
    progress: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Every profile in turn: hello, the tour, hypothesis, the walk (``walk`` steps). Stops at
    the first divergence or fault; a profile the engine does not run is skipped (status
    ``skipped``). The fixed tours' form of :func:`conformance.search.search`, which carries the
    loop."""
    budget = Budget(cover_edges=0, tour=tour, examples=examples, max_steps=max_steps, walk=walk)
    return search(machine, engine, list(profiles), budget, seed=seed, database=database,
                  progress=progress, stop_at_first=True, cache=None)  # fmt: skip
