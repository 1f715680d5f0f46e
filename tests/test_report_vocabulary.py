"""Every word a report prints is PROTOCOL.md's, or the user's own: reports of divergences found in
broken engines of both machines, and classify's table and SUMMARY, are scanned for technical words
(a digit, an underscore, an inner capital or a hyphen in them, and the spec's ghost words `owed`
and `believes`); each must be in conformance/PROTOCOL.md, be a profile name as its "Words in
reports" defines them, a property the spec defines, or the engine's own name. An absent value is
never printed as a number."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from conformance.driver import Divergence, Drive, report, run_programs
from conformance.essa import ESSA_DRIVER, EssaProfileRequest, KVMGmapEngine
from conformance.essa import mutants as essa_mutants
from conformance.essa.classify import classify, nearest, report as classify_report, summary_line
from conformance.pagestates import PAGESTATES_DRIVER
from conformance.pagestates import mutants as page_mutants
from conformance.search import run_machine

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = (ROOT / "conformance" / "PROTOCOL.md").read_text(encoding="utf-8")
SPEC = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "spec").glob("*Properties.tla"))
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_+]*(?:-[A-Za-z0-9_+]+)*")
PAGESTATES_NAME = re.compile(r"(Full|OneDiscardedState|NoVp|NoPp|NoP|ZVMPrototype)-(hs|direct)-"
                             r"(AddressingException|ReadsZero)")  # fmt: skip
ESSA_NAME = re.compile(r"(Paper2007|KVMClassic|KVMGmap)-(no)?keys-(no)?f147-cbrl\d"
                       r"(-[A-Za-z+]+)*-\d+p")  # fmt: skip


def technical(word: str) -> bool:
    return bool(re.search(r"[0-9_]|[a-z][A-Z]", word)) or "-" in word or word in ("owed", "believes")


def undefined(text: str, engine: str) -> list[str]:
    found = []
    for word in sorted(set(WORD.findall(text))):
        if not technical(word) or word == engine or word in PROTOCOL:
            continue
        if PAGESTATES_NAME.fullmatch(word) or ESSA_NAME.fullmatch(word):
            continue
        if re.fullmatch(r"x[0-9A-F]{2}", word):  # the tail of a hex byte, 0x02
            continue
        if re.fullmatch(r"\w+(Prop|Inv)", word) and re.search(rf"^{word}\b", SPEC, re.M):
            continue
        found.append(word)
    return found


def _reports(mode: object, mutants: list[type], examples: int) -> list[tuple[str, str]]:
    out = []
    for m in mutants:
        for o in run_machine(mode, m(), mode.mutant_profiles(m), examples=examples, seed=0):  # type: ignore[attr-defined]
            if isinstance(o.error, Divergence):
                out.append((report(mode, o.error, engine=m.__name__), m.__name__))  # type: ignore[arg-type]
    return out


PAGE = [page_mutants.DiscardsDirtyP, page_mutants.DiscardedReadsZero, page_mutants.UnusedLeaksContent]
ESSA = [essa_mutants.GetStateKeepsZ, essa_mutants.SecondPageReportsFirst]


@pytest.mark.parametrize(("mode", "mutants"), [(PAGESTATES_DRIVER, PAGE), (ESSA_DRIVER, ESSA)],
                         ids=["PageStates", "ESSA"])  # fmt: skip
def test_divergence_reports_speak_protocol(mode: object, mutants: list[type]) -> None:
    reports = _reports(mode, mutants, 30)
    assert len(reports) == len(mutants)
    for text, engine in reports:
        assert undefined(text, engine) == [], text
        assert not re.search(r"value=-\d", text), text


def test_classify_speaks_protocol() -> None:
    # one page: every candidate's first departure shows on it, at a fraction of the cost
    c = classify(KVMGmapEngine(), EssaProfileRequest(storage_keys=False, facility147=False, cbrl_size=1,
                                                     prebuilt_page_tables=False, cmma_enabled=True,
                                                     pages=1))
    buf = io.StringIO()
    classify_report(c, buf)
    last = summary_line(c, 1.0)
    text = buf.getvalue() + last
    assert undefined(text, c.engine.name) == [], text
    # the nearest other candidate, not the first row of the table (Paper2007's)
    assert c.identified == "KVMGmap" and list(c.verdicts)[0].profile.impl == "Paper2007"
    name, verdict = nearest(c)  # type: ignore[misc]
    assert name.startswith("KVMGmap with bug") and f"nearest other candidate: {name} " in last
    assert "first departs at " + ESSA_DRIVER.short_name(verdict.profile) in last


def test_the_scan_catches_an_undefined_word() -> None:
    assert undefined("the guest is owed 5; FooBar differs in pages[0].zbit", "e") == ["FooBar"]
    assert "owed" in PROTOCOL and "believes" in PROTOCOL


def test_nearest_is_fewest_sets_then_latest_departure() -> None:
    from conformance.essa import EssaEngineInfo
    from conformance.essa.classify import Classification, Verdict
    from refimpl.essa import EssaProfile

    def p(impl: str, keys: bool, bugs: frozenset[str] = frozenset()) -> EssaProfile:
        return EssaProfile(impl, storage_keys=keys, pages=1, bugs=bugs)

    gone = object()  # a divergence: nearest looks only at whether there is one, and the steps
    c = Classification(EssaEngineInfo("e", EssaProfileRequest()), (
        Verdict(p("Paper2007", False), 0, 3, gone), Verdict(p("Paper2007", True), 0, 900, gone),  # type: ignore[arg-type]
        Verdict(p("KVMClassic", False), 0, 10, gone), Verdict(p("KVMClassic", True), 50, 200),  # type: ignore[arg-type]
        Verdict(p("KVMGmap", False, frozenset({"StickyZero"})), 0, 40, gone),  # type: ignore[arg-type]
        Verdict(p("KVMGmap", True, frozenset({"StickyZero"})), 50, 200),
    ))  # fmt: skip
    name, verdict = nearest(c)  # type: ignore[misc]
    assert name == "KVMGmap with bug StickyZero" and verdict.steps == 40
