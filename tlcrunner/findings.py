"""``python -m tlcrunner findings``: run the finding models of spec/ESSA.tla and write
docs/findings.md, each finding's shortest counterexample as a table of the one page's state.

The prose of each finding (what breaks, whose defect it is) lives in FINDINGS below; the traces
come from TLC on every run, so the document cannot drift from the spec.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tlcrunner.tlavalues import Record, parse_value

from .check import check_entry, default_library
from .fetch import default_jar
from .locations import default_manifest
from .manifest import load_manifest
from .tool_output import TraceStep
from .trace_text import format_trace


@dataclass(frozen=True)
class Finding:
    key: str
    title: str
    models: tuple[str, ...]
    whose: str
    text: str
    table: bool = True  # one page of spec/ESSA.tla as a table; else the runner's trace text


FINDINGS = (
    Finding(
        "F1", "make_stable reports success on a page KVM keeps volatile",
        ("MCESSA_KVMClassic_F1", "MCESSA_KVMGmap_F1"),
        "the guest's assumption (and a departure of KVM from the paper's model)",
        "The paper's SetStableIfNotDiscarded makes a page stable unless it was discarded; KVM's "
        "ORC 6 is \"set stable if resident\" (sources 2.2, 3.1) and leaves a page that is not resident "
        "as it was. The 2007 guest decides failure only from \"old state = V + zero\", so on a "
        "volatile page that the host swapped out (V + preserved) it believes the page stable "
        "while the host still has it volatile: `GuestStableBeliefInv` fails.",
    ),
    Finding(
        "F2", "a discarded volatile page reads as zeros, without a discard fault",
        ("MCESSA_KVMClassic_F2", "MCESSA_KVMGmap_F2"),
        "the implementation, for a guest that relies on the discard fault",
        "KVM never delivers a discard fault (sources 2.5): once the CBRL entry of a volatile "
        "page is processed, the next access faults in a fresh zero page. A 2007 guest keeps the "
        "page in its page cache and reads zeros where the file's data should be: "
        "`ReadResultInv` fails (and, if the guest then makes the page stable, it keeps the zeros "
        "as data). The modern Linux guest never issues ORC 3, which is why this does not bite "
        "today (sources 4).",
    ),
    Finding(
        "F3", "a potentially volatile page is discarded after the guest wrote it",
        ("MCESSA_KVMClassic_F3", "MCESSA_KVMGmap_F3"),
        "the implementation (the change bit is not tracked without storage keys)",
        "P exists so that the host consults the page's change bit. KVM consults GC, which it "
        "copies from the storage key only when the VM uses storage keys (sources 2.2, [INFERENCE]). "
        "Without them, ORC 4 on a written page that was swapped out sees GC = 0, turns the page "
        "into V, sets Z and queues the discard: `ModifiedPContentKeptInv` fails. With storage "
        "keys the same models hold (`MCESSA_KVMClassicKeys`, `MCESSA_KVMGmapKeys`).",
    ),
    Finding(
        "F4", "a page reported logically zero still reads its old content",
        ("MCESSA_KVMClassic_F4", "MCESSA_KVMGmap_F4"),
        "the paper's model (its discard is atomic with the ESSA; KVM's is asynchronous)",
        "ORC 2 or 3 on a page that is not resident sets Z, so ESSA reports content 3 "
        "(logically zero), but the swap copy is freed only when the CBRL is processed; an access "
        "in between swaps the old content back in (sources 2, CBRL processing): `ReportedZeroReadsZeroInv` fails. "
        "Harmless for a correct guest (it does not read pages it freed), but the state ESSA "
        "reports is not the state the guest sees.",
    ),
    Finding(
        "F5", "the 2007 make_volatile can make a dirty page volatile",
        ("MCLinuxGuestProtocol_FlagsThenCounts",),
        "the implementation (the 2007 guest page hinting patch)",
        "The paper asks that the check of the twelve conditions and the SetVolatile be atomic "
        "with respect to SetStableIfNotDiscarded, and spec/LinuxGuestProtocol.tla's one-snapshot "
        "check satisfies every property. The 2007 patch's `__page_make_volatile` reads the page "
        "flags and the reference counts separately (`check_bits(page) && check_counts(page, "
        "offset)`): between the two reads a user that holds the page stable can dirty it and "
        "release it, and make_volatile then sets V on a dirty page: `NoVolatileWhileForbiddenInv` "
        "fails. Reading the counts first does not help by itself "
        "(`MCLinuxGuestProtocol_CountsThenFlags`: the page can be freed and reused between the "
        "reads); it holds only if a page cannot be freed while its PG_state_change bit is held "
        "(`MCLinuxGuestProtocolVariants_CountsThenFlagsPinned`). Decision D36.",
        table=False,
    ),
    Finding(
        "F6", "incremental and bulk memory removal can end differently",
        ("MCMemoryDowngradeCompare_AnyRoomPinned3",),
        "the seed's advice, under one move policy (decision D68)",
        "Seed 001 recommends removing memory incrementally. spec/MemoryDowngradeCompare.tla runs "
        "the same removal in bulk and one frame at a time and compares the outcomes (whether all "
        "of it went offline, which frames, and what every page reads). When the host may copy or "
        "page out as it likes (`MovePolicy = \"AnyRoom\"`), an incremental removal can spend the "
        "last free frame on a page it could have paged out, and then find no frame for a pinned "
        "page, which must be copied: it is rejected where the bulk removal completes "
        "(`SameOutcomeInv` fails). The outcomes agree when the removal prefers paging slots over "
        "frames (`\"SlotsFirst\"`, `MCMemoryDowngradeCompare_SlotsFirst*`) or no page to be moved "
        "is pinned (`MCMemoryDowngradeCompare_AnyRoomUnpinned*`).",
        table=False,
    ),
)

HEADER = """# Findings: where real implementations break the model's assumptions

