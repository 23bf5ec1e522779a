"""Every model call of a session, of any agent (chat, tasks, router, verifiers, compression), goes through
:class:`ModelCalls`: the client, the stream, the retries, the reply's bound and the token ledger.

An error that arrives in the middle of a reply and is worth retrying is
retried here with backoff, announced by ``ModelCallRetried`` so the UI drops
the partial reply; retries the SDK makes before the reply starts arrive as
``RetryScheduled`` deltas and are announced the same way.

Every reply with tool calls is bounded here before its calls run (SAFE-6):
arguments nested deeper or larger than :mod:`ljtui.core.providers.arguments`
allows, and calls past ``agent.max_tool_calls_per_reply``, are refused (each
still gets its tool result, so the next request stays valid), and the
session's permissions learn the reply's calls, so one denial answers the rest
of the reply.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable

from ljtui.core.agent.context_budget import ContextBudget
from ljtui.core.session_state import SessionSettings
from ljtui.core.config import ProviderConfig
from ljtui.core.events import (
    ModelCallRetried, ModelCallStarted, Notice, TokenDelta, TurnFailed, Usage, UsageRecorded,
)
from ljtui.core.ports import EventSink
from ljtui.core.providers.arguments import CutArguments, RefusedArguments, arguments_problem
from ljtui.core.providers.base import (
    ChatClient, ChatRequest, ProviderError, StreamEnd, TextDelta, ToolCall, UsageDelta,
)
from ljtui.core.prices import rates_for_model
from ljtui.core.providers.pricing import cost_usd
from ljtui.core.providers.retry import RetryPolicy, RetryScheduled, retry_call
from ljtui.core.secrets import StreamRedactor, redact

if TYPE_CHECKING:
    from ljtui.core.agent.permissions import Permissions
    from ljtui.core.agent.sessions import SessionLog

ClientFactory = Callable[[ProviderConfig], ChatClient]
Sleep = Callable[[float], Awaitable[None]]

LIMIT_KEY = "provider.max_tokens"
"""The setting that bounds the tokens of one reply."""
CAP_KEY = "agent.max_tool_calls_per_reply"
"""The setting that caps the tool calls of one reply."""
RETRY_HINT = "Your conversation is intact: send the message again to retry."
"""Appended to every failed model call's message."""
NO_RETRY_HINT_KINDS = frozenset({"config", "script", "invalid_request", "auth", "max_tokens", "context_overflow"})
"""Failure kinds whose message already says what to do instead of retrying."""


@dataclass
class TurnTally:
    """Tokens and cost of the model calls of one turn."""

    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = None


