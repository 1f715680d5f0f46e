"""`python -m tlcrunner mutate`: the operators on small TLA+ texts, and the classification and
exit statuses on a tiny spec of its own (tests/fixtures/mutate) with a planted kill and a
planted survivor."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from io import StringIO

from tlcrunner import exitcodes, mutate
from tlcrunner.cfg import checked_names
from tlcrunner.mutation_ops import CATALOGUE, mutants
from tlcrunner.tla_text import declared_variables, tokenize

FIXTURE = Path(__file__).parent / "fixtures" / "mutate"

HEADER = "---- MODULE M ----\nEXTENDS Naturals\nVARIABLES x, y\n"
FOOTER = "====\n"


def module(body: str) -> str:
    return HEADER + body + FOOTER


def changes(body: str, operator: str) -> list[str]:
    """The mutated bodies an operator makes of ``body``."""
    text = module(body)
    out = []
    for m in mutants("M", text, [operator]):
        assert m.text.startswith(HEADER) and m.text.endswith(FOOTER)
        out.append(m.text[len(HEADER) : -len(FOOTER)])
    return out


# --- the tokenizer ---------------------------------------------------------------------------


def test_comments_and_strings_are_no_tokens() -> None:
    toks = tokenize('A == "x /\\ y" \\* /\\ z\n(* (* nested *) /\\ *) B\n====\nafter')
    assert [t.text for t in toks] == ["A", "==", '"x /\\ y"', "B", "===="]
    assert toks[3].line == 2 and toks[3].col == 22


# --- each operator: the exact text, and never a comment ---------------------------------------

GUARDED = (
    "Step ==\n"
    "    /\\ x < 3          \\* /\\ x < 4 in a comment\n"
    "    (* /\\ y = 1 *)\n"
    "    /\\ y = 0\n"
    "    /\\ x' = x + 1\n"
    "    /\\ UNCHANGED y\n"
)


def test_drop_conjunct_drops_guards_not_updates() -> None:
    assert changes(GUARDED, "drop-conjunct") == [
        GUARDED.replace("/\\ x < 3 ", "/\\ TRUE "),
        GUARDED.replace("/\\ y = 0", "/\\ TRUE"),
    ]


def test_drop_conjunct_takes_a_conjunct_over_several_lines_whole() -> None:
    body = ("Step ==\n    /\\ \\A q \\in {1, 2} :\n          /\\ q # x\n          /\\ q > y\n"
            "    /\\ x' = 1 /\\ y' = y\n")  # fmt: skip
    assert changes(body, "drop-conjunct") == [
        "Step ==\n    /\\ TRUE\n    /\\ x' = 1 /\\ y' = y\n",
        body.replace("/\\ q # x", "/\\ TRUE"),
        body.replace("/\\ q > y", "/\\ TRUE"),
    ]


def test_drop_conjunct_keeps_initial_assignments_and_splits_infix_guards() -> None:
    body = "Init ==\n    /\\ x = 0\n    /\\ y \\in {1, 2}\nGo == x > 0 /\\ y = 1 /\\ x' = 0 /\\ y' = y\n"
    assert changes(body, "drop-conjunct") == [
        body.replace("x > 0 /\\", "TRUE /\\"),
        body.replace("/\\ y = 1 /\\", "/\\ TRUE /\\"),
    ]


def test_drop_conjunct_splits_an_infix_conjunction_inside_a_bullet() -> None:
    """A guard written inline in a bullet, of a /\\ list or a \\/ list, is a guard (D300)."""
    body = ("Inc == x < 2 /\\ x' = x + 1 /\\ y' = y\n"
            "A ==\n    \\/ /\\ y < 3 /\\ x < 4\n       /\\ x' = x + 1 /\\ y' = y\n"
            "    \\/ y > 5 /\\ Inc\n")
    dropped = {m.before for m in mutants("M", module(body), ["drop-conjunct"]) if m.definition == "A"}
    assert dropped == {"y < 3 /\\ x < 4", "y < 3", "x < 4", "y > 5"}


def test_drop_conjunct_keeps_calls_of_actions() -> None:
    body = "Set == x' = 1 /\\ y' = y\nGo ==\n    /\\ x = 0\n    /\\ Set\n"
    assert changes(body, "drop-conjunct") == [body.replace("/\\ x = 0", "/\\ TRUE")]


BASE = (
    "---- MODULE Base ----\nVARIABLES x, y\n"
    "Record(v) == y' = v\n"
    "Init == x = 0 /\\ y = 0\n"
    "Next == x' = x + 1 /\\ Record(x)\n"
    "Spec == Init /\\ [][Next]_<<x, y>>\n"
    "====\n"
)
USER = (
    "---- MODULE User ----\nEXTENDS Base, Naturals\nVARIABLES z\n"
    "Go ==\n    /\\ z < 2\n    /\\ Record(z)\n    /\\ x' = x /\\ z' = z + 1\n"
    "UserInit ==\n    /\\ Init\n    /\\ z = 0\n"
    "UserSpec == UserInit /\\ [][Go]_<<x, y, z>>\n"
    "====\n"
)


def test_calls_of_an_extended_modules_actions_and_init_are_no_guards() -> None:
    """Base's Record primes y and Base's Init assigns x and y: in User, which EXTENDS Base,
    dropping either call would leave a variable without a value (a mutant TLC rejects), so only
    the guard z < 2 is dropped. Without Base's text the tool cannot know it, and drops all three."""
    dropped = lambda library: [m.before for m in mutants(  # noqa: E731
        "User", USER, ["drop-conjunct"], library)]
    assert dropped({"Base": BASE}) == ["z < 2"]
    assert dropped({}) == ["z < 2", "Record(z)", "Init"]


