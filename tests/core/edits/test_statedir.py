"""``.agent`` is reached only through real folders: never created, written, locked or read through a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.recovery import recover_journal, undo_last
from ljtui.core.edits.transaction import apply_changes
from ljtui.core.edits.validate import FileChange
from ljtui.core.statedir import StateDirUnsafe, open_state_file, state_dir
from tests.core.edits.helpers import interrupted_transaction
from tests.core.edits.journal_helpers import tree


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "keep.txt").write_bytes(b"keep\n")
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_bytes(b"a\n")
    return repo


def change(repo: Path) -> list[FileChange]:
    return [FileChange("a.py", repo / "a.py", b"a\n", b"b\n")]


def unsafe(path: str, problem: str) -> str:
    return (f"{path} {problem}; ljtui keeps its state only in real folders and files inside the repository and "
            f"writes nothing through it: remove or rename {path}, then run ljtui again")


def test_state_dir_creates_real_folders(repo):
    path = state_dir(repo, "journal", "x", create=True)
    assert path == repo / ".agent" / "journal" / "x" and path.is_dir() and not path.is_symlink()


def test_state_dir_without_create_creates_nothing(repo):
    assert state_dir(repo, "sessions", create=False) == repo / ".agent" / "sessions"
    assert not (repo / ".agent").exists()


@pytest.mark.parametrize("link", [".agent", ".agent/journal", ".agent/journal/x"])
def test_a_symlink_anywhere_on_the_way_is_refused(repo, outside, link):
    (repo / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, repo / link)
    for create in (True, False):
        with pytest.raises(StateDirUnsafe) as caught:
            state_dir(repo, "journal", "x", "y", create=create)
        assert caught.value.message == unsafe(link, "is a symbolic link")
    assert tree(outside) == {"keep.txt": b"keep\n"}


def test_a_regular_file_in_place_of_a_folder_is_refused(repo):
    (repo / ".agent").mkdir()
    (repo / ".agent" / "sessions").write_bytes(b"")
    with pytest.raises(StateDirUnsafe) as caught:
        state_dir(repo, "sessions", create=True)
    assert caught.value.message == unsafe(".agent/sessions", "is not a folder")


def test_open_state_file_refuses_a_symlinked_file(repo, outside):
    (repo / ".agent").mkdir()
    os.symlink(outside / "new.txt", repo / ".agent" / "events.jsonl")
    with pytest.raises(StateDirUnsafe) as caught:
        open_state_file(repo, "events.jsonl", flags=os.O_WRONLY | os.O_CREAT)
    assert caught.value.message == unsafe(".agent/events.jsonl", "is a symbolic link")
    assert not (outside / "new.txt").exists()


def test_open_state_file_refuses_a_fifo_without_blocking(repo):
    (repo / ".agent").mkdir()
    os.mkfifo(repo / ".agent" / "memory.md")
    with pytest.raises(StateDirUnsafe) as caught:
        open_state_file(repo, "memory.md", flags=os.O_RDONLY)
    assert caught.value.message == unsafe(".agent/memory.md", "is not a regular file")


@pytest.mark.parametrize("link", [".agent", ".agent/journal"])
def test_apply_through_a_symlinked_state_folder_is_refused(repo, outside, link):
    (repo / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, repo / link)
    outcome = apply_changes(repo, change(repo))
    assert isinstance(outcome.error, E.StateDirRefused)
    assert outcome.error.message == unsafe(link, "is a symbolic link")
    assert (repo / "a.py").read_bytes() == b"a\n"
    assert tree(outside) == {"keep.txt": b"keep\n"}


def test_a_symlinked_gitignore_is_never_followed(repo, outside):
    (repo / ".agent").mkdir()
    os.symlink(outside / "keep.txt", repo / ".agent" / ".gitignore")
    outcome = apply_changes(repo, change(repo))
    assert isinstance(outcome.error, E.StateDirRefused)
    assert outcome.error.message == unsafe(".agent/.gitignore", "is a symbolic link")
    assert tree(outside) == {"keep.txt": b"keep\n"}
    assert (repo / "a.py").read_bytes() == b"a\n"


def test_a_symlinked_lock_file_is_never_created_or_followed(repo, outside):
    (repo / ".agent" / "journal").mkdir(parents=True)
    os.symlink(outside / "lock", repo / ".agent" / "journal" / ".lock")
    outcome = apply_changes(repo, change(repo))
    assert isinstance(outcome.error, E.StateDirRefused)
    assert outcome.error.message == unsafe(".agent/journal/.lock", "is a symbolic link")
    assert tree(outside) == {"keep.txt": b"keep\n"}


def test_recovery_reads_no_manifest_through_a_symlinked_journal(repo, outside, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.py").write_bytes(b"a\n")
    interrupted_transaction(elsewhere, [FileChange("a.py", elsewhere / "a.py", b"a\n", b"half\n")])
    os.rename(elsewhere / ".agent" / "journal", outside / "journal")
    (repo / ".agent").mkdir()
    os.symlink(outside / "journal", repo / ".agent" / "journal")
    (repo / "a.py").write_bytes(b"half\n")
    before = tree(outside)
    report = recover_journal(repo)
    assert report.errors == [unsafe(".agent/journal", "is a symbolic link")] and report.transactions == []
    assert tree(outside) == before
    assert (repo / "a.py").read_bytes() == b"half\n"


def test_undo_through_a_symlinked_state_folder_is_refused(repo, outside):
    os.symlink(outside, repo / ".agent")
    outcome = undo_last(repo)
    assert isinstance(outcome.error, E.StateDirRefused)
    assert outcome.error.message == unsafe(".agent", "is a symbolic link")
    assert tree(outside) == {"keep.txt": b"keep\n"}


def test_kept_is_empty_for_an_unsafe_journal(repo, outside):
    os.symlink(outside, repo / ".agent")
    assert J.kept(repo) == []
