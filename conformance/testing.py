"""Contract-test base classes: an engine's own CI runs the suite by subclassing one (pytest).

As zarr-python's ``zarr.testing`` does for stores: subclass the contract of the engine's
machine, say how to start the engine, and pytest collects the whole suite::

    # test_my_engine.py, in the engine's repository
    from conformance.testing import EngineContract

    class TestMyEngine(EngineContract):
        engine_command = "./build/my-engine"          # JSON lines (PROTOCOL.md), or:
        # engine_class = "my_package.adapter:MyEngine"   # in-process

Both contracts are :class:`MachineContract` (one driver, :mod:`conformance.driver`), each
parametrised by its machine's profiles; a profile the engine does not run is skipped with the
engine's reason:

* ``test_handshake``: the engine says hello;
* ``test_tour[profile]``: every transition, deterministically (the machine's tours);
* ``test_hypothesis[profile]``: hypothesis (``examples``, ``steps``, ``seed``).

:class:`EngineContract` (PageStates) adds ``test_operation[op]`` (the tour's programs ending in
``op``; skipped for an optional operation the engine leaves out), ``settings_profile``
(``quick``, ``thorough``; ``CMMA_CONFORMANCE_PROFILE=thorough`` overrides it),
``hypothesis_profiles`` and hypothesis's example ``database``. :class:`EssaEngineContract`
(ESSA) takes ``impl`` and ``pages``, and every constant set is a parameter.

A failure's message is ``run``'s report; the report and the trace (JSON lines, ITF) are saved
under ``report_dir``.
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

from .driver import DEFAULT_DATABASE, Drive, Outcome, report, run_hypothesis, run_programs, save
from .essa import ESSA_DRIVER
from .jsonlines import DEFAULT_TIMEOUT, DEFAULT_WINDOW
from .machines import Mode
from .pagestates import DEFAULT_VALUES, PAGESTATES_DRIVER, Ask, Connected
from .protocol import OPERATIONS, OPTIONAL_OPERATIONS, EngineFault, ProfileRequest, Unsupported


class MachineContract:
    """What both contracts share: the engine, the hello, the drives and the failure report."""

    mode: ClassVar[Mode]
    #: The engine's command line (JSON lines over stdin/stdout).
    engine_command: ClassVar[str | None] = None
    #: Or an in-process engine class, as ``"module:Class"``.
    engine_class: ClassVar[str | None] = None
    #: Seconds to wait for each reply of a JSON-lines engine.
    timeout: ClassVar[float] = DEFAULT_TIMEOUT
    #: Requests sent to a JSON-lines engine ahead of their replies (1: lock-step).
    window: ClassVar[int] = DEFAULT_WINDOW
    #: Hypothesis: examples and steps per example (None: the settings profile's), seed.
    examples: ClassVar[int | None] = None
    steps: ClassVar[int | None] = None
    seed: ClassVar[int | None] = 0
    #: Where a failure's report and trace are saved.
    report_dir: ClassVar[Path] = Path("conformance-report")

    def make_engine(self) -> Any:
        if self.engine_command or self.engine_class:
            from argparse import Namespace

            return self.mode.engine(Namespace(engine=self.engine_command, timeout=self.timeout,
                                              window=self.window,
                                              engine_class=self.engine_class))  # fmt: skip
        raise NotImplementedError(
            f"{type(self).__name__}: set engine_command or engine_class, or override make_engine"
        )

    @contextmanager
    def _drive(self, asked: Any) -> Iterator[Drive[Any, Any, Any, Any]]:
        engine = self.make_engine()
        try:
            try:
                _, profile = self.mode.connect(engine, asked)
            except Unsupported as exc:
                pytest.skip(f"the engine does not run this profile: {exc}")
            except EngineFault as exc:
                pytest.fail(f"ENGINE FAULT ({exc.kind}) at hello: {exc.message}", pytrace=False)
            yield Drive(self.mode, engine, profile)
        finally:
            engine.close()

    def _check(self, outcome: Outcome) -> None:
        if outcome.error is None:
            return
        name = type(self).__name__
        text = report(self.mode, outcome.error, engine=name)
        saved = save(self.mode, self.report_dir / name / outcome.drive, text, outcome.error, name)
        pytest.fail(f"{text}\nsaved: {saved.directory}", pytrace=False)

    def _sizes(self, settings_profile: str = "quick") -> tuple[int, int]:
        examples, steps = self.mode.sizes[settings_profile]
        return (self.examples if self.examples is not None else examples,
                self.steps if self.steps is not None else steps)  # fmt: skip


# --------------------------------------------------------------------------- PageStates

#: Every profile the spec allows (two pages), with a readable test id each.
ALL_PROFILES: list[Profile] = all_profiles(pages=2, values=DEFAULT_VALUES)


def profile_id(p: Profile) -> str:
    service = "HostService" if p.host_service else "Direct"
    return f"{p.variant}-{service}-{p.unused_access}"


_PROFILE_PARAMS = [pytest.param(p, id=profile_id(p)) for p in ALL_PROFILES]


class EngineContract(MachineContract):
    """The PageStates contract: subclass with ``engine_command`` or ``engine_class`` (or
    override :meth:`make_engine`)."""

    mode = PAGESTATES_DRIVER
    #: Hypothesis settings profile ("quick" or "thorough").
    settings_profile: ClassVar[str] = "quick"
    #: The profiles test_hypothesis runs on (None: every one); the others are skipped, saying so.
    hypothesis_profiles: ClassVar[list[ProfileRequest] | None] = None
    #: Hypothesis's example database ("default": .hypothesis/conformance; None: none), which
    #: replays a failure first on the next run.
    database: ClassVar[Path | str | None] = "default"

    def _ask(self, profile: Profile | None) -> Ask:
        if profile is None:
            return Ask(ProfileRequest())
        return Ask(ProfileRequest.of(profile), values=profile.values)

    def test_handshake(self) -> None:
        with self._drive(self._ask(None)) as drive:
            assert drive.profile.profile.pages >= 1

    @pytest.mark.parametrize("op", OPERATIONS)
    def test_operation(self, op: str) -> None:
        with self._drive(self._ask(None)) as drive:
            connected: Connected = drive.profile
            if op not in connected.ops:
                assert op in OPTIONAL_OPERATIONS
                pytest.skip(f"the engine does not implement {op} (optional)")
            programs = [(label, p) for label, p in PAGESTATES_DRIVER.tours(connected)
                        if p[-1].op == op]  # fmt: skip
            self._check(run_programs(drive, programs, f"operation-{op}"))

    @pytest.mark.parametrize("profile", _PROFILE_PARAMS)
    def test_tour(self, profile: Profile) -> None:
        with self._drive(self._ask(profile)) as drive:
            self._check(run_programs(drive, PAGESTATES_DRIVER.tours(drive.profile)))

    @pytest.mark.parametrize("profile", _PROFILE_PARAMS)
    def test_hypothesis(self, profile: Profile) -> None:
        chosen = self.hypothesis_profiles
        if chosen is not None and ProfileRequest.of(profile) not in chosen:
            pytest.skip("not among this contract's hypothesis_profiles (the tour covers it)")
        examples, steps = self._sizes(
            os.environ.get("CMMA_CONFORMANCE_PROFILE", self.settings_profile))
        database = (DEFAULT_DATABASE if self.database == "default"
                    else None if self.database is None else Path(self.database))  # fmt: skip
        with self._drive(self._ask(profile)) as drive:
            self._check(run_hypothesis(drive, examples=examples, max_steps=steps,
                                       seed=self.seed, database=database))  # fmt: skip


# --------------------------------------------------------------------------- the ESSA mode

#: Every constant set of the ESSA mode but the Impl (the contract's ``impl`` adds it); a set that
#: is no profile of that Impl (refimpl.essa.profile.profiles) is skipped.
_ESSA_SETS = [
    pytest.param(fields, id=ESSA.short_name(EssaProfile(**fields)).split("-", 1)[1].rsplit("-", 1)[0])
    for fields in (dict(f, impl="KVMGmap") for f in combinations(
        tuple(c for c in ESSA_CONSTANTS if c.attr != "impl")))
]  # fmt: skip


class EssaEngineContract(MachineContract):
    """The contract of the ESSA mode: subclass with ``impl`` and ``engine_command`` (or
    ``engine_class``); pytest runs ``run --machine ESSA``'s drives on every constant set::

        class TestMyHarness(EssaEngineContract):
            impl = "KVMGmap"
            engine_command = "./build/my-harness"

    * ``test_handshake``: the engine answers the ESSA hello;
    * ``test_tour[set]``: every transition of the one-page machine (and the queue tour);
    * ``test_hypothesis[set]``: hypothesis over ``pages`` pages (default 2).
    """

    mode = ESSA_DRIVER
    impl: ClassVar[str]
    pages: ClassVar[int] = 2

    def _profile(self, fields: dict[str, Any]) -> EssaProfile:
        fields = {**fields, "impl": self.impl}
        profile = next((p for p in essa_profiles(fields, self.pages)), None)
        if profile is None:
            pytest.skip(f"not a profile of {self.impl}: {fields}")
        return profile

    def test_handshake(self) -> None:
        with self._drive(self._profile({c.attr: c.domain[0] for c in ESSA_CONSTANTS
                                        if c.attr != "impl"})):  # fmt: skip
            pass

    @pytest.mark.parametrize("fields", _ESSA_SETS)
    def test_tour(self, fields: dict[str, Any]) -> None:
        with self._drive(self._profile(fields)) as drive:
            self._check(run_programs(drive, ESSA_DRIVER.tours(drive.profile)))

    @pytest.mark.parametrize("fields", _ESSA_SETS)
    def test_hypothesis(self, fields: dict[str, Any]) -> None:
        examples, steps = self._sizes()
        with self._drive(self._profile(fields)) as drive:
            self._check(run_hypothesis(drive, examples=examples, max_steps=steps,
                                       seed=self.seed))  # fmt: skip


__all__ = ["ALL_PROFILES", "EngineContract", "EssaEngineContract", "MachineContract",
           "profile_id"]  # fmt: skip
