"""The conversation agent (AGENT-1, AGENT-6): the chat history and its loop of model calls and tools.

One user message runs model calls and the tool calls the model asks for,
until the model ends its turn or ``agent.max_iterations`` is reached.
Failures become a :class:`~ljtui.core.events.TurnFailed` event; the
conversation before the failed turn is kept so the user can retry. Before
every model call the prompt is estimated and, above
``agent.compress_at_tokens``, the older messages are summarised
(:mod:`ljtui.core.agent.compression`): the earlier turns when that is enough,
else the earlier exchanges of the current request too, which stays first.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ljtui.core.agent import compression as C
from ljtui.core.agent import runaway as R
from ljtui.core.agent.offer import Offer, offer_now
from ljtui.core.agent.kit import AgentKit
from ljtui.core.agent.model_calls import TurnTally
from ljtui.core.events import ContextCompressed, ConversationCleared, Notice, TurnFailed, TurnFinished, TurnStarted, Usage
from ljtui.core.providers.base import (
    Block, ChatRequest, Message, ProviderError, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock,
)
from ljtui.core.secrets import redact, redact_message

if TYPE_CHECKING:
    from ljtui.core.agent.sessions import SessionLog
    from ljtui.core.agent.writer import AgentWriter

NOTHING_TO_COMPACT = "Nothing to compact yet: the conversation is only a few messages long."
NOTHING_TO_CLEAR = "Nothing to clear: the conversation is empty."
KEPT = "The conversation was kept."
"""What the user reads when they answer no to clearing it."""
CANCELLED = ("Cancelled: the running command was stopped and the message forgotten. Files the agent already "
             "wrote stay written; /undo reverts them.")
"""What the user reads when they cancel a running turn."""


OVERFLOW_ADVICE = ("send a shorter message, /clear, or give the server a larger context (llama-server -c N, "
                   "OLLAMA_CONTEXT_LENGTH, vLLM --max-model-len) and set provider.context_window to it")
"""What to do when a prompt is still more than the window holds."""


class Runaway(Exception):
    """The user (or nobody, headless) stopped a turn that repeated one call; ``str(exc)`` says why."""


@dataclass(frozen=True)
class TurnResult:
    """The outcome of a finished turn."""

    text: str
    stop_reason: str
    usage: Usage
    cost_usd: float | None = None


class Conversation:
    """The chat history, its running summary and the turns that grow them.

    Given the agent kit, the session log (``log``: resuming replaces it) and the
    writer, told of each new message so ``/undo`` reverts one message's writes.
    """

    def __init__(self, kit: AgentKit, *, log: Callable[[], SessionLog], writer: AgentWriter | None) -> None:
        self._kit = kit
        self._log = log
        self._writer = writer
        self.history: list[Message] = []
        self.summary = ""
        """The running summary of messages that compression removed."""
        self._request: Message | None = None
        self._offer = Offer()
        """What decided the tools of the last model call."""
        """The message that opened the running turn (a failed turn rewinds to just before it)."""
        self._attached: tuple[Block, ...] = ()

    def attach(self, blocks: tuple[Block, ...]) -> None:
        """Blocks (the user's images) the next message carries before its text."""
        self._attached = blocks

    async def run_turn(self, text: str) -> TurnResult | None:
        """Run one user message to the end of the model's turn; ``None`` when it failed (``TurnFailed`` says
        why)."""
        kit = self._kit
        turn = kit.turns.next()
        kit.sink.emit(TurnStarted(turn, text))
        if self._writer is not None:
            self._writer.new_message()
        await self._mark()
        self._keep(Message("user", (*self._attached, TextBlock(text))))
        self._attached = ()
        self._request = self.history[-1]
        try:
            return await self._loop(turn)
        except ProviderError as exc:
            self._rewind()
            kit.model.failed(turn, exc)
            return None
        except Runaway as stop:
            self._rewind()
            kit.sink.emit(TurnFailed(turn, "runaway", f"{stop}; the message was forgotten (files written stay, "
                                                      "/undo reverts them). Say how to go on differently."))
            return None
        except asyncio.CancelledError:
            self._rewind()
            kit.sink.emit(TurnFailed(turn, "cancelled", CANCELLED))
            raise
        finally:
            self._request = None

    async def _mark(self) -> None:
        """Record which applies the journal keeps before this message, so a rewind to it knows what came since."""
        from ljtui.core.rewind_journal import kept_group_ids

        self._log().marked(await asyncio.to_thread(kept_group_ids, self._kit.root))

    def _keep(self, message: Message) -> None:
        self.history.append(redact_message(message, self._kit.settings.secrets))
        self._log().message(self.history[-1])

    def _rewind(self) -> None:
        """Forget the running turn's messages (those compression kept of it included)."""
        saved = next((i for i, m in enumerate(self.history) if m is self._request), len(self.history))
        del self.history[saved:]
        self._log().rewound(len(self.history))

    async def _loop(self, turn: int) -> TurnResult:
        kit = self._kit
        tally = TurnTally()
        guard = R.RepeatGuard()
        reply_text: list[str] = []
        stops = 0
        overflowed = False
        await kit.context.prepare()
        agent = kit.settings.config.agent
        for _ in range(agent.max_iterations):
            self._offer = await offer_now(kit)
            if self.estimated_tokens() > await kit.model.budget.compress_at():
                await self._compress(turn, tally)
            request = ChatRequest(kit.context.system, tuple(self.history), self._specs(),
                                  kit.settings.config.provider.max_tokens,
                                  "\n\n".join(filter(None, (C.summary_section(self.summary), await kit.gate_tail()))))
            try:
                text, calls, stop = await kit.model.call(turn, request, tally)
            except ProviderError as exc:
                if exc.kind != "context_overflow":
                    raise
                if overflowed:
                    raise ProviderError("context_overflow", f"{exc.message}. Summarising the older messages did "
                                                            f"not make the prompt fit: {OVERFLOW_ADVICE}") from None
                overflowed = True
                await self._overflowed(turn, tally, exc)
                continue
            text = redact(text, kit.settings.secrets)
            reply_text.append(text)
            blocks: list = [TextBlock(text)] if text else []
            blocks += [ToolUseBlock(c.id, c.name, c.input) for c in calls]
            self._keep(Message("assistant", tuple(blocks)))
            if not calls and await self._stop_refused(text, stops):
                stops += 1
                continue
            if not calls:
                result = TurnResult("".join(reply_text), stop, tally.usage, tally.cost_usd)
                kit.sink.emit(TurnFinished(turn, result.text, stop, tally.usage, tally.cost_usd))
                return result
            results = []
            for index, call in enumerate(calls):
                repeating = guard.before(calls, index)
                if repeating is not None and (await kit.ask(R.question(repeating, "chat"))).choice != R.GO_ON:
                    raise Runaway(R.stopped(repeating))
                block = await kit.tools.run(turn, call)
                repeats = guard.see(call.name, call.input, block.content)
                if guard.nudged(repeats):
                    block = ToolResultBlock(block.tool_use_id, f"{block.content}\n\n{R.nudge(call.name, repeats)}",
                                            block.is_error)
                results.append(block)
            self._keep(Message("user", tuple(results)))
        raise ProviderError(
            "config",
            f"stopped after {agent.max_iterations} model calls in one turn (agent.max_iterations); "
            "send a message to continue",
        )

    async def _stop_refused(self, text: str, stops: int) -> bool:
        """Whether the ``Stop`` hooks keep the turn going (their reason is then the model's next message); after
        ``hooks.stop_continues`` times the turn ends anyway, saying so."""
        hooks = self._kit.hooks
        if hooks is None:
            return False
        outcome = await hooks.fire("Stop", {"stop_hook_active": stops > 0, "last_assistant_message": text})
        if outcome.stop is not None or not outcome.blocked:
            return False
        if stops >= hooks.stop_continues:
            self._kit.sink.emit(Notice(f"A Stop hook still refuses to let the turn end after {stops} "
                                       f"continuation(s) (hooks.stop_continues); the turn ends.", "warning"))
            return False
        self._keep(Message.user(f"[A Stop hook did not let your turn end ({stops + 1}/{hooks.stop_continues}); "
                                f"text a program printed, not the user's words]\n{outcome.reason()}"))
        return True

    def _specs(self) -> tuple[ToolSpec, ...]:
        """The tools offered to the model now (:mod:`ljtui.core.agent.offer`)."""
        return self._offer.specs(self._kit.tools.tools.specs, self._kit.settings.config)

    def estimated_tokens(self) -> int:
        """The next prompt's size, estimated (system, summary, history, tool schemas)."""
        kit = self._kit
        return C.estimate_tokens(kit.context.system + C.summary_section(self.summary), self.history,
                                 self._specs())

    async def compact(self) -> bool:
        """Summarise the older messages now (``/compact``); False when there is nothing to summarise."""
        kit = self._kit
        if not C.cut(self.history).older:
            kit.sink.emit(Notice(NOTHING_TO_COMPACT))
            return False
        turn = kit.turns.next()
        try:
            await self._compress(turn, TurnTally(), inside=False)
        except ProviderError as exc:
            kit.model.failed(turn, exc)
            return False
        return True

    async def _compress(self, turn: int, tally: TurnTally, *, inside: bool = True) -> bool:
        """Replace the older messages by a summary written by one model call (no tools); False when there was
        nothing to summarise.

        The earlier turns go first; when what is left would still be over the budget, the cut moves
        inside the running request (``inside``).
        """
        parts = C.cut(self.history)
        if inside and (not parts.older or not self._fits(parts.kept, await self._kit.model.budget.compress_at())):
            within = C.cut_inside(self.history)
            parts = within if within.older else parts
        if not parts.older:
            return False
        if self._kit.hooks is not None:
            trigger = "auto" if inside else "manual"
            await self._kit.hooks.fire("PreCompact", {"trigger": trigger, "custom_instructions": ""}, trigger)
        before = self.estimated_tokens()
        request = ChatRequest(C.SUMMARY_SYSTEM, (Message.user(C.summary_request(parts.older, self.summary)),),
                              (), C.SUMMARY_MAX_TOKENS)
        self.summary = (await self._kit.model.text(turn, request, tally)).strip()
        self.history = list(parts.kept)
        log = self._log()
        if parts.inside:  # the kept messages are not the history's last ones: they are recorded again
            log.compressed(self.summary, 0)
            for message in parts.kept:
                log.message(message)
        else:
            log.compressed(self.summary, len(parts.kept))
        self._kit.sink.emit(ContextCompressed(before, self.estimated_tokens(), len(parts.kept)))
        return True

    def _fits(self, kept: tuple[Message, ...], limit: int) -> bool:
        """Whether ``kept``, with a summary as long as one can be, is within ``limit`` tokens."""
        kit = self._kit
        size = C.estimate_tokens(kit.context.system, kept, self._specs()) + C.SUMMARY_MAX_TOKENS
        return size <= limit

    async def _overflowed(self, turn: int, tally: TurnTally, refused: ProviderError) -> None:
        """The model refused the prompt as more than its window holds: learn the window it stated, and
        summarise the older messages so the request can be sent again.

        Raises:
            ProviderError: ``context_overflow``, saying what to do, when there was nothing to summarise.
        """
        self._kit.model.budget.learn(refused.window)
        self._kit.sink.emit(Notice("The prompt was more than the model's context window holds: the older "
                                   "messages are summarised and the request is sent again.", "warning"))
        if not await self._compress(turn, tally):
            raise ProviderError("context_overflow", f"{refused.message}. There is nothing older to summarise: "
                                                    f"{OVERFLOW_ADVICE}", status=refused.status)

    async def clear_asked(self) -> bool:
        """Ask the user, then forget the conversation (``/clear``, Ctrl+L); False when it was kept or empty."""
        from ljtui.core.approval import NO, YES, ApprovalRequest, Choice

        kit = self._kit
        if not self.history and not self.summary:
            kit.sink.emit(Notice(NOTHING_TO_CLEAR))
            return False
        request = ApprovalRequest(
            "clear", "Forget the conversation?",
            (f"{len(self.history)} message(s){' and the summary of older ones' if self.summary else ''} leave "
             "the model's context; the next message starts a new conversation.",
             "The session's token totals stay; files stay as they are."),
            (Choice(YES, "Forget it", "enter"), Choice(NO, "Keep it", "escape")), NO, "conversation")
        if (await kit.ask(request)).choice != YES:
            kit.sink.emit(Notice(KEPT))
            return False
        self.clear()
        return True

    def clear(self) -> None:
        """Forget the conversation (the session's token totals stay)."""
        self.history.clear()
        self.summary = ""
        self._log().cleared()
        self._kit.sink.emit(ConversationCleared())
