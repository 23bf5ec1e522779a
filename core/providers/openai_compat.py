"""The ``openai-compatible`` provider: any ``/v1/chat/completions`` endpoint (PROV-3).

Ollama, llama.cpp server, vLLM, LM Studio … reached by base URL with an
optional key, through the official ``openai`` SDK (imported here, and this
module only when such a client is built). Text streams as it arrives; tool
calls stream as fragments keyed by ``index`` and are yielded whole once the
stream ends; usage comes from the final chunk
(``stream_options.include_usage``). Silence and the whole-call bound are
:mod:`ljtui.core.providers.limits`' job: the SDK does not retry a timeout.
"""

from __future__ import annotations

from typing import Any, AsyncIterator

import httpx2
import openai

from ljtui.core.config import ProviderConfig
from ljtui.core.events import Usage
from ljtui.core.providers.base import ChatRequest, Delta, ProviderError, StreamEnd, TextDelta, UsageDelta
from ljtui.core.providers.deadline import CallDeadline
from ljtui.core.providers.errors import (
    broken_stream, connection_error, midstream_error, retries_made, scheduled, status_error,
)
from ljtui.core.providers.limits import CallLimits, ServerSilent, Streamed, bounded_call
from ljtui.core.providers.openai_wire import STOP_REASONS, ToolCallAssembler, build_params
from ljtui.core.providers.retry import OpeningWithRetries, PolicyRetries, parse_retry_after
from ljtui.core.providers.tls import build_with_tls

PROVIDER = "openai-compatible"
KEY_VAR = "OPENAI_API_KEY"

KEYLESS_PLACEHOLDER = "no-key"
"""Sent as the key to local servers that need none (the SDK requires one)."""

OVERLOAD_CODES = frozenset({503, 529})
"""Codes in a mid-stream error chunk that mean the server is overloaded."""

_END = object()
"""Marks the end of the chunk stream."""


class _SDKClient(PolicyRetries, openai.AsyncOpenAI):
    """The SDK's async client with retry pacing from our policy."""

    async def _send_request(self, request: httpx2.Request, *, stream: bool, **kwargs: Any) -> httpx2.Response:
        try:
            return await super()._send_request(request, stream=stream, **kwargs)
        except httpx2.TimeoutException:
            raise ServerSilent() from None  # silence is retried once, by bounded_call, not max_retries times


class OpenAICompatClient:
    """A :class:`~ljtui.core.providers.base.ChatClient` for chat-completions servers."""

    provider = PROVIDER

    def __init__(self, cfg: ProviderConfig, *, api_key: str | None, base_url: str | None) -> None:
        """Build the SDK client.

        Args:
            cfg: model, timeout and retry settings.
            api_key: the key, if the server wants one.
            base_url: the server's API root, e.g. ``http://127.0.0.1:11434/v1``.

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
            api_key=api_key or KEYLESS_PLACEHOLDER, base_url=base_url, timeout=self._limits.idle,
            max_retries=self._retries,
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
        spent: list[Usage] = []
        try:
            async for delta in self._opened(params, deadline, spent):
                yield delta
        except ProviderError as exc:
            if spent:
                exc.usage = spent[-1]
            raise

    async def _opened(self, params: dict[str, Any], deadline: CallDeadline,
                      spent: list[Usage]) -> AsyncIterator[Streamed]:
        started = False
        opening: OpeningWithRetries[Any] | None = None
        try:
            opening = OpeningWithRetries(self._client.chat.completions.create(**params))
            async for notice in opening.notices(deadline):
                yield scheduled(PROVIDER, notice)
            chunks = opening.result()
            started = True
            async with chunks:
                async for delta in self._deltas(chunks, deadline, spent):
                    yield delta
        except (ProviderError, ServerSilent):
            raise
        except openai.APIStatusError as exc:
            error = status_error(
                PROVIDER, exc.status_code, _api_message(exc.body),
                retries=retries_made(exc.status_code, self._retries),
                key_var=KEY_VAR, model=params["model"], secrets=self._secrets, body=exc.body,
            )
            error.retry_after = parse_retry_after(exc.response.headers)
            raise error from None
        except (openai.APITimeoutError, httpx2.TimeoutException):
            raise ServerSilent() from None
        except openai.APIConnectionError:
            if started:
                raise broken_stream(PROVIDER, "the connection closed mid-reply") from None
            raise connection_error(PROVIDER, self._base_url, self._retries) from None
        except openai.APIError as exc:
            raise midstream_error(PROVIDER, _midstream_type(exc.body), self._secrets) from None
        except httpx2.TransportError as exc:
            raise broken_stream(PROVIDER, f"the connection closed mid-reply ({type(exc).__name__})") from None
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise broken_stream(PROVIDER, str(exc) if isinstance(exc, ValueError) else "malformed chunk") from None
        finally:
            if opening is not None:
                opening.cancel()

    async def _deltas(self, chunks: Any, deadline: CallDeadline, spent: list[Usage]) -> AsyncIterator[Delta]:
        iterator = chunks.__aiter__()
        tools = ToolCallAssembler()
        finish: str | None = None
        usage = Usage()
        while True:
            try:
                chunk = await deadline.run(anext(iterator, _END))
            except (openai.APITimeoutError, httpx2.TimeoutException):
                if finish is not None:
                    break  # the reply was complete; the server just never closed the stream
                raise
            if chunk is _END:
                break
            if chunk.usage is not None:
                usage = _usage(chunk.usage)
                spent.append(usage)
            for choice in chunk.choices[:1]:
                delta = choice.delta
                if delta is not None and delta.content:
                    yield TextDelta(delta.content)
                for frag in (delta.tool_calls or []) if delta is not None else []:
                    fn = frag.function
                    tools.add(frag.index, frag.id, fn.name if fn else None, fn.arguments if fn else None)
                if choice.finish_reason:
                    finish = choice.finish_reason
        if finish is None:
            raise broken_stream(PROVIDER, "the stream ended before the reply was complete")
        for call in tools.calls(cut=finish == "length"):
            yield call
        yield UsageDelta(usage)
        yield StreamEnd(STOP_REASONS.get(finish, finish))

    async def aclose(self) -> None:
        """Close the SDK's connection pool."""
        await self._client.close()


def _usage(raw: Any) -> Usage:
    """Usage with cached prompt tokens split out, as Anthropic reports them."""
    details = getattr(raw, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", None) or 0) if details is not None else 0
    prompt = raw.prompt_tokens or 0
    return Usage(max(0, prompt - cached), raw.completion_tokens or 0, cached, 0)


def _api_message(body: object) -> str | None:
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
    return None


def _midstream_type(body: object) -> str | None:
    """The Anthropic-style error type of a mid-stream error chunk's body."""
    if not isinstance(body, dict):
        return None
    kind, code = body.get("type"), body.get("code")
    if kind in ("overloaded_error", "api_error"):
        return kind
    if code in OVERLOAD_CODES or kind in ("server_overloaded", "service_unavailable"):
        return "overloaded_error"
    return str(kind) if kind else None
