"""A loopback web server for the web tool tests: pages, redirects, bombs, trickles and a fake SearXNG.

Every request is recorded (path and headers). Routes are fixed; a few take
parameters from the path (``/redirect/N``). Endless replies stop when the
client hangs up or the server closes.
"""

from __future__ import annotations

import functools
import json
import socket
import threading
import time
import zlib
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from ljtui.core.config import Config
from ljtui.core.tools import ToolContext, ToolServices

HOST = "127.0.0.1"
TRICKLE_EVERY = 0.05
"""Seconds between the bytes of a trickling body."""
ENDLESS_LIMIT = 60.0
"""Longest an endless reply runs (it ends sooner when the client or the server goes)."""
HUGE_CHUNK = b"x" * 65_536
HTML_CHUNK = b"<tr><td>a</td><td>b</td><td>c</td></tr>\n" * 1000
"""Table rows: among the slowest HTML to convert per byte."""
BOMB_BYTES = 64 * 1024 * 1024
"""What the gzip bomb inflates to (32 times the body bound); about 64 KB on the wire."""
MIB = 1024 * 1024
LONG_TEXT_CHARS = 50_000
GZIP_WBITS = 31
"""zlib window bits for a gzip header."""

HTML_PAGE = """<!doctype html><html><head><title>Widget  Guide</title>
<script>window.secret = "SCRIPT-TEXT";</script><style>.x { color: red }</style></head>
<body><h1>Widget guide</h1>
<p>Install with <code>pip install widget</code>. See <a href="/docs/api.html">the API</a>
or <a href="javascript:steal()">this</a>.</p>
<div hidden><p>HIDDEN-INSTRUCTIONS</p></div>
<pre><code>def spin(widget):
    return widget.turn(2)
</code></pre>
<ul><li>first</li><li>second</li></ul>
<img src="data:image/png;base64,AAAA" alt="a diagram">
</body></html>"""


@dataclass(frozen=True)
class Seen:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.path).query)


