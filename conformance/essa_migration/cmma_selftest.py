"""The page-level scenarios of the kernel's own CMMA migration selftest, over any VM that answers
a VMM's requests: the reference implementation (:class:`ReferenceVM`, tests/test_kernel_selftest_cmma.py)
or a kernel's code in lockstep with it (conformance/engines/linux/vmm_check.py).

Linux 6.12's tools/testing/selftests/kvm/s390x/cmma_test.c (docs/sources.md, 5d) drives
KVM_S390_GET_CMMA_BITS, the migration attributes and memslot changes on a VM of two memslots:
MAIN, 512 pages at gfn 0, and TEST_DATA, 512 pages at gfn 4096 (and TEST_DATA_TWO, 256 pages at
gfn 8192, created during migration). Each scenario replays one of its page-level tests request
by request and asserts what the selftest asserts through ``check(line, ok, what)``, each
assertion citing the selftest line it mirrors (6.12 numbering). The memslots' sizes are a
parameter (:class:`Sizes`; :data:`SELFTEST` is the selftest's own): the scenarios hold for any
sizes from :data:`SMALLEST` on (the skip-holes test reaches page 0x61 of TEST_DATA). Where the
selftest checks less than it means to (line 499: only the first value of each batch), the check
here is the whole batch (docs/findings.md, F13).

Not expressible as a VMM's requests, and left out: lines 234-236 (GET on a VM without CMMA),
257-259 (flags other than PEEK) and 266-269 (the guest's exit to its hypercall).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple, Protocol

from refimpl.core.package import Refused
from refimpl.essa import EssaProfile, vmm
from refimpl.essa.machine import guest_alloc
from refimpl.essa.vmm import Answer, Layout, VMMState

from .mode import cmma_value

MAIN, TEST_DATA, TEST_DATA_TWO = 0, 1, 2


class Sizes(NamedTuple):
    """The selftest VM's memslots: MAIN at gfn 0, TEST_DATA and TEST_DATA_TWO at their gfns."""

    main: int = 512
    test_data: int = 512
    test_data_start: int = 4096
    test_data_two: int = 256
    test_data_two_start: int = 8192

    @property
    def buf(self) -> int:
        """sizeof(cmma_value_buf): the count of every GET of assert_all_slots_cmma_dirty."""
        return self.main + self.test_data

    @property
    def pages(self) -> int:
        return self.main + self.test_data + self.test_data_two

    def slots(self) -> list[tuple[int, int]]:
        return [(0, self.main), (self.test_data_start, self.test_data),
                (self.test_data_two_start, self.test_data_two)]  # fmt: skip


#: cmma_test.c's own sizes (MAIN_PAGE_COUNT, TEST_DATA_PAGE_COUNT, ...).
SELFTEST: Final = Sizes()
#: The smallest TEST_DATA the skip-holes test fits in (it reaches page 0x61, and its last GET
#: asks for the pages after it).
SMALLEST: Final = 0x62

Check = Callable[[int, bool, str], None]


class VM(Protocol):
    """What a scenario asks of a VM: the selftest's ioctls, as a VMM's requests."""

    sizes: Sizes

    def start(self) -> str | None: ...  # None, or why it was refused (EINVAL)
    def migration_mode_on(self) -> bool: ...
    def create_slot(self, slot: int, log: bool) -> None: ...
    def set_logging(self, slot: int, log: bool) -> None: ...
    def essa_stable(self, gfns: range) -> None: ...
    def get(self, start: int, count: int) -> Answer | str: ...
    def peek(self, start: int, count: int) -> Answer | str: ...


