"""Anchors match byte-exactly, at the start of a line when they say so, and never past the end of a file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits.anchors import Replacement, replace_once, starts_at_line
from ljtui.core.edits.apply import dry_run_result, preview_plan
from ljtui.core.edits.plan_format import parse_plan
from ljtui.core.edits.validate import validate_plan
from tests.core.edits.helpers import apply_text, block, plan_text

LJTUI = str(Path(sys.executable).with_name("ljtui"))
CLI_TIMEOUT = 60


def validate(root: Path, *blocks: str):
    return validate_plan(parse_plan(plan_text(*blocks)), root)


def only_error(report) -> E.EditError:
    assert len(report.errors) == 1, report.errors
    return report.errors[0]


def test_new_with_other_line_endings_is_written_as_written(tmp_path):
    (tmp_path / "f.txt").write_bytes(b"one\ntwo\n")
    report = apply_text(plan_text(block(1, "f.txt", "one\ntwo\n", "one\r\ntwo\r\n")), tmp_path, run_checks=False)
    assert (report.result.status, report.result.files) == ("done", ["f.txt"])
    assert (tmp_path / "f.txt").read_bytes() == b"one\r\ntwo\r\n"
    assert report.result.notes == []


def test_end_of_file_is_not_a_line_break(tmp_path):
    (tmp_path / "f.txt").write_bytes(b"x\ny\nx")
    report = validate(tmp_path, block(1, "f.txt", "x\n", "X\n"))
    assert report.ok and report.changes["f.txt"].after == b"X\ny\nx"


def test_last_line_without_line_break_matches_as_a_noted_fallback_and_keeps_the_file_unterminated(tmp_path):
    (tmp_path / "n.txt").write_bytes(b"first\nlast")
    report = validate(tmp_path, block(1, "n.txt", "last\n", "LAST\nmore\n"))
    assert report.changes["n.txt"].after == b"first\nLAST\nmore"
    assert report.notes == ["EDIT 1: `old` matched the last line of n.txt, which has no final line break; "
                            "the file still ends without one"]


def test_the_end_of_file_fallback_keeps_the_start_of_line_rule_and_never_beats_an_exact_match(tmp_path):
    assert replace_once(b"alast", "last\n", "x\n").count == 0
    assert replace_once(b"last\nlast", "last\n", "x\n").result == b"x\nlast"
    assert replace_once(b"a\r\nlast", "last\n", "new\n") == Replacement(b"a\r\nnew", (), 1, None, True)


def test_indented_old_never_matches_inside_deeper_indentation(tmp_path):
    source = b"def f(a):\n    if a:\n        y = 1\n    return a\n"
    (tmp_path / "f.py").write_bytes(source)
    err = only_error(validate(tmp_path, block(1, "f.py", "    y = 1\n", "    y = 1\n    z = 2\n")))
    assert isinstance(err, E.AnchorNotFound)
    assert replace_once(source, "    y = 1", "    y = 2").count == 0
    report = validate(tmp_path, block(1, "f.py", "        y = 1\n", "        y = 1\n        z = 2\n"))
    assert report.changes["f.py"].after == source.replace(b"        y = 1\n", b"        y = 1\n        z = 2\n")


def test_old_ending_with_a_line_break_matches_whole_lines_only(tmp_path):
    (tmp_path / "f.txt").write_bytes(b"aaa\nb\n")
    err = only_error(validate(tmp_path, block(1, "f.txt", "aa\n", "cc\n")))
    assert isinstance(err, E.AnchorNotFound)


def test_occurrences_are_counted_by_the_start_of_line_rule(tmp_path):
    (tmp_path / "f.py").write_bytes(b"x = 1\nyx = 1\nx = 1\n  x = 1\n")
    err = only_error(validate(tmp_path, block(1, "f.py", "x = 1\n", "x = 2\n")))
    assert isinstance(err, E.AnchorAmbiguous)
    assert err.message == "`old` occurs 2 times in f.py, at lines 1, 3"
    assert replace_once(b"yx = 1\nx = 1\n", "x = 1\n", "x = 2\n").result == b"yx = 1\nx = 2\n"


def test_old_without_leading_whitespace_or_final_line_break_matches_anywhere():
    assert not starts_at_line("y = 1")
    assert replace_once(b"if a: y = 1\n", "y = 1", "y = 2").result == b"if a: y = 2\n"


def test_leading_line_break_counts_as_whitespace_so_old_starts_with_an_empty_line():
    assert starts_at_line("\ndef f():\n") and starts_at_line("\tx") and not starts_at_line("x\n ")
    assert replace_once(b"a\n\ndef f():\n", "\ndef f():\n", "\n\ndef f():\n").result == b"a\n\n\ndef f():\n"
    assert replace_once(b"a\ndef f():\n", "\ndef f():\n", "\n\ndef f():\n").count == 0


def test_line_start_after_a_lone_carriage_return_but_not_inside_crlf():
    assert replace_once(b"a\r  b\r", "  b\r", "  c\r").result == b"a\r  c\r"
    assert replace_once(b"a\r\nb\r\n", "\nb\r\n", "\nc\r\n").count == 0


def test_crlf_file_with_lf_plan_converts_as_a_fallback_and_says_so(tmp_path):
    (tmp_path / "w.py").write_bytes(b"a = 1\r\nb = 2\r\n")
    report = apply_text(plan_text(block(3, "w.py", "b = 2\n", "b = 3\nc = 4\n")), tmp_path, run_checks=False)
    assert (tmp_path / "w.py").read_bytes() == b"a = 1\r\nb = 3\r\nc = 4\r\n"
    assert report.result.notes == ["EDIT 3: `old` matched w.py only after converting its line endings to CRLF; "
                                   "`new` was converted the same way"]
    assert report.preview.outcomes[0].notes == tuple(report.result.notes)


def test_exact_match_wins_over_converted_line_endings(tmp_path):
    (tmp_path / "w.txt").write_bytes(b"a\r\nb\r\n")
    report = apply_text(plan_text(block(1, "w.txt", "a\r\n", "x\ny\n")), tmp_path, run_checks=False)
    assert (tmp_path / "w.txt").read_bytes() == b"x\ny\nb\r\n"
    assert report.result.notes == []


def test_converted_match_must_be_unique(tmp_path):
    (tmp_path / "w.txt").write_bytes(b"x\r\ny\r\nx\r\n")
    err = only_error(validate(tmp_path, block(1, "w.txt", "x\n", "z\n")))
    assert isinstance(err, E.AnchorAmbiguous)
    assert err.message == "`old` occurs 2 times in w.txt once its line endings are converted to CRLF, at lines 1, 3"


def test_mixed_file_gets_no_conversion():
    assert replace_once(b"a\r\nb\nc\n", "a\n", "A\n").count == 0


def test_notes_of_failed_entries_are_dropped_and_dry_run_keeps_the_others(tmp_path):
    (tmp_path / "w.txt").write_bytes(b"a\r\nb\r\n")
    text = plan_text(block(1, "w.txt", "a\n", "A\n", entry="good"), block(2, "w.txt", "zzz\n", "Z\n", entry="bad"),
                     block(3, "v.txt", "b\n", "B\n", entry="third"))
    (tmp_path / "v.txt").write_bytes(b"b\r\n")
    preview = preview_plan(parse_plan(text), tmp_path, partial=True)
    assert [o.notes for o in preview.outcomes] == [
        ("EDIT 1: `old` matched w.txt only after converting its line endings to CRLF; `new` was converted the same way",),
        (), ("EDIT 3: `old` matched v.txt only after converting its line endings to CRLF; `new` was converted "
             "the same way",)]
    result = dry_run_result(preview)
    assert result.notes[:2] == [preview.outcomes[0].notes[0], preview.outcomes[2].notes[0]]
    assert result.notes[2] == "dry run: nothing was written"


def test_cli_json_carries_the_conversion_note(git_repo):
    (git_repo / "w.txt").write_bytes(b"a = 1\r\nb = 2\r\n")
    plan = git_repo.parent / "plan.md"
    plan.write_text(plan_text(block(2, "w.txt", "b = 2\n", "b = 3\n")), encoding="utf-8")
    done = subprocess.run([LJTUI, "apply", str(plan), "--json", "--yes", "--repo", str(git_repo)],
                          capture_output=True, text=True, timeout=CLI_TIMEOUT)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["notes"] == ["EDIT 2: `old` matched w.txt only after converting its line endings to CRLF; "
                               "`new` was converted the same way"]
    assert (git_repo / "w.txt").read_bytes() == b"a = 1\r\nb = 3\r\n"


@pytest.mark.parametrize("old", ["x\n", "x\r\n"])
def test_plans_written_with_either_line_ending_apply_to_an_lf_file(tmp_path, old):
    (tmp_path / "f.txt").write_bytes(b"x\ny\n")
    report = validate(tmp_path, block(1, "f.txt", old, old.replace("x", "z")))
    assert report.changes["f.txt"].after == b"z\ny\n"


def test_the_end_of_a_mixed_style_file_is_not_matched_when_the_lines_also_occur_earlier() -> None:
    found = replace_once(b"\r\na\na", "a\r\n", "")
    assert found.result is None and not found.at_end
    assert replace_once(b"x\r\ny", "y\n", "z\n").at_end  # no earlier occurrence: the end still matches
