"""The mail envelope of ``git format-patch`` output: commit separators and subjects."""

from __future__ import annotations

import re
from email.errors import HeaderParseError
from email.header import decode_header, make_header

from ljtui.core.edits.read_unified_hunks import Line

FROM_LINE = re.compile(r"From [0-9a-f]{40} ")
"""The separator ``git format-patch`` writes before each commit (``From <sha> Mon Sep 17 00:00:00 2001``)."""
_PATCH_TAG = re.compile(r"\s*\[[^\]]*PATCH[^\]]*\]\s*", re.I)
_FOLD = re.compile(r"\r?\n(?=[ \t])")


def read_mail_headers(lines: list[Line], start: int) -> tuple[str | None, int]:
    """Read the mail headers after the ``From <sha>`` line at ``start``.

    Folded header lines are joined, RFC 2047 encoded words decoded, and the
    ``[PATCH n/m]`` tag taken off the subject.

    Returns:
        ``(subject, next)``: the subject (``None`` without one) and the index
        of the first line of the body (after the blank line that ends the headers).
    """
    i = start + 1
    headers: list[str] = []
    while i < len(lines) and lines[i].head != "":
        head = lines[i].head
        if head[:1] in (" ", "\t") and headers:
            headers[-1] += "\n" + head
        else:
            headers.append(head)
        i += 1
    subject = next((h[len("subject:"):] for h in headers if h.lower().startswith("subject:")), None)
    return (None if subject is None else _subject(subject)), min(i + 1, len(lines))


def _subject(raw: str) -> str:
    text = _FOLD.sub("", raw).strip()
    if "=?" in text:
        try:
            text = str(make_header(decode_header(text)))
        except (HeaderParseError, LookupError, UnicodeError, ValueError):
            pass
    return _PATCH_TAG.sub("", text, count=1) if _PATCH_TAG.match(text) else text
