"""The ``anthropic`` provider: the official SDK, streaming, native tool use (PROV-2).

This module imports the SDK at import time; it is itself imported only when
an Anthropic client is built (:func:`ljtui.core.providers.make_client`).

Retries: the SDK retries 408/409/429/5xx and connection errors before the
stream starts (``provider.max_retries``, honouring ``retry-after``, paced by
our :class:`~ljtui.core.providers.retry.RetryPolicy`); each retry is yielded
as a :class:`~ljtui.core.providers.retry.RetryScheduled` delta while waiting. An ``overloaded_error``
inside a 200 stream is raised as a retryable :class:`ProviderError` and
retried by the engine, which can discard the partial reply it already showed.
Silence and the whole-call bound are :mod:`ljtui.core.providers.limits`' job:
the SDK does not retry a timeout.

The reply is read as the raw event stream and assembled by
:mod:`ljtui.core.providers.anthropic_stream`, which bounds tool-call input.
"""

from __future__ import annotations

import asyncio
import contextlib
from http import HTTPStatus
from typing import Any, AsyncIterator

import anthropic
import httpx2

from ljtui.core.config import ProviderConfig
from ljtui.core.events import Usage
from ljtui.core.providers.anthropic_stream import PROVIDER, ReplyAssembler
from ljtui.core.providers.anthropic_wire import build_params
from ljtui.core.providers.base import ChatRequest, Delta, ProviderError
from ljtui.core.providers.deadline import CallDeadline
from ljtui.core.providers.errors import (
    broken_stream, connection_error, midstream_error, retries_made, scheduled, status_error,
)
from ljtui.core.providers.limits import CallLimits, ServerSilent, Streamed, bounded_call
from ljtui.core.providers.retry import OpeningWithRetries, PolicyRetries, parse_retry_after
from ljtui.core.providers.tls import build_with_tls

KEY_VAR = "ANTHROPIC_API_KEY"

DRAIN_TIMEOUT = 1.0
"""Seconds we wait for the end of the body after ``message_stop`` (normally it is immediate)."""

_END = object()
"""Marks the end of the event stream."""


class _SDKClient(PolicyRetries, anthropic.AsyncAnthropic):
    """The SDK's async client with retry pacing from our policy."""

    def _should_retry_exception(self, err: BaseException) -> tuple[bool, Any]:
        if isinstance(err, anthropic.APITimeoutError):
            return False, None  # silence is retried once, by bounded_call, not max_retries times
        return super()._should_retry_exception(err)


class AnthropicClient:
    """A :class:`~ljtui.core.providers.base.ChatClient` for the Messages API."""

    provider = PROVIDER

    def __init__(self, cfg: ProviderConfig, *, api_key: str | None, base_url: str | None) -> None:
        """Build the SDK client.

        Args:
            cfg: model, timeout and retry settings.
            api_key: the key, sent as a bearer token; never stored elsewhere.
            base_url: endpoint override (``ANTHROPIC_BASE_URL``), else the SDK default.

        Raises:
            ProviderError: ``config``, when ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` names nothing usable
                (:mod:`ljtui.core.providers.tls`).
        """
        self.model = cfg.model
        self._limits = CallLimits.from_config(cfg)
        self._base_url = base_url
        self._secrets = (api_key,) if api_key else ()
        self._retries = self._limits.retry.max_retries
        self._client = build_with_tls(lambda: _SDKClient(
            api_key=api_key or "", base_url=base_url, timeout=self._limits.idle, max_retries=self._retries
        ))
        self._client.retry_policy = self._limits.retry

    def stream(self, request: ChatRequest) -> AsyncIterator[Streamed]:
        """Send ``request`` and yield text, tool calls, usage and the stop reason,
        within ``provider.timeout`` of silence and ``provider.call_timeout`` in all.

        Raises:
            ProviderError: every failure, classified, with a message fit to show.
        """
        params = build_params(request, request.model or self.model)
        return bounded_call(PROVIDER, lambda deadline: self._attempt(params, deadline), self._limits)

    async def _attempt(self, params: dict[str, Any], deadline: CallDeadline) -> AsyncIterator[Streamed]:
        """One request, the SDK's retries included, streamed to its end; a failure after the server reported
        the call's tokens carries them (:attr:`ProviderError.usage`)."""
        reply = ReplyAssembler()
        try:
            async for delta in self._opened(params, deadline, reply):
                yield delta
        except ProviderError as exc:
            if reply.usage:
                exc.usage = Usage(**reply.usage)
            raise

    async def _opened(self, params: dict[str, Any], deadline: CallDeadline,
                      reply: ReplyAssembler) -> AsyncIterator[Streamed]:
        opening: OpeningWithRetries[Any] | None = None
        streaming = False
        try:
            opening = OpeningWithRetries(self._client.messages.create(**params, stream=True))
            async for notice in opening.notices(deadline):
                yield scheduled(PROVIDER, notice)
            events = opening.result()
            streaming = True
            try:
                async for delta in self._deltas(events, deadline, reply):
                    yield delta
            finally:
                await events.close()
        except (ProviderError, ServerSilent):
            raise
        except anthropic.APIStatusError as exc:
            raise self._status_error(exc, params["model"]) from None
        except (anthropic.APITimeoutError, httpx2.TimeoutException):
            raise ServerSilent() from None
        except anthropic.APIConnectionError as exc:
            if streaming:  # the SDK (from 2.17) wraps a transport error in the middle of the stream too
                cause = type(exc.__cause__ or exc).__name__
                raise broken_stream(PROVIDER, f"the connection closed mid-reply ({cause})") from None
            raise connection_error(PROVIDER, self._base_url, self._retries) from None
        except httpx2.TransportError as exc:
            raise broken_stream(PROVIDER, f"the connection closed mid-reply ({type(exc).__name__})") from None
        except (ValueError, TypeError, KeyError, AttributeError, RuntimeError, AssertionError) as exc:
            raise broken_stream(PROVIDER, f"malformed event ({type(exc).__name__})") from None
        finally:
            if opening is not None:
                opening.cancel()

    async def _deltas(self, events: Any, deadline: CallDeadline, reply: ReplyAssembler) -> AsyncIterator[Delta]:
        iterator = events.__aiter__()
        while not reply.finished:
            event = await deadline.run(anext(iterator, _END))
            if event is _END:
                raise broken_stream(PROVIDER, "the stream ended before the reply was complete")
            for delta in reply.feed(event):
                yield delta
        await self._drain(iterator)

    async def _drain(self, iterator: Any) -> None:
        """Read past ``message_stop`` to the end of the body, briefly, so the SDK's
        nested stream generators finish now instead of being left to the collector."""
        with contextlib.suppress(Exception):
            async with asyncio.timeout(min(DRAIN_TIMEOUT, self._limits.idle)):
                async for _ in iterator:
                    pass

    def _status_error(self, exc: anthropic.APIStatusError, model: str) -> ProviderError:
        if exc.status_code == HTTPStatus.OK:
            return midstream_error(PROVIDER, exc.type, self._secrets)
        error = status_error(
            PROVIDER, exc.status_code, exc.api_message,
            retries=retries_made(exc.status_code, self._retries),
            key_var=KEY_VAR, model=model, secrets=self._secrets, body=exc.body,
        )
        error.retry_after = parse_retry_after(exc.response.headers)
        return error

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.close()

