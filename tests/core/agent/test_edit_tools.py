"""The agent's file tools on a real git repository: asked first, written through the transaction, undone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.edits.recovery import undo_last
from ljtui.core.engine import Engine
from ljtui.core.events import PermissionDecided, PermissionRequested
from ljtui.core.ports import ListSink

ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"


def make_engine(repo: Path, approver: ScriptedApprover, **agent: object) -> tuple[Engine, ListSink]:
    config = Config()
    for key, value in agent.items():
        setattr(config.agent, key, value)
    sink = ListSink()
    return Engine(config, sink, repo_root=repo, clock=FixedClock(), approver=approver), sink


async def call(engine: Engine, name: str, turn: int = 1, **args: object):
    return await engine.tools.call(name, args, engine.tool_context(turn, f"call-{name}"))


async def test_edit_file_asks_with_the_diff_and_writes_through_the_transaction(git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["once"]})
    engine, sink = make_engine(git_repo, approver)
    result = await call(engine, "edit_file", path="app.py", old="    return 'hello ' + name\n",
                        new="    return f'hello {name}!'\n")
    assert result.ok and result.summary == "wrote app.py"
    [asked] = approver.asked
    assert asked.title == "Edit app.py?" and "-    return 'hello ' + name" in asked.lines
    assert [c.id for c in asked.choices] == ["once", "session", "deny"]
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return f'hello {name}!'\n"
    decided = [e for e in sink.events if isinstance(e, PermissionDecided)]
    assert [(d.tool, d.decision, d.scope) for d in decided] == [("edit_file", "allow", "once")]
    assert undo_last(git_repo).ok and (git_repo / "app.py").read_text() == ORIGINAL


async def test_a_session_grant_stops_the_asking_and_undo_reverts_the_whole_message(git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["session", "once"]})
    engine, sink = make_engine(git_repo, approver)
    assert engine.services.writer is not None
    engine.services.writer.new_message()
    assert (await call(engine, "write_file", path="notes/a.txt", content="one\n")).ok
    assert (await call(engine, "write_file", path="notes/b.txt", content="two\n")).ok  # granted: not asked
    assert (await call(engine, "edit_file", path="app.py", old="'hello '", new="'hi '")).ok  # another tool: asked
    assert len(approver.asked) == 2
    decided = [(d.tool, d.decision, d.scope) for d in sink.events if isinstance(d, PermissionDecided)]
    assert decided == [("write_file", "allow", "session"), ("write_file", "allow", "session"),
                       ("edit_file", "allow", "once")]
    undone = undo_last(git_repo)
    assert undone.ok and sorted(undone.files) == ["app.py", "notes/a.txt", "notes/b.txt"]
    assert (git_repo / "app.py").read_text() == ORIGINAL and not (git_repo / "notes").exists()


async def test_a_denied_write_is_a_tool_error_and_nothing_is_written(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, ScriptedApprover())
    result = await call(engine, "write_file", path="app.py", content="oops\n")
    assert not result.ok and "the user denied this write_file call" in result.content
    assert (git_repo / "app.py").read_text() == ORIGINAL and not (git_repo / ".agent" / "journal").exists()


async def test_allow_listed_tools_write_without_asking_but_are_still_reported(git_repo: Path) -> None:
    approver = ScriptedApprover()
    engine, sink = make_engine(git_repo, approver, allow_tools=["write_file"])
    assert (await call(engine, "write_file", path="new.txt", content="x\n")).ok
    assert approver.asked == []
    assert [type(e) for e in sink.events if isinstance(e, (PermissionRequested, PermissionDecided))] == [
        PermissionRequested, PermissionDecided]
    assert [e.scope for e in sink.events if isinstance(e, PermissionDecided)] == ["policy"]


@pytest.mark.parametrize(("path", "message"), [
    ("../outside.txt", "uses `..`"),
    ("/etc/passwd", "is absolute"),
    (".git/config", ".git"),
    (".agent/memory.md", ".agent/"),
    ("sub\\file.txt", "backslash"),
])
async def test_writes_outside_or_into_protected_places_are_refused_before_asking(
        git_repo: Path, path: str, message: str) -> None:
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    result = await call(engine, "write_file", path=path, content="x\n")
    assert not result.ok and message in result.content and approver.asked == []


async def test_a_symlink_out_of_the_repository_is_never_written_through(git_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, git_repo / "link")
    engine, _ = make_engine(git_repo, ScriptedApprover({"permission": ["once"]}))
    result = await call(engine, "write_file", path="link/x.txt", content="x\n")
    assert not result.ok and "outside the repo root" in result.content and list(outside.iterdir()) == []


async def test_edit_file_follows_the_edit_rules_with_candidates(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, ScriptedApprover({"permission": ["once"]}))
    missing = await call(engine, "edit_file", path="app.py", old="return 'helo ' + name", new="x")
    assert not missing.ok and missing.content.startswith("error: AnchorNotFound: `old` does not occur in app.py")
    assert "nearest: app.py:2" in missing.content
    (git_repo / "twice.py").write_text("x = 1\nx = 1\n")
    twice = await call(engine, "edit_file", path="twice.py", old="x = 1\n", new="x = 2\n")
    assert not twice.ok and "occurs 2 times in twice.py, at lines 1, 2" in twice.content
    deeper = await call(engine, "edit_file", path="app.py", old="  return 'hello ' + name\n", new="")
    assert not deeper.ok and "AnchorNotFound" in deeper.content


async def test_read_only_files_and_unchanged_content_are_not_written(git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    same = await call(engine, "write_file", path="app.py", content=ORIGINAL)
    assert same.ok and "nothing was written" in same.content and approver.asked == []
    os.chmod(git_repo / "app.py", 0o444)
    refused = await call(engine, "write_file", path="app.py", content="x\n")
    assert not refused.ok and "read-only" in refused.content


async def test_create_directory_asks_and_stays_inside(git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["once", "once"]})
    engine, _ = make_engine(git_repo, approver)
    made = await call(engine, "create_directory", path="a/b/c")
    assert made.ok and (git_repo / "a" / "b" / "c").is_dir()
    again = await call(engine, "create_directory", path="a/b")
    assert again.ok and "already exists" in again.content and len(approver.asked) == 1
    assert not (await call(engine, "create_directory", path="app.py")).ok
    assert not (await call(engine, "create_directory", path=".git/hooks/x")).ok


async def test_hostile_arguments_are_tool_errors(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, ScriptedApprover({"permission": ["once"]}))
    for args in ({"path": 3, "content": "x"}, {"path": "a\x00b", "content": "x"}, {"path": "a", "content": "\ud800"},
                 {"content": "x"}):
        result = await engine.tools.call("write_file", args, engine.tool_context(1, "c"))
        assert not result.ok and result.content.startswith("error: ")


async def test_read_tools_refuse_secrets_and_work_on_the_repo(git_repo: Path) -> None:
    (git_repo / ".env").write_text("TOKEN=abc\n")
    engine, _ = make_engine(git_repo, ScriptedApprover())
    assert (await call(engine, "read_file", path="app.py")).ok
    secret = await call(engine, "read_file", path=".env")
    assert not secret.ok and "TOKEN=abc" not in secret.content and "security.allow_secret_files" in secret.content
    hits = await call(engine, "grep_files", pattern="TOKEN|greet")
    assert "app.py:1" in hits.content and "TOKEN=abc" not in hits.content
    listing = await call(engine, "list_files")
    assert "app.py" in listing.content


async def test_a_stale_read_is_refused_at_write_time(git_repo: Path) -> None:
    approver = ScriptedApprover()
    engine, _ = make_engine(git_repo, approver)

    async def change_then_allow(request):
        (git_repo / "app.py").write_text("changed meanwhile\n")
        return Decision("once")

    approver.decide = change_then_allow  # the file changes while the user looks at the dialog
    result = await call(engine, "write_file", path="app.py", content="mine\n")
    assert not result.ok and "StalePlan" in result.content
    assert (git_repo / "app.py").read_text() == "changed meanwhile\n"
