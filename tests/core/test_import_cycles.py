"""``ljtui.core`` gains no import cycle: every cycle left is one of those listed here, and none grows.

The graph counts every import, those under ``TYPE_CHECKING`` and inside functions too
(:mod:`tests.import_graph`). When a cycle is broken, its entry here shrinks or goes.
"""

from __future__ import annotations

from tests.import_graph import core_graph, sccs

KNOWN_CYCLES = [
    {"agent.chat", "agent.context", "engine", "gates.commands", "gates.facade", "gates.verifier", "playbooks.access",
     "tasks.facade", "tasks.route", "tasks.runner", "tasks.task_agent", "tasks.task_tools"},
    {"gates.endings", "gates.release", "gates.service"},
    {"agent.bash_model", "agent.bash_words"},
]
"""The cycles left: the engine's mixins and the services that import it back, the gate service's endings, and
bash's words and scripts (each holds the other)."""


def test_no_new_import_cycle_and_none_grows() -> None:
    found = [{name.removeprefix("ljtui.core.") for name in group} for group in sccs(core_graph())]
    for group in found:
        assert any(group <= known for known in KNOWN_CYCLES), f"a new import cycle: {sorted(group)}"


def test_the_graph_sees_imports_for_type_checkers_and_inside_functions() -> None:
    graph = core_graph()
    assert "ljtui.core.event_types" in graph["ljtui.core.events"]  # under TYPE_CHECKING
    assert "ljtui.core.playbooks.skills" in graph["ljtui.core.skills"]  # inside a function
