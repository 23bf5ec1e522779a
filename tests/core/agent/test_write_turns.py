"""A file that changes between the dialog and the write: an edit is made on what is there now, or refused."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from ljtui.core.agent.writer import AgentWriter
from ljtui.core.approval import Decision, ScriptedApprover
from ljtui.core.clock import FixedClock
from ljtui.core.edits.write_queue import queue_for
from tests.core.agent.test_edit_tools import call, make_engine


def changing_to(repo: Path, text: str) -> ScriptedApprover:
    """An approver that allows, after the file changed on disk while the dialog was open."""
    approver = ScriptedApprover()

    async def change_then_allow(request):
        (repo / "app.py").write_text(text)
        return Decision("once")

    approver.decide = change_then_allow
    return approver


async def test_an_edit_whose_file_changed_elsewhere_is_made_on_the_current_bytes(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, changing_to(git_repo, "# a comment added meanwhile\ndef greet(name):\n"
                                                           "    return 'hello ' + name\n"))
    result = await call(engine, "edit_file", path="app.py", old="'hello '", new="'hi '")
    assert result.ok, result.content
    assert "app.py changed on disk after this edit was worked out" in result.content
    assert (git_repo / "app.py").read_text() == ("# a comment added meanwhile\ndef greet(name):\n"
                                                 "    return 'hi ' + name\n")


async def test_an_edit_that_no_longer_applies_after_a_change_is_refused_and_writes_nothing(git_repo: Path) -> None:
    engine, _ = make_engine(git_repo, changing_to(git_repo, "def greet(name):\n    return 'hey ' + name\n"))
    result = await call(engine, "edit_file", path="app.py", old="'hello '", new="'hi '")
    assert not result.ok
    assert "StalePlan: app.py changed on disk after this edit was worked out, and the edit no longer applies" \
        in result.content
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'hey ' + name\n"


def changing_before_plan(monkeypatch, repo: Path, texts: list[str]) -> None:
    """Another writer lands between the edit's match and its plan, once per text."""
    plan = AgentWriter.plan

    def landed_then_plan(self, path, content):  # type: ignore[no-untyped-def]
        if texts:
            (repo / "app.py").write_text(texts.pop(0))
        return plan(self, path, content)

    monkeypatch.setattr(AgentWriter, "plan", landed_then_plan)


async def test_an_edit_matched_before_another_write_landed_is_matched_again_and_made(git_repo: Path,
                                                                                   monkeypatch) -> None:
    changing_before_plan(monkeypatch, git_repo, ["# added meanwhile\ndef greet(name):\n    return 'hello ' + name\n"])
    engine, _ = make_engine(git_repo, ScriptedApprover({"permission": ["once"]}))
    result = await call(engine, "edit_file", path="app.py", old="'hello '", new="'hi '")
    assert result.ok, result.content
    assert (git_repo / "app.py").read_text() == "# added meanwhile\ndef greet(name):\n    return 'hi ' + name\n"


async def test_an_edit_whose_file_keeps_changing_as_it_is_prepared_is_refused_and_writes_nothing(
        git_repo: Path, monkeypatch) -> None:
    versions = [f"# change {n}\ndef greet(name):\n    return 'hello ' + name\n" for n in range(10)]
    changing_before_plan(monkeypatch, git_repo, list(versions))
    approver = ScriptedApprover({"permission": ["once"]})
    engine, _ = make_engine(git_repo, approver)
    result = await call(engine, "edit_file", path="app.py", old="'hello '", new="'hi '")
    assert not result.ok
    assert result.content == "error: app.py kept changing while the edit was prepared; read it again"
    assert approver.asked == [], "nothing was asked"
    assert "'hello '" in (git_repo / "app.py").read_text()


class HeldClock(FixedClock):
    """A clock whose reading, taken inside the transaction, waits until the test lets it go."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = threading.Event()
        self.go = threading.Event()

    def now(self) -> float:
        self.inside.set()
        self.go.wait(10)
        return super().now()


async def test_cancelling_a_write_under_way_waits_for_it_and_keeps_the_turn_until_it_ends(tmp_path: Path) -> None:
    clock = HeldClock()
    writer = AgentWriter(tmp_path, clock)
    planned = writer.plan("notes.txt", b"all of it\n")
    write = asyncio.ensure_future(writer.write_in_turn(planned, entry="write_file notes.txt"))
    assert await asyncio.to_thread(clock.inside.wait, 10), "the transaction is under way"
    write.cancel()
    await asyncio.sleep(0.05)
    assert not write.done(), "the cancelled write waits for the bytes being written"
    assert not queue_for(tmp_path).acquire(0), "and holds the turn meanwhile"
    clock.go.set()
    with pytest.raises(asyncio.CancelledError):
        await write
    assert (tmp_path / "notes.txt").read_bytes() == b"all of it\n", "written whole, never half"
    assert queue_for(tmp_path).acquire(0), "the turn is free once it ended"
    queue_for(tmp_path).release()
