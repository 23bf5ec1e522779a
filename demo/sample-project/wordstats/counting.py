"""Counting the lines and words of plain text."""

from __future__ import annotations

from collections import Counter


def count_words(text: str) -> int:
    """How many words ``text`` holds."""
    return len(text.split(" "))


def count_lines(text: str) -> int:
    """How many lines ``text`` holds; a last line without a line break counts."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def top_words(text: str, n: int = 3) -> list[tuple[str, int]]:
    """The ``n`` most common words, lower-cased, with how often each occurs."""
    return Counter(text.lower().split()).most_common(n)
