"""A surviving sandboxed process swaps a folder for a symlink leading outside the repository, in a tight loop, while
ljtui writes into that folder again and again: no byte ever lands outside (an inotify watch on the outside folder
sees nothing at all), every write is done whole or refused and rolled back, and a refused write says so."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.folders import RepoFolders, refused_because
from ljtui.core.edits.paths import resolve_target
from ljtui.core.edits.recovery import recover_journal
from ljtui.core.edits.transaction import apply_changes
from ljtui.core.edits.validate import FileChange
from ljtui.core.ports import FixedClock
from tests.core.edits.race_helpers import FolderSwapper, SwapOnWrite, Watch

LJTUI = str(Path(sys.executable).with_name("ljtui"))
RACE_S = 0.8
"""How long the in-process writer races the swapper, at least (longer, up to three times, until a write was refused
and one was done)."""
CLI_RUNS = 1
CLI_FILES = 48
FILES = 12
"""Files each write puts in the swapped folder (the more, the longer the window a path-based writer leaves)."""
REFUSALS = ("outside the repo root (through a symlink)", "nothing is written through it",
            "refusing to write through it", "the write is refused")
"""How a refused write says so: where the path leads now, or that its folder moved while it was written."""


def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with ``pkg/`` holding one file, and an empty folder outside it."""
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "keep.txt").write_bytes(b"keep\n")
    outside.mkdir()
    return repo, outside


def leftovers(repo: Path) -> list[str]:
    """Temp files a write left behind anywhere in the repository."""
    return sorted(p.name for p in repo.rglob(".ljtui-*"))


def test_writes_racing_a_folder_swapped_for_a_symlink_never_reach_outside_and_are_whole_or_refused(
        tmp_path: Path) -> None:
    repo, outside = layout(tmp_path)
    watch = Watch(outside)
    swapper = FolderSwapper(repo / "pkg", outside)
    outcomes = []
    try:
        start = time.monotonic()
        while time.monotonic() - start < RACE_S or (
                len({o.ok for o in outcomes}) < 2 and time.monotonic() - start < 3 * RACE_S):
            n = len(outcomes)
            changes = [FileChange(f"pkg/w{n}-{k}.txt", repo / "pkg" / f"w{n}-{k}.txt", None, f"{n}-{k}\n".encode())
                       for k in range(FILES)]
            changes.append(FileChange(f"pkg/d{n}/inner.txt", repo / "pkg" / f"d{n}" / "inner.txt", None, b"in\n"))
            outcomes.append(apply_changes(repo, changes, keep_snapshot=False))
    finally:
        swaps = swapper.finish()
    assert watch.events() == b"" and list(outside.iterdir()) == []
    assert swaps > 100 and len(outcomes) >= 5
    assert recover_journal(repo).transactions == [] and J.pending(repo) == []
    for n, outcome in enumerate(outcomes):
        present = [(repo / "pkg" / f"w{n}-{k}.txt").exists() for k in range(FILES)]
        present.append((repo / "pkg" / f"d{n}" / "inner.txt").exists())
        if outcome.ok:
            assert all(present) and (repo / "pkg" / f"w{n}-0.txt").read_bytes() == f"{n}-0\n".encode()
        else:
            assert not any(present) and not (repo / "pkg" / f"d{n}").exists()
            assert isinstance(outcome.error, E.PathEscape), outcome.error
            assert any(said in outcome.error.message for said in REFUSALS), outcome.error.message
    assert leftovers(repo) == [] and (repo / "pkg" / "keep.txt").read_bytes() == b"keep\n"


def test_ljtui_apply_racing_a_folder_swapped_for_a_symlink_writes_nothing_outside(git_repo: Path,
                                                                                 tmp_path: Path) -> None:
    repo, outside = git_repo, tmp_path / "outside"
    (repo / "pkg").mkdir()
    outside.mkdir()
    watch = Watch(outside)
    swapper = FolderSwapper(repo / "pkg", outside)
    results = []
    try:
        for run in range(CLI_RUNS):
            diff = "".join(f"--- /dev/null\n+++ b/pkg/r{run}-{k}.txt\n@@ -0,0 +1 @@\n+{run}-{k}\n"
                           for k in range(CLI_FILES))
            done = subprocess.run([LJTUI, "apply", "-", "--yes", "--json", "--partial", "--no-checks"], cwd=repo,
                                  input=diff.encode(), capture_output=True, timeout=60)
            assert done.returncode in (0, 1, 2) and done.stdout, done.stderr.decode()
            results.append(json.loads(done.stdout))
    finally:
        swapper.finish()
    assert watch.events() == b"" and list(outside.iterdir()) == []
    assert recover_journal(repo).transactions == []
    for run, result in enumerate(results):
        for k in range(CLI_FILES):
            name = f"pkg/r{run}-{k}.txt"
            if name in result["files"]:
                assert (repo / name).read_bytes() == f"{run}-{k}\n".encode()
            else:
                assert not (repo / name).exists()
                assert [f["reason"] for f in result["failed"] if f["entry_id"] == name], result
    assert leftovers(repo) == []