MACHINE = (
    "---- MODULE Machine ----\nVARIABLES mode, n\n"
    "Modes == {\"On\", \"Off\"}\n"
    "====\n"
)
PART = (
    "---- MODULE Part ----\nEXTENDS Machine\n"
    "Switch == mode = \"On\" /\\ mode' = \"Off\" /\\ UNCHANGED n\n"
    "====\n"
)
INVARIANT_ONLY = (
    "---- MODULE MachineInductive ----\nEXTENDS Machine\n"
    "IndInv == mode = \"On\" => n > 0\n"
    "====\n"
)


def test_a_part_of_a_split_machine_is_mutated_with_its_variables_and_values() -> None:
    """A module that declares no variable but has steps of its own is one part of a machine
    split into modules: mutated over the variables and with the enumerations of the modules it
    EXTENDS. A module with no step of its own (an inductive invariant) stays a yardstick."""
    library = {"Machine": MACHINE, "Part": PART, "MachineInductive": INVARIANT_ONLY}
    part = {(m.operator, m.before, m.after) for m in mutants("Part", PART, None, library)}
    assert ("drop-update", '"Off"', "mode") in part
    assert ("swap-value", '"On"', '"Off"') in part
    assert ("drop-conjunct", 'mode = "On"', "TRUE") in part
    assert mutants("Part", PART) == []  # without Machine's text, no variable is known
    assert mutants("MachineInductive", INVARIANT_ONLY, None, library) == []


def test_reading_extended_modules_keeps_every_other_mutant_and_its_id() -> None:
    """Reading the EXTENDed modules only removes the drops of calls of their actions and
    initial predicates: every other mutant of every spec module keeps its id, text and place.
    A part of a machine split into modules (no variable of its own, steps of its own) is mutated
    only with the modules it EXTENDS, whose variables it changes."""
    spec = Path(__file__).parents[1] / "spec"
    texts = {f.stem: f.read_text(encoding="utf-8") for f in sorted(spec.glob("*.tla"))}
    removed = []
    parts = []
    for name, text in texts.items():
        alone = mutants(name, text)
        read = mutants(name, text, library=texts)
        if not declared_variables(tokenize(text)) and read:
            assert alone == []
            parts.append(name)
            continue
        ids = {m.id for m in read}
        assert [m for m in alone if m.id in ids] == read
        removed += [m for m in alone if m.id not in ids]
    assert parts == ["ESSA", "ESSABareInstruction", "ESSAKVMClassic", "ESSAKVMGmap", "ESSAPaper2007"]
    assert {(m.module, m.operator) for m in removed} == {
        ("GuestHostAtomicity", "drop-conjunct"), ("ESSAMigration", "drop-conjunct"),
        ("ESSAMigrationVMM", "drop-conjunct"), ("PageStatesRefinesFull", "drop-conjunct"),
        ("LinuxGuestProtocolCheckWritable", "drop-conjunct")}
    assert sorted(m.before.split("(")[0] for m in removed if "\\" not in m.before) == [
        "CallMakeVolatile", "CallMakeVolatile", "HostDiscard", "HostResetCMMA", "Init", "Init", "Init",
        "Init", "MInit", "Next", "Next", "Record", "Record", "Record", "Record", *["RecordVMM"] * 8,
        "SetPC", "SetPC", "SetPC", "SetPC", "SetPC", "SetStableIfNotDiscarded", "UnmapPage"]  # D300


