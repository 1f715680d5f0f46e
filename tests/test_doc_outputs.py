"""Every output the documentation shows is what its command prints today (D160): the
generated blocks are run and compared (refimpl/doc_outputs.py, `make outputs`), and every other
fenced output block says why it is not generated."""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

import pytest

from refimpl.core.package import REPO_ROOT
from refimpl.doc_outputs import DOCS, OUTPUTS, Output, block_text, committed, differs, run


@pytest.mark.parametrize("output", OUTPUTS, ids=[o.name for o in OUTPUTS])
def test_the_block_is_what_its_command_prints(output: Output) -> None:
    fresh = block_text(output, run(output))
    if differs(output, fresh):
        diff = "".join(difflib.unified_diff(
            committed(output).splitlines(keepends=True), fresh.splitlines(keepends=True),
            fromfile=f"{output.doc}: {output.name}", tofile="printed now", n=1,
        ))  # fmt: skip
        pytest.fail(f"{output.doc}'s block {output.name} has drifted; run `make outputs`.\n{diff}",
                    pytrace=False)  # fmt: skip


def test_every_marked_block_is_generated_and_every_generated_block_is_marked() -> None:
    marked = set()
    for doc in DOCS:
        text = (REPO_ROOT / doc).read_text(encoding="utf-8")
        marked |= {(doc, n) for n in re.findall(r"<!-- output ([\w-]+): begin -->", text)}
    assert marked == {(o.doc, o.name) for o in OUTPUTS}
    assert len({o.name for o in OUTPUTS}) == len(OUTPUTS)


def _fences(text: str) -> list[tuple[int, str]]:
    """(line number, info string) of each fenced block's opening line."""
    fences, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            if not inside:
                fences.append((number, line.strip()[3:]))
            inside = not inside
    return fences


@pytest.mark.parametrize("doc", DOCS)
def test_an_output_block_is_generated_or_says_why_not(doc: str) -> None:
    """A fenced block without a language shows output: it lies between output markers, or the
    line before it is an <!-- illustrative: why --> comment."""
    lines = (REPO_ROOT / doc).read_text(encoding="utf-8").splitlines()
    open_marker = None
    generated = set()
    for number, line in enumerate(lines, 1):
        if re.match(r"<!-- output [\w-]+: begin -->", line):
            open_marker = number
        elif re.match(r"<!-- output [\w-]+: end -->", line):
            open_marker = None
        elif open_marker is not None:
            generated.add(number)
    unexplained = [
        f"{doc}:{number}" for number, info in _fences("\n".join(lines))
        if not info and number not in generated and not lines[number - 2].startswith("<!-- illustrative: ")
    ]  # fmt: skip
    assert not unexplained, "output blocks neither generated nor marked illustrative: " + ", ".join(unexplained)


def test_a_drifted_block_is_caught_and_a_new_timing_is_not(tmp_path: Path) -> None:
    """The comparison without running anything: the committed block of the README's divergence
    report against itself with one step changed (the drift once found: Write 0 1 where the
    run prints Write 0 0), and with its measured seconds changed."""
    output = next(o for o in OUTPUTS if o.name == "conformance-divergence")
    block = committed(output)
    (tmp_path / output.doc).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO_ROOT / output.doc, tmp_path / output.doc)
    assert not differs(output, block, tmp_path)
    assert "Write 0 0" in block
    assert differs(output, block.replace("Write 0 0", "Write 0 1"), tmp_path)
    retimed = re.sub(r"\d+\.\d s\)", "12.3 s)", block)
    assert retimed != block and not differs(output, retimed, tmp_path)


def _tables(text: str) -> list[list[list[str]]]:
    """Every Markdown table of the text, as rows of cells (the header first, the rule left out)."""
    tables: list[list[list[str]]] = []
    previous_was_row = False
    for line in text.splitlines():
        is_row = line.startswith("|") and line.rstrip().endswith("|")
        if is_row and not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line.strip()):
            cells = [c.strip() for c in line.strip()[1:-1].split("|")]
            if not previous_was_row:
                tables.append([])
            tables[-1].append(cells)
        previous_was_row = is_row
    return tables


