"""The kernel's own CMMA migration selftest as a check of the reference implementation.

Linux 6.12's tools/testing/selftests/kvm/s390x/cmma_test.c (docs/sources.md, 5d): its page-level
tests are :mod:`conformance.essa_migration.cmma_selftest`'s scenarios (each assertion citing the
selftest line it mirrors), run here against refimpl/essa/vmm.py (spec/ESSAMigrationVMM.tla's
machine) at the selftest's own sizes. Every assertion instance the selftest evaluates is counted
(:data:`INSTANCES`); where the selftest checks less than it means to (line 499: only the first
value of each batch), the check is the whole batch (docs/findings.md, F13).
"""

from __future__ import annotations

from collections import Counter

import pytest

from conformance.essa_migration.cmma_selftest import (
    SCENARIOS, SELFTEST, SMALLEST, TEST_DATA, ReferenceVM, Sizes, values,
)  # fmt: skip
from refimpl.core.package import Refused
from refimpl.essa import vmm
from refimpl.essa.vmm import Answer

TEST_DATA_START_GFN = SELFTEST.test_data_start
BUF = SELFTEST.buf

#: Assertion instances evaluated and agreeing, by selftest line (the module's last test reads it).
INSTANCES: Counter[int] = Counter()


def check(line: int, ok: bool, what: str = "") -> None:
    """One assertion instance of cmma_test.c's line ``line`` (0: a step the selftest asserts
    with TEST_ASSERT on its ioctl's return, not counted)."""
    assert ok, f"cmma_test.c:{line}: {what}"
    if line:
        INSTANCES[line] += 1


VM = ReferenceVM


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(name: str) -> None:
    SCENARIOS[name](lambda with_memslots: ReferenceVM(with_memslots), check)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario_at_kernel_check_sizes(name: str) -> None:
    """The sizes kernel-check's harness is built for (256 pages of TEST_DATA, at least
    :data:`SMALLEST`): the scenarios hold at any size."""
    sizes = Sizes(main=64, test_data=256, test_data_two=64)
    assert sizes.test_data >= SMALLEST
    SCENARIOS[name](lambda with_memslots: ReferenceVM(with_memslots, sizes),
                    lambda line, ok, what="": None if ok else pytest.fail(f"cmma_test.c:{line}: {what}"))  # fmt: skip


# --------------------------------------------- beyond the selftest: peek, and a second migration


def test_peek_reads_each_page_and_changes_nothing() -> None:
    """Lines 249-251 check only that a peek succeeds; the spec's PeekReportsCurrentProp and
    PeekChangesNothingProp say what it returns: each page's own value, the bitmap untouched."""
    vm = VM()
    vm.essa_stable(range(TEST_DATA_START_GFN, TEST_DATA_START_GFN + 1))
    vm.set_logging(0, True)
    vm.set_logging(TEST_DATA, True)
    assert vm.start() is None
    page_of = {g: p for p, g in enumerate(vm.layout.gfns)}
    from refimpl.essa.machine import guest_free

    t = guest_free(vm.profile, vm.s.mig.essa, page_of[TEST_DATA_START_GFN + 1], -1)
    assert not isinstance(t, Refused)
    after = vmm.guest_step(vm.layout, vm.s, t)
    assert after is not None
    vm.s = after
    before = vm.s
    r = vm.peek(TEST_DATA_START_GFN, 3)
    assert isinstance(r, Answer)
    assert values(r) == [0, 1, 0]  # stable, unused, stable: one value per page
    assert r.remaining == before.dirtyCount == BUF
    assert vm.s._replace(mig=vm.s.mig._replace(essa=before.mig.essa), answer=before.answer) == before


def test_instances_counted() -> None:
    """Runs last in this file (pytest keeps a module's order): every selftest line above was
    evaluated, and line 499 once per value (1 + 32 + 32 + 1 + 15 + 17 + 1 + 13 + 415 = 527)."""
    if not INSTANCES:
        pytest.skip("run with the other tests of this file")
    assert INSTANCES[499] == 527
    assert sum(INSTANCES.values()) >= 52
