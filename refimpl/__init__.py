"""Reference implementation of the CMMA page-state machine: plain, typed Python, no I/O.

The machine of spec/PageStates.tla, for every ``Variant`` and profile, with the spec's names::

    from refimpl import Profile, init, step, enabled_steps, Refused

    profile = Profile("ZVMPrototype", host_service=True, unused_access="AddressingException",
                      pages=2, values=(0, 1))
    s = init(profile)                        # Init: every page Sz
    s = step(profile, s, "HostZeroFill", 0)  # the successor State ...
    r = step(profile, s, "Read", 1)          # ... or Refused: Read of Sz waits for the host
    s = step(profile, s, "Write", 0, 1)      # Write(p, v): the value is the argument
    s.usage[0], s.dirty[0], s.lastOp         # the spec's variables

Modules: :mod:`~refimpl.profile` (the constants), :mod:`~refimpl.state` (the variables),
:mod:`~refimpl.rules` (the actions on one page, as the spec writes them), :mod:`~refimpl.machine`
(``step``, ``enabled_steps``), :mod:`~refimpl.properties` (PageStateProperties.tla). Checked
against the spec by comparing state graphs with TLC's (:mod:`~refimpl.graph`,
:mod:`~refimpl.tlcgraph`; tests/test_refimpl_equality.py). ``python -m refimpl run`` tries a
sequence of operations by hand.
"""

from .machine import Machine, Refused, Step, enabled_steps, init, machine, step
from .profile import (
    ADDRESSING_EXCEPTION, NO_PAGE, NO_VALUE, READS_ZERO, VARIANTS, ZERO, Profile, ProfileError,
    all_profiles,
)  # fmt: skip
from .properties import ACTION_PROPERTIES, INVARIANTS
from .state import GUEST_OPS, HOST_OPS, OPS, LastOp, Page, State

__all__ = [
    "ACTION_PROPERTIES", "ADDRESSING_EXCEPTION", "GUEST_OPS", "HOST_OPS", "INVARIANTS", "LastOp",
    "Machine", "NO_PAGE", "NO_VALUE", "OPS", "Page", "Profile", "ProfileError", "READS_ZERO",
    "Refused", "State", "Step", "VARIANTS", "ZERO", "all_profiles", "enabled_steps", "init",
    "machine", "step",
]  # fmt: skip
