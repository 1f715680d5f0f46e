"""The held-out catalogue of kernel regressions (regressions.json) against ``make kernel-check``.

Each entry names a function of the classic KVM ESSA code and a small edit inside it (``find`` ->
``replace``), as a patch to the kernel could make it. The catalogue was written from the kernel's
code by someone who had not seen the harness or the driver, so it measures them: a regression the
default kernel-check misses is a gap in the harness or the search, never a reason to change the
entry.

For each entry: the tree the classic harness reads is copied (``KERNEL_SRC``, else arch/s390 and
the other files it takes out of Debian's linux-source tarball, unpacked once), the edit is applied inside the named function only (some
snippets occur elsewhere in the file), and ``python -m conformance.engines.linux.check`` runs on
the copy with its default flags (``--check-flags`` adds some: ``--fail-fast`` stops at the first
divergence). A non-zero exit other than 3 (no harness could be built) is a catch; the wall time
of each run and its CPU time (the check and the harnesses it waits for) are kept. ``python -m conformance.engines.linux.regressions``
prints the table; bench/kernel_regressions_bench.py records it. Each caught regression's headline
(the summary's first divergence) ends with the kernel function it is blamed on; the table says
whether that is the function the regression edits. ``--doc RESULTS.json`` writes docs/kernel.md's
block of the catalogue (``--held-out``: of the held-out one) from a results file: a row for every
entry of the catalogue, those the results lack marked not run, so that its figures are a run's,
never typed, and an entry added to the catalogue shows as a drift (tests/test_kernel_regressions_doc.py).
``--keep DIR`` keeps each regressed tree and the check's reproducers under ``DIR/<name>/``, so that
a divergence's saved trace can be replayed on it again (``kernel-check --replay``).

An entry whose function the harness does not compile cannot change what the harness does: it is
reported as not exercised, with the function named, and counts as missed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from .extract import ExtractError, find_function, read_source
from .kernels import HARNESSES, SEARCHED, kernel_tree

HERE: Final = Path(__file__).resolve().parent
CATALOGUE: Final = HERE / "regressions.json"
#: The held-out catalogue of the migration paths (peek, GET batching, START/STOP, SET on the
#: destination, memslots), written blind in the same format; run with ``--held-out``.
HELD_OUT: Final = HERE / "regressions_heldout.json"
REPO: Final = HERE.parents[2]


@dataclass(frozen=True)
class Regression:
    name: str
    file: str
    function: str
    find: str
    replace: str
    what: str
    kind: str


@dataclass(frozen=True)
class Result:
    regression: Regression
    verdict: str  # "caught", "missed", "not exercised", "did not build"
    seconds: float
    exit_status: int | None
    summary: str  # the check's summary line, or why it was not run
    cpu_seconds: float = 0.0  # the check's and its harnesses' (user and system)


def blamed(summary: str) -> str:
    """The kernel function a summary's headline is blamed on (its last parenthesis: the
    function, or "set by" the function "at step" k), or ""."""
    m = re.search(r"\((?:set by )?(\w+)(?: at step \d+)?\)$", summary.strip())
    return m.group(1) if m else ""


#: docs/kernel.md's blocks of the catalogues, between these marker comments.
DOC: Final = REPO / "docs" / "kernel.md"
BEGIN: Final = "<!-- kernel-regressions: begin -->\n"
END: Final = "<!-- kernel-regressions: end -->"
HELD_OUT_BEGIN: Final = "<!-- kernel-regressions-heldout: begin -->\n"
HELD_OUT_END: Final = "<!-- kernel-regressions-heldout: end -->"


def markers(held_out: bool) -> tuple[str, str]:
    """The marker comments of the block of a catalogue in docs/kernel.md."""
    return (HELD_OUT_BEGIN, HELD_OUT_END) if held_out else (BEGIN, END)


NOT_RUN: Final = "not run"


def _num(x: object, fmt: str = ".1f") -> str:
    return "-" if x is None else format(float(x), fmt)  # type: ignore[arg-type]


def render(results: list[dict[str, object]], catalogue: list[Regression]) -> str:
    """The doc block of a results file (``--json``'s): a row per regression of the catalogue, in
    its order (one the results lack is "not run"), then the counts: caught of those run, the
    median and range of the wall seconds of the caught ones, and the headlines that name the
    edited function."""
    by_name = {str(res["name"]): res for res in results}
    lines = ["| regression | function | verdict | exit | wall s | CPU s | blamed on | kernel-check's summary |",
             "|---|---|---|---|---|---|---|---|"]
    caught, seconds, right, ran = 0, [], 0, 0
    for r in catalogue:
        res = by_name.get(r.name)
        if res is None:
            lines.append(f"| `{r.name}` | `{r.function}` | {NOT_RUN} | - | - | - | - | - |")
            continue
        ran += 1
        summary = str(res["summary"])
        fn = blamed(summary) if res["verdict"] == "caught" else ""
        if res["verdict"] == "caught":
            caught += 1
            # as the row shows it, so that the counts are the rows' (read back, they agree)
            seconds.append(round(float(res["seconds"]), 1))  # type: ignore[arg-type]
            right += fn == r.function
        code = res.get("exit")
        lines.append(f"| `{r.name}` | `{r.function}` | {res['verdict']} | "
                     f"{'-' if code is None else code} | {_num(res['seconds'])} | "
                     f"{_num(res.get('cpu_seconds'))} | {f'`{fn}`' if fn else '-'} | "
                     f"{summary.replace('|', '/')} |")  # fmt: skip
    span = (f", median {statistics.median(seconds):.0f} s, from {min(seconds):.0f} s to "
            f"{max(seconds):.0f} s" if seconds else "")
    part = (f" ({ran} of the catalogue's {len(catalogue)} regressions run)"
            if ran < len(catalogue) else "")
    lines += ["", f"**{caught} of {ran} caught**{part}{span}; the headline names the "
              f"function the regression edits for {right} of the {caught} caught."]
    return "\n".join(lines) + "\n"


def doc_block(text: str, held_out: bool = False) -> str | None:
    """The block of a catalogue in a document's text (None if it has none)."""
    begin, end = markers(held_out)
    m = re.search(re.escape(begin) + r"(.*?)" + re.escape(end), text, re.S)
    return m.group(1) if m else None


def write_doc(results: list[dict[str, object]], held_out: bool = False, doc: Path = DOC) -> None:
    """Rewrite the catalogue's block of ``doc`` from ``results``. Raises ValueError when the
    document lacks the block."""
    text = doc.read_text(encoding="utf-8")
    begin, end = markers(held_out)
    if doc_block(text, held_out) is None:
        raise ValueError(f"{doc} lacks the {begin.strip()} ... {end} block")
    block = render(results, load(HELD_OUT if held_out else CATALOGUE))
    doc.write_text(re.sub(re.escape(begin) + r".*?" + re.escape(end),
                          lambda _: begin + block + end, text, flags=re.S), encoding="utf-8")  # fmt: skip


def load(path: Path = CATALOGUE) -> list[Regression]:
    return [Regression(r["name"], r["file"], r["function"], r["find"], r["replace"], r["what"],
                       r["class"]) for r in json.loads(path.read_text(encoding="utf-8"))]  # fmt: skip


def apply(text: str, r: Regression) -> str:
    """``text`` (a whole source file) with the regression applied inside its function only.
    Raises ExtractError when the function is missing or the snippet is not in it exactly once."""
    body, _, _ = find_function(text, r.function)
    body = body.rstrip("\n")
    if text.count(body) != 1:
        raise ExtractError(f"{r.file}: {r.function} is not unique in the file")
    if body.count(r.find) != 1:
        raise ExtractError(f"{r.name}: the snippet occurs {body.count(r.find)} times in {r.function}, "
                           "not once: the tree differs from the one the catalogue was written for")  # fmt: skip
    return text.replace(body, body.replace(r.find, r.replace))


#: The catalogue is of classic KVM's code (Linux 6.12): the classic harness measures it.
HARNESS: Final = HARNESSES["classic"]


def compiled_functions() -> frozenset[str]:
    """Every kernel function the classic harness compiles."""
    return frozenset(w.name for w in HARNESS.wants)


def base_tree(kernel_src: str | None) -> Path:
    """The tree the copies are made from: ``kernel_src``, else the tarball's files the classic
    harness takes (all of arch/s390), unpacked once under .cache/linux/src/."""
    return kernel_tree(HARNESS, kernel_src)


def _copy(base: Path, catalogue: list[Regression], dest: Path) -> None:
    paths = {SEARCHED, "Makefile"} | {w.path for w in HARNESS.wants} | {r.file for r in catalogue}
    for rel in sorted(paths):
        src = base / rel
        if src.is_dir():
            shutil.copytree(src, dest / rel, dirs_exist_ok=True)
        elif src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest / rel)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def check_one(r: Regression, base: Path, catalogue: list[Regression],
              flags: tuple[str, ...] = (), keep: Path | None = None) -> Result:  # fmt: skip
    """``r`` planted in a copy of ``base`` and the check run on it with ``flags``; the copy
    and the check's reproducers under ``keep/<name>/`` when ``keep`` is given, else removed."""
    if r.function not in compiled_functions():
        return Result(r, "not exercised", 0.0, None,
                      f"no harness compiles {r.function} ({r.file})")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix=f"kernel-{r.name}-") as tmp:
        where = Path(tmp) if keep is None else keep / r.name
        if keep is not None:
            shutil.rmtree(where, ignore_errors=True)
        tree = where / "linux"
        _copy(base, catalogue, tree)
        try:
            (tree / r.file).write_text(apply(read_source(tree, r.file), r), encoding="utf-8")
        except ExtractError as exc:
            return Result(r, "did not build", 0.0, None, str(exc))
        t0, c0 = time.monotonic(), _cpu()
        p = subprocess.run([sys.executable, "-m", "conformance.engines.linux.check",
                            "--kernel-src", str(tree), "--out", str(where / "out"), *flags],
                           cwd=REPO, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=str(REPO)))  # fmt: skip
        seconds, cpu = time.monotonic() - t0, _cpu() - c0
        if keep is not None:
            (where / "stdout.txt").write_text(p.stdout, encoding="utf-8")
            (where / "stderr.txt").write_text(p.stderr, encoding="utf-8")
    # the summary line ("kernel-check: ... diverge; first: ..."), else stderr's last word
    said = [ln for ln in p.stdout.splitlines() if ln.startswith("kernel-check: ")]
    last = said[-1] if said else next((ln for ln in reversed(p.stderr.splitlines()) if ln.strip()), "")
    if p.returncode == 3:
        verdict = "did not build"
    else:
        verdict = "caught" if p.returncode != 0 else "missed"
    return Result(r, verdict, seconds, p.returncode, last.strip(), cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.engines.linux.regressions",
                                     description=__doc__.split("\n\n")[0])  # fmt: skip
    parser.add_argument("--kernel-src", help="the tree to plant the regressions in "
                                             "(default: Debian's linux-source-6.12 tarball)")  # fmt: skip
    parser.add_argument("--names", help="comma-separated names (default: the whole catalogue)")
    parser.add_argument("--check-flags", default="", help="extra flags for kernel-check")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--held-out", action="store_true",
                        help=f"the held-out catalogue ({HELD_OUT.name}) instead of {CATALOGUE.name}")
    parser.add_argument("--doc", type=Path, metavar="RESULTS.json",
                        help="write docs/kernel.md's block of the catalogue from this results file "
                             "(--json's), instead of running")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep each regressed tree and the check's reproducers in DIR/<name>/")
    parser.add_argument("--reblame", type=Path, metavar="DIR",
                        help="the headlines of a --keep run's caught regressions (before) against "
                             "the blame now (after): each first divergence found again on its kept "
                             "tree (a profile's by --replay of its trace, the VMM pass's by the pass), "
                             "instead of running the check")
    parser.add_argument("--vmm-pass", action="store_true",
                        help="run only kernel-check's VMM pass on each regressed tree: its first "
                             "divergence's headline and the function it names (the blame's measure "
                             "for the migration paths, without the profiles' run)")
    args = parser.parse_args(argv)
    catalogue = load(HELD_OUT if args.held_out else CATALOGUE)
    if args.vmm_pass:
        names = set(args.names.split(",")) if args.names else None
        return vmm_pass([r for r in catalogue if names is None or r.name in names], catalogue,
                        args.kernel_src)  # fmt: skip
    if args.reblame is not None:
        return reblame(args.reblame, catalogue)
    if args.doc is not None:
        try:
            write_doc(json.loads(args.doc.read_text(encoding="utf-8")), args.held_out)
        except ValueError as exc:
            parser.error(str(exc))
        return 0
    chosen = catalogue
    if args.names:
        wanted = args.names.split(",")
        unknown = sorted(set(wanted) - {r.name for r in catalogue})
        if unknown:
            parser.error(f"not in the catalogue: {', '.join(unknown)}")
        chosen = [r for r in catalogue if r.name in wanted]
    try:
        base = base_tree(args.kernel_src)
    except ExtractError as exc:
        print(f"regressions: {exc}", file=sys.stderr)
        return 3
    results = []
    print("| regression | function | class | verdict | exit | wall s | CPU s | blamed on | "
          "kernel-check's summary |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in chosen:
        res = check_one(r, base, catalogue, tuple(args.check_flags.split()), args.keep)
        results.append(res)
        fn = blamed(res.summary) if res.verdict == "caught" else ""
        print(f"| {r.name} | {r.function} | {r.kind} | {res.verdict} | {res.exit_status} | "
              f"{res.seconds:.1f} | {res.cpu_seconds:.1f} | "
              f"{fn or '-'}{'' if not fn else ' (right)' if fn == r.function else ' (wrong)'} | "
              f"{res.summary.replace('|', '/')} |", flush=True)  # fmt: skip
        if args.json:  # after every regression: a long run's partial results are kept
            _write(args.json, results)
    caught = sum(r.verdict == "caught" for r in results)
    right = sum(r.verdict == "caught" and blamed(r.summary) == r.regression.function for r in results)
    print(f"\nregressions: {caught} of {len(results)} caught; the headline names the edited "
          f"function for {right} of {caught}")
    return 0 if caught == len(results) else 1


def headline_now(where: Path) -> str:
    """The first divergence of a --keep run (``where``: DIR/<name>/) found again on its kept
    tree with the blame of this code: a profile's by replaying its saved trace, the VMM
    pass's by running the pass; "" when the run found none."""
    said = (where / "stdout.txt").read_text(encoding="utf-8") if (where / "stdout.txt").is_file() else ""
    last = next((ln for ln in reversed(said.splitlines()) if ln.startswith("kernel-check: ")), "")
    tree = where / "linux"
    if "the VMM pass diverges" in last:
        from . import vmm_check
        from .kernels import build

        res = vmm_check.check_vmm(build("classic", str(tree)))
        return res.divergences[0].headline() if res.divergences else ""
    m = re.search(r"REPLAY=(\S+)", said)
    if m is None:
        return ""
    p = subprocess.run([sys.executable, "-m", "conformance.engines.linux.check", "--kernel-src",
                        str(tree), "--replay", m.group(1)], cwd=REPO, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=str(REPO)))  # fmt: skip
    return next((ln.split(": ", 2)[-1] for ln in reversed(p.stdout.splitlines())
                 if ln.startswith("kernel-check: ") and " diverges from " in ln), "")  # fmt: skip


