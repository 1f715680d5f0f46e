"""The command outputs the documentation shows, produced by running the commands, not typed.

Each output block in README.md and conformance/README.md is one command and what it prints,
between two marker comments naming an entry of OUTPUTS::

    <!-- output NAME: begin -->
    ```sh
    COMMAND
    ```
    ```
    WHAT IT PRINTS ON STDOUT
    ```
    <!-- output NAME: end -->

``python -m refimpl.doc_outputs`` (``make outputs``) runs every command and rewrites its block;
``--check`` rewrites nothing and exits 1 naming each block that differs, and the test suite does
the same (tests/test_doc_outputs.py), as it does for the diagrams. The command in the block is
the one that is run, so a block cannot stand for two commands or for a command it was not made by.

A command runs under bash in a scratch folder (what it saves there is thrown away), with the
README's ``.venv/bin/python`` replaced by the interpreter running this module. Parts that are
measured (seconds, steps per second) differ from run to run: each entry names them with regular
expressions, and they are compared as ``<measured>``; everything else must be equal.

A fenced block with no language in these files is an output: it is generated here, or it is
preceded by ``<!-- illustrative: why -->`` saying why it is not (tests/test_doc_outputs.py checks
that every one is one or the other).
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from .core.package import REPO_ROOT

#: A duration as the tools print it ("0.0 s", "(1.9 s)"), and a rate ("85,355 steps/s").
SECONDS: Final = r"\d+(?:\.\d+)? s\b"
STEPS_PER_SECOND: Final = r"[\d,]+ steps/s"
MEASURED: Final = "<measured>"


@dataclass(frozen=True)
class Output:
    name: str  # the marker's name, unique across the files
    doc: str  # the file holding the block, relative to the repository root
    command: str  # shown as is; run by bash
    exit_status: int  # what the command exits with; anything else means the example broke
    volatile: tuple[str, ...] = ()  # regular expressions of the measured parts of its output


#: Every generated block. The conformance reports are a mutant each (a divergence is what a
#: report shows); classify is given every constant but Impl and Bugs, so that it prints the rows
#: of one constant set (left open, it tries all 32, for minutes).
OUTPUTS: Final = (
    Output("refimpl-run", "docs/refimpl.md",
           "printf 'HostZeroFill 0\\nWrite 0 1\\nSetVolatile 0\\nHostDiscard 0\\nRead 0\\n"
           "SetStableIfNotDiscarded 0\\n' \\\n"
           "  | .venv/bin/python -m refimpl run --variant ZVMPrototype -", 0),
    Output("conformance-divergence", "docs/conformance.md",
           ".venv/bin/python -m conformance run --engine-class conformance.pagestates.mutants:PageInLosesDirty "
           "--no-database --quiet", 1, (SECONDS, STEPS_PER_SECOND)),
    Output("essa-classify", "docs/specification.md",
           ".venv/bin/python -m conformance classify --engine-class conformance.essa:KVMGmapEngine "
           "\\\n  --no-storage-keys --no-facility147 --cbrl-size 1 --no-prebuilt-page-tables "
           "--cmma-enabled", 0, (SECONDS,)),
    Output("conformance-report", "conformance/README.md",
           ".venv/bin/python -m conformance run --engine-class conformance.pagestates.mutants:DiscardsDirtyP "
           "--no-database --quiet", 1, (SECONDS, STEPS_PER_SECOND)),
)  # fmt: skip

#: The files whose fenced blocks tests/test_doc_outputs.py accounts for.
DOCS: Final = ("README.md", "docs/refimpl.md", "docs/conformance.md", "docs/specification.md",
               "docs/kernel.md", "docs/checking.md", "docs/apalache.md", "docs/mutation.md",
               "conformance/README.md", "conformance/PROTOCOL.md",
               "conformance/engines/essa-go/README.md", "conformance/engines/linux/README.md")  # fmt: skip


class MissingBlock(Exception):
    """A file lacks the markers of an entry of OUTPUTS, or has them twice."""


def _markers(name: str) -> re.Pattern[str]:
    return re.compile(rf"<!-- output {re.escape(name)}: begin -->\n(.*?)<!-- output {re.escape(name)}: end -->\n",
                      re.S)  # fmt: skip


def block_text(output: Output, printed: str) -> str:
    """The block as the file holds it between the markers."""
    if printed and not printed.endswith("\n"):
        printed += "\n"
    return f"```sh\n{output.command}\n```\n```\n{printed}```\n"


def committed(output: Output, root: Path = REPO_ROOT) -> str:
    """What the file holds between the entry's markers."""
    found = _markers(output.name).findall((root / output.doc).read_text(encoding="utf-8"))
    if len(found) != 1:
        raise MissingBlock(f"{output.doc}: {len(found)} blocks marked <!-- output {output.name}: "
                           "begin/end --> (one is needed)")  # fmt: skip
    return str(found[0])


def run(output: Output, timeout: float = 600) -> str:
    """What the command prints on stdout, run as a reader would run it from a checkout."""
    command = output.command.replace(".venv/bin/python", shlex.quote(sys.executable))
    with tempfile.TemporaryDirectory(prefix="doc-output-") as scratch:
        done = subprocess.run(["bash", "-c", command], cwd=scratch, capture_output=True, text=True,
                              timeout=timeout)  # fmt: skip
    if done.returncode != output.exit_status:
        raise RuntimeError(f"{output.name}: `{output.command}` exited {done.returncode}, not "
                           f"{output.exit_status}; stderr:\n{done.stderr[-2000:]}")  # fmt: skip
    return done.stdout


def masked(output: Output, text: str) -> str:
    """The text with its measured parts replaced, for comparison."""
    for pattern in output.volatile:
        text = re.sub(pattern, MEASURED, text)
    return text


def differs(output: Output, fresh_block: str, root: Path = REPO_ROOT) -> bool:
    return masked(output, committed(output, root)) != masked(output, fresh_block)


def rewrite(output: Output, fresh_block: str, root: Path = REPO_ROOT) -> None:
    path = root / output.doc
    text = path.read_text(encoding="utf-8")
    committed(output, root)  # exactly one block, or MissingBlock
    begin, end = f"<!-- output {output.name}: begin -->\n", f"<!-- output {output.name}: end -->\n"
    path.write_text(_markers(output.name).sub(lambda _: begin + fresh_block + end, text), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m refimpl.doc_outputs", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="rewrite nothing; exit 1 if a block differs from what its command prints")
    parser.add_argument("names", nargs="*", help="only these blocks (default: all)")
    args = parser.parse_args(argv)
    chosen = [o for o in OUTPUTS if not args.names or o.name in args.names]
    unknown = set(args.names) - {o.name for o in OUTPUTS}
    if unknown:
        parser.error(f"no output block named {', '.join(sorted(unknown))}; "
                     f"known: {', '.join(o.name for o in OUTPUTS)}")  # fmt: skip
    stale = []
    for output in chosen:
        print(f"{output.doc}: {output.name}: running `{output.command}`", file=sys.stderr)
        fresh = block_text(output, run(output))
        if not differs(output, fresh):
            continue
        stale.append(output)
        if not args.check:
            rewrite(output, fresh)
            print(f"{output.doc}: {output.name}: rewritten", file=sys.stderr)
    if args.check and stale:
        print("differ from what their commands print (run `make outputs`): "
              + ", ".join(f"{o.doc}: {o.name}" for o in stale), file=sys.stderr)  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
