"""``ljtui stats`` through a real process: the human report, its JSON, and refusals."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures import FIXTURES

SUBPROCESS_TIMEOUT = 60
RECORDED = FIXTURES / "runlog" / "events.jsonl"


@pytest.fixture
def env(isolated_env: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(isolated_env)}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo


@pytest.fixture
def recorded(root: Path) -> Path:
    (root / ".agent").mkdir()
    shutil.copyfile(RECORDED, root / ".agent" / "events.jsonl")
    return root


def ljtui(*args: str, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args], capture_output=True, text=True, env=env,
                          timeout=SUBPROCESS_TIMEOUT, stdin=subprocess.DEVNULL, cwd=cwd)


def test_json_reports_the_recorded_runs(recorded: Path, env: dict[str, str]) -> None:
    proc = ljtui("stats", "--json", "--repo", str(recorded), env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "runs": 5, "finished_runs": 4, "unfinished_runs": 1, "first_try_successes": 2,
        "first_try_success_rate": 0.5, "mean_replans_per_run": 0.5,
        "failing_tool_hints": [{"hint": "bash", "uses": 5, "failures": 2},
                               {"hint": "web_fetch", "uses": 1, "failures": 1},
                               {"hint": "edit_file", "uses": 4, "failures": 1}],
        "ignored_lines": 0, "other_lines": 1, "unread_bytes": 0,
    }
    assert proc.stderr == ""


def test_the_human_report_is_a_few_aligned_lines(recorded: Path, env: dict[str, str]) -> None:
    proc = ljtui("stats", env=env, cwd=recorded)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "runs                    5 approved (4 finished, 1 unfinished)",
        "first-try success rate  50% (2 of 4)",
        "mean replans per run    0.50",
        "tool hints most often followed by failure:",
        "  bash                 2 of 5 failed",
        "  web_fetch            1 of 1 failed",
        "  edit_file            1 of 4 failed",
        "ignored lines           0 malformed, 1 of other kinds",
    ]


def test_ignored_lines_are_counted_and_hints_shown_safely(recorded: Path, env: dict[str, str]) -> None:
    with (recorded / ".agent" / "events.jsonl").open("ab") as fh:
        fh.write(b'{"kind": "task_plan_approved", "run_id": 7}\nnot json\n')
        for line in (
            {"kind": "task_plan_proposed", "run_id": "z", "tasks": [{"id": 1, "tool_hint": "\x1b]0;pwned\x07x"}]},
            {"kind": "task_plan_approved", "run_id": "z"},
            {"kind": "task_finished", "run_id": "z", "task_id": 1, "status": "failed"},
        ):
            fh.write(json.dumps(line).encode() + b"\n")
        fh.write(b'{"kind": "run_fin')
    proc = ljtui("--repo", str(recorded), "stats", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "ignored lines           3 malformed, 1 of other kinds" in proc.stdout
    assert "\x1b" not in proc.stdout and "\\x1b]0;pwned\\x07x" in proc.stdout
    assert proc.stderr.splitlines() == [
        "ljtui stats: ignored line 53: task_plan_approved: 'run_id' is int",
        "ljtui stats: ignored line 54: not JSON",
        "ljtui stats: ignored line 58: unfinished last line",
        "ljtui stats: 3 lines of events.jsonl were unreadable and skipped",
    ]
    assert json.loads(ljtui("stats", "--json", "--repo", str(recorded), env=env).stdout)["ignored_lines"] == 3


def test_a_hint_that_is_not_utf8_is_printed_escaped(root: Path, env: dict[str, str]) -> None:
    from ljtui.core.runlog import RunLog

    log = RunLog(root)
    for event in ({"kind": "task_plan_proposed", "run_id": "z", "tasks": [{"id": 1, "tool_hint": "b\udcffd"}]},
                  {"kind": "task_plan_approved", "run_id": "z"},
                  {"kind": "task_finished", "run_id": "z", "task_id": 1, "status": "failed"}):
        assert log.append(event) is None
    proc = ljtui("stats", "--json", "--repo", str(root), env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["failing_tool_hints"] == [{"hint": "b\udcffd", "uses": 1, "failures": 1}]
    proc = ljtui("stats", "--repo", str(root), env=env)
    assert proc.returncode == 0, proc.stderr
    assert "  b\ufffdd " in proc.stdout


def test_no_log_reports_no_runs(root: Path, env: dict[str, str]) -> None:
    proc = ljtui("stats", "--json", "--repo", str(root), env=env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["runs"], report["first_try_success_rate"], report["mean_replans_per_run"]) == (0, None, None)
    text = ljtui("stats", "--repo", str(root), env=env).stdout.splitlines()
    assert text[1:3] == ["first-try success rate  -", "mean replans per run    -"]
    assert not (root / ".agent").exists(), "reading creates nothing"


def test_a_repo_that_is_not_a_directory_is_a_usage_error(tmp_path: Path, env: dict[str, str]) -> None:
    proc = ljtui("stats", "--repo", str(tmp_path / "missing"), env=env)
    assert proc.returncode == 2
    assert "not a directory" in proc.stderr and proc.stdout == ""


def test_a_symlinked_state_folder_is_refused(root: Path, tmp_path: Path, env: dict[str, str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copyfile(RECORDED, elsewhere / "events.jsonl")
    (root / ".agent").symlink_to(elsewhere)
    proc = ljtui("stats", "--json", "--repo", str(root), env=env)
    assert proc.returncode == 1
    assert ".agent is a symbolic link" in proc.stderr and proc.stdout == ""


def test_help_describes_the_command(env: dict[str, str]) -> None:
    proc = ljtui("stats", "--help", env=env)
    assert proc.returncode == 0
    assert "first-try" in proc.stdout and "--json" in proc.stdout and "--repo" in proc.stdout
    assert "stats" in ljtui("--help", env=env).stdout
