"""``ljtui run`` ends by counting the turn's tool calls: a turn whose every call failed is not "Done" and
exits 1, whatever the model's last words; failed and denied calls are counted apart. The README's agent
example says so itself on a repository that is not its scratch one."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import yaml

from tests.cli.test_readme_example import MARKER, readme_block, run_block
from tests.cli.test_run_agent import events, run
from tests.conftest import DIRECT_CONFIG, git

NEEDS_SCRATCH = "this example needs its scratch repository, the one the README's first line makes"


def readme_run_line() -> str:
    """The README example's ``ljtui run`` command, exactly as written."""
    [line] = [line for line in readme_block(MARKER).splitlines() if line.startswith("ljtui run ")]
    return line


def run_example_on(repo: Path, tmp_path: Path, *, allow: bool = True,
                   user_config: str = "") -> subprocess.CompletedProcess[str]:
    """The README's ``ljtui run`` line on ``repo`` instead of the scratch repository its first line makes."""
    line = readme_run_line()
    assert " --allow write,bash " in line
    if not allow:
        line = line.replace(" --allow write,bash ", " ")
    return run_block(f"repo={shlex.quote(str(repo))}\n{line}", tmp_path, user_config)


def files_of(repo: Path) -> list[str]:
    """What is in ``repo`` besides git's and ljtui's own files."""
    return sorted(p.name for p in repo.iterdir() if p.name not in (".git", ".agent"))


def test_the_readme_example_on_an_empty_repository_says_it_needs_its_scratch_one_and_exits_1(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    proc = run_example_on(empty, tmp_path)
    assert proc.returncode == 1, proc.stderr
    last = proc.stderr.splitlines()[-1]
    assert last == "ljtui run: finished, but the only tool call failed (read_file: error: 'greet.py' does not exist)"
    assert proc.stdout.splitlines() == [
        "First, the file as it is now.",
        (f"I cannot read greet.py, so I stop here and change nothing: {NEEDS_SCRATCH} (a new git repository whose "
         'greet.py returns "hi").')]
    assert "Done" not in proc.stdout + proc.stderr and "edit_file" not in proc.stderr
    assert files_of(empty) == [] and git(empty, "status", "--porcelain") == ""


def test_the_readme_example_on_another_repository_says_so_and_counts_one_failed_call_of_two(
    git_repo: Path, tmp_path: Path,
) -> None:
    (git_repo / "greet.py").write_text('def greet():\n    return "hey"\n', encoding="utf-8")
    proc = run_example_on(git_repo, tmp_path)
    assert proc.returncode == 0, proc.stderr
    last = proc.stderr.splitlines()[-1]
    assert last.startswith("Done: 1 of 2 tool calls failed (edit_file: AnchorNotFound: `old` does not occur in "
                           "greet.py"), last
    assert proc.stdout.splitlines()[-1].startswith(f"""greet.py has no 'return "hi"' to change, so I stop here and """
                                                   f"change nothing: {NEEDS_SCRATCH}")
    assert (git_repo / "greet.py").read_text(encoding="utf-8") == 'def greet():\n    return "hey"\n'


def test_the_readme_example_on_its_scratch_repository_counts_three_calls_that_succeeded(tmp_path: Path) -> None:
    proc = run_block(readme_block(MARKER), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "\nDone: 3 tool calls succeeded\n" in proc.stderr, proc.stderr
    assert "failed" not in proc.stderr and "denied" not in proc.stderr


def test_the_readme_example_without_allow_reports_the_denied_edit_apart_from_failures(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    git(scratch, "init", "-q")
    (scratch / "greet.py").write_text('def greet():\n    return "hi"\n', encoding="utf-8")
    proc = run_example_on(scratch, tmp_path, allow=False, user_config=DIRECT_CONFIG)  # the edit asks
    assert proc.returncode == 0, proc.stderr  # a denial is the user's answer, not a failure
    assert "[edit_file: deny (once)]" in proc.stderr
    assert proc.stderr.splitlines()[-1] == "Done: 1 of 2 tool calls denied (edit_file)"
    assert proc.stdout.splitlines()[-1] == "The edit was denied, so greet.py is unchanged and I stop here."
    assert (scratch / "greet.py").read_text(encoding="utf-8") == 'def greet():\n    return "hi"\n'


def write_script(tmp_path: Path, calls: list[dict], answer: str) -> Path:
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump({"turns": [{"text": "Looking.", "tool_calls": calls}, {"text": answer}]}),
                      encoding="utf-8")
    return script


READ_APP = {"name": "read_file", "input": {"path": "app.py"}}
READ_MISSING = {"name": "read_file", "input": {"path": "missing.py"}}
WRITE_NEW = {"name": "write_file", "input": {"path": "new.py", "content": "x = 1\n"}}


def test_one_failed_call_of_three_is_counted_and_the_run_still_exits_0(git_repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path, [READ_APP, READ_MISSING, READ_APP], "All done, I promise.")
    proc = run(git_repo, "read things", "--chat", "--script", str(script))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "Done: 1 of 3 tool calls failed (read_file: error: 'missing.py' does not exist)")
    assert proc.stderr.splitlines()[-2].startswith("tokens: ")


def test_every_call_failing_exits_1_naming_each_failure_alike_ones_counted(git_repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path, [READ_MISSING, READ_MISSING, {"name": "read_file", "input": {"path": "gone"}}],
                          "Done: everything worked.")
    proc = run(git_repo, "read things", "--chat", "--script", str(script))
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[-1] == "Done: everything worked."  # the model's words, not the run's
    assert proc.stderr.splitlines()[-1] == (
        "ljtui run: finished, but all 3 tool calls failed (read_file: error: 'missing.py' does not exist ×2; "
        "read_file: error: 'gone' does not exist)")


def test_a_denied_call_is_not_a_success_either_when_the_only_other_call_failed(git_repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path, [WRITE_NEW, READ_MISSING], "Nothing to see.")
    proc = run(git_repo, "write and read", "--chat", "--script", str(script))
    assert proc.returncode == 1, proc.stderr
    assert "[write_file: deny (once)]" in proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "ljtui run: finished, but the only tool call that was not denied failed "
        "(read_file: error: 'missing.py' does not exist), 1 denied (write_file)")
    assert not (git_repo / "new.py").exists()


