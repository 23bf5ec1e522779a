"""``ljtui hooks list``: the user's hooks and an untrusted repository's, their last results, and text from files
that never reaches the terminal raw."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import yaml

from ljtui.cli.main import main
from ljtui.core.hooks.last_runs import LastRuns
from ljtui.core.hooks.spec import Hook
from ljtui.core.hooks.verdict import BLOCKED, Verdict
from tests.conftest import DIRECT_CONFIG

ECHO_HI = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}]}
NOT_RUN = "    last: not run yet"
NOT_TRUSTED = ("1 repository hook(s) do not run: this repository is not trusted (or its hooks changed since); "
               "`ljtui trust` lists them and asks")


def user_hooks(config_home: Path, hooks: dict[str, object]) -> None:
    """The user's config: the tests' own, with ``hooks``."""
    text = DIRECT_CONFIG + yaml.safe_dump({"hooks": hooks})
    (config_home / "ljtui" / "config.yaml").write_text(text, encoding="utf-8")


def repo_hooks(repo: Path, text: str) -> None:
    (repo / ".agent").mkdir(exist_ok=True)
    (repo / ".agent" / "hooks.json").write_text(text, encoding="utf-8")


def stop_hook(command: str) -> str:
    return json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command, "timeout": 30}]}]}})


def listed(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["hooks", "list", *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def test_the_listing_shows_your_hooks_and_an_untrusted_repositorys_that_do_not_run(
        isolated_env: Path, git_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    user_hooks(isolated_env, ECHO_HI)
    repo_hooks(git_repo, stop_hook("make lint"))
    assert listed(capsys, str(git_repo)).splitlines() == [
        "PreToolUse [Bash] · your config · timeout 60 s · echo hi", NOT_RUN,
        "Stop · .agent/hooks.json · timeout 30 s · make lint", NOT_RUN, NOT_TRUSTED]


def test_json_gives_each_hook_its_last_result_and_the_notes(
        isolated_env: Path, git_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    user_hooks(isolated_env, ECHO_HI)
    repo_hooks(git_repo, stop_hook("make lint"))
    ran = Hook("PreToolUse", "Bash", "echo hi")
    LastRuns.for_env().record(git_repo, Verdict(ran, BLOCKED, 2, "no rm here", duration=0.25), time.time())
    assert json.loads(listed(capsys, str(git_repo), "--json")) == {
        "hooks": [{"event": "PreToolUse", "matcher": "Bash", "source": "your config", "command": "echo hi",
                   "timeout": 60.0, "network": False,
                   "last": {"outcome": "blocked", "exit_code": 2, "reason": "no rm here", "duration": 0.25}},
                  {"event": "Stop", "matcher": "", "source": ".agent/hooks.json", "command": "make lint",
                   "timeout": 30.0, "network": False, "last": None}],
        "notes": [NOT_TRUSTED]}
    assert listed(capsys, str(git_repo)).splitlines()[1] == "    last: blocked (exit 2) in 0.25 s: no rm here"


def test_a_hook_command_holding_an_escape_sequence_is_printed_visibly(
        isolated_env: Path, git_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo_hooks(git_repo, stop_hook("printf '\x1b[31mred'"))
    out = listed(capsys, str(git_repo))
    assert "\x1b" not in out
    assert out.splitlines()[0] == "Stop · .agent/hooks.json · timeout 30 s · printf '\\x1b[31mred'"
    out = listed(capsys, str(git_repo), "--json")
    assert "\x1b" not in out
    assert json.loads(out)["hooks"][0]["command"] == "printf '\x1b[31mred'"


def test_a_malformed_hooks_file_gives_a_note_naming_it(
        isolated_env: Path, git_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    user_hooks(isolated_env, ECHO_HI)
    repo_hooks(git_repo, '{"hooks": {"Stop": [')
    lines = listed(capsys, str(git_repo)).splitlines()
    assert lines[:2] == ["PreToolUse [Bash] · your config · timeout 60 s · echo hi", NOT_RUN]
    [note] = lines[2:]
    assert note.startswith(".agent/hooks.json is not valid JSON: ")


def test_a_repository_without_hooks_says_where_to_add_them(
        git_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert listed(capsys, str(git_repo)).splitlines() == [
        "No hooks. Add them under `hooks:` in your config, or commit .agent/hooks.json (docs/hooks.md)."]


def test_a_missing_folder_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hooks", "list", str(tmp_path / "typo")]) == 2
    assert capsys.readouterr().err == f"ljtui hooks: {tmp_path / 'typo'}: not a directory\n"


def test_a_headless_json_run_reports_each_hook_started_and_finished(
        git_repo: Path, isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.fixtures import SCRIPTS

    user_hooks(isolated_env, {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo 'no ls today' >&2; exit 2"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}]})
    assert main(["run", "--chat", "list the files", "--script", str(SCRIPTS / "bash_quick.yaml"), "--json",
                 "--allow", "bash", "--repo", str(git_repo)]) == 1  # the only tool call was refused
    out, err = capsys.readouterr()
    assert "the only tool call failed (bash: blocked by hook echo 'no ls today'" in err
    events = [json.loads(line) for line in out.splitlines()]
    hooks = [(e["kind"], e["event"], e.get("outcome")) for e in events if e["kind"].startswith("hook_")]
    assert hooks == [("hook_started", "PreToolUse", None), ("hook_finished", "PreToolUse", "blocked"),
                     ("hook_started", "Stop", None), ("hook_finished", "Stop", "ok")]
    [blocked] = [e for e in events if e["kind"] == "hook_finished" and e["outcome"] == "blocked"]
    assert blocked["reason"] == "no ls today" and blocked["exit_code"] == 2 and blocked["source"] == "your config"
    [call] = [e for e in events if e["kind"] == "tool_call_finished"]
    assert not call["ok"] and call["summary"].startswith("blocked by hook ")
