"""``python -m tlcrunner mutate`` (``make mutate``): spec mutation testing.

Every mutant of the catalogue (:mod:`tlcrunner.mutation_ops`) is written into a copy of the spec
directory (never the tree), and the CI-sized models whose module EXTENDS or INSTANCEs the mutated
module, directly or not, are run against the copy. A mutant is

- **killed** when a model expected to hold now violates a property (or deadlocks, when the
  model checks deadlock): the property is named. The mutant stops at its first kill;
- **pins** (caught only by pins or a twin) when no property fires but a model's distinct-state
  count or depth differs from its pins, a run did not finish within ``--model-timeout``, or a
  twin (a model expected to violate a property) no longer violates that property;
- **killed by a witness** when no property fires but a model expected to hold no longer reaches
  the states (or steps) one of its properties is about: the model's reachability witness
  (manifest ``witnesses``, :mod:`tlcrunner.witness`) is not reached, so ``EF W`` fails. Such a
  mutant takes behaviour away (a step that never happens, a state never reached), which no
  safety property can see; the property is named ``witness <W> of <P>`` and the summary counts
  these kills apart. Witnesses run only for a mutant nothing else killed;
- **survived** when every model is as expected: ``make check`` would stay green;
- **invalid** when TLC cannot give the mutant a meaning: a parse or semantic error, an
  evaluation error, a violated ASSUME, or no initial state;
- **equivalent** when it is listed, with its argument, in model/mutate-equivalent.json (it is
  not run).

Models expected to hold run first, the smallest (by pinned distinct states) first, because
they are the ones that can kill; the twins run only for a mutant no property killed.

Each mutant is also **classed** against the contract (docs/mutation.md, docs/contract.md): a kill
counts for the design only if an intent property (one a THEOREM of spec/ names) catches it. The
first property TLC reports need not be one: a step check may fire on an earlier state. So a mutant
killed by anything else is run again on its holds-models with only their intent properties
(deadlock not looked for), smallest first, until one fails. Its class is then

- **intent**: an intent property fails;
- **refinement**: only a refinement property fails (a departure from the abstract machine, no
  loss of the safety the contract states);
- **step**, **bookkeeping**, **witness**, **deadlock**, **pins**: caught only by a step check, a
  type or bookkeeping property, a reachability witness, TLC's deadlock check, or the pinned
  counts and the twins. These are visible to an engine (the reference implementation is equal to
  TLC's graph, and the conformance judge checks every step), but the contract does not object;
- **survived**, **equivalent**, **invalid**: as the verdict.

A mutant that survives the contract raises one question, does its behaviour matter: if it does,
an intent property is missing or too weak, stated from the sources; if not, it is a free choice
pinned by the reference implementation and the conformance judge. Never add a property to kill a
mutant.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import random
import re
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

from . import exitcodes, usage
from .cfg import checked_names
from .check import _jar, default_library
from .contract import INTENT, REFINEMENT, Kinds
from .locations import default_manifest
from .manifest import Manifest, ManifestError, ModelEntry, load_manifest
from .mutation_ops import CATALOGUE, Mutant, mutable_module, mutants
from .process import sigterm_as_interrupt
from .results import write_atomically
from .run import RunResult, TlcSetupError, is_short_run, run_tlc, verify_setup
from .tla_text import TlaSyntaxError, definitions, imported_modules, tokenize
from .tool_output import VIOLATIONS, Outcome
from .witness import WitnessResult, run_witnesses

VERDICTS = ("killed", "pins", "survived", "invalid", "equivalent")
#: The classes of a judged mutant against the contract, strongest first (module docstring).
CLASSES = ("intent", "refinement", "step", "bookkeeping", "witness", "deadlock", "pins",
           "survived", "equivalent", "invalid")  # fmt: skip
#: The classes that are kills the contract does not make: caught only by something else.
CAUGHT_ONLY = ("refinement", "step", "bookkeeping", "witness", "deadlock", "pins")
INVALID_OUTCOMES = frozenset({
    Outcome.PARSE_ERROR, Outcome.EVAL_ERROR, Outcome.ASSUMPTION, Outcome.NO_STATES,
    Outcome.OTHER_ERROR, Outcome.ASSERTION,
})  # fmt: skip
DEFAULT_EQUIVALENTS = "mutate-equivalent.json"


@dataclass
class Verdict:
    mutant: Mutant
    verdict: str
    model: str | None = None
    prop: str | None = None
    note: str = ""
    runs: int = 0
    seconds: float = 0.0
    klass: str = ""  # its class against the contract (CLASSES); "" until judged
    intent: str | None = None  # the intent property that failed, and in which model

    def to_json(self) -> dict[str, Any]:
        m = self.mutant
        return {
            "id": m.id, "module": m.module, "line": m.line, "operator": m.operator,
            "definition": m.definition, "before": m.before, "after": m.after,
            "verdict": self.verdict, "model": self.model, "property": self.prop,
            "class": self.klass or self.verdict, "intent": self.intent,
            "note": self.note, "runs": self.runs, "seconds": round(self.seconds, 1),
        }  # fmt: skip


def first_kind(verdict: Verdict, kinds: Kinds) -> str:
    """The class the verdict alone gives (before the contract's own run)."""
    if verdict.verdict != "killed":
        return verdict.verdict
    prop = verdict.prop or ""
    if prop.startswith("witness "):
        return "witness"
    if prop == "deadlock":
        return "deadlock"
    return kinds.kind(prop)


_CHECKED_SECTIONS = re.compile(
    r"^(INVARIANTS?|PROPERTY|PROPERTIES|CHECK_DEADLOCK)\b.*?(?=^[A-Z_]+\b|\Z)",
    re.MULTILINE | re.DOTALL,
)


def contract_config(cfg_text: str, kinds: Kinds,
                    wanted: tuple[str, ...] = (INTENT, REFINEMENT)) -> str | None:
    """The .cfg with only its properties of the ``wanted`` kinds (intent and refinement unless
    told), deadlock not looked for; None if it checks none."""
    names = checked_names(cfg_text)
    invariants = [n for n in names.invariants if kinds.kind(n) in wanted]
    properties = [n for n in names.properties if kinds.kind(n) in wanted]
    if not invariants and not properties:
        return None
    return with_checks(cfg_text, invariants, properties)


def with_checks(cfg_text: str, invariants: list[str], properties: list[str]) -> str:
    """The .cfg checking exactly these invariants and properties, deadlock not looked for."""
    text = _CHECKED_SECTIONS.sub("", cfg_text).rstrip("\n") + "\nCHECK_DEADLOCK FALSE\n"
    if invariants:
        text += "INVARIANTS\n" + "".join(f"    {n}\n" for n in invariants)
    if properties:
        text += "PROPERTIES\n" + "".join(f"    {n}\n" for n in properties)
    return text


# --- which models a module reaches ----------------------------------------------------------


def module_closure(directories: list[Path]) -> dict[str, set[str]]:
    """For every module in ``directories``, the modules it EXTENDS or INSTANCEs, transitively,
    itself included."""
    direct: dict[str, set[str]] = {}
    for d in directories:
        for f in sorted(d.glob("*.tla")):
            direct.setdefault(f.stem, set()).update(imported_modules(f.read_text(encoding="utf-8")))
    closure: dict[str, set[str]] = {}

    def reach(name: str) -> set[str]:
        if name not in closure:
            closure[name] = {name}
            for sub in direct.get(name, ()):
                closure[name] |= reach(sub)
        return closure[name]

    for name in direct:
        reach(name)
    return closure


def affected_models(module: str, entries: list[ModelEntry], closure: dict[str, set[str]]) -> list[ModelEntry]:
    """The models that use ``module``: those expected to hold (or deadlock) first, then the
    twins, each group smallest first."""
    using = [e for e in entries if module in closure.get(e.module.stem, set())]
    return sorted(using, key=lambda e: (e.expect.kind == "violates", e.distinct or 0, e.name))


# --- classifying one mutant ------------------------------------------------------------------


def judge_run(entry: ModelEntry, run: RunResult) -> tuple[str | None, str | None, str]:
    """What one run says of a mutant: ("invalid" | "killed" | "pins" | None, property, note)."""
    out = run.outcome
    if out in INVALID_OUTCOMES:
        first = (run.tool.error or str(out)).strip().splitlines()
        return "invalid", None, f"{out}: {first[0] if first else ''}"[:200]
    if out is Outcome.TIMEOUT:
        return "pins", None, f"{entry.name} did not finish ({run.tool.error})"
    if entry.expect.kind in ("holds", "deadlock"):
        if out in VIOLATIONS:
            return "killed", run.violated or str(out), ""
        if out is Outcome.DEADLOCK and entry.expect.kind == "holds":
            return "killed", "deadlock", "TLC's deadlock check, no named property"
        if out is not Outcome.HOLDS and entry.expect.kind == "holds":
            return "pins", None, f"{entry.name}: {out}"
    elif not (out in VIOLATIONS and run.violated == entry.expect.prop):
        got = f"{out}" + (f" ({run.violated})" if run.violated else "")
        return "pins", None, f"twin {entry.name} expected to violate {entry.expect.prop}, got {got}"
    if (run.tool.distinct, run.tool.depth) != (entry.distinct, entry.depth):
        return "pins", None, (f"{entry.name}: distinct {run.tool.distinct} depth {run.tool.depth}"
                              f" != pinned {entry.distinct} {entry.depth}")  # fmt: skip
    return None, None, ""


@dataclass
class Runner:
    """Runs a mutant's models; ``run`` is :func:`tlcrunner.run.run_tlc` (tests may replace it)."""

    library: Path
    closure: dict[str, set[str]]
    entries: list[ModelEntry]
    jar: Path
    model_timeout: float
    run: Callable[..., RunResult] = run_tlc
    witnesses: Callable[..., WitnessResult] = run_witnesses
    stop: threading.Event = field(default_factory=threading.Event)
    kinds: Kinds | None = None  # the contract's kinds; read from ``library`` if not given

    def __post_init__(self) -> None:
        if self.kinds is None:
            self.kinds = Kinds.of(self.library)

    def classify(self, mutant: Mutant) -> Verdict:
        """The models expected to hold first, then (if nothing killed the mutant) their
        witnesses, then (if nothing has caught it yet) the twins: a twin can only say "pins",
        so a mutant a pin or a witness has already judged skips them (D245)."""
        started = time.monotonic()
        verdict = Verdict(mutant, "survived")
        models = affected_models(mutant.module, self.entries, self.closure)
        if not models:
            verdict.verdict, verdict.note = "invalid", "no CI-sized model uses the module"
            return verdict
        with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
            copy = Path(tmp) / self.library.name
            shutil.copytree(self.library, copy)
            (copy / f"{mutant.module}.tla").write_text(mutant.text, encoding="utf-8")
            self._run_models(verdict, [e for e in models if e.expect.kind != "violates"], copy)
            if verdict.verdict in ("survived", "pins") and not self.stop.is_set():
                self._witness_kill(verdict, models, copy)
            if verdict.verdict == "survived":
                self._run_models(verdict, [e for e in models if e.expect.kind == "violates"],
                                 copy)  # fmt: skip
            self._contract_class(verdict, models, copy, Path(tmp))
        verdict.seconds = time.monotonic() - started
        return verdict

    def _contract_class(self, verdict: Verdict, models: list[ModelEntry], copy: Path,
                        tmp: Path) -> None:  # fmt: skip
        """Class the verdict against the contract: a mutant killed by anything but an intent
        property runs again on its holds-models with their intent properties alone, and, if none
        fails, with their refinements alone. Two passes, because a refinement checked beside the
        intent can fail first and hide the intent property that fails later in the same run; and
        a violation in a run that checks nothing else is that kind's even where TLC names no
        property (it does not name a violated temporal property)."""
        assert self.kinds is not None
        verdict.klass = first_kind(verdict, self.kinds)
        if verdict.verdict != "killed" or verdict.klass == INTENT:
            if verdict.klass == INTENT:
                verdict.intent = f"{verdict.prop} ({verdict.model})"
            return
        for wanted in (INTENT, REFINEMENT):
            for entry in models:
                if entry.expect.kind != "holds" or self.stop.is_set():
                    continue
                text = contract_config(entry.config.read_text(encoding="utf-8"), self.kinds,
                                       (wanted,))  # fmt: skip
                if text is None:
                    continue
                config = tmp / f"contract-{wanted}-{entry.config.name}"
                config.write_text(text, encoding="utf-8")
                run = self.run(entry.module, config, jar=self.jar, library=copy, workers=1,
                               timeout=min(self.model_timeout, entry.timeout),
                               short=is_short_run(entry.distinct))  # fmt: skip
                verdict.runs += 1
                if run.outcome not in VIOLATIONS:
                    continue
                checked = checked_names(text)
                name = run.violated or " or ".join(checked.properties or checked.invariants)
                verdict.klass, verdict.intent = wanted, f"{name} ({entry.name})"
                return

    def _run_models(self, verdict: Verdict, models: list[ModelEntry], copy: Path) -> None:
        """Run ``models`` in order until one kills the mutant or finds it invalid; the first
        pin that differs is kept as the note."""
        for entry in models:
            if self.stop.is_set():
                verdict.verdict, verdict.note = "interrupted", "stopped before its last model"
                return
            run = self.run(entry.module, entry.config, jar=self.jar, library=copy,
                           workers=1, timeout=min(self.model_timeout, entry.timeout),
                           short=is_short_run(entry.distinct))  # fmt: skip
            verdict.runs += 1
            kind, prop, note = judge_run(entry, run)
            if kind in ("invalid", "killed"):
                verdict.verdict, verdict.model, verdict.prop = kind, entry.name, prop
                verdict.note = note
                return
            if kind == "pins" and verdict.verdict != "pins":
                verdict.verdict, verdict.model, verdict.note = "pins", entry.name, note

    def _witness_kill(self, verdict: Verdict, models: list[ModelEntry], copy: Path) -> None:
        """Run the witnesses of the mutant's holds-models, smallest first, and kill the mutant
        at the first one it no longer reaches (D210). A witness run that fails otherwise (an
        error, a timeout) decides nothing: the verdict stays."""
        for entry in models:
            if entry.expect.kind != "holds" or not entry.witnesses or self.stop.is_set():
                continue
            result = self.witnesses(entry, jar=self.jar, library=copy)
            verdict.runs += 1
            if result.missing and not result.error:
                prop = result.missing[0]
                name = dict(entry.witnesses)[prop]
                before = f"{verdict.note}; " if verdict.note else ""
                verdict.verdict, verdict.model = "killed", entry.name
                verdict.prop = f"witness {name} of {prop}"
                verdict.note = (f"{before}a reachability witness: {entry.name} no longer reaches "
                                f"what {prop} is about ({name})")  # fmt: skip
                return


# --- resuming a run -------------------------------------------------------------------------


def subject_digest(library: Path, manifest: Manifest) -> str:
    """A hash of what a verdict depends on: every module of spec/, and the models' directory
    (the MC modules, their .cfg files and the manifest with its pins and witnesses)."""
    h = hashlib.sha256()
    files = sorted(library.glob("*.tla")) + sorted(
        f for f in manifest.directory.iterdir() if f.suffix in (".tla", ".cfg") or f == manifest.path)
    for f in files:
        h.update(f"{f.parent.name}/{f.name}\0".encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def snapshot_tree(library: Path, manifest: Manifest, into: Path) -> tuple[Path, Manifest]:
    """Copy spec/ and the models' directory into ``into`` (same names, so the subject digest
    is the same) and return the copy's library and manifest."""
    spec = shutil.copytree(library, into / library.name)
    models = shutil.copytree(manifest.directory, into / manifest.directory.name)
    return Path(spec), load_manifest(Path(models) / manifest.path.name)


class ResumeError(Exception):
    pass


def load_resumed(path: Path, subject: str, chosen: list[Mutant]) -> dict[str, Verdict]:
    """The verdicts of an earlier run (``--resume``) for the mutants of this selection, by id.
    Refused when the spec or the models changed since: its verdicts would not be this tree's.
    Interrupted mutants are run again; equivalent ones are judged by this run's list."""
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ResumeError(f"cannot read {path}: {exc}") from exc
    if d.get("subject") != subject:
        raise ResumeError(
            f"{path} was written for another spec or other models (subject {d.get('subject')}, "
            f"this tree {subject}): its verdicts would not be this tree's; run again without "
            "--resume")  # fmt: skip
    by_id = {m.id: m for m in chosen}
    out = {}
    for r in d.get("mutants", []):
        m = by_id.get(r.get("id"))
        if m is not None and r.get("verdict") in ("killed", "pins", "survived", "invalid"):
            out[m.id] = Verdict(m, r["verdict"], r.get("model"), r.get("property"),
                                r.get("note", ""), r.get("runs", 0), r.get("seconds", 0.0),
                                r.get("class", ""), r.get("intent"))  # fmt: skip
    return out


# --- equivalent mutants ----------------------------------------------------------------------


def load_equivalents(path: Path) -> dict[str, dict[str, str]]:
    """model/mutate-equivalent.json: ``{"equivalent": [{"id", "module", "operator", "change",
    "argument"}, ...]}``, keyed here by id. Every entry must carry its argument."""
    if not path.is_file():
        return {}
    raw = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, dict[str, str]] = {}
    for i, item in enumerate(raw.get("equivalent", [])):
        missing = {"id", "module", "operator", "change", "argument"} - set(item)
        if missing or not str(item.get("argument", "")).strip():
            raise ManifestError(f"{path}: equivalent[{i}]: missing {sorted(missing) or ['argument']}")
        out[item["id"]] = item
    return out


# --- the catalogue of a run ------------------------------------------------------------------


def witness_names(manifest: Manifest) -> frozenset[str]:
    """The definitions the manifest's models use as reachability witnesses (``W`` of a state
    witness, ``W`` of an action witness ``W@vars``): part of the yardstick, never mutated."""
    return frozenset(w.split("@")[0] for e in manifest.entries for _, w in e.witnesses)


def select_mutants(
    library: Path, *, modules: str | None, operators: list[str] | None, seed: int,
    max_per_module: int | None, witnesses: frozenset[str] = frozenset(),
    environment: frozenset[str] = frozenset(),
) -> list[Mutant]:
    """The mutants of this run, in a deterministic order: per module (alphabetical), either all
    of them or a sample of ``max_per_module`` drawn with ``seed``, in catalogue order; the
    modules' lists interleaved. ``witnesses``: see ``witness_names``; ``environment``: the
    manifest's (D259), each of which some module must define (a misspelt name would silently
    mutate what it meant to leave alone, or leave nothing out)."""
    patterns = [p.strip() for p in modules.split(",")] if modules else ["*"]
    per_module: list[list[Mutant]] = []
    texts = {f.stem: f.read_text(encoding="utf-8") for f in sorted(library.glob("*.tla"))}
    undefined = environment - {d.name for t in texts.values() for d in definitions(tokenize(t))}
    if undefined:
        raise ManifestError(f"the manifest's environment names {', '.join(sorted(undefined))}, "
                            f"which no module of {library} defines")
    for name, text in texts.items():
        if not mutable_module(name) or not any(fnmatch.fnmatchcase(name, p) for p in patterns):
            continue
        try:
            all_of = mutants(name, text, operators, texts, witnesses, environment)
        except ValueError as exc:
            raise ManifestError(f"{name}: {exc}") from None
        if max_per_module is not None and len(all_of) > max_per_module:
            picked = set(random.Random(f"{seed}:{name}").sample(range(len(all_of)), max_per_module))
            all_of = [m for k, m in enumerate(all_of) if k in picked]
        per_module.append(all_of)
    # Round robin over the modules, so that a budget cuts every module's share alike.
    width = max(map(len, per_module), default=0)
    return [ms[k] for k in range(width) for ms in per_module if k < len(ms)]


def whole_catalogue(manifest: Manifest | None = None) -> list[Mutant]:
    """Every mutant of the spec/ beside the manifest's models (the default manifest if none)."""
    manifest = manifest or load_manifest(default_manifest())
    library = default_library(manifest)
    if library is None:
        raise ManifestError(f"no spec/ beside {manifest.directory}")
    return select_mutants(library, modules=None, operators=None, seed=0, max_per_module=None,
                          witnesses=witness_names(manifest),
                          environment=frozenset(manifest.environment))


# --- output ----------------------------------------------------------------------------------


def _line(v: Verdict) -> str:
    m = v.mutant
    by = f"{v.model} {v.prop}" if v.verdict == "killed" else (v.model or "")
    klass = v.klass or v.verdict
    change = m.change if len(m.change) <= 70 else m.change[:67] + "..."
    return (f"{m.module:<22} {m.line:>4}  {m.operator:<18} {m.id}  {v.verdict:<10} "
            f"{klass:<12}{by:<50} {change}").rstrip()  # fmt: skip


def scores(verdicts: list[Verdict]) -> dict[str, dict[str, int]]:
    """Per module: generated (this run's mutants) and the count of each verdict."""
    out: dict[str, dict[str, int]] = {}
    for v in verdicts:
        row = out.setdefault(v.mutant.module, {"generated": 0, **{k: 0 for k in VERDICTS}})
        row["generated"] += 1
        row[v.verdict] = row.get(v.verdict, 0) + 1
    return dict(sorted(out.items()))


def classes(verdicts: list[Verdict]) -> dict[str, dict[str, int]]:
    """Per module: the count of each class against the contract (CLASSES)."""
    out: dict[str, dict[str, int]] = {}
    for v in verdicts:
        row = out.setdefault(v.mutant.module, {k: 0 for k in CLASSES})
        klass = v.klass or v.verdict
        row[klass] = row.get(klass, 0) + 1
    return dict(sorted(out.items()))


def print_classes(table: dict[str, dict[str, int]], out: TextIO) -> None:
    cols = [c for c in CLASSES if any(row.get(c) for row in table.values())]
    print(f"\n{'by class':<24}" + "".join(f"{c:>12}" for c in cols), file=out)
    for module, row in table.items():
        print(f"{module:<24}" + "".join(f"{row.get(c, 0):>12}" for c in cols), file=out)


def classes_line(verdicts: list[Verdict]) -> str:
    c = Counter(v.klass or v.verdict for v in verdicts)
    only = ", ".join(f"{c[k]} {k}" for k in CAUGHT_ONLY if c[k])
    return (f"classes: {c['intent']} killed by an intent property, "
            f"{sum(c[k] for k in CAUGHT_ONLY)} caught only otherwise ({only or 'none'}), "
            f"{c['survived']} survived, {c['equivalent']} equivalent, {c['invalid']} invalid")


def print_scores(table: dict[str, dict[str, int]], out: TextIO) -> None:
    cols = ("generated", "killed", "pins", "survived", "equivalent", "invalid")
    print(f"\n{'module':<24}" + "".join(f"{c:>11}" for c in cols) + f"{'score':>8}", file=out)
    for module, row in table.items():
        valid = row["generated"] - row["invalid"]
        score = f"{100 * (row['killed'] + row['equivalent']) / valid:.0f}%" if valid else "-"
        print(f"{module:<24}" + "".join(f"{row.get(c, 0):>11}" for c in cols) + f"{score:>8}",
              file=out)  # fmt: skip


def summary_line(verdicts: list[Verdict], left: int) -> str:
    c = Counter(v.verdict for v in verdicts)
    deadlock = sum(v.verdict == "killed" and v.prop == "deadlock" for v in verdicts)
    witness = sum(v.verdict == "killed" and (v.prop or "").startswith("witness ") for v in verdicts)
    apart = [f"{deadlock} by TLC's deadlock check"] * bool(deadlock) + [
        f"{witness} by a reachability witness"] * bool(witness)
    return (f"mutants: {len(verdicts)} run, {c['killed']} killed"
            + (f" ({', '.join(apart)})" if apart else "")
            + f", {c['pins']} caught only by pins or a twin, {c['survived']} survived, "
            f"{c['equivalent']} equivalent, {c['invalid']} invalid"
            + (f", {c['interrupted']} interrupted" if c["interrupted"] else "")
            + f"; {left} not drawn (budget)")  # fmt: skip


# --- the command -----------------------------------------------------------------------------

HELP = """\
exit status:
  0    every valid mutant was killed by a property or is listed as equivalent
  1    some mutant survived, or was caught only by pins or a twin
  2    usage error: bad option, unreadable manifest or equivalents file
  3    setup fault: Java or the TLC jar cannot be used
  4    nothing was run: no mutant matches, or the budget allowed none
  130  interrupted: the mutants finished so far are written"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=usage.prog("python -m tlcrunner mutate", "mutate"),
        description="Spec mutation testing: mutate the spec modules, run the CI-sized models "
        "that use each, and classify every mutant.",
        epilog=HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    p.add_argument("--manifest", type=Path, default=None,
                   help="the models (default: model/manifest.json); the spec modules are in "
                   "spec/ beside its directory")  # fmt: skip
    p.add_argument("--equivalents", type=Path, default=None,
                   help=f"equivalent mutants with their arguments (default: {DEFAULT_EQUIVALENTS} "
                   "beside the manifest)")  # fmt: skip
    p.add_argument("--modules", help="comma-separated spec module names or globs (default: all)")
    p.add_argument("--ids", help="comma-separated mutant ids (from --list or results/mutate.json): "
                   "only these, e.g. to re-run the mutants a change was meant to settle")
    p.add_argument("--operators", help="comma-separated operators (default: the whole catalogue: "
                   + ", ".join(CATALOGUE) + ")")  # fmt: skip
    p.add_argument("--max-per-module", type=int, default=None, metavar="N",
                   help="a sample of N mutants per module, drawn with --seed (default: all)")
    p.add_argument("--seed", type=int, default=0, help="the sample's seed (default: %(default)s)")
    p.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="draw no new mutant once this many seconds are spent (default: none)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="mutants run side by side, one TLC each (default: %(default)s)")
    p.add_argument("--model-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="a model run longer than this is stopped and counted as a changed "
                   "state space (default: %(default)s)")  # fmt: skip
    p.add_argument("--resume", type=Path, default=None, metavar="PATH",
                   help="take the verdicts of an earlier run's results (e.g. an interrupted "
                   "whole-catalogue run) and run only the mutants it has not judged; refused if "
                   "the spec or the models changed since")  # fmt: skip
    p.add_argument("--list", action="store_true", help="list the mutants with their ids; run nothing")
    p.add_argument("--json", type=Path, default=Path("results/mutate.json"), metavar="PATH",
                   help="where the results go (default: %(default)s)")
    p.add_argument("--jar", type=Path, default=None, help="TLC jar (default: the cached one)")
    return p


def main(argv: list[str] | None = None, out: TextIO = sys.stdout,
         runner_factory: Callable[..., Runner] = Runner) -> int:  # fmt: skip
    started_at = datetime.now(timezone.utc)
    parser = build_parser()
    args = parser.parse_args(argv)
    operators = [o.strip() for o in args.operators.split(",")] if args.operators else None
    unknown = sorted(set(operators or ()) - set(CATALOGUE))
    if unknown:
        parser.error(f"unknown operator(s) {unknown}; the catalogue: {', '.join(CATALOGUE)}")
    if args.jobs < 1 or (args.max_per_module is not None and args.max_per_module < 1):
        parser.error("--jobs and --max-per-module must be at least 1")
    manifest_path: Path = args.manifest or default_manifest()
    try:
        manifest: Manifest = load_manifest(manifest_path)
        equivalents = load_equivalents(args.equivalents or manifest.directory / DEFAULT_EQUIVALENTS)
    except (ManifestError, json.JSONDecodeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exitcodes.USAGE
    library = default_library(manifest)
    if library is None:
        print(f"error: no spec/ beside {manifest.directory}", file=sys.stderr)
        return exitcodes.USAGE
    try:
        chosen = select_mutants(library, modules=args.modules, operators=operators,
                                seed=args.seed, max_per_module=args.max_per_module,
                                witnesses=witness_names(manifest),
                                environment=frozenset(manifest.environment))  # fmt: skip
    except (TlaSyntaxError, ManifestError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exitcodes.USAGE
    if args.ids:
        wanted = {i.strip() for i in args.ids.split(",") if i.strip()}
        not_found = wanted - {m.id for m in chosen}
        if not_found:
            print(f"warning: no such mutant in this selection: {', '.join(sorted(not_found))}",
                  file=sys.stderr)
        chosen = [m for m in chosen if m.id in wanted]
    if args.list:
        for m in chosen:
            print(f"{m.module:<22} {m.line:>4}  {m.operator:<18} {m.id}  {m.change}", file=out)
        return exitcodes.OK if chosen else exitcodes.NOTHING
    if not chosen:
        print("nothing to run: no mutant matches --modules/--operators/--ids", file=out)
        return exitcodes.NOTHING
    stale = sorted(set(equivalents) - {m.id for m in whole_catalogue(manifest)})
    for i in stale:
        print(f"warning: equivalent mutant {i} is no longer in the catalogue", file=sys.stderr)
    try:
        jar = _jar(args.jar)
        verify_setup(jar)
    except TlcSetupError as exc:
        print(f"error: {exc}\nno mutant was run.", file=sys.stderr)
        return exitcodes.SETUP

    # The run reads the tree as it is now, not as it is when each mutant starts: spec/ and the
    # models are copied once (an edit made while a long run goes on would otherwise judge
    # later mutants against another spec or other pins, D305).
    snapshot = tempfile.TemporaryDirectory(prefix="mutate-tree-")  # removed when the run ends
    library, manifest = snapshot_tree(library, manifest, Path(snapshot.name))
    subject = subject_digest(library, manifest)
    try:
        resumed = load_resumed(args.resume, subject, chosen) if args.resume else {}
    except ResumeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exitcodes.USAGE
    entries = [e for e in manifest.entries if e.size == "ci"]
    runner = runner_factory(
        library=library, closure=module_closure([manifest.directory, library]), entries=entries,
        jar=jar, model_timeout=args.model_timeout,
    )  # fmt: skip
    print(f"{len(chosen)} mutants (seed {args.seed}), {args.jobs} job(s)"
          + (f", budget {args.budget:g} s" if args.budget is not None else "")
          + (f", {len(resumed)} judged already in {args.resume}" if args.resume else ""),
          file=out, flush=True)  # fmt: skip
    verdicts: dict[int, Verdict] = {}
    start = time.monotonic()
    left, complete = 0, False
    try:
        with sigterm_as_interrupt(), ThreadPoolExecutor(max_workers=args.jobs) as pool:
            pending: dict[Future[Verdict], int] = {}
            queue = list(enumerate(chosen))
            try:
                while queue or pending:
                    while queue and len(pending) < args.jobs:
                        if args.budget is not None and time.monotonic() - start > args.budget:
                            left, queue = len(queue), []
                            break
                        k, m = queue.pop(0)
                        if m.id in equivalents:
                            verdicts[k] = Verdict(m, "equivalent", note=equivalents[m.id]["argument"])
                            print(_line(verdicts[k]), file=out, flush=True)
                            continue
                        if m.id in resumed:
                            verdicts[k] = resumed[m.id]
                            print(_line(verdicts[k]), file=out, flush=True)
                            continue
                        pending[pool.submit(runner.classify, m)] = k
                    if not pending:
                        continue
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        k = pending.pop(f)
                        verdicts[k] = f.result()
                        print(_line(verdicts[k]), file=out, flush=True)
                complete = True
            except KeyboardInterrupt:
                runner.stop.set()
                raise
    except KeyboardInterrupt:
        left = len(chosen) - len(verdicts)
    seconds = time.monotonic() - start
    ordered = [verdicts[k] for k in sorted(verdicts)]
    table = scores(ordered)
    print_scores(table, out)
    by_class = classes(ordered)
    print_classes(by_class, out)
    line = summary_line(ordered, left)
    print(classes_line(ordered), file=out)
    print(f"{line}; {seconds:.0f} s", file=out, flush=True)
    write_atomically(args.json, {
        "started": started_at.isoformat(timespec="seconds"),
        "arguments": list(argv) if argv is not None else sys.argv[1:],
        "seed": args.seed, "jobs": args.jobs, "budget": args.budget,
        "max_per_module": args.max_per_module, "seconds": round(seconds, 1),
        "subject": subject, "resumed": len(resumed),
        "complete": complete, "not_drawn": left, "summary": line, "scores": table,
        "classes_summary": classes_line(ordered), "classes": by_class,
        "mutants": [v.to_json() for v in ordered],
    })  # fmt: skip
    if not complete:
        return exitcodes.INTERRUPTED
    if not ordered:
        return exitcodes.NOTHING
    caught = {"killed", "equivalent", "invalid"}
    return exitcodes.OK if all(v.verdict in caught for v in ordered) else exitcodes.FAILED
