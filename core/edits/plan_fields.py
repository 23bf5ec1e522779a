"""The value of a ``- file:`` or ``- entry:`` line: exactly one name, never a guess.

A value is either exactly one code span (```- file: `src/my file.py` ```)
or exactly one bare word (``- file: src/app.py``), with nothing after it
but whitespace. Anything else is a :class:`MalformedField` naming what to
write instead: text after a name cannot be told apart from the rest of a
name (```- file: `src/my` file.py```), and explanations have their place
in ``- where:`` and in the prose under the fences.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from ljtui.core.edits import errors as E

EXAMPLES = {"file": "path/to/file.py", "entry": "entry-name"}
"""The sample value each message shows."""

_PREFIX = re.compile(r"[ \t]*[a-z]+[ \t]*:[ \t]*", re.I)
_LINE_BREAKS = ("\r", "\n")


def field_value(tok: Token, key: str, raw: str, block: int) -> str | E.MalformedField:
    """The name a ``- file:`` or ``- entry:`` line gives, or why it gives none.

    Args:
        tok: The paragraph's inline token (its children hold the code spans).
        key: ``"file"`` or ``"entry"``.
        raw: The Markdown source after ``key:``, stripped.
        block: The EDIT block number, for the error.

    Returns:
        The value as written, or a :class:`MalformedField` saying what to write.
    """
    write = f"write - {key}: `{EXAMPLES.get(key, 'name')}`"
    if not raw:
        return _malformed(block, key, f"has no value; {write}")
    if any(brk in raw for brk in _LINE_BREAKS):
        return _malformed(block, key, f"value {raw!r} runs onto the next line; {write} on one line")
    if raw.startswith("`"):
        return _code_span(tok, key, raw, block, write)
    if "`" in raw:
        return _malformed(block, key, f"value {raw!r} is not one code span; {write}, with nothing after it")
    if len(raw.split()) > 1:
        return _malformed(block, key, f"value {raw!r} is more than one word; if it is one name, write it alone "
                                      f"in backticks (- {key}: `{raw}`); if text follows the name, remove it "
                                      "(notes belong in `- where:` or the prose)")
    return raw


def _code_span(tok: Token, key: str, raw: str, block: int, write: str) -> str | E.MalformedField:
    if not raw.strip("`"):
        return _malformed(block, key, f"names nothing: {raw} is an empty code span; {write}")
    children = [c for c in tok.children or [] if not (c.type == "text" and not c.content.strip())]
    spans = [c for c in children if c.type == "code_inline"]
    if len(spans) > 1:
        names = " and ".join(repr(c.content) for c in spans)
        return _malformed(block, key, f"gives {len(spans)} names ({names}); a block has one {key}: {write}")
    prefix_only = bool(children) and children[0].type == "text" and _PREFIX.fullmatch(children[0].content)
    if len(spans) != 1 or not prefix_only or len(children) != 2:
        return _malformed(block, key, f"value {raw!r} is not exactly one code span; {write}, with nothing after it "
                                      "(notes belong in `- where:` or the prose)")
    value = spans[0].content
    if not value.strip():
        return _malformed(block, key, f"names nothing: its code span is empty; {write}")
    if value != value.strip():
        return _malformed(block, key, f"value {value!r} begins or ends with a space; write the name without it")
    return value


def _malformed(block: int, key: str, what: str) -> E.MalformedField:
    return E.MalformedField(block, f"`- {key}:` {what}")
