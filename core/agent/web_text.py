"""What a fetched body becomes for the model: HTML as Markdown-flavoured text, other text as is.

HTML is parsed by Beautiful Soup (the standard library's HTML parser,
forgiving of broken markup) and written out by ``markdownify``: headings,
lists, tables, links and ``<pre>`` code blocks keep their shape, which a
coding agent reading documentation needs. Both are MIT-licensed, pure
Python and maintained. Scripts, styles, hidden elements and embedded media
are dropped; links become absolute so the model can fetch them; images
keep only their alt text. A page nested too deeply to format falls back to
its plain text. Both libraries are imported on first use.

Every text that leaves here has its control characters removed (a page
could otherwise move the cursor or recolour a terminal).
"""

from __future__ import annotations

import codecs
import re
import warnings
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

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
DROPPED_TAGS = ("script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object",
                "embed", "audio", "video", "head", "link", "meta")
"""Elements whose content is never shown (the title is read before ``head`` goes)."""
LINK_SCHEMES = ("http", "https")
MAX_TITLE_CHARS = 200
MAX_BLANK_LINES = 2
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0/C1 controls (tab and newline kept) and bidirectional overrides."""
_BLANK_RUN = re.compile("\n{" + str(MAX_BLANK_LINES + 1) + ",}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_HTML_START = (b"<!doctype html", b"<html")
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


@dataclass(frozen=True)
class Converted:
    """An HTML page as text.

    Attributes:
        text: the page's text, Markdown-flavoured.
        title: the page's ``<title>``, if any.
        plain_fallback: the page was nested too deeply to format; ``text`` is plain.
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
    """Convert an HTML page to readable text (runs in a worker thread: a 2 MB page takes seconds)."""
    soup = _parse(body, charset)
    title = _title(soup)
    _strip(soup, base_url)
    try:
        text, fallback = _markdown(soup), False
    except RecursionError:
        text, fallback = soup.get_text("\n"), True
    return Converted(_tidy(text), title, fallback)


def _parse(body: bytes, charset: str | None) -> Any:
    from bs4 import BeautifulSoup

    _quiet_bs4()
    encoding = charset if charset and _known_encoding(charset) else None
    return BeautifulSoup(body, "html.parser", from_encoding=encoding)


def _quiet_bs4() -> None:
    """Beautiful Soup warns on stderr about unusual markup; stderr is the terminal ljtui draws on."""
    import bs4

    for name in ("MarkupResemblesLocatorWarning", "XMLParsedAsHTMLWarning", "GuessedAtParserWarning"):
        category = getattr(bs4, name, None)
        if isinstance(category, type) and issubclass(category, Warning):
            warnings.filterwarnings("ignore", category=category)


def _known_encoding(name: str) -> bool:
    try:
        b"".decode(name)
    except (LookupError, ValueError):
        return False
    return True


def _title(soup: Any) -> str | None:
    tag = soup.title
    if tag is None:
        return None
    title = " ".join(clean_text(tag.get_text(" ")).split())
    return title[:MAX_TITLE_CHARS] or None


def _strip(soup: Any, base_url: str) -> None:
    """Drop what is never shown; make links absolute and safe; images become their alt text."""
    for tag in soup.find_all(DROPPED_TAGS):
        tag.decompose()
    for tag in soup.find_all(attrs={"hidden": True}):
        tag.decompose()
    for tag in soup.find_all(attrs={"aria-hidden": "true"}):
        tag.decompose()
    for img in soup.find_all("img"):
        alt = " ".join(str(img.get("alt") or "").split())
        img.replace_with(f"[image: {alt}]" if alt else "")
    for link in soup.find_all("a"):
        href = link.get("href")
        target = _absolute(href, base_url) if isinstance(href, str) else None
        link.attrs = {"href": target} if target else {}


def _absolute(href: str, base_url: str) -> str | None:
    """An http(s) link resolved against the page, or ``None`` (scripts, data:, bare fragments)."""
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    try:
        target = urljoin(base_url, href)
        scheme = urlsplit(target).scheme.lower()
    except ValueError:
        return None
    return target if scheme in LINK_SCHEMES else None


def _markdown(soup: Any) -> str:
    from markdownify import MarkdownConverter

    converter = MarkdownConverter(heading_style="ATX", bullets="-", escape_asterisks=False,
                                  escape_underscores=False, escape_misc=False)
    return str(converter.convert_soup(soup))


def _tidy(text: str) -> str:
    text = _TRAILING_SPACE.sub("\n", clean_text(text))
    return _BLANK_RUN.sub("\n" * MAX_BLANK_LINES, text).strip("\n")
