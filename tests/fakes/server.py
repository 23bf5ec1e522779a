"""A scriptable loopback HTTP server that streams Server-Sent Events.

The fakes of the model APIs build on it: each request is recorded, then
answered by the next scripted :class:`Reply` (or by ``responder``). Replies
can stream SSE in HTTP/1.1 chunks, fail with a status, cut the connection
mid-stream, never answer, stall after the headers or any event, or trickle
a keep-alive forever, so the real SDKs meet real wire faults.

Every request to ``/v1/messages`` (Anthropic) or ``…/chat/completions``
(OpenAI-compatible) is first checked by
:mod:`ljtui.core.providers.request_rules`: one the real API would refuse is
answered 400 ``invalid_request_error`` naming the problems, as the real API
answers it, and recorded in :attr:`FakeSSEServer.violations`. Leaving the
server (or closing it) then fails the test with those violations, unless it
was made with ``check_requests=False`` (a test that sends invalid requests on
purpose).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import urlsplit

HOST = "127.0.0.1"
HANG_LIMIT = 30.0
"""Longest a hanging reply holds its connection (it ends at server stop)."""

POLL_INTERVAL = 0.01
"""Seconds between the server loop's shutdown checks (keeps teardown fast)."""

KEEPALIVE = b"\n"
"""What a trickling reply sends by default: one byte, a blank SSE line that carries no event."""


class _QuietServer(ThreadingHTTPServer):
    """Drops the traceback of a client that hung up; the test sees the effect."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The body parsed as JSON (``None`` when empty)."""
        return json.loads(self.body) if self.body else None


@dataclass(frozen=True)
class SSE:
    """One server-sent event; ``data`` is JSON-encoded unless already text."""

    data: Any
    event: str | None = None

    def encode(self) -> bytes:
        text = self.data if isinstance(self.data, str) else json.dumps(self.data)
        head = f"event: {self.event}\n" if self.event else ""
        return f"{head}data: {text}\n\n".encode()


@dataclass(frozen=True)
class Reply:
    """How the server answers one request.

    Attributes:
        status: HTTP status code.
        events: SSE events streamed as the body (when ``body`` is None).
        body: a JSON body sent whole instead of events.
        headers: extra response headers (``retry-after`` …).
        cut_after: close the connection abruptly after this many events.
        stall_after: stop sending (but keep the connection) after this many events.
        hang: never send a response at all.
        chunk_delay: seconds between events.
        trickle_every: after the events (or at ``stall_after``), send ``trickle``
            this often until the client hangs up, never ending the reply.
        trickle: the bytes sent each time (an encoded SSE event, or one byte).
        raw: the body as pieces of bytes sent verbatim, one HTTP chunk each, with ``content_type``
            (a recorded real server's answer, :mod:`tests.fakes.recorded`).
    """

    status: int = 200
    events: tuple[SSE, ...] = ()
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None
    stall_after: int | None = None
    hang: bool = False
    chunk_delay: float = 0.0
    trickle_every: float | None = None
    trickle: bytes = KEEPALIVE
    raw: tuple[bytes, ...] = ()
    content_type: str = "text/event-stream"
    raw_delays: tuple[float, ...] = ()
    """Seconds to wait before each piece of ``raw`` (a recording's own pace, scaled)."""


Responder = Callable[[RecordedRequest], Reply]


@dataclass(frozen=True)
class Violation:
    """A request the real API would refuse: which one, and why."""

    number: int
    """1-based position of the request among those the server received."""
    path: str
    problems: tuple[str, ...]

    def __str__(self) -> str:
        listed = "".join(f"\n    - {p}" for p in self.problems)
        return f"request {self.number} to {self.path}:{listed}"


def request_problems(request: RecordedRequest) -> tuple[str, list[str]] | None:
    """``(api, problems)`` for a request to a model API's endpoint, else None (another path)."""
    from ljtui.core.providers.openai_rules import openai_problems
    from ljtui.core.providers.request_rules import anthropic_problems

    path = urlsplit(request.path).path.rstrip("/")
    if request.method != "POST":
        return None
    checker = {"/v1/messages": ("anthropic", anthropic_problems)}.get(path)
    if checker is None and path.endswith("/chat/completions"):
        checker = ("openai", openai_problems)
    if checker is None:
        return None
    api, check = checker
    try:
        body = request.json
    except ValueError:
        return api, ["the request body is not valid JSON"]
    return api, check(body)


def is_model_call(request: RecordedRequest) -> bool:
    """Whether ``request`` goes to a model API's endpoint."""
    path = urlsplit(request.path).path.rstrip("/")
    return path == "/v1/messages" or path.endswith("/chat/completions")


def invalid_request_reply(api: str, problems: list[str]) -> Reply:
    """The 400 the real API answers a request with ``problems`` with."""
    message = "; ".join(problems)
    if api == "anthropic":
        from tests.fakes.anthropic_api import invalid_request

        return invalid_request(message)
    from tests.fakes.openai_api import invalid_request as openai_invalid

    return openai_invalid(message)


