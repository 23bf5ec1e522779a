"""The engine façade: one object the UI and the CLI drive.

:meth:`Engine.run_turn` sends the user's message, streams the reply as
events, executes the tool calls the model asks for, and loops until the
model ends its turn (AGENT-1). Failures become a :class:`TurnFailed` event;
the conversation before the failed turn is kept so the user can retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ljtui.core.config import Config, ProviderConfig
from ljtui.core.events import (
    ConversationCleared, ModelCallStarted, TokenDelta, ToolCallFinished, ToolCallStarted,
    TurnFailed, TurnFinished, TurnStarted, Usage, UsageRecorded,
)
from ljtui.core.ports import Clock, EventSink, SystemClock
from ljtui.core.prompts import build_system_prompt
from ljtui.core.providers import make_client
from ljtui.core.providers.base import (
    ChatClient, ChatRequest, Message, ProviderError, StreamEnd, TextBlock, TextDelta,
    ToolCall, ToolResultBlock, ToolUseBlock, UsageDelta,
)
from ljtui.core.tools import ToolRegistry

ClientFactory = Callable[[ProviderConfig], ChatClient]


@dataclass(frozen=True)
class TurnResult:
    """The outcome of a finished turn."""

    text: str
    stop_reason: str
    usage: Usage


class Engine:
    """Holds one session's conversation and runs its turns."""

    def __init__(
        self,
        config: Config,
        sink: EventSink,
        *,
        repo_root: Path,
        clock: Clock | None = None,
        client_factory: ClientFactory | None = None,
        tools: ToolRegistry | None = None,
    ) -> None:
        self.config = config
        self.sink = sink
        self.repo_root = repo_root
        self.clock = clock or SystemClock()
        self.tools = tools or ToolRegistry()
        self.history: list[Message] = []
        self.session_usage = Usage()
        self.turns = 0
        self._client_factory = client_factory or make_client
        self._client: ChatClient | None = None
        self._system = build_system_prompt(repo_root.name)

    @property
    def provider_label(self) -> str:
        """``provider/model`` for the status bar."""
        cfg = self.config.provider
        return f"{cfg.name}/{cfg.model}" if cfg.name != "scripted" else "scripted"

    def clear(self) -> None:
        """Forget the conversation (the session's token totals stay)."""
        self.history.clear()
        self.sink.emit(ConversationCleared())

    async def run_turn(self, text: str) -> TurnResult | None:
        """Run one user message to the end of the model's turn.

        Returns:
            The result, or ``None`` when the turn failed (a ``TurnFailed``
            event says why).
        """
        self.turns += 1
        turn = self.turns
        self.sink.emit(TurnStarted(turn, text))
        saved = len(self.history)
        self.history.append(Message.user(text))
        try:
            return await self._loop(turn)
        except ProviderError as exc:
            del self.history[saved:]
            self.sink.emit(TurnFailed(turn, exc.kind, exc.message))
            return None

    async def _loop(self, turn: int) -> TurnResult:
        client = self._get_client()
        usage = Usage()
        reply_text: list[str] = []
        for _ in range(self.config.agent.max_iterations):
            self.sink.emit(ModelCallStarted(turn, client.provider, client.model))
            request = ChatRequest(
                self._system, tuple(self.history), self.tools.specs, self.config.provider.max_tokens
            )
            text, calls, call_usage, stop = await self._stream(turn, client, request)
            usage = usage + call_usage
            reply_text.append(text)
            blocks: list = [TextBlock(text)] if text else []
            blocks += [ToolUseBlock(c.id, c.name, c.input) for c in calls]
            self.history.append(Message("assistant", tuple(blocks)))
            if not calls:
                result = TurnResult("".join(reply_text), stop, usage)
                self.sink.emit(TurnFinished(turn, result.text, stop))
                return result
            self.history.append(Message("user", tuple([await self._run_tool(turn, c) for c in calls])))
        limit = self.config.agent.max_iterations
        raise ProviderError(
            "config",
            f"stopped after {limit} model calls in one turn (agent.max_iterations); "
            "send a message to continue",
        )

    async def _stream(
        self, turn: int, client: ChatClient, request: ChatRequest
    ) -> tuple[str, list[ToolCall], Usage, str]:
        parts: list[str] = []
        calls: list[ToolCall] = []
        usage = Usage()
        stop = "end_turn"
        async for delta in client.stream(request):
            if isinstance(delta, TextDelta):
                parts.append(delta.text)
                self.sink.emit(TokenDelta(turn, delta.text))
            elif isinstance(delta, ToolCall):
                calls.append(delta)
            elif isinstance(delta, UsageDelta):
                usage = usage + delta.usage
            elif isinstance(delta, StreamEnd):
                stop = delta.stop_reason
        self.session_usage = self.session_usage + usage
        self.sink.emit(UsageRecorded(turn, usage, self.session_usage))
        return "".join(parts), calls, usage, stop

    async def _run_tool(self, turn: int, call: ToolCall) -> ToolResultBlock:
        self.sink.emit(ToolCallStarted(turn, call.id, call.name, dict(call.input)))
        outcome = await self.tools.call(call.name, call.input)
        self.sink.emit(ToolCallFinished(turn, call.id, call.name, outcome.ok, outcome.summary))
        return ToolResultBlock(call.id, outcome.content, is_error=not outcome.ok)

    def _get_client(self) -> ChatClient:
        if self._client is None:
            self._client = self._client_factory(self.config.provider)
        return self._client

    async def aclose(self) -> None:
        """Close the provider's connections."""
        if self._client is not None:
            await self._client.aclose()
