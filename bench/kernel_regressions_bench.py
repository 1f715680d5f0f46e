"""The kernel regression catalogues (conformance/engines/linux/regressions.json, and with
``--held-out`` regressions_heldout.json, the migration paths' held-out one) against the default
``make kernel-check``: for each regression planted in a copy of the tree, the verdict (caught or
missed), the check's exit, its wall and CPU seconds (the check and the harnesses it waits for) and
its summary's first line. ``--check-flags=--fail-fast`` stops each check at its first divergence,
so that the seconds are those to the first divergence (``make bench`` runs the held-out catalogue
so). Prints the table, writes results/bench-kernel-regressions.json
(``--held-out``: results/bench-kernel-regressions-heldout.json) and rewrites the catalogue's block
of docs/kernel.md from it. Other flags go to ``python -m conformance.engines.linux.regressions``
(``--names a,b``: some; ``--keep DIR``: keep the regressed trees and reproducers). Needs the kernel
toolchain (README, Requirements); says so and exits 0 without it."""

from __future__ import annotations

import json
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
    held_out = "--held-out" in sys.argv[1:]
    out = REPO / "results" / f"bench-kernel-regressions{'-heldout' if held_out else ''}.json"
    regressions.main(["--json", str(out), *sys.argv[1:]])
    regressions.write_doc(json.loads(out.read_text(encoding="utf-8")), held_out)
    print(f"kernel regressions: docs/kernel.md's block written from {out.relative_to(REPO)}")
