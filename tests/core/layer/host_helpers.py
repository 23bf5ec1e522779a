"""The layer's file tools on a real repository and a real overlay, and the same tools in ljtui's process."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

from ljtui.core.agent.permissions import Permissions
from ljtui.core.agent.tools import agent_tools
from ljtui.core.agent.writer import AgentWriter
from ljtui.core.approval import ScriptedApprover
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.events import Event
from ljtui.core.layer.service import Layer
from ljtui.core.layer.tools import LayerTools
from ljtui.core.planner.tools import ReadOnlyTools
from ljtui.core.secret_files import SecretFiles
from ljtui.core.tools import ToolContext, ToolResult, ToolServices

IDLE_SECONDS = 60.0
"""A host that should not stop on its own during a test."""
COMMAND_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}
TIMEOUT_SECONDS = 30


def layered(repo: Path) -> Layer:
    """``repo``'s layer; the test is skipped when overlays do not work on this machine."""
    layer = Layer(repo)
    if not layer.status.layered:
        pytest.skip(f"no overlay on this machine: {layer.status.why}")
    return layer


def run_ok(layer: Layer, script: str) -> str:
    """Run ``script`` with ``/bin/sh`` in the layer, as a command does (holding it: a running host is stopped);
    returns its output."""
    with layer.holding():
        argv = [layer.status.bwrap or "bwrap", *layer.mount_args(), "--unshare-net", "--chdir", str(layer.repo),
                "--", "/bin/sh", "-c", script]
        done = subprocess.run(argv, capture_output=True, text=True, env=COMMAND_ENV, timeout=TIMEOUT_SECONDS,
                              stdin=subprocess.DEVNULL)
        layer.record()
    assert done.returncode == 0, done.stderr
    return done.stdout


def layer_tools(layer: Layer, cache: Path, *, idle_seconds: float = IDLE_SECONDS,
                secrets: SecretFiles = SecretFiles(), **options: Any) -> LayerTools:
    """Tools served by a host in ``layer``."""
    return LayerTools(layer, secrets=secrets, grep_engine="auto", grep_timeout=10.0, handbook_dir=None,
                      outline_budget=2000, cache_dir=cache, idle_seconds=idle_seconds, **options)


def running_tools(repo: Path, tmp_path: Path) -> Iterator[LayerTools]:
    """For a test's fixture: the layer tools of ``repo`` (closed after the test)."""
    tools = layer_tools(layered(repo), tmp_path / "host-cache")
    try:
        yield tools
    finally:
        tools.close()


@dataclass
class Session:
    """The agent's tools as a session wires them: in ljtui's process, or in the layer when ``layer`` is set."""

    root: Path
    layer: LayerTools | None = None
    secrets: SecretFiles = SecretFiles()
    answers: list[str] = field(default_factory=list)
    ask_writes: bool = False
    events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.approver = ScriptedApprover({"permission": list(self.answers)})
        self.config = Config()
        self.config.agent.ask_writes = self.ask_writes
        permissions = Permissions(self.approver.decide, self.events.append)
        writer = None if self.layer is not None else AgentWriter(self.root, FixedClock(), self.secrets)
        reader = self.layer.reader if self.layer is not None else ReadOnlyTools(self.root, secrets=self.secrets)
        outline = self.layer.outline if self.layer is not None else None
        self.services = ToolServices(permissions=permissions, writer=writer, reader=reader, outline=outline,
                                     layer_tools=self.layer)
        self.registry = agent_tools()

    async def call(self, tool: str, **args: Any) -> ToolResult:
        ctx = ToolContext(self.root, 1, f"call-{tool}", "chat", self.events.append, self.config, self.services)
        return await self.registry.call(tool, args, ctx)


def tree_of(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every entry below ``root``, ``.git`` included: its mode and its bytes (a link's target, nothing for a
    folder)."""
    entries = {}
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(folder) / name
            st = path.lstat()
            if path.is_symlink():
                data = os.readlink(path).encode()
            else:
                data = path.read_bytes() if path.is_file() else b""
            entries[str(path.relative_to(root))] = (st.st_mode, data)
    return entries


def processes_below(pid: int) -> list[int]:
    """``pid`` and every process descended from it."""
    parents: dict[int, int] = {}
    for name in Path("/proc").iterdir():
        if name.name.isdigit():
            try:
                stat = (name / "stat").read_text()
            except OSError:
                continue
            parents[int(name.name)] = int(stat[stat.rfind(")") + 2:].split()[1])
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(child for child, parent in parents.items() if parent == current)
    return found
