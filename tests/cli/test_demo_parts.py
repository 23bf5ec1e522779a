"""The demo's parts below the screen: its repository, its recorded session and its guide."""

from __future__ import annotations

import glob
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ljtui.cli.main import main
from ljtui.core.events import ApprovalDecided, Notice, PermissionRequested, TurnFailed, TurnFinished, TurnStarted
from ljtui.core.gates.events import DeliveryBlocked, GateDelivered, GateProposed, GateStarted
from ljtui.core.playbooks.events import PlaybookSaved, PlaybookStatusChanged
from ljtui.core.review.events import ApplyFinished, PlanOpened, UndoFinished
from ljtui.core.review.service import APPLY_CANCELLED
from ljtui.core.tasks.events import RunFinished, TaskPlanProposed, TaskPlanUpdated
from ljtui.core.trust import TrustStore
from ljtui.demo.repo import (
    PACKAGE_DIR, SAMPLE_DIR, SCRIPT_PATH, DemoFailure, DemoRepo, create_demo_repo, forget_demo_repo,
)
from ljtui.demo.steps import DETOURS, PLAN_GOAL, RECORDING_ONLY, REQUEST, STEPS
from ljtui.demo.tour import Step, Tour

ROOT = Path(__file__).resolve().parents[2]
FACTS = {"repo": "/tmp/demo/wordstats", "project": "wordstats", "keys": {
    "focus.diff": "F4", "pane.maximize": "F8", "review.next": "j", "review.prev": "k", "review.toggle": "space",
    "review.apply": "a", "review.undo": "u", "app.quit": "ctrl+q", "plan.next": "j", "plan.prev": "k",
    "plan.edit": "e", "plan.add": "n", "plan.delete": "d", "plan.move_down": "J", "plan.move_up": "K",
    "plan.approve": "enter", "plan.approve_writes": "w", "plan.reject": "escape", "plan.history": "h",
    "focus.gates": "F5", "focus.prompt": "F6"}}
APPLIED = ApplyFinished({"status": "done", "files": ["wordstats/counting.py"]}, 1)
UNDONE = UndoFinished(("wordstats/counting.py",), None)
OPENED = PlanOpened("planner", 1, ())
ASKS_BASH = PermissionRequested(2, "c1", "bash", "python3 -m unittest -v")
ANSWERED = TurnFinished(2, "That was a real run", "end_turn")
PROPOSED = TaskPlanProposed("r1", ())
REPLANNED = TaskPlanUpdated("r1", 1, "longest_word has no test yet", (), (), ())
RUN_OVER = RunFinished("r1", "done", 1, 0)
OFFER_DECLINED = ApprovalDecided("playbook_offer", "no", "add longest_word")
SAVED = PlaybookSaved("add-longest-word", "add longest_word", ".agent/playbooks/add-longest-word.md")
PROMOTED = PlaybookStatusChanged("add-longest-word", "draft", "active")
RECALLED = TaskPlanProposed("r2", ())
RECALL_STOPPED = RunFinished("r2", "failed", 0, 0)
RECALL_REJECTED = RunFinished("r2", "rejected", 0, 0)
GATE_PROPOSED = GateProposed("top-words-ignores-punctuation", 2, 0.51, ("tests",))
GATE_STARTED = GateStarted("top-words-ignores-punctuation", "run1", 2, True)
REFUSED = DeliveryBlocked("top-words-ignores-punctuation", "run1", ("tests",), (), (), 1)
DELIVERY = PlanOpened("gate top-words-ignores-punctuation", 3, ())
DELIVERED = GateDelivered("top-words-ignores-punctuation", "run1", ("wordstats/counting.py",), True)
NOT_DELIVERED = GateDelivered("top-words-ignores-punctuation", "run1", ("wordstats/counting.py",), False)


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


def test_the_copy_is_trusted_until_the_demo_forgets_it(tmp_path: Path) -> None:
    demo = create_demo_repo(tmp_path)
    assert isinstance(demo, DemoRepo)
    store = TrustStore.for_env()
    assert store.is_trusted(demo.root) and [e.path for e in store.entries()] == [TrustStore.key(demo.root)]
    forget_demo_repo(demo)
    assert not store.is_trusted(demo.root) and store.entries() == []
    assert (demo.root / "wordstats" / "counting.py").is_file()


def test_a_trust_list_that_cannot_be_written_is_a_clear_failure(tmp_path: Path, isolated_env: Path) -> None:
    shutil.rmtree(isolated_env / "ljtui")  # holding the user config every test starts with
    (isolated_env / "ljtui").write_text("a file where the config folder should be", encoding="utf-8")
    parent = tmp_path / "demos"
    parent.mkdir()
    failed = create_demo_repo(parent)
    assert isinstance(failed, DemoFailure)
    assert failed.message.startswith(f"cannot record in {isolated_env / 'ljtui' / 'trusted-repos.json'} that the "
                                     "demo's repository is trusted: ")
    assert list(parent.iterdir()) == []


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
                 "scripted", "--script", str(SCRIPT_PATH), PLAN_GOAL]) == 0
    after = unittest_run(demo.root)
    assert after.returncode == 0 and "Ran 5 tests" in after.stderr
    assert "def longest_word(text: str) -> str:" in (demo.root / "wordstats" / "counting.py").read_text()


