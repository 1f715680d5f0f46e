"""A THEOREM claims its property for every value of the constants its hypothesis allows; the
models that back it must cover what it claims (docs/checking.md, "Bounds").

For each THEOREM of the form ``H => (S => P)`` in a module whose constants have a finite domain
below, and for each constant and each value of it that some assignment allowed by ``H`` and the
module's ASSUMEs gives it, some model of model/manifest.json must check each property of ``P``
under the specification ``S`` (its .cfg's SPECIFICATION), hold, run on a module that extends the
THEOREM's, satisfy ``H``, and give the constant that value.  A THEOREM whose models do not cover a
value narrows its hypothesis or gains a model.  ``Pages`` counts as a constant whose values are
one page and two: each THEOREM needs a model on two pages (symmetry is fine where sound), a deep
one included.

The check is per constant, not over every combination: a model that sets several switches the
other way covers each of them (D380).  It reads the THEOREMs of the modules built on a module of
DOMAINS; a THEOREM without a constant hypothesis (``Spec => []P``) is outside it.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tlcrunner import contract
from tlcrunner.cfg import checked_names

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "model" / "manifest.json"

_BUGS = ("StickyZero", "CBRLGuestAddress", "StaleUnusedBit")
_BOOL = (False, True)
#: The constants whose values the hypotheses of a module family range over, each with a finite
#: domain: the switches of spec/ESSAMachine.tla; the bound of the CBRL (one entry, or two: a list
#: that holds a second entry behind the first); the pages (one or two).
DOMAINS: dict[str, dict[str, tuple[Any, ...]]] = {
    "ESSAMachine": {
        "Impl": ("Paper2007", "KVMClassic", "KVMGmap"),
        "StorageKeys": _BOOL,
        "Facility147": _BOOL,
        "PrebuiltPageTables": _BOOL,
        "MachineInterpretsESSA": _BOOL,
        "ModernGuest": _BOOL,
        "CMMAEnabled": _BOOL,
        "CBRLSize": (1, 2),
        "Bugs": (frozenset(),) + tuple(frozenset({b}) for b in _BUGS),
        "Pages": (1, 2),
    },
}

#: The ASSUMEs of the modules above that restrict these constants, as their text reads and as
#: a predicate (test_assumes_are_the_specs checks the text is still the module's).
ASSUMES: dict[str, list[tuple[str, Any]]] = {
    "ESSAMachine": [
        ("ASSUME Bugs \\subseteq KnownBugs /\\ (Bugs # {} => Impl = \"KVMGmap\")",
         lambda c: not c["Bugs"] or c["Impl"] == "KVMGmap"),
        ("ASSUME MachineInterpretsESSA => Impl = \"KVMGmap\"",
         lambda c: not c["MachineInterpretsESSA"] or c["Impl"] == "KVMGmap"),
    ],
    "ESSAMigration": [
        ("ASSUME KVM /\\ ~MachineInterpretsESSA",
         lambda c: c["Impl"] != "Paper2007" and not c["MachineInterpretsESSA"]),
    ],
}

#: (specification, property, constant, value) a THEOREM claims with no model checking it, and why
#: the claim stands.
EXEMPT: dict[tuple[str, str, str, Any], str] = {}

_EXTENDS = re.compile(r"^EXTENDS\s+(.+)$", re.M)


@functools.cache
def _extends(name: str) -> frozenset[str]:
    """The modules ``name`` extends, itself included, through spec/ and model/."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        for folder in (contract.SPEC, contract.MODEL):
            path = folder / f"{m}.tla"
            if path.exists():
                for line in _EXTENDS.findall(path.read_text(encoding="utf-8")):
                    todo += [x.strip() for x in line.split(",")]
    return frozenset(seen)


#: Modules outside the test, each with the reason. ESSAMigrationVMM adds constants of its own
#: (memslots, gaps, counts, SlotDeleteFix) that DOMAINS does not range over, and its models check
#: VMMSpec's requests restricted (model/MCESSAMigrationVMM.tla); its THEOREMs name the one machine
#: every model sets (VMMClaimed), so the gap left is the restriction, stated beside each THEOREM.
OUTSIDE: dict[str, str] = {
    "ESSAMigrationVMM": "constants of its own, and models that check restricted request sets",
}


def _family(module: str) -> str | None:
    if module in OUTSIDE:
        return None
    return next((f for f in DOMAINS if f in _extends(module)), None)


def _python(expr: str) -> str:
    """A hypothesis in the TLA+ these THEOREMs use, as Python over the dict ``c``."""
    out = expr.replace("/\\", " and ").replace("\\/", " or ").replace("~", " not ")
    out = re.sub(r"(?<![=<>!#])=(?!=)", "==", out).replace("#", "!=")
    out = out.replace("{}", "frozenset()").replace("TRUE", "True").replace("FALSE", "False")
    return re.sub(r"\b([A-Z]\w*)\b(?![\"'])", lambda m: f'c["{m.group(1)}"]'
                  if m.group(1) not in ("True", "False") else m.group(1), out)


def _holds(expr: str, c: dict[str, Any]) -> bool:
    return bool(eval(_python(expr), {"frozenset": frozenset}, {"c": c}))  # noqa: S307


