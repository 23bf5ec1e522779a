"""A resumed session's plan comes back for review only while it still applies: real git, real files, the
planner's plan applied (and undone) through the engine, then ``--continue`` in a new engine."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.events import Notice
from ljtui.core.ports import ListSink
from ljtui.core.review import events as R
from ljtui.core.review.session import Review
from ljtui.core.review.standing import standing
from tests.conftest import git
from tests.fixtures import SCRIPTS

ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"


def make_engine(repo: Path, answers: dict[str, list[str]] | None = None) -> tuple[Engine, ListSink]:
    config = Config()
    config.provider.name = "scripted"
    config.provider.script = str(SCRIPTS / "plan_three_blocks.yaml")
    sink = ListSink()
    return Engine(config, sink, repo_root=repo, approver=ScriptedApprover(answers or {})), sink


async def planned_and_applied(repo: Path, *, undo: bool) -> None:
    """Plan, apply every block, and undo it when ``undo``; the session is left on disk."""
    engine, sink = make_engine(repo, {"apply": ["yes"], "undo": ["yes"]})
    assert await engine.plan_and_review("a warmer greeting")
    await engine.review.apply()
    [applied] = [e for e in sink.events if isinstance(e, R.ApplyFinished)]
    assert applied.blocks == 3, applied.result
    assert (repo / "docs" / "usage.md").exists() and (repo / "app.py").read_text() != ORIGINAL
    if undo:
        await engine.review.undo()
        assert (repo / "app.py").read_text() == ORIGINAL and not (repo / "docs" / "usage.md").exists()
    await engine.aclose()


async def continued(repo: Path) -> tuple[Engine, list[Notice]]:
    engine, sink = make_engine(repo)
    assert engine.resume("") is True
    return engine, [e for e in sink.events if isinstance(e, Notice)]


async def test_applied_undone_then_edited_is_stale_and_not_offered(git_repo: Path) -> None:
    await planned_and_applied(git_repo, undo=True)
    (git_repo / "app.py").write_text("def greet(name):\n    return 'hi ' + name\n", encoding="utf-8")
    engine, notices = await continued(git_repo)
    assert not engine.review.active
    [stale] = [n for n in notices if "stale" in n.message]
    assert stale.level == "warning" and "(planner) is stale: 1 of 3 blocks no longer applies" in stale.message
    assert "EDIT 1 (app.py)" in stale.message and "not offered for apply" in stale.message
    await engine.aclose()


async def test_applied_and_kept_is_done(git_repo: Path) -> None:
    await planned_and_applied(git_repo, undo=False)
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-q", "-m", "applied")
    engine, notices = await continued(git_repo)
    assert not engine.review.active
    [done] = [n for n in notices if "already applied" in n.message]
    assert done.message == ("The plan from the resumed session (planner) is already applied: app.py, docs/usage.md "
                            "hold its result. Nothing is left to review.")
    await engine.aclose()


async def test_applied_then_undone_still_applies_and_is_offered_again(git_repo: Path) -> None:
    await planned_and_applied(git_repo, undo=True)
    engine, notices = await continued(git_repo)
    assert engine.review.active and not [n for n in notices if "stale" in n.message or "applied" in n.message]
    await engine.aclose()


def test_a_plan_half_applied_by_hand_is_stale_not_done(git_repo: Path) -> None:
    text = (SCRIPTS / "plan_three_blocks.yaml").read_text(encoding="utf-8")
    plan = text[text.index("### EDIT 1"):text.index("      ```json", text.index("### EDIT 3"))]
    plan = "\n".join(line.removeprefix("      ") for line in plan.splitlines()) + "\n"
    (git_repo / "app.py").write_text(ORIGINAL.replace("'hello '", "'hello, dear '"), encoding="utf-8")
    found = standing(Review.from_text(plan, git_repo))
    assert found.state == "stale" and [n for n, _, _ in found.failed] == [1]