# --- the guide ----------------------------------------------------------------


def test_the_steps_begin_in_order_and_only_on_their_own_events() -> None:
    tour = Tour(STEPS, DETOURS, FACTS)
    [(first, _)] = tour.start()
    assert first.startswith("Step 1 of 18 — the request.")
    assert tour.after(UNDONE) == [] and tour.after(APPLIED) == [] and tour.after(ASKS_BASH) == []
    assert tour.after(PlanOpened("plan.md", 1, ())) == []
    [(review, level)] = tour.after(OPENED)
    assert level == "info" and review.startswith("Step 2 of 18 — review.")
    assert "(F4 returns to it, F8 enlarges it): j/k pick a block, space rejects" in review
    assert tour.after(ApplyFinished({"status": "failed"}, 1)) == []
    [(result, _)] = tour.after(APPLIED)
    assert result.startswith("Step 3 of 18 — the result.") and "`git diff` in /tmp/demo/wordstats" in result
    assert tour.after(UndoFinished((), "app.py changed since the apply")) == []
    assert not tour.current.chat
    [(undone, _)] = tour.after(UNDONE)
    assert undone.startswith("Step 4 of 18 — undone")
    assert "Press F6 to go to the input box, type a message (say, do the tests pass?)" in undone
    assert tour.current.chat
    assert tour.after(PermissionRequested(2, "c0", "edit_file", "app.py")) == [] and tour.after(ANSWERED) == []
    [(asks, _)] = tour.after(ASKS_BASH)
    assert asks.startswith("Step 5 of 18 — a permission.") and "Enter allows it once, s allows bash" in asks
    [(done, _)] = tour.after(ANSWERED)
    assert done.startswith("Step 6 of 18 — the agent's turn") and f"type /plan {PLAN_GOAL} and press Enter" in done
    assert tour.current.plan and not tour.current.chat
    assert tour.after(REPLANNED) == [] and tour.after(RUN_OVER) == []
    [(proposed, _)] = tour.after(PROPOSED)
    assert proposed.startswith("Step 7 of 18 — the task plan") and "enter runs it (w: without asking before each file write), escape rejects it" in proposed
    [(replanned, _)] = tour.after(REPLANNED)
    assert replanned.startswith("Step 8 of 18 — a replan.") and "(h lists every replan)" in replanned
    assert tour.after(RunFinished("r1", "failed", 1, 1)) == []
    [(over, _)] = tour.after(RUN_OVER)
    assert over.startswith("Step 9 of 18 — the run's end.") and over.endswith("Press Enter to save it.")
    [(saved, _)] = tour.after(SAVED)
    assert saved == ("Step 10 of 18 — a draft playbook: .agent/playbooks/add-longest-word.md holds the plan's steps as "
                     "its SOP, in plain Markdown. A draft is never offered to the model; only you can make it active. "
                     "Type /playbook promote add-longest-word and press Enter (a dialog shows the playbook and asks).")
    assert not tour.current.plan
    assert tour.after(PlaybookStatusChanged("add-longest-word", "draft", "deprecated")) == []
    [(promoted, _)] = tour.after(PROMOTED)
    assert promoted.startswith("Step 11 of 18 — an active playbook") and "skill playbook-add-longest-word" in promoted
    assert promoted.endswith("Type /plan add shortest_word and press Enter.") and tour.current.plan
    [(stopped, level)] = tour.after(RECALL_STOPPED)
    assert level == "warning" and stopped == f"{RECORDING_ONLY} Type /plan add shortest_word and press Enter."
    [(recalled, _)] = tour.after(RECALLED)
    assert recalled.startswith("Step 12 of 18 — a recalled playbook: the goal matched add-longest-word")
    assert "(/playbook show add-longest-word); escape rejects it." in recalled and not tour.current.plan
    [(gated, _)] = tour.after(RECALL_REJECTED)
    assert gated.startswith("Step 13 of 18 — last, a delivery gate") and tour.current.chat
    assert tour.after(GATE_STARTED) == []
    [(gate, _)] = tour.after(GATE_PROPOSED)
    assert gate.startswith("Step 14 of 18 — a gate.") and not tour.current.chat
    assert tour.after(GateStarted("top-words-ignores-punctuation", "run1", 1, False)) == []
    [(staged, _)] = tour.after(GATE_STARTED)
    assert staged.startswith("Step 15 of 18 — a gated run") and staged.endswith("Allow the edits (Enter).")
    assert tour.after(REFUSED) == [] and tour.after(OPENED) == []
    [(delivery, _)] = tour.after(DELIVERY)
    assert delivery.startswith("Step 16 of 18 — the delivery.") and "was refused" in delivery
    assert tour.after(TurnStarted(5, "make top_words ignore punctuation")) == [] and tour.turn_running
    assert tour.after(NOT_DELIVERED) == [] and tour.after(ANSWERED) == [] and not tour.turn_running
    [(delivered, _)] = tour.after(DELIVERED)
    assert delivered.startswith("Step 17 of 18 — delivered") and "Enter keeps it as a draft playbook" in delivered
    [(end, _)] = tour.after(OFFER_DECLINED)
    assert end.startswith("Step 18 of 18 — that is the demo.") and "F5" in end
    assert "`ljtui gates show top-words-ignores-punctuation` prints it. ctrl+q quits; the copy stays in" in end
    assert tour.finished and tour.after(RUN_OVER) == [] and tour.after(ANSWERED) == []


