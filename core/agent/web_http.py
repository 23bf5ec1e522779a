"""One bounded HTTP GET for the agent's web tools; every outcome is a value.

Everything a server sends is untrusted input, and so is every URL the model
names. A call:

* reaches only ``http`` and ``https`` URLs without credentials, and checks
  every redirect hop again (at most :attr:`WebLimits.max_redirects`);
* is bounded in time: connect, each read and the whole call all end within
  :attr:`WebLimits.timeout`, however slowly a server trickles;
* is bounded in size: the body is read up to :attr:`WebLimits.max_body_bytes`
  (after decompression, so a compressed bomb stops there too);
* carries nothing from the environment: no proxy, no ``.netrc``
  credentials, no API key, no cookies (not even ones a redirect sets);
* ends in a value, never an exception: :class:`Fetched` or
  :class:`WebFailure` (``unavailable`` when the server could not be reached
  in time, ``error`` when it refused or answered with something unusable).

HTTP is ``httpx2``, imported on first use (the model SDKs depend on it already).
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import re
import socket
import ssl
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator
from urllib.parse import urlsplit

from ljtui.core.agent.web_text import clean_text

if TYPE_CHECKING:
    import httpx2

DEFAULT_TIMEOUT = 20.0
"""Seconds a whole call may take when the config does not say (``agent.web_timeout``)."""
MAX_BODY_BYTES = 2 * 1024 * 1024
"""Bytes of a body read at most; the rest is never downloaded."""
MAX_REDIRECTS = 5
"""Redirect hops followed at most, each checked like the first URL."""
MAX_URL_CHARS = 8_000
"""Longest URL accepted, from the model or in a ``Location`` header."""
MAX_PORT = 65_535
CHUNK_BYTES = 64 * 1024
"""Most bytes a decompressor may produce per step, so a bomb never inflates past the bound."""
GZIP_WBITS = 32
"""Added to ``zlib.MAX_WBITS``: accept a gzip or zlib header."""
SNIFF_BYTES = 1024
"""Bytes looked at to tell text from binary when a server names no content type."""
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
SCHEMES = ("http", "https")
USER_AGENT = "ljtui (terminal coding agent)"
"""Sent with every request; names the program and nothing about the user."""
UNAVAILABLE = "unavailable"
ERROR = "error"
_UNSAFE_URL_CHARS = re.compile(r"[\x00-\x20\x7f-\x9f]")


@dataclass(frozen=True)
class WebLimits:
    """How long a call may take, how much it reads, how far it follows redirects."""

    timeout: float = DEFAULT_TIMEOUT
    max_body_bytes: int = MAX_BODY_BYTES
    max_redirects: int = MAX_REDIRECTS


@dataclass(frozen=True)
class WebFailure:
    """Why a call gave no usable answer.

    Attributes:
        kind: ``unavailable`` (not reached, or not in time) or ``error`` (refused, or a bad answer).
        message: one sentence naming the URL or host and the cause.
    """

    kind: str
    message: str

    @property
    def text(self) -> str:
        """The line the model reads: ``unavailable: …`` or ``error: …``."""
        return f"{self.kind}: {self.message}"


@dataclass(frozen=True)
class Fetched:
    """A successful GET: the final URL, the hops before it, the type and the body read.

    Attributes:
        url: the URL that answered (after redirects).
        redirects: the URLs that redirected, in order, starting with the one asked for.
        media_type: the content type without parameters, lower case ('' when the server named none).
        charset: the charset parameter of the content type, if any.
        body: the (decompressed) body, at most ``max_body_bytes``.
        cut: the body was longer and reading stopped at the bound.
    """

    url: str
    redirects: tuple[str, ...]
    media_type: str
    charset: str | None
    body: bytes
    cut: bool


TypeCheck = Callable[[str, str, bytes], "WebFailure | None"]
"""Looks at a response's URL, media type and first bytes before the body is read; a failure stops the read."""


def check_url(url: str) -> str | None:
    """Why ``url`` may not be fetched, or ``None`` when it may.

    Only absolute ``http``/``https`` URLs with a host, a valid port and no
    credentials pass; control characters and spaces are refused rather
    than guessed at.
    """
    if len(url) > MAX_URL_CHARS:
        return f"the URL is {len(url)} characters; the limit is {MAX_URL_CHARS}"
    if _UNSAFE_URL_CHARS.search(url):
        return "the URL contains spaces or control characters; percent-encode them"
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        port = parts.port
    except ValueError as exc:
        return f"the URL cannot be parsed ({exc})"
    if scheme not in SCHEMES:
        shown = f"{scheme}:" if scheme else "a URL without a scheme"
        return f"{shown} URLs are refused; only http and https are fetched"
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return "URLs with credentials (user:password@) are refused"
    if not parts.hostname:
        return "the URL has no host"
    if port is not None and not 0 < port <= MAX_PORT:
        return f"port {port} is out of range"
    return None


