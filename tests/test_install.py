"""A pip install of the repository checks models outside the checkout, with no network.

The wheel a user's ``pip install`` builds is built from a copy of the sources, installed into a
fresh virtual environment, and its ``cmma-spec`` command run from another directory with an
empty HOME: it must find the packaged specs and models, and TLC's jar in the user's cache
folder (here a copy of the verified jar, so the test needs no download). About 10 s: building
the wheel, a venv, one small model.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tlcrunner.fetch import JAR_NAME

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "tlcrunner", "refimpl", "conformance", "spec", "model")


@pytest.mark.skipif(importlib.util.find_spec("wheel") is None, reason="needs the wheel package (in .[dev])")
def test_installed_command_checks_a_model_outside_the_checkout(tlc_jar: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy)(
            REPO / name, src / name, **({"ignore": shutil.ignore_patterns("__pycache__", "build")}
                                        if (REPO / name).is_dir() else {}),
        )  # fmt: skip
    run = lambda *cmd, **kw: subprocess.run(  # noqa: E731
        [str(c) for c in cmd], capture_output=True, text=True, timeout=180, **kw
    )
    built = run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                "-w", tmp_path / "dist", src)  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("cmma_spec-*.whl")
    venv = tmp_path / "venv"
    assert run(sys.executable, "-m", "venv", "--without-pip", venv).returncode == 0
    installed = run(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install",
                    "--quiet", "--no-deps", wheel)  # fmt: skip
    assert installed.returncode == 0, installed.stderr

    home, cache, elsewhere = tmp_path / "home", tmp_path / "cache", tmp_path / "elsewhere"
    for d in (home, cache / "cmma-spec", elsewhere):
        d.mkdir(parents=True)
    shutil.copy(tlc_jar, cache / "cmma-spec" / JAR_NAME)
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(cache)}
    env.pop("PYTHONPATH", None)
    command = venv / "bin" / "cmma-spec"

    where = run(venv / "bin" / "python", "-c",
                "from tlcrunner.fetch import default_jar; from tlcrunner.locations import data_root;"
                "print(default_jar()); print(data_root())", cwd=elsewhere, env=env)  # fmt: skip
    jar_path, data = where.stdout.split()
    assert Path(jar_path) == cache / "cmma-spec" / JAR_NAME
    assert Path(data).is_relative_to(venv) and (Path(data) / "spec" / "PageStates.tla").is_file()

    check = run(command, "check", "--models", "MCPageStates_Twin_SSIND", "--traces",
                cwd=elsewhere, env=env)  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.splitlines()[-1] == "models: 1 as expected, 0 not"
    assert "SetStableIfNotDiscarded p1  Success  Sz  Sz" in check.stdout
    assert (elsewhere / "results" / "check.json").is_file()

    steps = run(command, "run", "-", input="SetVolatile 0\nExtract 0\n", cwd=elsewhere, env=env)
    assert steps.returncode == 0, steps.stderr
    assert "Vz" in steps.stdout

    # What the package cannot do, it says so plainly (usage error), not as a TLC failure.
    equal = run(command, "equal", "--pages", "1", cwd=elsewhere, env=env)
    assert equal.returncode == 2 and "needs a checkout" in equal.stderr
