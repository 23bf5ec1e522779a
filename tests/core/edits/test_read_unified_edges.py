"""The unified-diff reader's rules at the edges: counts over prefixes, lost spaces, names, stamps, mails."""

from __future__ import annotations

import pytest

from ljtui.core.edits.plan import CREATE, DELETE, EDIT, EXECUTABLE, MODE, PlanParseError
from ljtui.core.edits.read_unified import parse_unified
from ljtui.core.edits.read_unified_mail import read_mail_headers
from ljtui.core.edits.read_unified_names import BadName, git_header_names, is_epoch, split_side, strip_path, unquote
from ljtui.core.edits.read_unified_hunks import split_lines

GIT = "diff --git a/f.txt b/f.txt\nindex 1111111..2222222 100644\n--- a/f.txt\n+++ b/f.txt\n"


def one(text: str, **options: object):
    plan = parse_unified(text, **options)  # type: ignore[arg-type]
    assert len(plan.blocks) == 1, plan.blocks
    return plan.blocks[0]


def test_empty_line_inside_the_count_is_an_empty_context_line():
    block = one(GIT + "@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n")
    assert (block.old, block.new) == ("a\n\nb\n", "a\n\nB\n")


def test_empty_crlf_line_inside_the_count_keeps_its_carriage_return():
    block = one(GIT.replace("\n", "\r\n") + "@@ -1,3 +1,3 @@\r\n a\r\n\r\n-b\r\n+B\r\n")
    assert (block.old, block.new) == ("a\r\n\r\nb\r\n", "a\r\n\r\nB\r\n")


def test_the_texts_last_line_without_a_line_break_is_read_with_one():
    block = one(GIT + "@@ -1,2 +1,2 @@\n a\n-b\n+B")
    assert (block.old, block.new) == ("a\nb\n", "a\nB\n")


def test_counts_decide_what_a_line_is_not_its_prefix():
    text = GIT + "@@ -1,3 +1,3 @@\n-- \n--- x\n+++ y\n+-- \n ctx\n-- \n2.39.5\n"
    block = one(text)
    assert (block.old, block.new) == ("- \n-- x\nctx\n", "++ y\n-- \nctx\n")
    assert block.anchor is not None and not block.anchor.at_end


def test_preamble_and_trailing_text_are_ignored():
    text = ("Here is the change you asked for:\n\n" + GIT + "@@ -1 +1 @@\n-a\n+b\n"
            + "\nLet me know if it works.\n--- a/fake\n+++ b/fake\nno hunk follows\n")
    block = one(text)
    assert (block.file, block.line, block.old, block.new) == ("f.txt", 7, "a\n", "b\n")


def test_a_context_line_right_after_the_counted_range_is_ignored_as_git_apply_does():
    block = one(GIT + "@@ -1 +1 @@\n-a\n+b\n trailing\n")
    assert (block.old, block.new) == ("a\n", "b\n")


def test_no_newline_marker_in_another_language():
    block = one(GIT + "@@ -1 +1 @@\n-a\n\\ Kein Zeilenumbruch am Dateiende.\n+b\n")
    assert (block.old, block.new) == ("a", "b\n")


def test_a_hunk_count_of_one_may_be_left_out():
    block = one(GIT + "@@ -3 +3,2 @@ def f():\n-x\n+y\n+z\n")
    assert (block.where, block.anchor.at_start, block.anchor.at_end, block.anchor.line) == ("def f():", False,
                                                                                           True, 3)


def test_insertion_into_an_empty_file_is_anchored_at_both_ends():
    block = one(GIT + "@@ -0,0 +1 @@\n+first\n")
    assert (block.action, block.old, block.new) == (EDIT, "", "first\n")
    assert (block.anchor.at_start, block.anchor.at_end, block.creates) == (True, True, False)


def test_same_path_twice_in_one_diff_makes_two_entries_in_order():
    text = GIT + "@@ -1 +1 @@\n-a\n+b\n" + GIT + "@@ -1 +1 @@\n-b\n+c\n"
    plan = parse_unified(text)
    assert [(b.entry, b.old, b.new) for b in plan.blocks] == [("f.txt", "a\n", "b\n"), ("f.txt@2", "b\n", "c\n")]


def test_plain_dev_null_sides_create_and_delete():
    plan = parse_unified("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n"
                         "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n")
    assert [(b.action, b.file, b.old, b.new, b.source.format) for b in plan.blocks] == [
        (CREATE, "new.txt", "", "n\n", "unified"), (DELETE, "old.txt", "o\n", "", "unified")]


