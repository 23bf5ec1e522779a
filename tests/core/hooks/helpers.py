"""Real hook scripts in real repositories, run by a real engine on a scripted model."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Event
from ljtui.core.layer.service import Layer
from ljtui.core.ports import ListSink

HOOKS_FOLDER = ".claude/hooks"


def hook_script(repo: Path, name: str, body: str) -> str:
    """Write the bash script ``body`` to ``.claude/hooks/NAME`` in ``repo``, as a team keeps its hooks; the command
    that runs it (through ``$CLAUDE_PROJECT_DIR``, as Claude Code's hooks are written)."""
    path = repo / HOOKS_FOLDER / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/bash\n{body}\n", encoding="utf-8")
    os.chmod(path, 0o755)
    return f'"$CLAUDE_PROJECT_DIR/{HOOKS_FOLDER}/{name}"'


def on(matcher: str, *commands: str, timeout: float | None = None) -> list[dict[str, Any]]:
    """One matcher group of hook ``commands``, in Claude Code's shape."""
    hooks = [{"type": "command", "command": c, **({"timeout": timeout} if timeout is not None else {})}
             for c in commands]
    return [{"matcher": matcher, "hooks": hooks}]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "input": arguments}]}


def hooked_engine(repo: Path, script_dir: Path, turns: list[dict[str, Any]], hooks: dict[str, list[Any]], *,
                  answers: dict[str, list[str | Decision]] | None = None, layer: str = "auto",
                  agents: dict[str, list[dict[str, Any]]] | None = None,
                  **hook_options: Any) -> tuple[Engine, ListSink, ScriptedApprover]:
    """An engine on ``repo`` whose model plays ``turns`` (and ``agents``' turns) and whose user config holds
    ``hooks``."""
    script = script_dir / "script.yaml"
    script.write_text(yaml.safe_dump({"turns": turns, **({"agents": agents} if agents else {})}), encoding="utf-8")
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(script)
    config.agent.layer = layer
    for event, groups in hooks.items():
        setattr(config.hooks, event, groups)
    for key, value in hook_options.items():
        setattr(config.hooks, key, value)
    sink = ListSink()
    approver = ScriptedApprover({kind: list(queue) for kind, queue in (answers or {}).items()})
    return Engine(config, sink, repo_root=repo, approver=approver), sink, approver


def of(sink: ListSink, kind: type[Event]) -> list[Any]:
    return [e for e in sink.events if isinstance(e, kind)]


def needs_layer(repo: Path) -> None:
    status = Layer(repo).status
    if not status.layered:
        pytest.skip(f"no layer on this machine: {status.why}")
