"""The model's context window: published limits, what each kind of local server says, and what a refusal states.

The servers are real loopback HTTP servers; the llama.cpp bodies are the ones a real llama.cpp server sent
(``tests/fixtures/real_streams``).
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx2
import pytest

from ljtui.core.config import ProviderConfig
from ljtui.core.providers.base import ChatRequest, Message, ProviderError
from ljtui.core.providers.context_window import (
    CONFIGURED_SOURCE, MAX_BODY_BYTES, OLLAMA_DEFAULT_NUM_CTX, OLLAMA_DEFAULT_SOURCE, ContextWindow,
    discover_window, published_window, resolve_window,
)
from ljtui.core.providers.overflow import is_context_overflow, window_from_error
from ljtui.core.providers.openai_compat import OpenAICompatClient
from tests.fakes.fixtures import fast_provider
from tests.fakes.server import SSE, FakeSSEServer, RecordedRequest, Reply

REAL = Path(__file__).parents[2] / "fixtures" / "real_streams"
TIMEOUT = 2.0
"""Seconds discovery may take in these tests."""
SLOW = 1.0
"""Seconds a test's discovery gets against a server that never answers."""

LLAMACPP_404 = Reply(status=404, body={"error": {"message": "File Not Found", "type": "not_found_error", "code": 404}})
"""What a real llama.cpp server answers a path it does not serve."""

LLAMACPP_OVERFLOW = {"error": {"code": 400, "message": "request (9010 tokens) exceeds the available context size "
                               "(8192 tokens), try increasing it", "type": "exceed_context_size_error",
                               "n_prompt_tokens": 9010, "n_ctx": 8192}}
