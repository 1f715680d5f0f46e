"""The held-out catalogue of Linux kernel ESSA regressions: its shape, and its anchors in the tree.

conformance/engines/linux/regressions.json lists regressions a kernel patch could plausibly
introduce into classic KVM's ESSA code (sources S1, S2, S3, S12): each names a file and a function
of the kernel tree, the exact original text ("find") and the regressed text ("replace"). The
catalogue holds no kernel code beyond those one- or few-line snippets.

The shape is checked always. When Debian's linux-source-6.12 tarball is installed, each "find" must
occur exactly once in its function's text (the function is cut from its definition line to the
matching closing brace by the small scanner below), and the replacement may only use identifiers
the file or the s390 page-table and page-state headers already define or use, with the same bracket
balance as the text it replaces: a rough stand-in for "it still compiles".
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "conformance" / "engines" / "linux" / "regressions.json"
TARBALL = Path("/usr/src/linux-source-6.12.tar.xz")

FIELDS = {"name", "file", "function", "find", "replace", "what", "class", "believed_visible_via"}
CLASSES = {
    "wrong-mask",
    "wrong-shift",
    "wrong-bit",
    "wrong-operand",
    "wrong-comparison",
    "inverted-condition",
    "missing-condition",
    "dropped-clear",
    "off-by-one",
    "lock-pairing",
    "swapped-branch",
}
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FILES = {
    "arch/s390/mm/pgtable.c",
    "arch/s390/mm/gmap.c",
    "arch/s390/kvm/priv.c",
    "arch/s390/kvm/kvm-s390.c",
}
HEADERS = ("arch/s390/include/asm/pgtable.h", "arch/s390/include/asm/page-states.h")

# The spread the catalogue promises: at least this many regressions in each area.
AREAS: Mapping[str, tuple[set[str], int]] = {
    "the ORC state machine": ({"pgste_perform_essa"}, 3),
    "the intercept": ({"__do_essa", "handle_essa"}, 2),
    "the zap path": ({"ptep_zap_unused", "__gmap_zap", "__s390_reset_cmma"}, 2),
    "fault-in, unmap and storage keys": (
        {
            "ptep_set_pte_at",
            "ptep_xchg_commit",
            "ptep_xchg_direct",
            "ptep_xchg_lazy",
            "pgste_update_all",
            "pgste_set_key",
            "set_guest_storage_key",
            "get_guest_storage_key",
        },
        2,
    ),
    "CMMA migration": (
        {
            "kvm_s390_get_cmma_bits",
            "kvm_s390_get_cmma",
            "kvm_s390_peek_cmma",
            "kvm_s390_set_cmma_bits",
            "kvm_s390_next_dirty_cmma",
            "kvm_s390_vm_start_migration",
        },
        2,
    ),
}

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TOKEN = re.compile(r"\b[0-9][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*")
C_KEYWORDS = {"if", "else", "for", "while", "return", "case", "break", "unsigned", "long", "int"}


def load() -> list[dict[str, Any]]:
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


# --- the shape ---------------------------------------------------------------------------------


def test_every_entry_has_exactly_the_fields_as_non_empty_strings() -> None:
    entries = load()
    assert len(entries) >= 14
    for entry in entries:
        assert isinstance(entry, dict)
        assert set(entry) == FIELDS, entry.get("name")
        for field in FIELDS:
            value = entry[field]
            assert isinstance(value, str) and value.strip(), (entry["name"], field)


def test_names_are_unique_kebab_ids_and_classes_known() -> None:
    entries = load()
    names = [e["name"] for e in entries]
    assert [n for n, c in Counter(names).items() if c > 1] == []
    for entry in entries:
        assert NAME.match(entry["name"]), entry["name"]
        assert entry["class"] in CLASSES, (entry["name"], entry["class"])
        assert entry["file"] in FILES, (entry["name"], entry["file"])
        assert IDENT.fullmatch(entry["function"]), entry["name"]


def test_find_and_replace_differ_and_stay_small() -> None:
    for entry in load():
        assert entry["find"] != entry["replace"], entry["name"]
        # Snippets only: no larger kernel code goes into the repository.
        for field in ("find", "replace"):
            assert entry[field].count("\n") <= 3, (entry["name"], field)
            assert len(entry[field]) <= 200, (entry["name"], field)


def test_no_two_entries_make_the_same_change() -> None:
    keys = [(e["file"], e["function"], e["find"], e["replace"]) for e in load()]
    assert len(keys) == len(set(keys))


def test_the_catalogue_spreads_over_the_areas() -> None:
    functions = Counter(e["function"] for e in load())
    for area, (names, least) in AREAS.items():
        assert sum(functions[n] for n in names) >= least, area


def bracket_balance(text: str) -> tuple[int, int, int]:
    return (
        text.count("(") - text.count(")"),
        text.count("[") - text.count("]"),
        text.count("{") - text.count("}"),
    )


def test_replacement_keeps_the_bracket_balance() -> None:
    for entry in load():
        assert bracket_balance(entry["find"]) == bracket_balance(entry["replace"]), entry["name"]


# --- the anchors in the kernel tree ------------------------------------------------------------


def skip_comment_or_literal(text: str, i: int) -> int:
    """The index after the comment or literal starting at i, or i when none starts there."""
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text[i] in "\"'":
        quote, j = text[i], i + 1
        while j < len(text) and text[j] != quote:
            j += 2 if text[j] == "\\" else 1
        return j + 1
    return i


def function_text(source: str, name: str) -> str:
    """The text of function `name`: from its definition line to its matching closing brace.

    A definition starts on a line at column 0 (not a preprocessor line) naming `name(`; it is a
    definition, not a prototype, when a `{` comes before any `;`.
    """
    head = re.compile(r"^(?![#\s]).*\b" + re.escape(name) + r"\s*\(", re.MULTILINE)
    for match in head.finditer(source):
        brace, semicolon = source.find("{", match.end()), source.find(";", match.end())
        if brace < 0 or (0 <= semicolon < brace):
            continue
        depth, i = 0, brace
        while i < len(source):
            after = skip_comment_or_literal(source, i)
            if after != i:
                i = after
                continue
            if source[i] == "{":
                depth += 1
            elif source[i] == "}":
                depth -= 1
                if depth == 0:
                    return source[match.start() : i + 1]
            i += 1
        raise AssertionError(f"{name}: no closing brace")
    raise AssertionError(f"{name}: no definition")


def test_the_scanner_cuts_one_function() -> None:
    source = (
        "static int f(int a);\n"
        "#define f(x) (x)\n"
        "static int f(int a)\n{\n\tif (a) { /* } */ return '}'; }\n\treturn \"{\";\n}\n"
        "int g(void)\n{\n\treturn f(1);\n}\n"
    )
    text = function_text(source, "f")
    assert text.startswith("static int f(int a)\n{") and text.endswith('return "{";\n}')
    assert function_text(source, "g") == "int g(void)\n{\n\treturn f(1);\n}"
    with pytest.raises(AssertionError):
        function_text(source, "h")


@pytest.fixture(scope="session")
def kernel_tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The files the catalogue names, and the headers, read from the tarball once per session."""
    if not TARBALL.exists():
        pytest.skip(f"{TARBALL} is not installed (Debian package linux-source-6.12)")
    with tarfile.open(TARBALL, mode="r|xz") as stream:
        first = stream.next()
        assert first is not None
        top = first.name.split("/")[0]
    wanted = sorted({e["file"] for e in load()} | set(HEADERS))
    out = tmp_path_factory.mktemp("linux-source")
    members = [f"{top}/{path}" for path in wanted]
    tar = shutil.which("tar")
    if tar is not None:
        # --occurrence=1: stop reading the archive once every member has been found.
        subprocess.run(
            [tar, "-xf", str(TARBALL), "-C", str(out), "--occurrence=1", *members], check=True
        )
    else:
        with tarfile.open(TARBALL, mode="r:xz") as archive:
            archive.extractall(
                out, members=[archive.getmember(m) for m in members], filter="data"
            )
    return {path: (out / top / path).read_text(encoding="utf-8") for path in wanted}


