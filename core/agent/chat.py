"""The chat loop of the conversation agent: model calls, tools, compression (AGENT-1, AGENT-6).

:class:`ChatLoop` is mixed into the :class:`~ljtui.core.engine.Engine`: one user
message runs model calls and the tool calls the model asks for, until the
model ends its turn or ``agent.max_iterations`` is reached. Before every
model call the prompt is estimated and, above ``agent.compress_at_tokens``,
the older messages are summarised (:mod:`ljtui.core.agent.compression`).

An error that arrives in the middle of a reply and is worth retrying is
retried here with backoff, announced by ``ModelCallRetried`` so the UI drops
the partial reply; retries the SDK makes before the reply starts arrive as
``RetryScheduled`` deltas and are announced the same way.

Every reply with tool calls, of any agent (chat, tasks, verifiers), is
bounded here before its calls run (SAFE-6): arguments nested deeper or
larger than :mod:`ljtui.core.providers.arguments` allows, and calls past
``agent.max_tool_calls_per_reply``, are refused (each still gets its tool
result, so the next request stays valid), and the session's permissions
learn the reply's calls, so one denial answers the rest of the reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable

from ljtui.core.agent import compression as C
from ljtui.core.agent.permissions import Permissions
from ljtui.core.events import (
    ContextCompressed, ModelCallRetried, ModelCallStarted, Notice, TokenDelta, TurnFinished, Usage, UsageRecorded,
)
from ljtui.core.providers.base import (
    ChatClient, ChatRequest, Message, ProviderError, StreamEnd, TextBlock, TextDelta, ToolCall, ToolUseBlock,
    UsageDelta,
)
from ljtui.core.providers.arguments import RefusedArguments, arguments_problem
from ljtui.core.providers.pricing import cost_usd, rates_for
from ljtui.core.providers.retry import RetryPolicy, RetryScheduled, retry_call
from ljtui.core.secrets import StreamRedactor, redact, redact_message

if TYPE_CHECKING:
    from ljtui.core.engine import Engine, TurnResult

NOTHING_TO_COMPACT = "Nothing to compact yet: the conversation is only a few messages long."
CAP_KEY = "agent.max_tool_calls_per_reply"
"""The setting that caps the tool calls of one reply."""


@dataclass
class _TurnTally:
    """Tokens and cost of the model calls of one turn."""

    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None


class ChatLoop:
    """The conversation loop, as part of the engine (``self`` is the :class:`Engine`)."""

    summary: str = ""
    """The running summary of messages that compression removed."""

    async def _loop(self: Engine, turn: int) -> TurnResult:
        from ljtui.core.engine import TurnResult

        client = self._get_client()
        tally = _TurnTally()
        reply_text: list[str] = []
        await self.prepare_context()
        for _ in range(self.config.agent.max_iterations):
            if self.estimated_tokens() > self.config.agent.compress_at_tokens:
                await self._compress(turn, client, tally)
            request = ChatRequest(self._system, tuple(self.history), self.tools.specs,
                                  self.config.provider.max_tokens,
                                  "\n\n".join(filter(None, (C.summary_section(self.summary),
                                                              await self.gate_tail()))))
            text, calls, stop = await self._call_with_retries(turn, client, request, tally)
            text = redact(text, self._secrets)
            reply_text.append(text)
            blocks: list = [TextBlock(text)] if text else []
            blocks += [ToolUseBlock(c.id, c.name, c.input) for c in calls]
            self.history.append(redact_message(Message("assistant", tuple(blocks)), self._secrets))
            self.session_log.message(self.history[-1])
            if not calls:
                result = TurnResult("".join(reply_text), stop, tally.usage, tally.cost_usd)
                self.sink.emit(TurnFinished(turn, result.text, stop, tally.usage, tally.cost_usd))
                return result
            results = tuple([await self._run_tool(turn, c) for c in calls])
            self.history.append(redact_message(Message("user", results), self._secrets))
            self.session_log.message(self.history[-1])
        limit = self.config.agent.max_iterations
        raise ProviderError(
            "config",
            f"stopped after {limit} model calls in one turn (agent.max_iterations); "
            "send a message to continue",
        )

    def estimated_tokens(self: Engine) -> int:
        """The next prompt's size, estimated (system, summary, history, tool schemas)."""
        return C.estimate_tokens(self._system + C.summary_section(self.summary), self.history, self.tools.specs)

    async def compact(self: Engine) -> bool:
        """Summarise the older messages now (``/compact``); False when there is nothing to summarise."""
        if not C.cut(self.history).older:
            self.sink.emit(Notice(NOTHING_TO_COMPACT))
            return False
        self.turns += 1
        try:
            await self._compress(self.turns, self._get_client(), _TurnTally())
        except ProviderError as exc:
            self._turn_failed(self.turns, exc)
            return False
        return True

    async def _compress(self: Engine, turn: int, client: ChatClient, tally: _TurnTally) -> None:
        """Replace the older messages by a summary written by one model call (no tools)."""
        parts = C.cut(self.history)
        if not parts.older:
            return
        before = self.estimated_tokens()
        request = ChatRequest(C.SUMMARY_SYSTEM, (Message.user(C.summary_request(parts.older, self.summary)),),
                              (), C.SUMMARY_MAX_TOKENS)
        policy = RetryPolicy.from_config(self.config.provider)

        async def attempt() -> tuple[str, Usage]:
            text, _, usage, _ = await self._stream(turn, client, request, quiet=True)
            return text, usage

        def announce(retry: int, exc: ProviderError, delay: float) -> None:
            self.sink.emit(ModelCallRetried(turn, retry, policy.max_retries, exc.kind, exc.message, delay))

        summary, usage = await retry_call(attempt, policy, on_retry=announce, sleep=self._sleep)
        self._record_usage(turn, client, usage, tally)
        self.summary = redact(summary.strip(), self._secrets)
        self.history = list(parts.kept)
        self.session_log.compressed(self.summary, len(parts.kept))
        self.sink.emit(ContextCompressed(before, self.estimated_tokens(), len(parts.kept)))

    async def _call_with_retries(
        self, turn: int, client: ChatClient, request: ChatRequest, tally: _TurnTally, *, quiet: bool = False
    ) -> tuple[str, list[ToolCall], str]:
        """One model call; retryable mid-reply failures are sent again with backoff.

        ``quiet``: no streamed text and no ``model_call_started`` (agents running side by side would
        interleave them in the Conversation).
        """
        policy = RetryPolicy.from_config(self.config.provider)

        def attempt() -> Awaitable[tuple[str, list[ToolCall], Usage, str]]:
            if not quiet:
                self.sink.emit(ModelCallStarted(turn, client.provider, client.model))
            return self._stream(turn, client, request, quiet=quiet)

        def announce(retry: int, exc: ProviderError, delay: float) -> None:
            self.sink.emit(ModelCallRetried(turn, retry, policy.max_retries, exc.kind, exc.message, delay))

        text, calls, usage, stop = await retry_call(attempt, policy, on_retry=announce, sleep=self._sleep)
        self._record_usage(turn, client, usage, tally)
        return text, self._bounded_reply(calls, request.agent), stop

    def _bounded_reply(self: Engine, calls: list[ToolCall], agent: str) -> list[ToolCall]:
        """The reply's calls, those that must not run refused: bad arguments, or past the cap.

        The calls that may run are given to the session's permissions as one reply of ``agent``.
        """
        cap = self.config.agent.max_tool_calls_per_reply
        bounded = [_checked(call) for call in calls[:cap]]
        if len(calls) > cap:
            refused = RefusedArguments(over_cap(len(calls), cap))
            bounded += [ToolCall(call.id, call.name, refused) for call in calls[cap:]]
        permissions = self.services.permissions
        if isinstance(permissions, Permissions):
            permissions.reply_started(agent, [c.id for c in bounded if not isinstance(c.input, RefusedArguments)])
        return bounded

    def _record_usage(self, turn: int, client: ChatClient, usage: Usage, tally: _TurnTally) -> None:
        cost = cost_usd(usage, rates_for(self.config.provider.prices, client.model))
        self.session_usage = self.session_usage + usage
        self.session_log.usage(usage, cost)
        tally.usage = tally.usage + usage
        if cost is not None:
            self.session_cost_usd = (self.session_cost_usd or 0.0) + cost
            tally.cost_usd = (tally.cost_usd or 0.0) + cost
        self.sink.emit(UsageRecorded(
            turn, usage, self.session_usage, cost, self.session_cost_usd, tally.usage, tally.cost_usd,
        ))

    async def _stream(
        self, turn: int, client: ChatClient, request: ChatRequest, *, quiet: bool = False
    ) -> tuple[str, list[ToolCall], Usage, str]:
        """Stream one reply; its text goes out as ``TokenDelta`` events unless ``quiet``."""
        parts: list[str] = []
        calls: list[ToolCall] = []
        usage = Usage()
        stop = "end_turn"
        shown = StreamRedactor(self._secrets)
        async for delta in client.stream(request):
            if isinstance(delta, TextDelta):
                parts.append(delta.text)
                safe = shown.feed(delta.text)
                if safe and not quiet:
                    self.sink.emit(TokenDelta(turn, safe))
            elif isinstance(delta, ToolCall):
                calls.append(delta)
            elif isinstance(delta, UsageDelta):
                usage = usage + delta.usage
            elif isinstance(delta, StreamEnd):
                stop = delta.stop_reason
            elif isinstance(delta, RetryScheduled):
                self.sink.emit(ModelCallRetried(
                    turn, delta.retry, delta.max_retries, delta.kind, delta.message, delta.delay))
                self.sink.emit(ModelCallStarted(turn, client.provider, client.model))
        tail = shown.flush()
        if tail and not quiet:
            self.sink.emit(TokenDelta(turn, tail))
        return "".join(parts), calls, usage, stop


def _checked(call: ToolCall) -> ToolCall:
    """``call``, or a refused copy when its arguments are nested too deeply or too large."""
    if isinstance(call.input, RefusedArguments):
        return call
    problem = arguments_problem(call.input)
    return ToolCall(call.id, call.name, RefusedArguments(problem)) if problem else call


def over_cap(calls: int, cap: int) -> str:
    """What each call past the cap is told."""
    return (f"not run: this reply made {calls} tool calls and at most {cap} run per reply ({CAP_KEY}); "
            f"the last {calls - cap} were refused. Send the calls you still need in your next reply, "
            "after reading these results.")
