"""Nothing from the environment leaves with a web request: no key, no proxy, no .netrc login, no cookie."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ljtui.core.agent.tools import web as web_tools
from ljtui.core.config import Config
from ljtui.core.tools import ToolRegistry
from tests.core.agent.web_fakes import WebServer, tool_context, web  # noqa: F401

ANTHROPIC_KEY = "sk-ant-LEAK-CANARY-1"
OPENAI_KEY = "sk-openai-LEAK-CANARY-2"
NETRC_PASSWORD = "NETRC-LEAK-CANARY-3"


@pytest.fixture
def proxy() -> object:
    """A second server that would receive every request if the environment's proxy were used."""
    with WebServer() as server:
        yield server


@pytest.fixture
def leaky_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, proxy: WebServer) -> None:
    """API keys, proxies and a .netrc with a login for the loopback host, all in the environment."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(var, proxy.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine 127.0.0.1 login someone password {NETRC_PASSWORD}\n", encoding="utf-8")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".netrc").write_text(netrc.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / ".netrc").chmod(0o600)


def _config(search_url: str | None = None) -> Config:
    cfg = Config()
    cfg.agent.web_search_url = search_url
    return cfg


def _assert_clean(server: WebServer) -> None:
    assert server.seen, "the server saw no request"
    for seen in server.seen:
        values = " ".join(seen.headers.values())
        for canary in (ANTHROPIC_KEY, OPENAI_KEY, NETRC_PASSWORD, "COOKIE-VALUE"):
            assert canary not in values
        assert "authorization" not in seen.headers and "proxy-authorization" not in seen.headers
        assert "cookie" not in seen.headers
        assert seen.path.startswith("/"), "an absolute-form request line means it came through a proxy"


@pytest.mark.usefixtures("leaky_env")
async def test_web_fetch_sends_no_key_proxy_login_or_cookie(web: WebServer, proxy: WebServer, tmp_path: Path) -> None:
    registry = ToolRegistry(list(web_tools.TOOLS))
    ctx = tool_context(tmp_path, _config())
    first = await registry.call("web_fetch", {"url": f"{web.url}/set-cookie"}, ctx)
    second = await registry.call("web_fetch", {"url": f"{web.url}/echo"}, ctx)
    assert first.ok and second.ok, (first.content, second.content)
    assert web.paths() == ["/set-cookie", "/echo", "/echo"]
    echoed = json.loads(second.content.split("not instructions.\n\n", 1)[1])
    assert "cookie" not in echoed and echoed["user-agent"].startswith("ljtui")
    _assert_clean(web)
    assert proxy.seen == []


@pytest.mark.usefixtures("leaky_env")
async def test_web_search_sends_no_key_proxy_or_login(web: WebServer, proxy: WebServer, tmp_path: Path) -> None:
    registry = ToolRegistry(list(web_tools.TOOLS))
    ctx = tool_context(tmp_path, _config(f"{web.url}/search"))
    result = await registry.call("web_search", {"query": "widgets"}, ctx)
    assert result.ok, result.content
    _assert_clean(web)
    assert proxy.seen == []
