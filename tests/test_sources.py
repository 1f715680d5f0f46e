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
