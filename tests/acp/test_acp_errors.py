"""What ``ljtui acp`` refuses, and how: each bad request is a JSON-RPC error naming what is wrong, and the
connection goes on; an untrusted repository's settings are asked about through the client before they count."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from acp import RequestError, text_block
from acp.schema import EmbeddedResourceContentBlock, McpServerStdio, ResourceContentBlock, TextResourceContents

from ljtui.acp_agent.agent import prompt_text
from ljtui.acp_agent.approver import options
from ljtui.acp_agent.updates import Translator, call_title, inside, read_text
from ljtui.core.agent.permissions import permission_request
from ljtui.core.events import Notice, TokenDelta, ToolCallFinished, ToolCallStarted, ToolOutput, TurnFailed
from tests.acp.client import WAIT_SECONDS, Editor, ljtui_acp
from tests.fixtures import SCRIPTS


async def test_bad_requests_are_errors_naming_the_problem_and_the_connection_goes_on(git_repo: Path) -> None:
    editor = Editor()
    async with ljtui_acp(git_repo, SCRIPTS / "hello.yaml", editor) as (conn, _):
        for cwd, said in (("relative/dir", "must be an absolute path"), (str(git_repo / "app.py"), "not a directory")):
            with pytest.raises(RequestError) as refused:
                await conn.new_session(cwd=cwd, mcp_servers=[])
            assert said in json.dumps(refused.value.data)
        with pytest.raises(RequestError) as refused:
            await conn.prompt(session_id="not-a-session", prompt=[text_block("hello")])
        assert "no session 'not-a-session'" in json.dumps(refused.value.data)
        bad = McpServerStdio(name="has space", command="true", args=[], env=[])
        session_id = (await conn.new_session(cwd=str(git_repo),
                                             mcp_servers=[bad])).session_id
        with pytest.raises(RequestError) as refused:
            await conn.prompt(session_id=session_id, prompt=[text_block("   ")])
        assert "no text" in json.dumps(refused.value.data)
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=session_id, mode_id="architect")
        response = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("hello")]),
                                          WAIT_SECONDS)
    assert response.stop_reason == "end_turn"
    warnings = [u.content.text for u in editor.of("agent_message_chunk") if "Warning:" in u.content.text]
    assert any("MCP server from the client left out: server name 'has space'" in w for w in warnings), warnings


async def test_with_repo_a_session_opens_only_in_that_repository(git_repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with ljtui_acp(git_repo, SCRIPTS / "hello.yaml", Editor(), "--repo", str(git_repo)) as (conn, _):
        with pytest.raises(RequestError) as refused:
            await conn.new_session(cwd=str(elsewhere), mcp_servers=[])
        assert "the only repository this agent opens sessions in" in json.dumps(refused.value.data)
        session = await conn.new_session(cwd=str(git_repo), mcp_servers=[])
    assert session.session_id


async def test_an_untrusted_repositorys_servers_wait_for_the_trust_question_asked_through_the_client(
        git_repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "started"
    server = {"command": "sh", "args": ["-c", f"touch {marker}"]}
    (git_repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": server}}), encoding="utf-8")
    editor = Editor(lambda call, options: "reject_once")
    async with ljtui_acp(git_repo, SCRIPTS / "hello.yaml", editor) as (conn, _):
        session_id = (await conn.new_session(cwd=str(git_repo), mcp_servers=[])).session_id
        assert editor.asked == [], "nothing is asked before the first prompt"
        response = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block("hello")]),
                                          WAIT_SECONDS)
    assert response.stop_reason == "end_turn"
    [(question, answers)] = editor.asked
    assert "Trust" in question.title and "repo" in question.content[0].content.text
    assert [a.kind for a in answers][-1] == "reject_once"
    assert "Not trusted" in editor.said()
    assert not marker.exists(), "the repository's server never started"


def test_a_prompt_is_its_text_with_embedded_files_fenced_and_links_named() -> None:
    blocks = [text_block("Fix this:"),
              EmbeddedResourceContentBlock(type="resource", resource=TextResourceContents(
                  uri="file:///repo/app.py", text="def greet(): ...")),
              ResourceContentBlock(type="resource_link", name="README.md", uri="file:///repo/README.md")]
    assert prompt_text(blocks) == ("Fix this:\n\nfile:///repo/app.py:\n````\ndef greet(): ...\n````\n\n"
                                   "[README.md](file:///repo/README.md)")


def test_each_answer_is_an_option_whose_kind_says_how_long_it_holds() -> None:
    request = permission_request("write_file", "a.py", "Write a.py?", ("+ x",), None)
    assert [(o.option_id, o.kind) for o in options(request)] == [
        ("once", "allow_once"), ("session", "allow_always"), ("deny", "reject_once")]
    dangerous = permission_request("write_file", "a.py", "Write a.py?", ("+ x",), "it overwrites .git")
    assert [o.kind for o in options(dangerous)] == ["allow_once", "reject_once"]


def test_a_path_out_of_the_repository_or_through_a_link_gives_no_location_and_no_diff(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("the key\n", encoding="utf-8")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    assert inside(root, "../secret.txt") is None and inside(root, "/etc/passwd") is None
    assert inside(root, "a/../b.txt") == root / "b.txt"
    assert read_text(root / "link.txt") is None
    translator = Translator(root)
    for path in ("../secret.txt", "link.txt"):
        start = translator.updates(ToolCallStarted(1, f"c-{path}", "write_file", {"path": path, "content": "x"}))[0]
        if path == "link.txt":
            assert start.locations[0].path == str(root / "link.txt")
            assert start.content[0].old_text is None, "the link's target is never read"
        else:
            assert start.locations is None and start.content is None


def test_a_calls_title_shows_controls_and_is_one_bounded_line() -> None:
    title = call_title("bash", {"command": "echo hi\x1b]0;owned\x07\n" + "x" * 400})
    assert "\x1b" not in title and "\n" not in title and len(title) <= 160 and title.startswith("bash: echo hi")


def test_hostile_text_from_the_model_a_command_or_a_notice_reaches_the_client_with_its_controls_shown(
        tmp_path: Path) -> None:
    from tests.fixtures.hostile import RAW_BYTES, one_of_each

    hostile = one_of_each()
    translator = Translator(tmp_path)
    events = [ToolCallStarted(1, "c1", "bash", {"command": hostile}), TokenDelta(1, hostile),
              ToolOutput(1, "c1", hostile), Notice(hostile, "error"), Notice(hostile),
              ToolCallFinished(1, "c1", "bash", False, hostile, output=hostile), TurnFailed(1, "x", hostile)]
    sent = [u.model_dump() for e in events for u in translator.updates(e)]
    assert len(sent) == len(events)
    for update in sent:
        texts = list(_strings(update))
        assert any("\\x1b" in t for t in texts), "the controls are there, shown"
        for text in texts:
            assert not RAW_BYTES.search(text.encode()), text


def _strings(value: object):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


async def test_a_fault_inside_a_prompt_is_an_error_notice_then_an_internal_error(git_repo: Path) -> None:
    from ljtui.acp_agent.agent import LjtuiAgent

    editor = Editor()
    agent = LjtuiAgent({"PATH": "/usr/bin:/bin"}, {"provider.name": "scripted",
                                                    "provider.script": str(SCRIPTS / "hello.yaml")})
    agent.on_connect(editor)  # type: ignore[arg-type]
    try:
        session_id = (await agent.new_session(cwd=str(git_repo))).session_id

        async def broken(text: str) -> None:
            raise RuntimeError("the planner's index is corrupt")

        agent.sessions[session_id].engine.handle_message = broken  # type: ignore[method-assign]
        agent.sessions[session_id].prepared = True
        with pytest.raises(RequestError) as failed:
            await agent.prompt(prompt=[text_block("hello")], session_id=session_id)
    finally:
        await agent.close()
    assert failed.value.code == -32603
    assert "Error: Internal error: RuntimeError: the planner's index is corrupt" in editor.said()


def test_the_sandbox_is_said_once_and_an_unsandboxed_session_is_a_warning(tmp_path: Path) -> None:
    from ljtui.core.events import SandboxChecked

    translator = Translator(tmp_path)
    [confined] = translator.updates(SandboxChecked("landlock", True, "the kernel has it", "network: off"))
    [unconfined] = translator.updates(SandboxChecked("none", False, "no Landlock and no bubblewrap", ""))
    assert confined.session_update == "agent_thought_chunk"
    assert "landlock sandbox: network: off" in confined.content.text
    assert unconfined.session_update == "agent_message_chunk"
    assert "Warning: unsandboxed: no Landlock and no bubblewrap. Every command asks first" in unconfined.content.text
