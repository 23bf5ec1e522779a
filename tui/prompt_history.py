"""The messages sent from the prompt this session, walked with Up and Down."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Draft:
    """What the prompt holds: the text shown and the folded pastes its labels stand for."""

    text: str
    pastes: dict[str, str] = field(default_factory=dict)


class PromptHistory:
    """Sent drafts, oldest first, and where the walk through them stands."""

    def __init__(self) -> None:
        self.entries: list[Draft] = []
        self._index: int | None = None
        """The entry shown, or ``None`` while the user's own draft is."""
        self._draft = Draft("")

    @property
    def walking(self) -> bool:
        return self._index is not None

    def record(self, draft: Draft) -> None:
        """Remember a sent draft (the same one sent twice in a row is kept once); the walk starts again."""
        if not self.entries or self.entries[-1] != draft:
            self.entries.append(draft)
        self._index = None

    def back(self, current: Draft) -> Draft | None:
        """The entry before the one shown (the newest first), or ``None`` at the oldest."""
        if not self.entries or self._index == 0:
            return None
        if self._index is None:
            self._draft = current
            self._index = len(self.entries)
        self._index -= 1
        return self.entries[self._index]

    def forward(self) -> Draft | None:
        """The entry after the one shown; past the newest, the draft being typed; ``None`` if not walking."""
        if self._index is None:
            return None
        self._index += 1
        if self._index == len(self.entries):
            self._index = None
            return self._draft
        return self.entries[self._index]

    def stop(self) -> None:
        """The shown entry was edited: it is the draft now."""
        self._index = None
