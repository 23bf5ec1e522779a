"""``ljtui review`` of Aider blocks where one fails: apply the blocks that apply, or pick the place an ambiguous
block means; the focus stays in the Diff pane, where ``u`` undoes."""

from __future__ import annotations

from pathlib import Path

from ljtui.tui.screens.dialog import ApprovalDialog
from tests.cli.test_apply_changes import ljtui
from tests.tui.conftest import AppFactory, notices, settle, states

SIZE = (120, 40)
ORIGINAL = b"def greet(name):\n    return 'hello ' + name\n"
TWICE = b"def one():\n    return 0\n\n\ndef two():\n    return 0\n"


def _aider(*blocks: tuple[str, str, str]) -> str:
    return "".join(f"{file}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n\n" for file, old, new in blocks)


async def test_a_applies_the_block_that_applies_after_asking_and_u_in_the_diff_pane_undoes_it(
        make_app: AppFactory, git_repo: Path) -> None:
    reply = git_repo / "aider_reply.md"
    reply.write_text(_aider(("app.py", "    return 'hello ' + name\n", "    return 'hi ' + name\n"),
                            ("README.md", "# not there\n", "# sample app\n")), encoding="utf-8")
    app = make_app(script=None, review_path=reply)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert states(app) == ["accepted", "failed"]
        assert str(app.main_screen.diff_pane.border_subtitle) == "1/2 accepted"
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        request = app.screen.request
        assert request.title == "Apply the 1 block that applies?"
        assert request.choices[0].label == "apply 1 block, leave 1 out"
        assert any(line.startswith("  EDIT 2 (README.md): AnchorNotFound") for line in request.lines)
        await pilot.press("escape")
        await settle(pilot)
        assert (git_repo / "app.py").read_bytes() == ORIGINAL and states(app) == ["accepted", "failed"]
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "app.py").read_bytes() == ORIGINAL.replace(b"'hello '", b"'hi '")
        assert (git_repo / "README.md").read_bytes() == b"# sample\n"
        assert any(n.startswith("Applied 1 block(s); wrote app.py") for n in notices(app))
        assert app.focused is app.main_screen.diff_pane, "the focus stays in the Diff pane after the apply"
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog), "u in the Diff pane undoes, not a chat message"
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "app.py").read_bytes() == ORIGINAL


async def test_a_number_picks_the_place_of_an_ambiguous_block_and_ljtui_undo_reverts_it(
        make_app: AppFactory, git_repo: Path) -> None:
    (git_repo / "two.py").write_bytes(TWICE)
    reply = git_repo / "aider_reply.md"
    reply.write_text(_aider(("two.py", "    return 0\n", "    return 2\n")), encoding="utf-8")
    app = make_app(script=None, review_path=reply)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert states(app) == ["failed"]
        view = app.main_screen.diff_pane.blocks[0]
        assert view.reason.startswith("AnchorAmbiguous:")
        assert [c.split(" ")[0] for c in view.candidates] == ["two.py:2", "two.py:6"]
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalDialog)
        assert notices(app)[-1].startswith("Apply refused — these blocks do not apply: EDIT 1: AnchorAmbiguous")
        await pilot.press("3")
        await settle(pilot)
        assert notices(app)[-1] == "EDIT 1 has 2 places: press 1–2."
        await pilot.press("2")
        await settle(pilot)
        assert states(app) == ["accepted"]
        assert "EDIT 1 now applies at line 6 of two.py (the place you picked)." in notices(app)
        await pilot.press("a")
        await settle(pilot)
        assert app.screen.request.title == "Apply the accepted blocks?"
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "two.py").read_bytes() == TWICE.replace(b"two():\n    return 0", b"two():\n    return 2")
    undone = ljtui(git_repo, "undo", "--yes")
    assert undone.returncode == 0, undone.stderr
    assert (git_repo / "two.py").read_bytes() == TWICE