def vmm_pass(chosen: list[Regression], catalogue: list[Regression], kernel_src: str | None) -> int:
    """``--vmm-pass``: each regression of ``chosen`` planted in a copy of the tree and only the
    VMM pass run on it; its first divergence's headline, and whether it names the edited
    function."""
    from . import vmm_check
    from .kernels import build

    base = base_tree(kernel_src)
    print("| regression | function | VMM pass | seconds | blamed on | headline |")
    print("|---|---|---|---|---|---|")
    caught = right = 0
    for r in chosen:
        with tempfile.TemporaryDirectory(prefix=f"kernel-{r.name}-") as tmp:
            tree = Path(tmp) / "linux"
            _copy(base, catalogue, tree)
            (tree / r.file).write_text(apply(read_source(tree, r.file), r), encoding="utf-8")
            t0 = time.monotonic()
            res = vmm_check.check_vmm(build("classic", str(tree)))
            seconds = time.monotonic() - t0
        head = res.divergences[0].headline() if res.divergences else ""
        fn = blamed(head)
        caught += bool(head)
        right += bool(head) and fn == r.function
        print(f"| {r.name} | {r.function} | {'caught' if head else 'missed'} | {seconds:.0f} | "
              f"{fn or '-'}{'' if not fn else ' (right)' if fn == r.function else ' (wrong)'} | "
              f"{head.replace('|', '/') or '-'} |", flush=True)  # fmt: skip
    print(f"\nVMM pass: {caught} of {len(chosen)} caught; the headline names the edited function "
          f"for {right} of {caught}")
    return 0


