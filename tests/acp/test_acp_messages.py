"""The model's messages as an ACP client reads them: a message after tool calls, or in a later prompt, never runs
into the text before it; a loaded session replays each call's outcome and the notices shown while it ran."""

from __future__ import annotations

import asyncio
from pathlib import Path

import yaml

from tests.acp.client import WAIT_SECONDS, Editor, ljtui_acp
from tests.acp.test_acp_agent import new_session, prompt


def script(tmp_path: Path, turns: list[dict]) -> Path:
    path = tmp_path / "script.yaml"
    path.write_text(yaml.safe_dump({"turns": turns}), encoding="utf-8")
    return path


async def test_a_message_after_tool_calls_is_a_paragraph_apart_and_a_new_prompt_starts_clean(
        git_repo: Path, tmp_path: Path) -> None:
    turns = [{"text": "Reading app.py.", "tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]},
             {"text": "Editing it.", "tool_calls": [{"name": "list_files", "input": {}}]},
             {"text": "It defines greet."},
             {"text": "Nothing else."}]
    editor = Editor()
    async with ljtui_acp(git_repo, script(tmp_path, turns), editor) as (conn, _):
        session_id = await new_session(conn, git_repo)
        await prompt(conn, session_id, "what is in app.py?")
        first = editor.said()
        await prompt(conn, session_id, "anything else?")
    assert first == "Reading app.py.\n\nEditing it.\n\nIt defines greet."
    assert editor.said()[len(first):] == "Nothing else.", "a new prompt's answer starts with its words"


async def test_a_loaded_session_replays_a_failed_call_as_failed_and_the_error_it_showed(git_repo: Path,
                                                                                       tmp_path: Path) -> None:
    turns = [{"text": "Reading both.", "tool_calls": [{"name": "read_file", "input": {"path": "app.py"}},
                                                      {"name": "read_file", "input": {"path": "missing.py"}}]},
             {"text": "One is missing."}]
    first = Editor()
    async with ljtui_acp(git_repo, script(tmp_path, turns), first) as (conn, _):
        session_id = await new_session(conn, git_repo)
        await prompt(conn, session_id, "read both")
        await prompt(conn, session_id, "and again")  # the script has no turn left: the turn fails
    [failure] = [u.content.text for u in first.of("agent_message_chunk") if "no turn left" in u.content.text]
    editor = Editor()
    async with ljtui_acp(git_repo, script(tmp_path, [{"text": "Back."}]), editor) as (conn, _):
        await asyncio.wait_for(conn.load_session(cwd=str(git_repo), session_id=session_id, mcp_servers=[]),
                               WAIT_SECONDS)
    calls = editor.of("tool_call")
    assert [(c.title, c.status) for c in calls] == [("read_file: app.py", "completed"),
                                                    ("read_file: missing.py", "failed")]
    said = editor.said()
    assert said == f"Reading both.\n\nOne is missing.\n\nError: {failure.strip()}\n", "replayed as it was sent"