class ReferenceVM:
    """A VM of the selftest, driven through the reference implementation's requests
    (refimpl/essa/vmm.py, spec/ESSAMigrationVMM.tla's machine)."""

    def __init__(self, with_memslots: bool = True, sizes: Sizes = SELFTEST) -> None:
        self.sizes = sizes
        layout = Layout.of_slots(sizes.slots())
        # create_memslots: MAIN and TEST_DATA, without dirty logging (flags 0); TEST_DATA_TWO
        # only where a test creates it.
        self.layout = layout._replace(at_start=frozenset())
        self.profile = EssaProfile("KVMClassic", storage_keys=True, facility147=True,
                                   modern_guest=True, pages=len(layout.gfns))  # fmt: skip
        self.s = vmm.init(self.profile, self.layout)
        self.page_of = {g: p for p, g in enumerate(self.layout.gfns)}
        if with_memslots:
            self.create_slot(MAIN, log=False)
            self.create_slot(TEST_DATA, log=False)

    def _take(self, r: object) -> str | None:
        if isinstance(r, Refused):
            return r.reason
        if isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], str):
            self.s = r[0]
            return r[1]
        assert isinstance(r, VMMState)
        self.s = r
        return None

    def create_slot(self, slot: int, log: bool) -> None:
        assert self._take(vmm.slot_create(self.layout, self.s, slot, log)) is None

    def set_logging(self, slot: int, log: bool) -> None:
        assert self._take(vmm.slot_logging(self.layout, self.s, slot, log)) is None

    def start(self) -> str | None:
        """__enable_migration_mode: None on success, else the reason (EINVAL)."""
        return self._take(vmm.migration_start(self.layout, self.s))

    def migration_mode_on(self) -> bool:
        """is_migration_mode_on (KVM_S390_VM_MIGRATION_STATUS)."""
        return self.s.mig.migrating

    def essa_stable(self, gfns: range) -> None:
        """The guest's ESSA SET_STABLE (ORC 1) on each page of ``gfns``."""
        for g in gfns:
            t = guest_alloc(self.profile, self.s.mig.essa, self.page_of[g], -1)
            assert not isinstance(t, Refused)
            u = vmm.guest_step(self.layout, self.s, t)
            assert u is not None
            self.s = u

    def get(self, start: int, count: int) -> Answer | str:
        """KVM_S390_GET_CMMA_BITS without flags: the answer, or the reason it was refused."""
        reason = self._take(vmm.get(self.layout, self.s, start, count))
        return reason if reason is not None else self.s.answer

    def peek(self, start: int, count: int) -> Answer | str:
        reason = self._take(vmm.peek(self.layout, self.s, start, count))
        return reason if reason is not None else self.s.answer


def values(a: Answer) -> list[int]:
    return [cmma_value(v.u, v.n) for v in a.values]


MakeVM = Callable[[bool], VM]


# ------------------------------------------------------------------ test_get_cmma_basic (227-262)


def get_cmma_basic(make: MakeVM, check: Check) -> None:
    vm = make(True)
    z = vm.sizes
    vm.essa_stable(range(z.test_data_start, z.test_data_start + 1))  # guest_do_one_essa
    # 243-246: GET_CMMA_BITS without migration mode and without peeking fails with EINVAL.
    r = vm.get(0, z.buf)
    check(245, isinstance(r, str), "a GET outside migration mode is refused")
    check(246, isinstance(r, str) and "EINVAL" in r, f"{r}")
    # 248-251: with peeking it works.
    r = vm.peek(0, z.buf)
    check(250, isinstance(r, Answer), f"{r}")
    check(251, isinstance(r, Answer), f"{r}")
    vm.set_logging(MAIN, True)
    vm.set_logging(TEST_DATA, True)
    check(0, vm.start() is None, "migration mode starts")


# ------------------------------------------------------------------ test_migration_mode (272-368)


def migration_mode(make: MakeVM, check: Check) -> None:
    vm = make(False)
    z = vm.sizes
    # 279-283: enabling migration mode on a VM without memory fails.
    r = vm.start()
    check(281, r is not None, "")
    check(282, r is not None and "EINVAL" in r, f"{r}")
    check(283, not vm.migration_mode_on(), "")
    vm.create_slot(MAIN, log=False)
    vm.create_slot(TEST_DATA, log=False)
    vm.essa_stable(range(z.test_data_start, z.test_data_start + 1))
    # 300-304: memslots without dirty tracking: EINVAL.
    r = vm.start()
    check(302, r is not None, "")
    check(303, r is not None and "EINVAL" in r, f"{r}")
    check(304, not vm.migration_mode_on(), "")
    vm.set_logging(MAIN, True)  # enable_dirty_tracking (172-176)
    vm.set_logging(TEST_DATA, True)
    # 310-313: enabling migration mode works now.
    check(312, vm.start() is None, "")
    check(313, vm.migration_mode_on(), "")
    vm.essa_stable(range(z.test_data_start, z.test_data_start + 1))  # 317-319
    # 324-335: a new memslot without dirty tracking turns migration mode off.
    check(325, vm.migration_mode_on(), "")
    vm.create_slot(TEST_DATA_TWO, log=False)
    check(333, not vm.migration_mode_on(), "")
    vm.essa_stable(range(z.test_data_start, z.test_data_start + 1))  # 337-340
    # 342-350: dirty tracking on the new memslot; migration mode can be turned on again.
    vm.set_logging(TEST_DATA_TWO, True)
    check(348, vm.start() is None, "")
    check(349, vm.migration_mode_on(), "")
    # 352-360: dirty tracking off again with a flags-only change turns migration mode off.
    check(356, vm.migration_mode_on(), "")
    vm.set_logging(TEST_DATA_TWO, False)
    check(358, not vm.migration_mode_on(), "")
    vm.essa_stable(range(z.test_data_start, z.test_data_start + 1))  # 362-365


# ------------------------------------------------- assert_all_slots_cmma_dirty (376-421) and 426-445


