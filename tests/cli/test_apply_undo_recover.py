"""``ljtui apply``, ``recover`` and ``undo`` as real subprocesses on a real git repo."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from ljtui.core.edits.validate import FileChange
from tests.core.edits.lock_holder import held_by_another_process
from tests.core.edits.helpers import block, interrupted_transaction, plan_text

LJTUI = str(Path(sys.executable).with_name("ljtui"))
PTY_TIMEOUT = 30.0
PROMPT = b"[y/N] "


def ljtui(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LJTUI, *args], cwd=repo, capture_output=True, text=True, timeout=60)


def write_plan(repo: Path, *blocks: str) -> str:
    path = repo.parent / "plan.md"
    path.write_text(plan_text(*blocks), encoding="utf-8")
    return str(path)


GREET_OLD = "    return 'hello ' + name\n"
GREET_NEW = "    return f'hello {name}!'\n"


def test_apply_json_done(git_repo):
    plan = write_plan(git_repo, block(1, "app.py", GREET_OLD, GREET_NEW))
    done = ljtui(git_repo, "apply", plan, "--json", "--yes")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["status"], result["applied_entry_ids"], result["files"]) == ("done", ["plan"], ["app.py"])
    assert result["checks"] == [{"file": "app.py", "checker": "python", "ok": True, "message": ""}]
    assert (git_repo / "app.py").read_text() == "def greet(name):\n" + GREET_NEW
    assert (git_repo / ".agent" / ".gitignore").read_text() == (".gitignore\njournal/\nsessions/\nworkspace/\nplans/\n"
                                                                 "cache/\nevents.jsonl\n.*.tmp\n")
    status = subprocess.run(["git", "status", "--porcelain", "-uall"], cwd=git_repo, capture_output=True,
                            text=True).stdout
    assert status.splitlines() == [" M app.py"]
    assert ljtui(git_repo, "undo", "--yes").returncode == 0
    status = subprocess.run(["git", "status", "--porcelain", "-uall"], cwd=git_repo, capture_output=True,
                            text=True).stdout
    assert status == ""


def test_dry_run_prints_plain_diff_and_writes_nothing(git_repo):
    plan = write_plan(git_repo, block(1, "app.py", GREET_OLD, GREET_NEW))
    done = ljtui(git_repo, "apply", plan, "--dry-run")
    assert done.returncode == 0
    assert done.stdout == ("--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet(name):\n"
                           f"-{GREET_OLD}+{GREET_NEW}")
    assert "note: dry run: nothing was written" in done.stderr
    assert (git_repo / "app.py").read_text().endswith(GREET_OLD)
    assert not (git_repo / ".agent").exists()


def test_partial_exit_one_and_error_exit_two(git_repo):
    good = block(1, "app.py", GREET_OLD, GREET_NEW, entry="good")
    bad = block(2, "README.md", "# nothing like this\n", "x\n", entry="bad")
    plan = write_plan(git_repo, good, bad)
    partial = ljtui(git_repo, "apply", plan, "--partial", "--json", "--yes")
    assert partial.returncode == 1
    result = json.loads(partial.stdout)
    assert result["status"] == "partial" and result["failed"][0]["entry_id"] == "bad"
    assert "- AnchorNotFound in EDIT 2: `old` does not occur in README.md" in partial.stderr
    error = ljtui(git_repo, "apply", write_plan(git_repo, bad))
    assert error.returncode == 2
    assert "failed entry bad: AnchorNotFound: block 2" in error.stderr
    assert error.stderr.rstrip().endswith("error: 1 of 1 entries failed; nothing was written")


def test_malformed_and_unreadable_plans_exit_two(git_repo):
    path = git_repo.parent / "broken.md"
    path.write_text("### EDIT 1\n- file: a\n\n```old\nx\n", encoding="utf-8")
    broken = ljtui(git_repo, "apply", str(path), "--json")
    assert broken.returncode == 2
    assert "UnclosedFence: block 1: the ```old fence opened on line 4 is never closed" in broken.stderr
    assert json.loads(broken.stdout)["status"] == "error"
    missing = ljtui(git_repo, "apply", str(git_repo.parent / "nope.md"))
    assert missing.returncode == 2 and f"cannot open {git_repo.parent / 'nope.md'}: no such file" in missing.stderr


def test_every_command_recovers_a_leftover_journal_first(git_repo):
    before = (git_repo / "app.py").read_bytes()
    interrupted_transaction(git_repo, [FileChange("app.py", git_repo / "app.py", before, b"half-applied\n")])
    done = ljtui(git_repo, "undo")
    assert done.stderr.splitlines()[:2] == [
        "ljtui: recovered unfinished apply tx0001: every file is back to its pre-apply bytes", "  restored: app.py"]
    assert (git_repo / "app.py").read_bytes() == before


def test_recover_command(git_repo):
    assert ljtui(git_repo, "recover").stdout == "nothing to recover\n"
    interrupted_transaction(git_repo, [FileChange("new.py", git_repo / "new.py", None, b"x\n")])
    done = ljtui(git_repo, "recover")
    assert done.returncode == 0
    assert done.stdout.splitlines()[1] == "  removed: new.py"
    assert not (git_repo / "new.py").exists()


def test_recover_command_fails_while_another_process_applies(git_repo):
    interrupted_transaction(git_repo, [FileChange("new.py", git_repo / "new.py", None, b"x\n")])
    with held_by_another_process(git_repo) as pid:
        done = ljtui(git_repo, "recover")
    assert (done.returncode, done.stdout) == (
        2, f"ljtui: another ljtui process (pid {pid}) is applying; recovery skipped\n")
    assert (git_repo / "new.py").exists()


def test_undo_command_and_refusal(git_repo):
    plan = write_plan(git_repo, block(1, "app.py", GREET_OLD, GREET_NEW))
    assert ljtui(git_repo, "apply", plan, "--yes").returncode == 0
    (git_repo / "app.py").write_text("edited by hand\n")
    refused = ljtui(git_repo, "undo")
    assert refused.returncode == 2
    assert refused.stderr == ("ljtui undo: refusing to undo: changed since the apply: app.py; "
                              "nothing was written\n")
    (git_repo / "app.py").write_text("def greet(name):\n" + GREET_NEW)
    declined = ljtui(git_repo, "undo")
    assert declined.returncode == 2 and "pass --yes to confirm without asking" in declined.stderr
    undone = ljtui(git_repo, "undo", "--yes")
    assert (undone.returncode, undone.stdout) == (0, "reverted app.py\n")
    assert undone.stderr.endswith("ljtui undo: no earlier apply is kept to undo\n")
    assert (git_repo / "app.py").read_text().endswith(GREET_OLD)


def run_on_tty(repo: Path, args: list[str], answer: bytes, meanwhile=lambda: None) -> tuple[int, bytes, str]:
    """Run ljtui on a pseudo-terminal, call ``meanwhile`` at the prompt, then answer."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([LJTUI, *args], cwd=repo, stdin=slave, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + PTY_TIMEOUT
    while PROMPT not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            seen += os.read(master, 4096)
    meanwhile()
    os.write(master, answer)
    code = proc.wait(timeout=PTY_TIMEOUT)
    os.close(master)
    assert proc.stderr is not None
    errors = proc.stderr.read().decode()
    proc.stderr.close()
    return code, seen, errors


