"""Reading TLC's output (TLA+ values, the dot state graph) and comparing graphs, without TLC."""

from __future__ import annotations

import pytest

from refimpl.core.graph import StateGraph, compare
from refimpl.pagestates import PAGE_STATES
from refimpl.pagestates.profile import NO_PAGE, Profile
from refimpl.pagestates.state import LastOp, Page, State
from tlcrunner.tlavalues import ModelValue, Record, TlaValueError, parse_state, parse_value
from refimpl.core.tlc import TlcGraphError, graph_cfg, read_dot

SHOW = PAGE_STATES.show

# --------------------------------------------------------------------------- values


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("-1", -1),
        ("42", 42),
        ('"S"', "S"),
        (r'"a\"b\\c"', 'a"b\\c'),
        ("TRUE", True),
        ("FALSE", False),
        ("NoPage", ModelValue("NoPage")),
        ("(p1 :> 0)", {ModelValue("p1"): 0}),
        ('(p1 :> "S" @@ p2 :> "z")', {ModelValue("p1"): "S", ModelValue("p2"): "z"}),
        ("{}", frozenset()),
        ("{1, 2}", frozenset({1, 2})),
        ("<<>>", ()),
        ('<<1, "a", <<TRUE>>>>', (1, "a", (True,))),
        ("[a |-> 1, b |-> (p1 :> {0})]", {"a": 1, "b": {ModelValue("p1"): frozenset({0})}}),
        # TLC breaks long records over lines
        ('[ page |-> p1,\n  op |-> "SetVolatile",\n  arg |-> -1 ]',
         {"page": ModelValue("p1"), "op": "SetVolatile", "arg": -1}),
    ],
)
def test_parse_value(text: str, value: object) -> None:
    assert parse_value(text) == value


def test_records_and_functions_are_told_apart() -> None:
    assert isinstance(parse_value("[a |-> 1]"), Record)
    assert not isinstance(parse_value('("a" :> 1)'), Record)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "unexpected end"),
        ("(p1 :> 0", "unexpected end"),
        ("[a |-> 1, a |-> 2]", "field a twice"),
        ("(p1 :> 0 @@ p1 :> 1)", "twice"),
        ("1 2", "after the value"),
        ("[1 |-> 2]", "expected a field name"),
        ("(p1 = 0)", "unexpected character"),
        ("]", "unexpected"),
    ],
)
def test_parse_value_errors(text: str, message: str) -> None:
    with pytest.raises(TlaValueError, match=message):
        parse_value(text)


def test_parse_state() -> None:
    assert parse_state('/\\ x = 1\n/\\ y = [a |-> "b"]') == {"x": 1, "y": {"a": "b"}}
    with pytest.raises(TlaValueError, match="not a state"):
        parse_state("x = 1")
    with pytest.raises(TlaValueError, match="twice"):
        parse_state("/\\ x = 1\n/\\ x = 2")


# --------------------------------------------------------------------------- the dot file

# Verbatim TLC 2.18 output (-dump dot,actionlabels), one page: Init, SetVolatile, Extract twice.
INIT = r'''7940298504941329397 [label="/\\ intended = (p1 :> 0)\n/\\ usage = (p1 :> \"S\")\n/\\ dirty = (p1 :> FALSE)\n/\\ modified = (p1 :> FALSE)\n/\\ requested = (p1 :> \"S\")\n/\\ lastOp = [page |-> NoPage, op |-> \"Init\", arg |-> -1, value |-> -1, outcome |-> \"None\"]\n/\\ data = (p1 :> 0)\n/\\ resid = (p1 :> \"z\")",style = filled]'''
VZ = r'''-8041675612530804073 [label="/\\ intended = (p1 :> 0)\n/\\ usage = (p1 :> \"V\")\n/\\ dirty = (p1 :> FALSE)\n/\\ modified = (p1 :> FALSE)\n/\\ requested = (p1 :> \"V\")\n/\\ lastOp = [ page |-> p1,\n  op |-> \"SetVolatile\",\n  arg |-> -1,\n  value |-> -1,\n  outcome |-> \"Done\" ]\n/\\ data = (p1 :> 0)\n/\\ resid = (p1 :> \"z\")"];'''
EXTRACTED = r'''-5581672540647225606 [label="/\\ intended = (p1 :> 0)\n/\\ usage = (p1 :> \"V\")\n/\\ dirty = (p1 :> FALSE)\n/\\ modified = (p1 :> FALSE)\n/\\ requested = (p1 :> \"V\")\n/\\ lastOp = [page |-> p1, op |-> \"Extract\", arg |-> -1, value |-> -1, outcome |-> \"Vz\"]\n/\\ data = (p1 :> 0)\n/\\ resid = (p1 :> \"z\")"];'''
COLOUR = 'color="black",fontcolor="black"];'
EDGES = [
    f'7940298504941329397 -> -8041675612530804073 [label="SetVolatile",{COLOUR}',
    f'-8041675612530804073 -> -5581672540647225606 [label="Extract",{COLOUR}',
    f'-5581672540647225606 -> -5581672540647225606 [label="Extract",{COLOUR}',
]
HEAD = ["strict digraph DiskGraph {", "nodesep=0.35;", "subgraph cluster_graph {", 'color="white";']
TAIL = ["{rank = same; 7940298504941329397;}", "{rank = same; -8041675612530804073;}", "}", "}"]


