"""Where the C engine (conformance/engines/cmma_engine.c) is built, and building it.

``make engines`` builds it; :func:`ensure_built` does the same from Python (tests, benchmarks)
when the binary is missing or older than its source, with the Makefile's compiler flags.
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


def ensure_built() -> Path:
    """The engine's path, compiled first if needed. Raises RuntimeError if it cannot be."""
    if BINARY.is_file() and BINARY.stat().st_mtime >= SOURCE.stat().st_mtime:
        return BINARY
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        raise RuntimeError(f"no C compiler ({cc}) to build {SOURCE}: install gcc, or run `make engines`")
    BINARY.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([cc, *FLAGS, "-o", str(BINARY), str(SOURCE)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"building {SOURCE} failed:\n{result.stderr}")
    return BINARY
