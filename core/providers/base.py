"""The one async chat interface every agent in core uses (PROV-1).

Messages are provider-neutral; each provider translates them to its wire
format. A call streams :data:`Delta` values: text as it arrives, whole tool
calls once their input is complete, token usage, and the stop reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Literal, Protocol, Union

from ljtui.core.events import Usage


@dataclass(frozen=True)
class TextBlock:
    """Plain text in a message."""

    text: str


@dataclass(frozen=True)
class ToolUseBlock:
    """The model's request to run a tool."""

    id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class ToolResultBlock:
    """The result of a tool call, sent back to the model."""

    tool_use_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class ImageBlock:
    """An image the user attached to a message (:mod:`ljtui.core.mentions_images`)."""

    media_type: str
    """``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp``."""
    data: str
    """The image's bytes, base64-encoded."""
    name: str = ""
    """The path it was attached from, for the transcript and the session log (never sent)."""


Block = Union[TextBlock, ToolUseBlock, ToolResultBlock, ImageBlock]


@dataclass(frozen=True)
class Message:
    """One turn of the conversation."""

    role: Literal["user", "assistant"]
    content: tuple[Block, ...]

    @classmethod
    def user(cls, text: str) -> Message:
        return cls("user", (TextBlock(text),))

    @property
    def text(self) -> str:
        """The message's text blocks joined."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: name, description and JSON schema."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ChatRequest:
    """Everything one model call needs."""

    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 8192
    system_tail: str = ""
    """System text that changes during a session (the conversation summary, later the gate status);
    it follows the cached prefix, so changing it never invalidates the cache of what comes before."""
    agent: str = "chat"
    """Which agent makes the call (``chat``, ``decompose``, ``replanner``, ``task <id>``): not sent to
    the model; the scripted provider replays each agent's own turns."""
    model: str | None = None
    """The model this call asks for instead of the configured one (``agent.router_model``); ``None``: the
    configured ``provider.model``."""


@dataclass(frozen=True)
class TextDelta:
    """A piece of streamed text."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """A complete tool call (its input fully streamed and parsed).

    Arguments too large or nested too deeply are never parsed: the input is then
    :class:`~ljtui.core.providers.arguments.RefusedArguments`, and the call is answered, not run.
    """

    id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UsageDelta:
    """Token usage of the call, reported once it is known."""

    usage: Usage


@dataclass(frozen=True)
class StreamEnd:
    """The model ended its reply; ``stop_reason`` says why."""

    stop_reason: str


Delta = Union[TextDelta, ToolCall, UsageDelta, StreamEnd]

ErrorKind = Literal[
    "config", "script", "auth", "rate_limit", "overloaded", "server",
    "connection", "timeout", "bad_stream", "bad_request", "invalid_request", "max_tokens", "context_overflow",
]
"""Why a call failed; ``invalid_request`` is a request the API's rules refuse, found before sending it
(the scripted provider's check); the API's own 400 is ``bad_request``; ``max_tokens``: the reply was cut off
at its token limit before it said anything; ``context_overflow``: the prompt is more than the model's context
window holds."""


class ProviderError(Exception):
    """A model call failed. ``message`` is safe to show (no secrets)."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        """Seconds the server asked us to wait before retrying, if it said."""
        self.usage: Usage | None = None
        """The tokens the server reported for the call before it failed, if it did."""
        self.window: int | None = None
        """The context window a ``context_overflow`` refusal stated, if it did."""


class ChatClient(Protocol):
    """An async, streaming chat model."""

    provider: str
    """Provider name as configured, e.g. ``anthropic``."""
    model: str
    """Model name, for the status bar and events."""

    def stream(self, request: ChatRequest) -> AsyncIterator[Delta]:
        """Send ``request`` and yield the reply as it streams.

        Raises:
            ProviderError: on any failure, with a message fit for the user.
        """

    async def aclose(self) -> None:
        """Release connections."""
