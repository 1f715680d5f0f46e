"""Where the shipped engines are built, and building them.

* the PageStates engine in C (conformance/engines/cmma_engine.c): :func:`ensure_built`;
* the ESSA engine in Go (conformance/engines/essa-go/, written from PROTOCOL.md's ESSA section;
  ``-impl`` chooses the Impl the hello leaves open): :func:`ensure_essa_go_built`;
* the ESSA engine in Rust (conformance/engines/essa-rs/, written from PROTOCOL.md alone, with the
  held-out bug catalogue behind ``ESSA_RS_BUG``; ``--impl`` as the Go one's):
  :func:`ensure_essa_rs_built`.

``make engines`` builds them; these do the same from Python (tests, benchmarks) when a binary is
missing or older than its sources, with the Makefile's commands.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Final

SOURCE: Final = Path(__file__).resolve().parent / "engines" / "cmma_engine.c"
BINARY: Final = SOURCE.parent / "build" / "cmma-engine"
FLAGS: Final = ("-O2", "-std=c11", "-Wall", "-Wextra", "-Werror")


GO_SOURCES: Final = SOURCE.parent / "essa-go"
GO_BINARY: Final = SOURCE.parent / "build" / "essa-engine"


def _fresh(binary: Path, *sources: Path) -> bool:
    return binary.is_file() and all(binary.stat().st_mtime >= s.stat().st_mtime for s in sources)


def ensure_built() -> Path:
    """The engine's path, compiled first if needed. Raises RuntimeError if it cannot be."""
    if _fresh(BINARY, SOURCE):
        return BINARY
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        raise RuntimeError(f"no C compiler ({cc}) to build {SOURCE}: install gcc, or run `make engines`")
    BINARY.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([cc, *FLAGS, "-o", str(BINARY), str(SOURCE)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"building {SOURCE} failed:\n{result.stderr}")
    return BINARY


def ensure_essa_go_built() -> Path:
    """The Go ESSA engine's path, built first if needed. Raises RuntimeError if it cannot be."""
    sources = sorted(GO_SOURCES.glob("*.go")) + [GO_SOURCES / "go.mod"]
    if _fresh(GO_BINARY, *sources):
        return GO_BINARY
    go = shutil.which("go")
    if go is None:
        raise RuntimeError(f"no Go toolchain to build {GO_SOURCES}: install go, or run `make engines`")
    GO_BINARY.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([go, "build", "-o", str(GO_BINARY), "."], cwd=GO_SOURCES,
                            capture_output=True, text=True)  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"building {GO_SOURCES} failed:\n{result.stderr}")
    return GO_BINARY


RS_SOURCES: Final = SOURCE.parent / "essa-rs"
RS_BINARY: Final = SOURCE.parent / "build" / "essa-rs"


def ensure_essa_rs_built() -> Path:
    """The Rust ESSA engine's path, built first if needed. Raises RuntimeError if it cannot be."""
    sources = sorted((RS_SOURCES / "src").glob("*.rs")) + [RS_SOURCES / "Cargo.toml"]
    if _fresh(RS_BINARY, *sources):
        return RS_BINARY
    cargo = shutil.which("cargo")
    if cargo is None:
        raise RuntimeError(f"no cargo to build {RS_SOURCES}: install Rust, or run `make engines`")
    target = RS_BINARY.parent / "essa-rs-target"
    result = subprocess.run([cargo, "build", "--quiet", "--release", "--offline", "--manifest-path",
                             str(RS_SOURCES / "Cargo.toml"), "--target-dir", str(target)],
                            capture_output=True, text=True)  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"building {RS_SOURCES} failed:\n{result.stderr}")
    shutil.copyfile(target / "release" / "essa-rs", RS_BINARY)
    RS_BINARY.chmod(0o755)
    return RS_BINARY
