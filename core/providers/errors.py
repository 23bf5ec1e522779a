"""Turning SDK and wire failures into :class:`ProviderError` values a user can act on.

Every message here names what failed and the HTTP status, says what to do,
and is passed through :func:`~ljtui.core.secrets.redact` so an API key can
never leak through a server's echo of it.
"""

from __future__ import annotations

from http import HTTPStatus
from urllib.parse import urlsplit

from ljtui.core.providers.base import ErrorKind, ProviderError
from ljtui.core.providers.overflow import is_context_overflow, window_from_error
from ljtui.core.providers.retry import RetryScheduled, SDKRetry, retried_suffix
from ljtui.core.secrets import redact

TITLES: dict[str, str] = {
    "anthropic": "the Anthropic API",
    "openai-compatible": "the OpenAI-compatible server",
}
"""How each provider is named in messages."""

API_MESSAGE_LIMIT = 300
"""Characters of a server's own error message quoted to the user."""

STATUS_KINDS: dict[int, ErrorKind] = {
    401: "auth", 403: "auth", 408: "timeout", 429: "rate_limit", 529: "overloaded",
}
"""Statuses with a kind of their own; other 5xx are ``server``, other 4xx ``bad_request``."""

SERVER_ERROR_FLOOR = 500
"""Statuses from here up are server errors."""

SDK_RETRIED_STATUSES = frozenset({408, 409, 429})
"""Client-error statuses the SDKs retry (besides every server error)."""

MIDSTREAM_KINDS: dict[str, ErrorKind] = {"overloaded_error": "overloaded", "api_error": "server"}
"""Error types that may arrive inside a 200 stream and are worth retrying."""


def kind_for_status(status: int) -> ErrorKind:
    """The error kind of an HTTP status."""
    if status in STATUS_KINDS:
        return STATUS_KINDS[status]
    return "server" if status >= SERVER_ERROR_FLOOR else "bad_request"


def retries_made(status: int, max_retries: int) -> int:
    """How many retries the SDK made before giving up on ``status``."""
    retried = status in SDK_RETRIED_STATUSES or status >= SERVER_ERROR_FLOOR
    return max_retries if retried else 0


def safe_endpoint(url: str | None) -> str:
    """``scheme://host:port`` of ``url``, without credentials, path or query."""
    if not url:
        return "the default endpoint"
    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}" if parts.scheme else host


def status_error(
    provider: str,
    status: int,
    api_message: str | None,
    *,
    retries: int,
    key_var: str,
    model: str,
    secrets: tuple[str, ...],
    body: object = None,
) -> ProviderError:
    """The error for an HTTP error status the SDK gave up on.

    Args:
        retries: how many retries the SDK made for a retryable status.
        key_var: the environment variable that holds the key, for the hint.
        body: the error body, as parsed JSON (a context overflow is told by it, or by the message).
    """
    title = TITLES.get(provider, provider)
    kind = kind_for_status(status)
    detail = f": {api_message.strip()[:API_MESSAGE_LIMIT]}" if api_message and api_message.strip() else ""
    if kind != "auth" and is_context_overflow(status, api_message or "", body):
        window = window_from_error(api_message or "", body)
        held = f" of {window:,} tokens" if window else ""
        error = ProviderError("context_overflow", redact(
            f"{title} refused the request (HTTP {status}): the prompt is more than the model's context "
            f"window{held} holds{detail}", secrets), status=status)
        error.window = window
        return error
    if kind == "auth":
        forbidden = status == HTTPStatus.FORBIDDEN
        what = "refused access" if forbidden else "rejected the API key"
        msg = (f"{title} {what} (HTTP {status}): the key is missing or wrong"
               f"{' or lacks access to model ' + model if forbidden else ''}. "
               f"Set {key_var} or provider.api_key and try again")
    elif kind == "rate_limit":
        msg = f"{title} is rate limiting requests (HTTP {status}){retried_suffix(retries)}"
    elif kind == "overloaded":
        msg = f"{title} is overloaded (HTTP {status}){retried_suffix(retries)}"
    elif kind == "server":
        msg = f"{title} had a server error (HTTP {status}){detail}{retried_suffix(retries)}"
    elif kind == "timeout":
        msg = f"{title} timed out the request (HTTP {status}){retried_suffix(retries)}"
    else:
        msg = f"{title} refused the request (HTTP {status}){detail}"
    return ProviderError(kind, redact(msg, secrets), status=status)


