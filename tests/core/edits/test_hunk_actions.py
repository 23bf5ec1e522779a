"""Blocks read from diffs: hunks placed by their text alone, deletions, renames and mode changes.

Each is validated, written by the patcher's transaction and undone, against real files.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits.hunk_anchor import place_hunk
from ljtui.core.edits.plan import CREATE, DELETE, EDIT, EXECUTABLE, MODE, MOVE, REGULAR, EditBlock, EditPlan, \
    HunkAnchor
from ljtui.core.edits.transaction import apply_changes, with_executable
from ljtui.core.edits.undo import undo_last
from ljtui.core.edits.validate import validate_plan


def block(n: int, file: str, old: str = "", new: str = "", **kw) -> EditBlock:
    return EditBlock(n, file, None, kw.pop("entry", file), old, new, **kw)


def repo(tmp_path: Path, files: dict[str, bytes]) -> Path:
    (tmp_path / ".git").mkdir()
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    return tmp_path


def applied(root: Path, *blocks: EditBlock) -> list[str]:
    report = validate_plan(EditPlan(tuple(blocks)), root)
    assert report.ok, report.errors
    outcome = apply_changes(root, list(report.changes.values()))
    assert outcome.ok, outcome.error
    return outcome.files


# --- placing a hunk ---------------------------------------------------------------

@pytest.mark.parametrize(("data", "old", "anchor", "count"), [
    (b"a\nb\nc\n", "b\n", HunkAnchor(), 1),
    (b"a\nb\nb\n", "b\n", HunkAnchor(), 2),
    (b"ab\nb\n", "b\n", HunkAnchor(), 1),                      # only at the start of a line
    (b"a\nb\nc\n", "a\n", HunkAnchor(at_start=True), 1),
    (b"b\na\nb\n", "b\n", HunkAnchor(at_start=True), 1),       # the first one, by the anchor, not by counting
    (b"x\na\nb\n", "a\n", HunkAnchor(at_start=True), 0),
    (b"a\nb", "b", HunkAnchor(at_end=True), 1),                # no line break at the end of the file
    (b"a\nbb", "b", HunkAnchor(at_end=True), 0),               # not inside the last line
    (b"a\nb\nc", "b", HunkAnchor(at_end=True), 0),
    (b"x\nf\nb\nf\nb\n", "b\n", HunkAnchor(after="f"), 2),
    (b"x\nf\nb\n  g  \nb\n", "b\n", HunkAnchor(after="g"), 1),  # after the line, whitespace aside
    (b"x\nb\n", "b\n", HunkAnchor(after="g"), 0),
    (b"", "", HunkAnchor(at_start=True, at_end=True), 1),
    (b"x\n", "", HunkAnchor(at_start=True, at_end=True), 0),
    (b"x\n", "", HunkAnchor(at_end=True), 1),                  # an append at the end
    (b"a\r\nb\r\n", "b\n", HunkAnchor(), 0),                    # byte-exact: no line-break conversion
])
def test_a_hunk_is_placed_where_its_anchor_allows_and_only_there(data, old, anchor, count) -> None:
    outcome = place_hunk(data, old, "NEW\n", anchor)
    assert outcome.count == count
    assert (outcome.result is not None) == (count == 1)


def test_an_ambiguous_hunk_is_reported_with_every_place_and_never_placed_by_its_line(tmp_path: Path) -> None:
    root = repo(tmp_path, {"f.txt": b"x\nsame\ny\nsame\n"})
    report = validate_plan(EditPlan((block(1, "f.txt", "same\n", "other\n", anchor=HunkAnchor(line=4)),)), root)
    [error] = report.errors
    assert isinstance(error, E.AnchorAmbiguous)
    assert error.lines == (2, 4)
    assert "occur 2 times in f.txt, at lines 2, 4 (it was made at line 4)" in error.message
    assert [c.line for c in error.candidates] == [2, 4]
    assert not report.changes


def test_a_hunk_whose_text_is_elsewhere_than_its_anchor_says_so(tmp_path: Path) -> None:
    root = repo(tmp_path, {"f.txt": b"x\nfirst\n"})
    report = validate_plan(EditPlan((block(1, "f.txt", "first\n", "1st\n", anchor=HunkAnchor(at_start=True,
                                                                                                 line=1)),)), root)
    [error] = report.errors
    assert isinstance(error, E.AnchorNotFound)
    assert error.message == ("the hunk's old lines occur in f.txt at line(s) 2, but it must match at the start of "
                             "the file (it was made at line 1)")


def test_a_hunk_that_no_longer_matches_names_the_nearest_candidate(tmp_path: Path) -> None:
    root = repo(tmp_path, {"f.txt": b"def main():\n    run(1)\n    stop()\n"})
    report = validate_plan(EditPlan((block(1, "f.txt", "def main():\n    run(2)\n", "x\n", anchor=HunkAnchor()),)),
                           root)
    [error] = report.errors
    assert isinstance(error, E.AnchorNotFound)
    assert error.message.startswith("the hunk's old lines do not occur in f.txt: the file changed since")
    assert error.candidates and error.candidates[0].line == 1


def test_hunks_on_one_file_chain_in_order(tmp_path: Path) -> None:
    root = repo(tmp_path, {"f.txt": b"a\nb\nc\n"})
    applied(root, block(1, "f.txt", "a\nb\n", "a\nB\n", anchor=HunkAnchor(at_start=True)),
            block(2, "f.txt", "B\nc\n", "B\nc\nd\n", anchor=HunkAnchor(at_end=True)))
    assert (root / "f.txt").read_bytes() == b"a\nB\nc\nd\n"


# --- deletions ---------------------------------------------------------------------

def test_a_deletion_removes_the_file_when_it_holds_what_the_diff_removes_and_undo_restores_it(tmp_path) -> None:
    root = repo(tmp_path, {"gone.txt": b"one\ntwo\n"})
    whole = HunkAnchor(at_start=True, at_end=True)
    assert applied(root, block(1, "gone.txt", "one\ntwo\n", action=DELETE, anchor=whole)) == ["gone.txt"]
    assert not (root / "gone.txt").exists()
    assert undo_last(root).ok
    assert (root / "gone.txt").read_bytes() == b"one\ntwo\n"


def test_a_deletion_of_a_file_that_changed_is_refused(tmp_path: Path) -> None:
    root = repo(tmp_path, {"gone.txt": b"one\ntwo\nthree\n"})
    whole = HunkAnchor(at_start=True, at_end=True)
    report = validate_plan(EditPlan((block(1, "gone.txt", "one\ntwo\n", action=DELETE, anchor=whole),)), root)
    [error] = report.errors
    assert isinstance(error, E.AnchorNotFound)
    assert "holds other text than the deletion removes" in error.message
    assert (root / "gone.txt").exists()


def test_a_deletion_without_content_removes_whatever_the_file_holds_and_of_a_missing_file_fails(tmp_path) -> None:
    root = repo(tmp_path, {"gone.txt": b"anything\n"})
    applied(root, block(1, "gone.txt", action=DELETE))
    assert not (root / "gone.txt").exists()
    [error] = validate_plan(EditPlan((block(1, "gone.txt", action=DELETE),)), root).errors
    assert isinstance(error, E.FileMissing) and error.message == "gone.txt does not exist"


# --- renames ------------------------------------------------------------------------

def test_a_rename_with_a_hunk_moves_the_bytes_keeps_the_executable_bit_and_undoes(tmp_path: Path) -> None:
    root = repo(tmp_path, {"old/run.sh": b"echo one\necho two\n"})
    os.chmod(root / "old/run.sh", 0o755)
    files = applied(root, block(1, "new/run.sh", action=MOVE, moved_from="old/run.sh"),
                    block(2, "new/run.sh", "echo two\n", "echo 2\n", anchor=HunkAnchor(at_end=True)))
    assert sorted(files) == ["new/run.sh", "old/run.sh"]
    assert not (root / "old/run.sh").exists()
    assert (root / "new/run.sh").read_bytes() == b"echo one\necho 2\n"
    assert os.stat(root / "new/run.sh").st_mode & 0o111
    assert undo_last(root).ok
    assert (root / "old/run.sh").read_bytes() == b"echo one\necho two\n"
    assert not (root / "new").exists()


@pytest.mark.parametrize(("files", "message"), [
    ({"a.txt": b"a\n", "b.txt": b"b\n"}, "cannot rename a.txt to b.txt: b.txt already exists"),
    ({}, "cannot rename a.txt: it does not exist"),
])
def test_a_rename_onto_a_file_or_of_a_missing_one_is_refused(tmp_path, files, message) -> None:
    root = repo(tmp_path, files)
    [error] = validate_plan(EditPlan((block(1, "b.txt", action=MOVE, moved_from="a.txt"),)), root).errors
    assert error.message == message


def test_a_rename_out_of_the_repository_is_refused_by_the_path_rules(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    root = repo(tmp_path / "r", {"a.txt": b"a\n"})
    [error] = validate_plan(EditPlan((block(1, "b.txt", action=MOVE, moved_from="../outside.txt"),)), root).errors
    assert isinstance(error, E.PathEscape)


# --- modes --------------------------------------------------------------------------

def test_a_mode_change_sets_and_clears_the_executable_bit_and_undo_restores_it(tmp_path: Path) -> None:
    root = repo(tmp_path, {"tool": b"#!/bin/sh\n"})
    os.chmod(root / "tool", 0o644)
    assert applied(root, block(1, "tool", action=MODE, mode=EXECUTABLE)) == ["tool"]
    assert os.stat(root / "tool").st_mode & 0o777 == 0o755
    assert (root / "tool").read_bytes() == b"#!/bin/sh\n"
    assert undo_last(root).ok
    assert os.stat(root / "tool").st_mode & 0o777 == 0o644
    applied(root, block(1, "tool", action=MODE, mode=EXECUTABLE))
    applied(root, block(1, "tool", action=MODE, mode=REGULAR))
    assert os.stat(root / "tool").st_mode & 0o777 == 0o644


def test_a_mode_the_file_has_already_changes_nothing(tmp_path: Path) -> None:
    root = repo(tmp_path, {"tool": b"x\n"})
    os.chmod(root / "tool", 0o755)
    assert not validate_plan(EditPlan((block(1, "tool", action=MODE, mode=EXECUTABLE),)), root).changes


def test_a_created_executable_file_is_executable(tmp_path: Path) -> None:
    root = repo(tmp_path, {})
    applied(root, block(1, "bin/run", "", "#!/bin/sh\n", action=CREATE, mode=EXECUTABLE))
    assert os.stat(root / "bin/run").st_mode & 0o111


def test_an_unknown_action_is_an_error_not_a_write(tmp_path: Path) -> None:
    root = repo(tmp_path, {"f": b"x\n"})
    [error] = validate_plan(EditPlan((block(1, "f", action="chown"),)), root).errors
    assert isinstance(error, E.MalformedPatch)


def test_executable_bits_follow_the_read_bits() -> None:
    assert with_executable(0o640, EXECUTABLE) == 0o750
    assert with_executable(0o755, REGULAR) == 0o644
    assert EDIT == "edit"
