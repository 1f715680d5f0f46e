"""The gmap tree from a kernel git clone: ``gmap_tree --git COMMIT OUT`` prints the commands
(``git show COMMIT:PATH`` for each file the commit has, the Makefile, then ``--check``), and run
in a clone they lay out files whose blob ids are the commit's (conformance/engines/linux/
gmap_tree.py). A synthetic clone, no kernel code: the files are a few bytes each."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.engines.linux import gmap_tree

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_printed_commands_lay_the_tree_out_of_a_clone(tmp_path: Path) -> None:
    clone = tmp_path / "linux"
    files = {p: f"/* {p} */\n" for p in gmap_tree.LAYOUTS["7.0"]}
    files["Makefile"] = gmap_tree.makefile("7.1")
    for p, text in files.items():
        (clone / p).parent.mkdir(parents=True, exist_ok=True)
        (clone / p).write_text(text)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PYTHONPATH": str(REPO)}
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "tree"]):
        subprocess.run(cmd, cwd=clone, check=True, env=env)
    out = io.StringIO()
    tree = tmp_path / "gmap"
    assert gmap_tree.main(["--git", "HEAD", str(tree)], out) == 0
    commands = out.getvalue()
    assert "git show HEAD:arch/s390/kvm/dat.c > " in commands
    assert commands.rstrip().splitlines()[-1].endswith(f"gmap_tree --check {tree}")
    script = commands.replace("python -m", f"{sys.executable} -m")
    r = subprocess.run(["sh", "-c", script], cwd=clone, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{tree}: layout 7.0" in r.stdout
    for p, text in files.items():
        assert (tree / p).read_text() == text
