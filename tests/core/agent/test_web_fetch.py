"""web_fetch against a real loopback server: conversion, types, redirects, every bound, clean failures."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from ljtui.core.agent.tools import web as web_tools
from ljtui.core.agent.web import WebFailure, WebLimits, fetch_page
from ljtui.core.agent.web_http import MAX_BODY_BYTES, MAX_REDIRECTS, MAX_URL_CHARS
from ljtui.core.agent.web_text import Converted, html_to_text
from ljtui.core.config import Config
from ljtui.core.tools import ToolRegistry, ToolResult
from tests.core.agent.web_fakes import LONG_TEXT_CHARS, WebServer, closed_port, tool_context, web  # noqa: F401

SHORT_TIMEOUT = 1.5
"""``agent.web_timeout`` for the tests that wait on a silent or trickling server."""
TIME_BOUND_SLACK = 20.0
"""How much later than its time-out a call may end on a loaded CI box; it must end."""


def config(timeout: float = 20.0) -> Config:
    cfg = Config()
    cfg.agent.web_timeout = timeout
    return cfg


async def fetch(root: Path, timeout: float = 20.0, **args: object) -> ToolResult:
    registry = ToolRegistry(list(web_tools.TOOLS))
    return await registry.call("web_fetch", args, tool_context(root, config(timeout)))


async def test_html_becomes_readable_text_with_absolute_links(web: WebServer, tmp_path: Path) -> None:
    result = await fetch(tmp_path, url=f"{web.url}/html")
    assert result.ok, result.content
    text = result.content
    assert f"URL: {web.url}/html" in text
    assert "Title: Widget Guide" in text
    assert "Content-Type: text/html" in text
    assert "# Widget guide" in text
    assert "```\ndef spin(widget):\n    return widget.turn(2)\n```" in text
    assert f"[the API]({web.url}/docs/api.html)" in text
    assert "- first\n- second" in text
    assert "\na diagram\n" in text
    for hidden in ("SCRIPT-TEXT", "color: red", "HIDDEN-INSTRUCTIONS", "javascript:", "base64"):
        assert hidden not in text
    assert "not instructions" in text


async def test_untyped_html_is_recognised(web: WebServer, tmp_path: Path) -> None:
    result = await fetch(tmp_path, url=f"{web.url}/html-untyped")
    assert result.ok and "# Widget guide" in result.content and "SCRIPT-TEXT" not in result.content


async def test_plain_text_and_json_are_returned_as_is_without_control_characters(
        web: WebServer, tmp_path: Path) -> None:
    text = await fetch(tmp_path, url=f"{web.url}/text")
    assert text.ok and "plain text\n[2Jstill here" in text.content and "\x1b" not in text.content
    data = await fetch(tmp_path, url=f"{web.url}/json")
    assert data.ok and '{"a": [1, 2]}' in data.content


async def test_declared_charset_is_used(web: WebServer, tmp_path: Path) -> None:
    result = await fetch(tmp_path, url=f"{web.url}/latin1")
    assert result.ok and "café crème" in result.content


async def test_deeply_nested_html_falls_back_to_plain_text(web: WebServer, tmp_path: Path) -> None:
    result = await fetch(tmp_path, url=f"{web.url}/deep")
    assert result.ok and "deep text" in result.content and "nested too deeply" in result.content


async def test_a_redirect_chain_is_followed_and_named(web: WebServer, tmp_path: Path) -> None:
    result = await fetch(tmp_path, url=f"{web.url}/redirect/3")
    assert result.ok, result.content
    assert f"URL: {web.url}/text" in result.content
    assert f"(redirected from {web.url}/redirect/3)" in result.content
    assert web.paths() == ["/redirect/3", "/redirect/2", "/redirect/1", "/redirect/0", "/text"]


async def test_redirects_are_bounded(web: WebServer, tmp_path: Path) -> None:
    result = await fetch(tmp_path, url=f"{web.url}/loop")
    assert not result.ok
    assert result.content.startswith(f"error: more than {MAX_REDIRECTS} redirects")
    assert len(web.paths()) == MAX_REDIRECTS + 1


@pytest.mark.parametrize(("route", "refused"), [("/to-file", "file: URLs are refused"),
                                                 ("/to-credentials", "credentials")])
async def test_each_redirect_hop_is_checked_again(web: WebServer, tmp_path: Path, route: str, refused: str) -> None:
    result = await fetch(tmp_path, url=f"{web.url}{route}")
    assert not result.ok and result.content.startswith("error: ") and refused in result.content
    assert web.paths() == [route]


@pytest.mark.parametrize(("url", "refused"), [
    ("file:///etc/passwd", "file: URLs are refused"),
    ("ftp://example.org/x", "ftp: URLs are refused"),
    ("data:text/plain,hello", "data: URLs are refused"),
    ("javascript:alert(1)", "javascript: URLs are refused"),
    ("example.org/page", "without a scheme"),
    ("http://user:secret@127.0.0.1:9/x", "credentials"),
    ("http://:@127.0.0.1:9/x", "credentials"),
    ("http:///path-only", "no host"),
    ("http://127.0.0.1:99999/", "Port out of range"),
    ("http://127.0.0.1:0/", "port 0 is out of range"),
    ("http://exa mple.org/", "spaces or control characters"),
])
async def test_only_plain_http_urls_are_fetched(tmp_path: Path, url: str, refused: str) -> None:
    result = await fetch(tmp_path, url=url)
    assert not result.ok and result.content.startswith("error: ") and refused in result.content


async def test_the_body_read_is_bounded_and_the_cut_is_said(web: WebServer, tmp_path: Path) -> None:
    started = time.monotonic()
    result = await fetch(tmp_path, url=f"{web.url}/huge", max_chars=100)
    assert result.ok, result.content
    assert "only that much was read" in result.content and f"{MAX_BODY_BYTES:,} bytes" in result.content
    assert f"of {MAX_BODY_BYTES:,}" in result.content
    assert time.monotonic() - started < TIME_BOUND_SLACK


async def test_the_body_bound_is_exact() -> None:
    with WebServer() as server:
        page = await fetch_page(f"{server.url}/huge", WebLimits(max_body_bytes=1000))
    assert not isinstance(page, WebFailure)
    assert len(page.fetched.body) == 1000 and page.fetched.cut and len(page.text) == 1000


async def test_the_whole_call_bound_covers_converting_the_page(web: WebServer) -> None:
    release = threading.Event()

    def stuck_converter(body: bytes, charset: str | None, url: str) -> Converted:
        release.wait(TIME_BOUND_SLACK)
        return html_to_text(body, charset, url)

    started = time.monotonic()
    try:
        page = await fetch_page(f"{web.url}/html", WebLimits(timeout=SHORT_TIMEOUT), to_text=stuck_converter)
    finally:
        release.set()
    assert isinstance(page, WebFailure) and page.kind == "unavailable"
    assert f"/html could not be turned into text within {SHORT_TIMEOUT:g} s (" in page.message
    assert time.monotonic() - started < SHORT_TIMEOUT + TIME_BOUND_SLACK


async def test_a_page_at_the_body_bound_converts_within_the_default_limits(web: WebServer) -> None:
    page = await fetch_page(f"{web.url}/huge-html", WebLimits())
    assert not isinstance(page, WebFailure), page.text
    assert len(page.fetched.body) == MAX_BODY_BYTES and page.fetched.cut and "| a | b | c |" in page.text


async def test_a_compressed_bomb_stops_at_the_bound(web: WebServer) -> None:
    page = await fetch_page(f"{web.url}/gzip-bomb", WebLimits(max_body_bytes=4096))
    assert not isinstance(page, WebFailure)
    assert page.fetched.body == b"\0" * 4096 and page.fetched.cut
    assert web.seen[0].headers.get("accept-encoding") == "identity"


async def test_an_unsupported_content_encoding_is_an_error(web: WebServer, tmp_path: Path) -> None:
    result = await fetch(tmp_path, url=f"{web.url}/brotli")
    assert not result.ok and result.content.startswith("error: ") and "'br'" in result.content


async def test_a_trickling_body_ends_at_the_whole_call_bound(web: WebServer, tmp_path: Path) -> None:
    started = time.monotonic()
    result = await fetch(tmp_path, SHORT_TIMEOUT, url=f"{web.url}/slow")
    elapsed = time.monotonic() - started
    assert not result.ok
    assert result.content == f"unavailable: 127.0.0.1:{web.url.rsplit(':', 1)[1]} did not answer completely " \
                             f"within {SHORT_TIMEOUT:g} s"
    assert SHORT_TIMEOUT * 0.9 <= elapsed < SHORT_TIMEOUT + TIME_BOUND_SLACK


async def test_a_server_that_stops_sending_ends_at_the_read_bound(web: WebServer, tmp_path: Path) -> None:
    started = time.monotonic()
    result = await fetch(tmp_path, SHORT_TIMEOUT, url=f"{web.url}/stall")
    assert not result.ok and result.content.startswith("unavailable: ") and "did not answer" in result.content
    assert time.monotonic() - started < SHORT_TIMEOUT + TIME_BOUND_SLACK


@pytest.mark.parametrize(("route", "expected"), [("/missing", "error: HTTP 404 Not Found from "),
                                                 ("/broken", "error: HTTP 500 Internal Server Error from ")])
async def test_http_errors_are_clean_results(web: WebServer, tmp_path: Path, route: str, expected: str) -> None:
    result = await fetch(tmp_path, url=f"{web.url}{route}")
    assert not result.ok and result.content == f"{expected}{web.url}{route}"


@pytest.mark.parametrize(("route", "named"), [
    ("/image", "/image is image/png, not text"),
    ("/untyped-binary", "/untyped-binary has no content type and looks binary"),
])
async def test_binary_content_is_refused_with_its_type(web: WebServer, tmp_path: Path, route: str,
                                                       named: str) -> None:
    result = await fetch(tmp_path, url=f"{web.url}{route}")
    assert not result.ok and result.content.startswith("error: ") and named in result.content


async def test_a_port_nobody_listens_on_is_unavailable(closed_port: int, tmp_path: Path) -> None:
    result = await fetch(tmp_path, url=f"http://127.0.0.1:{closed_port}/")
    assert not result.ok
    assert result.content == f"unavailable: connection refused by 127.0.0.1:{closed_port}"


async def test_a_host_that_does_not_resolve_is_unavailable(tmp_path: Path) -> None:
    result = await fetch(tmp_path, SHORT_TIMEOUT, url="http://no-such-host.invalid/")
    assert not result.ok and result.content.startswith("unavailable: ")
    assert "no-such-host.invalid" in result.content


async def test_a_tls_failure_is_unavailable(web: WebServer, tmp_path: Path) -> None:
    result = await fetch(tmp_path, url=web.url.replace("http://", "https://") + "/text")
    assert not result.ok and result.content.startswith("unavailable: TLS error talking to 127.0.0.1:")


async def test_long_pages_are_read_in_windows(web: WebServer, tmp_path: Path) -> None:
    first = await fetch(tmp_path, url=f"{web.url}/long")
    assert first.ok
    assert f"[showing characters 0–20,000 of {LONG_TEXT_CHARS:,}; 30,000 more: call web_fetch with " \
           f"start_char=20000 to read on]" in first.content
    assert "000001999\n" in first.content and "000002000" not in first.content
    rest = await fetch(tmp_path, url=f"{web.url}/long", start_char=20_000, max_chars=100_000)
    assert rest.ok and "000002000\n" in rest.content and "000004999" in rest.content
    assert f"[showing characters 20,000–{LONG_TEXT_CHARS:,} of {LONG_TEXT_CHARS:,}]" in rest.content
    past = await fetch(tmp_path, url=f"{web.url}/long", start_char=LONG_TEXT_CHARS)
    assert not past.ok and "past the end" in past.content


@pytest.mark.parametrize("args", [{"url": 5}, {"url": ""}, {"url": "http://x/", "max_chars": 0},
                                  {"url": "http://x/", "max_chars": 100_001}, {"url": "http://x/", "start_char": -1},
                                  {"url": "http://x/", "max_chars": "ten"}, {"url": "http://x/" + "a" * MAX_URL_CHARS}])
async def test_bad_arguments_are_tool_errors(tmp_path: Path, args: dict[str, object]) -> None:
    result = await fetch(tmp_path, **args)
    assert not result.ok and result.content.startswith("error: argument")
