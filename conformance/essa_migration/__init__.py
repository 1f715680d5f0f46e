"""The ESSAMigration machine of the conformance suite (spec/ESSAMigration.tla, PROTOCOL.md
"Incremental migration"), as :mod:`refimpl.essa.migration` is its reference implementation: a
package the machine-independent driver takes through :data:`conformance.machines.PACKAGES`.

* :mod:`~conformance.essa_migration.mode`: :data:`MODE`, the ESSA mode's vocabulary with the
  incremental migration's requests, replies and state; its reference engine and mutants.
* :mod:`~conformance.essa_migration.vmm`: the ESSAMigrationVMM mode built on it
  (spec/ESSAMigrationVMM.tla, refimpl.essa.vmm): the VMM's requests (start, stop, batched Get,
  Peek, memslots), its reference engine and mutants.

Its public names are importable from the package
(``conformance.essa_migration:EssaMigrationReferenceEngine``).
"""

from .mode import *  # noqa: F403 - the package's names are the mode's
from .mode import MIGRATION_DRIVER as MIGRATION_DRIVER
from .mode import MIGRATION_MACHINE as MIGRATION_MACHINE

from .vmm import VMM_DRIVER as VMM_DRIVER
from .vmm import VMM_MACHINE as VMM_MACHINE
from .vmm import EssaVmmReferenceEngine as EssaVmmReferenceEngine

#: The machine's mode, for :data:`conformance.machines.MACHINES`.
MODE = MIGRATION_DRIVER
#: Every mode of the package: the incremental migration's and the VMM's built on it.
MODES = (MIGRATION_DRIVER, VMM_DRIVER)
#: Commands only this machine has: none.
COMMANDS: dict[str, object] = {}
