"""Big pastes in the prompt: shown folded as one label, sent whole.

A paste of more than :data:`FOLD_LINES` lines or :data:`FOLD_CHARS`
characters is held here and the prompt shows a label such as
``[pasted 62 lines]`` in its place. Sending expands every label still in
the text; a label the user deleted takes its paste with it.
"""

from __future__ import annotations

import re

FOLD_LINES = 10
"""A paste of more lines than this is folded."""
FOLD_CHARS = 1000
"""A paste of more characters than this is folded."""


def normalized(text: str) -> str:
    """``text`` with its line breaks as ``\\n`` (terminals paste ``\\r\\n`` or ``\\r``)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def line_count(text: str) -> int:
    """The lines of ``text`` as the user sees them: a line break that ends the text starts no new line
    (40 lines copied from an editor or a terminal end with one)."""
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def is_big(text: str) -> bool:
    """Whether a paste of ``text`` is folded."""
    return line_count(text) > FOLD_LINES or len(text) > FOLD_CHARS


def describe(text: str) -> str:
    """The label's words for ``text``: its lines, or its characters when it is one line."""
    lines = line_count(text)
    return f"pasted {lines:,} lines" if lines > 1 else f"pasted {len(text):,} characters"


class Pastes:
    """The folded pastes of one draft, by label."""

    def __init__(self, texts: dict[str, str] | None = None) -> None:
        self.texts: dict[str, str] = dict(texts or {})

    def fold(self, text: str) -> str:
        """Hold ``text`` and return the label that stands for it (unique within the draft)."""
        words = describe(text)
        label, n = f"[{words}]", 1
        while label in self.texts:
            n += 1
            label = f"[{words} #{n}]"
        self.texts[label] = text
        return label

    def expand(self, shown: str) -> str:
        """``shown`` with every label in it replaced by its paste (one pass: a paste is never re-read)."""
        if not self.texts:
            return shown
        pattern = "|".join(re.escape(label) for label in sorted(self.texts, key=len, reverse=True))
        return re.sub(pattern, lambda m: self.texts[m.group()], shown)

    def label_ending(self, before: str) -> str | None:
        """The label ``before`` ends with, if any (Backspace there deletes the whole label)."""
        return next((label for label in self.texts if before.endswith(label)), None)

    def label_starting(self, after: str) -> str | None:
        """The label ``after`` starts with, if any (Delete there deletes the whole label)."""
        return next((label for label in self.texts if after.startswith(label)), None)