def test_json_keeps_its_event_stream_and_stderr_carries_only_the_failure_line(git_repo: Path, tmp_path: Path) -> None:
    some = run(git_repo, "read things", "--chat", "--json", "--script",
               str(write_script(tmp_path, [READ_APP, READ_MISSING], "Read one.")))
    assert some.returncode == 0 and some.stderr == ""
    seen = events(some)
    assert seen[-1]["kind"] == "turn_finished" and [e["ok"] for e in seen if e["kind"] == "tool_call_finished"] == [
        True, False]
    every = run(git_repo, "read things", "--chat", "--json", "--script",
                str(write_script(tmp_path, [READ_MISSING], "Read it.")))
    assert every.returncode == 1
    assert every.stderr == ("ljtui run: finished, but the only tool call failed "
                            "(read_file: error: 'missing.py' does not exist)\n")
    assert events(every)[-1]["kind"] == "turn_finished"
    assert all(json.loads(line) for line in every.stdout.splitlines())


def test_a_turn_without_tool_calls_ends_with_its_token_line_as_before(git_repo: Path, tmp_path: Path) -> None:
    script = tmp_path / "hello.yaml"
    script.write_text("turns:\n  - text: Hello.\n", encoding="utf-8")
    proc = run(git_repo, "hi", "--chat", "--script", str(script))
    assert proc.returncode == 0 and proc.stdout == "Hello.\n"
    assert proc.stderr.splitlines()[-1].startswith("tokens: ")
