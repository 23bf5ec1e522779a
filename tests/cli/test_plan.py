"""``ljtui plan`` end to end: exit codes, the plan file, the trace (PLN-12)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ljtui.cli.main import main
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.validate import validate_plan
from tests.core.planner.helpers import BAD_ANCHOR_PLAN, GOOD_PLAN, HANDBOOK, RETRY_SCRIPT, action


def script(tmp_path: Path, *replies: str) -> Path:
    path = tmp_path / "model.yaml"
    path.write_text(yaml.safe_dump({"turns": [{"text": r} for r in replies]}), encoding="utf-8")
    return path


def plan_args(repo: Path, out: Path, model: Path, *extra: str) -> list[str]:
    return ["plan", "--source", str(repo), "--request", "retry uploads", "--out", str(out),
            "--script", str(model), *extra]


def test_full_run_on_the_sample_repo_writes_a_plan_that_validates(repo: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plan.md"
    code = main(plan_args(repo, out, RETRY_SCRIPT, "--handbook", str(HANDBOOK)))
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err.splitlines()[:4] == [
        "turn 1: list_dir path=. -> .: 3 entries",
        "turn 2: read_file path=__handbook__/upload.md -> __handbook__/upload.md lines 1-5 of 5",
        "turn 3: grep pattern=def send\\b path=src -> 1 hit for `def send\\b` in src",
        "turn 4: read_file path=src/shipper/upload.py -> src/shipper/upload.py lines 1-31 of 31",
    ]
    assert "plan written to" in captured.out
    plan = parse_plan(out.read_text(encoding="utf-8"))
    assert [b.number for b in plan.blocks] == [1, 2]
    assert plan.declarations.will_add == ("Uploader._put_with_retry",)
    report = validate_plan(plan, repo)
    assert report.ok
    new_source = next(iter(report.changes.values())).after.decode()
    compile(new_source, "upload.py", "exec")
    assert "self._put_with_retry(url, data)" in new_source


def test_json_output(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plan.md"
    assert main(plan_args(repo, out, script(tmp_path, GOOD_PLAN), "--json")) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0]["kind"] == "turn_started" and "usage_recorded" in [e["kind"] for e in events]
    data = events[-1]
    assert data["kind"] == "planner_outcome" and data["ok"] is True and data["out"] == str(out) and data["aborted"] is None
    assert data["declarations"] == {"will_modify": ["Uploader.send"], "will_add": [], "will_remove": []}
    assert out.read_text(encoding="utf-8") == GOOD_PLAN == data["plan"]


@pytest.mark.parametrize(("replies", "reason"), [
    (["## Tool result\nx = 1\n"] * 3, "fabrication"),
    ([action("list_dir", path=".")] * 3, "turn-limit"),
    ([action("finish")], "no-plan"),
])
def test_every_abort_exits_3_naming_it_and_writes_nothing(repo: Path, tmp_path: Path, replies: list[str],
                                                          reason: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plan.md"
    assert main(plan_args(repo, out, script(tmp_path, *replies), "--max-turns", "3", "--json")) == 3
    captured = capsys.readouterr()
    assert f"Planner aborted ({reason})" in captured.err
    outcome = json.loads(captured.out.splitlines()[-1])
    assert outcome["kind"] == "planner_outcome" and outcome["aborted"] == reason and outcome["ok"] is False
    assert not out.exists()


def test_plan_still_failing_exits_1_without_a_file(repo: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plan.md"
    assert main(plan_args(repo, out, script(tmp_path, *[BAD_ANCHOR_PLAN] * 4))) == 1
    err = capsys.readouterr().err
    assert "still fails its check after 3 repair rounds" in err and "AnchorNotFound" in err
    assert not out.exists()


def test_model_running_out_exits_1(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(plan_args(repo, tmp_path / "p.md", script(tmp_path, action("list_dir", path=".")))) == 1
    assert "model error" in capsys.readouterr().err


@pytest.mark.parametrize(("extra", "message"), [
    (["--max-turns", "0"], "--max-turns must be at least 1"),
    (["--handbook", "/nonexistent/book"], "is not a directory"),
])
def test_usage_errors_exit_2(repo: Path, tmp_path: Path, extra: list[str], message: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(plan_args(repo, tmp_path / "p.md", script(tmp_path, GOOD_PLAN), *extra)) == 2
    assert message in capsys.readouterr().err


def test_missing_source_and_out_folder_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = script(tmp_path, GOOD_PLAN)
    assert main(plan_args(tmp_path / "nope", tmp_path / "p.md", model)) == 2
    assert main(plan_args(tmp_path, tmp_path / "no" / "p.md", model)) == 2


def test_no_model_configured_exits_2(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["plan", "--source", str(repo), "--request", "x", "--out", str(tmp_path / "p.md")]
    assert main(args) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_missing_required_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["plan", "--request", "x"])
    assert info.value.code == 2


def test_real_process_never_shows_a_traceback(repo: Path, tmp_path: Path) -> None:
    bad_script = tmp_path / "bad.yaml"
    bad_script.write_text("turns: [", encoding="utf-8")
    for model in (bad_script, script(tmp_path, action("finish"))):
        proc = subprocess.run([sys.executable, "-m", "ljtui.cli.main", *plan_args(repo, tmp_path / "p.md", model)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode in (2, 3)
        assert "Traceback" not in proc.stderr


def test_planned_file_is_applied_by_ljtui_apply(repo: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plan.md"
    assert main(plan_args(repo, out, RETRY_SCRIPT, "--handbook", str(HANDBOOK))) == 0
    capsys.readouterr()
    assert main(["apply", str(out), "--yes", "--json", "--repo", str(repo)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "done" and result["files"] == ["src/shipper/upload.py"]
    source = (repo / "src/shipper/upload.py").read_text(encoding="utf-8")
    compile(source, "upload.py", "exec")
    assert "def _put_with_retry(self, url: str, data: bytes, attempts: int = 3):" in source
    assert "response = self._put_with_retry(url, data)" in source


def test_help_says_what_source_and_repo_do(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["plan", "--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ("--source DIR the folder the plan is for: the planner lists, reads and greps only this tree and edits "
            "none of it; its settings (.agent/config.yaml) are the ones used, its unfinished apply is rolled back "
            "first, and the run is logged in its .agent/") in text
    assert ("repository: --repo REPO not used by plan, which works where --source says; given (here or before "
            "`plan`), it must name the same folder") in text


def test_a_repo_other_than_the_source_is_a_usage_error_and_the_same_one_is_fine(
        repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, other = tmp_path / "p.md", tmp_path / "other"
    other.mkdir()
    model = script(tmp_path, GOOD_PLAN)
    args = plan_args(repo, out, model)
    for argv in ([*args, "--repo", str(other)], ["--repo", str(other), *args]):
        assert main(argv) == 2
        assert capsys.readouterr().err == (
            f"ljtui plan: --repo {other} and --source {repo} name different folders: the plan is for --source alone "
            "(the tree the planner reads, whose settings are used); leave --repo out\n")
        assert not out.exists()
    assert main([*plan_args(repo, out, model), "--repo", str(repo / ".")]) == 0
    assert out.read_text(encoding="utf-8") == GOOD_PLAN


def test_an_unfinished_apply_in_the_source_is_rolled_back_first(git_repo: Path, tmp_path: Path, monkeypatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from ljtui.core.edits.validate import FileChange
    from tests.core.edits.helpers import interrupted_transaction

    interrupted_transaction(git_repo, [FileChange("new.py", git_repo / "new.py", None, b"x\n")])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(plan_args(git_repo, tmp_path / "p.md", script(tmp_path, GOOD_PLAN), "--max-turns", "0")) == 2
    assert "recovered unfinished apply" in capsys.readouterr().err and not (git_repo / "new.py").exists()
