"""What a rewind reports: the messages it can go back to, and what it did."""

from __future__ import annotations

from dataclasses import dataclass

from ljtui.core.event_base import Event

CODE, CONVERSATION, BOTH = "code", "conversation", "both"
MODES = (CODE, CONVERSATION, BOTH)
"""What a rewind restores: the files, the conversation, or both."""


@dataclass(frozen=True)
class RewindPoint:
    """A user message of the session the code or the conversation can go back to.

    Attributes:
        number: Its place among the user messages of the conversation, from 1 (oldest).
        index: Where it is in the history (cutting the history there forgets it and what followed).
        text: What the user typed (plain text, never markup).
        files: The files the applies since it wrote (``None``: the session did not record which came after).
        marked: The journal groups kept when it was sent (``None``: not recorded).
    """

    number: int
    index: int
    text: str
    files: tuple[str, ...] | None
    marked: tuple[str, ...] | None


@dataclass(frozen=True)
class RewindListed(Event):
    """The messages the session can be rewound to, oldest first (``/rewind``, Esc Esc)."""

    points: tuple[RewindPoint, ...]


@dataclass(frozen=True)
class RewindFinished(Event):
    """A rewind ended: what it restored, or ``error`` and nothing changed.

    Attributes:
        number: The message rewound to.
        mode: ``code``, ``conversation`` or ``both``.
        files: Files written back (``removed`` among them were deleted: the applies had created them).
        conversation: The history was cut back to before the message.
        prompt: The message's text, to put back in the input box (``""`` when the conversation was kept).
        error: Why nothing was changed, or ``None``.
        remaining: Applies still kept that ``/undo`` can revert (``None``: no file was restored).
    """

    number: int
    mode: str
    files: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    conversation: bool = False
    prompt: str = ""
    error: str | None = None
    remaining: int | None = None

    def lines(self) -> list[tuple[str, str]]:
        """What the user reads, each line with its level."""
        if self.error is not None:
            return [(f"Rewind refused — {self.error}", "error")]
        said = []
        if self.files:
            restored = [f for f in self.files if f not in self.removed]
            words = [f"restored {', '.join(restored)}"] if restored else []
            words += [f"deleted {', '.join(self.removed)} (created since)"] if self.removed else []
            said.append("; ".join(words))
        elif self.mode != CONVERSATION:
            said.append("no file needed restoring")
        if self.conversation:
            said.append(f"the conversation is back to before message {self.number} (the model no longer sees "
                        "what followed; the message is back in the input box)")
        return [(f"Rewound to message {self.number}: {'; '.join(said)}.", "info")]