async def http_get(url: str, limits: WebLimits, *, accept: str, type_check: TypeCheck | None = None,
                   max_body_bytes: int | None = None) -> Fetched | WebFailure:
    """GET ``url`` within ``limits``, following checked redirects; never raises for network trouble.

    Args:
        url: the URL asked for (checked here).
        limits: time, size and redirect bounds.
        accept: the ``Accept`` header.
        type_check: called with the URL, media type and first bytes of the final
            response before the body is read; a failure it returns ends the call.
        max_body_bytes: a tighter size bound than ``limits.max_body_bytes``.
    """
    problem = check_url(url)
    if problem is not None:
        return WebFailure(ERROR, f"{problem}: {shown_url(url)}")
    bound = min(limits.max_body_bytes, max_body_bytes or limits.max_body_bytes)
    try:
        async with asyncio.timeout(limits.timeout):
            return await _get_following(url, limits, accept, type_check, bound)
    except TimeoutError:
        return WebFailure(UNAVAILABLE, f"{_host(url)} did not answer completely within {limits.timeout:g} s")
    except Exception as exc:  # noqa: BLE001 - every transport failure becomes a value
        return _transport_failure(url, exc, limits.timeout)


async def _get_following(url: str, limits: WebLimits, accept: str, type_check: TypeCheck | None,
                         bound: int) -> Fetched | WebFailure:
    import httpx2

    hops: list[str] = []
    current = url
    async with _client(limits) as client:
        while True:
            headers = {"Accept": accept, "Accept-Encoding": "identity", "User-Agent": USER_AGENT}
            async with client.stream("GET", current, headers=headers) as response:
                if response.status_code in REDIRECT_STATUSES and "location" in response.headers:
                    target = _redirect_target(current, response.headers["location"], len(hops), limits)
                    if isinstance(target, WebFailure):
                        return target
                    hops.append(current)
                    current = target
                    continue
                if not 200 <= response.status_code < 300:
                    reason = response.reason_phrase or httpx2.codes.get_reason_phrase(response.status_code)
                    return WebFailure(ERROR, f"HTTP {response.status_code} {reason} from {shown_url(current)}".rstrip())
                return await _read_body(response, current, tuple(hops), type_check, bound)


class _NoCookies(http.cookiejar.DefaultCookiePolicy):
    """Refuses to store any cookie and to send any: each call is anonymous, redirects included."""

    def set_ok(self, cookie: Any, request: Any) -> bool:
        return False

    def return_ok(self, cookie: Any, request: Any) -> bool:
        return False


def _client(limits: WebLimits) -> httpx2.AsyncClient:
    """A client that takes nothing from the environment (proxies, .netrc) and keeps no cookies."""
    import httpx2

    timeout = httpx2.Timeout(limits.timeout)
    jar = http.cookiejar.CookieJar(policy=_NoCookies())
    return httpx2.AsyncClient(trust_env=False, follow_redirects=False, timeout=timeout, cookies=jar,
                              verify=_tls_context())


_TLS: ssl.SSLContext | None = None


def _tls_context() -> ssl.SSLContext:
    """The system's certificate store (``SSL_CERT_FILE``/``SSL_CERT_DIR`` honoured), built once."""
    global _TLS
    if _TLS is None:
        import httpx2

        _TLS = httpx2.create_ssl_context(trust_env=True)
    return _TLS


def _redirect_target(current: str, location: str, hops: int, limits: WebLimits) -> str | WebFailure:
    import httpx2

    if hops >= limits.max_redirects:
        return WebFailure(ERROR, f"more than {limits.max_redirects} redirects, stopped at {shown_url(current)}")
    try:
        target = str(httpx2.URL(current).join(location))
    except (httpx2.InvalidURL, ValueError) as exc:
        return WebFailure(ERROR, f"{shown_url(current)} redirects to an invalid URL ({exc})")
    problem = check_url(target)
    if problem is not None:
        return WebFailure(ERROR, f"{shown_url(current)} redirects to {shown_url(target)}, which is refused: {problem}")
    return target


