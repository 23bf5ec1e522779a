"""Scripted gated runs on a real git repository: the engine, its tools, real checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Event
from ljtui.core.gates import events as G
from ljtui.core.ports import ListSink
from tests.conftest import git

TEST_FILE = """import unittest

from app import greet


class GreetTest(unittest.TestCase):
    def test_greet(self):
        self.assertEqual(greet("ana"), "hello, ana!")


if __name__ == "__main__":
    unittest.main()
"""
FRIENDLY = "def greet(name):\n    return f'hello, {name}!'\n"
ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"
TESTS_ITEM = {"id": "tests", "description": "the unit tests pass", "command": "python3 -m unittest -q"}
L2_FACTORS = {"change_surface": 0.6, "chain_length": 0.5, "cognitive_density": 0.6,
              "objectively_verifiable": False, "irreversible": False}
"""D 0.567, P 0.5 before any run: R 0.533, L2."""
L3_FACTORS = {"change_surface": 1.0, "chain_length": 1.0, "cognitive_density": 1.0,
              "objectively_verifiable": False, "irreversible": True}
"""D 1 (clamped), P 0.5: R 0.75, L3."""


def with_tests(repo: Path) -> Path:
    """``repo`` (the git_repo fixture) with a failing unit test of ``greet`` committed."""
    (repo / "test_app.py").write_text(TEST_FILE, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "tests")
    return repo


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "input": arguments}]}


def propose(factors: dict[str, Any] = L2_FACTORS, *items: dict[str, Any]) -> dict[str, Any]:
    return call("gate_propose", title="Friendlier greet", items=list(items or [TESTS_ITEM]), factors=factors)


GATE = "friendlier-greet"


def make_engine(repo: Path, turns: list[dict[str, Any]], answers: dict[str, list[str | Decision]] | None = None,
                agents: dict[str, list[dict[str, Any]]] | None = None) -> tuple[Engine, ListSink, ScriptedApprover]:
    script = repo.parent / "script.yaml"
    script.write_text(yaml.safe_dump({"turns": turns, **({"agents": agents} if agents else {})}), encoding="utf-8")
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(script)
    config.agent.allow_tools = ["edit_file", "write_file", "bash"]
    config.agent.layer = "off"  # edits outside a gated run land in the tree, where the gate's checks run
    sink = ListSink()
    approver = ScriptedApprover({kind: list(queue) for kind, queue in (answers or {}).items()})
    return Engine(config, sink, repo_root=repo, approver=approver), sink, approver


def gate_events(sink: ListSink) -> list[Event]:
    return [e for e in sink.events if type(e).__module__ == G.__name__]


def tool_results(sink: ListSink, name: str) -> list[Any]:
    from ljtui.core.events import ToolCallFinished

    return [e for e in sink.events if isinstance(e, ToolCallFinished) and e.name == name]
