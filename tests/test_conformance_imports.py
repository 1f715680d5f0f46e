"""conformance/'s modules import each other without a loop: the graph of their imports, those
inside functions included (only ``if TYPE_CHECKING:`` blocks, which never run, are left out), is
acyclic. An import of ``a.b.c`` also runs the packages ``a.b`` and ``a`` above it, except those the
importing module is itself inside (Python runs them first)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "conformance"


def _modules() -> dict[str, Path]:
    found = {}
    for f in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = f
    return found


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    targets: set[str] = set()
    stack: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while stack:
        node = stack.pop()
        if _type_checking(node):
            continue
        stack.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = here.split(".")
                up = up[: len(up) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            targets.add(base)
            targets.update(f"{base}.{a.name}" for a in node.names)
    edges = set()
    for t in targets:
        parts = t.split(".")
        for i in range(1, len(parts) + 1):
            m = ".".join(parts[:i])
            if m in modules and m != name and not name.startswith(m + "."):
                edges.add(m)
    return edges


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_the_graph_sees_the_imports() -> None:
    graph = import_graph()
    assert "conformance.driver" in graph["conformance.search"]
    assert "conformance.essa" in graph["conformance.machines"]
    assert "conformance.essa.cli" in graph["conformance.essa.mode"]


def test_a_loop_is_found_and_named() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle(graph) == ["a", "b", "c", "a"]


def test_no_import_loop() -> None:
    cycle = _cycle(import_graph())
    assert cycle is None, "import loop: " + " -> ".join(cycle or [])


def test_the_driver_names_no_machine() -> None:
    """Only the registry (conformance.machines), the contract tests' base classes and the
    engines' harnesses (conformance.engines) import a machine package; the driver's modules do
    not."""
    graph = import_graph()
    machines = ("conformance.essa", "conformance.pagestates")
    allowed = {"conformance.machines", "conformance.testing"}
    for name, edges in graph.items():
        if name.startswith(machines + ("conformance.engines",)) or name in allowed:
            continue
        named = sorted(e for e in edges if e.startswith(machines))
        assert not named, f"{name} imports {named}"
