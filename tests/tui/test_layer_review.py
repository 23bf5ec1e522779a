"""The layer in the app: a command's deletions open as blocks in the Diff pane when the turn ends, the ignored
build output is summarised, and only what the user accepts reaches the tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.layer.service import Layer
from tests.conftest import git
from tests.tui.conftest import AppFactory, notices, settle, states

LARGE = (120, 40)
LAYERED = {"agent.layer": "auto"}


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "src").mkdir()
    (git_repo / "src" / "old.py").write_text("OLD = True\n", encoding="utf-8")
    (git_repo / "src" / "util.py").write_text("def helper():\n    return 1\n", encoding="utf-8")
    (git_repo / ".gitignore").write_text("build/\n", encoding="utf-8")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-q", "-m", "src")
    if not Layer(git_repo).status.layered:
        pytest.skip(f"no layer on this machine: {Layer(git_repo).status.why}")
    return git_repo


async def _cleanup(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press(*"clean up", "enter")
    await settle(pilot)
    await pilot.press("f4")
    await settle(pilot)


def test_snapshot_of_a_commands_deletions_and_the_ignored_build_output(snap_compare, make_app: AppFactory,
                                                                        repo: Path) -> None:
    assert snap_compare(make_app("layer_cleanup.yaml", **LAYERED), terminal_size=LARGE, run_before=_cleanup)


async def test_only_the_accepted_blocks_reach_the_tree_and_the_layer_lets_go(make_app: AppFactory, repo: Path) -> None:
    app = make_app("layer_cleanup.yaml", **LAYERED)
    async with app.run_test(size=LARGE) as pilot:
        await _cleanup(pilot)
        assert (repo / "src" / "old.py").exists() and not (repo / "build").exists()  # nothing reached the tree
        shown = notices(app)
        assert any("kept without review (ignored by git): build/ 1 file(s)" in n for n in shown), shown
        blocks = {b.file: b for b in app.main_screen.diff_pane.blocks}
        assert sorted(blocks) == ["app.py", "src/old.py", "src/util.py"]
        assert states(app) == ["accepted", "accepted", "accepted"]
        pane = app.main_screen.diff_pane
        while pane.current is None or pane.current.file != "src/util.py":
            await pilot.press("j")
            await pilot.pause()
        await pilot.press("space")  # keep util.py
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("enter")  # the apply confirmation
        await settle(pilot)
    assert not (repo / "src" / "old.py").exists()
    assert (repo / "src" / "util.py").read_text(encoding="utf-8") == "def helper():\n    return 1\n"
    assert (repo / "app.py").read_text(encoding="utf-8").endswith("# rebuilt\n")
    layer = Layer(repo)
    with layer.holding():
        left = layer.change()
    assert [e.path for e in left.entries] == ["build/app.o"]  # the ignored output stays in the layer, unreviewed
