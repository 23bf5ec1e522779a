"""The demo's parts below the screen: its repository, its recorded session and its guide."""

from __future__ import annotations

import glob
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ljtui.cli.main import main
from ljtui.core.events import Notice, PermissionRequested, TurnFailed, TurnFinished
from ljtui.core.review.events import ApplyFinished, PlanOpened, UndoFinished
from ljtui.core.review.service import APPLY_CANCELLED
from ljtui.demo.repo import PACKAGE_DIR, SAMPLE_DIR, SCRIPT_PATH, DemoFailure, DemoRepo, create_demo_repo
from ljtui.core.tasks.events import RunFinished, TaskPlanProposed, TaskPlanUpdated
from ljtui.demo.steps import DETOURS, REQUEST, STEPS
from ljtui.demo.tour import Step, Tour

ROOT = Path(__file__).resolve().parents[2]
FACTS = {"repo": "/tmp/demo/wordstats", "project": "wordstats", "keys": {
    "focus.diff": "F4", "pane.maximize": "F8", "review.next": "j", "review.prev": "k", "review.toggle": "space",
    "review.apply": "a", "review.undo": "u", "app.quit": "ctrl+q", "plan.next": "j", "plan.prev": "k",
    "plan.edit": "e", "plan.add": "n", "plan.delete": "d", "plan.move_down": "J", "plan.move_up": "K",
    "plan.approve": "enter", "plan.approve_writes": "w", "plan.reject": "escape", "plan.history": "h"}}
