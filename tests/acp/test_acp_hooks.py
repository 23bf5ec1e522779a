"""Hooks in an editor's session (``ljtui acp`` driven by the ACP SDK's own client): ``SessionStart`` hears
``startup`` for a new session and ``resume`` for a loaded one, and a ``PreToolUse`` hook's refusal reaches the
editor as the call's failure."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import yaml

from tests.acp.client import WAIT_SECONDS, Editor, ljtui_acp
from tests.acp.test_acp_agent import new_session, prompt
from tests.conftest import DIRECT_CONFIG
from tests.fixtures import SCRIPTS


def user_hooks(config_home: Path, hooks: dict[str, object]) -> None:
    text = DIRECT_CONFIG + yaml.safe_dump({"hooks": hooks})
    (config_home / "ljtui" / "config.yaml").write_text(text, encoding="utf-8")


async def test_session_start_hears_startup_then_resume_and_a_refused_call_fails_in_the_editor(
        git_repo: Path, isolated_env: Path) -> None:
    user_hooks(isolated_env, {
        "SessionStart": [{"hooks": [{"type": "command", "command": "jq -c '{source}' >> .starts"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                      "command": "echo 'no commands here' >&2; exit 2"}]}]})
    editor = Editor()
    async with ljtui_acp(git_repo, SCRIPTS / "bash_quick.yaml", editor) as (conn, _):
        session_id = await new_session(conn, git_repo)
        await prompt(conn, session_id, "list the files")
    [start] = [u for u in editor.of("tool_call") if u.title.startswith("bash")]
    end = editor.call(start.tool_call_id)[-1]
    assert end.status == "failed"
    assert any("no commands here" in getattr(c.content, "text", "") for c in end.content)
    again = Editor()
    async with ljtui_acp(git_repo, SCRIPTS / "hello.yaml", again) as (conn, _):
        await asyncio.wait_for(conn.load_session(cwd=str(git_repo), session_id=session_id, mcp_servers=[]),
                               WAIT_SECONDS)
        await prompt(conn, session_id, "and now?")
    starts = [json.loads(line) for line in (git_repo / ".starts").read_text(encoding="utf-8").splitlines()]
    assert starts == [{"source": "startup"}, {"source": "resume"}]
