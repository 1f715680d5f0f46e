"""kernel-check's blame (conformance/engines/linux/blame.py): a divergence is blamed on the
function of the step's call tree that writes the wrong field, read from the kernel's own code,
including a write that should have happened and did not; not on whichever function changed the
state last. Without the toolchain: the functions' texts are given here, in the kernel's words."""

from __future__ import annotations

from conformance.engines.linux.blame import blame, calls_of, reblame, writers
from conformance.engines.linux.engine import kernel_terms

#: Shortened from Linux 6.12 (arch/s390/kvm/priv.c, arch/s390/mm/pgtable.c).
TEXTS = {
    "handle_essa": "static int handle_essa(struct kvm_vcpu *vcpu)\n{\n\tif (!use_cmma)\n"
                   "\t\treturn kvm_s390_inject_program_int(vcpu, PGM_OPERATION);\n"
                   "\t__do_essa(vcpu, orc);\n}\n",
    "__do_essa": "static inline int __do_essa(struct kvm_vcpu *vcpu, const int orc)\n{\n"
                 "\tnappended = pgste_perform_essa(mm, hva, orc, &ptev, &pgstev);\n"
                 "\tres = (pgstev & _PGSTE_GPS_USAGE_MASK) >> 22;\n"
                 "\tvcpu->run->s.regs.gprs[r1] = res;\n"
                 "\tif (ms && !test_and_set_bit(gfn - ms->base_gfn, kvm_second_dirty_bitmap(ms)))\n"
                 "\t\tatomic64_inc(&vcpu->kvm->arch.cmma_dirty_pages);\n}\n",
    "pgste_perform_essa": "int pgste_perform_essa(...)\n{\n\tpgste = pgste_get_lock(ptep);\n"
                          "\t/* the result's usage: _PGSTE_GPS_NODAT is kept */\n"
                          "\tpgstev &= ~_PGSTE_GPS_USAGE_MASK;\n"
                          "\tpgste_set_unlock(ptep, pgste);\n}\n",
    "pgste_set_unlock": "static inline void pgste_set_unlock(pte_t *ptep, pgste_t pgste)\n{\n"
                        "\t*(pgste_t *)(ptep + PTRS_PER_PTE) = pgste;\n}\n",
}
#: handle_essa -> __do_essa -> pgste_perform_essa (changed the PGSTE) -> pgste_set_unlock.
CALLS = [(0, True, "handle_essa"), (1, True, "__do_essa"), (2, True, "pgste_perform_essa"),
         (3, True, "pgste_set_unlock")]
HELPERS = frozenset({"pgste_set_unlock", "pgste_get_lock"})


def test_writers_are_read_from_the_code_not_its_comments() -> None:
    # a function that calls a writer writes too (handle_essa calls __do_essa)
    assert writers(TEXTS, "result") == {"__do_essa", "handle_essa"}
    assert writers(TEXTS, "cmmaDirty") == {"__do_essa", "handle_essa"}
    assert writers(TEXTS, "usage") == {"__do_essa", "handle_essa", "pgste_perform_essa"}
    assert writers(TEXTS, "nodat") == set()  # only a comment of pgste_perform_essa names it
    assert writers(TEXTS, "outcome") == {"handle_essa"}


def test_a_write_a_helper_should_have_made_is_its_callers() -> None:
    # Linux 6.12's ptep_xchg_commit saves the change bit through pgste_update_all when the new
    # PTE is invalid; a regression that tests the old PTE instead never calls it
    texts = {"ptep_xchg_commit": "static inline pte_t ptep_xchg_commit(...)\n{\n"
                                 "\tif (pte_val(old) & _PAGE_INVALID)\n"
                                 "\t\tpgste = pgste_update_all(old, pgste, mm);\n}\n",
             "pgste_update_all": "static inline pgste_t pgste_update_all(...)\n{\n"
                                 "\tpgste_val(pgste) |= PGSTE_GC_BIT;\n}\n",
             "ptep_xchg_direct": "pte_t ptep_xchg_direct(...)\n{\n"
                                 "\told = ptep_xchg_commit(mm, addr, ptep, pgste, old, new);\n}\n"}
    calls = [(0, True, "ptep_xchg_direct"), (1, True, "ptep_xchg_commit")]
    found = blame(calls, [("pages[0].dirty", "False", "True")], texts,
                  frozenset({"pgste_update_all"}), {"pages[0].dirty": "False"})
    assert found is not None and found[0] == "ptep_xchg_commit"


