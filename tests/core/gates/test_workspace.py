"""The staging tree: exactly the working tree's files, isolated from the user's, hashed, compared, removed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from ljtui.core.gates import workspace as ws
from ljtui.core.gates.delivery import delivery_plan
from ljtui.core.gates.workspace import StagedChange, Workspace, WorkspaceError, command_env
from tests.conftest import git

RUN = "run-1"


def files_in(tree: Path) -> set[str]:
    """Every file and link under ``tree``, relative."""
    found = set()
    for folder, dirs, names in os.walk(tree):
        for name in names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            found.add(os.path.relpath(os.path.join(folder, name), tree).replace(os.sep, "/"))
    return found


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """A repository with a modified, a deleted, an untracked, an ignored and a force-added ignored file."""
    (git_repo / ".gitignore").write_text("*.log\nbuild/\n", encoding="utf-8")
    (git_repo / "gone.txt").write_text("bye\n", encoding="utf-8")
    (git_repo / "src").mkdir()
    (git_repo / "src" / "mod.py").write_text("X = 1\n", encoding="utf-8")
    (git_repo / "kept.log").write_text("forced\n", encoding="utf-8")
    git(git_repo, "add", ".")
    git(git_repo, "add", "-f", "kept.log")
    git(git_repo, "commit", "-q", "-m", "more")
    (git_repo / "app.py").write_text("def greet(name):\n    return 'hi ' + name\n", encoding="utf-8")
    (git_repo / "gone.txt").unlink()
    (git_repo / "new.txt").write_text("untracked\n", encoding="utf-8")
    (git_repo / "debug.log").write_text("ignored\n", encoding="utf-8")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.bin").write_bytes(b"\0ignored")
    return git_repo


def test_the_tree_holds_the_working_tree_as_it_is_on_disk(repo: Path) -> None:
    (repo / ".agent" / "gates").mkdir(parents=True)
    (repo / ".agent" / "gates" / "g.md").write_text("state\n", encoding="utf-8")
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    space = Workspace.create(repo, RUN)
    assert space.tree == repo / ".agent" / "workspace" / RUN / "tree"
    assert files_in(space.tree) == {".gitignore", "README.md", "app.py", "kept.log", "new.txt", "src/mod.py"}
    assert (space.tree / "app.py").read_text(encoding="utf-8") == (repo / "app.py").read_text(encoding="utf-8")
    assert space.mode == "git" and space.skipped == ()
    assert space.changes() == []
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == status


def test_files_are_copies_and_a_command_writing_in_place_leaves_the_users_file(repo: Path) -> None:
    space = Workspace.create(repo, RUN)
    staged, original = space.tree / "app.py", repo / "app.py"
    assert os.stat(staged).st_ino != os.stat(original).st_ino and os.stat(original).st_nlink == 1
    subprocess.run(["/bin/bash", "-c", "echo appended >> app.py; rm new.txt"], cwd=space.tree, check=True,
                   env=command_env(space.tree))
    assert original.read_text(encoding="utf-8").endswith("'hi ' + name\n")
    assert (repo / "new.txt").exists()


def test_git_in_a_plain_copy_never_reaches_the_users_repository(repo: Path) -> None:
    space = Workspace.create(repo, RUN)
    env = command_env(space.tree, {**os.environ, "GIT_DIR": str(repo / ".git")})
    for args in (["rev-parse", "--show-toplevel"], ["status"]):
        done = subprocess.run(["git", *args], cwd=space.tree, env=env, capture_output=True, text=True)
        assert done.returncode != 0 and str(repo) not in done.stdout
        assert "not a git repository" in done.stderr
    assert env["GIT_CEILING_DIRECTORIES"] == str(space.tree.parent) and "GIT_DIR" not in env


def test_command_env_holds_no_api_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    assert "ANTHROPIC_API_KEY" not in command_env(tmp_path)


def test_the_content_hash_follows_bytes_and_the_executable_bit(repo: Path) -> None:
    space = Workspace.create(repo, RUN)
    first = space.content_hash()
    assert first == Workspace.open(repo, RUN).content_hash()
    (space.tree / "src" / "mod.py").write_text("X = 2\n", encoding="utf-8")
    edited = space.content_hash()
    assert edited != first
    os.chmod(space.tree / "src" / "mod.py", 0o755)
    assert space.content_hash() != edited
    os.chmod(space.tree / "src" / "mod.py", 0o644)
    assert space.content_hash() == edited


def test_ignored_output_of_a_check_neither_changes_the_hash_nor_is_delivered(repo: Path) -> None:
    space = Workspace.create(repo, RUN)
    before = space.content_hash()
    (space.tree / "build").mkdir()
    (space.tree / "build" / "cache").write_text("made by a check\n", encoding="utf-8")
    (space.tree / "trace.log").write_text("log\n", encoding="utf-8")
    assert space.content_hash() == before
    assert space.changes() == []


def test_changes_are_what_staging_changed_against_the_current_tree(repo: Path) -> None:
    space = Workspace.create(repo, RUN)
    (space.tree / "app.py").write_text("changed\n", encoding="utf-8")
    (space.tree / "src" / "added.py").write_text("Y = 1\n", encoding="utf-8")
    (space.tree / "README.md").unlink()
    (repo / "src" / "mod.py").write_text("X = 'user edit after staging'\n", encoding="utf-8")
    (repo / "later.txt").write_text("user's new file\n", encoding="utf-8")
    changes = space.changes()
    assert [c.path for c in changes] == ["README.md", "app.py", "src/added.py"]
    readme, app, added = changes
    assert readme == StagedChange("README.md", b"# sample\n", None)
    assert (app.before, app.after, app.note) == ((repo / "app.py").read_bytes(), b"changed\n", "")
    assert added == StagedChange("src/added.py", None, b"Y = 1\n")


def test_a_change_on_both_sides_is_held_back_and_an_executable_bit_is_noted(repo: Path) -> None:
    space = Workspace.create(repo, RUN)
    (space.tree / "app.py").write_text("staged\n", encoding="utf-8")
    (repo / "app.py").write_text("user\n", encoding="utf-8")
    os.chmod(space.tree / "src" / "mod.py", 0o755)
    app, mod = space.changes()
    assert (app.before, app.after) == (b"user\n", b"staged\n") and "also changed in your tree" in app.reason
    assert "never overwritten" in app.reason and delivery_plan([app]).files == ()
    assert mod.path == "src/mod.py" and mod.before == mod.after and "executable bit" in mod.reason


def test_links_inside_are_copied_as_links_and_others_are_skipped_with_a_reason(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("private\n", encoding="utf-8")
    os.symlink("src/mod.py", repo / "inside-link")
    os.symlink(str(outside), repo / "absolute-link")
    os.symlink("../outside.txt", repo / "escaping-link")
    os.symlink(".git/config", repo / "git-link")
    space = Workspace.create(repo, RUN)
    assert os.readlink(space.tree / "inside-link") == "src/mod.py"
    reasons = dict(space.skipped)
    assert set(reasons) == {"absolute-link", "escaping-link", "git-link"}
    assert "absolute path" in reasons["absolute-link"] and "outside the tree" in reasons["escaping-link"]
    assert ".git" in reasons["git-link"]
    assert not any(os.path.lexists(space.tree / name) for name in reasons)
    assert space.changes() == []


def test_a_tree_over_the_cap_is_refused_and_leaves_nothing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ws, "MAX_TREE_FILES", 3)
    with pytest.raises(WorkspaceError, match="at most 3 files"):
        Workspace.create(repo, RUN)
    assert Workspace.list(repo) == []


def test_a_folder_outside_git_is_walked_without_vcs_state_or_skipped_folders(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    for rel in ("a.py", "pkg/b.py", "node_modules/x.js", ".agent/gates/g.md", "__pycache__/a.pyc"):
        (plain / rel).parent.mkdir(parents=True, exist_ok=True)
        (plain / rel).write_text(rel, encoding="utf-8")
    space = Workspace.create(plain, RUN)
    assert space.mode == "walk"
    assert files_in(space.tree) == {"a.py", "pkg/b.py"}
    (space.tree / "pkg" / "b.py").write_text("new\n", encoding="utf-8")
    assert [c.path for c in space.changes()] == ["pkg/b.py"]


@pytest.mark.parametrize("bad", ["../x", "..", ".", "", "a/b", "x" * 65, "-lead", "a\x00b", 7])
def test_run_ids_are_validated_like_untrusted_values(repo: Path, bad: object) -> None:
    with pytest.raises(WorkspaceError, match="not a run id"):
        Workspace.open(repo, bad)
    with pytest.raises(WorkspaceError, match="not a run id"):
        Workspace.create(repo, bad)  # type: ignore[arg-type]
    assert not (repo.parent / "x").exists()


def test_open_list_and_discard(repo: Path) -> None:
    with pytest.raises(WorkspaceError, match="no staging workspace"):
        Workspace.open(repo, RUN)
    space = Workspace.create(repo, RUN)
    Workspace.create(repo, "run-2")
    with pytest.raises(WorkspaceError, match="already exists"):
        Workspace.create(repo, RUN)
    assert Workspace.list(repo) == [RUN, "run-2"]
    (space.tree / "locked").mkdir()
    (space.tree / "locked" / "f").write_text("x", encoding="utf-8")
    os.chmod(space.tree / "locked", 0o500)
    Workspace.open(repo, RUN).discard()
    assert Workspace.list(repo) == ["run-2"] and not space.folder.exists()
    assert (repo / "app.py").exists()
    assert git(repo, "worktree", "list").count("\n") == 1
    assert "workspace" not in git(repo, "status", "--porcelain")


def test_a_hostile_manifest_never_leads_outside_the_tree(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("private\n", encoding="utf-8")
    space = Workspace.create(repo, RUN)
    escape = os.path.relpath(secret, space.tree)
    (space.folder / "manifest.json").write_text(json.dumps({
        "version": 1, "mode": "git", "files": {escape: [[1, 2, 3], [1, 2, 3]], "/etc/passwd": [None, None],
                                               "app.py": "not a record"},
        "skipped": [["x", 1], "junk"]}), encoding="utf-8")
    reopened = Workspace.open(repo, RUN)
    assert reopened.skipped == ()
    assert all(b"private" not in (c.after or b"") for c in reopened.changes())
    assert {e.path for e in reopened.entries()} <= files_in(space.tree)