def dot(*lines: str) -> str:
    return "\n".join(lines) + "\n"


SAMPLE = dot(*HEAD, INIT, EDGES[0], VZ, EDGES[1], EXTRACTED, EDGES[2], *TAIL)

INIT_STATE = State((Page("S", "z", False, 0, 0, False),), LastOp("Init", NO_PAGE, -1, "None", -1))
VZ_PAGE = Page("V", "z", False, 0, 0, False, "V")


def test_read_dot() -> None:
    g = read_dot(PAGE_STATES, SAMPLE, pages=1)
    assert g.states == [
        INIT_STATE,
        State((VZ_PAGE,), LastOp("SetVolatile", 0, -1, "Done", -1)),
        State((VZ_PAGE,), LastOp("Extract", 0, -1, "Vz", -1)),
    ]
    assert g.initial == [0]
    assert g.edges == [{("SetVolatile", 1)}, {("Extract", 2)}, {("Extract", 2)}]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (dot(*HEAD, INIT, "1 -> 2 [label=SetVolatile];", *TAIL), "lines this reader does not"),
        (dot(*HEAD, INIT, EDGES[0], *TAIL), "no node line"),
        (dot(*HEAD, VZ, *TAIL), "no initial state"),
        (dot(*HEAD, INIT.replace("(p1 :> 0)", "(p2 :> 0)", 1), *TAIL),
         "line 5: intended is not a function of the pages"),
        (dot(*HEAD, INIT.replace("(p1 :> FALSE)", "(p1 :> 0)", 1), *TAIL),
         r"dirty\[p1\]: expected bool"),
        (dot(*HEAD, INIT.replace("page |-> NoPage", "page |-> p7"), *TAIL),
         "lastOp.page is not a page"),
        (dot(*HEAD, INIT.replace('/\\\\ data', '/\\\\ date'), *TAIL), "state variables"),
    ],
)
def test_read_dot_errors(text: str, message: str) -> None:
    with pytest.raises(TlcGraphError, match=message):
        read_dot(PAGE_STATES, text, pages=1)


def test_graph_cfg_has_no_symmetry_and_the_overrides() -> None:
    cfg = graph_cfg(PAGE_STATES, Profile("NoP", False, "ReadsZero", pages=2), {"Discardable": "Twin"})
    assert "Pages = {p1, p2}" in cfg and "HostService = FALSE" in cfg
    assert 'UnusedAccess = "ReadsZero"' in cfg and 'Variant = "NoP"' in cfg
    assert "Discardable <- Twin" in cfg and "SYMMETRY" not in cfg


# --------------------------------------------------------------------------- comparison


def sample_graph() -> StateGraph[State]:
    return read_dot(PAGE_STATES, SAMPLE, pages=1)


def test_compare_equal_graphs() -> None:
    full = PAGE_STATES.state_graph(Profile())
    assert compare(full, PAGE_STATES.state_graph(Profile()), SHOW) is None


def test_compare_reports_the_first_differing_step() -> None:
    left = sample_graph()
    right = sample_graph()
    right.edges[1] = {("Extract", 2), ("Read", 1)}
    diff = compare(left, right, SHOW, "spec", "impl")
    assert diff is not None
    lines = diff.message.splitlines()
    assert lines[0] == (
        "spec and impl differ in the steps from a state reached by this path "
        "(step, operation -> outcome, pages):"
    )
    assert "Init" in lines[1] and "SetVolatile 0 -> Done" in lines[2]
    assert lines[3].startswith("  only impl has the step SetVolatile 0 -> Done (labelled Read)")
    assert (diff.edges_only_left, diff.edges_only_right) == (0, 1)


def test_compare_reports_a_state_only_one_side_has() -> None:
    left = sample_graph()
    right = sample_graph()
    extra = State((VZ_PAGE,), LastOp("Read", 0, -1, "DiscardFault", -1))
    right.states.append(extra)
    right.index[extra] = 3
    right.edges.append(set())
    right.edges[1].add(("Read", 3))
    diff = compare(left, right, SHOW)
    assert diff is not None and diff.states_only_right == 1
    assert "only refimpl has the step Read 0 -> DiscardFault, to [page 0: Vz" in diff.message
    assert "(a state TLC does not have)" in diff.message


def test_compare_reports_different_initial_states() -> None:
    left = sample_graph()
    right = sample_graph()
    right.initial = [1]
    diff = compare(left, right, SHOW)
    assert diff is not None and diff.message.startswith("the initial states differ")