@pytest.mark.parametrize(("old", "new", "path"), [
    ("a/x.txt", "b/x.txt", "x.txt"), ("old/x.txt", "new/x.txt", "new/x.txt"), ("a/x.txt", "x.txt", "x.txt"),
    ("x.txt.orig", "x.txt", "x.txt"), ('"a/t\\tx"', '"b/t\\tx"', "t\tx")])
def test_plain_names_are_stripped_only_when_both_are_a_and_b(old, new, path):
    text = f"--- {old}\t2024-01-01 10:00:00.000000000 +0000\n+++ {new}\t2024-01-01 10:00:01.000000000 +0000\n"
    assert one(text + "@@ -1 +1 @@\n-a\n+b\n").file == path


def test_plain_names_with_a_space_separated_timestamp():
    text = "--- a/my file.txt 2024-01-01 10:00:00.000000000 +0000\n+++ b/my file.txt 2024-01-01 10:00:01 +0000\n"
    assert one(text + "@@ -1 +1 @@\n-a\n+b\n").file == "my file.txt"


def test_modes_other_than_644_and_755_are_read_by_their_owner_bit():
    block = one("diff --git a/s b/s\nold mode 100644\nnew mode 100775\n")
    assert (block.action, block.mode) == (MODE, EXECUTABLE)
    with pytest.raises(PlanParseError, match="NoBlocks"):
        parse_unified("diff --git a/s b/s\nold mode 100644\nnew mode 100664\n")


@pytest.mark.parametrize(("stamp", "epoch"), [
    ("1970-01-01 00:00:00.000000000 +0000", True), ("1969-12-31 19:00:00.000000000 -0500", True),
    ("1970-01-01 05:30:00 +0530", True), ("1970-01-01 00:00:00.000000001 +0000", False),
    ("1970-01-01 00:00:00 +0100", False), ("2024-05-01 12:00:00.000000000 +0000", False), ("", False)])
def test_epoch_timestamps(stamp, epoch):
    assert is_epoch(stamp) is epoch


def test_c_quoted_names_decode_octal_bytes_and_escapes():
    quoted = '"a/sp\\303\\251cial \\"q\\".txt" rest'
    assert unquote(quoted) == ('a/sp\u00e9cial "q".txt', len(quoted) - len(" rest"))
    assert unquote('"\\377\\t\\\\"')[0] == "\udcff\t\\"
    with pytest.raises(BadName):
        unquote('"a/x')
    assert split_side('"a/x y"\t2024-01-01', stamps=True) == ("a/x y", "2024-01-01")


def test_git_header_names_are_split_where_both_sides_agree():
    assert git_header_names("a/x b/x", 1) == ("a/x", "b/x")
    assert git_header_names("a/new empty.txt b/new empty.txt", 1) == ("a/new empty.txt", "b/new empty.txt")
    assert git_header_names('"a/\\303\\251" "b/\\303\\251"', 1) == ("a/\u00e9", "b/\u00e9")
    assert git_header_names('a/x y "b/x y"', 1) == ("a/x y", "b/x y")
    assert git_header_names("a/a b b/c d", 1) is None


def test_strip_path_counts_runs_of_slashes_as_one():
    assert strip_path("a//b/c", 1) == "b/c"
    assert strip_path("a/b", 2) is None
    assert strip_path("x", 0) == "x"


@pytest.mark.parametrize(("subject", "commit"), [
    ("Subject: [PATCH] Fix it", "Fix it"), ("Subject: [PATCH v2 3/7] Fix it", "Fix it"),
    ("Subject: [RFC PATCH] Fix\n it", "Fix it"), ("Subject: Plain subject", "Plain subject"),
    ("Subject: [core] not a patch tag", "[core] not a patch tag"),
    ("Subject: =?UTF-8?q?caf=C3=A9?=", "caf\u00e9")])
def test_mail_subjects(subject, commit):
    lines = split_lines(f"From {'0' * 40} Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\n{subject}\n\nbody\n")
    assert read_mail_headers(lines, 0)[0] == commit


def test_mail_without_a_subject_has_no_commit():
    text = f"From {'1' * 40} Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\n\n---\n" + GIT + "@@ -1 +1 @@\n-a\n+b\n"
    block = one(text)
    assert (block.source.format, block.source.commit) == ("mbox", None)