def assert_all_slots_cmma_dirty(vm: VM, check: Check) -> None:
    z = vm.sizes
    r = vm.get(0, z.buf)  # 385-391
    assert isinstance(r, Answer), r
    check(392, len(r.values) == z.main, f"count {len(r.values)}")
    check(393, r.remaining == z.test_data, f"remaining {r.remaining}")
    check(394, r.start == 0, f"start {r.start}")
    r = vm.get(z.main, z.buf)  # 397-404: after a hole, TEST_DATA
    assert isinstance(r, Answer), r
    check(405, len(r.values) == z.test_data, f"count {len(r.values)}")
    check(406, r.start == z.test_data_start, f"start {r.start}")
    check(407, r.remaining == 0, f"remaining {r.remaining}")
    r = vm.get(z.test_data_start + z.test_data, z.buf)  # 410-417: nothing else
    assert isinstance(r, Answer), r
    check(418, len(r.values) == 0, f"count {len(r.values)}")
    check(419, r.start == 0, f"start {r.start}")
    check(420, r.remaining == 0, f"remaining {r.remaining}")


def assert_no_pages_cmma_dirty(vm: VM, check: Check) -> None:
    r = vm.get(0, vm.sizes.buf)  # 431-438
    assert isinstance(r, Answer), r
    check(439, not (r.values or r.remaining or r.start), f"still dirty: {r}")


def get_initial_dirty(make: MakeVM, check: Check) -> None:
    """test_get_inital_dirty (447-471)."""
    vm = make(True)
    z = vm.sizes
    vm.essa_stable(range(z.test_data_start, z.test_data_start + 1))
    vm.set_logging(MAIN, True)
    vm.set_logging(TEST_DATA, True)
    check(0, vm.start() is None, "migration mode starts")
    assert_all_slots_cmma_dirty(vm, check)
    assert_no_pages_cmma_dirty(vm, check)


# --------------------------------------------------------------- test_get_skip_holes (503-646)


def assert_cmma_dirty(r: Answer | str, first_dirty_gfn: int, dirty_gfn_count: int,
                      check: Check) -> None:  # fmt: skip
    """assert_cmma_dirty (492-501), line 499 over every value of the batch (F13)."""
    assert isinstance(r, Answer), r
    check(496, r.start == first_dirty_gfn, f"start {r.start}, not {first_dirty_gfn}")
    check(497, len(r.values) == dirty_gfn_count, f"count {len(r.values)}, not {dirty_gfn_count}")
    for i, v in enumerate(values(r)):
        check(499, v == 0x0, f"value {i} is {v:#x}, not stable")
    check(500, len(r.values) == dirty_gfn_count, "")  # the byte past the last one is not written


def get_skip_holes(make: MakeVM, check: Check) -> None:
    vm = make(True)
    z = vm.sizes
    base = z.test_data_start
    vm.essa_stable(range(base, base + z.test_data))
    vm.set_logging(MAIN, True)
    vm.set_logging(TEST_DATA, True)
    check(0, vm.start() is None, "migration mode starts")
    assert_all_slots_cmma_dirty(vm, check)  # 526-527: un-dirty all pages
    # 529-531: dirty just the TEST_DATA memslot.
    vm.essa_stable(range(base, base + z.test_data))
    assert_cmma_dirty(vm.get(0, 1), base, 1, check)  # 542-543
    # 554-555: past the end of TEST_DATA wraps to its page 1.
    assert_cmma_dirty(vm.get(base + z.test_data, 0x20), base + 1, 0x20, check)
    assert_cmma_dirty(vm.get(base + 0x41, 0x20), base + 0x41, 0x20, check)  # 569-570, 32 skipped
    assert_cmma_dirty(vm.get(base, 1), base + 0x21, 1, check)  # 582-583
    assert_cmma_dirty(vm.get(base + 0x23, 15), base + 0x23, 15, check)  # 597-599
    assert_cmma_dirty(vm.get(base + 0x22, 17), base + 0x22, 17, check)  # 610-612: and a clean run
    assert_cmma_dirty(vm.get(base + 0x40, 25), base + 0x40, 1, check)  # 624-626: > 16 clean
    assert_cmma_dirty(vm.get(base + 0x33, 0x40 - 0x33), base + 0x33, 0x40 - 0x33, check)  # 634-636
    assert_cmma_dirty(vm.get(base, z.test_data - 0x61), base + 0x61, z.test_data - 0x61,
                      check)  # 641-643  # fmt: skip
    assert_no_pages_cmma_dirty(vm, check)  # 645


#: The selftest's page-level tests, by its function names.
SCENARIOS: Final[dict[str, Callable[[MakeVM, Check], None]]] = {
    "test_get_cmma_basic": get_cmma_basic,
    "test_migration_mode": migration_mode,
    "test_get_inital_dirty": get_initial_dirty,
    "test_get_skip_holes": get_skip_holes,
}
