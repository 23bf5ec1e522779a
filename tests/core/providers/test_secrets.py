"""API keys never reach events, messages, logs or JSON output (PROV-6)."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.config import ProviderConfig
from ljtui.core.events import TokenDelta, ToolCallStarted
from ljtui.core.ports import ListSink
from ljtui.core.secrets import REDACTED, RedactingSink, StreamRedactor, known_secrets, redact_value
from tests.core.providers.helpers import make_rig, read_tools
from tests.fakes import anthropic_api as api
from tests.fakes import openai_api as oapi
from tests.fakes.fixtures import FAKE_KEY, fast_provider
from tests.fakes.server import FakeSSEServer


async def test_key_echoed_by_the_model_is_redacted_everywhere(
    fake_anthropic: FakeSSEServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake_anthropic.queue(
        api.tool_reply(f"your key is {FAKE_KEY}", "t1", "read_file", {"path": FAKE_KEY}, chunk=64),
        api.text_reply(f"again: {FAKE_KEY}", chunk=64),
    )
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path, tools=read_tools())

    await rig.engine.run_turn("what is my key?")

    assert fake_anthropic.requests[0].headers["authorization"] == f"Bearer {FAKE_KEY}"
    assert FAKE_KEY not in rig.json_lines()
    assert rig.of(TokenDelta)[0].text == f"your key is {REDACTED}"
    assert rig.of(ToolCallStarted)[0].input == {"path": REDACTED}
    assert FAKE_KEY not in caplog.text
    sent = "".join(r.body.decode() for r in fake_anthropic.requests[1:])
    assert FAKE_KEY not in sent, "the history sent back is redacted too"
    await rig.engine.aclose()


async def test_key_split_across_streamed_chunks_is_still_redacted(
    fake_anthropic: FakeSSEServer, tmp_path: Path
) -> None:
    fake_anthropic.queue(api.text_reply(f"key: {FAKE_KEY} ok, and sk-ant-te alone", chunk=3))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url), tmp_path)
    result = await rig.engine.run_turn("x")
    assert rig.streamed_text() == f"key: {REDACTED} ok, and sk-ant-te alone"
    assert all(FAKE_KEY[:6] not in e.text for e in rig.of(TokenDelta)[:3])
    assert result is not None and FAKE_KEY not in result.text
    await rig.engine.aclose()


@pytest.mark.parametrize("size", [1, 2, 5, 100])
def test_stream_redactor_any_chunking(size: int) -> None:
    text = f"a{FAKE_KEY}b sk-ant c{FAKE_KEY}"
    redactor = StreamRedactor((FAKE_KEY,))
    out = "".join(redactor.feed(text[i:i + size]) for i in range(0, len(text), size)) + redactor.flush()
    assert out == f"a{REDACTED}b sk-ant c{REDACTED}"


@pytest.mark.parametrize("provider", ["anthropic", "openai-compatible"])
async def test_failures_and_sdk_debug_logs_never_show_the_key(
    provider: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = (api.status_reply(401, "authentication_error", f"invalid x-api-key {FAKE_KEY}")
            if provider == "anthropic" else oapi.status_reply(401, f"Incorrect API key provided: {FAKE_KEY}"))
    with FakeSSEServer() as server:
        server.queue(echo, *[api.overloaded()] * 3)
        suffix = "" if provider == "anthropic" else "/v1"
        rig = make_rig(fast_provider(provider, server.url + suffix), tmp_path)
        await rig.engine.run_turn("one")
        await rig.engine.run_turn("two")
        await rig.engine.aclose()
    assert [e.kind for e in rig.sink.events].count("turn_failed") == 2
    assert FAKE_KEY not in rig.json_lines()
    assert FAKE_KEY not in caplog.text


async def test_key_from_the_environment_is_redacted(
    fake_anthropic: FakeSSEServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    fake_anthropic.queue(api.text_reply(FAKE_KEY, chunk=64))
    rig = make_rig(fast_provider("anthropic", fake_anthropic.url, api_key=None), tmp_path)
    await rig.engine.run_turn("x")
    assert rig.streamed_text() == REDACTED
    await rig.engine.aclose()


def test_known_secrets_skip_placeholder_values() -> None:
    env = {"OPENAI_API_KEY": "none", "ANTHROPIC_API_KEY": FAKE_KEY}
    assert known_secrets(ProviderConfig(api_key="x"), env) == (FAKE_KEY,)


def test_redaction_keeps_identity_of_clean_values() -> None:
    clean = {"a": ["b", ("c",)]}
    assert redact_value(clean, (FAKE_KEY,)) is clean
    assert redact_value({"k": [f"x{FAKE_KEY}"]}, (FAKE_KEY,)) == {"k": [f"x{REDACTED}"]}


def test_redacting_sink_passes_clean_events_through_unchanged() -> None:
    inner = ListSink()
    event = TokenDelta(1, "hello")
    RedactingSink(inner, (FAKE_KEY,)).emit(event)
    assert inner.events[0] is event


def test_importing_the_engine_loads_no_sdk() -> None:
    code = (
        "import sys, ljtui.core.engine, ljtui.core.providers, ljtui.cli.main\n"
        "loaded = sorted(m for m in ('anthropic', 'openai', 'httpx2', 'textual') if m in sys.modules)\n"
        "print(','.join(loaded))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