class ModelCalls:
    """The session's model client and token ledger.

    Given the settings in force, the session's sink, how to build a client and
    how to wait, the session log (``log``: resuming replaces it) and the
    permissions that learn each reply's calls.
    """

    def __init__(self, settings: SessionSettings, sink: EventSink, *, client_factory: ClientFactory,
                 sleep: Sleep, log: Callable[[], SessionLog], permissions: Permissions | None) -> None:
        self._settings = settings
        self._sink = sink
        self._factory = client_factory
        self.sleep = sleep
        self._log = log
        self._permissions = permissions
        self._client: ChatClient | None = None
        self.budget = ContextBudget(settings, sink)
        """The model's context window, and where compression starts."""
        self.usage = Usage()
        """The session's tokens so far."""
        self.cost_usd: float | None = None
        """The session's cost so far (``None`` without prices)."""

    def client(self) -> ChatClient:
        """The provider's client, built from the settings on first use (and again after :meth:`forget_client`)."""
        if self._client is None:
            self._client = self._factory(self._settings.config.provider)
        return self._client

    @property
    def built(self) -> ChatClient | None:
        """The client, if one was built."""
        return self._client

    def forget_client(self) -> None:
        """Build the client again on the next call (the settings changed)."""
        self._client = None
        self.budget.forget()

    async def aclose(self) -> None:
        """Close the provider's connections."""
        if self._client is not None:
            await self._client.aclose()

    def failed(self, turn: int, exc: ProviderError) -> None:
        """Report a failed model call: what failed and, when it helps, that a retry is possible."""
        message = exc.message if exc.kind in NO_RETRY_HINT_KINDS else f"{exc.message}. {RETRY_HINT}"
        self._sink.emit(TurnFailed(turn, exc.kind, message, exc.status))

    async def call(self, turn: int, request: ChatRequest, tally: TurnTally, *,
                   quiet: bool = False) -> tuple[str, list[ToolCall], str]:
        """One model call; retryable mid-reply failures are sent again with backoff.

        ``quiet``: no streamed text and no ``model_call_started`` (agents running side by side would
        interleave them in the Conversation). Returns the reply's text (not yet redacted), its bounded
        calls and its stop reason.
        """
        client = self.client()
        policy = RetryPolicy.from_config(self._settings.config.provider)

        size = prompt_size(request)
        started = time.monotonic()

        def attempt() -> Awaitable[tuple[str, list[ToolCall], Usage, str]]:
            if not quiet:
                self._sink.emit(ModelCallStarted(turn, client.provider, client.model, size))
            return self._spending(turn, client, request, tally, quiet=quiet)

        text, calls, usage, stop = await retry_call(attempt, policy, on_retry=self._announcer(turn, policy),
                                                    sleep=self.sleep)
        self.record_usage(turn, client, usage, tally, model=request.model, agent=request.agent,
                          seconds=time.monotonic() - started)
        if stop == "max_tokens":
            self._cut_off(turn, request, text, calls)
        return text, self._bounded(calls, request.agent), stop

    async def text(self, turn: int, request: ChatRequest, tally: TurnTally | None = None) -> str:
        """The redacted text of one quiet call without tools (:meth:`reply`)."""
        return (await self.reply(turn, request, tally))[0]

    async def reply(self, turn: int, request: ChatRequest, tally: TurnTally | None = None, *,
                    announce: bool = False) -> tuple[str, str]:
        """The redacted text and the stop reason of one quiet call without tools, with retries; its tokens
        are recorded when it used any (a scripted default answer uses none), a failed attempt's too.

        ``announce``: each attempt is announced with ``model_call_started`` (naming the request's model, e.g.
        ``agent.router_model``, else the client's), though its text is not streamed.
        """
        client = self.client()
        policy = RetryPolicy.from_config(self._settings.config.provider)
        started = time.monotonic()

        async def attempt() -> tuple[str, Usage, str]:
            if announce:
                self._sink.emit(ModelCallStarted(turn, client.provider, request.model or client.model))
            text, _, usage, stop = await self._spending(turn, client, request, tally or TurnTally(), quiet=True)
            return text, usage, stop

        text, usage, stop = await retry_call(attempt, policy, on_retry=self._announcer(turn, policy),
                                             sleep=self.sleep)
        if tally is not None or usage != Usage():
            self.record_usage(turn, client, usage, tally or TurnTally(), model=request.model, agent=request.agent,
                              seconds=time.monotonic() - started)
        return redact(text, self._settings.secrets), stop

    async def _spending(self, turn: int, client: ChatClient, request: ChatRequest, tally: TurnTally, *,
                        quiet: bool) -> tuple[str, list[ToolCall], Usage, str]:
        """:meth:`stream`; the tokens of a call that failed after the server counted them are recorded too."""
        started = time.monotonic()
        try:
            return await self.stream(turn, client, request, quiet=quiet)
        except ProviderError as exc:
            if exc.usage is not None and exc.usage != Usage():
                self.record_usage(turn, client, exc.usage, tally, model=request.model, agent=request.agent,
                                  seconds=time.monotonic() - started)
            raise

    def _cut_off(self, turn: int, request: ChatRequest, text: str, calls: list[ToolCall]) -> None:
        """Say that a reply stopped at its ``max_tokens``, and which calls it cut off.

        Raises:
            ProviderError: ``max_tokens``, when the reply was cut off before it said anything.
        """
        limit = f"its token limit ({LIMIT_KEY} = {request.max_tokens:,})"
        cut = [c.name for c in calls if isinstance(c.input, CutArguments)]
        if not text.strip() and len(cut) == len(calls):
            raise ProviderError("max_tokens", f"the model's reply was cut off at {limit} before it wrote anything "
                                              f"complete: raise {LIMIT_KEY}, or ask for something shorter")
        if cut:
            ran = len(calls) - len(cut)
            said = (f"the {cut[0]} call was incomplete and did not run (the model is told why)" if len(cut) == 1
                    else f"{len(cut)} calls were incomplete and did not run (the model is told why)")
            tail = f"; the {ran} complete call{'s' if ran != 1 else ''} before {'it' if len(cut) == 1 else 'them'} " \
                   "run" if ran else ""
            message = f"The model's reply was cut off at {limit}: {said}{tail}."
        else:
            message = f"The model's reply was cut off at {limit}; what it wrote is kept. Raise {LIMIT_KEY} for " \
                      "longer replies."
        self._sink.emit(Notice(message, "warning"))

    def _announcer(self, turn: int, policy: RetryPolicy) -> Callable[[int, ProviderError, float], None]:
        def announce(retry: int, exc: ProviderError, delay: float) -> None:
            self._sink.emit(ModelCallRetried(turn, retry, policy.max_retries, exc.kind, exc.message, delay))

        return announce

    def _bounded(self, calls: list[ToolCall], agent: str) -> list[ToolCall]:
        """The reply's calls, those that must not run refused: bad arguments, or past the cap.

        The calls that may run are given to the session's permissions as one reply of ``agent``.
        """
        cap = self._settings.config.agent.max_tool_calls_per_reply
        bounded = [_checked(call) for call in calls[:cap]]
        if len(calls) > cap:
            refused = RefusedArguments(over_cap(len(calls), cap))
            bounded += [ToolCall(call.id, call.name, refused) for call in calls[cap:]]
        if self._permissions is not None:
            self._permissions.reply_started(
                agent, [c.id for c in bounded if not isinstance(c.input, RefusedArguments)])
        return bounded

    def record_usage(self, turn: int, client: ChatClient, usage: Usage, tally: TurnTally, *,
                     model: str | None = None, agent: str = "", seconds: float = 0.0) -> None:
        """Add one call's tokens (and cost) to the turn's tally and the session's ledger, and report them;
        priced at ``model``'s rates when the call named one (``agent.router_model``), else the client's
        (:mod:`ljtui.core.prices`: the user's ``provider.prices``, else the published price, else no cost).
        ``agent`` made the call, which took ``seconds``."""
        provider = self._settings.config.provider
        named = model or client.model
        cost = cost_usd(usage, rates_for_model(provider.prices, provider.name, named, provider.base_url))
        self.usage = self.usage + usage
        self._log().usage(usage, cost)
        tally.usage = tally.usage + usage
        if cost is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost
            tally.cost_usd = (tally.cost_usd or 0.0) + cost
        self._sink.emit(UsageRecorded(turn, usage, self.usage, cost, self.cost_usd, tally.usage, tally.cost_usd,
                                      agent=agent, model=named, seconds=round(seconds, 3)))

    async def stream(self, turn: int, client: ChatClient, request: ChatRequest, *,
                     quiet: bool = False) -> tuple[str, list[ToolCall], Usage, str]:
        """Stream one reply; its text goes out as ``TokenDelta`` events unless ``quiet``."""
        parts: list[str] = []
        calls: list[ToolCall] = []
        usage = Usage()
        stop = "end_turn"
        shown = StreamRedactor(self._settings.secrets)
        async for delta in client.stream(request):
            if isinstance(delta, TextDelta):
                parts.append(delta.text)
                safe = shown.feed(delta.text)
                if safe and not quiet:
                    self._sink.emit(TokenDelta(turn, safe))
            elif isinstance(delta, ToolCall):
                calls.append(delta)
            elif isinstance(delta, UsageDelta):
                usage = usage + delta.usage
            elif isinstance(delta, StreamEnd):
                stop = delta.stop_reason
            elif isinstance(delta, RetryScheduled):
                self._sink.emit(ModelCallRetried(
                    turn, delta.retry, delta.max_retries, delta.kind, delta.message, delta.delay))
                self._sink.emit(ModelCallStarted(turn, client.provider, client.model))
        tail = shown.flush()
        if tail and not quiet:
            self._sink.emit(TokenDelta(turn, tail))
        return "".join(parts), calls, usage, stop


def prompt_size(request: ChatRequest) -> int:
    """The estimated tokens of ``request``'s prompt (system, messages, tool schemas)."""
    from ljtui.core.agent.compression import estimate_tokens

    return estimate_tokens(request.system + request.system_tail, request.messages, request.tools)


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