def at_delivery() -> Tour:
    """A tour at the delivery step, with the facts of the steps before it."""
    tour = Tour(STEPS, DETOURS, {**FACTS, "gate": GATE_PROPOSED.gate, "playbook": SAVED.id, "playbook_path": SAVED.path})
    tour.index = [step.name for step in STEPS].index("delivery")
    return tour


def test_a_delivery_inside_the_models_turn_ends_the_demo_when_the_turn_ends() -> None:
    tour = at_delivery()
    tour.after(TurnStarted(5, "make top_words ignore punctuation"))
    [(delivered, _)] = tour.after(DELIVERED)
    assert delivered.startswith("Step 17 of 18 — delivered")
    assert tour.after(OFFER_DECLINED) == []
    [(end, _)] = tour.after(ANSWERED)
    assert end.startswith("Step 18 of 18 — that is the demo.") and tour.finished


def test_a_cancelled_delivery_says_nothing_was_written_and_how_to_try_again() -> None:
    from ljtui.demo.steps import DELIVERY_CANCELLED

    tour = at_delivery()
    assert tour.after(Notice(APPLY_CANCELLED)) == [
        (f"{DELIVERY_CANCELLED} Type /gates deliver and press Enter to try again.", "info")]


def test_the_recalled_plan_may_be_run_instead_of_rejected() -> None:
    tour = Tour(STEPS, DETOURS, FACTS)
    for event in (OPENED, APPLIED, UNDONE, ASKS_BASH, ANSWERED, PROPOSED, REPLANNED, RUN_OVER, SAVED, PROMOTED,
                  RECALLED):
        tour.after(event)
    assert tour.current.name == "recalled"
    [(gated, _)] = tour.after(RunFinished("r2", "done", 0, 0))
    assert gated.startswith("Step 13 of 18 — last, a delivery gate")


def test_a_declined_offer_says_that_the_playbook_steps_need_a_draft() -> None:
    tour = Tour(STEPS, DETOURS, FACTS)
    for event in (OPENED, APPLIED, UNDONE, ASKS_BASH, ANSWERED, PROPOSED, REPLANNED, RUN_OVER):
        tour.after(event)
    assert tour.after(OFFER_DECLINED) == [
        ("Nothing was kept, so there is no playbook to promote and recall: quit (ctrl+q) and run ljtui --demo again "
         "to see those steps.", "info")]
    assert tour.current.name == "planned"


def test_a_step_learns_facts_from_the_event_that_begins_it() -> None:
    first = Step("first", None, "start.")
    named = Step("named", lambda e: isinstance(e, PlaybookSaved), "saved {playbook}.",
                 learn=lambda e: {"playbook": e.id})
    later = Step("later", lambda e: isinstance(e, PlaybookStatusChanged), "promote {playbook} again?")
    tour = Tour((first, named, later), (), {})
    assert tour.after(SAVED) == [("Step 2 of 3 — saved add-longest-word.", "info")]
    assert tour.after(PROMOTED) == [("Step 3 of 3 — promote add-longest-word again?", "info")]


def test_a_detour_may_be_limited_to_some_steps() -> None:
    from ljtui.demo.tour import Detour

    first = Step("first", None, "start.", again="Do the first thing.")
    second = Step("second", lambda e: isinstance(e, PlaybookSaved), "next.", again="Do the second thing.")
    tour = Tour((first, second), (Detour(lambda e: isinstance(e, Notice), "Hm.", during=("second",)),), {})
    assert tour.after(Notice("x")) == []
    tour.after(SAVED)
    assert tour.after(Notice("x")) == [("Hm. Do the second thing.", "info")]


def test_a_message_where_the_recording_has_no_answer_is_answered_by_the_guide() -> None:
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
    assert tour.start()[0][0].startswith("Step 1 of 19")
    tour.after(OPENED)
    assert tour.after(APPLIED) == [("Step 3 of 19 — again, wordstats.", "info")]
    assert tour.after(APPLIED)[0][0].startswith("Step 4 of 19 — the result.")


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
