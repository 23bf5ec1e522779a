"""What a fetched body becomes for the model: HTML as Markdown-flavoured text, other text as is.

HTML is converted by ``html-to-markdown`` (MIT, a Rust core with Python
bindings, released often): headings, lists, tables, links and ``<pre>``
code blocks keep their shape, which a coding agent reading documentation
needs; scripts, styles, hidden elements and navigation are dropped; links
are made absolute against the page so the model can fetch them; inline
``data:`` images keep only their alt text. It converts 2 MB of dense HTML
in well under a second and releases the GIL while it works, so the call's
time bound covers conversion with room to spare (``bench/web_text.py``).
Its traversal stops at a depth limit instead of recursing without end; a
page nested deeper falls back to its plain text, extracted with the
standard library's HTML parser.

Every text that leaves here has its control characters removed (a page
could otherwise move the cursor or recolour a terminal).
"""

from __future__ import annotations

import codecs
import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_APPLICATION_TYPES = frozenset({
    "application/json", "application/xml", "application/javascript", "application/ecmascript",
    "application/x-javascript", "application/x-yaml", "application/yaml", "application/toml",
    "application/x-sh", "application/x-shellscript", "application/sql", "application/graphql",
    "application/x-ndjson", "application/csv", "application/x-python", "application/x-httpd-php",
    "application/x-tex", "application/x-latex", "application/markdown",
})
"""``application/`` types that are text; ``text/*`` and ``+json``/``+xml`` suffixes are text too."""
TEXT_SUFFIXES = ("+json", "+xml", "+yaml")
SILENT_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object"})
"""Elements whose text the plain-text fallback leaves out."""
BLOCK_TAGS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "section",
                        "article", "header", "footer", "table", "ul", "ol", "blockquote", "hr", "dd", "dt"})
"""Elements the plain-text fallback starts on a new line."""
HEAD_BYTES = 4096
"""Bytes searched for a ``<meta charset>`` and the ``<title>``."""
MAX_TITLE_CHARS = 200
MAX_BLANK_LINES = 2
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0/C1 controls (tab and newline kept) and bidirectional overrides."""
_BLANK_RUN = re.compile("\n{" + str(MAX_BLANK_LINES + 1) + ",}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_UNSAFE_LINK = re.compile(r"\[([^\]\n]*)\]\((?:javascript|vbscript|data):(?:[^()\n]|\([^()\n]*\))*\)",
                          re.IGNORECASE)
"""A Markdown link to a script or inline data; only its text is kept."""
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]{1,40})""", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)
_HTML_START = (b"<!doctype html", b"<html")
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


@dataclass(frozen=True)
class Converted:
    """An HTML page as text.

    Attributes:
        text: the page's text, Markdown-flavoured.
        title: the page's ``<title>``, if any.
        plain_fallback: the page could not be converted whole (nested too deeply,
            or the converter failed); ``text`` is its plain text.
    """

    text: str
    title: str | None
    plain_fallback: bool


def is_text(media_type: str) -> bool:
    """Whether a media type (lower case, no parameters) is text the model can read."""
    return (media_type.startswith("text/") or media_type in TEXT_APPLICATION_TYPES or media_type in HTML_TYPES
            or media_type.endswith(TEXT_SUFFIXES))


def is_html(media_type: str, head: bytes) -> bool:
    """Whether a body is HTML: by its type, or, untyped, by how it starts."""
    if media_type:
        return media_type in HTML_TYPES
    return head.lstrip()[:20].lower().startswith(_HTML_START)


def clean_text(text: str) -> str:
    """Line ends made ``\\n``; control characters and bidirectional overrides removed."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def decode_text(body: bytes, charset: str | None) -> str:
    """Bytes as text: a byte-order mark, else the declared charset, else UTF-8; bad bytes become U+FFFD."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return body.decode(name, errors="replace")
    if charset and _known_encoding(charset):
        try:
            return body.decode(charset, errors="replace")
        except (LookupError, ValueError):
            pass
    return body.decode("utf-8", errors="replace")


def html_to_text(body: bytes, charset: str | None, base_url: str) -> Converted:
    """Convert an HTML page to readable text (run it in a worker thread: it takes up to a second)."""
    if not charset:
        found = _META_CHARSET.search(body[:HEAD_BYTES])
        charset = found.group(1).decode("ascii") if found else None
    page = decode_text(body, charset)
    title = _title(page[:HEAD_BYTES])
    markdown = _markdown(page, base_url)
    if markdown is None:
        return Converted(_tidy(plain_text(page)), title, True)
    return Converted(_tidy(_UNSAFE_LINK.sub(r"\1", markdown)), title, False)


def _markdown(page: str, base_url: str) -> str | None:
    """The page as Markdown, or ``None`` when the converter fails or leaves deep content out."""
    from html_to_markdown import ConversionOptions, WarningKind, convert

    options = ConversionOptions(base_url=base_url, inline_data_media="alt_text_only", extract_metadata=False,
                                bullets="-", escape_asterisks=False, escape_underscores=False, escape_misc=False)
    try:
        result: Any = convert(page, options)
    except Exception:  # noqa: BLE001 - a converter failure is a fallback, never a failed fetch
        return None
    if any(w.kind == WarningKind.DEPTH_LIMIT_EXCEEDED for w in result.warnings):
        return None
    return str(result.content or "")


def plain_text(page: str) -> str:
    """The visible text of an HTML page, without layout; linear in the page's size at any depth."""
    parser = _TextParser()
    parser.feed(page)
    parser.close()
    return "".join(parser.parts)


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._silent: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SILENT_TAGS:
            self._silent[tag] = self._silent.get(tag, 0) + 1
        elif tag in BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self._silent.get(tag):
            self._silent[tag] -= 1
        elif tag in BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not any(self._silent.values()):
            self.parts.append(data)


def _known_encoding(name: str) -> bool:
    try:
        b"".decode(name)
    except (LookupError, ValueError):
        return False
    return True


def _title(head: str) -> str | None:
    found = _TITLE.search(head)
    if found is None:
        return None
    title = " ".join(clean_text(html.unescape(found.group(1))).split())
    return title[:MAX_TITLE_CHARS] or None


def _tidy(text: str) -> str:
    text = _TRAILING_SPACE.sub("\n", clean_text(text))
    return _BLANK_RUN.sub("\n" * MAX_BLANK_LINES, text).strip("\n")
