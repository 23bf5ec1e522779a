"""``ljtui run --plan``: a task plan run headless on a real repository, its events, and ``ljtui stats``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import git
from tests.core.tasks.helpers import said

TIMEOUT = 120
NEW_TASKS = [{"id": 7, "description": "Run the greeting", "tool_hint": "bash"},
             {"id": 8, "description": "Look at the result", "tool_hint": "made_up_tool", "depends_on": [7]}]
SCRIPT = {"agents": {
    "decompose": [{"text": json.dumps({"tasks": [
        {"id": 1, "description": "Read app.py", "tool_hint": "read_file", "depends_on": []},
        {"id": 2, "description": "Read README.md", "tool_hint": "read_file", "depends_on": []},
        {"id": 3, "description": "Make greet friendlier", "tool_hint": "edit_file", "depends_on": [1, 2]},
        {"id": 4, "description": "Run the greeting", "tool_hint": "bash", "depends_on": [3]}]})}],
    "task 1": [{"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]}, said("greet joins.", 1)],
    "task 2": [{"tool_calls": [{"name": "read_file", "input": {"path": "README.md"}}]}, said("a title.", 2)],
    "task 3": [{"tool_calls": [{"name": "edit_file", "input": {
        "path": "app.py", "old": "return 'hello ' + name", "new": "return f'hello, {name}!'"}}]},
               {"tool_calls": [{"name": "update_task_plan", "input": {"reason": "check it", "tasks": NEW_TASKS}}]},
               {"text": "replanned: the greeting is checked next"}],
    "task 4": [{"tool_calls": [{"name": "bash", "input": {
        "command": "python3 -c 'import app; print(app.greet(\"you\"))'"}}]}, said("hello, you!", 4)],
    "task 5": [said("fine", 5)],
    "task 6": [said("verified", 6)],
}}
"""After the replan, tasks 4 and 5 are the new ones and 6 the verification task the sanitiser adds."""


def ljtui(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")}
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args, "--repo", str(repo)],
                          capture_output=True, text=True, timeout=TIMEOUT, env=env)


def test_a_plan_runs_with_a_replan_and_prints_its_events_then_stats_reports_it(git_repo: Path,
                                                                                 tmp_path: Path) -> None:
    script = tmp_path / "plan.yaml"
    script.write_text(yaml.safe_dump(SCRIPT), encoding="utf-8")
    proc = ljtui(git_repo, "run", "--plan", "--yes", "--allow", "write,bash", "--json", "--provider", "scripted",
                 "--script", str(script), "make greet friendlier")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    kinds = [e["kind"] for e in events]
    for kind in ("task_plan_proposed", "task_plan_approved", "task_started", "task_finished", "task_plan_updated",
                 "tool_hint_stripped", "permission_decided", "run_finished"):
        assert kind in kinds, kind
    [updated] = [e for e in events if e["kind"] == "task_plan_updated"]
    assert updated["replan_count"] == 1 and updated["reason"] == "check it"
    assert [k for k in kinds if not k.startswith("approval_")][-1] == "turn_finished"
    offer = [e for e in events if e["kind"] == "approval_decided"][-1]
    assert "playbook_offer" in offer.values() and "no" in offer.values()  # --yes never accepts an offer
    [finished] = [e for e in events if e["kind"] == "run_finished"]
    assert (finished["status"], finished["replans"], finished["failed"]) == ("done", 1, 0)
    assert "hello, you!" in [e.get("summary") for e in events if e["kind"] == "task_finished"]
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return f'hello, {name}!'\n"
    assert ".agent" not in git(git_repo, "status", "--porcelain")
    stats = ljtui(git_repo, "stats", "--json")
    figures = json.loads(stats.stdout)
    assert (figures["runs"], figures["first_try_success_rate"], figures["mean_replans_per_run"]) == (1, 0.0, 1.0)


def test_without_yes_and_no_terminal_the_plan_is_printed_and_nothing_runs(git_repo: Path, tmp_path: Path) -> None:
    script = tmp_path / "plan.yaml"
    script.write_text(yaml.safe_dump(SCRIPT), encoding="utf-8")
    proc = ljtui(git_repo, "run", "--plan", "--provider", "scripted", "--script", str(script), "make greet friendlier")
    assert proc.returncode == 1
    assert "  3. Make greet friendlier  (tool: edit_file; after 1, 2)" in proc.stdout + proc.stderr
    assert "pass --yes to approve it" in proc.stderr and "the task plan ended rejected" in proc.stderr
    assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'hello ' + name\n"


def test_a_skill_runs_headless_as_the_plan(git_repo: Path, tmp_path: Path) -> None:
    script = tmp_path / "skill.yaml"
    script.write_text(yaml.safe_dump({"agents": {f"task {n}": [said(f"step {n}", n)] for n in range(1, 5)}}),
                      encoding="utf-8")
    proc = ljtui(git_repo, "run", "--skill", "fix-with-test", "--yes", "--json", "--provider", "scripted",
                 "--script", str(script), "greet is rude")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    [proposed] = [e for e in events if e["kind"] == "task_plan_proposed"]
    assert len(proposed["tasks"]) == 4 and proposed["tasks"][0]["tool_hint"] == "grep_files"
    assert [e["status"] for e in events if e["kind"] == "run_finished"] == ["done"]
    unknown = ljtui(git_repo, "run", "--skill", "no-such", "--yes", "--provider", "scripted", "--script",
                    str(script), "x")
    assert unknown.returncode == 1 and "There is no skill named 'no-such'." in unknown.stderr
