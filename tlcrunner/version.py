"""``cmma-spec --version``: the package's version and the commit it was built from.

In a checkout the commit is git's HEAD there, marked when the work tree has uncommitted changes.
An installed package carries the commit of the sources it was built from in the file ``COMMIT`` beside this module
(setup.py writes it at build time: git's HEAD of the sources, else the ``COMMIT`` file the
sources carry, else ``unknown``).
"""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path
from typing import Final

DISTRIBUTION: Final = "cmma-spec"
COMMIT_FILE: Final = "COMMIT"
UNKNOWN: Final = "unknown"


def _git(directory: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(directory), *args], capture_output=True,
                              text=True, timeout=10, stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_commit(directory: Path) -> str | None:
    """HEAD of the git work tree ``directory`` is the top of (None: not one), with ``+changes``
    when tracked files differ from it."""
    if not (directory / ".git").exists():
        return None
    head = _git(directory, "rev-parse", "HEAD")
    if not head:
        return None
    changed = _git(directory, "status", "--porcelain", "--untracked-files=no")
    return head + ("+changes" if changed else "")


def source_commit(directory: Path) -> str:
    """The commit of the sources in ``directory``, for the build (setup.py)."""
    carried = directory / "tlcrunner" / COMMIT_FILE
    if (commit := git_commit(directory)) is not None:
        return commit
    if carried.is_file():
        return carried.read_text(encoding="utf-8").strip() or UNKNOWN
    return UNKNOWN


def commit() -> str:
    """The commit this code is: the checkout's HEAD, else the one the package was built from."""
    here = Path(__file__).resolve().parent
    from .locations import in_checkout

    if in_checkout():
        return git_commit(here.parent) or UNKNOWN
    carried = here / COMMIT_FILE
    return carried.read_text(encoding="utf-8").strip() if carried.is_file() else UNKNOWN


def version_line() -> str:
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        version = UNKNOWN
    return f"{DISTRIBUTION} {version} (commit {commit()})"
