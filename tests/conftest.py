"""Shared fixtures and the suite's hypothesis settings.

The TLC jar is fetched and verified once per session.

Hypothesis profiles (D107), for the refimpl property tests and the conformance tests alike:

* ``cmma-ci``, selected when ``CI`` is set (as CI services set it: ``CI=true``): derandomized, so
  every run draws the same examples and a failure in CI fails again on any machine; no example
  database (nothing survives a CI job); ``print_blob``, so a failure prints the
  ``@reproduce_failure`` line that replays it anywhere.
* ``cmma-local`` otherwise: random examples, the seed printed with a failure (a @given test's
  own; the conformance contracts' session seed, ``$CMMA_HYPOTHESIS_SEED``), and the example
  database in ``.hypothesis/examples``, which replays a failure first on the next run here.

``HYPOTHESIS_PROFILE=<name>`` (or pytest's ``--hypothesis-profile``) selects a profile
explicitly. The profile is loaded when this file is imported, before any test module, so the
settings the test modules build at import time inherit it.
"""

from __future__ import annotations

import os
import random
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from tlcrunner.fetch import ensure_tlc

CI_PROFILE = "cmma-ci"
LOCAL_PROFILE = "cmma-local"
#: The conformance contracts' seed for a local session: given, or chosen and printed on failure.
SEED_VARIABLE = "CMMA_HYPOTHESIS_SEED"

# Both start from hypothesis's own defaults, not from whatever it loaded itself (it loads its
# "ci" profile when it sees some CI services' variables).
_DEFAULT = settings.get_profile("default")
settings.register_profile(
    CI_PROFILE, _DEFAULT, derandomize=True, database=None, print_blob=True,
    # A shared CI machine's pace is not the code's: no deadline, no too_slow health check.
    deadline=None, suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
settings.register_profile(
    LOCAL_PROFILE, _DEFAULT, print_blob=True,
    database=DirectoryBasedExampleDatabase(str(Path(".hypothesis") / "examples")),
)  # fmt: skip


def selected_profile(environ: Mapping[str, str]) -> str:
    """The profile for an environment: HYPOTHESIS_PROFILE if set, else the CI profile when CI
    is set to anything but an empty string, "0" or "false", else the local one."""
    explicit = environ.get("HYPOTHESIS_PROFILE", "").strip()
    if explicit:
        return explicit
    in_ci = environ.get("CI", "").strip().lower() not in ("", "0", "false")
    return CI_PROFILE if in_ci else LOCAL_PROFILE


settings.load_profile(selected_profile(os.environ))


def _session_seed() -> int | None:
    """The seed of the tests that take one (the conformance contracts): None when the profile
    is derandomized, else $CMMA_HYPOTHESIS_SEED or a new one, put in the environment so that
    pytest-xdist's workers (which inherit it) use the controller's."""
    if settings.default.derandomize:
        return None
    given = os.environ.get(SEED_VARIABLE, "").strip()
    seed = int(given) if given.isdigit() else random.getrandbits(32)
    os.environ[SEED_VARIABLE] = str(seed)
    return seed


#: None in CI (derandomized there); new for each local session, printed when a test fails.
SESSION_SEED = _session_seed()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """A failed @given test says which seed it ran with (hypothesis itself says so only when the
    failure did not reproduce). Not set when derandomized or --hypothesis-seed fixes it."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    seed = getattr(getattr(item, "obj", None), "_hypothesis_internal_use_generated_seed", None)
    if report.failed and report.when == "call" and seed is not None:
        report.sections.append((
            "hypothesis seed",
            f"seed {seed}: the same examples again with @seed({seed}) on the test, or "
            f"pytest --hypothesis-seed={seed}",
        ))  # fmt: skip


def hypothesis_summary(profile: str, derandomize: bool, seed: int | None) -> str:
    """The line printed after a failed run: which profile, and how to draw the same examples."""
    if derandomize:
        return (f"hypothesis: profile {profile}, derandomized: the same examples on every run "
                "(CI=true selects it)")  # fmt: skip
    return (f"hypothesis: profile {profile}; a failure is replayed first from the example "
            f"database on this machine; the conformance runs' seed {seed} (again: "
            f"{SEED_VARIABLE}={seed})")  # fmt: skip


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if terminalreporter.stats.get("failed"):
        terminalreporter.write_line(hypothesis_summary(
            settings.get_current_profile_name(), settings.default.derandomize, SESSION_SEED,
        ))  # fmt: skip


@pytest.fixture(scope="session")
def tlc_jar() -> Path:
    return ensure_tlc()


# The essa-rs and essa-go engines, built once per module that uses them (skipped with the reason
# when the toolchain is missing).
@pytest.fixture(scope="module")
def rs_engine() -> str:
    from conformance.c_engine import ensure_essa_rs_built

    try:
        return str(ensure_essa_rs_built())
    except RuntimeError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def go_engine() -> str:
    from conformance.c_engine import ensure_essa_go_built

    try:
        return str(ensure_essa_go_built())
    except RuntimeError as exc:
        pytest.skip(str(exc))
