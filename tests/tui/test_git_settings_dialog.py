"""In the app, a command that changes git's hooks opens a dialog showing the exact diff: Escape puts it back,
``k`` keeps it; the model and the Conversation are told either way."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ljtui.core.gitguard.guard import KIND
from ljtui.tui.screens.dialog import ApprovalDialog
from tests.tui.conftest import AppFactory, notices, settle, until

LARGE = (120, 40)
HOOK = "#!/bin/sh\necho from-the-command\n"


def plant_script(tmp_path: Path) -> Path:
    """A scripted model whose one command writes an executable pre-commit hook."""
    plant = tmp_path / "plant.sh"
    escaped = HOOK.replace("\n", "\\n")
    plant.write_text(f"printf '{escaped}' > .git/hooks/pre-commit\nchmod +x .git/hooks/pre-commit\n",
                     encoding="utf-8")
    script = tmp_path / "model.yaml"
    turns = [{"tool_calls": [{"name": "bash", "input": {"command": f"sh {plant}"}}]}, {"text": "done"}]
    script.write_text(yaml.safe_dump({"turns": turns}), encoding="utf-8")
    return script


@pytest.mark.parametrize(("key", "kept"), [("escape", False), ("k", True)])
async def test_the_dialog_shows_the_hook_and_the_answer_decides(make_app: AppFactory, git_repo: Path,
                                                                tmp_path: Path, key: str, kept: bool) -> None:
    app = make_app(str(plant_script(tmp_path)))
    hook = git_repo / ".git" / "hooks" / "pre-commit"
    async with app.run_test(size=LARGE) as pilot:
        await until(pilot, lambda: pilot.app.started, "the start-up work")
        await pilot.press(*"install the hook", "enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the command's dialog")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen.request.kind == KIND,
                    "the git settings dialog")
        dialog = app.screen
        assert "added: .git/hooks/pre-commit (an executable file)" in dialog.request.lines
        assert "+echo from-the-command" in dialog.request.lines
        assert "Esc: put them back" in dialog.key_line() and "k: keep them" in dialog.key_line()
        await pilot.press(key)
        await settle(pilot)
        assert hook.exists() is kept
        said = [n for n in notices(app) if "git settings changed while the command" in n]
        assert said and said[-1].startswith("Kept" if kept else "Put back")
