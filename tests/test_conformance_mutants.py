"""Proof that the suite bites: every shipped broken engine is killed by the hypothesis state
machine (quick settings, a fixed seed), with a short trace and a report naming the rule it breaks.
"""

from __future__ import annotations

import pytest

from conformance.mutants import MUTANTS, Mutant
from conformance.protocol import ProfileRequest
from conformance.report import divergence_report
from conformance.runner import connect, run_hypothesis
from conformance.session import DivergenceError
from conformance.stateful import settings_for


def test_there_are_at_least_ten_mutants_each_with_its_own_departure() -> None:
    assert len(MUTANTS) >= 10
    assert len({m.__name__ for m in MUTANTS}) == len(MUTANTS)
    assert all(m.__doc__ and m.breaks for m in MUTANTS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.__name__)
def test_the_suite_kills_the_mutant_naming_the_rule_it_breaks(mutant: type[Mutant]) -> None:
    session = connect(mutant(), ProfileRequest())
    outcome = run_hypothesis(session, settings_for("quick", database=None), seed=0)
    assert outcome.status == "diverged", f"{mutant.__name__} survived: {outcome.note}"
    err = outcome.error
    assert isinstance(err, DivergenceError)
    assert err.verdict.rule in mutant.rules(), err.verdict.headline
    # Shrunk: a handful of steps, each needed to show the departure.
    assert len(err.steps) <= 8, [(s.op, s.page, s.arg) for s in err.steps]
    report = divergence_report(err, engine=outcome.engine)
    assert f"rule broken" in report and err.verdict.rule in report
    assert report.count("\n->") == 1  # the divergent step is marked in the table
