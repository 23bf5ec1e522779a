"""``ljtui --demo`` driven by keys: request → plan in the Diff pane → apply → result → undo, on a real copy."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.ports import FixedClock
from ljtui.demo.app import DemoApp, key_names
from ljtui.demo.repo import SAMPLE_DIR, DemoRepo, create_demo_repo
from ljtui.demo.steps import GATE_MESSAGE, INTRO, LABEL, PLAN_GOAL, RECALL_GOAL, REQUEST, STEPS
from ljtui.tui.bridge import WATCH_GROUP
from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.conversation import ToolCallLine, UserMessage
from ljtui.tui.widgets.diff_pane import DiffPane
from ljtui.tui.widgets.gates_pane import GatesPane
from ljtui.tui.widgets.plan_pane import PlanPane
from tests.tui.conftest import notices, settle, states, until
from tests.tui.test_one_door import CORE_ALLOWED, core_imports, file_calls

SMALL = (80, 24)
LARGE = (120, 40)
COUNTING = "wordstats/counting.py"
TESTS = "tests/test_counting.py"
ORIGINAL = {name: (SAMPLE_DIR / name).read_bytes() for name in (COUNTING, TESTS)}
DEMO_APP_SOURCE = Path(__file__).resolve().parents[2] / "demo" / "app.py"
PLAYBOOK = "add-longest-word"
"""The id of the playbook saved from the run of :data:`PLAN_GOAL`."""
PLAYBOOK_FILE = f".agent/playbooks/{PLAYBOOK}.md"
GATE = "top-words-ignores-punctuation"
PUNCTUATION_FIX = b"words = (word.strip(PUNCTUATION) for word in text.lower().split())"


@pytest.fixture
def demo(tmp_path: Path) -> DemoRepo:
    made = create_demo_repo(tmp_path)
    assert isinstance(made, DemoRepo), made
    return made


def demo_app(demo: DemoRepo, *, watch: bool = True) -> DemoApp:
    app = DemoApp(demo, clock=FixedClock(), cursor_blink=False, watch=watch, chunk_delay=0)
    app.animation_level = "none"
    return app


def on_disk(demo: DemoRepo) -> dict[str, bytes]:
    return {name: (demo.root / name).read_bytes() for name in ORIGINAL}


def git_diff(demo: DemoRepo) -> str:
    return subprocess.run(["git", "diff", "--stat"], cwd=demo.root, capture_output=True, text=True,
                          check=True).stdout


async def plan_under_review(pilot) -> None:
    await until(pilot, lambda: bool(pilot.app.main_screen.diff_pane.blocks), "the demo's plan in the Diff pane")
    await settle(pilot)


def step_text(app: DemoApp, name: str) -> str:
    """The notice that opens step ``name``, as the tour writes it."""
    [number] = [n for n, step in enumerate(STEPS, start=1) if step.name == name]
    facts = {"repo": str(app.demo.root), "project": app.demo.project, "keys": key_names(app.config.ui.keymap),
             "playbook": PLAYBOOK, "playbook_path": PLAYBOOK_FILE, "gate": GATE}
    return f"Step {number} of {len(STEPS)} — {STEPS[number - 1].text.format_map(facts)}"


async def step_begun(pilot, name: str) -> None:
    await until(pilot, lambda: step_text(pilot.app, name) in notices(pilot.app), f"step {name!r}")


async def dialog(pilot, kind: str, title: str | None = None) -> ApprovalDialog:
    """Wait for the dialog of ``kind`` (and ``title``) and return it."""
    app = pilot.app

    def shown() -> bool:
        top = app.screen
        return (isinstance(top, ApprovalDialog) and top.request.kind == kind
                and (title is None or top.request.title == title))

    await until(pilot, shown, f"the {kind} dialog {title or ''}")
    await settle(pilot)
    assert isinstance(app.screen, ApprovalDialog)
    return app.screen


async def test_the_whole_demo_by_keys_with_the_files_checked_at_each_step(demo: DemoRepo) -> None:
    app = demo_app(demo)
    async with app.run_test(size=LARGE) as pilot:
        assert notices(app)[:2] == [INTRO.format(project="wordstats"), step_text(app, "request")]
        await plan_under_review(pilot)
        [request] = app.main_screen.query(UserMessage)
        assert str(request.render()) == f"› {REQUEST}"
        assert [line.text for line in app.main_screen.query(ToolCallLine)] == [
            "▸ list_dir . ✓", "▸ grep 'def count_words' . ✓", f"▸ read_file {COUNTING} ✓", f"▸ read_file {TESTS} ✓",
        ]
        assert states(app) == ["accepted", "accepted"]
        assert isinstance(app.focused, DiffPane)
        assert str(app.main_screen.status.render()).startswith(LABEL)
        assert notices(app)[-1] == step_text(app, "review")
        assert on_disk(demo) == ORIGINAL
        assert any(w.group == WATCH_GROUP and w.is_running for w in app.workers)

        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        assert on_disk(demo) == ORIGINAL
        await pilot.press("enter")
        await settle(pilot)
        applied = on_disk(demo)
        assert b"return len(text.split())\n" in applied[COUNTING]
        assert b"def test_empty_text_has_no_words(self):" in applied[TESTS]
        assert "2 files changed" in git_diff(demo)
        assert "  syntax checks: 2 passed" in notices(app)
        assert notices(app)[-1] == step_text(app, "result")
        assert str(demo.root) in notices(app)[-1]

        await pilot.press("f4", "u")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        assert on_disk(demo) == applied
        await pilot.press("enter")
        await settle(pilot)
        assert on_disk(demo) == ORIGINAL
        assert git_diff(demo) == ""
        assert notices(app)[-2:] == [f"Undone: restored {COUNTING}, {TESTS}. No earlier apply is kept to undo.",
                                     step_text(app, "undone")]

        await pilot.press("f6", *"do the tests pass?", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)
        assert app.screen.request.subject == "bash: python3 -m unittest -v"
        assert notices(app)[-1] == step_text(app, "permission")
        await pilot.press("enter")
        await settle(pilot)
        bash = app.main_screen.query(ToolCallLine)[-1]
        assert bash.text == "▸ bash python3 -m unittest -v ✓"
        output = str(bash.query_one("ToolOutputText").render())
        assert "exit code 0" in output and "Ran 4 tests" in output
        assert notices(app)[-1] == step_text(app, "ran")
        assert on_disk(demo) == ORIGINAL

        await pilot.press(*f"/plan {PLAN_GOAL}", "enter")
        pane = app.main_screen.query_one(PlanPane)
        await until(pilot, lambda: pane.approving, "the task plan in the Plan pane")
        assert notices(app)[-1] == step_text(app, "proposed")
        await pilot.press("enter")
        for asking in ("Task 3: Edit wordstats/counting.py?", "Task 4: Edit tests/test_counting.py?",
                       "Task 5: Run this command?"):
            await dialog(pilot, "permission", asking)
            await pilot.press("enter")
        await dialog(pilot, "playbook_offer")
        assert step_text(app, "planned") in notices(app)
        assert step_text(app, "replanned") in notices(app)
        assert "replans 1/3" in str(pane.border_title)
        counting = (demo.root / COUNTING).read_bytes()
        assert b"def longest_word(text: str) -> str:" in counting and b"LongestWordTest" in (demo.root / TESTS).read_bytes()
        assert not (demo.root / PLAYBOOK_FILE).exists()

        await pilot.press("enter")
        await step_begun(pilot, "saved")
        draft = (demo.root / PLAYBOOK_FILE).read_text(encoding="utf-8")
        assert 'status: "draft"' in draft and "Add a test for the new function" in draft
        await pilot.press(*f"/playbook promote {PLAYBOOK}", "enter")
        promotion = await dialog(pilot, "playbook_promote")
        assert promotion.request.title == f"Make playbook {PLAYBOOK} active?"
        await pilot.press("enter")
        await step_begun(pilot, "promoted")
        assert 'status: "active"' in (demo.root / PLAYBOOK_FILE).read_text(encoding="utf-8")

        await pilot.press(*f"/plan {RECALL_GOAL}", "enter")
        await until(pilot, lambda: pane.approving, "the recalled plan in the Plan pane")
        await step_begun(pilot, "recalled")
        assert any(n.startswith(f"Plan for '{RECALL_GOAL}', from playbook {PLAYBOOK} (add longest_word)")
                   for n in notices(app))
        await pilot.press("enter")
        for asking in ("Task 3: Edit wordstats/counting.py?", "Task 4: Edit tests/test_counting.py?",
                       "Task 5: Run this command?"):
            await dialog(pilot, "permission", asking)
            await pilot.press("enter")
        await step_begun(pilot, "gated")
        assert b"def shortest_word(text: str) -> str:" in (demo.root / COUNTING).read_bytes()
        assert "uses: 1" in (demo.root / PLAYBOOK_FILE).read_text(encoding="utf-8")

        await pilot.press(*GATE_MESSAGE, "enter")
        confirm = await dialog(pilot, "gate_confirm")
        assert step_text(app, "gate") in notices(app)
        shown = "\n".join(confirm.request.lines)
        assert "python3 -m unittest" in shown and "R 0.51" in shown
        await pilot.press("enter")
        await dialog(pilot, "gate_start")
        await pilot.press("enter")
        before = on_disk(demo)
        for asking in ("Edit wordstats/counting.py in the staging tree?", "Edit tests/test_counting.py in the staging tree?"):
            await dialog(pilot, "permission", asking)
            await pilot.press("enter")
        apply = await dialog(pilot, "apply")
        assert step_text(app, "staged") in notices(app)
        [refusal] = [n for n in notices(app) if n.startswith("Delivery refused")]
        assert GATE in refusal and "missing  tests" in refusal
        assert notices(app)[-1] == step_text(app, "delivery")
        assert on_disk(demo) == before and PUNCTUATION_FIX not in before[COUNTING]
        gates = app.main_screen.query_one(GatesPane)
        [tests_item] = gates.view.items
        assert (tests_item.id, tests_item.status, tests_item.exit_code) == ("tests", "passed", 0)
        assert "Ran 7 tests" in tests_item.output and "OK" in tests_item.output
        assert apply.request.title == "Apply the accepted blocks?"
        await pilot.press("enter")
        await dialog(pilot, "playbook_offer")
        assert notices(app)[-1] == step_text(app, "delivered")
        assert PUNCTUATION_FIX in (demo.root / COUNTING).read_bytes()
        await pilot.press("escape")
        await step_begun(pilot, "end")
        assert notices(app)[-1] == step_text(app, "end") and app.tour.finished
        assert not (demo.root / ".agent" / "playbooks" / f"{GATE}.md").exists()
        assert [entry.outcome for entry in app.main_screen.query_one(GatesPane).view.history] == ["pass"]
    tests = subprocess.run([sys.executable, "-B", "-m", "unittest"], cwd=demo.root, capture_output=True, text=True,
                           timeout=60)
    assert tests.returncode == 0 and "Ran 7 tests" in tests.stderr


async def test_a_cancelled_dialog_writes_nothing_and_the_guide_says_what_to_do(demo: DemoRepo) -> None:
    app = demo_app(demo, watch=False)
    async with app.run_test(size=LARGE) as pilot:
        await plan_under_review(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert notices(app)[-2:] == ["Apply cancelled: nothing was written.",
                                     "Press a in the Diff pane when you want to apply the plan."]
        assert on_disk(demo) == ORIGINAL
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert notices(app)[-1] == step_text(app, "result")


async def test_a_request_of_ones_own_is_told_that_the_model_is_a_recording(demo: DemoRepo) -> None:
    app = demo_app(demo, watch=False)
    async with app.run_test(size=LARGE) as pilot:
        await plan_under_review(pilot)
        await pilot.press("f6", *"hello", "enter")
        await settle(pilot)
        assert notices(app)[-1].startswith("The demo's model is a recording of one session: it has no answer")
        assert notices(app)[-1].endswith("Press a in the Diff pane when you want to apply the plan.")
        assert states(app) == ["accepted", "accepted"]


async def test_the_guide_names_the_keys_of_the_users_keymap(demo: DemoRepo, isolated_env: Path) -> None:
    (isolated_env / "ljtui").mkdir(exist_ok=True)  # the demo's trust list may be there already
    (isolated_env / "ljtui" / "config.yaml").write_text("ui:\n  keymap:\n    review.apply: p\n", encoding="utf-8")
    app = demo_app(demo, watch=False)
    async with app.run_test(size=LARGE) as pilot:
        await plan_under_review(pilot)
        assert "Press p to apply the accepted blocks" in notices(app)[-1]
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalDialog)


def test_the_demo_screen_follows_the_one_door_rule() -> None:
    tree = ast.parse(DEMO_APP_SOURCE.read_text(encoding="utf-8"))
    assert core_imports(tree) <= CORE_ALLOWED
    assert file_calls(tree) == []


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_first_screen_with_the_plan_under_review(snap_compare, demo: DemoRepo, size: tuple[int, int]) -> None:
    assert snap_compare(demo_app(demo, watch=False), terminal_size=size, run_before=plan_under_review)