def test_a_wrong_result_is_the_function_that_writes_r1() -> None:
    # the state changed deepest in pgste_perform_essa, but the R1 byte is __do_essa's
    found = blame(CALLS, [("result", "3", "14")], TEXTS, HELPERS)
    assert found is not None
    fn, why = found
    assert fn == "__do_essa" and "__do_essa writes result" in why and "gprs[r1]" in why


def test_a_write_that_did_not_happen_is_blamed_on_the_writer_that_skipped_it() -> None:
    # the page should have become CMMA-dirty; __do_essa changed nothing of it, and
    # pgste_perform_essa, the deepest function that changed the state, does not own the bit
    values = [("pages[0].cmmaDirty", "False", "True")]
    found = blame(CALLS, values, TEXTS, HELPERS, {"pages[0].cmmaDirty": "False"})
    assert found is not None
    fn, why = found
    assert fn == "__do_essa" and "a write that did not happen" in why


def test_the_deepest_writer_owns_a_page_field_and_helpers_are_never_blamed() -> None:
    found = blame(CALLS, [("pages[0].usage", "S", "V")], TEXTS, HELPERS)
    assert found is not None and found[0] == "pgste_perform_essa"
    # no writer of the field ran: no blame of the field's (the call tree's blame stands)
    assert blame(CALLS, [("pages[1].swapped", "True", "False")], TEXTS, HELPERS) is None


def test_the_report_names_the_owner_and_says_why() -> None:
    lines = ["call 0 1 handle_essa", "call 1 1 __do_essa", "call 2 1 pgste_perform_essa",
             "call 3 1 pgste_set_unlock", "call 3 1 pgste_set_unlock"]
    terms = kernel_terms(lines, "6.12", "classic", HELPERS)
    assert "kernel function: pgste_perform_essa" in terms  # the deepest that changed the state
    assert calls_of(terms) == [(0, True, "handle_essa"), (1, True, "__do_essa"),
                               (2, True, "pgste_perform_essa"), (3, True, "pgste_set_unlock")]
    again = reblame(terms, [("result", "3", "14")], TEXTS, HELPERS)
    assert "kernel function: __do_essa" in again and "kernel function: pgste_perform_essa" not in again
    assert next(ln for ln in again if ln.startswith("blame: ")).startswith("blame: result is 3")
    assert reblame(terms, [("pages[1].swapped", "True", "False")], TEXTS, HELPERS) == terms


def test_a_wrong_page_field_comes_before_the_result_made_from_it() -> None:
    # a refused ESSA whose usage is wrong: the R1 byte and the outcome follow from the PGSTE
    values = [("outcome", "Refused", "Done"), ("result", "-1", "7"), ("pages[0].usage", "U", "V")]
    found = blame(CALLS, values, TEXTS, HELPERS)
    assert found is not None and found[0] == "pgste_perform_essa"