def test_drop_update() -> None:
    body = "Go ==\n    /\\ x' = [x EXCEPT ![1] = 2]  \\* x' = 3\n    /\\ y' = y\n"
    assert changes(body, "drop-update") == [body.replace("[x EXCEPT ![1] = 2]", "x")]


def test_weaken_if_and_swap_then_else() -> None:
    body = "F(a) == IF a > 1 THEN x ELSE y \\* IF b THEN c ELSE d\n"
    assert changes(body, "weaken-if") == [body.replace("a > 1", "TRUE")]
    assert changes(body, "swap-then-else") == [
        "F(a) == IF a > 1 THEN y ELSE x \\* IF b THEN c ELSE d\n"
    ]


def test_swap_then_else_of_aligned_bullet_lists() -> None:
    body = ("Go ==\n    IF x = 0\n    THEN /\\ x' = 1\n         /\\ y' = y\n"
            "    ELSE /\\ y' = 1\n         /\\ x' = x\n")  # fmt: skip
    assert changes(body, "swap-then-else") == [
        "Go ==\n    IF x = 0\n    THEN /\\ y' = 1\n         /\\ x' = x\n"
        "    ELSE /\\ x' = 1\n         /\\ y' = y\n"
    ]


def test_swap_case_arms() -> None:
    body = 'N(u) == CASE u = 1 -> "a" [] u = 2 -> "b" [] OTHER -> "c"\n'
    assert changes(body, "swap-case-arms") == ['N(u) == CASE u = 1 -> "b" [] u = 2 -> "a" [] OTHER -> "c"\n']


def test_swap_value_takes_the_next_member_of_the_enumeration() -> None:
    body = 'Kinds == {"S", "U", "V"}\nGo == x = "V" /\\ y\' = "S" \\* "U"\n'
    assert changes(body, "swap-value") == [
        body.replace('x = "V"', 'x = "S"'),
        body.replace('y\' = "S"', 'y\' = "U"'),
    ]


def test_drop_set_element_and_type_sets_left_alone() -> None:
    body = 'Kinds == {"S", "U"}\nGo == x \\in {1, 2} /\\ y\' = y\n'
    # Kinds is used by no machine definition: type information, not mutated.
    assert changes(body, "drop-set-element") == [
        body.replace("{1, 2}", "{2}"),
        body.replace("{1, 2}", "{1}"),
    ]


def test_change_comparison_skips_updates_and_except() -> None:
    body = "Go == x < 2 /\\ y # 1 /\\ x' = [x EXCEPT ![1] = 0] /\\ y' = y\n"
    assert changes(body, "change-comparison") == [
        body.replace("x < 2", "x <= 2"),
        body.replace("y # 1", "y = 1"),
    ]


def test_swap_junction_only_where_it_parses() -> None:
    body = "A == x = 1 \\/ y = 1\nB == x = 1 /\\ y = 1 /\\ x = 2\n"
    assert changes(body, "swap-junction") == [body.replace("x = 1 \\/", "x = 1 /\\")]


def test_properties_and_yardsticks_are_never_mutated() -> None:
    body = "BoundInv == x < 3\nStepProp == x' > x\nTypeOK == x \\in {1, 2}\n"
    assert all(changes(body, op) == [] for op in CATALOGUE)
    assert mutants("MProperties", module("Go == x < 3 /\\ x' = 1\n")) == []
    assert mutants("MStepChecks", module("Go == x < 3 /\\ x' = 1\n")) == []


