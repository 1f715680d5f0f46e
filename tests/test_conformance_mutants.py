"""Proof that the suite bites: every shipped broken engine is killed by what ``run`` does in the
PageStates mode (the tour, then hypothesis with quick settings and a fixed seed), with a short
trace and a report naming the rule it breaks.
"""

from __future__ import annotations

import pytest

from conformance.driver import Divergence, report
from conformance.search import run_machine
from conformance.pagestates.mutants import MUTANTS, Mutant
from conformance.pagestates import PAGESTATES_DRIVER, rule_name


def test_there_are_at_least_ten_mutants_each_with_its_own_departure() -> None:
    assert len(MUTANTS) >= 10
    assert len({m.__name__ for m in MUTANTS}) == len(MUTANTS)
    assert all(m.__doc__ and m.breaks for m in MUTANTS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.__name__)
def test_the_suite_kills_the_mutant_naming_the_rule_it_breaks(mutant: type[Mutant]) -> None:
    engine = mutant()
    examples, steps = PAGESTATES_DRIVER.sizes["quick"]
    outcome = run_machine(PAGESTATES_DRIVER, engine, PAGESTATES_DRIVER.mutant_profiles(mutant),
                          examples=examples, max_steps=steps, seed=0)[-1]  # fmt: skip
    assert PAGESTATES_DRIVER.kills(mutant, outcome)
    assert outcome.status == "diverged", f"{mutant.__name__} survived: {outcome.note}"
    err = outcome.error
    assert isinstance(err, Divergence)
    assert rule_name(err) in mutant.rules(), err.steps[-1].rule
    # Shrunk: a handful of steps, each needed to show the departure.
    assert len(err.steps) <= 8, [r.request for r in err.steps]
    text = report(PAGESTATES_DRIVER, err, engine=engine.name)
    assert "rule broken" in text and rule_name(err) in text
    assert text.count("\n->") == 1  # the divergent step is marked in the table
