"""The held-out kernel regression catalogue (conformance/engines/linux/regressions.json) against
the default ``make kernel-check``: for each regression, caught or missed and the wall time of the
check on the regressed tree. Prints the table and writes results/bench-kernel-regressions.json.
Needs the kernel toolchain (README, Requirements); says so and exits 0 without it."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from conformance.engines.linux import regressions  # noqa: E402
from conformance.engines.linux.kernels import toolchain_missing  # noqa: E402

if __name__ == "__main__":
    why = toolchain_missing()
    if why:
        print(f"kernel regressions: skipped: {why}")
        sys.exit(0)
    regressions.main(["--json", str(REPO / "results" / "bench-kernel-regressions.json"), *sys.argv[1:]])