def test_witnesses_are_yardstick_wherever_they_are_defined() -> None:
    """A reachability witness the manifest names (D130) is part of the yardstick even in a
    machine module, with the definitions only it reads; the machine's own definitions stay."""
    body = ("Big == x > 1 /\\ y > 1\nAtTop == Big /\\ x = 2\n"
            "Go == x < 2 /\\ x' = x + 1 /\\ y' = y\n")
    defs = lambda ws: {m.definition for m in mutants("M", module(body), witnesses=ws)}  # noqa: E731
    assert defs(frozenset()) == {"Big", "AtTop", "Go"}
    assert defs(frozenset({"AtTop"})) == {"Go"}


def test_environment_definitions_are_left_alone_and_read_no_variable() -> None:
    """The manifest's environment (D259) only chooses which steps a model offers: its
    definitions are not mutated, the steps they call are, and one that reads a variable is a
    step in disguise, refused."""
    body = ("CONSTANT Ops\nInc == x < 2 /\\ x' = x + 1 /\\ y' = y\n"
            "Dec == x > 0 /\\ x' = x - 1 /\\ y' = y\n"
            "Offered == \"inc\" \\in Ops /\\ Inc\n")
    defs = lambda env: {m.definition for m in mutants("M", module(body), environment=env)}  # noqa: E731
    assert defs(frozenset()) == {"Inc", "Dec", "Offered"}
    assert defs(frozenset({"Offered"})) == {"Inc", "Dec"}
    with pytest.raises(ValueError, match="Inc is named environment .* reads the variable.*x"):
        mutants("M", module(body), environment=frozenset({"Inc"}))


def test_the_manifests_environment_must_be_defined(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "M.tla").write_text(module("Go == x < 2 /\\ x' = x + 1 /\\ y' = y\n"))
    with pytest.raises(mutate.ManifestError, match="environment names Ofered"):
        mutate.select_mutants(spec, modules=None, operators=None, seed=0, max_per_module=None,
                              environment=frozenset({"Ofered"}))


def test_the_catalogue_leaves_out_the_manifests_environment() -> None:
    manifest = mutate.load_manifest(mutate.default_manifest())
    assert set(manifest.environment) == {"OfferedUserSteps", "OfferedMinorFault"}
    catalogue = mutate.whole_catalogue(manifest)
    assert not any(m.definition in manifest.environment for m in catalogue)
    # the steps they offer are still mutated
    assert {"SetPageDirty", "MapPage", "MinorFault"} <= {m.definition for m in catalogue}


def test_the_catalogue_leaves_out_every_witness_of_the_manifest() -> None:
    manifest = mutate.load_manifest(mutate.default_manifest())
    names = mutate.witness_names(manifest)
    assert "ContentPreserved" in names and "PagingWrite" in names  # a state and an action witness
    assert not any(m.definition in names for m in mutate.whole_catalogue(manifest))


def test_ids_do_not_depend_on_line_numbers() -> None:
    body = "Go == x < 2 /\\ x' = x + 1 /\\ y' = y\n"
    ids = [m.id for m in mutants("M", module(body))]
    moved = [m.id for m in mutants("M", module("\\* a line\n\n" + body))]
    assert ids == moved and len(set(ids)) == len(ids)