def midstream_error(provider: str, error_type: str | None, secrets: tuple[str, ...]) -> ProviderError:
    """An error event inside a 200 stream; overloaded and api errors are retryable."""
    title = TITLES.get(provider, provider)
    kind = MIDSTREAM_KINDS.get(error_type or "")
    if kind is None:
        return ProviderError(
            "bad_stream", redact(f"{title} sent an error in the middle of the reply ({error_type or 'unknown'})", secrets)
        )
    what = "became overloaded" if kind == "overloaded" else "had a server error"
    return ProviderError(kind, f"{title} {what} in the middle of the reply ({error_type})", retryable=True)


def connection_error(provider: str, base_url: str | None, retries: int) -> ProviderError:
    """The server could not be reached (refused, reset, DNS …)."""
    title = TITLES.get(provider, provider)
    return ProviderError(
        "connection", f"cannot reach {title} at {safe_endpoint(base_url)}{retried_suffix(retries)}"
    )


def silence_error(provider: str, seconds: float, retries: int = 0) -> ProviderError:
    """The server sent nothing for ``provider.timeout`` before the reply began."""
    title = TITLES.get(provider, provider)
    return ProviderError(
        "timeout", f"{title} sent nothing for {seconds:g}s (provider.timeout){retried_suffix(retries)}"
    )


def silence_mid_reply_error(provider: str, seconds: float) -> ProviderError:
    """The server stopped sending for ``provider.timeout`` after part of the reply had arrived."""
    title = TITLES.get(provider, provider)
    return ProviderError(
        "timeout", f"{title} stopped sending for {seconds:g}s in the middle of the reply (provider.timeout)"
    )


def call_timeout_error(provider: str, seconds: float) -> ProviderError:
    """The whole call took longer than ``provider.call_timeout``, however steadily data came."""
    title = TITLES.get(provider, provider)
    return ProviderError(
        "timeout", f"{title} did not finish the reply within {seconds:g}s (provider.call_timeout)"
    )


def silence_retry(provider: str, seconds: float, retry: int, max_retries: int, delay: float) -> RetryScheduled:
    """The delta announcing that a call that met silence is sent again."""
    title = TITLES.get(provider, provider)
    message = f"{title} sent nothing for {seconds:g}s (provider.timeout)"
    return RetryScheduled(retry, max_retries, "timeout", message, delay)


def broken_stream(provider: str, detail: str) -> ProviderError:
    """The stream was cut off or malformed."""
    title = TITLES.get(provider, provider)
    return ProviderError("bad_stream", f"{title} stream broke off: {detail}")


RETRY_REASONS: dict[str, str] = {
    "rate_limit": "is rate limiting requests", "overloaded": "is overloaded", "timeout": "timed out the request",
}
"""How a retried status is described; other statuses are server errors."""


def retry_reason(provider: str, status: int | None) -> tuple[ErrorKind, str]:
    """Kind and wording of a failed attempt the SDK is about to retry."""
    title = TITLES.get(provider, provider)
    if status is None:
        return "connection", f"the connection to {title} failed"
    kind = kind_for_status(status)
    return kind, f"{title} {RETRY_REASONS.get(kind, 'had a server error')} (HTTP {status})"


def scheduled(provider: str, notice: SDKRetry) -> RetryScheduled:
    """The delta announcing an SDK retry, worded for the user."""
    kind, message = retry_reason(provider, notice.status)
    return RetryScheduled(notice.retry, notice.max_retries, kind, message, notice.delay)
