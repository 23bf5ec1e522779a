"""Spotting a reply that imitates the harness's own sections (PLN-7, EDIT-12).

A model that writes ``## Tool result`` has invented a tool's output, and
one that writes ``## Harness note`` or ``# Instructions (repeated)`` is
impersonating the harness. Such a reply is rejected whole. Only prose
counts: text inside code fences and indented code blocks is data (an EDIT
block's ``old`` and ``new`` may hold any Markdown), so the reply is parsed
with markdown-it to find them. A fence left open at the end is not trusted
to hide anything. Each remaining line is normalised with NFKC (fullwidth
``＃`` and letters become ASCII) with invisible format characters removed,
then checked for the title of one of
:data:`~ljtui.core.planner.headings.HARNESS_HEADINGS` written as an ATX heading (``## Tool result``), a setext heading (the title
underlined with ``===`` or ``---``) or a bold label (``**Tool result**``),
also inside block quotes and list items.
"""

from __future__ import annotations

import re
import unicodedata

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MD = MarkdownIt("commonmark")
_CODE_TOKENS = ("fence", "code_block")
_GAP = r"[ \t]*"
_TITLES = (
    rf"tool{_GAP}results?",
    rf"your{_GAP}reply{_GAP}\({_GAP}turn{_GAP}\d*{_GAP}\)",
    rf"harness{_GAP}notes?",
    rf"plan{_GAP}checks?",
    rf"instructions{_GAP}\({_GAP}repeated{_GAP}\)",
)
"""The titles of :data:`~ljtui.core.planner.headings.HARNESS_HEADINGS`, spaced and numbered any way."""
_TITLE = "(?:" + "|".join(_TITLES) + r")(?!\w)"
_LEAD = r"^[ \t]*(?:(?:>|[-*+]|\d{1,9}[.)])[ \t]*)*"
"""Block-quote and list markers a heading may sit behind."""
_ATX = re.compile(_LEAD + r"#{1,6}[ \t]*" + _TITLE, re.IGNORECASE)
_BOLD = re.compile(_LEAD + r"(?:\*\*|__)[ \t]*" + _TITLE + r"[ \t]*:?[ \t]*(?:\*\*|__)", re.IGNORECASE)
_SETEXT_TITLE = re.compile(_LEAD + _TITLE + r"[ \t]*:?[ \t]*$", re.IGNORECASE)
_SETEXT_RULE = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:=+|-+)[ \t]*$")


def is_fabricated(text: str) -> bool:
    """Whether ``text`` imitates a harness section outside code (see the module docstring)."""
    raw_lines = text.splitlines()
    code = _code_lines(_MD.parse(text), raw_lines)
    lines = [_normalise(line) if n not in code else "" for n, line in enumerate(raw_lines)]
    for n, line in enumerate(lines):
        if _ATX.match(line) or _BOLD.match(line):
            return True
        if _SETEXT_TITLE.match(line) and n + 1 < len(lines) and _SETEXT_RULE.match(lines[n + 1]):
            return True
    return False


def _normalise(line: str) -> str:
    folded = unicodedata.normalize("NFKC", line)
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def _code_lines(tokens: list[Token], lines: list[str]) -> set[int]:
    """Line numbers inside closed fences and indented code blocks."""
    code: set[int] = set()
    for token in tokens:
        if token.type not in _CODE_TOKENS or token.map is None:
            continue
        start, end = token.map
        if token.type == "fence" and not _closes(token, lines[end - 1] if end - 1 < len(lines) else ""):
            continue
        code.update(range(start, end))
    return code


def _closes(token: Token, last_line: str) -> bool:
    """Whether the fence's last line is its closing fence (an unclosed fence runs to the end)."""
    marker = token.markup[0]
    stripped = last_line.strip().lstrip("> \t")
    return len(stripped) >= len(token.markup) and set(stripped) == {marker} and token.map is not None \
        and token.map[1] - token.map[0] >= 2
