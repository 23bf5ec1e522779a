"""What a tool call reaches: typed collaborators, and a clear tool error for a missing one."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

from ljtui.core import tools as tools_module
from ljtui.core.agent.memory import MemoryStore
from ljtui.core.agent.permissions import Permissions
from ljtui.core.agent.tools import agent_tools
from ljtui.core.outline.repo_outline import RepoOutline
from ljtui.core.agent.writer import AgentWriter
from ljtui.core.config import Config
from ljtui.core.confine.session import CommandSandbox
from ljtui.core.events import Event
from ljtui.core.gates.release import Delivery
from ljtui.core.gates.service import GateService
from ljtui.core.gitguard.guard import GitSettingsGuard
from ljtui.core.layer.commit import ProposedCommit
from ljtui.core.layer.tools import LayerOutline, LayerReader, LayerTools
from ljtui.core.planner.tools import ReadOnlyTools
from ljtui.core.playbooks.service import PlaybookService
from ljtui.core.tools import GateControls, ToolContext, ToolServices

REAL_TYPES = {"MemoryStore": MemoryStore, "Permissions": Permissions, "RepoOutline": RepoOutline,
              "AgentWriter": AgentWriter, "CommandSandbox": CommandSandbox, "Delivery": Delivery,
              "GateService": GateService, "ReadOnlyTools": ReadOnlyTools, "PlaybookService": PlaybookService,
              "Config": Config, "Event": Event, "GitSettingsGuard": GitSettingsGuard, "LayerReader": LayerReader,
              "LayerOutline": LayerOutline, "LayerTools": LayerTools, "ProposedCommit": ProposedCommit}
"""The classes :mod:`ljtui.core.tools` names only for type checkers."""


def context(root: Path, services: ToolServices | None = None) -> ToolContext:
    if services is None:
        return ToolContext(root, 1, "call-1", "chat", lambda event: None, Config())
    return ToolContext(root, 1, "call-1", "chat", lambda event: None, Config(), services)


@pytest.mark.parametrize(("tool", "args", "missing"), [
    ("read_file", {"path": "a.txt"}, "reader"),
    ("list_files", {}, "reader"),
    ("write_file", {"path": "a.txt", "content": "x"}, "writer"),
    ("bash", {"command": "true"}, "permissions"),
    ("save_memory", {"text": "a fact"}, "permissions"),
    ("gate_status", {}, "gates"),
    ("gate_verify", {}, "gates"),
    ("gate_deliver", {}, "gates"),
])
async def test_a_tool_whose_collaborator_is_missing_says_so(tmp_path: Path, tool: str, args: dict[str, object],
                                                            missing: str) -> None:
    result = await agent_tools().call(tool, args, context(tmp_path))
    assert not result.ok
    assert result.content == f"error: this session has no {missing}"
    assert result.summary == f"{tool}: this session has no {missing}"


async def test_bash_with_permissions_but_no_sandbox_names_the_sandbox(tmp_path: Path) -> None:
    permissions = Permissions(lambda request: None, lambda event: None)  # type: ignore[arg-type,return-value]
    result = await agent_tools().call("bash", {"command": "true"}, context(tmp_path, ToolServices(permissions)))
    assert not result.ok and result.content == "error: this session has no sandbox"


def test_a_context_starts_with_no_collaborators_and_has_no_lookup_by_name(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    assert ctx.services == ToolServices()
    assert not hasattr(ctx, "service") and not hasattr(ToolContext, "service")
    assert not isinstance(ctx.services, dict) and not hasattr(ctx.services, "get")
    assert typing.get_type_hints(ToolContext, vars(tools_module), REAL_TYPES)["services"] is ToolServices
    for name in ("PERMISSIONS", "WRITER", "READER", "SANDBOX", "ENGINE", "service"):
        assert not hasattr(tools_module, name), name


def test_every_collaborator_has_its_own_type() -> None:
    hints = typing.get_type_hints(ToolServices, vars(tools_module), REAL_TYPES)
    expected = {"permissions": Permissions, "writer": AgentWriter, "reader": ReadOnlyTools | LayerReader,
                "sandbox": CommandSandbox, "outline": RepoOutline | LayerOutline, "memory": MemoryStore,
                "playbooks": PlaybookService, "gates": GateControls, "git_guard": GitSettingsGuard,
                "layer_tools": LayerTools}
    for name, kind in expected.items():
        assert hints[name] == kind | None, name
    for field in dataclasses.fields(ToolServices):
        assert hints[field.name] is not typing.Any and "Any" not in str(hints[field.name]), field.name
        assert typing.get_origin(hints[field.name]) is not dict, field.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        ToolServices().writer = None  # type: ignore[misc]


def test_the_gate_controls_are_a_port_not_the_engine() -> None:
    hints = typing.get_type_hints(ToolServices, vars(tools_module), REAL_TYPES)
    assert hints["gates"] == GateControls | None
    assert typing.get_origin(GateControls) is None and getattr(GateControls, "_is_protocol", False)
    assert {"gates", "deliver_gate", "verify_gate"} <= set(dir(GateControls))