OPENAI_OVERFLOW = {"error": {
    "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 "
               "tokens. Please reduce the length of the messages.",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}
VLLM_MESSAGE = ("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the "
                "messages, 1000 in the completion). Please reduce the length of the messages or completion.")
VLLM_NEWER = ("'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length of "
              "4096 tokens and your request has 4000 input tokens (1000 > 4096 - 4000).")
VLLM_V1 = ("The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that "
           "`max_model_len` is no smaller than the number of text tokens.")
ANTHROPIC_OVERFLOW = {"type": "error", "error": {"type": "invalid_request_error",
                                                 "message": "prompt is too long: 210000 tokens > 200000 maximum"}}
LMSTUDIO_MESSAGE = "The number of tokens to keep from the initial prompt is greater than the context length."


def real(name: str) -> Any:
    """A body recorded from a real server."""
    return json.loads((REAL / name).read_text(encoding="utf-8"))


Routes = dict[str, Callable[[RecordedRequest], Reply] | Reply]


@pytest.fixture
def serve() -> Iterator[Callable[[Routes], FakeSSEServer]]:
    """Start a server answering each path from ``routes`` (a reply, or a function of the request), else 404."""
    servers: list[FakeSSEServer] = []

    def start(routes: Routes) -> FakeSSEServer:
        def respond(request: RecordedRequest) -> Reply:
            route = routes.get(request.path, LLAMACPP_404)
            return route(request) if callable(route) else route

        server = FakeSSEServer(respond).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


async def discover(server: FakeSSEServer, model: str = "local", *, timeout: float = TIMEOUT,
                   base: str = "/v1") -> ContextWindow | None:
    async with httpx2.AsyncClient() as http:
        return await discover_window(http, server.url + base, model, timeout=timeout)


def paths(server: FakeSSEServer) -> list[str]:
    return [f"{r.method} {r.path}" for r in server.probes]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_published_limits_by_the_longest_prefix() -> None:
    assert published_window("anthropic", "claude-sonnet-4-5") == ContextWindow(
        200_000, "published limit of claude-sonnet-4-5")
    cases = {"gpt-4o": 128_000, "gpt-4o-mini": 128_000, "gpt-4.1-mini": 1_047_576, "gpt-5": 400_000,
             "gpt-5-mini": 400_000, "gpt-5-chat-latest": 128_000, "o1": 200_000, "o1-mini": 128_000,
             "o3-mini": 200_000, "o4-mini": 200_000, "gpt-4-turbo": 128_000, "gpt-3.5-turbo": 16_385,
             "gpt-3.5-turbo-instruct": 4_096}
    for model, tokens in cases.items():
        found = published_window("openai-compatible", model)
        assert found is not None and found.tokens == tokens, model
    assert published_window("openai-compatible", "llama3.1:8b") is None
    assert published_window("anthropic", "gpt-4o") is None
    assert published_window("scripted", "claude-sonnet-4-5") is None


async def test_llamacpp_props_real_body(serve: Callable[[Routes], FakeSSEServer]) -> None:
    server = serve({"/props": Reply(body=real("llamacpp_props.json"))})
    assert await discover(server) == ContextWindow(8192, "llama.cpp /props n_ctx")
    assert paths(server) == ["GET /props"]  # the root, not /v1/props; nothing asked after an answer


async def test_llamacpp_model_list_real_body_when_props_is_missing(serve: Callable[[Routes], FakeSSEServer]) -> None:
    server = serve({"/v1/models": Reply(body=real("llamacpp_models.json"))})
    assert await discover(server, "whatever-the-user-calls-it") == ContextWindow(
        8192, "llama.cpp /v1/models meta.n_ctx")
    assert paths(server) == ["GET /props", "GET /v1/models"]


async def test_base_url_without_v1(serve: Callable[[Routes], FakeSSEServer]) -> None:
    server = serve({"/models": Reply(body=real("llamacpp_models.json"))})
    assert (await discover(server, base="/")).tokens == 8192


async def test_vllm_max_model_len_of_the_named_model(serve: Callable[[Routes], FakeSSEServer]) -> None:
    listing = {"object": "list", "data": [
        {"id": "other", "object": "model", "owned_by": "vllm", "root": "other", "parent": None,
         "max_model_len": 4096, "permission": []},
        {"id": "Qwen/Qwen2.5-Coder-7B-Instruct", "object": "model", "owned_by": "vllm",
         "root": "Qwen/Qwen2.5-Coder-7B-Instruct", "parent": None, "max_model_len": 32768, "permission": []}]}
    server = serve({"/v1/models": Reply(body=listing)})
    assert await discover(server, "Qwen/Qwen2.5-Coder-7B-Instruct") == ContextWindow(32768, "vLLM max_model_len")
    assert await discover(server, "not-served") is None  # two entries, none named: no guess


OLLAMA_SHOW = {
    "modelfile": "FROM qwen2.5-coder:7b\n", "template": "{{ .Prompt }}",
    "details": {"format": "gguf", "family": "qwen2", "parameter_size": "7.6B"},
    "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
    "capabilities": ["completion", "tools"],
}
OLLAMA_MODELS = {"object": "list", "data": [{"id": "qwen2.5-coder:7b", "object": "model", "owned_by": "library"},
                                            {"id": "llama3.1:8b", "object": "model", "owned_by": "library"}]}


async def test_ollama_num_ctx_of_the_modelfile(serve: Callable[[Routes], FakeSSEServer]) -> None:
    parameters = 'num_ctx                        8192\nstop                           "<|im_end|>"'
    show = {**OLLAMA_SHOW, "parameters": parameters}
    server = serve({"/v1/models": Reply(body=OLLAMA_MODELS), "/api/show": Reply(body=show)})
    assert await discover(server, "qwen2.5-coder:7b") == ContextWindow(8192, "Ollama num_ctx")
    assert server.probes[-1].json == {"model": "qwen2.5-coder:7b"}


async def test_ollama_loaded_context_length(serve: Callable[[Routes], FakeSSEServer]) -> None:
    show = {**OLLAMA_SHOW, "parameters": 'stop                           "<|im_end|>"'}
    running = {"models": [{"name": "llama3.1:8b", "model": "llama3.1:8b", "context_length": 2048},
                          {"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b", "size_vram": 5618579456,
                           "context_length": 16384}]}
    server = serve({"/api/show": Reply(body=show), "/api/ps": Reply(body=running)})
    assert await discover(server, "qwen2.5-coder:7b") == ContextWindow(
        16384, "Ollama context_length of the loaded model")


async def test_ollama_default_not_the_trained_maximum(serve: Callable[[Routes], FakeSSEServer]) -> None:
    server = serve({"/api/show": Reply(body=OLLAMA_SHOW), "/api/ps": Reply(body={"models": []})})
    found = await discover(server, "qwen2.5-coder:7b")
    assert found == ContextWindow(OLLAMA_DEFAULT_NUM_CTX, OLLAMA_DEFAULT_SOURCE) and found.tokens == 4096
    assert "default" in found.source and found.tokens != 32768


async def test_lmstudio_loaded_then_max_context_length(serve: Callable[[Routes], FakeSSEServer]) -> None:
    entry = {"id": "devstral-small-2505-mlx", "object": "model", "type": "llm", "state": "loaded",
             "max_context_length": 131072, "loaded_context_length": 4096}
    server = serve({"/api/v0/models/devstral-small-2505-mlx": Reply(body=entry)})
    assert await discover(server, "devstral-small-2505-mlx") == ContextWindow(4096, "LM Studio loaded_context_length")
    unloaded = {k: v for k, v in entry.items() if k != "loaded_context_length"} | {"state": "not-loaded"}
    server = serve({"/api/v0/models/devstral-small-2505-mlx": Reply(body=unloaded)})
    found = await discover(server, "devstral-small-2505-mlx")
    assert found is not None and found.tokens == 131072 and found.source.startswith("LM Studio max_context_length")


async def test_lmstudio_model_id_with_a_slash_is_found_in_the_list(serve: Callable[[Routes], FakeSSEServer]) -> None:
    listing = {"object": "list", "data": [
        {"id": "qwen/qwen3-8b", "state": "loaded", "max_context_length": 40960, "loaded_context_length": 8192},
        {"id": "qwen/qwen3-4b", "state": "not-loaded", "max_context_length": 40960}]}
    server = serve({"/api/v0/models": Reply(body=listing)})
    assert (await discover(server, "qwen/qwen3-8b")).tokens == 8192
    assert "GET /api/v0/models/qwen%2Fqwen3-8b" in paths(server)


async def test_every_kind_asked_in_order_when_none_answers(serve: Callable[[Routes], FakeSSEServer]) -> None:
    server = serve({})
    assert await discover(server, "m") is None
    assert paths(server) == ["GET /props", "GET /v1/models", "POST /api/show", "GET /api/v0/models/m",
                             "GET /api/v0/models"]


@pytest.mark.parametrize("routes", [
    {"/props": Reply(events=(SSE("not json"),))},
    {"/props": Reply(status=500, body=real("llamacpp_props.json"))},
    {"/props": Reply(body={"default_generation_settings": {"n_ctx": "8192"}})},
    {"/props": Reply(body={"default_generation_settings": {"n_ctx": True}})},
    {"/props": Reply(body={"default_generation_settings": {"n_ctx": -1}})},
    {"/props": Reply(body={"default_generation_settings": {"n_ctx": 10 ** 30}})},
    {"/props": Reply(body={"default_generation_settings": [8192]})},
    {"/props": Reply(body=[1, 2])},
    {"/v1/models": Reply(body={"data": {"id": "m", "max_model_len": 4096}})},
    {"/v1/models": Reply(body={"data": [{"id": "m", "max_model_len": 4096.5}]})},
    {"/v1/models": Reply(body={"data": "m"})},
    {"/api/show": Reply(body=["parameters"])},
    {"/api/show": Reply(status=404, body={"error": "model 'm' not found"})},
    {"/api/v0/models/m": Reply(body={"id": "m", "loaded_context_length": "4096"})},
    {"/api/v0/models/m": Reply(body={"id": "other", "loaded_context_length": 4096})},
], ids=["not-json", "status-500", "string", "bool", "negative", "absurd", "list-settings", "list-body",
        "data-mapping", "float", "data-string", "show-list", "show-404", "lmstudio-string", "lmstudio-other-id"])
async def test_replies_that_tell_nothing(serve: Callable[[Routes], FakeSSEServer], routes: Routes) -> None:
    assert await discover(serve(routes), "m") is None


async def test_a_body_past_the_read_limit_is_not_read(serve: Callable[[Routes], FakeSSEServer]) -> None:
    padded = {"default_generation_settings": {"n_ctx": 8192}, "pad": "x" * MAX_BODY_BYTES}
    assert await discover(serve({"/props": Reply(body=padded)})) is None
    fits = {"default_generation_settings": {"n_ctx": 8192}, "pad": "x" * (MAX_BODY_BYTES - 100)}
    assert (await discover(serve({"/props": Reply(body=fits)}))).tokens == 8192


async def test_a_server_that_never_answers_gives_up_within_the_timeout(
        serve: Callable[[Routes], FakeSSEServer]) -> None:
    server = serve({path: Reply(hang=True) for path in ("/props", "/v1/models", "/api/show")})
    started = time.monotonic()
    assert await discover(server, timeout=SLOW) is None
    assert time.monotonic() - started < SLOW + 1.0
    assert paths(server) == ["GET /props"]  # the bound is for the whole discovery, not each question


async def test_a_server_that_is_down() -> None:
    async with httpx2.AsyncClient() as http:
        assert await discover_window(http, f"http://127.0.0.1:{closed_port()}/v1", "m", timeout=TIMEOUT) is None
        assert await discover_window(http, "not a url", "m", timeout=TIMEOUT) is None


def provider(name: str, url: str, **overrides: object) -> ProviderConfig:
    return fast_provider(name, url, api_key=None, **overrides)


async def test_configured_beats_the_server_and_the_server_beats_published(
        serve: Callable[[Routes], FakeSSEServer]) -> None:
    server = serve({"/props": Reply(body=real("llamacpp_props.json"))})
    base = server.url + "/v1"
    cfg = provider("openai-compatible", base, model="gpt-4o", context_window=50_000)
    assert await resolve_window(cfg, provider=cfg.name, base_url=base, env={}) == ContextWindow(
        50_000, CONFIGURED_SOURCE)
    assert server.probes == []  # configured: nothing asked
    cfg.context_window = None
    assert await resolve_window(cfg, provider=cfg.name, base_url=base, env={}) == ContextWindow(
        8192, "llama.cpp /props n_ctx")
    down = f"http://127.0.0.1:{closed_port()}/v1"
    assert await resolve_window(cfg, provider=cfg.name, base_url=down, env={}) == ContextWindow(
        128_000, "published limit of gpt-4o")
    cfg.model = "smollm2"
    assert await resolve_window(cfg, provider=cfg.name, base_url=down, env={}) is None


async def test_anthropic_is_not_asked(serve: Callable[[Routes], FakeSSEServer]) -> None:
    server = serve({"/props": Reply(body=real("llamacpp_props.json"))})
    cfg = provider("anthropic", server.url, model="claude-opus-4-1")
    assert (await resolve_window(cfg, provider="anthropic", base_url=server.url, env={})).tokens == 200_000
    assert server.probes == []
    scripted = provider("scripted", server.url)
    assert await resolve_window(scripted, provider="scripted", base_url=server.url, env={}) is None


async def test_the_server_is_asked_with_the_key(serve: Callable[[Routes], FakeSSEServer]) -> None:
    server = serve({"/props": Reply(body=real("llamacpp_props.json"))})
    cfg = provider("openai-compatible", server.url + "/v1")
    await resolve_window(cfg, provider=cfg.name, base_url=cfg.base_url, env={"OPENAI_API_KEY": "sk-local-1"})
    assert server.probes[0].headers["authorization"] == "Bearer sk-local-1"
    await resolve_window(cfg, provider=cfg.name, base_url=cfg.base_url, env={})
    assert "authorization" not in server.probes[1].headers


async def test_a_client_that_cannot_be_built_is_no_window() -> None:
    def broken(headers: object) -> httpx2.AsyncClient:
        raise ProviderError("config", "SSL_CERT_FILE names /nowhere, which does not exist")

    cfg = provider("openai-compatible", "http://127.0.0.1:1/v1", model="gpt-5")
    found = await resolve_window(cfg, provider=cfg.name, base_url=cfg.base_url, http_factory=broken, env={})
    assert found == ContextWindow(400_000, "published limit of gpt-5")


def test_the_window_each_refusal_states() -> None:
    recorded = real("llamacpp_overflow.json")
    assert window_from_error("", recorded) == 8192  # n_ctx of the body a real llama.cpp sent
    assert window_from_error("", LLAMACPP_OVERFLOW) == 8192
    assert window_from_error("", LLAMACPP_OVERFLOW["error"]) == 8192  # the SDK hands the inner object
    assert window_from_error(LLAMACPP_OVERFLOW["error"]["message"], None) == 8192
    assert window_from_error("", OPENAI_OVERFLOW) == 128_000
    assert window_from_error(VLLM_MESSAGE, None) == 4096
    assert window_from_error(VLLM_NEWER, None) == 4096
    assert window_from_error(VLLM_V1, None) == 4096
    assert window_from_error("", ANTHROPIC_OVERFLOW) == 200_000
    assert window_from_error("maximum context length is 1,047,576 tokens", None) == 1_047_576
    assert window_from_error(LMSTUDIO_MESSAGE, {"error": LMSTUDIO_MESSAGE}) is None
    assert window_from_error("rate limited", {"error": {"n_ctx": "8192"}}) is None


def test_overflow_is_recognised_and_nothing_else() -> None:
    assert is_context_overflow(400, "", real("llamacpp_overflow.json"))
    assert is_context_overflow(400, "", {"error": {"message": "x", "type": "exceed_context_size_error"}})
    assert is_context_overflow(400, "", {"message": "x", "code": "context_length_exceeded"})
    assert is_context_overflow(400, "", OPENAI_OVERFLOW)
    assert is_context_overflow(400, VLLM_MESSAGE, None) and is_context_overflow(400, VLLM_V1, None)
    assert is_context_overflow(400, "", ANTHROPIC_OVERFLOW)
    assert is_context_overflow(400, "", {"error": LMSTUDIO_MESSAGE})
    shown = f"the OpenAI-compatible server refused the request (HTTP 400): {LMSTUDIO_MESSAGE}"
    assert is_context_overflow(400, shown, None)
    assert not is_context_overflow(400, "messages: roles must alternate", {"error": {"type": "invalid_request_error"}})
    assert not is_context_overflow(429, VLLM_MESSAGE, None)
    assert not is_context_overflow(401, "", OPENAI_OVERFLOW)
    started = time.monotonic()
    assert not is_context_overflow(400, "context " * 500_000, {"error": "length " * 500_000})
    assert window_from_error("maximum context length is " + "9" * 1_000_000, None) is None  # past any window
    assert time.monotonic() - started < 1.0


async def test_the_refusal_through_the_real_client(serve: Callable[[Routes], FakeSSEServer]) -> None:
    """The window is read from the message a user sees when a real llama.cpp refuses the prompt."""
    server = serve({"/v1/chat/completions": Reply(status=400, body=real("llamacpp_overflow.json"))})
    client = OpenAICompatClient(provider("openai-compatible", server.url + "/v1"), api_key=None,
                                base_url=server.url + "/v1")
    with pytest.raises(ProviderError) as caught:
        async for _ in client.stream(ChatRequest(system="s", messages=(Message.user("hi"),))):
            pass
    await client.aclose()
    error = caught.value
    assert error.status == 400 and error.kind == "context_overflow" and error.window == 8192
    assert is_context_overflow(error.status, error.message, None)
    assert window_from_error(error.message, None) == 8192
