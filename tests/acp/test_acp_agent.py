"""``ljtui acp`` driven by the ACP SDK's own client over stdio, with a scripted model: a prompt streamed, a
write asked with its diff and allowed, a denial, a task plan approved whose replan updates the plan entries,
a cancel in the middle of a command, and a saved session loaded and replayed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml
from acp import RequestError, text_block

from tests.acp.client import WAIT_SECONDS, Editor, ljtui_acp
from tests.cli.test_run_plan import SCRIPT as PLAN_SCRIPT
from tests.fixtures import SCRIPTS

ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"
EDITED = "def greet(name):\n    return f'hello, {name}!'\n"
HELLO_TEXT = yaml.safe_load((SCRIPTS / "hello.yaml").read_text(encoding="utf-8"))["turns"][0]["text"]


async def prompt(conn: Any, session_id: str, text: str) -> Any:
    return await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block(text)]), WAIT_SECONDS)


async def new_session(conn: Any, repo: Path) -> str:
    return (await asyncio.wait_for(conn.new_session(cwd=str(repo), mcp_servers=[]), WAIT_SECONDS)).session_id


def edit_call(editor: Editor) -> Any:
    [start] = [u for u in editor.of("tool_call") if u.title.startswith("edit_file")]
    return start


async def test_a_prompt_is_streamed_as_message_chunks_and_answered_end_turn(git_repo: Path) -> None:
    editor = Editor()
    async with ljtui_acp(git_repo, SCRIPTS / "hello.yaml", editor) as (conn, hello):
        caps = hello.agent_capabilities
        assert caps.load_session and caps.prompt_capabilities.embedded_context
        assert not caps.prompt_capabilities.image and hello.agent_info.name == "ljtui"
        session_id = await new_session(conn, git_repo)
        response = await prompt(conn, session_id, "hello")
    assert response.stop_reason == "end_turn"
    assert editor.said() == HELLO_TEXT
    assert editor.asked == [] and editor.written == [], "nothing asked, the client's files never used"


async def test_a_write_is_asked_on_its_call_with_the_diff_and_once_allowed_lands_in_the_file(git_repo: Path) -> None:
    editor = Editor()
    async with ljtui_acp(git_repo, SCRIPTS / "agent_edit.yaml", editor) as (conn, _):
        session_id = await new_session(conn, git_repo)
        response = await prompt(conn, session_id, "make greet friendlier")
    assert response.stop_reason == "end_turn"
    [read] = [u for u in editor.of("tool_call") if u.title.startswith("read_file")]
    assert read.kind == "read" and read.locations[0].path == str(git_repo / "app.py")
    start = edit_call(editor)
    assert start.kind == "edit" and start.locations[0].path == str(git_repo / "app.py")
    [diff] = start.content
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == ("diff", str(git_repo / "app.py"), ORIGINAL, EDITED)
    [(asked, options)] = editor.asked
    assert asked.tool_call_id == start.tool_call_id and "app.py" in asked.title
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once"]
    end = editor.call(start.tool_call_id)[-1]
    assert end.status == "completed" and end.content[0].type == "diff" and end.content[0].new_text == EDITED
    assert (git_repo / "app.py").read_text(encoding="utf-8") == EDITED
    assert editor.written == [], "written by ljtui's transaction, not the client"


async def test_a_rejected_write_leaves_the_file_and_its_call_failed(git_repo: Path) -> None:
    editor = Editor(lambda call, options: "reject_once")
    async with ljtui_acp(git_repo, SCRIPTS / "agent_edit.yaml", editor) as (conn, _):
        response = await prompt(conn, await new_session(conn, git_repo), "make greet friendlier")
    assert response.stop_reason == "end_turn"
    start = edit_call(editor)
    assert editor.call(start.tool_call_id)[-1].status == "failed"
    assert (git_repo / "app.py").read_text(encoding="utf-8") == ORIGINAL


@pytest.mark.parametrize("answer", [None, "id=made-up"], ids=["cancelled", "an option not offered"])
async def test_a_cancelled_request_or_an_answer_not_offered_is_a_denial(git_repo: Path, answer: str | None) -> None:
    editor = Editor(lambda call, options: answer)
    async with ljtui_acp(git_repo, SCRIPTS / "agent_edit.yaml", editor) as (conn, _):
        await prompt(conn, await new_session(conn, git_repo), "make greet friendlier")
    assert len(editor.asked) == 1
    assert editor.call(edit_call(editor).tool_call_id)[-1].status == "failed"
    assert (git_repo / "app.py").read_text(encoding="utf-8") == ORIGINAL


async def test_a_task_plan_is_approved_through_the_client_and_its_replan_updates_the_plan_entries(
        git_repo: Path, tmp_path: Path) -> None:
    script = tmp_path / "plan.yaml"
    route = '{"route": "plan", "skill": null, "reason": "several steps"}'
    script.write_text(yaml.safe_dump({"agents": {**PLAN_SCRIPT["agents"], "router": [{"text": route}]}}),
                      encoding="utf-8")
    editor = Editor(lambda call, options: "reject_once" if "playbook" in call.title.lower() else "allow_once")
    async with ljtui_acp(git_repo, script, editor) as (conn, _):
        response = await prompt(conn, await new_session(conn, git_repo), "make greet friendlier")
    assert response.stop_reason == "end_turn"
    plans = [[(e.content, e.status) for e in u.entries] for u in editor.of("plan")]
    verify = "Verify the result: run the project's tests and checks and confirm the goal is met."
    assert plans[0] == [("Read app.py", "pending"), ("Read README.md", "pending"),
                        ("Make greet friendlier", "pending"), ("Run the greeting", "pending"), (verify, "pending")]
    question, options = editor.asked[0]
    assert question.title == "Run this plan?" and "Make greet friendlier" in question.content[0].content.text
    assert [(o.name, o.kind) for o in options] == [("Run it", "allow_once"),
                                                   ("Run it, allowing its file writes", "allow_once"),
                                                   ("Reject", "reject_once")]
    replanned = next(i for i, plan in enumerate(plans) if ("Look at the result", "pending") in plan)
    assert ("Make greet friendlier", "in_progress") in plans[replanned], "the replan comes while task 3 runs"
    assert ("Make greet friendlier (replanned)", "completed") in plans[replanned + 1]
    assert plans[-1] == [("Read app.py", "completed"), ("Read README.md", "completed"),
                         ("Make greet friendlier (replanned)", "completed"), ("Run the greeting", "completed"),
                         ("Look at the result", "completed"), (verify, "completed")]
    assert (git_repo / "app.py").read_text(encoding="utf-8") == EDITED


async def test_a_cancel_during_a_command_kills_it_and_the_prompt_answers_cancelled(git_repo: Path,
                                                                                 tmp_path: Path) -> None:
    marker = "41.25"  # the sleep's length: found in the process table while it runs
    script = tmp_path / "slow.yaml"
    script.write_text(yaml.safe_dump({"turns": [
        {"text": "Running it.", "tool_calls": [{"name": "bash", "input": {"command": f"echo ready; sleep {marker}"}}]},
        {"text": "never said"}]}), encoding="utf-8")
    editor = Editor()
    async with ljtui_acp(git_repo, script, editor) as (conn, _):
        session_id = await new_session(conn, git_repo)
        running = asyncio.ensure_future(prompt(conn, session_id, "run it"))
        await editor.until(lambda: running.done() or any(
            "ready" in getattr(part.content, "text", "") for u in editor.of("tool_call_update")
            for part in (u.content or [])), "the command's output")
        assert _sleeping(marker), "the command runs"
        await conn.cancel(session_id=session_id)
        response = await asyncio.wait_for(running, WAIT_SECONDS)
        await editor.until(lambda: not _sleeping(marker), "the command to be killed")
    assert response.stop_reason == "cancelled"
    assert "never said" not in editor.said()


async def test_an_editor_that_goes_away_during_a_command_leaves_no_process_behind(git_repo: Path,
                                                                                 tmp_path: Path) -> None:
    marker = "42.75"
    script = tmp_path / "slow.yaml"
    script.write_text(yaml.safe_dump({"turns": [
        {"tool_calls": [{"name": "bash", "input": {"command": f"echo ready; sleep {marker}"}}]}]}), encoding="utf-8")
    editor = Editor()
    async with ljtui_acp(git_repo, script, editor) as (conn, _):
        running = asyncio.ensure_future(prompt(conn, await new_session(conn, git_repo), "run it"))
        await editor.until(lambda: _sleeping(marker), "the command to run")
    running.cancel()
    await asyncio.gather(running, return_exceptions=True)
    await editor.until(lambda: not _sleeping(marker), "the command to be gone with ljtui")


async def test_an_mcp_server_the_editor_passes_is_called_after_the_editor_allows_it(git_repo: Path,
                                                                                   tmp_path: Path) -> None:
    import sys

    from acp.schema import McpServerStdio

    from tests.core.mcp.test_client import BAD_SERVER

    script = tmp_path / "mcp.yaml"
    script.write_text(yaml.safe_dump({"turns": [
        {"tool_calls": [{"name": "mcp__ed__echo", "input": {"text": "from the editor's server"}}]},
        {"text": "It echoed."}]}), encoding="utf-8")
    editor = Editor()
    server = McpServerStdio(name="ed", command=sys.executable, args=[BAD_SERVER, "ok"], env=[])
    async with ljtui_acp(git_repo, script, editor) as (conn, _):
        session_id = (await asyncio.wait_for(conn.new_session(cwd=str(git_repo), mcp_servers=[server]),
                                             WAIT_SECONDS)).session_id
        response = await prompt(conn, session_id, "echo something")
    assert response.stop_reason == "end_turn"
    [start] = [u for u in editor.of("tool_call") if u.title.startswith("mcp__ed__echo")]
    [(question, options)] = editor.asked
    assert question.tool_call_id == start.tool_call_id and "Call echo on the MCP server ed?" in question.title
    assert "from the editor's server" in question.content[0].content.text
    end = editor.call(start.tool_call_id)[-1]
    assert end.status == "completed" and any("from the editor's server" in getattr(c.content, "text", "")
                                             for c in end.content)


async def test_a_saved_session_is_loaded_replayed_and_goes_on(git_repo: Path, tmp_path: Path) -> None:
    first = Editor()
    async with ljtui_acp(git_repo, SCRIPTS / "hello.yaml", first) as (conn, _):
        session_id = await new_session(conn, git_repo)
        await prompt(conn, session_id, "hello there")
    script = tmp_path / "again.yaml"
    script.write_text(yaml.safe_dump({"turns": [{"text": "Welcome back."}]}), encoding="utf-8")
    editor = Editor()
    async with ljtui_acp(git_repo, script, editor) as (conn, _):
        with pytest.raises(RequestError):
            await conn.load_session(cwd=str(git_repo), session_id="no-such-session", mcp_servers=[])
        await asyncio.wait_for(conn.load_session(cwd=str(git_repo), session_id=session_id, mcp_servers=[]),
                               WAIT_SECONDS)
        replayed = [(u.session_update, u.content.text) for u in editor.updates
                    if u.session_update in ("user_message_chunk", "agent_message_chunk")]
        assert replayed == [("user_message_chunk", "hello there"), ("agent_message_chunk", HELLO_TEXT)]
        response = await prompt(conn, session_id, "and now?")
        with pytest.raises(RequestError) as twice:
            await conn.load_session(cwd=str(git_repo), session_id=session_id, mcp_servers=[])
    assert "is open in this connection" in str(twice.value.data)
    assert response.stop_reason == "end_turn" and editor.said().endswith("Welcome back.")


def _sleeping(marker: str) -> bool:
    """A process whose command line holds ``sleep MARKER`` is alive."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:1] and argv[0].endswith(b"sleep") and marker.encode() in argv:
            return True
    return False