# --- the tool on the tiny spec ----------------------------------------------------------------


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A copy of the fixture (the runs write nothing there, but a test may add files)."""
    shutil.copytree(FIXTURE, tmp_path / "mutate")
    return tmp_path / "mutate"


def run_tool(tiny: Path, tmp_path: Path, *extra: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    out = tmp_path / "mutate.json"
    from io import StringIO

    text = StringIO()
    code = mutate.main(["--manifest", str(tiny / "model" / "manifest.json"), "--json", str(out),
                        *extra], out=text)  # fmt: skip
    return code, (json.loads(out.read_text()) if out.exists() else {}), text.getvalue()


@pytest.mark.usefixtures("tlc_jar")
def test_classifies_the_planted_kill_survivor_and_pins(tiny: Path, tmp_path: Path) -> None:
    code, result, text = run_tool(tiny, tmp_path, "--operators", "drop-conjunct")
    verdicts = {m["before"]: (m["verdict"], m["model"], m["property"]) for m in result["mutants"]}
    assert verdicts == {
        "x < Max": ("killed", "MCTiny_Safety", "BoundInv"),
        "~done": ("survived", None, None),
        "x = Max": ("pins", "MCTiny_Safety", None),
    }
    # The survivor ran the hold model, its witness and the twin; the pins mutant no twin, since
    # a twin could only have said "pins" again (D245); the killed one stopped at its kill.
    runs = {m["before"]: m["runs"] for m in result["mutants"]}
    assert runs == {"x < Max": 1, "~done": 3, "x = Max": 2}
    assert code == exitcodes.FAILED
    assert result["scores"]["Tiny"] == {"generated": 3, "killed": 1, "pins": 1, "survived": 1,
                                        "equivalent": 0, "invalid": 0}  # fmt: skip
    assert text.splitlines()[-1].startswith(
        "mutants: 3 run, 1 killed, 1 caught only by pins or a twin, 1 survived, 0 equivalent, "
        "0 invalid; 0 not drawn (budget)"
    )
    # Against the contract (TinyProperties' THEOREM names BoundInv): the kill is the intent's.
    classes = {m["before"]: (m["class"], m["intent"]) for m in result["mutants"]}
    assert classes == {"x < Max": ("intent", "BoundInv (MCTiny_Safety)"),
                       "~done": ("survived", None), "x = Max": ("pins", None)}  # fmt: skip
    assert result["classes"]["Tiny"]["intent"] == 1
    assert ("classes: 1 killed by an intent property, 1 caught only otherwise (1 pins), "
            "1 survived, 0 equivalent, 0 invalid") in text


@pytest.mark.usefixtures("tlc_jar")
def test_equivalents_listed_with_their_argument_pass(tiny: Path, tmp_path: Path) -> None:
    listed = {m.before: m for m in mutants("Tiny", (tiny / "spec" / "Tiny.tla").read_text(),
                                           ["drop-conjunct"])}  # fmt: skip
    (tiny / "model" / "mutate-equivalent.json").write_text(json.dumps({"equivalent": [
        {"id": listed[b].id, "module": "Tiny", "operator": "drop-conjunct",
         "change": listed[b].change, "argument": "a test's say-so"}
        for b in ("~done", "x = Max")
    ]}))  # fmt: skip
    code, result, _ = run_tool(tiny, tmp_path, "--operators", "drop-conjunct")
    assert [m["verdict"] for m in result["mutants"]] == ["killed", "equivalent", "equivalent"]
    assert code == exitcodes.OK


def test_nothing_to_run_exits_4(tiny: Path, tmp_path: Path) -> None:
    code, _, text = run_tool(tiny, tmp_path, "--operators", "swap-case-arms")
    assert code == exitcodes.NOTHING and "nothing to run" in text


@pytest.mark.usefixtures("tlc_jar")
def test_a_spent_budget_draws_nothing_and_says_so(tiny: Path, tmp_path: Path) -> None:
    code, result, _ = run_tool(tiny, tmp_path, "--budget", "0", "--operators", "drop-conjunct")
    assert code == exitcodes.NOTHING
    assert result["not_drawn"] == 3 and result["mutants"] == []


def test_the_sample_is_seeded() -> None:
    spec = Path(__file__).parents[1] / "spec"
    pick = lambda seed: [m.id for m in mutate.select_mutants(  # noqa: E731
        spec, modules="Ballooning,FrameReuse", operators=None, seed=seed, max_per_module=3)]
    assert pick(1) == pick(1) and pick(1) != pick(2) and len(pick(1)) == 6


def test_every_listed_equivalent_is_in_the_catalogue_with_an_argument() -> None:
    root = Path(__file__).parents[1]
    listed = mutate.load_equivalents(root / "model" / mutate.DEFAULT_EQUIVALENTS)
    catalogue = {m.id: m for m in mutate.whole_catalogue()}
    for mid, entry in listed.items():
        assert mid in catalogue, f"{mid} ({entry['change']}) is no longer generated"
        assert (catalogue[mid].module, catalogue[mid].operator) == (entry["module"], entry["operator"])


@pytest.mark.usefixtures("tlc_jar")
def test_a_mutant_that_no_longer_reaches_a_witness_is_killed_by_it(tiny: Path, tmp_path: Path) -> None:
    """Dropping Inc's update leaves BoundInv true and only the pins changed; the model's witness
    (the counter at its bound) is no longer reached, and that kills it, named apart. Dropping
    Finish's update still reaches the bound: caught only by the pins."""
    code, result, text = run_tool(tiny, tmp_path, "--operators", "drop-update")
    verdicts = {m["before"]: (m["verdict"], m["model"], m["property"]) for m in result["mutants"]}
    assert verdicts == {
        "x + 1": ("killed", "MCTiny_Safety", "witness AtMax of BoundInv"),
        "TRUE": ("pins", "MCTiny_Safety", None),
    }
    assert code == exitcodes.FAILED
    assert "2 run, 1 killed (1 by a reachability witness), 1 caught only by pins" in text.splitlines()[-1]


