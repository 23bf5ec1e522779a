"""``ljtui run`` on replies a real llama.cpp server cut off at ``max_tokens`` (recorded): said in text and JSON,
and an empty cut reply is a failure with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.cli.main import main
from tests.cli.test_run import json_events
from tests.fakes.fixtures import FAKE_KEY
from tests.fakes.recorded import recording
from tests.fakes.server import FakeSSEServer


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch, isolated_env: Path) -> None:
    """The key the fake server wants, and a user config that sends a message straight to chat, never retrying."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    config = isolated_env / "ljtui" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("provider:\n  timeout: 5\n  max_retries: 0\nagent:\n  routing: chat\n", encoding="utf-8")


def run(server: FakeSSEServer, repo: Path, max_tokens: int, *extra: str) -> int:
    (repo / ".agent").mkdir()
    (repo / ".agent" / "config.yaml").write_text(f"provider:\n  max_tokens: {max_tokens}\n", encoding="utf-8")
    return main(["run", "explain", "--provider", "openai-compatible", "--model", "smollm2", "--base-url",
                 server.url + "/v1", "--repo", str(repo), *extra])


def test_a_cut_text_reply_is_printed_and_said_to_be_cut(
    fake_openai: FakeSSEServer, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], key: None,
) -> None:
    fake_openai.queue(recording("llamacpp_text_cut").reply())

    code = run(fake_openai, tmp_path, 24)

    out, err = capsys.readouterr()
    assert code == 0 and out.startswith("A binary search tree is a data structure")
    assert "cut off at its token limit (provider.max_tokens = 24)" in err


def test_json_says_the_stop_reason_and_the_cut(
    fake_openai: FakeSSEServer, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], key: None,
) -> None:
    fake_openai.queue(recording("llamacpp_text_cut").reply())

    assert run(fake_openai, tmp_path, 24, "--json") == 0

    events = json_events(capsys.readouterr().out)
    [finished] = [e for e in events if e["kind"] == "turn_finished"]
    assert finished["stop_reason"] == "max_tokens"
    assert any(e["kind"] == "notice" and "cut off" in e["message"] for e in events)


def test_an_empty_cut_reply_fails_with_its_reason(
    fake_openai: FakeSSEServer, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], key: None,
) -> None:
    fake_openai.queue(recording("llamacpp_empty_cut").reply())

    code = run(fake_openai, tmp_path, 3)

    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.strip().splitlines()[-1] == (
        "ljtui run: the model's reply was cut off at its token limit (provider.max_tokens = 3) before it wrote "
        "anything complete: raise provider.max_tokens, or ask for something shorter")
