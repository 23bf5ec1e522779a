"""``ljtui.core`` has no import cycle, and no service is a mixin of another.

The graph counts every import, those under ``TYPE_CHECKING`` and inside functions too
(:mod:`tests.import_graph`).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.import_graph import core_graph, sccs

CORE = Path(__file__).resolve().parents[2] / "core"


def test_core_has_no_import_cycle() -> None:
    found = [sorted(name.removeprefix("ljtui.core.") for name in group) for group in sccs(core_graph())]
    assert found == [], f"import cycles in ljtui.core: {found}"


def test_the_graph_sees_imports_for_type_checkers_and_inside_functions() -> None:
    graph = core_graph()
    assert "ljtui.core.event_types" in graph["ljtui.core.events"]  # under TYPE_CHECKING
    assert "ljtui.core.playbooks.skills" in graph["ljtui.core.skills"]  # inside a function


def test_no_method_borrows_another_class_as_its_self() -> None:
    """A method annotated ``self: Other`` is a mixin's: it reads state it does not own."""
    borrowed = []
    for path in sorted(CORE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.args.args:
                        first = item.args.args[0]
                        if first.arg == "self" and first.annotation is not None:
                            borrowed.append(f"{path.relative_to(CORE)}: {node.name}.{item.name}")
    assert borrowed == []


def test_the_engine_is_no_service_s_import() -> None:
    graph = core_graph()
    importers = sorted(name for name, imports in graph.items() if "ljtui.core.engine" in imports)
    assert importers == []
