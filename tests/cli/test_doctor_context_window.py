"""``ljtui doctor`` through a real process: the model's context window and where it comes from."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Iterator

import pytest

from ljtui.cli.doctor_model import DOCTOR_TIMEOUT
from tests.cli.test_doctor import doctor
from tests.fakes.server import FakeSSEServer, RecordedRequest, Reply

REAL = Path(__file__).parents[1] / "fixtures" / "real_streams"
NOT_FOUND = Reply(status=404, body={"error": {"message": "File Not Found", "type": "not_found_error", "code": 404}})


def llamacpp(request: RecordedRequest) -> Reply:
    """A llama.cpp server: its real ``/props`` body, and 404 elsewhere."""
    if request.path == "/props":
        return Reply(body=json.loads((REAL / "llamacpp_props.json").read_text(encoding="utf-8")))
    return NOT_FOUND


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def server() -> Iterator[FakeSSEServer]:
    with FakeSSEServer(llamacpp) as running:
        yield running


def local(url: str) -> tuple[str, ...]:
    return ("--provider", "openai-compatible", "--base-url", f"{url}/v1", "--model", "smollm2")


def test_doctor_says_what_a_llamacpp_server_holds(repo: Path, tmp_path: Path, server: FakeSSEServer) -> None:
    done = doctor(repo, tmp_path / "cfg", *local(server.url))
    assert "context window  8,192 tokens (llama.cpp /props n_ctx)" in done.stdout.splitlines(), done.stderr
    report = json.loads(doctor(repo, tmp_path / "cfg", "--json", *local(server.url)).stdout)
    assert report["model"]["context_window"] == {"tokens": 8192, "source": "llama.cpp /props n_ctx"}
    assert [r.path for r in server.probes] == ["/props", "/props"]


def test_the_configured_window_wins_and_nothing_is_asked(repo: Path, tmp_path: Path, server: FakeSSEServer) -> None:
    (repo / ".agent").mkdir()
    (repo / ".agent" / "config.yaml").write_text("provider:\n  context_window: 32768\n", encoding="utf-8")
    done = doctor(repo, tmp_path / "cfg", *local(server.url))
    assert "context window  32,768 tokens (provider.context_window)" in done.stdout
    assert server.probes == []


def test_anthropic_is_its_published_limit_without_a_request(repo: Path, tmp_path: Path,
                                                             server: FakeSSEServer) -> None:
    done = doctor(repo, tmp_path / "cfg", "--model", "claude-sonnet-4-5", ANTHROPIC_BASE_URL=server.url)
    assert "context window  200,000 tokens (published limit of claude-sonnet-4-5)" in done.stdout
    assert server.probes == []


def test_a_server_that_is_down_is_unknown_at_once(repo: Path, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = doctor(repo, tmp_path / "cfg", *local(f"http://127.0.0.1:{port}"))
    assert "context window  unknown (set provider.context_window)" in done.stdout, done.stderr


def test_a_server_that_never_answers_holds_doctor_up_for_the_timeout_only(repo: Path, tmp_path: Path) -> None:
    with FakeSSEServer(lambda request: Reply(hang=True)) as silent:
        started = time.monotonic()
        done = doctor(repo, tmp_path / "cfg", *local(silent.url))
        took = time.monotonic() - started
        assert "context window  unknown (set provider.context_window)" in done.stdout, done.stderr
        assert [r.path for r in silent.probes] == ["/props"]  # one bound for all the questions
    assert DOCTOR_TIMEOUT <= took < DOCTOR_TIMEOUT + 6
