"""A check's evidence comes from really running its command: exit code, time limit, output, environment."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from ljtui.core.agent.shell import HEAD_CHARS, TAIL_CHARS
from ljtui.core.clock import SystemClock
from ljtui.core.gates.checks import run_check
from ljtui.core.gates.model import CheckItem, Evidence
from ljtui.core.gates.workspace import command_env
from tests.core.agent.helpers import processes_in
from tests.core.confine.helpers import confinement_for

LONG = 60.0
"""A time limit no command here should reach."""
HASH = "abc123"
SHORT = 3.0
"""A time limit the test's command reaches (long enough for bash to start on a loaded box)."""


async def check(command: str, cwd: Path, timeout: float = LONG, **kwargs: object) -> Evidence:
    return await run_check(CheckItem("tests", "the tests pass", command), cwd, confinement=confinement_for(cwd),
                           env=command_env(cwd), timeout=timeout, content_hash=HASH, agent="chat",
                           clock=SystemClock(), **kwargs)  # type: ignore[arg-type]


async def test_a_passing_check_records_everything(tmp_path: Path) -> None:
    evidence = await check("pwd; echo done", tmp_path, verifier="verifier-1")
    assert evidence.exit_code == 0 and evidence.passed
    assert evidence.output == f"{os.path.realpath(tmp_path)}\ndone\n"
    assert (evidence.item, evidence.command, evidence.content_hash) == ("tests", "pwd; echo done", HASH)
    assert (evidence.agent, evidence.verifier) == ("chat", "verifier-1")
    assert evidence.duration_ms >= 0 and evidence.at > 0


async def test_a_failing_check_is_evidence_not_an_error(tmp_path: Path) -> None:
    evidence = await check("echo failing >&2; exit 1", tmp_path)
    assert evidence.exit_code == 1 and not evidence.passed
    assert evidence.output == "failing\n"


async def test_a_check_past_its_time_is_killed_with_its_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    evidence = await check(f"sleep 300 & echo $! > {pid_file}; echo started; wait", tmp_path, timeout=SHORT)
    assert evidence.exit_code is None and not evidence.passed
    assert evidence.output.startswith("started\n") and "no exit after 3 s" in evidence.output
    assert pid_file.exists() and processes_in(tmp_path) == [], "the background child was killed"


async def test_a_cancelled_check_has_no_exit_code(tmp_path: Path) -> None:
    cancelled = asyncio.Event()
    task = asyncio.ensure_future(check("echo ready; sleep 300", tmp_path, cancelled=cancelled,
                                       on_output=lambda text: cancelled.set()))
    evidence = await task
    assert evidence.exit_code is None and "cancelled" in evidence.output


async def test_a_long_output_keeps_its_head_and_tail(tmp_path: Path) -> None:
    evidence = await check("for i in $(seq 1 20000); do echo line-$i; done", tmp_path)
    assert evidence.exit_code == 0
    assert evidence.output.startswith("line-1\nline-2\n") and evidence.output.endswith("line-20000\n")
    assert "characters cut from the middle" in evidence.output
    assert len(evidence.output) < HEAD_CHARS + TAIL_CHARS + 200


async def test_no_api_key_reaches_the_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    evidence = await check('echo "[$ANTHROPIC_API_KEY][$OPENAI_API_KEY]"; cat; echo stdin-empty', tmp_path)
    assert evidence.output == "[][]\nstdin-empty\n"


async def test_git_in_the_check_does_not_climb_out_of_the_staging_tree(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    tree = tmp_path / "ws" / "tree"
    tree.mkdir(parents=True)
    evidence = await check("git rev-parse --show-toplevel", tree)
    assert evidence.exit_code != 0 and "not a git repository" in evidence.output


async def test_a_missing_folder_is_evidence_with_no_exit_code(tmp_path: Path) -> None:
    evidence = await check("true", tmp_path / "missing")
    assert evidence.exit_code is None and "could not start" in evidence.output
