"""A pip install of the repository works outside the checkout, with no network.

The wheel a user's ``pip install`` builds is built from a copy of the sources, installed into a
fresh virtual environment, and used from another directory with an empty HOME: every package the
sources hold imports from the install (found by walking the sources, so a package the build
leaves out fails here), ``cmma-spec --version`` names the version and the commit, every command
and subcommand answers ``--help``, ``check`` finds the packaged specs and models and TLC's jar in
the user's cache folder (a copy of the verified jar, so no download), and ``conformance run``
checks an engine of each machine. The wheel is installed without its dependencies (hypothesis,
itf-py), which the fresh environment takes from this test's own environment by one ``.pth`` line,
so the test needs no package index. About a minute on two busy cores.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tlcrunner.console import COMMANDS
from tlcrunner.fetch import JAR_NAME
from tlcrunner.version import COMMIT_FILE, git_commit

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "tlcrunner", "refimpl", "conformance", "spec",
           "model")  # fmt: skip
ROOTS = ("tlcrunner", "refimpl", "conformance")

#: ``conformance run`` of each machine on one profile, on an engine the package carries, with a
#: small budget (the ESSA modes' default budgets: a few seconds each).
ONE_ESSA_PROFILE = ["--storage-keys", "--facility147", "--cbrl-size", "1", "--cmma-enabled"]
MACHINE_RUNS = {
    "PageStates": ["--engine-class", "conformance.pagestates.engine:ReferenceEngine",
                   "--examples", "5", "--steps", "5"],
    "ESSA": ["--machine", "ESSA", "--impl", "KVMGmap", "--engine-class",
             "conformance.essa:KVMGmapEngine", *ONE_ESSA_PROFILE, "--bugs", "none",
             "--prebuilt-page-tables", "--no-machine-interprets-essa", "--modern-guest"],
    "ESSAMigration": ["--machine", "ESSAMigration", "--impl", "KVMClassic", *ONE_ESSA_PROFILE,
                      "--engine-class", "conformance.essa_migration:EssaMigrationReferenceEngine"],
    "ESSAMigrationVMM": ["--machine", "ESSAMigrationVMM", "--impl", "KVMClassic", *ONE_ESSA_PROFILE,
                         "--pages", "1", "--engine-class",
                         "conformance.essa_migration:EssaVmmReferenceEngine"],
}  # fmt: skip


def source_packages() -> list[str]:
    """Every package of the sources: each directory with an ``__init__.py`` under the roots."""
    return sorted(".".join(init.parent.relative_to(REPO).parts)
                  for root in ROOTS for init in (REPO / root).rglob("__init__.py")
                  if "build" not in init.parts)  # fmt: skip


def conformance_commands() -> list[str]:
    from conformance.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sorted(sub.choices)  # type: ignore[arg-type]


def test_every_machine_has_an_install_run() -> None:
    from conformance.machines import MACHINES

    assert set(MACHINE_RUNS) == set(MACHINES)


@pytest.mark.skipif(importlib.util.find_spec("wheel") is None, reason="needs the wheel package (in .[dev])")
def test_installed_package_works_outside_the_checkout(tlc_jar: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy)(
            REPO / name, src / name, **({"ignore": shutil.ignore_patterns("__pycache__", "build",
                                                                           COMMIT_FILE)}
                                        if (REPO / name).is_dir() else {}),
        )  # fmt: skip
    # The copy is no git work tree: it carries its commit as a source archive would.
    commit = git_commit(REPO) or "unknown"
    (src / "tlcrunner" / COMMIT_FILE).write_text(commit + "\n", encoding="utf-8")
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
    python = venv / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                .stdout.strip())  # fmt: skip
    # The dependencies, from this environment: a plain path line adds the directory, and runs
    # none of its .pth files (so this checkout's editable install stays out).
    (site / "deps-from-the-test.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    home, cache, elsewhere = tmp_path / "home", tmp_path / "cache", tmp_path / "elsewhere"
    for d in (home, cache / "cmma-spec", elsewhere):
        d.mkdir(parents=True)
    shutil.copy(tlc_jar, cache / "cmma-spec" / JAR_NAME)
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(cache)}
    env.pop("PYTHONPATH", None)
    command = venv / "bin" / "cmma-spec"

    # Every package of the sources imports, from the install.
    packages = source_packages()
    assert "conformance.essa_migration" in packages
    imported = run(python, "-c", "import importlib, sys\nfor p in sys.argv[1:]:\n"
                   "    m = importlib.import_module(p); print(p, m.__file__)", *packages,
                   cwd=elsewhere, env=env)  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    for line in imported.stdout.splitlines():
        assert Path(line.split()[1]).is_relative_to(site), line

    version = run(command, "--version", cwd=elsewhere, env=env)
    assert version.returncode == 0 and version.stdout == f"cmma-spec 0.1.0 (commit {commit})\n"

    # Every command's --help, and every subcommand's.
    helps = [[name, "--help"] for name in COMMANDS]
    helps += [["conformance", sub, "--help"] for sub in conformance_commands()]
    for argv in helps:
        shown = run(command, *argv, cwd=elsewhere, env=env)
        assert shown.returncode == 0 and "usage:" in shown.stdout, (argv, shown.stderr)

    where = run(python, "-c",
                "from tlcrunner.fetch import default_jar; from tlcrunner.locations import data_root;"
                "print(default_jar()); print(data_root())", cwd=elsewhere, env=env)  # fmt: skip
    jar_path, data = where.stdout.split()
    assert Path(jar_path) == cache / "cmma-spec" / JAR_NAME
    assert Path(data).is_relative_to(venv) and (Path(data) / "spec" / "PageStates.tla").is_file()

    check = run(command, "check", "--models", "MCPageStates_Twin_SSIND", "--traces",
                cwd=elsewhere, env=env)  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.splitlines()[-1] == (
        "models: 1 as expected, 0 not; 1 twins by their contract alone: 1 as recorded, 0 open "
        "holes, 0 not")  # the twin's row, and its row against its contract alone (it breaks a promise)
    assert "SetStableIfNotDiscarded p1  Success  Sz  Sz" in check.stdout
    assert (elsewhere / "results" / "check.json").is_file()

    steps = run(command, "run", "-", input="SetVolatile 0\nExtract 0\n", cwd=elsewhere, env=env)
    assert steps.returncode == 0, steps.stderr
    assert "Vz" in steps.stdout

    # One conformance run of each machine, from the installed package.
    for machine, argv in MACHINE_RUNS.items():
        ran = run(command, "conformance", "run", *argv, "--no-database", "--quiet",
                  cwd=elsewhere, env=env)  # fmt: skip
        assert ran.returncode == 0, (machine, ran.stdout, ran.stderr)
        assert ran.stdout.splitlines()[-1].startswith("SUMMARY: conforms"), (machine, ran.stdout)

    # What the package cannot do, it says so plainly (usage error), not as a TLC failure.
    equal = run(command, "equal", "--pages", "1", cwd=elsewhere, env=env)
    assert equal.returncode == 2 and "needs a checkout" in equal.stderr


def test_version_in_the_checkout_is_its_head() -> None:
    from tlcrunner.console import main
    from tlcrunner.version import version_line

    assert main(["--version"]) == 0
    head = git_commit(REPO)
    assert head is None or version_line().endswith(f"(commit {head})")