def test_a_field_an_earlier_step_left_wrong_is_blamed_on_that_steps_writer() -> None:
    # handle_essa's CBRL loop (Linux 6.12, priv.c) zaps each entry through __gmap_zap; a loop
    # that skips an entry leaves the page unzapped, seen only when the host processes the CBRL,
    # a step that runs no writer of the field: the last earlier step that ran one is blamed
    texts = dict(TEXTS)
    texts["handle_essa"] = ("static int handle_essa(struct kvm_vcpu *vcpu)\n{\n"
                            "\tfor (i = 1; i < entries; ++i)\n"
                            "\t\t__gmap_zap(gmap, cbrlo[i]);\n\t__do_essa(vcpu, orc);\n}\n")
    texts["__gmap_zap"] = "void __gmap_zap(struct gmap *gmap, unsigned long gaddr)\n{\n\tptep_zap_unused(mm, vmaddr, ptep, 0);\n}\n"
    texts["ptep_zap_unused"] = "void ptep_zap_unused(...)\n{\n\tptep_zap_swap_entry(mm, pte_to_swp_entry(pte));\n}\n"
    values = [("outcome", "Refused", "Zapped"), ("pages[0].swapped", "True", "False")]
    step1 = [(0, True, "handle_essa"), (1, True, "__do_essa"), (2, True, "pgste_perform_essa")]
    terms = kernel_terms([], "6.12", "classic", HELPERS)  # the CBRL step ran no kernel function
    assert blame(calls_of(terms), values, texts, HELPERS) is None
    again = reblame(terms, values, texts, HELPERS, history=lambda: [step1, []])
    assert "kernel function: handle_essa" in again and "set by handle_essa at step 1" in again
    why = next(ln for ln in again if ln.startswith("blame: "))
    assert "no writer of swapped ran in this step" in why and "step 1: handle_essa" in why
    # a step that changed the state is its own suspect, even when it wrote no wrong field
    changer = kernel_terms(["call 0 1 __do_essa"], "6.12", "classic", HELPERS)
    assert reblame(changer, values, texts, HELPERS, history=lambda: [step1]) == changer
    # no earlier step ran a writer either: the terms stand
    assert reblame(terms, values, texts, HELPERS, history=lambda: [[(0, False, "pgste_set_unlock")]]) == terms
    # a step that ran a writer of its wrong field is its own: the history is not asked
    assert reblame(calls_terms := kernel_terms(["call 0 1 ptep_zap_unused"], "6.12", "classic", HELPERS),
                   values, texts, HELPERS, history=lambda: 1 / 0) != calls_terms  # type: ignore[arg-type,return-value]


def test_the_vmm_pass_names_each_wrong_field_of_a_reply_by_the_blames_names() -> None:
    from conformance.engines.linux.vmm_check import Divergence, Observed, calls_in, wrong_fields

    page = ("S", True, False, False, False, True)
    want = Observed("Done", True, (page, page), (0, (0, 64), 1))
    seen = Observed("Done", True, (page, page[:4] + (True, False)), (0, (0, 0), 0))
    assert wrong_fields(want, seen) == [("value", "(0, 0)", "(0, 64)"), ("remaining", "0", "1"),
                                        ("pages[1].nodat", "True", "False"),
                                        ("pages[1].cmmaDirty", "False", "True")]
    assert calls_in(["page 0 x", "call 0 1 kvm_s390_get_cmma_bits", "call 1 0 kvm_s390_get_cmma"]) == [
        (0, True, "kvm_s390_get_cmma_bits"), (1, False, "kvm_s390_get_cmma")]
    d = Divergence("peek-pages: Get", ["MigrationStart", "Get start 0 count 2"], want, seen,
                   blame="set by kvm_s390_set_cmma_bits at step 1")
    assert d.headline() == ("Get start 0 count 2: answer, pages[1].nodat, pages[1].cmmaDirty differ "
                            "(peek-pages: Get) "
                            "(set by kvm_s390_set_cmma_bits at step 1)")


def test_a_wrong_remaining_is_the_step_after_which_the_count_left_the_specs() -> None:
    # the harness shows cmma_dirty_pages after every step; the reference's count is dirtyCount:
    # the first step of the last run of steps where they differ (in migration mode) is blamed
    from types import SimpleNamespace

    from conformance.engines.linux.vmm_check import Lockstep

    def state(migrating: bool, count: int) -> SimpleNamespace:
        return SimpleNamespace(mig=SimpleNamespace(migrating=migrating), dirtyCount=count)

    def shown(mode: int, count: int) -> list[str]:
        return ["call 0 1 kvm_s390_vm_start_migration",
                f"dirty after migration_mode={mode} cmma_dirty_pages={count} second dirty bitmap: 1 1"]

    m = SimpleNamespace(states=[state(False, 0), state(True, 4), state(True, 3), state(True, 2)])
    drift = Lockstep._count_drift
    assert drift(m, [shown(0, 0), shown(1, 1), shown(1, 0), shown(1, 0)]) == 2  # type: ignore[arg-type]
    assert drift(m, [shown(0, 0), shown(1, 4), shown(1, 3), shown(1, 2)]) is None  # type: ignore[arg-type]
    # a count that came right again is no drift of the last steps
    assert drift(m, [shown(0, 0), shown(1, 1), shown(1, 3), shown(1, 2)]) is None  # type: ignore[arg-type]
