"""``ljtui run``: one request, no UI, text or JSON-lines out, honest exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.cli.main import main
from ljtui.core.trust import TrustStore
from tests.fakes import anthropic_api as api
from tests.fixtures import SCRIPTS
from tests.fakes import openai_api as oapi
from tests.fakes.fixtures import FAKE_KEY
from tests.fakes.server import FakeSSEServer

SCRIPT = SCRIPTS / "hello.yaml"
FAST_CONFIG = ("provider:\n  timeout: 1\n  max_retries: 2\n  retry_delay: 0.01\n  retry_max_delay: 0.01\n"
               "agent:\n  routing: chat\n")
"""Test-speed timeouts and retries; plain requests go to chat without a routing call (these tests replay
the model's answers in order)."""


@pytest.fixture
def fast_config(isolated_env: Path) -> Path:
    """A user config with test-speed timeouts and retries."""
    path = isolated_env / "ljtui" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FAST_CONFIG, encoding="utf-8")
    return path


def json_events(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_scripted_text_mode_streams_the_reply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "hello", "--script", str(SCRIPT), "--repo", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("I read the repository.") and out.endswith("\n")
    assert err.startswith("tokens: ")


def test_scripted_json_mode_prints_one_event_per_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "hello", "--provider", "scripted", "--script", str(SCRIPT), "--json",
                 "--repo", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    events = json_events(out)
    assert [e["kind"] for e in events[:5]] == ["sandbox_checked", "model_call_started", "message_routed",
                                               "turn_started", "model_call_started"]
    assert isinstance(events[0]["confined"], bool) and events[0]["why"]
    events = events[2:]
    assert events[0]["route"] == "chat"
    assert [e["kind"] for e in events[-2:]] == ["usage_recorded", "turn_finished"]
    assert "".join(e["text"] for e in events if e["kind"] == "token_delta") == events[-1]["text"]
    assert err == ""


def test_anthropic_json_run_never_prints_the_key(
    fake_anthropic: FakeSSEServer, fast_config: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    fake_anthropic.queue(api.text_reply(f"Sure. (Your key was {FAKE_KEY}.)", input_tokens=9))
    code = main(["run", "hi", "--provider", "anthropic", "--model", "claude-test",
                 "--base-url", fake_anthropic.url, "--json", "--repo", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    events = json_events(out)
    assert events[-1]["kind"] == "turn_finished" and events[-1]["text"] == "Sure. (Your key was [redacted].)"
    assert events[-2]["call"]["input_tokens"] == 9
    assert FAKE_KEY not in out + err


def test_failure_exits_1_with_one_clear_line(
    fake_anthropic: FakeSSEServer, fast_config: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    fake_anthropic.queue(*[api.overloaded()] * 3)
    code = main(["run", "hi", "--provider", "anthropic", "--model", "claude-test", "--base-url", fake_anthropic.url,
                 "--repo", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith("ljtui run: the Anthropic API is overloaded (HTTP 529); still failing after 2 retries")
    assert "Traceback" not in err and FAKE_KEY not in err


def test_openai_compatible_by_flags(
    fake_openai: FakeSSEServer, fast_config: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    fake_openai.queue(oapi.text_reply("local answer"))
    code = main(["run", "hi", "--provider", "openai-compatible", "--model", "qwen", "--base-url",
                 fake_openai.url + "/v1", "--repo", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert code == 0 and out == "local answer\n"
    assert fake_openai.requests[0].json["model"] == "qwen"


def test_missing_key_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "hi", "--repo", str(tmp_path)]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("ljtui run: no model is configured: set ANTHROPIC_API_KEY") and err.count("\n") == 1


def test_empty_request_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "  ", "--script", str(SCRIPT), "--repo", str(tmp_path)]) == 2


def test_real_process_unreachable_server_no_traceback(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("provider:\n  timeout: 1\n  max_retries: 0\n", encoding="utf-8")
    repo = tmp_path / "repo"  # beside the config file: a repository holding it is refused
    repo.mkdir()
    with FakeSSEServer() as server:
        dead = server.url + "/v1"
    env = {**os.environ, "LJTUI_CONFIG": str(config), "OPENAI_API_KEY": FAKE_KEY}
    proc = subprocess.run(
        [sys.executable, "-m", "ljtui.cli.main", "run", "hi", "--provider", "openai-compatible",
         "--model", "m", "--base-url", dead, "--json", "--repo", str(repo)],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "ljtui run: cannot reach the OpenAI-compatible server at http://127.0.0.1:")
    assert "Traceback" not in proc.stderr and FAKE_KEY not in proc.stdout + proc.stderr
    assert json_events(proc.stdout)[-1]["kind"] == "turn_failed"


def test_anthropic_configured_by_environment_alone(
    fake_anthropic: FakeSSEServer, fast_config: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url)
    monkeypatch.setenv("LJTUI_MODEL", "claude-test")
    fake_anthropic.queue(api.text_reply("from the environment"))
    assert main(["run", "hi", "--repo", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "from the environment\n"


def test_openai_compatible_configured_by_the_repo_config_file(
    fake_openai: FakeSSEServer, fast_config: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    (tmp_path / ".agent").mkdir()
    (tmp_path / ".agent" / "config.yaml").write_text(
        f"provider:\n  name: openai-compatible\n  model: llama\n  base_url: {fake_openai.url}/v1\n"
        "  prices:\n    llama: {input: 1, output: 2}\n", encoding="utf-8")
    TrustStore.for_env().trust(tmp_path, now=0.0)
    fake_openai.queue(oapi.text_reply("configured by file", prompt_tokens=1000, completion_tokens=500))
    assert main(["run", "hi", "--repo", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out == "configured by file\n"
    assert err.strip() == "tokens: 1000 in, 500 out, 0 cache read, 0 cache write, cost $0.0020"
    assert fake_openai.requests[0].json["model"] == "llama"
