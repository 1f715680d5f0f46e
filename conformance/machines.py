"""The machines the conformance suite drives, by name, as :data:`refimpl.MACHINES` holds their
reference implementations: the one place the machine-independent driver names a machine. Adding
a machine is adding its package (like :mod:`conformance.pagestates` or :mod:`conformance.essa`),
which exports its mode as ``MODE`` and the commands only it has as ``COMMANDS``, and listing
the package in :data:`PACKAGES`.

A :class:`Mode` is a :class:`~conformance.driver.DriverMachine` (what the driver needs) with
what the command line needs of the machine (:mod:`conformance.commands`): its profile options,
how an engine is named, the profiles ``run`` asks for, how a recorded trace is read, its TLA+
trace module and its mutants.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Protocol, TextIO

from . import essa, essa_migration, pagestates
from .driver import DriverMachine, Outcome


class Mode(DriverMachine, Protocol):
    """A machine's mode of the protocol, for the driver and for the command line."""

    @property
    def spec(self) -> str:
        """The TLA+ module the machine's traces are checked against, as the reports name it."""
        ...

    @property
    def sizes(self) -> dict[str, tuple[int, int]]:
        """``--profile quick|thorough``: hypothesis examples, steps per example."""
        ...

    @property
    def database(self) -> Path | None:
        """Hypothesis's example database unless ``--no-database`` (None: none)."""
        ...

    @property
    def mutant_header(self) -> tuple[str, ...]:
        """The columns ``mutants`` adds for this machine (:meth:`mutant_row` their values)."""
        ...

    def speaks(self, args: argparse.Namespace) -> bool:
        """Whether the engine ``--engine`` or ``--engine-class`` names answers this mode's hello
        (``run`` without ``--machine`` asks every mode but the default)."""
        ...

    def add_options(self, parser: argparse.ArgumentParser, engine: bool = True) -> None:
        """The machine's profile options; ``engine`` false: for a recorded trace (``validate``),
        whose header, not an engine, names the profile."""
        ...

    def engine(self, args: argparse.Namespace) -> Any:
        """The engine ``--engine`` or ``--engine-class`` names; raises ValueError."""
        ...

    def profiles_of(self, args: argparse.Namespace, engine: Any) -> tuple[list[Any], str]:
        """The profiles ``run`` asks the engine for, and a line saying which; raises
        ValueError."""
        ...

    def read_trace(self, path: Path, args: argparse.Namespace
                   ) -> tuple[Any, list[Any], list[Any]]:  # fmt: skip
        """A recorded trace: the profile, the requests, the replies; raises ValueError (a
        UnicodeDecodeError for a file that is not text)."""
        ...

    def trace_module(self, profile: Any, steps: Sequence[tuple[Any, Any]]) -> tuple[str, str]:
        """The TLA+ trace module and its .cfg (module :data:`conformance.pagestates.tla.MODULE`)."""
        ...

    def check_with_tlc(self, profile: Any, steps: Sequence[tuple[Any, Any]],
                       directory: Path | None = None) -> Any:  # fmt: skip
        """TLC's :class:`~conformance.pagestates.tla.TlcVerdict` on the trace module."""
        ...

    def mutants(self) -> list[type]: ...

    def mutant_profiles(self, mutant: Any) -> list[Any]: ...

    def kills(self, mutant: Any, outcome: Outcome) -> bool: ...

    def mutant_row(self, mutant: Any, outcome: Outcome) -> tuple[str, ...]: ...


#: The machine packages, the default machine's first.
PACKAGES: Final[tuple[ModuleType, ...]] = (pagestates, essa, essa_migration)

#: Every machine of the suite, by the name ``--machine`` takes (the first is the default): each
#: package's ``MODES`` (a mode built on another sits in its package), else its ``MODE``.
MACHINES: Final[dict[str, Mode]] = {m.name: m for p in PACKAGES
                                    for m in getattr(p, "MODES", (p.MODE,))}  # fmt: skip

#: A command of ``python -m conformance`` that one machine alone has: its mode, the help line,
#: the options (given the parser and what adds ``--engine`` and ``--engine-class``), and the
#: command (called with the mode, the arguments and the two outputs; returns the exit status).
MachineCommand = tuple[
    Mode, str,
    Callable[[argparse.ArgumentParser, Callable[[argparse.ArgumentParser, str], None]], None],
    Callable[[Any, argparse.Namespace, TextIO, TextIO], int],
]  # fmt: skip

#: The commands one machine alone has (``classify``: ESSA), by name.
MACHINE_COMMANDS: Final[dict[str, MachineCommand]] = {
    name: (p.MODE, *command) for p in PACKAGES for name, command in p.COMMANDS.items()
}
