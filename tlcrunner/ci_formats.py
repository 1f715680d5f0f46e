"""The verdict files a CI system reads: JUnit XML (``--junit-xml PATH``) and JSON (``--json PATH``).

One writer for every command that gives a verdict per test case: ``cmma-spec conformance run``
and ``classify`` (a case per profile), ``python -m conformance.engines.linux.check`` (``make
kernel-check``; a case per profile) and ``cmma-spec check`` (a case per model). A case is
``passed``, ``failed`` (a divergence, or a model not as expected), ``error`` (an engine fault,
a model that could not run) or ``skipped``; the text of a failed case is what the command prints
for it, the shrunk trace included, so the CI page shows the trace without the log.

The JSON file is one object: the suite's name, the verdict line the command ends with (its
``SUMMARY``), the exit status, the counts, and the cases in the order the command ran them.
Both files are written whole to a temporary file beside the target and renamed into place.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

STATUSES: Final = ("passed", "failed", "error", "skipped")


@dataclass(frozen=True)
class Case:
    """One test case: a profile or a model."""

    name: str
    status: str
    seconds: float = 0.0
    #: One line: what failed (the diverging step and the fields), or why it was skipped.
    message: str = ""
    #: The full text of a failure: the command's report, the shrunk trace included.
    text: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"case status {self.status!r} is not one of {', '.join(STATUSES)}")


def add_options(parser: argparse.ArgumentParser, *, json_option: bool = True) -> None:
    """``--junit-xml PATH`` and (unless the command has a ``--json`` of its own) ``--json PATH``."""
    parser.add_argument("--junit-xml", type=Path, metavar="PATH", default=None,
                        help="also write the verdict as JUnit XML to PATH: a test case per "
                        "profile or model, a failure's text its trace")  # fmt: skip
    if json_option:
        parser.add_argument("--json", type=Path, metavar="PATH", default=None,
                            help="also write the verdict as JSON to PATH: the summary line, "
                            "the exit status and a case per profile or model")  # fmt: skip


def unwritable(paths: Sequence[tuple[str, Path | None]]) -> str | None:
    """One sentence naming the first of the (option, path) pairs that cannot be written, before
    any work is done; None when every given path can be (the test is
    :func:`tlcrunner.outputs.unwritable`'s)."""
    from .outputs import unwritable as why_not

    for option, path in paths:
        if path is not None and (why := why_not(path)) is not None:
            return f"{option}: {why}"
    return None


def _counts(cases: Sequence[Case]) -> dict[str, int]:
    return {s: sum(c.status == s for c in cases) for s in STATUSES}


def junit_xml(suite: str, cases: Sequence[Case], summary: str = "") -> str:
    """The JUnit XML text: one ``testsuite`` named ``suite`` in a ``testsuites`` root."""
    n = _counts(cases)
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(cases)),
                       failures=str(n["failed"]), errors=str(n["error"]),
                       skipped=str(n["skipped"]),
                       time=f"{sum(c.seconds for c in cases):.3f}")  # fmt: skip
    if summary:
        props = ET.SubElement(ts, "properties")
        ET.SubElement(props, "property", name="summary", value=summary)
    for c in cases:
        tc = ET.SubElement(ts, "testcase", classname=suite, name=c.name, time=f"{c.seconds:.3f}")
        if c.status == "failed":
            ET.SubElement(tc, "failure", message=c.message).text = c.text or c.message
        elif c.status == "error":
            ET.SubElement(tc, "error", message=c.message).text = c.text or c.message
        elif c.status == "skipped":
            ET.SubElement(tc, "skipped", message=c.message)
            if c.text:
                ET.SubElement(tc, "system-out").text = c.text
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def json_doc(suite: str, cases: Sequence[Case], summary: str, exit_status: int) -> dict[str, object]:
    return {"suite": suite, "summary": summary, "exit_status": exit_status,
            "counts": _counts(cases), "cases": [asdict(c) for c in cases]}  # fmt: skip


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(suite: str, cases: Sequence[Case], summary: str, exit_status: int, *,
          junit: Path | None = None, json_path: Path | None = None) -> None:  # fmt: skip
    """Write the files asked for (None: not asked)."""
    if junit is not None:
        _write(junit, junit_xml(suite, cases, summary))
    if json_path is not None:
        doc = json_doc(suite, cases, summary, exit_status)
        _write(json_path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


def write_from(args: argparse.Namespace, suite: str, cases: Sequence[Case], summary: str,
               exit_status: int) -> None:  # fmt: skip
    """:func:`write` to the paths of :func:`add_options`'s options in ``args``."""
    write(suite, cases, summary, exit_status, junit=getattr(args, "junit_xml", None),
          json_path=getattr(args, "json", None))  # fmt: skip
