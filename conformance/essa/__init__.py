"""The ESSA machine of the conformance suite (spec/ESSA.tla's instruction layer, PROTOCOL.md "The
ESSA machine"), as :mod:`refimpl.essa` is its reference implementation: a package the
machine-independent driver takes through :data:`conformance.machines.PACKAGES`.

* :mod:`~conformance.essa.protocol`: the requests and replies, the oracle and the rule a step
  breaks, the tours, the engines (reference, JSON-lines client, ``python -m conformance.essa``);
* :mod:`~conformance.essa.mode`: :data:`MODE`, the mode the driver and the commands use;
* :mod:`~conformance.essa.cli`: its options and engines, its trace files;
* :mod:`~conformance.essa.tla`: its TLA+ trace module; :mod:`~conformance.essa.mutants`: its
  broken engines; :mod:`~conformance.essa.tables`: the effect tables of PROTOCOL.md;
* :mod:`~conformance.essa.classify`: ``classify``, the command only this machine has
  (:data:`COMMANDS`).

Its public names are importable from the package (``conformance.essa:KVMGmapEngine``).
"""

from .protocol import *  # noqa: F403 - the package's names are the protocol's
from .mode import DEFAULT_BUDGETS as DEFAULT_BUDGETS
from .mode import ESSA_DRIVER as ESSA_DRIVER
from .mode import EssaDriver as EssaDriver
from .classify import COMMANDS as COMMANDS

#: The machine's mode, for :data:`conformance.machines.MACHINES`.
MODE = ESSA_DRIVER
