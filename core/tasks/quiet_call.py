"""One announced, quiet model call without tools: the router, the decomposition and the replanner.

The call is announced like every chat call (``model_call_started`` before
each attempt, so the UI shows it is waiting) but its text is not streamed
into the Conversation: it is read as JSON, not shown. It goes through the
session's :class:`~ljtui.core.agent.model_calls.ModelCalls` (its client,
its stream, its ledger) with the provider's retries, and comes back as a
:class:`~ljtui.core.tasks.own_answer.Reply` carrying its stop reason and the
prompt it answered, so the caller reads only the model's own, finished answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ljtui.core.providers.base import ChatRequest
from ljtui.core.tasks.own_answer import Reply, prompt_texts

if TYPE_CHECKING:
    from ljtui.core.agent.kit import AgentKit


async def ask(kit: AgentKit, turn: int, request: ChatRequest) -> Reply:
    """Send ``request`` (no tools) for session turn ``turn``; its redacted reply and how it stopped.

    Each attempt is announced with ``model_call_started`` (the model named is
    the request's own, e.g. ``agent.router_model``, else the client's) and
    each retry with ``model_call_retried``. Tokens are recorded when the call
    used any, a failed call's too (a scripted default answer uses none). A
    reply cut off at its ``max_tokens`` comes back as it is, ``stop`` saying so.

    Raises:
        ProviderError: The call failed after its retries.
        ValueError: No client can be built from the configuration.
    """
    text, stop = await kit.model.reply(turn, request, announce=True)
    return Reply(text, stop, prompt_texts(request), request.max_tokens)
