"""The README's tour works: each of its three commands is run as a newcomer would run it, from
the repository root, and does what the tour says (D161)."""

from __future__ import annotations

import re
import subprocess

import pytest

from refimpl.core.package import REPO_ROOT

README = REPO_ROOT / "README.md"


def tour_commands() -> list[str]:
    """The command lines between the tour's markers, without their comments."""
    m = re.search(r"<!-- tour: begin -->\n```sh\n(.*?)```\n<!-- tour: end -->", README.read_text(encoding="utf-8"), re.S)
    assert m is not None, "README.md lacks the <!-- tour: begin/end --> block"
    return [line.split("   #", 1)[0].strip() for line in m.group(1).splitlines() if line.strip()]


def test_the_tour_is_three_commands_near_the_top() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(tour_commands()) == 3
    # One screen: the tour ends, and the reading list with it, within the README's first 45 lines.
    assert text[: text.index("## Requirements")].count("\n") <= 45


#: What each step must print, in the order of the tour: the model as expected; the read of the
#: discarded page a discard fault; the C engine conforming.
EXPECTED = (r"models: 1 as expected, 0 not", r"Read 0\s+DiscardFault\s+Vz", r"\nconforms\n")


@pytest.mark.parametrize("step", range(3), ids=["check the spec", "run the refimpl", "test an engine"])
def test_each_tour_command_works(step: int) -> None:
    command = tour_commands()[step]
    done = subprocess.run(["bash", "-c", command], cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"`{command}` exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert re.search(EXPECTED[step], done.stdout), done.stdout[-3000:]
