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


async def _select(pilot, pane, file: str) -> None:  # type: ignore[no-untyped-def]
    """Move down the Diff pane to the block of ``file``."""
    while pane.current is None or pane.current.file != file:
        await pilot.press("j")
        await pilot.pause()


async def _edit_app_py(pilot, app):  # type: ignore[no-untyped-def]
    """After the cleanup turn, open app.py's block in the edit dialog; returns the Diff pane."""
    await _cleanup(pilot)
    pane = app.main_screen.diff_pane
    await _select(pilot, pane, "app.py")
    await pilot.press("E")
    await settle(pilot)
    return pane


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
        await _select(pilot, pane, "src/util.py")
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


async def test_a_hunk_edited_before_it_is_accepted_lands_as_the_user_wrote_it(make_app: AppFactory,
                                                                              repo: Path) -> None:
    app = make_app("layer_cleanup.yaml", **LAYERED)
    async with app.run_test(size=LARGE) as pilot:
        pane = await _edit_app_py(pilot, app)
        from textual.widgets import TextArea

        area = app.screen.query_one("#dialog-text", TextArea)
        assert area.text.endswith("# rebuilt\n"), area.text  # the hunk's new side, to edit
        assert area.has_focus  # typing goes to the text
        lines = area.text.count("\n")
        await pilot.press(*["down"] * (lines - 1), "end", *" by hand")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert states(app) == ["accepted", "accepted", "accepted"]
        await _select(pilot, pane, "src/old.py")
        await pilot.press("space")  # keep src/old.py (reject its deletion)
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
    assert (repo / "app.py").read_text(encoding="utf-8").endswith("# rebuilt by hand\n")
    assert (repo / "src" / "old.py").exists() and not (repo / "src" / "util.py").exists()
    told = app.engine._told("next")
    assert "app.py: " in told and "as the user edited it, not as you wrote it" in told, told


async def test_a_hunk_is_edited_in_the_users_editor(make_app: AppFactory, repo: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    editor = tmp_path / "editor.sh"  # edits the file it is given, as a user would
    editor.write_text("#!/bin/sh\nsed -i 's/# rebuilt/# rebuilt in the editor/' \"$1\"\n", encoding="utf-8")
    editor.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(editor))
    app = make_app("layer_cleanup.yaml", **LAYERED)
    async with app.run_test(size=LARGE) as pilot:
        await _edit_app_py(pilot, app)
        assert "Ctrl+O: edit in $EDITOR" in str(app.screen.query_one(".dialog-keys").render())
        await pilot.press("ctrl+o")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
    assert (repo / "app.py").read_text(encoding="utf-8").endswith("# rebuilt in the editor\n")


async def test_an_editor_that_fails_leaves_the_text_and_says_why(make_app: AppFactory, repo: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VISUAL", "false")
    app = make_app("layer_cleanup.yaml", **LAYERED)
    async with app.run_test(size=LARGE) as pilot:
        await _cleanup(pilot)
        await pilot.press("E")
        await settle(pilot)
        from textual.widgets import TextArea

        before = app.screen.query_one("#dialog-text", TextArea).text
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.screen.query_one("#dialog-text", TextArea).text == before
        shown = [n.message for n in app._notifications]
        assert any("the editor 'false' exited with status 1; the text is as it was" in m for m in shown), shown


async def test_slash_diff_binary_writes_the_layers_binary_files_after_one_yes(make_app: AppFactory,
                                                                             repo: Path) -> None:
    app = make_app("layer_binary.yaml", **LAYERED)
    async with app.run_test(size=LARGE) as pilot:
        await pilot.press(*"make an icon", "enter")
        await settle(pilot)
        assert not (repo / "icon.png").exists()
        shown = notices(app)
        assert any("create icon.png (binary file, 13 bytes" in n and "/diff binary" in n for n in shown), shown
        await pilot.press(*"/diff binary", "enter")
        await settle(pilot)
        assert "Write 1 binary file(s)?" in str(app.screen.query_one("#dialog-box").border_title)
        await pilot.press("enter")
        await settle(pilot)
    assert (repo / "icon.png").read_bytes() == b"\x89PNG\r\n\x1a\n\x00icon"
