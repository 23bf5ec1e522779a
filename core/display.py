"""Text from outside, made safe to show: nothing in it can move the cursor, set the clipboard, or hide (SAFE-4).

A model's reply, a tool's output, a command, a path, a repository file or
a server's words may carry terminal control: an escape sequence that
erases the line it is on (so ``$ pytest -q`` is shown while ``echo
HIDDEN-RAN > f`` runs), moves the cursor over the real text, sets the
window title or writes the clipboard (OSC 52), or a bidirectional override
that shows ``exe.txt`` for ``txt.exe``. Rich and Textual drop only a few of
these. :func:`shown` turns such text into text that shows exactly what it
holds:

* every control character but the line feed and the tab — C0, DEL, C1, so
  ESC, BEL and a lone carriage return too — becomes a visible escape
  (``\\x1b``, ``\\x07``, ``\\r``, ``\\x9b``); an escape sequence is then
  plain characters after its visible ``\\x1b`` and can do nothing;
* bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069)
  become visible (``\\u202e``): they reorder what follows them;
* with ``exact`` (commands, paths, file names: text a decision rests on),
  zero-width and invisible characters (zero-width spaces and joiners, bidi
  marks, the word joiner, the BOM, soft hyphen …) become visible too, and
  a line break in a one-line value becomes ``\\n``.

A carriage return followed by a line feed is a line break. Nothing is
dropped: the text shown is the text received, made visible. Markup is a
separate matter: the UI shows this text with markup off (``tui/plain.py``).
"""

from __future__ import annotations

import re

ESCAPED_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters shown as escapes: C0 but tab and line feed, DEL, C1."""
BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""Bidirectional embeddings, overrides and isolates: they reorder what follows."""
INVISIBLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028\u2029\u2060-\u2064"
                       "\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
"""Characters that take no visible space (or look like nothing): shown as escapes in exact text."""
NAMED = {"\r": "\\r", "\x1b": "\\x1b", "\t": "\\t", "\n": "\\n"}


def shown(text: str, *, exact: bool = False, one_line: bool = False) -> str:
    """``text`` with every control character (and, for ``exact``, every invisible one) made visible.

    Args:
        text: untrusted text.
        exact: a command, a path or a name: invisible characters are shown too.
        one_line: the value is one line (a path, a title): line breaks and tabs are shown as ``\\n``, ``\\t``.
    """
    if not text:
        return text
    text = text.replace("\r\n", "\n")
    text = ESCAPED_CONTROLS.sub(_escape, text)
    text = BIDI_CONTROLS.sub(_escape, text)
    if exact:
        text = INVISIBLE.sub(_escape, text)
    if one_line:
        text = text.replace("\n", "\\n").replace("\t", "\\t")
    return text


def shown_line(text: str) -> str:
    """A one-line value a decision rests on (a path, a file name, a title): :func:`shown` exact and on one line."""
    return shown(text, exact=True, one_line=True)


def is_clean(text: str) -> bool:
    """Whether ``text`` holds nothing :func:`shown` would change (no control, bidi or invisible character)."""
    return not (ESCAPED_CONTROLS.search(text) or BIDI_CONTROLS.search(text) or INVISIBLE.search(text))


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in NAMED:
        return NAMED[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
