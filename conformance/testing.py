"""Contract-test base classes: an engine's own CI runs the suite by subclassing one (pytest).

As zarr-python's ``zarr.testing`` does for stores: subclass the contract of the engine's
machine, say how to start the engine, and pytest collects the whole suite::

    # test_my_engine.py, in the engine's repository
    from conformance.testing import EngineContract

    class TestMyEngine(EngineContract):
        engine_command = "./build/my-engine"          # JSON lines (PROTOCOL.md), or:
        # engine_class = "my_package.adapter:MyEngine"   # in-process

Both contracts are :class:`MachineContract` (one driver, :mod:`conformance.driver`), each
parametrised by the profiles the class declares in ``profiles`` (None: every profile of the
machine); only those are collected, and one the engine then refuses at its hello is skipped with
the engine's reason:

* ``test_handshake``: the engine says hello;
* ``test_tour[profile]``: every transition, deterministically (the machine's tours);
* ``test_hypothesis[profile]``: hypothesis (``examples``, ``steps``, ``seed``).

:class:`EngineContract` (PageStates) adds ``test_operation[op]`` (the tour's programs ending in
``op``; skipped for an optional operation the engine leaves out), ``settings_profile``
(``quick``, ``thorough``; ``CMMA_CONFORMANCE_PROFILE=thorough`` overrides it),
``hypothesis_profiles`` and hypothesis's example ``database``. :class:`EssaEngineContract`
(ESSA) takes ``impl`` and ``pages``, and every constant set is a parameter.

A failure's message is ``run``'s report; the report and the trace (JSON lines, ITF) are saved
under ``report_dir``. A relative path in ``engine_command`` (its first word when it has a slash,
and any word starting ``./`` or ``../``) and a relative ``report_dir`` are taken from the folder
of the file that defines the class, not from pytest's working directory. ``seed`` is hypothesis's
seed, per class: 0 by default, so every run draws the same programs and CI is repeatable; None
draws new ones each run.

To add rules and invariants of one's own, :class:`PageStatesStateMachine` (and
:class:`EssaStateMachine`) are hypothesis state machines that drive the engine beside the
reference: subclass one, add ``@rule`` and ``@invariant`` methods, and collect its ``TestCase``
(conformance/README.md, "Your own rules and invariants"). :func:`requests` and :func:`programs`
are the strategies the suite draws from.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import shlex
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from refimpl import Profile
from refimpl.core.constants import combinations
from refimpl.essa import CONSTANTS as ESSA_CONSTANTS
from refimpl.essa import ESSA, EssaProfile
from refimpl.essa.profile import profiles as essa_profiles
from refimpl.pagestates.profile import all_profiles

from .driver import DEFAULT_DATABASE, Drive, Outcome, report, run_hypothesis, run_programs, save
from .driver import programs as request_lists
from .essa import ESSA_DRIVER, EssaProfileRequest
from .jsonlines import DEFAULT_TIMEOUT, DEFAULT_WINDOW
from .machines import Mode
from .pagestates import DEFAULT_VALUES, PAGESTATES_DRIVER, Ask, Connected
from .protocol import OPERATIONS, OPTIONAL_OPERATIONS, EngineFault, ProfileRequest, Unsupported


def folder_of(cls: type) -> Path:
    """The folder of the file that defines ``cls`` (the working directory if it has none)."""
    try:
        return Path(inspect.getfile(cls)).resolve().parent
    except (TypeError, OSError):
        return Path.cwd()


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
    #: Hypothesis: examples and steps per example (None: the settings profile's).
    examples: ClassVar[int | None] = None
    steps: ClassVar[int | None] = None
    #: Hypothesis's seed for this class: 0 by default (the same programs every run, so CI is
    #: repeatable); another number for other programs; None for new ones each run.
    seed: ClassVar[int | None] = 0
    #: Where a failure's report and trace are saved (relative: to the test file's folder).
    report_dir: ClassVar[Path] = Path("conformance-report")

    @classmethod
    def here(cls) -> Path:
        """The folder of the file that defines the class: relative paths are taken from it."""
        return folder_of(cls)

    def command(self) -> str | None:
        """``engine_command`` with its relative paths taken from :meth:`here`."""
        if self.engine_command is None:
            return None
        return resolve_command(self.engine_command, self.here())

    def make_engine(self) -> Any:
        if self.engine_command or self.engine_class:
            from argparse import Namespace

            return self.mode.engine(Namespace(engine=self.command(), timeout=self.timeout,
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
        saved = save(self.mode, self.here() / self.report_dir / name / outcome.drive, text,
                     outcome.error, name)  # fmt: skip
        pytest.fail(f"{text}\nsaved: {saved.directory}", pytrace=False)

    def _sizes(self, settings_profile: str = "quick") -> tuple[int, int]:
        examples, steps = self.mode.sizes[settings_profile]
        return (self.examples if self.examples is not None else examples,
                self.steps if self.steps is not None else steps)  # fmt: skip


def resolve_command(command: str, folder: Path) -> str:
    """``command`` with its relative paths taken from ``folder``: the first word when it has a
    slash, and every word starting ``./`` or ``../``. A bare name (``node``) is left to PATH."""
    words = shlex.split(command)
    for i, w in enumerate(words):
        relative = w.startswith(("./", "../")) or (i == 0 and "/" in w)
        if relative and not Path(w).is_absolute():
            words[i] = str((folder / w).resolve())
    return shlex.join(words)


def _fixed(asked: ProfileRequest | EssaProfileRequest) -> dict[str, Any]:
    """The fields a request fixes."""
    if isinstance(asked, EssaProfileRequest):
        return dict(asked.fields)
    return {k: v for k, v in dataclasses.asdict(asked).items() if v is not None}


def _matches(asked: ProfileRequest | EssaProfileRequest, fields: dict[str, Any]) -> bool:
    """Whether a profile's ``fields`` agree with every field the request ``asked`` fixes."""
    return all(fields.get(k) == v for k, v in _fixed(asked).items())


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
    #: The profiles the engine runs, each a request (a field left None: any value); only these
    #: are collected. None: every profile the spec allows (those the engine refuses are skipped).
    profiles: ClassVar[Sequence[ProfileRequest] | None] = None
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

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """``profile``: the declared :attr:`profiles` among every profile the spec allows."""
        if "profile" in metafunc.fixturenames:
            metafunc.parametrize("profile", self.profile_params())

    @classmethod
    def profile_params(cls) -> list[Any]:
        if cls.profiles is None:
            return list(_PROFILE_PARAMS)
        chosen = [p for p in ALL_PROFILES
                  if any(_matches(asked, dataclasses.asdict(ProfileRequest.of(p)))
                         for asked in cls.profiles)]  # fmt: skip
        return [pytest.param(p, id=profile_id(p)) for p in chosen]

    def test_tour(self, profile: Profile) -> None:
        with self._drive(self._ask(profile)) as drive:
            self._check(run_programs(drive, PAGESTATES_DRIVER.tours(drive.profile)))

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
    #: The constant sets the engine runs, each a request (a field left None: any value); only
    #: these, and only those that are profiles of ``impl``, are collected. None: every set.
    profiles: ClassVar[Sequence[EssaProfileRequest] | None] = None

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """``fields``: the declared constant sets that are profiles of ``impl``."""
        if "fields" in metafunc.fixturenames:
            metafunc.parametrize("fields", self.set_params())

    @classmethod
    def set_params(cls) -> list[Any]:
        out = []
        for param in _ESSA_SETS:
            given: dict[str, Any] = param.values[0]  # type: ignore[assignment]
            fields: dict[str, object] = {**given, "impl": cls.impl}
            if next(iter(essa_profiles(fields, cls.pages)), None) is None:
                continue
            if cls.profiles is None or any(_matches(asked, {**fields, "pages": cls.pages})
                                           for asked in cls.profiles):  # fmt: skip
                out.append(param)
        return out

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

    def test_tour(self, fields: dict[str, Any]) -> None:
        with self._drive(self._profile(fields)) as drive:
            self._check(run_programs(drive, ESSA_DRIVER.tours(drive.profile)))

    def test_hypothesis(self, fields: dict[str, Any]) -> None:
        examples, steps = self._sizes()
        with self._drive(self._profile(fields)) as drive:
            self._check(run_hypothesis(drive, examples=examples, max_steps=steps,
                                       seed=self.seed))  # fmt: skip