def test_the_readmes_model_figures_are_the_pinned_ones() -> None:
    """The tables of models in docs/checking.md (the deeper models, the benchmark's) and the rest
    of the design book come from runs too long
    for this suite; their distinct states, depth and expected outcome are checked against the
    pins of model/manifest.json, which `make check` compares with TLC's own output. Seconds are
    measurements and are not checked."""
    import json

    pins = {m["name"]: m for m in json.loads((REPO_ROOT / "model" / "manifest.json").read_text())["models"]}
    checked, wrong = 0, []
    book = "".join((REPO_ROOT / f).read_text(encoding="utf-8")
                   for f in ("README.md", "docs/checking.md", "docs/specification.md"))
    for table in _tables(book):
        header = table[0]
        columns = {"distinct states": "distinct", "distinct with": "distinct", "depth": "depth",
                   "expected": "expect"}  # fmt: skip
        for row in table[1:]:
            name = row[0].strip("`")
            if name not in pins:
                continue
            for heading, key in columns.items():
                if heading not in header:
                    continue
                shown = row[header.index(heading)].replace(",", "")
                pinned = str(pins[name][key])
                checked += 1
                if shown != pinned:
                    wrong.append(f"{name}: {heading} {shown}, pinned {pinned}")
    assert not wrong, "README figures that are not the manifest's:\n" + "\n".join(wrong)
    assert checked >= 40  # the deeper models' table, the benchmark's, the symmetry table


def test_the_readmes_counts_of_models_and_mutants_are_the_trees() -> None:
    """docs/checking.md's count of models (all, CI-sized) is the manifest's, and the catalogue size it
    gives for `make mutate` is the tool's."""
    import json

    from tlcrunner import mutate

    models = json.loads((REPO_ROOT / "model" / "manifest.json").read_text())["models"]
    checking = (REPO_ROOT / "docs" / "checking.md").read_text(encoding="utf-8")
    mutation = (REPO_ROOT / "docs" / "mutation.md").read_text(encoding="utf-8")
    ci = sum(m.get("size") == "ci" for m in models)
    assert f"({len(models)} models: {ci} CI-sized, run by `make test`" in checking
    assert f"# the whole catalogue ({len(mutate.whole_catalogue()):,} mutants)" in mutation


def _shown_commands() -> list[tuple[str, str, list[str]]]:
    """(file, module, arguments) of every `python -m conformance|refimpl|tlcrunner check` command
    in the sh blocks of the documentation."""
    import shlex

    found = []
    for doc in DOCS:
        text = (REPO_ROOT / doc).read_text(encoding="utf-8")
        for block in re.findall(r"^```sh\n(.*?)^```\n", text, re.S | re.M):
            for line in block.replace("\\\n", " ").splitlines():
                tokens = shlex.split(line, comments=True)
                for i, token in enumerate(tokens[:-1]):
                    if token == "-m" and tokens[i + 1] in ("conformance", "refimpl", "tlcrunner"):
                        args = []
                        for t in tokens[i + 2:]:
                            if t in ("|", "&&", ";", "<", ">"):
                                break
                            args.append(t)
                        found.append((doc, tokens[i + 1], args))
    return found


def test_every_command_the_documentation_shows_parses() -> None:
    """Each command is parsed by its program's own argument parser (not run): a renamed option
    or subcommand fails here. tlcrunner's other commands (simulate, worker) have no parser of
    their own to ask and are left out."""
    from conformance.cli import build_parser as conformance_parser
    from refimpl.cli import build_parser as refimpl_parser
    from tlcrunner.check import build_parser as check_parser

    commands = _shown_commands()
    assert len(commands) >= 30
    wrong = []
    for doc, module, args in commands:
        if module == "tlcrunner":
            if args[:1] != ["check"]:
                continue
            parser, argv = check_parser(), args[1:]
        else:
            parser, argv = (conformance_parser() if module == "conformance" else refimpl_parser()), args
        try:
            parser.parse_args(argv)
        except SystemExit:
            wrong.append(f"{doc}: python -m {module} {' '.join(args)}")
    assert not wrong, "commands their program does not accept:\n" + "\n".join(wrong)
