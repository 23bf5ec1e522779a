"""The guard around processes: asks once per change, puts back unless kept, and keeps running watches right."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ljtui.core.approval import ScriptedApprover
from ljtui.core.events import Event, Notice
from ljtui.core.gitguard.guard import KEEP, KIND, REVERT, GitSettingsGuard

PLANTED = "#!/bin/sh\necho planted\n"


def plant(repo: Path, name: str = "pre-commit") -> Path:
    path = repo / ".git" / "hooks" / name
    path.write_text(PLANTED, encoding="utf-8")
    path.chmod(0o755)
    return path


def make(repo: Path, answers: list[str] | None = None) -> tuple[GitSettingsGuard, ScriptedApprover, list[Event]]:
    approver = ScriptedApprover({KIND: list(answers or [])})
    events: list[Event] = []
    return GitSettingsGuard(repo, approver.decide, events.append), approver, events


async def test_nothing_changed_asks_nothing(git_repo: Path) -> None:
    guard, approver, events = make(git_repo)
    async with guard.watch("the command `true`") as watch:
        (git_repo / "app.py").write_text("changed\n", encoding="utf-8")
    assert watch.report is None and approver.asked == [] and events == []


async def test_a_planted_hook_is_shown_and_put_back_by_default(git_repo: Path) -> None:
    guard, approver, events = make(git_repo)
    async with guard.watch("the command `python3 x.py`") as watch:
        hook = plant(git_repo)
    [request] = approver.asked
    assert request.safe == REVERT and request.choice(KEEP) is not None
    assert "They changed while the command `python3 x.py` ran:" in request.lines
    assert "+echo planted" in request.lines
    assert not hook.exists()
    assert watch.report is not None and not watch.report.kept
    assert "they were reverted" in watch.report.for_model()
    [notice] = [e for e in events if isinstance(e, Notice)]
    assert notice.level == "warning" and ".git/hooks/pre-commit added" in notice.message


async def test_the_user_may_keep_it_and_is_not_asked_again(git_repo: Path) -> None:
    guard, approver, _ = make(git_repo, [KEEP])
    async with guard.watch("the command `pre-commit install`") as first:
        async with guard.watch("a check") as second:
            hook = plant(git_repo)
    assert hook.read_text(encoding="utf-8") == PLANTED
    assert len(approver.asked) == 1
    assert second.report is not None and second.report.kept and first.report is None
    assert "the user kept them" in second.report.for_model()


async def test_a_revert_is_not_seen_as_a_change_by_a_watch_that_began_after_the_plant(git_repo: Path) -> None:
    guard, approver, _ = make(git_repo)
    first_started = asyncio.Event()
    planted = asyncio.Event()
    finish_second = asyncio.Event()

    async def second() -> None:
        await planted.wait()
        async with guard.watch("the second command") as watch:
            first_started.set()
            await finish_second.wait()
        assert watch.report is None

    other = asyncio.create_task(second())
    async with guard.watch("the first command") as watch:
        hook = plant(git_repo)
        planted.set()
        await first_started.wait()
    assert watch.report is not None and not hook.exists()
    finish_second.set()
    await other
    assert not hook.exists() and len(approver.asked) == 1


async def test_a_cancel_while_asking_puts_back_and_goes_on(git_repo: Path) -> None:
    asked = asyncio.Event()

    async def never(_request):  # type: ignore[no-untyped-def]
        asked.set()
        await asyncio.Event().wait()

    events: list[Event] = []
    guard = GitSettingsGuard(git_repo, never, events.append)

    async def run() -> None:
        async with guard.watch("the command `sleep`"):
            plant(git_repo)

    task = asyncio.create_task(run())
    await asked.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not (git_repo / ".git" / "hooks" / "pre-commit").exists()
    assert any(isinstance(e, Notice) and "Put back" in e.message for e in events)
