"""docs/decisions.md is a design record every D-reference resolves to, and the repository's text
speaks of the design, not of how the work on it was organised.

The record: every entry ("### Dn. title") has a status line right under its heading (current,
superseded by Dm, or withdrawn), every Dm a status names is an entry, and the index at the top lists
every entry exactly once, under the group whose section holds it, with a link to its heading's
anchor. Every "Dn" written anywhere in the repository's text is an entry (a range "Dn to Dm" or
"Dn-Dm" names a block of numbers, of which Dn and at least one entry in the block exist). The
mutation log (model/mutation-log.md) has a section only for an entry that points to it, and every
entry that points to it has its section, and the record itself cites no mutant: a mutant's id, what
kills it, its pins and its equivalence argument are the log's (model/mutation-log.md,
model/mutate-equivalent.json), the decision keeping at most a sentence that points there. Only the
decisions whose subject is mutation testing itself speak of mutants at all: every other one says
what the design is and why, from the sources, not which mutant showed the need for it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "docs" / "decisions.md"
MUTATION_LOG = ROOT / "model" / "mutation-log.md"
SCANNED_DIRS = ("spec", "model", "refimpl", "conformance", "tlcrunner", "docs", "tests", "bench")
SCANNED_FILES = ("README.md",)

HEADING = re.compile(r"^### D(\d+)\. (.+)$", re.M)
STATUS = re.compile(r"^Status: (current|superseded by D(\d+)|withdrawn)(; .*)?$")
DREF = re.compile(r"\bD(\d+)\b")
DRANGE = re.compile(r"\bD(\d+)(?:\s+to\s+|-)D(\d+)\b")
# A mutant's id as `tlcrunner mutate` names it (model/mutate-equivalent.json, model/mutation-log.md):
# ten lower-case hex digits standing alone. At least one is a letter, so that a ten-digit number is
# not taken for one (a longer hex string, a commit's, is not one either).
MUTANT_ID = re.compile(r"(?<![0-9A-Za-z_])(?=[0-9a-f]{10}(?![0-9A-Za-z_]))[0-9]*[a-f][0-9a-f]*(?![0-9A-Za-z_])")
EQUIVALENT = ROOT / "model" / "mutate-equivalent.json"

# Words about how the work was organised, never about the design.
ORGANISATION = re.compile(
    r"\bthe lead\b|\bsessions? #?\d+|\bissues? #?\d+|\bissue-\d+|\brounds? #?\d+|\bD\d+'s round\b", re.I
)
# Each exception: (file, the exact text allowed there, why).
ALLOWED = {
    ("docs/sources.md", "session 15745"): "the title of a cited talk ([Z3], SHARE session 15745)",
}
# This file states the patterns it forbids; it is the one file not scanned for them.
SELF = Path(__file__).resolve()


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")


def text_files() -> list[Path]:
    files = [ROOT / name for name in SCANNED_FILES]
    for top in SCANNED_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).parts
            if not path.is_file() or "__pycache__" in rel or any(p.startswith(".") for p in rel):
                continue
            files.append(path)
    out = []
    for path in files:
        data = path.read_bytes()
        if b"\0" in data:
            continue
        out.append(path)
    return out


def entries() -> dict[int, str]:
    text = DECISIONS.read_text(encoding="utf-8")
    found: dict[int, str] = {}
    for m in HEADING.finditer(text):
        n = int(m.group(1))
        assert n not in found, f"D{n} has two entries"
        found[n] = f"D{n}. {m.group(2)}"
    return found


def test_every_entry_has_a_status_and_superseded_points_to_an_entry() -> None:
    known = entries()
    lines = DECISIONS.read_text(encoding="utf-8").split("\n")
    statuses = 0
    for i, line in enumerate(lines):
        m = HEADING.match(line)
        if not m:
            continue
        status = STATUS.match(lines[i + 1])
        assert status, f"D{m.group(1)}: no status line under its heading: {lines[i + 1]!r}"
        statuses += 1
        if status.group(2):
            target = int(status.group(2))
            assert target in known and target != int(m.group(1)), f"D{m.group(1)}: {lines[i + 1]}"
        for ref in DREF.findall(status.group(3) or ""):
            assert int(ref) in known, f"D{m.group(1)}'s status names D{ref}, which has no entry"
    assert statuses == len(known) > 0


def test_the_index_lists_every_entry_once_under_its_group() -> None:
    known = entries()
    text = DECISIONS.read_text(encoding="utf-8")
    index, rest = text.split("\n## Index\n", 1)[1].split("\n## ", 1)
    where = {}
    for section in re.split(r"^(?=## )", "## " + rest, flags=re.M):
        title = section.removeprefix("## ").split("\n", 1)[0]
        for m in HEADING.finditer(section):
            where[int(m.group(1))] = title
    assert set(where) == set(known)
    listed: list[int] = []
    groups = re.findall(r"^- \[([^\]]+)\]\(#([a-z0-9-]+)\): (.*)$", index, re.M)
    assert groups, "the index has no groups"
    assert [g[0] for g in groups] == list(dict.fromkeys(where.values())), "groups out of order"
    for title, anchor, links in groups:
        assert anchor == slug(title)
        for n, target in re.findall(r"\[D(\d+)\]\(#([a-z0-9-]+)\)", links):
            listed.append(int(n))
            assert int(n) in known, f"the index lists D{n}, which has no entry"
            assert target == slug(known[int(n)]), f"D{n}'s index link is not its heading's anchor"
            assert where[int(n)] == title, f"D{n} is listed under {title} but sits in {where[int(n)]}"
    assert sorted(listed) == sorted(known), "the index does not list every entry exactly once"
    assert len(listed) == len(set(listed))


def test_every_d_reference_in_the_repository_resolves() -> None:
    known = entries()
    unresolved = []
    for path in text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        ranges = set()
        for m in DRANGE.finditer(text):
            lo, hi = int(m.group(1)), int(m.group(2))
            assert lo < hi, f"{path}: {m.group(0)}"
            if lo not in known or not any(lo <= n <= hi for n in known):
                unresolved.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
            ranges.add((m.start(2) - 1, int(m.group(2))))
        for m in DREF.finditer(text):
            if (m.start(), int(m.group(1))) in ranges:
                continue  # the end of a range, judged above
            if int(m.group(1)) not in known:
                unresolved.append(f"{path.relative_to(ROOT)}: D{m.group(1)}")
    assert not unresolved, unresolved


def test_the_mutation_log_and_its_pointers_agree() -> None:
    known = entries()
    text = DECISIONS.read_text(encoding="utf-8")
    log = MUTATION_LOG.read_text(encoding="utf-8")
    logged = [int(n) for n in re.findall(r"^## D(\d+)$", log, re.M)]
    assert logged == sorted(set(logged)) and logged
    pointing = [int(n) for n in re.findall(r"mutation-log\.md#d(\d+)\)", text)]
    assert sorted(pointing) == logged
    for n in logged:
        assert n in known
        assert f"(../docs/decisions.md#{slug(known[n])})" in log, f"D{n}'s log links a stale anchor"


def test_no_text_speaks_of_how_the_work_was_organised() -> None:
    found = []
    for path in text_files():
        if path.resolve() == SELF:
            continue
        rel = str(path.relative_to(ROOT))
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        for lineno, line in enumerate(lines, 1):
            # a line and the next as one, so that words wrapped over a line break are read too;
            # a match is reported at the line where it starts
            both = line.rstrip() + " " + (lines[lineno].lstrip() if lineno < len(lines) else "")
            for m in ORGANISATION.finditer(both):
                if m.start() >= len(line.rstrip()):
                    continue
                if any(rel == f and a in " ".join(both.split()) for (f, a) in ALLOWED):
                    continue
                found.append(f"{rel}:{lineno}: {m.group(0)}")
    assert not found, found


def test_the_organisation_pattern_catches_what_it_forbids() -> None:
    for bad in ("the lead's run", "session 7", "Issue 14, finding 5", "issue #12", "issue-14 helpers",
                "round 3", "D243's round"):
        assert ORGANISATION.search(bad), bad
    for good in ("SetStable leads to S", "the issued ORC", "misleading", "D14", "a round trip",
                 "each round of pre-copy", "rounds send dirty pages"):
        assert not ORGANISATION.search(good), good


# The decisions whose design topic is mutation testing itself (how `tlcrunner mutate` builds, runs
# and classes its mutants, and what it may change), or the conformance suite's own mutants (the
# broken engines its `mutants` command runs): they speak of mutants because that is their subject.
# Every other decision says what the design is and why; how a mutant revealed the need for it, and
# what kills it, is the mutation log's, the decision keeping at most the pointer POINTER.
MUTANT_TOPIC = {
    140: "how `tlcrunner mutate` judges a mutant by the CI-sized models",
    141: "what the catalogue mutates, and its operators",
    142: "mutant ids, seeded samples and the budget",
    143: "how equivalent mutants are listed and argued",
    144: "the mutation score and `make bench`'s sample",
    189: "the class of mutants no property can catch",
    190: "what the mutation operators read",
    210: "a witness as a verdict of the mutation run",
    244: "witnesses are never mutated",
    245: "the order in which a mutant's models run",
    246: "resuming a mutation run",
    259: "the models' environment is not mutated",
    305: "what a mutation run judges",
    350: "how mutants are classed against the contract",
    112: "the conformance `mutants` command and its broken engines",
    113: "bad input to the conformance `mutants` command",
    114: "the bench's time to catch each conformance mutant",
    163: "the conformance mutants run over pipelined JSON lines",
}
MUTATION_WORDS = re.compile(r"\bkilled by\b|\bkills\b|\bsurvived\b|\bmutant", re.I)
POINTER = re.compile(
    r"\*Mutants:\* the mutants behind this decision, and how each was judged, are in\s+"
    + re.escape("[model/mutation-log.md](../model/mutation-log.md#d") + r"\d+\)\."
)


def test_only_the_mutation_testing_decisions_speak_of_mutants() -> None:
    known = entries()
    assert set(MUTANT_TOPIC) <= set(known), set(MUTANT_TOPIC) - set(known)
    text = DECISIONS.read_text(encoding="utf-8")
    speaking: list[str] = []
    topic_speaks: set[int] = set()
    entry = None
    for paragraph in re.split(r"\n\s*\n", text):
        heading = HEADING.search(paragraph)
        if heading:
            entry = int(heading.group(1))
        if entry is None or POINTER.fullmatch(paragraph.strip()):
            continue
        words = MUTATION_WORDS.findall(paragraph)
        if not words:
            continue
        if entry in MUTANT_TOPIC:
            topic_speaks.add(entry)
            continue
        speaking.append(f"D{entry}: {words} in {' '.join(paragraph.split())[:90]!r}")
    assert not speaking, (
        "a decision says what the design is and why; the mutants behind it belong in "
        "model/mutation-log.md:\n" + "\n".join(speaking)
    )
    assert topic_speaks == set(MUTANT_TOPIC), f"no longer about mutants: {set(MUTANT_TOPIC) - topic_speaks}"


def test_the_mutation_words_pattern_catches_what_it_forbids() -> None:
    for bad in ("killed by a property", "Mutants", "the mutant's rule", "it kills", "a mutant survived"):
        assert MUTATION_WORDS.search(bad), bad
    for good in ("SIGKILLs a worker", "the change bit survives host paging", "`tlcrunner mutate`",
                 "the JVM is killed on every way out", "the mutated guard", "killedby"):
        assert not MUTATION_WORDS.search(good), good
    assert POINTER.fullmatch(
        "*Mutants:* the mutants behind this decision, and how each was judged, are in\n"
        "[model/mutation-log.md](../model/mutation-log.md#d232)."
    )


def test_no_decision_cites_a_mutant_id() -> None:
    text = DECISIONS.read_text(encoding="utf-8")
    citing = []
    entry = "the preamble"
    for paragraph in re.split(r"\n\s*\n", text):
        heading = HEADING.search(paragraph)
        if heading:
            entry = f"D{heading.group(1)}"
        ids = MUTANT_ID.findall(paragraph)
        if ids:
            citing.append(f"{entry}: {', '.join(ids)} in {' '.join(paragraph.split())[:80]!r}")
    assert not citing, "mutant ids belong in model/mutation-log.md:\n" + "\n".join(citing)


def test_the_mutant_id_pattern_matches_the_ids_the_tool_writes() -> None:
    ids = [e["id"] for e in json.loads(EQUIVALENT.read_text(encoding="utf-8"))["equivalent"]]
    assert ids
    for mutant in ids:
        assert MUTANT_ID.fullmatch(mutant), mutant
        assert MUTANT_ID.findall(f"the mutant {mutant} (a guard dropped), `{mutant}`") == [mutant] * 2
    assert MUTANT_ID.search(MUTATION_LOG.read_text(encoding="utf-8")), "the log cites no mutant"
    for not_an_id in ("1234567890", "cb5573868ea8", "0f54755343f5", "#d170-balloonings",
                      "deadbeef", "a3e5a8a", "MCESSA_Finding_F1_KVMGmap", "abcdef01234"):
        assert not MUTANT_ID.search(not_an_id), not_an_id
