"""The page-state machine of spec/PageStates.tla (the paper's Figure 1 and its simplifications).

Modules: :mod:`~refimpl.pagestates.profile` (the constants), :mod:`~refimpl.pagestates.state`
(the variables), :mod:`~refimpl.pagestates.rules` (the actions on one page, as the spec writes
them), :mod:`~refimpl.pagestates.machine` (``step``, ``enabled_steps``),
:mod:`~refimpl.pagestates.properties` (PageStateProperties.tla) and
:mod:`~refimpl.pagestates.package` (:data:`PAGE_STATES`, what the engine of :mod:`refimpl.core`
needs to explore, compare with TLC and check it).
"""

from ..core.package import Refused
from .machine import Machine, Step, enabled_steps, init, machine, step
from .package import PAGE_STATES
from .profile import (
    ADDRESSING_EXCEPTION, NO_PAGE, NO_VALUE, READS_ZERO, VARIANTS, ZERO, Profile, ProfileError,
    all_profiles,
)  # fmt: skip
from .properties import ACTION_PROPERTIES, INVARIANTS
from .state import GUEST_OPS, HOST_OPS, OPS, LastOp, Page, State

__all__ = [
    "ACTION_PROPERTIES", "ADDRESSING_EXCEPTION", "GUEST_OPS", "HOST_OPS", "INVARIANTS", "LastOp",
    "Machine", "NO_PAGE", "NO_VALUE", "OPS", "PAGE_STATES", "Page", "Profile", "ProfileError",
    "READS_ZERO", "Refused", "State", "Step", "VARIANTS", "ZERO", "all_profiles", "enabled_steps",
    "init", "machine", "step",
]  # fmt: skip
