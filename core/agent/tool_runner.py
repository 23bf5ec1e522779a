"""Runs one tool call of any agent, in the place :class:`~ljtui.core.agent.tool_root.ToolRoot` says, reported
as ``tool_call_started`` and ``tool_call_finished``, between the session's ``PreToolUse`` and ``PostToolUse``
hooks (:mod:`ljtui.core.agent.tool_hooks`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ljtui.core.session_state import SessionSettings
from ljtui.core.agent.tool_root import ToolRoot
from ljtui.core.events import AGENT_CHAT, ToolCallFinished, ToolCallStarted, shown_output
from ljtui.core.ports import EventSink
from ljtui.core.providers.base import ToolCall, ToolResultBlock
from ljtui.core.tools import ToolContext, ToolRegistry

if TYPE_CHECKING:
    from ljtui.core.hooks.service import SessionHooks


class ToolRunner:
    """Runs calls from the session's ``tools`` (or an agent's own registry) where ``root`` says."""

    def __init__(self, settings: SessionSettings, sink: EventSink, tools: ToolRegistry, root: ToolRoot,
                 hooks: SessionHooks | None = None) -> None:
        self._settings = settings
        self._sink = sink
        self.tools = tools
        self.root = root
        self.hooks = hooks

    def context(self, turn: int, call_id: str, agent: str = AGENT_CHAT) -> ToolContext:
        """What a tool call of ``agent`` in ``turn`` can reach."""
        root, services = self.root.current()
        return ToolContext(root, turn, call_id, agent, self._sink.emit, self._settings.config, services)

    async def run(self, turn: int, call: ToolCall, tools: ToolRegistry | None = None,
                  agent: str = AGENT_CHAT) -> ToolResultBlock:
        """Run one tool call of ``agent`` (from ``tools``, default the session's), reported as events."""
        from ljtui.core.agent.tool_hooks import after_call, before_call, forget_call

        self._sink.emit(ToolCallStarted(turn, call.id, call.name, dict(call.input), agent))
        await self.root.prepare()
        ctx = self.context(turn, call.id, agent)
        refused, context = await before_call(self.hooks, call, ctx) if self.hooks is not None else (None, "")
        try:
            outcome = refused or await (tools or self.tools).call(call.name, call.input, ctx)
        finally:
            forget_call(ctx)
        if self.hooks is not None and refused is None:
            outcome = await after_call(self.hooks, call, ctx, outcome, context)
        self._sink.emit(ToolCallFinished(turn, call.id, call.name, outcome.ok, outcome.summary, agent,
                                         shown_output(outcome.content)))
        return ToolResultBlock(call.id, outcome.content, is_error=not outcome.ok)
