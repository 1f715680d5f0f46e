"""The kernel harness's toolchain check: a machine with the s390x compiler and qemu but without
the cross C library's headers (libc6-dev-s390x-cross, dropped by --no-install-recommends) is told
so in one sentence, by kernel-check and by the skipped kernel tests, instead of failing to compile.

The headers are hidden by a compiler wrapper: the real s390x compiler with -nostdinc where it is
installed, else a stand-in that fails as that compiler does without the package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REAL_CC = shutil.which("s390x-linux-gnu-gcc")


def _headerless_toolchain(tmp_path: Path) -> dict[str, str]:
    cc = tmp_path / "s390x-gcc-without-headers"
    if REAL_CC:
        cc.write_text(f'#!/bin/sh\nexec {REAL_CC} -nostdinc "$@"\n')
    else:
        cc.write_text("#!/bin/sh\necho '<stdin>:1:10: fatal error: bits/wordsize.h: "
                      "No such file or directory' >&2\nexit 1\n")
    cc.chmod(0o755)
    qemu = shutil.which("qemu-s390x") or shutil.which("true")
    assert qemu is not None
    env = dict(os.environ, S390X_CC=str(cc), QEMU_S390X=qemu)
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def test_missing_headers_are_named_with_the_package(tmp_path: Path) -> None:
    env = _headerless_toolchain(tmp_path)
    r = subprocess.run([sys.executable, "-c", "from conformance.engines.linux.kernels import "
                        "toolchain_missing; print(toolchain_missing())"],
                       cwd=REPO, env=env, capture_output=True, text=True, check=True)  # fmt: skip
    why = r.stdout.strip()
    assert "no s390x C library headers" in why and "bits/wordsize.h" in why
    assert why.endswith("apt-get install libc6-dev-s390x-cross")


def test_kernel_check_stops_before_building_and_says_what_to_install(tmp_path: Path) -> None:
    env = _headerless_toolchain(tmp_path)
    env["KERNEL_SRC"] = str(tmp_path)  # never reached: the toolchain is checked first
    r = subprocess.run([sys.executable, "-m", "conformance.engines.linux.check", "--harness",
                        "classic", "--out", str(tmp_path / "out")],
                       cwd=REPO, env=env, capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 3, r.stderr
    assert "apt-get install libc6-dev-s390x-cross" in r.stderr
    assert "compiling" not in r.stderr  # no compiler error dump: the probe came first


def test_the_kernel_tests_are_skipped_with_the_reason(tmp_path: Path) -> None:
    env = _headerless_toolchain(tmp_path)
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs",
                        "-p", "no:randomly", "tests/test_kernel_engine.py"],
                       cwd=REPO, env=env, capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stdout[-2000:]
    assert " passed" not in r.stdout and "skipped" in r.stdout
    assert "libc6-dev-s390x-cross" in r.stdout