class FakeSSEServer:
    """A real HTTP server on 127.0.0.1 and a free port; a context manager.

    Example::

        with FakeSSEServer() as server:
            server.queue(Reply(events=(...)))
            ... point a client at server.url ...
            assert server.requests[0].path == "/v1/messages"
    """

    def __init__(
        self, responder: Responder | None = None, *, require_key: str | None = None, check_requests: bool = True,
    ) -> None:
        """Bind a free port (serving starts on ``__enter__``).

        Args:
            responder: answers a request when no reply is queued.
            require_key: the API key every request must carry, else 401.
            check_requests: fail the test on leaving when a request broke the API's rules;
                False only for a test that sends invalid requests on purpose.
        """
        self.requests: list[RecordedRequest] = []
        """Requests to a model API's endpoint (``/v1/messages``, ``…/chat/completions``)."""
        self.probes: list[RecordedRequest] = []
        """Requests to any other path (what a client asks a server about, e.g. its context window): answered by
        ``responder``, else 404, never by a queued reply."""
        self.violations: list[Violation] = []
        """Requests the real API would refuse (each was answered 400)."""
        self.responder = responder
        self.require_key = require_key
        self.check_requests = check_requests
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = _QuietServer((HOST, 0), _make_handler(self))
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": POLL_INTERVAL}, daemon=True
        )

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` of the running server."""
        return f"http://{HOST}:{self._httpd.server_address[1]}"

    def queue(self, *replies: Reply) -> None:
        """Answer the next requests with ``replies``, in order."""
        with self._lock:
            self._queue.extend(replies)

    def next_reply(self, request: RecordedRequest) -> Reply:
        """Record ``request`` and choose its reply: auth check, the API's rules, queue, responder, else a 500;
        a request to another path than a model API's: responder, else 404."""
        if not is_model_call(request):
            with self._lock:
                self.probes.append(request)
            if self.responder is not None:
                return self.responder(request)
            return Reply(status=404, body={"error": {"message": f"fake server: no {request.path}"}})
        with self._lock:
            self.requests.append(request)
            if self.require_key is not None and not self.key_ok(request):
                return self.unauthorized()
            checked = request_problems(request)
            if checked is not None and checked[1]:
                api, problems = checked
                self.violations.append(Violation(len(self.requests), request.path, tuple(problems)))
                return invalid_request_reply(api, problems)
            if self._queue:
                return self._queue.pop(0)
        if self.responder is not None:
            return self.responder(request)
        return Reply(status=500, body={"error": {"type": "api_error", "message": "fake server: no reply scripted"}})

    def key_ok(self, request: RecordedRequest) -> bool:
        """Whether ``request`` carries the required key in a usual header."""
        sent = {request.headers.get("authorization", ""), request.headers.get("x-api-key", "")}
        return f"Bearer {self.require_key}" in sent or self.require_key in sent

    def unauthorized(self) -> Reply:
        """The reply to a request with a missing or wrong key."""
        return Reply(status=401, body={"error": {"type": "authentication_error", "message": "invalid x-api-key"}})

    def __enter__(self) -> FakeSSEServer:
        self._thread.start()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(check=exc_type is None)

    def close(self, *, check: bool = True) -> None:
        """Release hanging handlers and stop serving.

        Raises:
            AssertionError: listing the requests the real API would have refused,
                when ``check`` and ``check_requests`` are set.
        """
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
        if check and self.check_requests and self.violations:
            listed = "\n  ".join(str(v) for v in self.violations)
            raise AssertionError(f"the fake server received requests the real API would refuse "
                                 f"(answered 400 invalid_request_error):\n  {listed}")


def _make_handler(server: FakeSSEServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = server.next_reply(RecordedRequest(self.command, self.path, headers, body))
            if reply.hang:
                self._hold()
            elif reply.raw:
                self._send_raw(reply)
            elif reply.body is not None or not (reply.events or reply.trickle_every):
                self._send_whole(reply)
            else:
                self._send_events(reply)

        def _send_whole(self, reply: Reply) -> None:
            data = json.dumps(reply.body if reply.body is not None else {}).encode()
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _send_raw(self, reply: Reply) -> None:
            self._send_head(reply)
            for n, piece in enumerate(reply.raw):
                wait = reply.raw_delays[n] if n < len(reply.raw_delays) else reply.chunk_delay
                if wait:
                    server._stop.wait(wait)
                self._chunk(piece)
            self._chunk(b"")

        def _send_head(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("transfer-encoding", "chunked")
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.flush()

        def _send_events(self, reply: Reply) -> None:
            self._send_head(reply)
            stalled = reply.stall_after is not None and reply.stall_after < len(reply.events)
            for n, event in enumerate(reply.events[:reply.stall_after] if stalled else reply.events):
                if reply.cut_after is not None and n >= reply.cut_after:
                    self.close_connection = True
                    return
                if reply.chunk_delay:
                    server._stop.wait(reply.chunk_delay)
                self._chunk(event.encode())
            if reply.trickle_every is not None:
                self._trickle(reply.trickle, reply.trickle_every)
            elif stalled:
                self._hold()
            else:
                self._chunk(b"")

        def _hold(self) -> None:
            """Keep the connection open and silent until the server stops."""
            server._stop.wait(HANG_LIMIT)
            self.close_connection = True

        def _trickle(self, data: bytes, every: float) -> None:
            """Send ``data`` every ``every`` seconds until the client leaves or the server stops."""
            give_up = time.monotonic() + HANG_LIMIT
            while not server._stop.wait(every) and time.monotonic() < give_up:
                self._chunk(data)
            self.close_connection = True

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    return Handler
