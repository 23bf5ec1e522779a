"""The engine's event classes, as frozen dataclasses.

Import them from :mod:`ljtui.core.events`, which loads this module the
first time one is asked for (the first frame needs none of them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ljtui.core.event_base import AGENT_CHAT, Event, Usage

__all__ = [
    "ApprovalDecided",
    "ApprovalRequested",
    "ConfigChanged",
    "ContextCompressed",
    "ContextWindowKnown",
    "ConversationCleared",
    "GateChanged",
    "HookFinished",
    "HookStarted",
    "ModelCallRetried",
    "ModelCallStarted",
    "Notice",
    "PermissionDecided",
    "PermissionRequested",
    "SandboxChecked",
    "SessionResumed",
    "SkillsChanged",
    "TokenDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolOutput",
    "TranscriptEntry",
    "TurnFailed",
    "TurnFinished",
    "TurnStarted",
    "UsageRecorded",
]


@dataclass(frozen=True)
class TurnStarted(Event):
    """The user's message was accepted and a model turn begins."""

    turn: int
    text: str


@dataclass(frozen=True)
class ModelCallStarted(Event):
    """A request went to the model; the UI shows a spinner until the reply."""

    turn: int
    provider: str
    model: str
    prompt_tokens: int = 0
    """The prompt's estimated size, which the model reads before it answers (0: not said)."""


@dataclass(frozen=True)
class ModelCallRetried(Event):
    """A model call failed and will be sent again after ``delay`` seconds.

    Either the request failed before streaming (429, 529, 5xx, connection) or
    an error arrived mid-reply. Text streamed since the last
    :class:`ModelCallStarted` belongs to the failed attempt: the UI discards
    it. A new ``ModelCallStarted`` follows.
    """

    turn: int
    attempt: int
    """Which retry this is, from 1."""
    max_retries: int
    error: str
    """The error kind, e.g. ``overloaded``."""
    message: str
    delay: float


@dataclass(frozen=True)
class TokenDelta(Event):
    """A piece of the model's streamed text."""

    turn: int
    text: str


@dataclass(frozen=True)
class ToolCallStarted(Event):
    """An agent asked for a tool; the engine is running it."""

    turn: int
    call_id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)
    agent: str = AGENT_CHAT
    """Which agent called it: ``chat``, ``planner`` or ``task <id>``."""


@dataclass(frozen=True)
class ToolCallFinished(Event):
    """A tool call ended; ``summary`` is the one-line result shown folded, ``output``
    what the model was given (cut at :data:`SHOWN_OUTPUT_CHARS`), shown unfolded."""

    turn: int
    call_id: str
    name: str
    ok: bool
    summary: str
    agent: str = AGENT_CHAT
    output: str = ""


@dataclass(frozen=True)
class ToolOutput(Event):
    """Output a running tool produced (a command's stdout/stderr as it streams)."""

    turn: int
    call_id: str
    text: str
    agent: str = AGENT_CHAT


@dataclass(frozen=True)
class PermissionRequested(Event):
    """A tool that writes or runs a command asks to go ahead (``subject``: the path or the command)."""

    turn: int
    call_id: str
    tool: str
    subject: str
    agent: str = AGENT_CHAT


@dataclass(frozen=True)
class PermissionDecided(Event):
    """The answer: ``decision`` is ``allow`` or ``deny``; ``scope`` is ``once``, ``session`` or ``policy``."""

    turn: int
    call_id: str
    tool: str
    decision: str
    scope: str
    agent: str = AGENT_CHAT


@dataclass(frozen=True)
class ContextCompressed(Event):
    """Older messages were summarised to keep the prompt under ``agent.compress_at_tokens``."""

    tokens_before: int
    tokens_after: int
    kept_messages: int


@dataclass(frozen=True)
class ContextWindowKnown(Event):
    """The model's context window, and where it was learned (configured, the server, a published limit, a
    refusal)."""

    tokens: int
    source: str


@dataclass(frozen=True)
class UsageRecorded(Event):
    """Token use of one model call, and the session's running total."""

    turn: int
    call: Usage
    session: Usage
    cost_usd: float | None = None
    session_cost_usd: float | None = None
    turn_usage: Usage = field(default_factory=Usage)
    """Sum over the model calls of this turn so far."""
    turn_cost_usd: float | None = None
    agent: str = ""
    """The agent that made the call (``chat``, ``task 3``, ``decompose``, a gate's verifier …)."""
    model: str = ""
    """The model the call asked for."""
    seconds: float = 0.0
    """How long the call took, retries included (a failed attempt's own time when it failed)."""


