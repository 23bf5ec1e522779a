"""Reading the web for the agent: a page as text, and a SearXNG-style search.

Both go through :func:`~ljtui.core.agent.web_http.http_get` (one bounded,
checked GET whose every outcome is a value) and turn what came back into
what the tools show: HTML through :mod:`ljtui.core.agent.web_text`, other
text as is, binary refused; search replies validated field by field and
bounded in count and length, since they are untrusted input too.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Callable

from ljtui.core.agent.web_http import (
    ERROR,
    MAX_URL_CHARS,
    SNIFF_BYTES,
    UNAVAILABLE,
    Fetched,
    WebFailure,
    WebLimits,
    check_url,
    http_get,
    shown_url,
)
from ljtui.core.agent.web_text import Converted, clean_text, decode_text, html_to_text, is_html, is_text

__all__ = [
    "MAX_SEARCH_RESULTS", "MAX_URL_CHARS", "Fetched", "Page", "SearchHit", "SearchResults", "WebFailure",
    "WebLimits", "check_url", "fetch_page", "parse_search", "search",
]

ACCEPT_PAGE = "text/html, application/xhtml+xml, text/plain;q=0.9, text/*;q=0.8, */*;q=0.1"
ACCEPT_JSON = "application/json"
SEARCH_MAX_BODY_BYTES = 1024 * 1024
"""Bytes of a search endpoint's reply read at most."""
MAX_SEARCH_RESULTS = 10
"""Results a search returns at most."""
MAX_TITLE_CHARS = 200
MAX_SNIPPET_CHARS = 400
"""Longest snippet kept per result; longer ones end in an ellipsis."""


ToText = Callable[[bytes, "str | None", str], Converted]
"""Turns an HTML body (bytes, declared charset, page URL) into text; runs in a worker thread."""


@dataclass(frozen=True)
class Page:
    """A fetched page as text: what ``web_fetch`` shows."""

    fetched: Fetched
    text: str
    title: str | None
    plain_fallback: bool
    """The HTML was too deeply nested to format, so this is its plain text."""


@dataclass(frozen=True)
class SearchHit:
    """One search result, checked and bounded."""

    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class SearchResults:
    """What a search endpoint returned, after validation."""

    hits: tuple[SearchHit, ...]
    returned: int
    """How many results the endpoint sent (before the count bound and validation)."""
    skipped: int
    """Results left out because they were malformed (no http(s) URL, wrong types)."""


def page_type_check(url: str, media_type: str, head: bytes) -> WebFailure | None:
    """``web_fetch`` reads HTML and text; anything else is refused, naming its type."""
    if media_type and not is_text(media_type):
        return WebFailure(ERROR, f"{shown_url(url)} is {media_type}, not text; web_fetch reads only HTML and text")
    if not media_type and b"\0" in head:
        return WebFailure(ERROR, f"{shown_url(url)} has no content type and looks binary; web_fetch reads only "
                                 "HTML and text")
    return None


async def fetch_page(url: str, limits: WebLimits, *, to_text: ToText = html_to_text) -> Page | WebFailure:
    """GET ``url`` and turn it into text: HTML converted, other text as is, binary refused.

    ``limits.timeout`` bounds the whole call, conversion included. HTML is
    converted by ``to_text`` in a worker thread; a conversion still running
    at the deadline is abandoned (it ends on its own: the body is bounded).
    """
    deadline = asyncio.get_running_loop().time() + limits.timeout
    fetched = await http_get(url, limits, accept=ACCEPT_PAGE, type_check=page_type_check)
    if isinstance(fetched, WebFailure):
        return fetched
    if not is_html(fetched.media_type, fetched.body[:SNIFF_BYTES]):
        return Page(fetched, clean_text(decode_text(fetched.body, fetched.charset)), None, False)
    try:
        async with asyncio.timeout_at(deadline):
            converted = await asyncio.to_thread(to_text, fetched.body, fetched.charset, fetched.url)
    except TimeoutError:
        return WebFailure(UNAVAILABLE, f"{shown_url(fetched.url)} could not be turned into text within "
                                       f"{limits.timeout:g} s ({len(fetched.body):,} bytes of HTML)")
    return Page(fetched, converted.text, converted.title, converted.plain_fallback)


async def search(endpoint: str, query: str, limits: WebLimits, max_results: int) -> SearchResults | WebFailure:
    """Ask a SearXNG-style endpoint: ``GET {endpoint}?q=…&format=json``, validated and bounded."""
    import httpx2

    problem = check_url(endpoint)
    if problem is not None:
        return WebFailure(UNAVAILABLE, f"agent.web_search_url is not usable: {problem}")
    try:
        url = str(httpx2.URL(endpoint).copy_merge_params({"q": query, "format": "json"}))
    except (httpx2.InvalidURL, ValueError) as exc:
        return WebFailure(UNAVAILABLE, f"agent.web_search_url is not usable: {exc}")
    fetched = await http_get(url, limits, accept=ACCEPT_JSON, max_body_bytes=SEARCH_MAX_BODY_BYTES)
    if isinstance(fetched, WebFailure):
        return fetched
    if fetched.cut:
        return WebFailure(ERROR, f"the search endpoint's reply is larger than {SEARCH_MAX_BODY_BYTES:,} bytes")
    return parse_search(fetched.body, max_results)


def parse_search(body: bytes, max_results: int) -> SearchResults | WebFailure:
    """Validate a SearXNG JSON reply: ``{"results": [{"title", "url", "content"}, …]}``."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return WebFailure(ERROR, "the search endpoint's reply is not JSON (is format=json enabled on it?)")
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        return WebFailure(ERROR, "the search endpoint's reply has no \"results\" list; is it a SearXNG JSON API?")
    hits: list[SearchHit] = []
    skipped = 0
    for item in results:
        hit = _hit(item)
        if hit is None:
            skipped += 1
        elif len(hits) < max_results:
            hits.append(hit)
    return SearchResults(tuple(hits), len(results), skipped)


def _hit(item: Any) -> SearchHit | None:
    if not isinstance(item, dict):
        return None
    url, title, content = item.get("url"), item.get("title"), item.get("content")
    if not isinstance(url, str) or check_url(url) is not None:
        return None
    if not isinstance(title, (str, type(None))) or not isinstance(content, (str, type(None))):
        return None
    return SearchHit(_one_line(title or "(untitled)", MAX_TITLE_CHARS), url,
                     _one_line(content or "", MAX_SNIPPET_CHARS))


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(clean_text(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
