"""Exact edits: what a file's bytes hold is what anchors match, messages say, and undo reverts."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits import journal as J
from ljtui.core.edits.anchors import replace_once
from ljtui.core.edits.diffs import unified_diff
from ljtui.core.edits.manifest import MANIFEST, read_manifest
from ljtui.core.edits.paths import check_spelling, resolve_target
from ljtui.core.edits.plan_format import DEFAULT_ENTRY_ID, EditBlock, EditPlan, parse_plan
from ljtui.core.edits.recovery import undo_last
from ljtui.core.edits.transaction import apply_changes
from ljtui.core.edits.validate import FileChange, validate_plan
from ljtui.core.ports import FixedClock
from tests.core.edits.helpers import block, plan_text

BOM = b"\xef\xbb\xbf"
REPETITIONS = 20


def validate(root: Path, *blocks: str):
    return validate_plan(parse_plan(plan_text(*blocks)), root)


def edit(file: str, old: str, new: str) -> EditPlan:
    """One edit as edit_file makes it (``old`` need not be whole lines)."""
    return EditPlan((EditBlock(number=1, file=file, where=None, entry=DEFAULT_ENTRY_ID, old=old, new=new),))


def only_error(report) -> E.EditError:
    [err] = report.errors
    return err


# --- a byte order mark ---------------------------------------------------------------------------------------

def test_the_first_line_of_a_file_with_a_bom_matches_as_a_whole_line_and_the_bom_is_kept() -> None:
    data = BOM + b"import os\nx = 1\n"
    done = replace_once(data, "import os\n", "import sys\n")
    assert done.result == BOM + b"import sys\nx = 1\n"
    assert replace_once(BOM + b"    x = 1\n", "    x = 1\n", "    y = 2\n").result == BOM + b"    y = 2\n"
    assert replace_once(BOM + b"last", "last\n", "first\n").result == BOM + b"first"  # the end-of-file rule too
    assert replace_once(data, "\ufeffimport os\n", "import os\n").result == b"import os\nx = 1\n"  # named: removed


def test_a_plan_on_a_bom_file_validates_and_a_miss_offers_a_candidate_without_the_bom(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(BOM + b"import os\nx = 1\n")
    report = validate(tmp_path, block(1, "a.py", "import os\n", "import sys\n"))
    assert report.ok and report.changes["a.py"].after == BOM + b"import sys\nx = 1\n"
    err = only_error(validate(tmp_path, block(1, "a.py", "import oss\n", "x\n")))
    assert isinstance(err, E.AnchorNotFound)
    assert err.candidates[0].line == 1 and err.candidates[0].excerpt == "import os"


def test_a_plan_text_that_starts_with_a_bom_parses() -> None:
    plan = parse_plan("\ufeff" + plan_text(block(1, "a.py", "x\n", "y\n")))
    assert [(b.file, b.old, b.new) for b in plan.blocks] == [("a.py", "x\n", "y\n")]


# --- one line numbering --------------------------------------------------------------------------------------

@pytest.mark.parametrize("separator", ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r"])
def test_a_diff_numbers_lines_by_line_feeds_only(separator: str) -> None:
    before = f"a\nb{separator}c\nd\ne\n".encode()
    after = f"a\nb{separator}c\nd\nE\n".encode()
    diff = unified_diff(FileChange("x.txt", Path("x.txt"), before, after))
    assert "@@ -1,4 +1,4 @@" in diff and "-e\n+E\n" in diff  # e is line 4: only line feeds count
    assert len(diff.split("\n")) == len(diff.splitlines()) + 1  # nothing in a drawn line breaks it


# --- bounded, deduplicated messages --------------------------------------------------------------------------

def test_an_anchor_occurring_40000_times_is_counted_and_only_its_first_lines_are_listed(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_bytes(b"z\n" * 40_000)
    err = only_error(validate(tmp_path, block(1, "many.txt", "z\n", "q\n")))
    assert isinstance(err, E.AnchorAmbiguous)
    assert err.message == "`old` occurs 40000 times in many.txt, at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 39990 more"


def test_two_occurrences_on_one_line_are_said_once_with_one_candidate(tmp_path: Path) -> None:
    (tmp_path / "dup.py").write_bytes(b"ab ab\nab\n")
    err = only_error(validate_plan(edit("dup.py", "ab", "c"), tmp_path))
    assert err.message == "`old` occurs 3 times in dup.py, at lines 1 (twice), 2"
    assert [c.line for c in err.candidates] == [1, 2]
    (tmp_path / "one.py").write_bytes(b"ab ab\n")
    err = only_error(validate_plan(edit("one.py", "ab", "c"), tmp_path))
    assert err.message == "`old` occurs 2 times in one.py, twice on line 1" and len(err.candidates) == 1


# --- near misses are named -----------------------------------------------------------------------------------

def test_an_old_differing_only_in_line_endings_in_a_mixed_file_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "mix.txt").write_bytes(b"a\r\nb\nc\r\n")
    err = only_error(validate(tmp_path, block(1, "mix.txt", "b\r\nc\r\n", "q\n")))
    assert isinstance(err, E.AnchorNotFound)
    assert err.message.startswith("`old` does not occur in mix.txt: it differs only in line endings (CRLF vs LF) "
                                  "at line 2, which ends with LF in the file and with CRLF in `old`")


def test_an_old_differing_only_in_trailing_whitespace_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "w.py").write_bytes(b"x = 1\ny = 2  \nz = 3\n")
    err = only_error(validate(tmp_path, block(1, "w.py", "x = 1\ny = 2\nz = 3\n", "q\n")))
    assert isinstance(err, E.AnchorNotFound)
    assert err.message.startswith("`old` does not occur in w.py: it differs only in trailing whitespace at line 2")


def test_an_old_with_leading_whitespace_found_only_mid_line_says_so(tmp_path: Path) -> None:
    (tmp_path / "mid.txt").write_bytes(b"first\nfoo    bar = 1\n")
    err = only_error(validate(tmp_path, block(1, "mid.txt", "    bar = 1\n", "q\n")))
    assert isinstance(err, E.AnchorNotFound)
    assert err.message.startswith("`old` occurs in mid.txt only mid-line (first at line 2), and an `old` that "
                                  "starts with whitespace must start a line")


# --- paths ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["~/x", "~", "~user/notes.txt", "./~/x"])
def test_a_path_starting_with_a_tilde_is_refused_as_never_expanded(path: str) -> None:
    err = check_spelling(path, 3)
    assert isinstance(err, E.PathEscape) and err.block == 3
    assert "paths are relative to the repo root and `~` is not expanded" in err.message


def test_a_tilde_inside_a_name_is_an_ordinary_character(tmp_path: Path) -> None:
    assert check_spelling("backup~/a~.txt") is None


def test_a_name_longer_than_a_filesystem_holds_is_refused_without_touching_the_disk(tmp_path: Path) -> None:
    err = resolve_target(tmp_path, "dir/" + "x" * 256)
    assert isinstance(err, E.PathForbidden) and "is 256 bytes long" in err.message
    assert check_spelling("x" * 255) is None


# --- undo order: a sequence number, whatever the clock -------------------------------------------------------

class SteppingBack:
    """A clock that goes back a second at every reading."""

    def __init__(self) -> None:
        self.at = 2_000_000_000.0

    def now(self) -> float:
        self.at -= 1.0
        return self.at

    def monotonic(self) -> float:
        return 0.0


def _edit_twice_then_undo(root: Path, clock: object) -> None:
    (root / "app.py").write_bytes(b"x\n")
    ids = iter(f"{random.getrandbits(48):012x}" for _ in range(10))  # random ids: their order says nothing
    for before, after in ((b"x\n", b"y\n"), (b"y\n", b"z\n")):
        done = apply_changes(root, [FileChange("app.py", root / "app.py", before, after)], clock=clock,
                             new_id=lambda: next(ids), group="message1")
        assert done.ok, done.error
    undone = undo_last(root, clock=clock)
    assert undone.ok, undone.error
    assert (root / "app.py").read_bytes() == b"x\n"


@pytest.mark.parametrize("clock", [FixedClock, SteppingBack], ids=["fixed", "stepping-back"])
def test_one_message_editing_one_file_twice_is_undone_whatever_the_clock(tmp_path: Path, clock: type) -> None:
    for n in range(REPETITIONS):
        root = tmp_path / f"repo{n}"
        root.mkdir()
        _edit_twice_then_undo(root, clock())


def test_sequence_numbers_grow_and_older_manifests_without_one_sort_first(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"1\n")
    ids = iter(["zzz", "aaa", "mmm"])
    for before, after in ((b"1\n", b"2\n"), (b"2\n", b"3\n"), (b"3\n", b"4\n")):
        assert apply_changes(tmp_path, [FileChange("a.txt", tmp_path / "a.txt", before, after)],
                             clock=FixedClock(), new_id=lambda: next(ids), group="g").ok
    kept, refused = J.scan_kept(tmp_path)
    assert refused == [] and [(p.name, m.sequence) for p, m in kept] == [
        ("last-mmm", 3), ("last-aaa", 2), ("last-zzz", 1)]
    legacy = kept[0][0]  # as an older ljtui wrote it: no sequence (and a later time), yet it sorts oldest
    data = json.loads((legacy / MANIFEST).read_bytes())
    del data["sequence"]
    data["created"] += 100.0
    (legacy / MANIFEST).write_text(json.dumps(data))
    assert read_manifest(legacy).sequence is None
    assert [p.name for p, _ in J.scan_kept(tmp_path)[0]] == ["last-aaa", "last-zzz", "last-mmm"]
    assert J.next_sequence(tmp_path) == 3


def test_a_manifest_with_a_sequence_that_is_not_a_positive_number_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"1\n")
    assert apply_changes(tmp_path, [FileChange("a.txt", tmp_path / "a.txt", b"1\n", b"2\n")], clock=FixedClock(),
                         new_id=lambda: "one").ok
    [(entry, _)] = J.scan_kept(tmp_path)[0]
    for bad in (0, -1, "2", True, 1.5):
        data = json.loads((entry / MANIFEST).read_bytes())
        data["sequence"] = bad
        (entry / MANIFEST).write_text(json.dumps(data))
        with pytest.raises(J.ManifestInvalid, match="sequence"):
            read_manifest(entry)


# --- undo removes the folders the writes created -------------------------------------------------------------

@pytest.mark.parametrize("order", [("a/x.txt", "a/b/c.txt"), ("a/b/c.txt", "a/x.txt")])
def test_undo_removes_every_folder_the_reverted_writes_created(tmp_path: Path, order: tuple[str, str]) -> None:
    (tmp_path / "keep").mkdir()
    for n in range(REPETITIONS // 2):  # ids are random and the clock fixed: every order of snapshots is met
        for path in (*order, "keep/new/deeper/f.txt"):
            assert apply_changes(tmp_path, [FileChange(path, tmp_path / path, None, b"x\n")], clock=FixedClock(),
                                 group=f"g{n}").ok
        assert undo_last(tmp_path).ok
        left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if ".agent" not in p.parts)
        assert left == ["keep"], n


def test_undo_keeps_a_created_folder_the_user_put_a_file_in(tmp_path: Path) -> None:
    assert apply_changes(tmp_path, [FileChange("a/b/c.txt", tmp_path / "a/b/c.txt", None, b"x\n")]).ok
    (tmp_path / "a" / "mine.txt").write_bytes(b"mine\n")
    assert undo_last(tmp_path).ok
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if ".agent" not in p.parts) == [
        "a", "a/mine.txt"]