def test_each_find_occurs_exactly_once_in_its_function(kernel_tree: dict[str, str]) -> None:
    problems = []
    for entry in load():
        body = function_text(kernel_tree[entry["file"]], entry["function"])
        count = body.count(entry["find"])
        if count != 1:
            problems.append(f"{entry['name']}: {count} occurrences in {entry['function']}")
    assert problems == []


def test_each_replacement_changes_only_its_function(kernel_tree: dict[str, str]) -> None:
    problems = []
    for entry in load():
        source = kernel_tree[entry["file"]]
        body = function_text(source, entry["function"])
        regressed = source.replace(body, body.replace(entry["find"], entry["replace"]), 1)
        changed = function_text(regressed, entry["function"])
        if changed == body:
            problems.append(f"{entry['name']}: {entry['function']} unchanged")
        elif regressed.replace(changed, body, 1) != source:
            problems.append(f"{entry['name']}: text outside {entry['function']} changed")
    assert problems == []


def identifiers(text: str) -> set[str]:
    return {t for t in TOKEN.findall(text) if not t[0].isdigit()}


def test_identifiers_skip_numbers() -> None:
    assert identifiers("res |= 0x20; x = y << 24UL;") == {"res", "x", "y"}


def test_each_replacement_uses_only_known_identifiers(kernel_tree: dict[str, str]) -> None:
    headers = "".join(kernel_tree[h] for h in HEADERS)
    for entry in load():
        known = identifiers(kernel_tree[entry["file"]] + headers) | C_KEYWORDS
        new = identifiers(entry["replace"]) - known
        assert new == set(), (entry["name"], new)
