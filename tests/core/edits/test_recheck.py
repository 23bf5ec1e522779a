"""Every path is checked again at the moment it is written: a folder swapped for a symlink is refused."""

from __future__ import annotations

import os
from pathlib import Path

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.apply import commit_plan, preview_plan
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.recovery import recover_journal, undo_last
from ljtui.core.edits.transaction import apply_changes
from ljtui.core.edits.validate import FileChange
from ljtui.core.ports import FixedClock
from tests.core.edits.helpers import apply_text, block, id_factory, interrupted_transaction, plan_text
from tests.core.edits.journal_helpers import tree


def setup(tmp_path: Path) -> tuple[Path, Path]:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "pkg").mkdir(parents=True)
    outside.mkdir()
    (repo / "pkg" / "a.py").write_bytes(b"a\n")
    return repo, outside


def swap_for_link(folder: Path, destination: Path) -> None:
    """Move ``folder`` to ``destination`` and leave a symlink to it in its place."""
    os.rename(folder, destination)
    os.symlink(destination, folder)


def test_undo_refuses_a_folder_replaced_by_a_symlink_leading_outside(tmp_path):
    repo, outside = setup(tmp_path)
    assert apply_text(plan_text(block(1, "pkg/a.py", "a\n", "A\n")), repo).result.status == "done"
    swap_for_link(repo / "pkg", outside / "pkg")
    before = tree(outside)
    outcome = undo_last(repo, clock=FixedClock(), new_id=id_factory())
    assert isinstance(outcome.error, E.UndoRefused)
    assert outcome.error.message == (f"refusing to undo: pkg/a.py resolves to {outside / 'pkg' / 'a.py'}, outside "
                                     "the repo root (through a symlink); nothing was written")
    assert tree(outside) == before and (outside / "pkg" / "a.py").read_bytes() == b"A\n"
    assert len(J.kept(repo)) == 1


def test_undo_refuses_a_folder_replaced_by_a_symlink_inside_the_repo(tmp_path):
    repo, _ = setup(tmp_path)
    assert apply_text(plan_text(block(1, "pkg/a.py", "a\n", "A\n")), repo).result.status == "done"
    swap_for_link(repo / "pkg", repo / "other")
    outcome = undo_last(repo, clock=FixedClock(), new_id=id_factory())
    assert isinstance(outcome.error, E.UndoRefused)
    assert outcome.error.message == ("refusing to undo: pkg/a.py now resolves to other/a.py through a symlink; "
                                     "refusing to write through it; nothing was written")
    assert (repo / "other" / "a.py").read_bytes() == b"A\n"


def test_recovery_refuses_a_folder_replaced_by_a_symlink_since_the_crash(tmp_path):
    repo, outside = setup(tmp_path)
    interrupted_transaction(repo, [FileChange("pkg/a.py", repo / "pkg" / "a.py", b"a\n", b"A\n"),
                                   FileChange("pkg/new/n.py", repo / "pkg" / "new" / "n.py", None, b"n\n")])
    swap_for_link(repo / "pkg", outside / "pkg")
    before = tree(outside)
    report = recover_journal(repo)
    assert report.transactions == []
    (moved,) = report.quarantined
    assert moved.reason == (f"pkg/new/n.py resolves to {outside / 'pkg' / 'new' / 'n.py'}, outside the repo root "
                            "(through a symlink)")
    assert report.summary() == [f"ljtui: recovery failed: {moved.line()}"]
    assert tree(outside) == before


def test_apply_refuses_a_folder_replaced_by_a_symlink_after_validation(tmp_path):
    repo, outside = setup(tmp_path)
    preview = preview_plan(parse_plan(plan_text(block(1, "pkg/a.py", "a\n", "A\n"))), repo)
    assert preview.ok
    (outside / "pkg").mkdir()
    (outside / "pkg" / "a.py").write_bytes(b"a\n")
    os.rename(repo / "pkg", tmp_path / "moved")
    os.symlink(outside / "pkg", repo / "pkg")
    report = commit_plan(preview, repo, clock=FixedClock(), new_id=id_factory(), run_checks=False)
    (err,) = report.errors
    assert isinstance(err, E.PathEscape)
    assert err.message == (f"pkg/a.py resolves to {outside / 'pkg' / 'a.py'}, outside the repo root "
                           "(through a symlink)")
    assert (outside / "pkg" / "a.py").read_bytes() == b"a\n"
    assert report.result.status == "error" and J.pending(repo) == []


class SwapWhenAsked(FixedClock):
    """A clock that swaps a folder for a symlink when the transaction stamps its manifest (after the snapshot)."""

    def __init__(self, folder: Path, destination: Path) -> None:
        super().__init__()
        self.folder, self.destination = folder, destination

    def now(self) -> float:
        swap_for_link(self.folder, self.destination)
        return super().now()


def test_a_folder_swapped_for_a_symlink_between_snapshot_and_write_is_not_written_through(tmp_path):
    repo, outside = setup(tmp_path)
    change = FileChange("pkg/a.py", repo / "pkg" / "a.py", b"a\n", b"A\n")
    outcome = apply_changes(repo, [change], clock=SwapWhenAsked(repo / "pkg", outside / "pkg"), new_id=id_factory())
    assert isinstance(outcome.error, E.PathEscape)
    assert outcome.error.message == (f"pkg/a.py: its folder now resolves to {outside / 'pkg'} through a symlink; "
                                     "refusing to write through it; every file was rolled back")
    assert tree(outside) == {"pkg": None, "pkg/a.py": b"a\n"}
    assert J.pending(repo) == []
