"""``ljtui run "/NAME ARGS"``: one of the user's own slash commands is expanded and sent as the message (no
routing call); a malformed file is named on stderr; other text is sent as it is. Real ``ljtui`` processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fixtures import SCRIPTS

TIMEOUT = 120


def ljtui(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", "run", "--json", "--provider", "scripted",
                           "--script", str(SCRIPTS / "hello.yaml"), "--repo", str(repo), *args],
                          capture_output=True, text=True, timeout=TIMEOUT, env=env)


def turns(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The text of each turn the run started (what the model was sent as the user's message)."""
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return [e["text"] for e in events if e["kind"] == "turn_started"]


def test_a_user_command_is_expanded_and_sent(git_repo: Path, isolated_env: Path) -> None:
    folder = isolated_env / "ljtui" / "commands" / "docs"
    folder.mkdir(parents=True)
    (folder / "explain.md").write_text("---\ndescription: Explain\n---\nExplain $1 ($ARGUMENTS).", encoding="utf-8")
    (folder / "bad.md").write_bytes(b"\xff\xfe")
    proc = ljtui(git_repo, "/docs:explain greet briefly")
    assert proc.returncode == 0, proc.stderr
    assert turns(proc) == ["Explain greet (greet briefly)."]
    assert f"ljtui run: user command {folder / 'bad.md'}: not UTF-8 text; skipped" in proc.stderr


def test_text_that_names_no_command_is_sent_as_it_is(git_repo: Path, isolated_env: Path) -> None:
    (isolated_env / "ljtui" / "commands").mkdir()
    proc = ljtui(git_repo, "--chat", "/nothing here")
    assert proc.returncode == 0, proc.stderr
    assert turns(proc) == ["/nothing here"]