_SHAPE = re.compile(r"^(.*?)\s*=>\s*\((\w+)\s*=>(.*)\)$")


def _bounded_theorems() -> list[tuple[contract.Theorem, str, str, set[str], str]]:
    out = []
    for t in contract.all_theorems():
        family = _family(t.module)
        m = _SHAPE.match(t.formula)
        if family and m:
            out.append((t, m.group(1), m.group(2), contract.property_names(m.group(3)), family))
    return out


def _value(text: str) -> Any:
    text = text.strip()
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    if text.startswith('"'):
        return text.strip('"')
    if text.isdigit():
        return int(text)
    if text.startswith("{"):
        items = [x.strip().strip('"') for x in text.strip("{}").split(",") if x.strip()]
        return frozenset(items)
    return text


def _constants(cfg: str) -> dict[str, Any]:
    block = re.search(r"^CONSTANTS?\s*\n(.*?)(?=^\S)", cfg, re.S | re.M)
    out: dict[str, Any] = {}
    for line in (block.group(1) if block else "").splitlines():
        line = line.split("\\*")[0].strip()
        if "=" in line and "<-" not in line:
            k, v = (s.strip() for s in line.split("=", 1))
            out[k] = _value(v)
    if isinstance(out.get("Pages"), frozenset):
        out["Pages"] = len(out["Pages"])
    return out


@functools.cache
def _models() -> list[tuple[str, str, str, set[str], dict[str, Any]]]:
    rows = []
    for e in json.loads(MANIFEST.read_text(encoding="utf-8"))["models"]:
        if e["expect"] != "holds":
            continue
        cfg = (REPO / "model" / e["config"]).read_text(encoding="utf-8")
        names = checked_names(cfg)
        spec = re.search(r"^SPECIFICATION\s+(\w+)", cfg, re.M)
        rows.append((e["name"], e["module"].removesuffix(".tla"), spec.group(1) if spec else "",
                     {*names.invariants, *names.properties}, _constants(cfg)))
    return rows


def _allowed(hyp: str, family: str, module: str) -> list[dict[str, Any]]:
    domains = DOMAINS[family]
    assumes = [p for m in _extends(module) for _, p in ASSUMES.get(m, [])]
    out = []
    for values in itertools.product(*domains.values()):
        c = dict(zip(domains, values))
        if all(a(c) for a in assumes) and _holds(hyp, c):
            out.append(c)
    return out


def test_assumes_are_the_specs() -> None:
    for module, items in ASSUMES.items():
        text = (contract.SPEC / f"{module}.tla").read_text(encoding="utf-8")
        for line, _ in items:
            assert line in text, f"{module}.tla no longer reads {line!r}: update ASSUMES"


def test_the_translation_reads_the_hypotheses() -> None:
    c = {"Impl": "Paper2007", "ModernGuest": False, "StorageKeys": True, "Bugs": frozenset(),
         "MachineInterpretsESSA": False}
    assert _holds('(Impl = "Paper2007" \\/ (ModernGuest /\\ StorageKeys /\\ Bugs = {}))', c)
    assert not _holds('Impl # "Paper2007"', c)
    assert _holds("(Bugs = {} /\\ ~MachineInterpretsESSA)", c)
    assert len(_bounded_theorems()) >= 15


def _gaps(module: str, hyp: str, spec: str, props: set[str], family: str) -> list[str]:
    allowed = _allowed(hyp, family, module)
    assert allowed, f"{module}: the hypothesis {hyp} allows no constants at all"
    models = [m for m in _models() if module in _extends(m[1]) and m[2] == spec]
    gaps = []
    for prop in sorted(props):
        backing = [m for m in models if prop in m[3]
                   and all(k in m[4] for k in DOMAINS[family]) and _holds(hyp, m[4])]
        for const in DOMAINS[family]:
            for value in sorted({c[const] for c in allowed}, key=repr):
                if not any(m[4][const] == value for m in backing) \
                        and (spec, prop, const, value) not in EXEMPT:
                    gaps.append(f"{prop}: {const} = {value!r}")
    return gaps


@pytest.mark.parametrize("theorem", _bounded_theorems(), ids=lambda t: f"{t[0].module}:{t[0].formula[:60]}")
def test_every_value_a_hypothesis_allows_is_checked(theorem: tuple[Any, ...]) -> None:
    t, hyp, spec, props, family = theorem
    gaps = _gaps(t.module, hyp, spec, props, family)
    assert not gaps, (
        f"{t.module}: THEOREM {t.formula} claims values no model checks (narrow the hypothesis or "
        "add a model): " + "; ".join(gaps)
    )


def test_a_wider_hypothesis_is_reported() -> None:
    """The check has teeth: UnwrittenContentKeptInv claimed for every implementation, or
    ReportedZeroReadsZeroInv for today's guest too, names the values no model checks."""
    gaps = _gaps("ESSAProperties", "TRUE", "Spec", {"UnwrittenContentKeptInv"}, "ESSAMachine")
    assert "UnwrittenContentKeptInv: Impl = 'KVMGmap'" in gaps
    gaps = _gaps("ESSAProperties", 'Impl = "Paper2007"', "Spec", {"ReportedZeroReadsZeroInv"},
                 "ESSAMachine")
    assert gaps == ["ReportedZeroReadsZeroInv: ModernGuest = True"]
