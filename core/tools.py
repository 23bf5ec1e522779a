"""Tools an agent may call: the result type, the registry, and what a call can reach.

A tool is a name, a JSON schema and an async function of its arguments and a
:class:`ToolContext`. Calls with unknown names or bad arguments become tool
errors sent back to the model, never exceptions in the engine: a tool that
raises anything but cancellation is reported as failed, naming the
exception type. A call whose arguments were refused before it got here
(nested too deeply, too large, past the reply's cap on calls: see
:mod:`ljtui.core.providers.arguments`) is answered with why, and no tool runs.

What a call can reach beyond the repository is a :class:`ToolServices`: one
typed field per collaborator (permissions, writer, reader, sandbox, outline,
memory, playbooks, the gate controls …). A field the session does not have
is ``None``, and a tool that needs it answers "this session has no …"
through :func:`require`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, Protocol, TypeVar

from ljtui.core.providers.arguments import RefusedArguments
from ljtui.core.providers.base import ToolSpec
from ljtui.core.tool_result import ToolError, ToolResult  # noqa: F401 - re-exported

if TYPE_CHECKING:
    from ljtui.core.agent.memory import MemoryStore
    from ljtui.core.agent.permissions import Permissions
    from ljtui.core.agent.writer import AgentWriter
    from ljtui.core.config import Config
    from ljtui.core.confine.session import CommandSandbox
    from ljtui.core.events import Event
    from ljtui.core.gates.release import Delivery
    from ljtui.core.gates.service import GateService
    from ljtui.core.gitguard.guard import GitSettingsGuard
    from ljtui.core.layer.tools import LayerOutline, LayerReader, LayerTools
    from ljtui.core.layer.commit import ProposedCommit
    from ljtui.core.outline.repo_outline import RepoOutline
    from ljtui.core.planner.tools import ReadOnlyTools
    from ljtui.core.playbooks.service import PlaybookService

T = TypeVar("T")

SUMMARY_CHARS = 160
"""Longest one-line summary of a failed call the registry writes."""


class GateControls(Protocol):
    """What the gate tools drive: the session's gates, the delivery of a passed run, the independent verifier."""

    @property
    def gates(self) -> GateService:
        """The repository's gates and the run in progress."""
        ...

    async def deliver_gate(self) -> Delivery:
        """Try to deliver the open run's staged change (refused until the gate passes)."""
        ...

    async def verify_gate(self, turn: int, gate_id: str) -> tuple[str, str]:
        """Run an independent verifier on ``gate_id`` in ``turn``; returns its agent id and its last words."""
        ...


@dataclass(frozen=True)
class ToolServices:
    """The session's collaborators a tool call can reach; ``None`` where the session has none.

    Attributes:
        permissions: asks the user before a write, a command or a memory save.
        writer: the one write path (transactions, undo).
        reader: the read-only file tools shared with the planner (in the layer: its tool host's).
        sandbox: where commands run.
        outline: the repository outline (``get_outline``, ``find_symbol``, the system prompt; in the layer: its
            tool host's).
        memory: the long-term memory store.
        playbooks: the session's playbook library.
        gates: the gate controls of the session.
        session_id: the id of the session's log, for what a tool records.
        command_env: variables added to a command's environment where the tools work (a staging tree's git
            ceiling).
        git_guard: watches git's executable settings around every command.
        layer_tools: the layer's tool host, when the session works in a layer: the write tools run there, so they
            write in the layer what commands see (``None``: they write the user's files through ``writer``).
        commit: the commit message the model proposed for the layer's change (``propose_commit``).
    """

    permissions: Permissions | None = None
    writer: AgentWriter | None = None
    reader: ReadOnlyTools | LayerReader | None = None
    sandbox: CommandSandbox | None = None
    outline: RepoOutline | LayerOutline | None = None
    memory: MemoryStore | None = None
    playbooks: PlaybookService | None = None
    gates: GateControls | None = None
    session_id: Callable[[], str | None] | None = None
    command_env: Mapping[str, str] = field(default_factory=dict)
    git_guard: GitSettingsGuard | None = None
    layer_tools: LayerTools | None = None
    commit: ProposedCommit | None = None


def require(value: T | None, name: str) -> T:
    """``value``, a collaborator a tool needs; a missing one is a clear tool error."""
    if value is None:
        raise ToolError(f"this session has no {name}")
    return value


@dataclass
class ToolContext:
    """What one tool call can reach: the repository, the session's services, and who is calling.

    Attributes:
        root: the repository root (real path).
        turn: the user message this call belongs to.
        call_id: the model's id for the call.
        agent: who called (``chat``, ``task <id>`` …).
        emit: reports an event (tool output as it streams, permission decisions).
        config: the session's configuration.
        services: the session's collaborators (permissions, writer, reader,
            outline …), set up by the engine.
        cancelled: set when the user cancels the running turn.
    """

    root: Path
    turn: int
    call_id: str
    agent: str
    emit: Callable[[Event], None]
    config: Config
    services: ToolServices = field(default_factory=ToolServices)
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)


ToolFn = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]


def imported(target: str) -> ToolFn:
    """The tool function ``"package.module:function"``, its module imported on the tool's first call, in a
    thread (a registry holds every spec without loading any tool's code)."""
    module, _, name = target.partition(":")
    loaded: list[Any] = []

    async def run(arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not loaded:  # the first calls import the family off the event loop (a second waits for the first)
            import importlib

            loaded.append(await asyncio.to_thread(importlib.import_module, module))
        function: ToolFn = getattr(loaded[0], name)
        return await function(arguments, ctx)

    run.__qualname__ = run.__name__ = name
    return run


@dataclass(frozen=True)
class Tool:
    """A tool: its spec (name, description, input schema) and what runs it."""

    spec: ToolSpec
    run: ToolFn


class ToolRegistry:
    """Tools by name, in a stable order (the tool list is a cache prefix)."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools or []:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        self._tools[tool.spec.name] = tool

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, if there is one."""
        return self._tools.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(t.spec for t in self._tools.values())

    async def call(self, name: str, arguments: Any, ctx: ToolContext) -> ToolResult:
        """Run one tool call; every failure is a ``ToolResult`` with ``ok=False``."""
        if isinstance(arguments, RefusedArguments):
            return ToolResult(False, f"error: {arguments.problem}", f"{name}: {arguments.problem}"[:SUMMARY_CHARS])
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            msg = f"unknown tool '{name}' (available: {known})"
            return ToolResult(False, msg, msg)
        if not isinstance(arguments, dict):
            msg = f"{name}: arguments must be a JSON object"
            return ToolResult(False, msg, msg)
        try:
            return await tool.run(arguments, ctx)
        except ToolError as exc:
            return ToolResult(False, f"error: {exc}", f"{name}: {exc}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a tool must never take the engine down
            msg = f"{name} failed: {type(exc).__name__}: {exc}"
            return ToolResult(False, f"error: {msg}", msg[:SUMMARY_CHARS])