APPLIED = ApplyFinished({"status": "done", "files": ["wordstats/counting.py"]}, 1)
UNDONE = UndoFinished(("wordstats/counting.py",), None)
OPENED = PlanOpened("planner", 1, ())
ASKS_BASH = PermissionRequested(2, "c1", "bash", "python3 -m unittest -v")
ANSWERED = TurnFinished(2, "That was a real run", "end_turn")
PROPOSED = TaskPlanProposed("r1", ())
REPLANNED = TaskPlanUpdated("r1", 1, "longest_word has no test yet", (), (), ())
RUN_OVER = RunFinished("r1", "done", 1, 0)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def bundled_files() -> dict[str, bytes]:
    return {p.relative_to(SAMPLE_DIR).as_posix(): p.read_bytes() for p in SAMPLE_DIR.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def unittest_run(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-B", "-m", "unittest"], cwd=repo, capture_output=True, text=True,
                          timeout=60)


# --- the repository ---------------------------------------------------------


def test_the_demo_repository_is_one_commit_of_the_bundled_sample(tmp_path: Path) -> None:
    demo = create_demo_repo(tmp_path)
    assert isinstance(demo, DemoRepo)
    assert demo.root.parent.parent == tmp_path and demo.root.parent.name.startswith("ljtui-demo-")
    assert demo.root.name == demo.project == "wordstats"
    copied = {p.relative_to(demo.root).as_posix(): p.read_bytes() for p in demo.root.rglob("*")
              if p.is_file() and ".git" not in p.relative_to(demo.root).parts}
    assert copied == bundled_files() and ".gitignore" in copied
    assert git(demo.root, "log", "--format=%an|%s").splitlines() == ["ljtui demo|wordstats, before the demo"]
    assert git(demo.root, "status", "--porcelain") == ""
    assert git(demo.root, "branch", "--show-current").strip() == "main"


def test_every_demo_gets_a_folder_of_its_own(tmp_path: Path) -> None:
    first, second = create_demo_repo(tmp_path), create_demo_repo(tmp_path)
    assert isinstance(first, DemoRepo) and isinstance(second, DemoRepo)
    assert first.root != second.root


def test_the_users_git_configuration_cannot_break_the_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = false\n"
                                     "[init]\n\tdefaultBranch = trunk\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    demo = create_demo_repo(tmp_path)
    assert isinstance(demo, DemoRepo), demo
    assert git(demo.root, "branch", "--show-current").strip() == "main"


def test_without_git_the_demo_says_why_and_leaves_nothing_behind(tmp_path: Path) -> None:
    failed = create_demo_repo(tmp_path, git=str(tmp_path / "no-git"))
    assert isinstance(failed, DemoFailure)
    assert failed.message == (f"the demo needs git to make its sample project a repository, "
                              f"and {tmp_path / 'no-git'} was not found")
    assert list(tmp_path.iterdir()) == []


def test_a_temporary_folder_that_cannot_be_made_is_a_clear_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    failed = create_demo_repo(blocker)
    assert isinstance(failed, DemoFailure)
    assert failed.message.startswith(f"cannot make a temporary folder in {blocker}: ")


def test_the_wheel_ships_every_file_of_the_sample() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "ljtui.demo" in config["packages"] and config["package-dir"]["ljtui.demo"] == "demo"
    shipped = {Path(hit).as_posix() for pattern in config["package-data"]["ljtui.demo"]
               for hit in glob.glob(pattern, root_dir=PACKAGE_DIR, recursive=True)}
    assert SCRIPT_PATH.name in shipped
    assert {f"{SAMPLE_DIR.name}/{name}" for name in bundled_files()} <= shipped


# --- the recorded session -----------------------------------------------------


def test_the_recorded_plan_really_fixes_the_sample_and_its_new_tests_catch_the_bug(tmp_path: Path) -> None:
    demo = create_demo_repo(tmp_path)
    assert isinstance(demo, DemoRepo)
    before = unittest_run(demo.root)
    assert before.returncode == 0 and "Ran 4 tests" in before.stderr
    plan = tmp_path / "plan.md"
    assert main(["plan", "--source", str(demo.root), "--request", REQUEST, "--out", str(plan),
                 "--provider", "scripted", "--script", str(SCRIPT_PATH)]) == 0
    assert main(["apply", str(plan), "--yes", "--repo", str(demo.root)]) == 0
    after = unittest_run(demo.root)
    assert after.returncode == 0 and "Ran 6 tests" in after.stderr
    git(demo.root, "checkout", "--", "wordstats/counting.py")
    old_code = unittest_run(demo.root)
    assert old_code.returncode == 1 and "FAILED (failures=2)" in old_code.stderr


def test_the_recorded_task_plan_adds_longest_word_with_a_test_that_passes(tmp_path: Path) -> None:
    demo = create_demo_repo(tmp_path)
    assert isinstance(demo, DemoRepo)
    assert main(["run", "--plan", "--yes", "--allow", "write,bash", "--repo", str(demo.root), "--provider",
                 "scripted", "--script", str(SCRIPT_PATH), "add a longest_word function with a test"]) == 0
    after = unittest_run(demo.root)
    assert after.returncode == 0 and "Ran 5 tests" in after.stderr
    assert "def longest_word(text: str) -> str:" in (demo.root / "wordstats" / "counting.py").read_text()


# --- the guide ----------------------------------------------------------------


def test_the_steps_begin_in_order_and_only_on_their_own_events() -> None:
    tour = Tour(STEPS, DETOURS, FACTS)
    [(first, _)] = tour.start()
    assert first.startswith("Step 1 of 9 — the request.")
    assert tour.after(UNDONE) == [] and tour.after(APPLIED) == [] and tour.after(ASKS_BASH) == []
    assert tour.after(PlanOpened("plan.md", 1, ())) == []
    [(review, level)] = tour.after(OPENED)
    assert level == "info" and review.startswith("Step 2 of 9 — review.")
    assert "(F4 returns to it, F8 enlarges it): j/k pick a block, space rejects" in review
    assert tour.after(ApplyFinished({"status": "failed"}, 1)) == []
    [(result, _)] = tour.after(APPLIED)
    assert result.startswith("Step 3 of 9 — the result.") and "`git diff` in /tmp/demo/wordstats" in result
    assert tour.after(UndoFinished((), "app.py changed since the apply")) == []
    assert not tour.current.chat
    [(undone, _)] = tour.after(UNDONE)
    assert undone.startswith("Step 4 of 9 — undone") and "Type a message (say, do the tests pass?)" in undone
    assert tour.current.chat
    assert tour.after(PermissionRequested(2, "c0", "edit_file", "app.py")) == [] and tour.after(ANSWERED) == []
    [(asks, _)] = tour.after(ASKS_BASH)
    assert asks.startswith("Step 5 of 9 — a permission.") and "Enter allows it once, s allows bash" in asks
    [(done, _)] = tour.after(ANSWERED)
    assert done.startswith("Step 6 of 9 — the agent's turn") and "type /plan add a longest_word function" in done
    assert tour.current.plan and not tour.current.chat
    assert tour.after(REPLANNED) == [] and tour.after(RUN_OVER) == []
    [(proposed, _)] = tour.after(PROPOSED)
    assert proposed.startswith("Step 7 of 9 — the task plan") and "enter runs it (w: without asking before each file write), escape rejects it" in proposed
    [(replanned, _)] = tour.after(REPLANNED)
    assert replanned.startswith("Step 8 of 9 — a replan.") and "(h lists every replan)" in replanned
    [(over, _)] = tour.after(RUN_OVER)
    assert over.startswith("Step 9 of 9 — the run's end.") and "ctrl+q quits; the copy stays in" in over
    assert tour.finished and tour.after(RUN_OVER) == [] and not tour.current.plan


def test_a_message_where_the_recording_has_no_answer_is_answered_by_the_guide() -> None:
    from ljtui.demo.steps import RECORDING_ONLY

    tour = Tour(STEPS, DETOURS, FACTS)
    tour.after(OPENED)
    [(text, level)] = tour.off_script(RECORDING_ONLY)
    assert level == "warning" and text == f"{RECORDING_ONLY} Press a in the Diff pane when you want to apply the plan."


def test_off_the_path_the_guide_repeats_what_to_do_now() -> None:
    tour = Tour(STEPS, DETOURS, FACTS)
    assert tour.after(Notice(APPLY_CANCELLED)) == []
    tour.after(OPENED)
    assert tour.after(Notice(APPLY_CANCELLED)) == [
        ("Press a in the Diff pane when you want to apply the plan.", "info")]
    [(text, level)] = tour.after(TurnFailed(2, "script", "script demo.yaml has no turn left (5 played)"))
    assert level == "warning" and text.startswith("The demo's model is a recording of one session")
    assert text.endswith("Press a in the Diff pane when you want to apply the plan.")
    assert tour.after(TurnFailed(2, "network", "connection refused")) == []


def test_a_step_added_to_the_tour_is_numbered_and_reached_in_its_place() -> None:
    extra = Step("applied-again", lambda e: isinstance(e, ApplyFinished), "again, {project}.")
    tour = Tour((*STEPS[:2], extra, *STEPS[2:]), DETOURS, FACTS)
    assert tour.start()[0][0].startswith("Step 1 of 10")
    tour.after(OPENED)
    assert tour.after(APPLIED) == [("Step 3 of 10 — again, wordstats.", "info")]
    assert tour.after(APPLIED)[0][0].startswith("Step 4 of 10 — the result.")


def test_a_tour_must_start_at_once_and_continue_on_events() -> None:
    with pytest.raises(ValueError):
        Tour((), (), FACTS)
    with pytest.raises(ValueError):
        Tour((STEPS[1],), (), FACTS)
    with pytest.raises(ValueError):
        Tour((STEPS[0], STEPS[0]), (), FACTS)


def test_the_guide_below_the_screen_imports_no_textual() -> None:
    code = ("import sys\nimport ljtui.demo.tour, ljtui.demo.steps, ljtui.demo.repo\n"
            "print(sorted(m for m in sys.modules if m.startswith('textual')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