def test_a_folder_swapped_while_its_file_is_written_gets_its_bytes_back_and_the_write_is_refused(
        tmp_path: Path) -> None:
    """The swap lands after the folder was checked: the bytes still go into the folder checked (never through
    the link), the verify step sees the folder moved, and the rollback puts the old bytes back in that folder."""
    repo, outside = layout(tmp_path)
    (repo / "pkg" / "a.py").write_bytes(b"a\n")
    big = b"A\n" * 2_000_000  # the write takes a while: the swap lands during it
    watch = Watch(outside)
    swap = SwapOnWrite(repo / "pkg", outside)
    outcome = apply_changes(repo, [FileChange("pkg/a.py", repo / "pkg" / "a.py", b"a\n", big)])
    swap.finish()
    assert watch.events() == b"" and list(outside.iterdir()) == []
    assert isinstance(outcome.error, E.PathEscape) and outcome.files == []
    assert outcome.error.message == (f"pkg/a.py: while it was written, its folder now resolves to {outside} through "
                                     "a symlink; the write is refused; every file was rolled back")
    assert (repo / "pkg" / "a.py").read_bytes() == b"a\n"
    assert leftovers(repo) == [] and J.pending(repo) == []


def test_a_symlink_planted_where_a_folder_is_to_be_created_is_refused(tmp_path: Path) -> None:
    """Between the snapshot and the write, a link appears at the name of a folder the write creates."""
    repo, outside = layout(tmp_path)

    class PlantWhenAsked(FixedClock):
        def now(self) -> float:  # the transaction stamps its manifest after the snapshot, before writing
            os.symlink(outside, repo / "pkg" / "new")
            return super().now()

    change = FileChange("pkg/new/n.py", repo / "pkg" / "new" / "n.py", None, b"n\n")
    outcome = apply_changes(repo, [change], clock=PlantWhenAsked())
    assert isinstance(outcome.error, E.PathEscape)
    assert outcome.error.message == ("pkg/new/n.py: pkg/new is a symbolic link; nothing is written through it; "
                                     "every file was rolled back")
    assert list(outside.iterdir()) == [] and (repo / "pkg" / "new").is_symlink() and J.pending(repo) == []


def test_a_path_whose_folder_is_swapped_while_it_is_resolved_is_refused_by_name(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolving reads each link on the way; when the link was swapped back to a folder between its ``lstat`` and
    its ``readlink``, the kernel answers ``EINVAL`` (what the race above meets now and then): a refusal, not a crash.
    The kernel's answer is given here so the case is met every time."""
    repo, outside = layout(tmp_path)
    os.rename(repo / "pkg", repo / "pkg.real")
    os.symlink(outside, repo / "pkg")

    def swapped_back(path: object, *args: object, **kwargs: object) -> str:
        raise OSError(errno.EINVAL, "Invalid argument", str(path))

    monkeypatch.setattr(os, "readlink", swapped_back)
    found = resolve_target(repo, "pkg/keep.txt")
    assert isinstance(found, E.PathEscape)
    assert found.message == ("pkg/keep.txt: a folder on its way changed while it was resolved (Invalid argument); "
                             "refusing to write through it")


def test_folders_refuse_a_symlink_on_the_way_and_say_what_it_is(tmp_path: Path) -> None:
    repo, outside = layout(tmp_path)
    os.symlink(outside, repo / "link")
    (repo / "file").write_bytes(b"x")
    with RepoFolders(repo) as folders:
        for folder, problem in (("link", "is a symbolic link"), ("file/sub", "is not a folder")):
            try:
                folders.fd(folder)
            except OSError as exc:
                assert str(exc) == f"{folder.split('/')[0]} {problem}; nothing is written through it"
            else:
                raise AssertionError(f"{folder} was opened")
        assert [refused_because(os.lstat(repo / name).st_mode) for name in ("link", "file", "pkg")] == [
            "is a symbolic link", "is not a folder",
            "was swapped while it was opened (something else than a folder was in its place)"]
        assert folders.missing("pkg/a/b") == ["pkg/a", "pkg/a/b"]
        assert folders.make("pkg/a/b") == ["pkg/a", "pkg/a/b"] and folders.make("pkg/a/b") == []
    assert list(outside.iterdir()) == []


def test_a_folder_replaced_after_it_was_first_reached_is_refused_when_reached_again(tmp_path: Path) -> None:
    """Past the descriptors kept open, a folder is reached again by its path: it must be the same folder."""
    repo, _ = layout(tmp_path)
    (repo / "other").mkdir()
    with RepoFolders(repo, max_held=2) as folders:
        folders.fd("pkg")
        folders.fd("other")
        folders.fd(".")  # the root: held apart, never closed
        (repo / "third").mkdir()
        folders.fd("third")  # "pkg" is closed now
        os.rename(repo / "pkg", repo / "pkg.old")
        (repo / "pkg").mkdir()
        assert folders.moved("pkg")
        try:
            folders.fd("pkg")
        except OSError as exc:
            assert str(exc) == "pkg was moved or replaced since it was first reached; nothing is written through it"
        else:
            raise AssertionError("a replaced folder was reached as the first one")
        assert not folders.moved("other")