async def _read_body(response: httpx2.Response, url: str, hops: tuple[str, ...], type_check: TypeCheck | None,
                     bound: int) -> Fetched | WebFailure:
    """Read at most ``bound`` body bytes; the type is checked before (or, untyped, on the first bytes)."""
    media_type, charset = _content_type(response.headers.get("content-type", ""))
    pending = type_check
    if type_check is not None and media_type:
        pending = None
        failure = type_check(url, media_type, b"")
        if failure is not None:
            return failure
    decoder = _decoder(response.headers.get("content-encoding", ""))
    if isinstance(decoder, str):
        return WebFailure(ERROR, f"{shown_url(url)} sent its body with content encoding {decoder!r}, which is "
                                 "not supported")
    body = bytearray()
    async for raw in response.aiter_raw():
        for piece in decoder(raw):
            body += piece
            if len(body) > bound:
                break
        if pending is not None and len(body) >= SNIFF_BYTES:
            failure, pending = pending(url, media_type, bytes(body[:SNIFF_BYTES])), None
            if failure is not None:
                return failure
        if len(body) > bound:
            break
    else:
        for piece in decoder(b""):
            body += piece
    if pending is not None:
        failure = pending(url, media_type, bytes(body[:SNIFF_BYTES]))
        if failure is not None:
            return failure
    return Fetched(url, hops, media_type, charset, bytes(body[:bound]), len(body) > bound)


def _content_type(header: str) -> tuple[str, str | None]:
    """``text/html; charset=UTF-8`` → ``("text/html", "UTF-8")``."""
    media_type, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"'):
            charset = value.strip().strip('"')[:40]
    return media_type.strip().lower()[:100], charset


def _decoder(encoding: str) -> Callable[[bytes], Iterator[bytes]] | str:
    """A function turning a raw chunk into body bytes, lazily, in pieces of at most :data:`CHUNK_BYTES`.

    ``b""`` flushes. The caller stops pulling at its bound, so a compressed
    bomb never inflates further. Returns the encoding's name when it is not supported.
    """
    name = encoding.strip().lower()
    if name in ("", "identity"):
        return _identity
    if name not in ("gzip", "x-gzip", "deflate"):
        return name[:40]
    inflate = zlib.decompressobj(zlib.MAX_WBITS if name == "deflate" else zlib.MAX_WBITS | GZIP_WBITS)

    def decode(raw: bytes) -> Iterator[bytes]:
        piece = inflate.decompress(raw, CHUNK_BYTES)
        while True:
            if piece:
                yield piece
            if not inflate.unconsumed_tail:
                break
            piece = inflate.decompress(inflate.unconsumed_tail, CHUNK_BYTES)
        if not raw and (rest := inflate.flush(CHUNK_BYTES)):
            yield rest

    return decode


def _identity(raw: bytes) -> Iterator[bytes]:
    if raw:
        yield raw


def _transport_failure(url: str, exc: BaseException, timeout: float) -> WebFailure:
    """A sentence for a failed connection: DNS, refused, TLS, time-out, broken stream."""
    import httpx2

    host = _host(url)
    causes = _causes(exc)
    if isinstance(exc, httpx2.TimeoutException):
        return WebFailure(UNAVAILABLE, f"{host} did not answer within {timeout:g} s")
    for cause in causes:
        if isinstance(cause, socket.gaierror):
            return WebFailure(UNAVAILABLE, f"cannot resolve the host name {host} ({cause.strerror or cause})")
        if isinstance(cause, ssl.SSLError):
            return WebFailure(UNAVAILABLE, f"TLS error talking to {host}: {_first_line(cause)}")
        if isinstance(cause, ConnectionRefusedError):
            return WebFailure(UNAVAILABLE, f"connection refused by {host}")
    if isinstance(exc, (httpx2.ConnectError, httpx2.NetworkError, httpx2.ProtocolError, OSError)):
        return WebFailure(UNAVAILABLE, f"cannot reach {host}: {_first_line(exc) or type(exc).__name__}")
    detail = f"{type(exc).__name__}: {_first_line(exc)}".rstrip(": ")
    return WebFailure(ERROR, f"request to {shown_url(url)} failed: {detail}")


def _causes(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _first_line(exc: BaseException) -> str:
    return clean_text(str(exc)).strip().split("\n", 1)[0][:200]


def _host(url: str) -> str:
    try:
        parts = urlsplit(url)
        return parts.netloc.rpartition("@")[2][:200] or shown_url(url)
    except ValueError:
        return shown_url(url)


def shown_url(url: str) -> str:
    """A URL for a message: control characters dropped, long ones cut."""
    text = _UNSAFE_URL_CHARS.sub("", url)
    return text if len(text) <= 200 else text[:200] + "…"