Generated by `python -m tlcrunner findings` (`make findings`) from TLC's shortest
counterexamples (F1-F4 on spec/ESSA.tla, F5 on spec/LinuxGuestProtocol.tla, F6 on
spec/MemoryDowngradeCompare.tla); do not edit by hand. Each finding names the models that
reproduce it (in model/manifest.json, run by `make check`), the property that fails, and whose
defect it is: the implementation's, the guest's assumptions, or the paper's model. "sources x.y"
is a section of docs/sources.md. The 2007 model (`MCESSA_Paper2007`) keeps every property.

Columns of the F1-F4 tables: the step and its operation code; R1, the byte ESSA returned (the state before it:
content 0 resident, 2 preserved, 3 zero; usage 0 S, 4 U, 8 P, 12 V); the host's view of the page
(usage, valid = mapped, swap = a swap copy exists, Z, data); the CBRL; the guest's view (the usage
it believes, what it is owed, stores not written back).
"""


def _one(value: Any) -> Any:
    # A function of the single page: its value for that page.
    if isinstance(value, dict) and not isinstance(value, Record) and len(value) == 1:
        return next(iter(value.values()))
    return value


def _flag(b: Any) -> str:
    return "yes" if b is True else "no" if b is False else str(b)


def render(trace: list[TraceStep]) -> str:
    rows = ["| # | step | R1 | usage | valid | swap | Z | data | CBRL | believes | owed | modified |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for step in trace:
        v = {k: _one(parse_value(t)) for k, t in step.state.items()}
        op = v["lastOp"]
        assert isinstance(op, Record)
        name = "Init" if op["op"] == "Init" else str(op["op"])
        if isinstance(op["orc"], int) and op["orc"] >= 0:
            name += f" (ORC {op['orc']})"
        if op["outcome"] not in ("Done", "None"):
            name += f": {op['outcome']}"
            if op["outcome"] == "Value":
                name += f" {op['value']}"
        r1 = f"0x{op['result']:02X}" if isinstance(op["result"], int) and op["result"] >= 0 else ""
        owed = v["owed"] if v["owed"] != -1 else "-"
        cbrl = ", ".join(str(x) for x in v["cbrl"]) if v["cbrl"] else ""
        rows.append(
            f"| {step.index} | {name} | {r1} | {v['usage']} | {_flag(v['valid'])} | "
            f"{_flag(v['swapped'])} | {_flag(v['zbit'])} | {v['data']} | {cbrl} | {v['belief']} | "
            f"{owed} | {_flag(v['modified'])} |"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tlcrunner findings")
    parser.add_argument("--out", type=Path, default=Path("docs/findings.md"))
    args = parser.parse_args(argv)
    manifest = load_manifest(default_manifest())
    entries = {e.name: e for e in manifest.entries}
    jar, library = default_jar(), default_library(manifest)
    parts = [HEADER]
    for f in FINDINGS:
        parts.append(f"## {f.key}. {f.title}\n\n*Whose defect:* {f.whose}.\n\n{f.text}\n")
        for name in f.models:
            row = check_entry(entries[name], jar=jar, library=library)
            if not row.as_expected or not row.trace:
                print(f"error: {name} did not reproduce its finding: {row.note}", file=sys.stderr)
                return 1
            shown = render(row.trace) if f.table else (
                "```\n" + format_trace(row.trace, row.back_to_state, row.stuttering) + "\n```"
            )
            parts.append(f"`{name}` (violates `{row.violated}`, {len(row.trace) - 1} steps):\n\n"
                         f"{shown}\n")  # fmt: skip
    args.out.write_text("\n".join(parts), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0
