"""Words of a bash command line: quote removal and brace expansion, as bash does them.

A :class:`Word` keeps what bash needs to expand it: its *pattern*, the word
with every quoted character escaped by a backslash (bash's own internal
form), so that ``'{a,b}'`` and ``{a,b}`` stay different, and one
placeholder character for each part that only the running shell can know
(a variable, a command substitution …), described by an :class:`Expansion`.
From that pattern come the word's literal value after quote removal (when
it has no expansion), whether it has unquoted glob characters, and its brace
expansion (:func:`expand_braces`): ``{a,b}c`` is ``ac bc``, ``{1..3}`` is
``1 2 3``, ``x{a,{b,c}}`` is ``xa xb xc``; ``{}``, ``{x}`` and a quoted
``'{a,b}'`` stay as they are.
"""

from __future__ import annotations

import re

PARAMETER, COMMAND, PROCESS, ARITHMETIC, OTHER = "parameter", "command", "process", "arithmetic", "other"
"""Kinds of :class:`Expansion`: ``$x``, ``$(…)`` or backquotes, ``<(…)``, ``$((…))``, and the rest."""
PLACEHOLDER_FIRST = 0xE000
PLACEHOLDER_LAST = 0xF8FF
"""Unicode private-use code points that stand for an expansion in a pattern (a literal one is escaped)."""
MAX_WORDS = 1024
"""Most words one brace expansion may yield before it counts as unreadable."""
GLOB_CHARACTERS = frozenset("*?[")
BRACE_CHARACTERS = frozenset("{}")
PLACEHOLDERS = re.compile("[\ue000-\uf8ff]")
ESCAPE_OR_PLACEHOLDER = re.compile("\\\\(.)|\\\\$|[\ue000-\uf8ff]", re.S)
NUMBER_SEQUENCE = re.compile(r"^([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?$")
LETTER_SEQUENCE = re.compile(r"^([A-Za-z])\.\.([A-Za-z])(?:\.\.([-+]?\d+))?$")


class BraceLimitExceeded(ValueError):
    """A brace expansion yields more than :data:`MAX_WORDS` words."""


def quote_pattern(text: str) -> str:
    """``text`` as quoted characters of a pattern: every character escaped."""
    return "\\" + "\\".join(text) if text else ""


def unquoted_pattern(text: str) -> str:
    """Unquoted source text as a pattern: backslash escapes kept, line continuations dropped."""
    if "\\\n" in text:
        text = text.replace("\\\n", "")
    return PLACEHOLDERS.sub(_escaped, text) if PLACEHOLDERS.search(text) else text


def _escaped(match: re.Match[str]) -> str:
    return "\\" + match.group(0)


def placeholder(index: int) -> str:
    """The pattern character that stands for expansion number ``index``."""
    if PLACEHOLDER_FIRST + index > PLACEHOLDER_LAST:
        raise BraceLimitExceeded("too many expansions in one word")
    return chr(PLACEHOLDER_FIRST + index)


def unescape(pattern: str, expansions: tuple[str, ...] | None = None) -> str:
    """The text a pattern stands for: escapes removed, placeholders replaced by ``expansions``."""
    def replaced(match: re.Match[str]) -> str:
        text = match.group(0)
        if text[0] == "\\":
            return match.group(1) or "\\"
        return expansions[ord(text) - PLACEHOLDER_FIRST] if expansions is not None else text

    return ESCAPE_OR_PLACEHOLDER.sub(replaced, pattern)


def unquoted(pattern: str) -> set[str]:
    """The characters of ``pattern`` that are not escaped."""
    found: set[str] = set()
    escaped = False
    for char in pattern:
        if not escaped and char != "\\":
            found.add(char)
        escaped = not escaped and char == "\\"
    return found


def expand_braces(pattern: str, limit: int = MAX_WORDS) -> list[str]:
    """Bash brace expansion of a pattern (quoted characters are escaped and never expand).

    A brace group expands when it holds an unquoted comma at its own level
    (``{a,b}``, ``{,x}``, nested ``{a,{b,c}}``) or is a sequence expression
    (``{1..5}``, ``{01..10..3}``, ``{a..e}``); otherwise its ``{`` is an
    ordinary character (``{}``, ``{x}``, ``{a{b,c}}`` is ``{ab} {ac}``).

    Raises:
        BraceLimitExceeded: the expansion yields more than ``limit`` words.
    """
    words = _expand(pattern, limit)
    if len(words) > limit:
        raise BraceLimitExceeded(f"brace expansion yields more than {limit} words")
    return words


def _expand(pattern: str, limit: int) -> list[str]:
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            group = _group(pattern, i)
            if group is not None:
                end, alternatives = group
                prefix = pattern[:i]
                suffixes = _expand(pattern[end + 1:], limit)
                words: list[str] = []
                for alternative in alternatives:
                    for middle in _expand(alternative, limit):
                        for suffix in suffixes:
                            words.append(prefix + middle + suffix)
                            if len(words) > limit:
                                raise BraceLimitExceeded(f"brace expansion yields more than {limit} words")
                return words
        i += 1
    return [pattern]


def _group(pattern: str, start: int) -> tuple[int, list[str]] | None:
    """``(index of the closing brace, alternatives)`` when the ``{`` at ``start`` opens a brace expression."""
    depth = 0
    commas: list[int] = []
    i = start
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                inner = pattern[start + 1:i]
                if commas:
                    cuts = [start, *commas, i]
                    return i, [pattern[a + 1:b] for a, b in zip(cuts, cuts[1:])]
                sequence = _sequence(inner)
                return None if sequence is None else (i, sequence)
        elif char == "," and depth == 1:
            commas.append(i)
        i += 1
    return None


def _sequence(inner: str) -> list[str] | None:
    """The words of a sequence expression (``1..5``, ``a..e..2``), or ``None`` when it is not one."""
    numbers = NUMBER_SEQUENCE.match(inner)
    letters = LETTER_SEQUENCE.match(inner)
    match = numbers or letters
    if match is None:
        return None
    step = max(abs(int(match.group(3) or 1)), 1)
    if numbers:
        first, last = int(match.group(1)), int(match.group(2))
        padded = any(re.match(r"^[-+]?0\d", g) for g in match.group(1, 2))
        width = max(len(match.group(1)), len(match.group(2))) if padded else 0
        values = _stepped(first, last, step)
        return [f"{n:0{width}d}" for n in values]
    values = _stepped(ord(match.group(1)), ord(match.group(2)), step)
    return [chr(n) if chr(n).isalnum() else "\\" + chr(n) for n in values]


def _stepped(first: int, last: int, step: int) -> range:
    if (abs(last - first) // step) + 1 > MAX_WORDS:
        raise BraceLimitExceeded(f"sequence yields more than {MAX_WORDS} words")
    return range(first, last + 1, step) if first <= last else range(first, last - 1, -step)


def is_placeholder(char: str) -> bool:
    return PLACEHOLDER_FIRST <= ord(char) <= PLACEHOLDER_LAST
