"""A git diff reviewed in the app, hunk by hunk: partial acceptance writes what ``git apply`` of those hunks writes,
and undo gives the parent back."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.block_list import row_text
from tests.conftest import git
from tests.tui.conftest import AppFactory, notices, settle, states, until

SIZE = (120, 40)
LINES = [f"line {n}\n" for n in range(1, 31)]


def agent_diff(repo: Path) -> str:
    """``git diff main..agent`` where agent changes lines 3, 15 and 28 of big.txt and adds notes.md."""
    (repo / "big.txt").write_text("".join(LINES), encoding="utf-8")
    git(repo, "add", "big.txt")
    git(repo, "commit", "-q", "-m", "big")
    git(repo, "checkout", "-q", "-b", "agent")
    changed = list(LINES)
    for n in (3, 15, 28):
        changed[n - 1] = f"LINE {n}\n"
    (repo / "big.txt").write_text("".join(changed), encoding="utf-8")
    (repo / "notes.md").write_text("notes\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "agent")
    git(repo, "checkout", "-q", "main")
    return git(repo, "diff", "main..agent")


def without_hunk(diff: str, header_start: str) -> str:
    """``diff`` without the hunk whose header starts with ``header_start`` (its one-for-one line change)."""
    out, skipping = [], False
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@") or line.startswith("diff --git"):
            skipping = line.startswith(header_start)
        if not skipping:
            out.append(line)
    return "".join(out)


def git_apply(repo: Path, tmp: Path, patch: str) -> Path:
    copy = tmp / "by-git"
    shutil.copytree(repo, copy)
    subprocess.run(["git", "apply", "-"], cwd=copy, input=patch.encode(), check=True, capture_output=True)
    return copy


async def test_a_git_diff_is_reviewed_hunk_by_hunk_applied_in_part_and_undone(make_app: AppFactory, git_repo: Path,
                                                                               tmp_path: Path) -> None:
    diff = agent_diff(git_repo)
    change = tmp_path / "agent.diff"
    change.write_text(diff, encoding="utf-8")
    [second] = [line for line in diff.splitlines() if line.startswith("@@ -12,")]
    expected = git_apply(git_repo, tmp_path, without_hunk(diff, second))
    parent = (git_repo / "big.txt").read_bytes()
    app = make_app(script=None, review_path=change)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(states(app)) == 4, "the diff's four blocks")
        await settle(pilot)
        assert states(app) == ["accepted"] * 4
        rows = [str(row_text(view)) for view in app.main_screen.diff_pane.blocks]
        assert [row[3:] for row in rows] == ["hunk 1/3  accepted  big.txt", "hunk 2/3  accepted  big.txt",
                                             "hunk 3/3  accepted  big.txt", "hunk 1/1  accepted  notes.md"]
        assert app.main_screen.diff_pane.blocks[1].source == "hunk 2/3 of big.txt (git)"
        view = app.main_screen.diff_pane.diff_view
        await until(pilot, lambda: str(view.border_title) == "big.txt · hunk 1/3 · line 1 · git", "the first title")
        assert view.lines[0].plain.startswith("@@ -1,6 +1,6 @@"), "the title's line is the @@ line's one number"
        await pilot.press("f4", "j", "space")
        await settle(pilot)
        assert states(app) == ["accepted", "rejected", "accepted", "accepted"]
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "big.txt").read_bytes() == (expected / "big.txt").read_bytes()
        assert (git_repo / "big.txt").read_bytes() != parent
        assert (git_repo / "notes.md").read_bytes() == (expected / "notes.md").read_bytes()
        assert any(n.startswith("Applied 3 block(s); wrote big.txt, notes.md") for n in notices(app))
        await pilot.press("f4", "u")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "big.txt").read_bytes() == parent
        assert not (git_repo / "notes.md").exists()


async def test_a_diff_whose_file_moved_on_shows_its_stale_hunks(make_app: AppFactory, git_repo: Path,
                                                                 tmp_path: Path) -> None:
    diff = agent_diff(git_repo)
    change = tmp_path / "agent.diff"
    change.write_text(diff, encoding="utf-8")
    moved = "".join(LINES).replace("line 15\n", "line fifteen\n")
    (git_repo / "big.txt").write_text(moved, encoding="utf-8")
    app = make_app(script=None, review_path=change)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(states(app)) == 4, "the diff's four blocks")
        await settle(pilot)
        assert states(app) == ["accepted", "stale", "accepted", "accepted"]
        reason = app.main_screen.diff_pane.blocks[1].reason or ""
        assert reason.startswith("AnchorNotFound: the hunk's old lines do not occur in big.txt (it was made at "
                                 "line 12)")
        await pilot.press("f4", "a")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog), "the hunks that still apply are offered"
        assert app.screen.request.title == "Apply the 3 blocks that apply?"
        assert any(line.startswith("  EDIT 2 (big.txt): AnchorNotFound") for line in app.screen.request.lines)
        await pilot.press("escape")
        await settle(pilot)
        assert states(app) == ["accepted", "stale", "accepted", "accepted"]
        assert (git_repo / "big.txt").read_text(encoding="utf-8") == moved