def test_ids_select_those_mutants_only(tiny: Path, tmp_path: Path) -> None:
    listed = mutants("Tiny", (tiny / "spec" / "Tiny.tla").read_text(), ["drop-conjunct"])
    out = tmp_path / "list.txt"
    from io import StringIO

    text = StringIO()
    code = mutate.main(["--manifest", str(tiny / "model" / "manifest.json"), "--list",
                        "--ids", f"{listed[1].id},nope000000"], out=text)  # fmt: skip
    assert code == exitcodes.OK
    lines = text.getvalue().splitlines()
    assert len(lines) == 1 and listed[1].id in lines[0]
    assert not out.exists()


@pytest.mark.usefixtures("tlc_jar")
def test_resume_runs_only_what_the_earlier_run_left(tiny: Path, tmp_path: Path) -> None:
    """An interrupted run is continued: the verdicts it has are taken, the rest are run, and the
    results are those of one whole run. A changed spec refuses the old verdicts."""
    whole = {m["id"]: m["verdict"] for m in run_tool(tiny, tmp_path, "--operators", "drop-conjunct")[1]["mutants"]}
    first = next(iter(whole))
    earlier = tmp_path / "earlier.json"
    code = mutate.main(["--manifest", str(tiny / "model" / "manifest.json"), "--json", str(earlier),
                        "--operators", "drop-conjunct", "--ids", first], out=StringIO())  # fmt: skip
    assert code == exitcodes.OK
    marked = json.loads(earlier.read_text())
    marked["mutants"][0]["note"] = "judged by the earlier run"
    earlier.write_text(json.dumps(marked))
    code, result, text = run_tool(tiny, tmp_path, "--operators", "drop-conjunct", "--resume", str(earlier))
    assert code == exitcodes.FAILED and result["resumed"] == 1
    assert {m["id"]: m["verdict"] for m in result["mutants"]} == whole
    assert [m["note"] for m in result["mutants"] if m["id"] == first] == ["judged by the earlier run"]
    assert "1 judged already in" in text.splitlines()[0]

    spec = tiny / "spec" / "Tiny.tla"
    spec.write_text(spec.read_text().replace("Next == Inc \\/ Finish", "Next == Finish \\/ Inc"))
    code, _, _ = run_tool(tiny, tmp_path, "--operators", "drop-conjunct", "--resume", str(earlier))
    assert code == exitcodes.USAGE


def test_a_run_judges_the_tree_as_it_was_when_it_started(tiny: Path, tmp_path: Path) -> None:
    """A run copies spec/ and the models once (D305): an edit made while it goes on (another
    commit, a re-pin) changes neither what it runs nor the subject its results record."""
    manifest = mutate.load_manifest(tiny / "model" / "manifest.json")
    library = tiny / "spec"
    before = mutate.subject_digest(library, manifest)
    copy_lib, copy_manifest = mutate.snapshot_tree(library, manifest, tmp_path / "snap")
    assert mutate.subject_digest(copy_lib, copy_manifest) == before
    assert copy_manifest.entries[0].module.is_relative_to(tmp_path / "snap")
    (library / "Tiny.tla").write_text((library / "Tiny.tla").read_text() + "\n\\* edited\n")
    assert mutate.subject_digest(copy_lib, copy_manifest) == before
    assert mutate.subject_digest(library, manifest) != before


