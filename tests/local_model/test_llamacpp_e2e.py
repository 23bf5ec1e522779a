"""``ljtui run`` and ``ljtui doctor`` as real processes against llama.cpp's own server on SmolLM2-135M.

The recorded streams of ``tests/fixtures/real_streams`` replay what such a server sent; these tests talk to
one. The user config sends a plain request straight to chat (one model call) and keeps replies short.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git
from tests.local_model.conftest import CONTEXT, MODEL_NAME

pytest.importorskip("xllamacpp", reason="no llama.cpp server here: pip install '.[local-model]'")

RUN_TIMEOUT = 1200
"""Seconds one ``ljtui`` process may take: the first call reads ljtui's whole prompt on two CPU threads."""
CONFIG = """\
agent:
  layer: off
  routing: chat
  max_iterations: 3
provider:
  max_tokens: 48
  timeout: 600
  call_timeout: 900
  max_retries: 2
  retry_delay: 0.1
"""
"""A plain request goes straight to chat; replies are short; a slow machine has time to read the prompt. The
server closes its connection after each streamed reply, so a later call of a run (after a tool call) may meet a
closed connection and retry."""
QUESTION = "Say hello in one short sentence."


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository for the whole module: the same prompt prefix, which the server keeps cached."""
    root = tmp_path_factory.mktemp("local-model") / "sample"
    root.mkdir()
    (root / "README.md").write_text("# sample\n", encoding="utf-8")
    (root / "app.py").write_text("def greet(name):\n    return 'hello ' + name\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture(autouse=True)
def user_config(isolated_env: Path) -> Path:
    path = isolated_env / "ljtui" / "config.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def ljtui(server: str, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ljtui COMMAND …`` pointed at ``server``, in ``repo``, with the test's environment (its config dirs)."""
    command, *rest = args
    model = ("--provider", "openai-compatible", "--base-url", f"{server}/v1", "--model", MODEL_NAME)
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", command, *model, "--repo", str(repo), *rest],
                          cwd=repo, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=dict(os.environ),
                          stdin=subprocess.DEVNULL)


def test_a_plain_question_is_answered_in_text(llama_server: str, repo: Path) -> None:
    done = ljtui(llama_server, repo, "run", QUESTION)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), done.stderr


def test_json_shows_the_call_its_tokens_and_the_finished_turn(llama_server: str, repo: Path) -> None:
    done = ljtui(llama_server, repo, "run", "--json", QUESTION)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["kind"] for e in events]
    assert {"model_call_started", "usage_recorded", "turn_finished"} <= set(kinds), kinds
    started = next(e for e in events if e["kind"] == "model_call_started")
    assert (started["provider"], started["model"]) == ("openai-compatible", MODEL_NAME)
    for usage in (e["call"] for e in events if e["kind"] == "usage_recorded"):
        assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0, usage
    assert kinds.index("model_call_started") < kinds.index("usage_recorded") < kinds.index("turn_finished")
    assert next(e for e in events if e["kind"] == "turn_finished")["stop_reason"], events[-1]


def test_doctor_reads_the_window_the_server_runs_with(llama_server: str, repo: Path) -> None:
    done = ljtui(llama_server, repo, "doctor")
    assert f"context window  {CONTEXT:,} tokens (llama.cpp /props n_ctx)" in done.stdout.splitlines(), (
        done.stdout + done.stderr)
