"""Validation against real files: anchors, paths, creation, chaining, line breaks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits.anchors import MAX_REPORTED_OCCURRENCES, replace_once
from ljtui.core.edits.paths import find_repo_root, resolve_target
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.validate import validate_plan
from tests.core.edits.helpers import block, plan_text


def validate(root: Path, *blocks: str, **options: object):
    return validate_plan(parse_plan(plan_text(*blocks)), root, **options)  # type: ignore[arg-type]


def only_error(report) -> E.EditError:
    assert len(report.errors) == 1, report.errors
    return report.errors[0]


def after(report, key: str) -> bytes | None:
    return report.changes[key].after


def test_single_block_replaces_exactly(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a = 1\nb = 2\n")
    report = validate(tmp_path, block(1, "a.py", "b = 2\n", "b = 3\n"))
    assert report.ok and after(report, "a.py") == b"a = 1\nb = 3\n"
    assert report.changes["a.py"].before == b"a = 1\nb = 2\n"


def test_anchor_not_found_names_file_and_nearest(tmp_path):
    (tmp_path / "a.py").write_bytes(b"def f():\n    return 1\n")
    err = only_error(validate(tmp_path, block(1, "a.py", "def f():\n    return 2\n", "x\n")))
    assert isinstance(err, E.AnchorNotFound)
    assert err.message == "`old` does not occur in a.py; nearest: a.py:1 (0.94)"
    assert (err.block, err.file) == (1, "a.py")
    assert err.candidates[0].line == 1


def test_anchor_ambiguous_lists_every_line(tmp_path):
    (tmp_path / "a.py").write_bytes(b"x = 1\ny = 2\nx = 1\nz\nx = 1\n")
    err = only_error(validate(tmp_path, block(1, "a.py", "x = 1\n", "x = 9\n")))
    assert isinstance(err, E.AnchorAmbiguous)
    assert err.lines == (1, 3, 5)
    assert err.message == "`old` occurs 3 times in a.py, at lines 1, 3, 5"
    assert [c.excerpt for c in err.candidates] == ["x = 1"] * 3
    assert err.to_dict()["lines"] == [1, 3, 5]


def test_create_requires_absent_file(tmp_path):
    (tmp_path / "a.py").write_bytes(b"")
    err = only_error(validate(tmp_path, block(1, "a.py", "", "x\n")))
    assert isinstance(err, E.FileExists)
    assert err.message == "a.py already exists; an empty `old` creates a new file"


def test_create_new_file_in_new_directory(tmp_path):
    report = validate(tmp_path, block(1, "pkg/sub/n.py", "", "x = '\u00e9'\n"))
    change = report.changes["pkg/sub/n.py"]
    assert (change.before, change.after) == (None, "x = '\u00e9'\n".encode())


def test_two_creates_of_one_file_collide(tmp_path):
    err = only_error(validate(tmp_path, block(1, "n.py", "", "a\n"), block(2, "n.py", "", "b\n")))
    assert isinstance(err, E.FileExists) and err.block == 2


def test_edit_of_missing_file(tmp_path):
    err = only_error(validate(tmp_path, block(1, "gone.py", "x\n", "y\n")))
    assert isinstance(err, E.FileMissing)
    assert err.message == "gone.py does not exist (use an empty `old` to create it)"


def test_sequential_blocks_chain_on_one_file(tmp_path):
    (tmp_path / "a.py").write_bytes(b"one\ntwo\n")
    report = validate(tmp_path, block(1, "a.py", "one\n", "uno\n"), block(2, "a.py", "uno\ntwo\n", "uno\ndos\n"),
                      block(3, "b.py", "", "new\n"), block(4, "b.py", "new\n", "newer\n"))
    assert report.ok
    assert after(report, "a.py") == b"uno\ndos\n" and after(report, "b.py") == b"newer\n"


def test_later_block_sees_earlier_result_so_old_text_is_gone(tmp_path):
    (tmp_path / "a.py").write_bytes(b"one\n")
    err = only_error(validate(tmp_path, block(1, "a.py", "one\n", "uno\n"), block(2, "a.py", "one\n", "eins\n")))
    assert isinstance(err, E.AnchorNotFound) and err.block == 2


def test_crlf_file_keeps_crlf_with_lf_plan(tmp_path):
    (tmp_path / "w.py").write_bytes(b"a = 1\r\nb = 2\r\n")
    report = validate(tmp_path, block(1, "w.py", "b = 2\n", "b = 3\nc = 4\n"))
    assert after(report, "w.py") == b"a = 1\r\nb = 3\r\nc = 4\r\n"


def test_lf_file_with_crlf_plan_keeps_lf():
    assert replace_once(b"a\nb\n", "a\r\n", "x\r\n").result == b"x\nb\n"


def test_mixed_line_breaks_match_verbatim():
    data = b"a\r\nb\nc\n"
    assert replace_once(data, "b\n", "B\n").result == b"a\r\nB\nc\n"
    assert replace_once(data, "a\n", "A\n").count == 0


def test_file_without_final_newline_stays_without(tmp_path):
    (tmp_path / "n.txt").write_bytes(b"first\nmiddle\nlast")
    report = validate(tmp_path, block(1, "n.txt", "middle\n", "MIDDLE\n"))
    assert after(report, "n.txt") == b"first\nMIDDLE\nlast"
    assert replace_once(b"first\nlast", "first\n", "1st\n").result == b"1st\nlast"


def test_trailing_whitespace_tabs_and_non_ascii_are_exact(tmp_path):
    original = "x = 1  \n\ty = '\u00fc\u4e16'\t\nz\n".encode()
    (tmp_path / "a.py").write_bytes(original)
    report = validate(tmp_path, block(1, "a.py", "\ty = '\u00fc\u4e16'\t\n", "\ty = '\u00fc'  \n"))
    assert after(report, "a.py") == "x = 1  \n\ty = '\u00fc'  \nz\n".encode()
    err = only_error(validate(tmp_path, block(1, "a.py", "x = 1\n", "x\n")))
    assert isinstance(err, E.AnchorNotFound)


def test_fence_inside_old_is_matched_literally(tmp_path):
    original = b"doc = '''\n```python\nprint(1)\n```\n'''\n"
    (tmp_path / "r.py").write_bytes(original)
    report = validate(tmp_path, block(1, "r.py", "```python\nprint(1)\n```\n", "```python\nprint(2)\n```\n"))
    assert after(report, "r.py") == original.replace(b"print(1)", b"print(2)")


def test_non_utf8_file_is_edited_bytewise(tmp_path):
    (tmp_path / "l.txt").write_bytes(b"caf\xe9\nx = 1\n")
    report = validate(tmp_path, block(1, "l.txt", "x = 1\n", "x = 2\n"))
    assert after(report, "l.txt") == b"caf\xe9\nx = 2\n"


@pytest.mark.parametrize(("path", "kind", "message"), [
    ("/etc/passwd", E.PathEscape, "/etc/passwd is absolute; plan paths are relative to the repo root"),
    ("../x.py", E.PathEscape, "../x.py uses `..`; plan paths stay inside the repo root"),
    ("a/../../x.py", E.PathEscape, "a/../../x.py uses `..`; plan paths stay inside the repo root"),
    (".git/config", E.PathProtected, ".git/config is inside a .git folder or file, which plans may not create or change"),
    (".agent/journal/x", E.PathProtected,
     ".agent/journal/x is inside .agent/, ljtui's own state folder, which plans may not create or change"),
])
def test_path_rules(tmp_path, path, kind, message):
    err = only_error(validate(tmp_path, block(1, path, "", "x\n")))
    assert type(err) is kind and err.message == message and err.file == path


def test_symlink_escaping_the_repo_is_refused(tmp_path):
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    (outside / "secret.py").write_bytes(b"x = 1\n")
    os.symlink(outside, repo / "link")
    err = only_error(validate(repo, block(1, "link/secret.py", "x = 1\n", "x = 2\n")))
    assert isinstance(err, E.PathEscape)
    assert err.message == f"link/secret.py resolves to {outside / 'secret.py'}, outside the repo root (through a symlink)"
    assert (outside / "secret.py").read_bytes() == b"x = 1\n"


def test_symlink_inside_the_repo_writes_its_target(tmp_path):
    (tmp_path / "real.py").write_bytes(b"x = 1\n")
    os.symlink("real.py", tmp_path / "alias.py")
    report = validate(tmp_path, block(1, "alias.py", "x = 1\n", "x = 2\n"))
    assert list(report.changes) == ["real.py"]


def test_directory_target_is_not_a_file(tmp_path):
    (tmp_path / "d").mkdir()
    err = only_error(validate(tmp_path, block(1, "d", "x\n", "y\n")))
    assert isinstance(err, E.NotAFile) and err.message == "d exists but is not a regular file"


def test_parent_that_is_a_file(tmp_path):
    (tmp_path / "f").write_bytes(b"")
    err = only_error(validate(tmp_path, block(1, "f/x.py", "", "y\n")))
    assert isinstance(err, E.NotAFile) and err.message == "f/x.py: a parent of this path is a file"


def test_empty_path_is_forbidden(tmp_path):
    err = resolve_target(tmp_path, "", 3)
    assert isinstance(err, E.PathForbidden) and err.message == "path '' is empty or holds a NUL byte"


def test_read_failure_is_named(tmp_path):
    (tmp_path / "a.py").write_bytes(b"x\n")

    def unreadable(path: Path) -> bytes | None:
        raise PermissionError(13, "Permission denied")

    err = only_error(validate(tmp_path, block(1, "a.py", "x\n", "y\n"), reader=unreadable))
    assert isinstance(err, E.ReadFailed) and err.message == "cannot read a.py: Permission denied"


def test_pure_reader_needs_no_file_contents_on_disk(tmp_path):
    (tmp_path / "a.py").write_bytes(b"on disk\n")
    report = validate(tmp_path, block(1, "a.py", "in memory\n", "changed\n"), reader=lambda p: b"in memory\n")
    assert after(report, "a.py") == b"changed\n"


def test_all_or_nothing_reports_no_changes_when_any_entry_fails(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\n")
    report = validate(tmp_path, block(1, "a.py", "a\n", "b\n", entry="good"), block(2, "a.py", "zzz\n", "y\n", entry="bad"))
    assert not report.ok and report.changes == {} and report.accepted == ()


def test_partial_keeps_good_entries(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\n")
    report = validate(tmp_path, block(1, "a.py", "a\n", "b\n", entry="good"),
                      block(2, "a.py", "zzz\n", "y\n", entry="bad"), partial=True)
    assert report.accepted == ("good",) and after(report, "a.py") == b"b\n"


def test_failed_entry_leaves_state_for_later_entries_untouched(tmp_path):
    (tmp_path / "a.py").write_bytes(b"a\nb\n")
    report = validate(tmp_path, block(1, "a.py", "a\n", "A\n", entry="bad"), block(2, "a.py", "nope\n", "x\n", entry="bad"),
                      block(3, "a.py", "a\nb\n", "ab\n", entry="good"), partial=True)
    assert report.accepted == ("good",) and after(report, "a.py") == b"ab\n"


def test_find_repo_root_walks_up_to_git(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert find_repo_root(tmp_path / "a" / "b") == tmp_path.resolve()


def test_symlink_loop_cannot_be_stat(tmp_path):
    os.symlink("b.py", tmp_path / "a.py")
    os.symlink("a.py", tmp_path / "b.py")
    err = only_error(validate(tmp_path, block(1, "a.py", "x\n", "y\n")))
    assert isinstance(err, E.NotAFile)
    assert err.message == "a.py: cannot stat (Too many levels of symbolic links)"


def test_very_ambiguous_anchor_counts_the_occurrences_it_does_not_list(tmp_path):
    (tmp_path / "x.txt").write_bytes(b"x\n" * (MAX_REPORTED_OCCURRENCES + 5))
    err = only_error(validate(tmp_path, block(1, "x.txt", "x\n", "y\n")))
    assert isinstance(err, E.AnchorAmbiguous) and len(err.lines) == MAX_REPORTED_OCCURRENCES
    assert err.message == (f"`old` occurs {MAX_REPORTED_OCCURRENCES + 5} times in x.txt, at lines 1, 2, 3, 4, 5, 6, "
                           f"7, 8, 9, 10 and {MAX_REPORTED_OCCURRENCES + 5 - 10} more")


def test_path_naming_the_root_is_not_a_file(tmp_path):
    err = resolve_target(tmp_path, "./", 2)
    assert isinstance(err, E.NotAFile) and err.message == "./ names the repo root, not a file"
