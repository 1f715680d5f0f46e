"""Every cross-reference in spec/, model/ and the docs names a definition that exists where it
says: ``Name (Module.tla)``, ``Module!Name``, ``Name of Module.tla``, ``Module.tla's Name`` and
a backticked ``Name`` beside a module name. A property that moved or was renamed leaves such a
text behind; this test finds it. "Where it says" takes the module with what it EXTENDS or
INSTANCEs (a property of ESSAProperties.tla may be one ESSA.tla defines)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from tlcrunner import contract
from tlcrunner.mutate import module_closure

REPO = Path(__file__).resolve().parents[1]
_IDENT = r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*"  # CamelCase, two humps at least
_PATTERNS = (
    re.compile(rf"\b(?P<name>{_IDENT}) \((?:spec/|model/)?(?P<module>\w+)\.tla\)"),
    re.compile(rf"\b(?P<module>\w+)!(?P<name>{_IDENT})\b"),
    re.compile(rf"\b(?P<name>{_IDENT}) (?:of|in) (?:spec/|model/)?(?P<module>\w+)\.tla\b"),
    re.compile(rf"\b(?:spec/|model/)?(?P<module>\w+)\.tla's (?P<name>{_IDENT})\b"),
    re.compile(rf"`(?P<name>{_IDENT})` (?:of|in) `?(?:spec/|model/)?(?P<module>\w+)\.tla\b"),
)


def _texts() -> list[tuple[Path, str]]:
    files = [*sorted((REPO / "spec").glob("*.tla")), *sorted((REPO / "model").glob("*.tla")),
             *sorted((REPO / "model").glob("*.cfg")), REPO / "README.md",
             # docs/decisions.md records each decision as it was taken, the names of then with it
             *sorted(f for f in (REPO / "docs").glob("*.md") if f.name != "decisions.md")]  # fmt: skip
    out = []
    for f in files:
        text = f.read_text(encoding="utf-8")
        if f.suffix in (".tla", ".cfg"):  # comments only: the code is TLC's to check
            parts = re.findall(r"\(\*.*?\*\)|\\\*[^\n]*", text, re.S)
            text = " ".join(parts)
        # a comment box's line breaks and frames are not part of its sentences
        text = re.sub(r"\s*\*\)\s*\n\s*\(\*\s*", " ", text)
        text = re.sub(r"\s*\n\s*(?:\\\*\s*)?", " ", text)
        out.append((f, text))
    return out


#: A property's name as the project writes one (``...Inv``, ``...Prop``, ``Refines...``).
_PROPERTY: Final = re.compile(r"(?<![>\w])[A-Z][A-Za-z0-9]*(?:Inv|Prop)\b|\bRefines[A-Z]\w*\b")


def defined_at(name: str, module: str, where: dict[str, list[str]],
               closure: dict[str, set[str]]) -> bool:  # fmt: skip
    """``name`` is defined in ``module``, in what it EXTENDS or INSTANCEs, or in the module of
    its contract (``<Module>Properties``, PageStates' PageStateProperties), or its step checks."""
    homes = set(closure.get(module, {module}))
    for extra in (f"{module}Properties", f"{module}StepChecks", "PageStateProperties"
                  if module == "PageStates" else ""):  # fmt: skip
        homes |= closure.get(extra, set())
    return bool(set(where.get(name, ())) & homes)


def dangling_references() -> list[str]:
    where = contract.defining_modules()
    closure = module_closure([REPO / "spec", REPO / "model"])
    modules = set(closure)
    bad = []
    for path, text in _texts():
        for pattern in _PATTERNS:
            for m in pattern.finditer(text):
                module, name = m.group("module"), m.group("name")
                if module not in modules or name in modules:
                    continue  # an instance's local name (PSP!X), or a module's name
                if not defined_at(name, module, where, closure):
                    bad.append(f"{path.relative_to(REPO)}: {m.group(0)!r}: {name} is not defined "
                               f"in {module}.tla or what it extends")  # fmt: skip
        for name in set(_PROPERTY.findall(text)) - set(where):
            bad.append(f"{path.relative_to(REPO)}: {name} is defined nowhere in spec/ or model/")
    return sorted(set(bad))


def test_every_cross_reference_names_a_definition_that_exists_where_it_says() -> None:
    bad = dangling_references()
    assert not bad, "\n".join(bad)


def test_the_reader_finds_a_dangling_reference(tmp_path: Path) -> None:
    text = "see OwedContentKeptInv (Ballooning.tla) and ShrinkMetProp (FrameReuse.tla)"
    where = contract.defining_modules()
    closure = module_closure([REPO / "spec"])
    found = [m.group("name") for m in _PATTERNS[0].finditer(text)
             if not defined_at(m.group("name"), m.group("module"), where, closure)]  # fmt: skip
    assert found == ["ShrinkMetProp"]