def test_contract_config_keeps_the_intent_only() -> None:
    from tlcrunner.contract import Kinds

    kinds = Kinds(intent=frozenset({"KeptInv", "LiveProp", "RefinesX"}), steps=frozenset({"StepProp"}))
    cfg = ("CONSTANT N = 2\nSPECIFICATION Spec\nINVARIANTS\n    TypeOK\n    KeptInv\n"
           "PROPERTIES\n    StepProp\n    LiveProp\n    RefinesX\nCHECK_DEADLOCK TRUE\n")
    out = mutate.contract_config(cfg, kinds)
    assert out is not None
    names = checked_names(out)
    assert names.invariants == ("KeptInv",) and names.properties == ("LiveProp", "RefinesX")
    assert "CONSTANT N = 2" in out and "SPECIFICATION Spec" in out
    assert "CHECK_DEADLOCK FALSE" in out and "CHECK_DEADLOCK TRUE" not in out
    assert mutate.contract_config("INIT Init\nNEXT Next\nINVARIANT TypeOK\n", kinds) is None


def test_a_kill_by_a_step_check_is_the_intents_if_an_intent_property_fails_too(tiny: Path) -> None:
    """The first property TLC names is a step check; the contract's own run finds the intent
    property that fails later: the mutant is classed intent. Where only a refinement fails, it
    is classed refinement; where none does, by what killed it."""
    from types import SimpleNamespace

    from tlcrunner.contract import Kinds
    from tlcrunner.manifest import load_manifest
    from tlcrunner.tool_output import Outcome

    cfg = tiny / "model" / "MCTiny_Safety.cfg"
    cfg.write_text(cfg.read_text() + "PROPERTY RefinesX\n")  # a refinement beside the intent
    entries = load_manifest(tiny / "model" / "manifest.json").entries
    runs: list[str] = []

    def fake(failing: set[str], named: bool = True) -> Any:
        """A TLC that fails a run checking any of ``failing`` (first the one it names)."""
        def run(module: Path, config: Path, **_: Any) -> Any:
            text = config.read_text()
            runs.append(text)
            hit = sorted(n for n in failing if f"    {n}\n" in text)
            return SimpleNamespace(outcome=Outcome.INVARIANT if hit else Outcome.HOLDS,
                                   violated=hit[0] if hit and named else None)  # fmt: skip
        return run

    kinds = Kinds(intent=frozenset({"BoundInv", "RefinesX"}), steps=frozenset({"StepProp"}))
    cases = (({"BoundInv"}, True, "intent", "BoundInv"),
             ({"RefinesX"}, True, "refinement", "RefinesX"),
             # a refinement failing beside the intent does not hide the intent's failure
             ({"RefinesX", "BoundInv"}, True, "intent", "BoundInv"),
             # TLC names no violated temporal property: the run checked the intent alone
             ({"BoundInv"}, False, "intent", "BoundInv"),
             (set(), True, "step", None))
    for failing, named, klass, why in cases:
        runs.clear()
        runner = mutate.Runner(library=tiny / "spec", closure={}, entries=entries, jar=Path("x"),
                               model_timeout=10, run=fake(failing, named), kinds=kinds)  # fmt: skip
        v = mutate.Verdict(mutants("Tiny", (tiny / "spec" / "Tiny.tla").read_text())[0], "killed",
                           "MCTiny_Safety", "StepProp")  # fmt: skip
        runner._contract_class(v, entries, tiny / "spec", tiny)
        assert v.klass == klass, (failing, named)
        assert (v.intent or "").startswith(why or ""), v.intent
        assert runs and all("CHECK_DEADLOCK FALSE" in r and "StepProp" not in r for r in runs)
        # the intent alone first, the refinement alone after
        assert "RefinesX" not in runs[0]