# --------------------------------------------------------------------------- extending the suite


def requests(mode: Mode, profile: Any) -> st.SearchStrategy[Any]:
    """One request the suite may send under ``profile`` (a connected profile: the drive's)."""
    return st.sampled_from(list(mode.requests(profile)))


def programs(mode: Mode, profile: Any, max_steps: int = 40) -> st.SearchStrategy[list[Any]]:
    """The request sequences the suite's hypothesis drive draws under ``profile``: the
    machine's own strategy where it has one, else sequences over :func:`requests`."""
    drawn = getattr(mode, "programs", None)
    if drawn is not None:
        return drawn(profile, max_steps)  # type: ignore[no-any-return]
    return request_lists(list(mode.requests(profile)), max_steps)


class ConformanceStateMachine(RuleBasedStateMachine):
    """A hypothesis state machine that drives an engine beside the reference: each example
    starts a fresh engine (``engine_command`` or ``engine_class``, as the contracts take them)
    under ``profile``, and the rule :meth:`send` sends it a request drawn by :func:`requests`
    and compares the reply with the reference's (a divergence fails the example with the
    driver's report). Subclass it to add rules (``@rule``: a request sequence of your own,
    sent with :meth:`send`) and invariants (``@invariant``: on :attr:`state`, the reference's
    state, and :attr:`reply`, the engine's last reply). ``TestCase`` is the unittest class
    pytest collects; ``settings`` (examples, steps) as hypothesis's."""

    mode: ClassVar[Mode]
    profile: ClassVar[Any]
    engine_command: ClassVar[str | None] = None
    engine_class: ClassVar[str | None] = None
    timeout: ClassVar[float] = DEFAULT_TIMEOUT
    window: ClassVar[int] = 1

    def __init__(self) -> None:
        super().__init__()
        self.drive: Drive[Any, Any, Any, Any] | None = None
        #: The engine's last reply (None before the first request).
        self.reply: Any = None

    def make_engine(self) -> Any:
        """A fresh engine: ``engine_command`` or ``engine_class`` (override for another)."""
        from argparse import Namespace

        command = (None if self.engine_command is None
                   else resolve_command(self.engine_command, folder_of(type(self))))  # fmt: skip
        return self.mode.engine(Namespace(engine=command, engine_class=self.engine_class,
                                          timeout=self.timeout, window=self.window))  # fmt: skip

    def connect(self) -> Drive[Any, Any, Any, Any]:
        """A fresh engine (:meth:`make_engine`), said hello to under :attr:`profile`, reset."""
        engine = self.make_engine()
        _, connected = self.mode.connect(engine, self.asked())
        drive: Drive[Any, Any, Any, Any] = Drive(self.mode, engine, connected)
        drive.reset()
        return drive

    def asked(self) -> Any:
        """What the hello asks for: :attr:`profile` as the machine's mode takes it."""
        return self.profile

    @initialize()
    def start(self) -> None:
        self.drive = self.connect()

    @property
    def state(self) -> Any:
        """The reference's state after the requests so far."""
        assert self.drive is not None
        return self.drive.state

    def send(self, request: Any) -> Any:
        """Send ``request`` to the engine and judge its reply; the reply. A divergence fails
        the example with the driver's report of the steps since the reset."""
        assert self.drive is not None
        from .driver import Divergence

        try:
            self.reply = self.drive.step(request)
        except Divergence as err:
            raise AssertionError(report(self.mode, err, engine=type(self).__name__)) from None
        return self.reply

    @rule(data=st.data())
    def request(self, data: st.DataObject) -> None:
        """One request drawn from every request of the profile."""
        assert self.drive is not None
        self.send(data.draw(requests(self.mode, self.drive.profile)))

    def teardown(self) -> None:
        if self.drive is not None:
            self.drive.engine.close()


class PageStatesStateMachine(ConformanceStateMachine):
    """:class:`ConformanceStateMachine` of the PageStates mode; ``profile`` a
    :class:`~conformance.protocol.ProfileRequest` (default: the reference's)."""

    mode = PAGESTATES_DRIVER
    profile: ClassVar[Any] = ProfileRequest("Full", True, "AddressingException", 2)

    def asked(self) -> Any:
        return Ask(self.profile)


class EssaStateMachine(ConformanceStateMachine):
    """:class:`ConformanceStateMachine` of the ESSA mode; ``profile`` an
    :class:`~refimpl.essa.EssaProfile`."""

    mode = ESSA_DRIVER


#: Settings for a state machine's ``TestCase`` that CI repeats: derandomised (the same draws
#: every run), no deadline.
REPEATABLE = hypothesis_settings(derandomize=True, deadline=None, max_examples=50,
                                 stateful_step_count=30)  # fmt: skip


__all__ = ["ALL_PROFILES", "REPEATABLE", "ConformanceStateMachine", "EngineContract",
           "EssaEngineContract", "EssaStateMachine", "MachineContract", "PageStatesStateMachine",
           "profile_id", "programs", "requests", "resolve_command"]  # fmt: skip