def test_tty_without_yes_shows_coloured_diff_and_asks(git_repo):
    plan = write_plan(git_repo, block(1, "app.py", GREET_OLD, GREET_NEW))
    code, shown, errors = run_on_tty(git_repo, ["apply", plan], b"n\n")
    assert code == 2 and b"\x1b[31m-" in shown and b"Apply changes to 1 file(s)? [y/N] " in shown
    assert "failed entry plan: declined: the user did not confirm the apply" in errors
    assert errors.rstrip().endswith("error: declined; nothing was written")
    assert (git_repo / "app.py").read_text().endswith(GREET_OLD)
    code, _, _ = run_on_tty(git_repo, ["apply", plan], b"y\n")
    assert code == 0 and (git_repo / "app.py").read_text().endswith(GREET_NEW)


def test_file_changed_while_asking_is_stale_and_revalidated(git_repo):
    plan = write_plan(git_repo, block(1, "app.py", GREET_OLD, GREET_NEW))
    edited = "def greet(name):\n    return 'hi ' + name\n"
    code, _, errors = run_on_tty(git_repo, ["apply", plan], b"y\n",
                                 meanwhile=lambda: (git_repo / "app.py").write_text(edited))
    assert code == 2
    assert "failed entry plan: StalePlan: app.py changed on disk since the plan was validated" in errors
    assert "re-validated against the current files: the plan no longer applies:" in errors
    assert "- AnchorNotFound in EDIT 1: `old` does not occur in app.py" in errors
    assert (git_repo / "app.py").read_text() == edited


def test_core_edits_and_apply_command_never_import_textual():
    code = ("import sys, ljtui.core.edits.apply, ljtui.core.edits.recovery, ljtui.cli.cmd_apply; "
            "print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_stale_plan_that_still_applies_asks_for_a_fresh_review(git_repo):
    plan = write_plan(git_repo, block(1, "app.py", GREET_OLD, GREET_NEW))
    code, _, errors = run_on_tty(git_repo, ["apply", plan], b"y\n",
                                 meanwhile=lambda: (git_repo / "app.py").write_text(
                                     "def greet(name):\n" + GREET_OLD + "# appended\n"))
    assert code == 2
    assert ("re-validated against the current files: the plan still applies to 1 file(s); "
            "run the command again to review and apply it") in errors
    assert (git_repo / "app.py").read_text().endswith("# appended\n")