@dataclass(frozen=True)
class TurnFinished(Event):
    """The model ended its turn; ``text`` is the whole reply."""

    turn: int
    text: str
    stop_reason: str
    usage: Usage = field(default_factory=Usage)
    """Tokens of every model call in the turn."""
    cost_usd: float | None = None


@dataclass(frozen=True)
class TurnFailed(Event):
    """The turn could not finish. The conversation so far is kept.

    ``message`` is complete for the user: what failed, the status, that the
    conversation is intact and how to retry.
    """

    turn: int
    error: str
    message: str
    status: int | None = None
    """HTTP status of the failed model call, when there was one."""


@dataclass(frozen=True)
class HookStarted(Event):
    """A hook of the user's (or of a trusted repository's) started on one of the agent's events."""

    event: str
    name: str
    source: str
    subject: str = ""


@dataclass(frozen=True)
class HookFinished(Event):
    """A hook ended: ``outcome`` is ``ok``, ``blocked``, ``error`` or ``timed out``; ``reason`` why it blocked or
    what went wrong (text a program printed: shown as plain text)."""

    event: str
    name: str
    source: str
    outcome: str
    exit_code: int | None
    reason: str = ""
    duration: float = 0.0


@dataclass(frozen=True)
class Notice(Event):
    """Something the user should read that is neither model text nor error."""

    message: str
    level: str = "info"


@dataclass(frozen=True)
class ApprovalRequested(Event):
    """The engine asked a human to decide (``request``: apply, undo, export, trust …)."""

    request: str
    title: str
    subject: str = ""


@dataclass(frozen=True)
class ApprovalDecided(Event):
    """The human's answer: ``choice`` is one of the request's choice ids."""

    request: str
    choice: str
    subject: str = ""


@dataclass(frozen=True)
class SandboxChecked(Event):
    """The sandbox commands run in was found (``ljtui doctor`` tells the same).

    Attributes:
        backend: ``landlock``, ``bubblewrap`` or ``none``.
        confined: whether commands run in a sandbox at all (``False``: "unsandboxed").
        why: one sentence: why this backend.
        allows: what a command may do, e.g. ``writes: this repository, a private temp dir; network: off``.
        layer: ``layered`` (every change waits in the copy-on-write layer) or ``direct``.
        layer_why: one sentence: why.
    """

    backend: str
    confined: bool
    why: str
    allows: str
    layer: str = "direct"
    layer_why: str = ""


@dataclass(frozen=True)
class ConfigChanged(Event):
    """The configuration was read again (e.g. the repository was trusted); ``provider`` is its label."""

    provider: str


@dataclass(frozen=True)
class TranscriptEntry:
    """One line of a resumed conversation as it is shown again.

    Attributes:
        role: ``user``, ``assistant``, ``tool`` (a call the model made) or ``notice`` (one the session showed).
        text: What was said, the tool's name, or the notice.
        arguments: A tool call's arguments (empty for text).
        ok: How a tool call ended: ``True`` done, ``False`` failed, ``None`` not known (no result was saved).
        level: A notice's level: ``info``, ``warning`` or ``error``.
    """

    role: str
    text: str
    arguments: dict[str, Any] = field(default_factory=dict)
    ok: bool | None = None
    level: str = ""


@dataclass(frozen=True)
class SessionResumed(Event):
    """An earlier session continues: its history and token totals are back."""

    session_id: str
    messages: int
    usage: Usage = field(default_factory=Usage)
    transcript: tuple[TranscriptEntry, ...] = ()
    summary: str = ""
    """The summary of older messages compression replaced, when there is one."""


@dataclass(frozen=True)
class ConversationCleared(Event):
    """The conversation history was dropped (``/clear``)."""


@dataclass(frozen=True)
class GateChanged(Event):
    """The active gate changed (proposed, confirmed, started, checked, finished, discarded).

    ``gate`` is a :class:`~ljtui.core.gates.view.GateView`, or ``None`` when no gate is active.
    """

    gate: Any


@dataclass(frozen=True)
class SkillsChanged(Event):
    """Skill or playbook files changed on disk and were read again: ``names`` are the skills ``/NAME`` can start
    now (sorted)."""

    names: tuple[str, ...]
