"""What every agent loop of a session is given (chat, task agents, the router, verifiers): one typed bundle of
the session's ports and services, built by the engine, never the engine itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable

from ljtui.core.agent.context import PromptContext
from ljtui.core.agent.model_calls import ModelCalls
from ljtui.core.session_state import SessionSettings, SessionSink, TurnCounter
from ljtui.core.agent.tool_runner import ToolRunner

if TYPE_CHECKING:
    from ljtui.core.agent.permissions import Ask, Permissions
    from ljtui.core.hooks.service import SessionHooks
    from ljtui.core.runlog import RunLog


@dataclass(frozen=True)
class AgentKit:
    """The session's collaborators an agent loop uses.

    Attributes:
        root: the repository root.
        settings: the configuration in force.
        sink: the session's sink (redacting; a task plan taps it).
        turns: the session's turn counter.
        model: every model call, with retries, bounds and the token ledger.
        tools: runs tool calls where the tools work now.
        context: the session's system prompt.
        gate_tail: the gate status for the end of the system prompt (``""`` without a gate).
        ask: asks the user through the Approver port.
        permissions: the session's permissions (``None`` in a session without tools).
        run_log: ``.agent/events.jsonl``, where task-plan events are appended.
        hooks: the session's hooks (``None``: a session without them).
    """

    root: Path
    settings: SessionSettings
    sink: SessionSink
    turns: TurnCounter
    model: ModelCalls
    tools: ToolRunner
    context: PromptContext
    gate_tail: Callable[[], Awaitable[str]]
    ask: Ask
    permissions: Permissions | None
    run_log: RunLog | None
    hooks: SessionHooks | None = None
