"""The ESSA machine of spec/ESSA.tla: the instruction under the 2007 model and two KVMs.

Modules: :mod:`~refimpl.essa.profile` (the constants, and :data:`~refimpl.essa.profile.CONSTANTS`,
their one list), :mod:`~refimpl.essa.state` (the variables), :mod:`~refimpl.essa.rules` (the
decision tables of each implementation), :mod:`~refimpl.essa.machine` (``step``,
``enabled_steps``, the bare instruction ``essa``), :mod:`~refimpl.essa.properties`
(ESSAProperties.tla) and :mod:`~refimpl.essa.package` (:data:`ESSA`, what the engine of
:mod:`refimpl.core` needs to explore, compare with TLC and check it)::

    from refimpl.essa import EssaProfile, init, step, enabled_steps, essa

    profile = EssaProfile("KVMClassic", storage_keys=True, facility147=True, cbrl_size=1, pages=1)
    s = init(profile)                               # Init: every page S, logically zero
    s = step(profile, s, "GuestWrite", 0)           # the successor EssaState ...
    r = step(profile, s, "Migrate")                 # ... or Refused: the step is disabled
    s, r1 = essa(profile, s, 0, 0)                  # the bare instruction: ORC 0 on page 0
"""

from ..core.package import Refused
from .machine import (
    ACTION_NAMES, GUEST_ACTIONS, HOST_ACTIONS, MAX_ORC_FIELD, ORC_CODES, PAGELESS, Result,
    ProgramInterruption, SpecificationException, Step, enabled_steps, essa, fault_in, init,
    requests, step, successors,
)  # fmt: skip
from .package import ESSA
from .profile import CONSTANTS, IMPLS, NO_PAGE, NO_VALUE, EssaProfile, EssaProfileError
from .state import USAGES, WRITTEN, EssaLastOp, EssaPage, EssaState

__all__ = [
    "ACTION_NAMES", "CONSTANTS", "ESSA", "GUEST_ACTIONS", "HOST_ACTIONS", "IMPLS", "MAX_ORC_FIELD",
    "NO_PAGE", "NO_VALUE", "ORC_CODES", "PAGELESS", "USAGES", "WRITTEN", "EssaLastOp", "EssaPage",
    "EssaProfile", "EssaProfileError", "EssaState", "ProgramInterruption", "Refused", "Result",
    "SpecificationException", "Step", "enabled_steps", "essa", "fault_in", "init", "requests",
    "step", "successors",
]  # fmt: skip
