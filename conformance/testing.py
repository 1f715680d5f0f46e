"""A contract-test base class: an engine's own CI runs the suite by subclassing it (pytest).

As zarr-python's ``zarr.testing`` does for stores: subclass :class:`EngineContract`, say how to
start the engine, and pytest collects the whole suite::

    # test_my_engine.py, in the engine's repository
    from conformance.testing import EngineContract

    class TestMyEngine(EngineContract):
        engine_command = "./build/my-engine"          # JSON lines (PROTOCOL.md), or:
        # engine_class = "my_package.adapter:MyEngine"   # in-process

The tests, each parametrized by profile (every one the spec allows; a profile the engine does not
run is skipped with the engine's reason) or by operation:

* ``test_handshake``: the engine says hello with a name and a profile;
* ``test_operation[op]``: every transition of ``op`` from every page state (the tour's programs
  ending in ``op``); skipped for an optional operation the engine leaves out (ClearDirty);
* ``test_tour[profile]``: every transition of the spec, deterministically;
* ``test_hypothesis[profile]``: the hypothesis state machine (``settings_profile``, ``examples``,
  ``steps``, ``seed``), on ``hypothesis_profiles`` (default: all).

A failure's message is the suite's report (the rule broken, the table); the trace is saved under
``report_dir`` as JSON lines, ITF and a TLA+ module. Set ``CMMA_CONFORMANCE_PROFILE=thorough`` to
run the thorough settings without changing the test.

:class:`EssaEngineContract` is the same for an engine of the ESSA mode (``impl`` names the
implementation it is tested against; every constant set is a parameter).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest

from refimpl import Profile
from refimpl.core.constants import combinations
from refimpl.essa import CONSTANTS as ESSA_CONSTANTS
from refimpl.essa import ESSA, EssaProfile
from refimpl.essa.profile import profiles as essa_profiles
from refimpl.pagestates.profile import all_profiles

from .driver import Drive
from .driver import Outcome as DriverOutcome
from .driver import report as driver_report
from .driver import run_hypothesis as run_driver_hypothesis
from .driver import run_programs as run_driver_programs
from .driver import save as driver_save
from .engine import Engine
from .essa import ESSA_DRIVER, EssaEngine, EssaJsonLinesEngine
from .essa import all_requests as essa_requests
from .essa import tours as essa_tours
from .jsonlines import DEFAULT_TIMEOUT, JsonLinesEngine
from .protocol import OPERATIONS, OPTIONAL_OPERATIONS, EngineFault, ProfileRequest, Unsupported
from .report import divergence_report, fault_report, save, trace_of
from .runner import DEFAULT_VALUES, Outcome, connect, run_hypothesis, run_programs, run_tour, tour
from .session import EngineFaultError, Session, checked
from .stateful import QUICK, settings_for

#: Every profile the spec allows (two pages), with a readable test id each.
ALL_PROFILES: list[Profile] = all_profiles(pages=2, values=DEFAULT_VALUES)


def profile_id(p: Profile) -> str:
    service = "HostService" if p.host_service else "Direct"
    return f"{p.variant}-{service}-{p.unused_access}"


_PROFILE_PARAMS = [pytest.param(p, id=profile_id(p)) for p in ALL_PROFILES]


class EngineContract:
    """Subclass with ``engine_command`` or ``engine_class`` (or override :meth:`make_engine`)."""

    #: The engine's command line (JSON lines over stdin/stdout).
    engine_command: ClassVar[str | None] = None
    #: Or an in-process engine class, as ``"module:Class"``.
    engine_class: ClassVar[str | None] = None
    #: Seconds to wait for each reply of a JSON-lines engine.
    timeout: ClassVar[float] = DEFAULT_TIMEOUT
    #: Hypothesis: settings profile ("quick" or "thorough"), overrides, seed (None: random).
    settings_profile: ClassVar[str] = QUICK
    examples: ClassVar[int | None] = None
    steps: ClassVar[int | None] = None
    seed: ClassVar[int | None] = 0
    #: The profiles test_hypothesis runs on (None: every one); the others are skipped, saying so.
    hypothesis_profiles: ClassVar[list[ProfileRequest] | None] = None
    #: Hypothesis's example database ("default": .hypothesis/conformance; None: none), which
    #: replays a failure first on the next run.
    database: ClassVar[Path | str | None] = "default"
    #: Where a failure's report and trace are saved.
    report_dir: ClassVar[Path] = Path("conformance-report")

    def make_engine(self) -> Engine:
        if self.engine_command:
            return JsonLinesEngine(self.engine_command, timeout=self.timeout)
        if self.engine_class:
            from .cli import load_engine_class

            return load_engine_class(self.engine_class)
        raise NotImplementedError(
            f"{type(self).__name__}: set engine_command or engine_class, or override make_engine"
        )

    @contextmanager
    def _session(self, profile: Profile | None) -> Iterator[Session]:
        engine = checked(self.make_engine())
        try:
            request = ProfileRequest.of(profile) if profile is not None else ProfileRequest()
            try:
                session = connect(
                    engine, request, values=profile.values if profile else DEFAULT_VALUES
                )
            except Unsupported as exc:
                pytest.skip(f"the engine does not run this profile: {exc}")
            except EngineFaultError as err:
                pytest.fail(fault_report(err, engine=type(engine).__name__), pytrace=False)
            yield session
        finally:
            engine.close()

    def _check(self, outcome: Outcome) -> None:
        if outcome.passed:
            return
        err = outcome.error
        if err is None:
            pytest.fail(f"{outcome.drive}: {outcome.note}", pytrace=False)
        if isinstance(err, EngineFaultError):
            text = fault_report(err, engine=outcome.engine)
        else:
            text = divergence_report(err, engine=outcome.engine)
        profile = err.profile if err.profile is not None else outcome.profile
        where = self.report_dir / type(self).__name__ / f"{outcome.drive}-{profile_id(profile)}"
        saved = save(where, text, trace_of(profile, err.steps, {"engine": outcome.engine}))
        pytest.fail(f"{text}\n\nsaved: {saved.report.parent}", pytrace=False)

    # ------------------------------------------------------------------ the tests

    def test_handshake(self) -> None:
        with self._session(None) as session:
            assert session.info.name
            assert session.profile.pages >= 1

    @pytest.mark.parametrize("op", OPERATIONS)
    def test_operation(self, op: str) -> None:
        with self._session(None) as session:
            if op not in session.info.ops:
                assert op in OPTIONAL_OPERATIONS
                pytest.skip(f"{session.info.name} does not implement {op} (optional)")
            ops = set(session.info.ops)
            programs = [
                p for p in tour(session.profile)
                if p[-1][0] == op and all(o in ops for o, _, _ in p)
            ]  # fmt: skip
            self._check(run_programs(session, programs, f"operation {op}", shrinking=False))

    @pytest.mark.parametrize("profile", _PROFILE_PARAMS)
    def test_tour(self, profile: Profile) -> None:
        with self._session(profile) as session:
            self._check(run_tour(session))

    @pytest.mark.parametrize("profile", _PROFILE_PARAMS)
    def test_hypothesis(self, profile: Profile) -> None:
        chosen = self.hypothesis_profiles
        if chosen is not None and ProfileRequest.of(profile) not in chosen:
            pytest.skip("not among this contract's hypothesis_profiles (the tour covers it)")
        settings = settings_for(
            os.environ.get("CMMA_CONFORMANCE_PROFILE", self.settings_profile),
            examples=self.examples, steps=self.steps, database=self.database,
        )  # fmt: skip
        with self._session(profile) as session:
            self._check(run_hypothesis(session, settings, seed=self.seed))


# --------------------------------------------------------------------------- the ESSA mode

#: Every constant set of the ESSA mode but the Impl (the contract's ``impl`` adds it); a set that
#: is no profile of that Impl (refimpl.essa.profile.profiles) is skipped.
_ESSA_SETS = [
    pytest.param(fields, id=ESSA.short_name(EssaProfile(**fields)).split("-", 1)[1].rsplit("-", 1)[0])
    for fields in (dict(f, impl="KVMGmap") for f in combinations(
        tuple(c for c in ESSA_CONSTANTS if c.attr != "impl")))
]  # fmt: skip


class EssaEngineContract:
    """The contract of the ESSA mode: subclass with ``impl`` and ``engine_command`` (or
    ``engine_class``); pytest runs ``run --machine ESSA``'s drives on every constant set::

        class TestMyHarness(EssaEngineContract):
            impl = "KVMGmap"
            engine_command = "./build/my-harness"

    * ``test_handshake``: the engine answers the ESSA hello;
    * ``test_tour[set]``: every transition of the one-page machine (and the queue tour);
    * ``test_hypothesis[set]``: hypothesis over ``pages`` pages (default 2).

    A failure's message is ``run``'s report; the trace is saved under ``report_dir``.
    """

    impl: ClassVar[str]
    engine_command: ClassVar[str | None] = None
    engine_class: ClassVar[str | None] = None
    timeout: ClassVar[float] = DEFAULT_TIMEOUT
    pages: ClassVar[int] = 2
    examples: ClassVar[int] = 100
    steps: ClassVar[int] = 40
    seed: ClassVar[int | None] = 0
    report_dir: ClassVar[Path] = Path("conformance-report")

    def make_engine(self) -> EssaEngine:
        if self.engine_command:
            return EssaJsonLinesEngine(self.engine_command, timeout=self.timeout)
        if self.engine_class:
            from .cli import load_class

            engine = load_class(self.engine_class)
            assert isinstance(engine, EssaEngine), f"{self.engine_class} is not an ESSA engine"
            return engine
        raise NotImplementedError(f"{type(self).__name__}: set engine_command or engine_class")

    @contextmanager
    def _drive(self, fields: dict[str, Any]) -> Iterator[tuple[EssaEngine, Drive[Any, Any, Any, Any]]]:
        fields = {**fields, "impl": self.impl}
        profile = next((p for p in essa_profiles(fields, self.pages)), None)
        if profile is None:
            pytest.skip(f"not a profile of {self.impl}: {fields}")
        engine = self.make_engine()
        try:
            try:
                ESSA_DRIVER.connect(engine, profile)
            except Unsupported as exc:
                pytest.skip(f"the engine does not run this profile: {exc}")
            except EngineFault as exc:
                pytest.fail(f"ENGINE FAULT ({exc.kind}) at hello: {exc.message}", pytrace=False)
            yield engine, Drive(ESSA_DRIVER, engine, profile)
        finally:
            engine.close()

    def _check(self, outcome: DriverOutcome) -> None:
        if outcome.error is None:
            return
        text = driver_report(ESSA_DRIVER, outcome.error, engine=type(self).__name__)
        saved = driver_save(ESSA_DRIVER, self.report_dir / type(self).__name__, text, outcome.error)
        pytest.fail(f"{text}\nsaved: {saved.directory}", pytrace=False)

    def test_handshake(self) -> None:
        with self._drive({c.attr: c.domain[0] for c in ESSA_CONSTANTS if c.attr != "impl"}):
            pass

    @pytest.mark.parametrize("fields", _ESSA_SETS)
    def test_tour(self, fields: dict[str, Any]) -> None:
        with self._drive(fields) as (_, drive):
            self._check(run_driver_programs(drive, essa_tours(drive.profile)))

    @pytest.mark.parametrize("fields", _ESSA_SETS)
    def test_hypothesis(self, fields: dict[str, Any]) -> None:
        with self._drive(fields) as (_, drive):
            self._check(run_driver_hypothesis(drive, essa_requests(drive.profile),
                                              examples=self.examples, max_steps=self.steps,
                                              seed=self.seed))  # fmt: skip
