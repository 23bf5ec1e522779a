"""``ljtui layer diff | apply | drop`` on a real layer, as a newcomer runs them after a headless turn."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.layer.service import Layer
from tests.conftest import git

TIMEOUT = 120
SCRIPT = ("turns:\n  - text: \"Working.\"\n    tool_calls:\n      - name: bash\n"
          "        input: {command: \"rm old.py && echo 'NEW = 2' > new.py && echo '# more' >> app.py\"}\n"
          "  - text: \"Done.\"\n")


def ljtui(repo: Path, home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg"),
           "XDG_STATE_HOME": str(home / "state"), "XDG_CACHE_HOME": str(home / "cache"),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "ljtui.cli.main", *args, "--repo", str(repo)], env=env,
                          capture_output=True, text=True, timeout=TIMEOUT, input=stdin)


@pytest.fixture
def turned(git_repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    (git_repo / "old.py").write_text("OLD = 1\n", encoding="utf-8")
    git(git_repo, "add", "old.py")
    git(git_repo, "commit", "-q", "-m", "old")
    home = tmp_path / "home"
    home.mkdir()
    status = Layer(git_repo, env={"XDG_STATE_HOME": str(home / "state")}).status
    if not status.layered:
        pytest.skip(f"no layer on this machine: {status.why}")
    script = tmp_path / "turn.yaml"
    script.write_text(SCRIPT, encoding="utf-8")
    done = ljtui(git_repo, home, "run", "--provider", "scripted", "--script", str(script), "tidy up")
    assert done.returncode == 0, done.stderr
    assert "the change stays in the layer" in done.stderr
    assert (git_repo / "old.py").exists() and not (git_repo / "new.py").exists()
    return git_repo, home


def test_diff_then_apply_with_commit_commits_exactly_the_layers_files(turned: tuple[Path, Path]) -> None:
    repo, home = turned
    (repo / "staged.txt").write_text("mine\n", encoding="utf-8")
    git(repo, "add", "staged.txt")  # something the user staged: never part of ljtui's commit
    diff = ljtui(repo, home, "layer", "diff")
    assert diff.returncode == 0
    assert "diff --git a/old.py b/old.py\ndeleted file mode 100644" in diff.stdout
    assert "diff --git a/new.py b/new.py\nnew file mode 100644" in diff.stdout and "+# more" in diff.stdout
    done = ljtui(repo, home, "layer", "apply", "--yes", "--commit", "Tidy up: drop old.py, add new.py")
    assert done.returncode == 0, done.stderr
    assert "committed 3 file(s) as " in done.stdout
    shown = git(repo, "show", "--name-status", "--format=%s", "HEAD")
    assert shown.splitlines()[0] == "Tidy up: drop old.py, add new.py"
    assert sorted(shown.splitlines()[2:]) == ["A\tnew.py", "D\told.py", "M\tapp.py"]
    assert git(repo, "diff", "--cached", "--name-only") == "staged.txt\n"  # still staged, not committed
    assert ljtui(repo, home, "layer", "diff").stdout == "The layer holds no change.\n"


def test_drop_asks_and_without_an_answer_keeps_the_layer_then_yes_drops_it(turned: tuple[Path, Path]) -> None:
    repo, home = turned
    kept = ljtui(repo, home, "layer", "drop")
    assert kept.returncode == 2 and "the layer is kept" in kept.stderr
    assert "deleted file mode" in ljtui(repo, home, "layer", "diff").stdout
    dropped = ljtui(repo, home, "layer", "drop", "--yes")
    assert dropped.returncode == 0 and dropped.stdout == "dropped the layer\n"
    assert ljtui(repo, home, "layer", "diff").stdout == "The layer holds no change.\n"
    assert (repo / "old.py").read_text(encoding="utf-8") == "OLD = 1\n"


def test_a_commit_git_refuses_leaves_the_change_applied_and_says_why(turned: tuple[Path, Path]) -> None:
    repo, home = turned
    (repo / ".git" / "index.lock").write_text("", encoding="utf-8")  # another git holds the index
    done = ljtui(repo, home, "layer", "apply", "--yes", "--commit", "Tidy up")
    assert done.returncode == 1, done.stderr
    assert "the change is applied, but git could not commit it: fatal: Unable to create" in done.stderr
    assert not (repo / "old.py").exists() and (repo / "new.py").exists()


def test_an_empty_commit_message_is_refused_and_nothing_is_applied(turned: tuple[Path, Path]) -> None:
    repo, home = turned
    done = ljtui(repo, home, "layer", "apply", "--yes", "--commit", "  ")
    assert done.returncode == 2 and "--commit needs a message" in done.stderr
    assert (repo / "old.py").exists() and not (repo / "new.py").exists()


def test_the_commit_runs_no_program_the_repositorys_settings_name(turned: tuple[Path, Path]) -> None:
    repo, home = turned
    marker = repo.parent / "ran"
    hooks = repo.parent / "hooks"
    hooks.mkdir()
    for name in ("pre-commit", "commit-msg", "post-commit"):
        (hooks / name).write_text(f"#!/bin/sh\necho {name} >> {marker}\n", encoding="utf-8")
        (hooks / name).chmod(0o755)
    signer = repo.parent / "signer.sh"
    signer.write_text(f"#!/bin/sh\necho signer >> {marker}\nexit 1\n", encoding="utf-8")
    signer.chmod(0o755)
    git(repo, "config", "core.hooksPath", str(hooks))
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "gpg.program", str(signer))
    done = ljtui(repo, home, "layer", "apply", "--yes", "--commit", "Tidy up")
    assert done.returncode == 0, done.stderr
    assert "committed 3 file(s) as " in done.stdout and "without the repository's hooks" in done.stdout
    assert not marker.exists()  # no hook, no signing program ran
    assert git(repo, "log", "-1", "--format=%s") == "Tidy up\n"
