"""web_search: no endpoint, a fake SearXNG (valid, malformed, oversized), an unreachable one; every bound."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ljtui.core.agent.tools import web as web_tools
from ljtui.core.agent.web import MAX_SEARCH_RESULTS, MAX_SNIPPET_CHARS, MAX_TITLE_CHARS, SEARCH_MAX_BODY_BYTES
from ljtui.core.config import Config
from ljtui.core.tools import ToolRegistry, ToolResult
from tests.core.agent.web_fakes import WebServer, closed_port, tool_context, web  # noqa: F401

NO_ENDPOINT = "unavailable: no search endpoint is configured (agent.web_search_url in your config)"


def result(n: int, **fields: object) -> dict[str, object]:
    return {"title": f"Result {n}", "url": f"https://example.org/{n}", "content": f"snippet {n}", **fields}


async def search(root: Path, endpoint: str | None, **args: object) -> ToolResult:
    cfg = Config()
    cfg.agent.web_search_url = endpoint
    cfg.agent.web_timeout = 5.0
    return await ToolRegistry(list(web_tools.TOOLS)).call("web_search", args, tool_context(root, cfg))


@pytest.mark.parametrize("endpoint", [None, "", "   "])
async def test_no_endpoint_is_exactly_unavailable(tmp_path: Path, endpoint: str | None) -> None:
    found = await search(tmp_path, endpoint, query="widgets")
    assert not found.ok and found.content == NO_ENDPOINT


async def test_results_from_a_searxng_endpoint(web: WebServer, tmp_path: Path) -> None:
    web.search_reply = json.dumps({"query": "widgets", "results": [result(1), result(2), result(3)]}).encode()
    found = await search(tmp_path, f"{web.url}/search", query="  widget   spinning ")
    assert found.ok, found.content
    assert found.content.splitlines()[2:] == [
        "1. Result 1", "   https://example.org/1", "   snippet 1",
        "2. Result 2", "   https://example.org/2", "   snippet 2",
        "3. Result 3", "   https://example.org/3", "   snippet 3",
    ]
    assert "(3 shown, 3 returned)" in found.content and "not instructions" in found.content
    [request] = web.seen
    assert request.path.startswith("/search?")
    assert request.query == {"q": ["widget spinning"], "format": ["json"]}
    assert request.headers["accept"] == "application/json"


async def test_an_endpoint_with_its_own_query_keeps_it(web: WebServer, tmp_path: Path) -> None:
    await search(tmp_path, f"{web.url}/search?language=en", query="a&b=c")
    assert web.seen[0].query == {"language": ["en"], "q": ["a&b=c"], "format": ["json"]}


async def test_results_are_bounded_in_count_and_length(web: WebServer, tmp_path: Path) -> None:
    many = [result(n, title="T" * 1000, content="word " * 2000) for n in range(50)]
    web.search_reply = json.dumps({"results": many}).encode()
    found = await search(tmp_path, f"{web.url}/search", query="q")
    assert found.content.count("https://example.org/") == web_tools.DEFAULT_RESULTS
    most = await search(tmp_path, f"{web.url}/search", query="q", max_results=MAX_SEARCH_RESULTS)
    assert most.content.count("https://example.org/") == MAX_SEARCH_RESULTS
    assert f"({MAX_SEARCH_RESULTS} shown, 50 returned)" in most.content
    lines = most.content.splitlines()
    titles = [line for line in lines if line[:1].isdigit()]
    snippets = [line for line in lines if line.startswith("   word")]
    assert titles and all(len(t.split(". ", 1)[1]) == MAX_TITLE_CHARS and t.endswith("…") for t in titles)
    assert snippets and all(len(s.strip()) == MAX_SNIPPET_CHARS and s.endswith("…") for s in snippets)
    too_many = await search(tmp_path, f"{web.url}/search", query="q", max_results=MAX_SEARCH_RESULTS + 1)
    assert not too_many.ok and "max_results" in too_many.content


async def test_malformed_results_are_left_out(web: WebServer, tmp_path: Path) -> None:
    web.search_reply = json.dumps({"results": [
        "not an object", {"title": "no url"}, result(1, url="javascript:alert(1)"), result(2, url="file:///etc"),
        result(3, title=["not", "text"]), result(4, content={"x": 1}), result(5, url=5),
        result(6, title=None, content=None), result(7, title="Evil\x1b[31m title", content="a\nb\tc\x07"),
    ]}).encode()
    found = await search(tmp_path, f"{web.url}/search", query="q")
    assert found.ok, found.content
    assert "https://example.org/6" in found.content and "(untitled)" in found.content
    assert "7. " not in found.content and "2. Evil[31m title\n   https://example.org/7\n   a b c\n" in found.content
    assert "[7 malformed result(s) left out]" in found.content
    for refused in ("javascript:", "file:", "no url", "\x1b", "\x07"):
        assert refused not in found.content


async def test_no_results(web: WebServer, tmp_path: Path) -> None:
    web.search_reply = b'{"results": []}'
    found = await search(tmp_path, f"{web.url}/search", query="nothing")
    assert found.ok and found.content == "No results for 'nothing'.\n"


OVERSIZED = json.dumps({"results": [result(n, content="y" * 1000) for n in range(2000)]}).encode()


@pytest.mark.parametrize(("reply", "said"), [
    pytest.param(b"<html>not json</html>", "not JSON", id="html"),
    pytest.param(b'{"results": "none"}', 'no "results" list', id="results-not-a-list"),
    pytest.param(b"[1, 2, 3]", 'no "results" list', id="not-an-object"),
    pytest.param(b"[" * 100_000 + b"]" * 100_000, "not JSON", id="nested-too-deep"),
    pytest.param(OVERSIZED, f"larger than {SEARCH_MAX_BODY_BYTES:,} bytes", id="oversized"),
])
async def test_malformed_replies_are_errors(web: WebServer, tmp_path: Path, reply: bytes, said: str) -> None:
    web.search_reply = reply
    found = await search(tmp_path, f"{web.url}/search", query="q")
    assert not found.ok and found.content.startswith("error: ") and said in found.content


async def test_an_unreachable_endpoint_is_unavailable(closed_port: int, tmp_path: Path) -> None:
    found = await search(tmp_path, f"http://127.0.0.1:{closed_port}/search", query="q")
    assert not found.ok and found.content == f"unavailable: connection refused by 127.0.0.1:{closed_port}"


async def test_an_endpoint_that_fails_is_an_error(web: WebServer, tmp_path: Path) -> None:
    found = await search(tmp_path, f"{web.url}/broken", query="q")
    assert not found.ok and found.content.startswith("error: HTTP 500 Internal Server Error from ")


@pytest.mark.parametrize("endpoint", ["ftp://search.example/", "http://user:pw@127.0.0.1:9/search", "search"])
async def test_an_unusable_endpoint_is_unavailable_and_says_why(tmp_path: Path, endpoint: str) -> None:
    found = await search(tmp_path, endpoint, query="q")
    assert not found.ok and found.content.startswith("unavailable: agent.web_search_url is not usable: ")


@pytest.mark.parametrize("args", [{}, {"query": ""}, {"query": 3}, {"query": "x" * 501}])
async def test_bad_queries_are_tool_errors(web: WebServer, tmp_path: Path, args: dict[str, object]) -> None:
    found = await search(tmp_path, f"{web.url}/search", **args)
    assert not found.ok and found.content.startswith("error: ")
    assert web.seen == []
