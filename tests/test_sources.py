"""The repository stands alone: it cites docs/sources.md, never files a clone does not have."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "docs" / "sources.md").read_text(encoding="utf-8")

# What a clone lacks: the steering folder beside the checkout and its source documents.
FORBIDDEN = re.compile(r"\.\./shared|\bshared/seeds|\bseeds/0\d\d_|REAL-IMPLEMENTATIONS|\bRI \d")


def tracked_text_files() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    paths = [ROOT / n for n in names if not n.endswith((".svg", ".png", ".jar"))]
    return [p for p in paths if p.is_file() and p != Path(__file__).resolve()]


def test_no_file_cites_what_a_clone_lacks() -> None:
    offenders = []
    for path in tracked_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if FORBIDDEN.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "cite docs/sources.md instead:\n" + "\n".join(offenders)


def test_every_cited_key_is_defined() -> None:
    defined = set(re.findall(r"^\| \*\*\[(\w+)\]\*\* \|", SOURCES, re.M))
    defined |= {f"S{n}" for n in re.findall(r"^\| S(\d+) \|", SOURCES, re.M)}
    assert {"P", "Z1", "Z2", "Z3", "S1", "S9", "S16"} <= defined
    sections = set(re.findall(r"^## (\d)\. ", SOURCES, re.M))
    missing = []
    for path in tracked_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for key in re.findall(r"\[(P|Z\d)\]", text):
            if key not in defined:
                missing.append(f"{path.relative_to(ROOT)}: [{key}]")
        for section in re.findall(r"\bsources (\d)(?:\.\d)?\b", text):
            if section not in sections:
                missing.append(f"{path.relative_to(ROOT)}: sources {section}")
    assert not missing, "keys not in docs/sources.md:\n" + "\n".join(sorted(set(missing)))


# A path the repository names, in prose or a comment: spec/..., model/MC*.tla, tests/test_x.py.
NAMED_PATH = re.compile(r"(?<![\w./-])((?:spec|model|docs|tests|conformance|refimpl|tlcrunner|bench)/[\w.*/-]*[\w*])")
# Paths that are named but not tracked, by design: .gitignore's patterns of TLC's output;
# docs/decisions.md and model/mutation-log.md, records that name files as they were when each
# decision was taken; tlcrunner/data, where pyproject.toml maps spec/ and model/ in an installed
# package.
NOT_CHECKED = {".gitignore", "docs/decisions.md", "model/mutation-log.md"}
INSTALLED_ONLY = ("tlcrunner/data",)
# What `make engines` builds, each where its toolchain runs (the Rust engine where cargo runs): a
# build product the Makefile names is checked by the Makefile, not here.
BUILT = "conformance/engines/build/"


def _built_by_make(named: str) -> bool:
    if not named.startswith(BUILT):
        return False
    product = BUILT + named[len(BUILT):].split("/")[0]
    return product in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_every_path_the_repository_names_exists() -> None:
    """D162: spec/PageStates.tla named model/MCRefine*.tla, which no file matches."""
    missing = []
    for path in tracked_text_files():
        name = str(path.relative_to(ROOT))
        if name in NOT_CHECKED:
            continue
        for named in NAMED_PATH.findall(path.read_text(encoding="utf-8", errors="replace")):
            if (not named.startswith(INSTALLED_ONLY) and not _built_by_make(named)
                    and not list(ROOT.glob(named))):  # fmt: skip
                missing.append(f"{name}: {named}")
    assert not missing, "named but not in the repository:\n" + "\n".join(sorted(set(missing)))
