"""Reference implementation of the specs' machines: plain, typed Python, no I/O.

One engine (:mod:`refimpl.core`: profiles and their constants, state graphs, TLC's graph and the
comparison, named properties) and one package per machine that plugs into it:

* :mod:`refimpl.pagestates`: the page-state machine of spec/PageStates.tla
  (:data:`~refimpl.pagestates.PAGE_STATES`), for every ``Variant`` and profile;
* :mod:`refimpl.essa`: the ESSA instruction of spec/ESSA.tla under the 2007 model and the two
  Linux KVM implementations (:data:`~refimpl.essa.ESSA`).

:data:`MACHINES` lists them by the name a conformance hello uses. The page-state machine's API is
also importable from here, with the spec's names::

    from refimpl import Profile, init, step, enabled_steps, Refused

    profile = Profile("ZVMPrototype", host_service=True, unused_access="AddressingException",
                      pages=2, values=(0, 1))
    s = init(profile)                        # Init: every page Sz
    s = step(profile, s, "HostZeroFill", 0)  # the successor State ...
    r = step(profile, s, "Read", 1)          # ... or Refused: Read of Sz waits for the host
    s = step(profile, s, "Write", 0, 1)      # Write(p, v): the value is the argument
    s.usage[0], s.dirty[0], s.lastOp         # the spec's variables

Each machine is checked against its spec by comparing state graphs with TLC's
(:mod:`refimpl.core.tlc`; tests/test_refimpl_equality.py). ``python -m refimpl run`` tries a
sequence of page-state operations by hand.
"""

from typing import Any, Final

from .core.package import MachinePackage
from .essa import ESSA
from .pagestates import (
    ACTION_PROPERTIES, ADDRESSING_EXCEPTION, GUEST_OPS, HOST_OPS, INVARIANTS, NO_PAGE, NO_VALUE,
    OPS, PAGE_STATES, READS_ZERO, VARIANTS, ZERO, LastOp, Machine, Page, Profile, ProfileError,
    Refused, State, Step, all_profiles, enabled_steps, init, machine, step,
)  # fmt: skip

#: Every machine package, by the name of its ``machine`` in a conformance hello.
MACHINES: Final[dict[str, MachinePackage[Any, Any]]] = {
    PAGE_STATES.name: PAGE_STATES, ESSA.name: ESSA,
}  # fmt: skip

__all__ = [
    "ACTION_PROPERTIES", "ADDRESSING_EXCEPTION", "ESSA", "GUEST_OPS", "HOST_OPS", "INVARIANTS",
    "LastOp", "MACHINES", "Machine", "MachinePackage", "NO_PAGE", "NO_VALUE", "OPS",
    "PAGE_STATES", "Page", "Profile", "ProfileError", "READS_ZERO", "Refused", "State", "Step",
    "VARIANTS", "ZERO", "all_profiles", "enabled_steps", "init", "machine", "step",
]  # fmt: skip