class WebServer:
    """A threaded HTTP server on 127.0.0.1 with the routes below; a context manager."""

    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.search_reply: bytes = json.dumps({"results": []}).encode()
        self.search_type = "application/json"
        self.stop = threading.Event()
        self._lock = threading.Lock()
        self._httpd = _Server((HOST, 0), _handler(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                        daemon=True)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._httpd.server_address[1]}"

    def paths(self) -> list[str]:
        with self._lock:
            return [s.path for s in self.seen]

    def record(self, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.seen.append(Seen(path, headers))

    def __enter__(self) -> WebServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-reply is expected here."""


Route = Callable[[BaseHTTPRequestHandler, WebServer], None]


def _send(h: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str | None,
          extra: dict[str, str] | None = None) -> None:
    h.send_response(status)
    if content_type is not None:
        h.send_header("Content-Type", content_type)
    for name, value in (extra or {}).items():
        h.send_header(name, value)
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def _endless(h: BaseHTTPRequestHandler, server: WebServer, content_type: str, chunk: bytes, pause: float) -> None:
    """Send ``chunk`` again and again (chunked encoding) until the client or the server stops."""
    h.send_response(200)
    h.send_header("Content-Type", content_type)
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()
    try:
        _chunks(h, server, chunk, pause)
    except OSError:
        return


def _huge_html(h: BaseHTTPRequestHandler, server: WebServer) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/html")
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()
    try:
        h.wfile.write(b"7\r\n<table>\r\n")
        _chunks(h, server, HTML_CHUNK)
    except OSError:
        return


def _chunks(h: BaseHTTPRequestHandler, server: WebServer, chunk: bytes, pause: float = 0.0) -> None:
    deadline = time.monotonic() + ENDLESS_LIMIT
    while not server.stop.is_set() and time.monotonic() < deadline:
        h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        h.wfile.flush()
        if pause:
            server.stop.wait(pause)


def _stall(h: BaseHTTPRequestHandler, server: WebServer) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/plain")
    h.send_header("Content-Length", "100")
    h.end_headers()
    h.wfile.write(b"partial")
    h.wfile.flush()
    server.stop.wait(ENDLESS_LIMIT)


@functools.cache
def gzip_bomb() -> bytes:
    """``BOMB_BYTES`` of zeros, gzip-compressed (one member)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, GZIP_WBITS)
    zeros = b"\0" * MIB
    return b"".join(packer.compress(zeros) for _ in range(BOMB_BYTES // MIB)) + packer.flush()


def _gzip_bomb(h: BaseHTTPRequestHandler, server: WebServer) -> None:
    _send(h, 200, gzip_bomb(), "text/plain", {"Content-Encoding": "gzip"})


def _redirect(to: str, status: int = 302, extra: dict[str, str] | None = None) -> Route:
    return lambda h, s: _send(h, status, b"", "text/plain", {"Location": to, **(extra or {})})


def _chain(h: BaseHTTPRequestHandler, server: WebServer) -> None:
    hops = int(h.path.rsplit("/", 1)[1])
    _send(h, 302, b"", None, {"Location": f"/redirect/{hops - 1}" if hops > 0 else "/text"})


def _echo(h: BaseHTTPRequestHandler, server: WebServer) -> None:
    _send(h, 200, json.dumps({k.lower(): v for k, v in h.headers.items()}).encode(), "application/json")


def _search(h: BaseHTTPRequestHandler, server: WebServer) -> None:
    _send(h, 200, server.search_reply, server.search_type)


ROUTES: dict[str, Route] = {
    "/html": lambda h, s: _send(h, 200, HTML_PAGE.encode(), "text/html; charset=utf-8"),
    "/html-untyped": lambda h, s: _send(h, 200, HTML_PAGE.encode(), None),
    "/text": lambda h, s: _send(h, 200, b"plain text\n\x1b[2Jstill here\n", "text/plain"),
    "/latin1": lambda h, s: _send(h, 200, "café crème".encode("latin-1"), "text/plain; charset=ISO-8859-1"),
    "/json": lambda h, s: _send(h, 200, b'{"a": [1, 2]}', "application/json"),
    "/long": lambda h, s: _send(h, 200, b"".join(b"%09d\n" % i for i in range(LONG_TEXT_CHARS // 10)),
                                "text/plain"),
    "/deep": lambda h, s: _send(h, 200, b"<div>" * 5000 + b"deep text" + b"</div>" * 5000, "text/html"),
    "/huge": lambda h, s: _endless(h, s, "text/plain", HUGE_CHUNK, 0.0),
    "/huge-html": _huge_html,
    "/slow": lambda h, s: _endless(h, s, "text/plain", b"x", TRICKLE_EVERY),
    "/stall": _stall,
    "/gzip-bomb": _gzip_bomb,
    "/brotli": lambda h, s: _send(h, 200, b"\x0b\x02\x80hello\x03", "text/plain", {"Content-Encoding": "br"}),
    "/missing": lambda h, s: _send(h, 404, b"<h1>Not here</h1>", "text/html"),
    "/broken": lambda h, s: _send(h, 500, b"oops", "text/plain"),
    "/image": lambda h, s: _send(h, 200, b"\x89PNG\r\n\x1a\n" + b"\0" * 2000, "image/png"),
    "/untyped-binary": lambda h, s: _send(h, 200, b"\x7fELF" + b"\0" * 2000, None),
    "/to-file": _redirect("file:///etc/passwd"),
    "/to-credentials": lambda h, s: _send(h, 302, b"", None, {"Location": f"http://user:pw@{h.headers['Host']}/text"}),
    "/loop": _redirect("/loop"),
    "/set-cookie": _redirect("/echo", extra={"Set-Cookie": "session=COOKIE-VALUE; Path=/"}),
    "/echo": _echo,
    "/search": _search,
}


def _handler(server: WebServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_GET(self) -> None:
            server.record(self.path, {k.lower(): v for k, v in self.headers.items()})
            path = urlsplit(self.path).path
            route = ROUTES.get(path) or (_chain if path.startswith("/redirect/") else None)
            if route is None:
                _send(self, 404, b"no route", "text/plain")
            else:
                route(self, server)

    return Handler


@pytest.fixture
def web() -> Iterator[WebServer]:
    """A running loopback web server."""
    with WebServer() as server:
        yield server


@pytest.fixture
def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def tool_context(root: Path, config: Config | None = None, services: ToolServices | None = None) -> ToolContext:
    """A context for one tool call from the chat agent."""
    return ToolContext(root=root, turn=1, call_id="call-1", agent="chat", emit=lambda event: None,
                       config=config or Config(), services=services or ToolServices())
