"""Request → plan → review → apply → undo, through real keys on a real repo."""

from __future__ import annotations

from pathlib import Path

from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.conversation import ToolCallLine
from tests.tui.conftest import AppFactory, notices, settle, states, until

SIZE = (120, 40)
ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"
PLAN_FILE = Path(__file__).parents[1] / "fixtures" / "scripts" / "plan_three_blocks.yaml"


async def plan_request(pilot) -> None:
    await pilot.press(*"/edit add a farewell", "enter")
    await settle(pilot)
    await settle(pilot)


async def test_request_review_reject_apply_undo(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("plan_three_blocks.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await plan_request(pilot)
        [tool_line] = app.main_screen.query(ToolCallLine)
        assert tool_line.text.startswith("▸ read_file app.py")
        assert "Plan ready after 2 turn(s)." in notices(app)
        assert any(n.startswith("The plan has 3 block(s) in 2 file(s).") for n in notices(app))
        assert states(app) == ["accepted", "accepted", "accepted"]
        await pilot.press("f4", "j", "space")
        await settle(pilot)
        assert states(app) == ["accepted", "rejected", "accepted"]
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "app.py").read_text(encoding="utf-8") == ORIGINAL.replace("'hello '", "'hello, dear '")
        assert (git_repo / "docs" / "usage.md").read_text(encoding="utf-8") == "# Usage\n\nCall `greet(name)`.\n"
        assert any(n.startswith("Applied 2 block(s); wrote app.py, docs/usage.md") for n in notices(app))
        assert "  syntax checks: 1 passed" in notices(app)
        assert app.main_screen.diff_pane.blocks == ()
        await pilot.press("f4", "u")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        await pilot.press("enter")
        await settle(pilot)
        assert (git_repo / "app.py").read_text(encoding="utf-8") == ORIGINAL
        assert not (git_repo / "docs" / "usage.md").exists()
        assert notices(app)[-1] == ("Undone: restored app.py; deleted docs/usage.md (created by the apply). "
                                    "No earlier apply is kept to undo.")


async def test_escape_cancels_apply_with_nothing_written(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("plan_three_blocks.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await plan_request(pilot)
        await pilot.press("f4", "a")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert notices(app)[-1] == "Apply cancelled: nothing was written."
        assert (git_repo / "app.py").read_text(encoding="utf-8") == ORIGINAL
        assert states(app) == ["accepted"] * 3


async def test_reject_all_then_apply_says_nothing_accepted(make_app: AppFactory) -> None:
    app = make_app("plan_three_blocks.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await plan_request(pilot)
        await pilot.press("f4", "R")
        await settle(pilot)
        assert states(app) == ["rejected"] * 3
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalDialog)
        assert notices(app)[-1].startswith("Apply refused — no block is accepted")
        await pilot.press("A")
        await settle(pilot)
        assert states(app) == ["accepted"] * 3


async def test_a_target_changed_on_disk_turns_stale_and_apply_refuses(
    make_app: AppFactory, git_repo: Path
) -> None:
    app = make_app("plan_three_blocks.yaml", watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await plan_request(pilot)

        def edited_and_stale() -> bool:  # rewritten until the watcher, which starts in the background, sees it
            (git_repo / "app.py").write_text(ORIGINAL + "# edited\n", encoding="utf-8")
            return states(app)[0] == "stale"

        await until(pilot, edited_and_stale, "the watcher to mark app.py stale")
        assert states(app) == ["stale", "stale", "accepted"]
        assert any("app.py changed on disk" in n for n in notices(app))
        await pilot.press("f4", "a")
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalDialog)
        assert notices(app)[-1].startswith("Apply refused — stale: app.py changed on disk since review (EDIT 1, 2)")
        assert (git_repo / "app.py").read_text(encoding="utf-8") == ORIGINAL + "# edited\n"
        assert not (git_repo / "docs").exists()


async def test_the_watcher_sees_a_target_deleted_then_created_again_without_a_key(
    make_app: AppFactory, git_repo: Path
) -> None:
    app = make_app("plan_three_blocks.yaml", watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await plan_request(pilot)
        target = git_repo / "app.py"

        def deleted_and_stale() -> bool:
            target.unlink(missing_ok=True)
            return states(app)[0] == "stale"

        await until(pilot, deleted_and_stale, "the watcher to see app.py deleted")
        assert states(app) == ["stale", "stale", "accepted"]
        assert "app.py changed on disk: EDIT 1, 2 now stale (press space to accept the new diff)" in notices(app)
        target.write_text(ORIGINAL, encoding="utf-8")  # back exactly as reviewed: no key pressed
        await until(pilot, lambda: states(app) == ["accepted"] * 3, "the watcher to see app.py back")
        assert notices(app)[-1] == "app.py is back as reviewed: EDIT 1, 2 no longer stale"


async def test_a_change_after_confirmation_is_caught_at_apply(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app("plan_three_blocks.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await plan_request(pilot)
        await pilot.press("f4", "a")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        (git_repo / "app.py").write_text(ORIGINAL + "# raced\n", encoding="utf-8")
        await pilot.press("enter")
        await settle(pilot)
        assert notices(app)[-1].startswith("Apply refused — stale: app.py changed on disk")
        assert states(app) == ["stale", "stale", "accepted"]
        assert (git_repo / "app.py").read_text(encoding="utf-8") == ORIGINAL + "# raced\n"
        assert not (git_repo / "docs").exists()


async def test_failed_blocks_are_left_out_only_when_the_user_says_so(make_app: AppFactory, git_repo: Path) -> None:
    plan = git_repo / "plan.md"
    plan.write_text(_plan_text().replace("    return 'hello ' + name", "    return 'hi ' + name"), encoding="utf-8")
    app = make_app(script=None, review_path=plan)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert states(app) == ["failed", "accepted", "accepted"]
        view = app.main_screen.diff_pane.blocks[0]
        assert view.reason.startswith("AnchorNotFound: `old` does not occur in app.py")
        assert view.candidates and view.candidates[0].startswith("app.py:2 (")
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        assert app.screen.request.title == "Apply the 2 blocks that apply?"
        await pilot.press("escape")
        await settle(pilot)
        assert states(app) == ["failed", "accepted", "accepted"]
        await pilot.press("R", "space")  # EDIT 1 alone: nothing would apply, so nothing is offered
        await settle(pilot)
        assert states(app) == ["failed", "rejected", "rejected"]
        await pilot.press("a")
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalDialog)
        assert notices(app)[-1].startswith("Apply refused — these blocks do not apply: EDIT 1: AnchorNotFound")
        await pilot.press("A", "space", "a")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)


async def test_planner_abort_is_a_failure_not_a_plan(make_app: AppFactory) -> None:
    app = make_app("plan_fabricates.yaml")
    async with app.run_test(size=SIZE) as pilot:
        await plan_request(pilot)
        assert notices(app)[-1].startswith("Planner aborted (fabrication)")
        assert app.main_screen.diff_pane.blocks == ()


async def test_open_a_plan_file_and_export(make_app: AppFactory, git_repo: Path) -> None:
    plan = git_repo / "plan.md"
    plan.write_text(_plan_text(), encoding="utf-8")
    app = make_app(script=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/open plan.md", "enter")
        await settle(pilot)
        assert states(app) == ["accepted", "accepted", "accepted"]
        assert any(n.startswith("Opened plan.md: 3 block(s) in 2 file(s)") for n in notices(app))
        await pilot.press("f4", "space", "e")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        [exported] = (git_repo / ".agent" / "plans").glob("plan-*.md")
        assert exported.read_text(encoding="utf-8").count("### EDIT") == 2
        assert notices(app)[-1].startswith("Exported 2 accepted block(s) to .agent/plans/plan-")


async def test_bad_plan_files_are_clear_errors(make_app: AppFactory, git_repo: Path) -> None:
    (git_repo / "broken.md").write_text("### EDIT 1\n\n- file: `app.py`\n\n```old\nx\n", encoding="utf-8")
    app = make_app(script=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/open missing.md", "enter")
        await settle(pilot)
        assert notices(app)[-1].endswith("missing.md: no such file")
        await pilot.press(*"/open broken.md", "enter")
        await settle(pilot)
        assert "broken.md is not a valid EDIT plan" in notices(app)[-1]
        await pilot.press(*"/apply", "enter")
        await settle(pilot)
        assert notices(app)[-1].startswith("No plan is under review")
        await pilot.press(*"/undo", "enter")
        await settle(pilot)
        assert notices(app)[-1].startswith("Nothing to undo")


def _plan_text() -> str:
    import yaml

    script = yaml.safe_load(PLAN_FILE.read_text(encoding="utf-8"))
    return script["turns"][1]["text"]


async def test_export_to_an_impossible_path_says_why(make_app: AppFactory, git_repo: Path) -> None:
    plan = git_repo / "plan.md"
    plan.write_text(_plan_text(), encoding="utf-8")
    app = make_app(script=None, review_path=plan)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#dialog-text").value = "app.py/plan.md"
        await pilot.press("enter")
        await settle(pilot)
        assert notices(app)[-1] == "Export to app.py/plan.md failed: File exists"
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert not (git_repo / ".agent" / "plans").exists()