def reblame(keep: Path, catalogue: list[Regression]) -> int:
    """``--reblame``: for each regression of ``catalogue`` kept under ``keep`` and caught, the
    function its headline named (before) and names now (after), and the counts that name the
    edited function."""
    print("| regression | function | before | after |")
    print("|---|---|---|---|")
    before = after = caught = 0
    for r in catalogue:
        where = keep / r.name
        said = (where / "stdout.txt").read_text(encoding="utf-8") if (where / "stdout.txt").is_file() else ""
        last = next((ln for ln in reversed(said.splitlines()) if ln.startswith("kernel-check: ")
                     and ("diverge" in ln)), "")  # fmt: skip
        if not last:
            continue
        caught += 1
        was, now = blamed(last), blamed(headline_now(where))
        before += was == r.function
        after += now == r.function
        print(f"| {r.name} | {r.function} | {was or '-'} | {now or '-'} |", flush=True)
    print(f"\nreblame: of {caught} caught, the headline names the edited function for {before} "
          f"before and {after} after")
    return 0


def _write(path: Path, results: list[Result]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([{"name": r.regression.name, "verdict": r.verdict,
                                 "seconds": round(r.seconds, 2),
                                 "cpu_seconds": round(r.cpu_seconds, 2), "exit": r.exit_status,
                                 "summary": r.summary} for r in results], indent=1) + "\n")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
