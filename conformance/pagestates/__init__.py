"""The PageStates machine of the conformance suite (spec/PageStates.tla's guest and host
operations, PROTOCOL.md), as :mod:`refimpl.pagestates` is its reference implementation: a package
the machine-independent driver takes through :data:`conformance.machines.PACKAGES`.

* :mod:`~conformance.pagestates.mode`: its vocabulary and oracle, and :data:`MODE`, the mode the
  driver and the commands use;
* :mod:`~conformance.pagestates.engine`: the in-process engines (the reference engine);
* :mod:`~conformance.pagestates.judge`: the rule a reply breaks;
* :mod:`~conformance.pagestates.trace`: its JSON-lines and ITF trace files;
  :mod:`~conformance.pagestates.tla`: its TLA+ trace module;
* :mod:`~conformance.pagestates.mutants`: its broken engines.

Its public names are importable from the package.
"""

from typing import Any, Final

from .mode import *  # noqa: F403 - the package's names are the mode's
from .mode import PAGESTATES_DRIVER as PAGESTATES_DRIVER

#: The machine's mode, for :data:`conformance.machines.MACHINES`.
MODE = PAGESTATES_DRIVER
#: The commands only this machine has: none.
COMMANDS: Final[dict[str, Any]] = {}
