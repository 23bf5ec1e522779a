"""Every way a diff can break the unified-diff reader, each with its error class and message."""

from __future__ import annotations

import pytest

from ljtui.core.edits.plan import PlanParseError
from ljtui.core.edits.read_unified import parse_unified
from tests.core.edits.read_unified_expect import fixture

GIT = "diff --git a/f.txt b/f.txt\nindex 1111111..2222222 100644\n--- a/f.txt\n+++ b/f.txt\n"
"""A git file header whose first hunk header is line 5."""
NO_BLOCKS = "the text holds no file section of a diff ('diff --git' or '---'/'+++' lines followed by hunks)"


def problems(text: str, **options: object) -> list[tuple[str, str | None, str]]:
    with pytest.raises(PlanParseError) as caught:
        parse_unified(text, **options)  # type: ignore[arg-type]
    return [(err.kind, err.file, err.message) for err in caught.value.errors]


def only(text: str, **options: object) -> tuple[str, str | None, str]:
    found = problems(text, **options)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("text", ["", "Hello, here is no diff.\nJust text.\n", "Only in a: x\nOnly in b: y\n",
                                  "--- a/x\n+++ b/x\nnot a hunk\n", "diff -u a b\n"])
def test_text_without_a_file_section_has_no_blocks(text):
    assert only(text) == ("NoBlocks", None, NO_BLOCKS)


def test_hunk_header_that_does_not_parse():
    assert only(GIT + "@@ -1,a +1 @@\n-x\n+y\n") == (
        "MalformedPatch", "f.txt",
        "line 5: hunk header does not parse: '@@ -1,a +1 @@' (expected '@@ -start,count +start,count @@')")


def test_fewer_lines_than_counted_say_expected_and_found():
    assert only(GIT + "@@ -1,3 +1,3 @@\n a\n-b\n+B\ndiff --git a/g b/g\n") == (
        "MalformedPatch", "f.txt",
        "line 5: hunk header says 3 old lines but 2 follow, and 3 new lines but 2 follow (lines 6-8)")


def test_more_lines_than_counted_say_expected_and_found():
    assert only(GIT + "@@ -1,2 +1,2 @@\n a\n-b\n+B\n+extra\n c\n") == (
        "MalformedPatch", "f.txt",
        "line 5: hunk header says 2 old lines but 3 follow, and 2 new lines but 4 follow (lines 6-10)")


def test_an_added_line_right_after_the_counted_range_is_refused():
    assert only(GIT + "@@ -1 +1 @@\n-a\n+b\n+forgotten in the count\n") == (
        "MalformedPatch", "f.txt", "line 5: hunk header says 1 new line but 2 follow (lines 6-8)")


def test_text_ending_inside_a_hunk():
    assert only(GIT + "@@ -1,3 +1,3 @@\n a\n-b\n") == (
        "MalformedPatch", "f.txt",
        "line 5: hunk header says 3 old lines but 2 follow, and 3 new lines but 1 follow (lines 6-7)")


def test_unknown_prefix_inside_the_counted_range():
    assert only(GIT + "@@ -1,3 +1,3 @@\n a\n*b\n c\n") == (
        "MalformedPatch", "f.txt",
        "line 7: '*' begins no hunk line (' ', '-', '+' or '\\'), but the hunk at line 5 still expects"
        " 2 old lines and 2 new lines")


def test_prose_right_after_a_short_hunk_is_an_unknown_prefix():
    assert only(GIT + "@@ -1,3 +1,3 @@\n a\n-b\n+B\nThanks!\n") == (
        "MalformedPatch", "f.txt",
        "line 9: 'T' begins no hunk line (' ', '-', '+' or '\\'), but the hunk at line 5 still expects"
        " 1 old line and 1 new line")


def test_plus_line_without_minus_line():
    assert only("+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n") == (
        "MalformedPatch", None, "line 1: '+++ b/f.txt' has no '---' line before it")
    assert only("diff --git a/f.txt b/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n") == (
        "MalformedPatch", "f.txt", "line 2: '+++ b/f.txt' has no '---' line before it")


def test_minus_line_without_plus_line_in_a_git_header():
    assert only("diff --git a/f.txt b/f.txt\n--- a/f.txt\n@@ -1 +1 @@\n-a\n+b\n") == (
        "MalformedPatch", "f.txt", "line 2: '--- a/f.txt' is not followed by a '+++' line")


def test_hunk_before_any_file_header():
    assert only("Some preamble.\n@@ -1 +1 @@\n-a\n+b\n") == (
        "MalformedPatch", None,
        "line 2: the hunk '@@ -1 +1 @@' comes before any file header ('diff --git', or '---' and '+++' lines)")


def test_no_newline_marker_with_no_line_before_it():
    assert only(GIT + "@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n") == (
        "MalformedPatch", "f.txt",
        "line 6: '\\\\ No newline at end of file' follows no line whose line break it could take off")


def test_a_line_after_the_one_without_a_line_break():
    assert only(GIT + "@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n-b\n+c\n+d\n") == (
        "MalformedPatch", "f.txt", "line 8: a line follows the one marked '\\ No newline at end of file'")


def test_new_file_whose_hunk_has_old_lines():
    text = "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -1 +1,2 @@\n x\n+y\n"
    assert only(text) == ("MalformedPatch", "n", "line 5: n is a new file, but its hunk has old lines")


def test_deleted_file_whose_hunk_has_new_lines():
    text = "diff --git a/n b/n\ndeleted file mode 100644\n--- a/n\n+++ /dev/null\n@@ -1,2 +1 @@\n-x\n y\n"
    assert only(text) == ("MalformedPatch", "n", "line 5: n is deleted, but its hunk still has new lines")


def test_both_sides_dev_null():
    assert only("--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n") == (
        "MalformedPatch", None, "line 1: both sides of the file are absent (/dev/null or the epoch)")


def test_strip_beyond_the_names_components():
    assert only(GIT + "@@ -1 +1 @@\n-a\n+b\n", strip=2) == (
        "MalformedPatch", None, "line 3: stripping 2 leading components from 'a/f.txt' leaves no file name")
    with pytest.raises(ValueError, match="strip must be 0 or more"):
        parse_unified(GIT, strip=-1)


def test_empty_name_and_nul_are_refused_by_name():
    assert only("--- \n+++ \n@@ -1 +1 @@\n-a\n+b\n") == ("MalformedPatch", None, "line 1: '--- ' names no file")
    assert only("--- a/\n+++ b/\n@@ -1 +1 @@\n-a\n+b\n", strip=1) == (
        "MalformedPatch", None, "line 1: stripping 1 leading component from 'a/' leaves no file name")
    nul = 'diff --git "a/x\\000y" "b/x\\000y"\n--- "a/x\\000y"\n+++ "b/x\\000y"\n@@ -1 +1 @@\n-a\n+b\n'
    assert only(nul) == ("MalformedPatch", None, "line 2: the file name 'x\\x00y' holds a NUL character")


def test_quoted_names_that_do_not_decode():
    text = 'diff --git "a/x\\qy" "b/x\\qy"\n--- "a/x\\qy"\n+++ "b/x\\qy"\n@@ -1 +1 @@\n-a\n+b\n'
    assert problems(text) == [
        ("MalformedPatch", None, "line 2: unknown escape '\\\\q' in the quoted name '\"a/x\\\\qy\"'"),
        ("MalformedPatch", None, "line 3: unknown escape '\\\\q' in the quoted name '\"b/x\\\\qy\"'")]
    assert only('--- "a/x\n+++ "b/x\n@@ -1 +1 @@\n-a\n+b\n') == (
        "MalformedPatch", None, "line 1: the quoted name '\"a/x' has no closing quote")


def test_no_prefix_git_diff_says_how_to_read_it():
    text = "diff --git f.txt f.txt\nindex 1111111..2222222 100644\n--- f.txt\n+++ f.txt\n@@ -1 +1 @@\n-a\n+b\n"
    assert only(text) == (
        "MalformedPatch", None, "line 3: stripping 1 leading component from 'f.txt' leaves no file name"
        " (a diff made with --no-prefix is read with strip 0, as patch -p0)")
    assert [b.file for b in parse_unified(text, strip=0).blocks] == ["f.txt"]


def test_git_names_with_spaces_that_cannot_be_split():
    assert only("diff --git a/a b b/c d\nold mode 100644\nnew mode 100755\n") == (
        "MalformedPatch", None, "line 1: cannot tell the file names apart in 'diff --git a/a b b/c d'")


def test_mode_that_is_not_a_git_mode():
    assert only("diff --git a/f b/f\nold mode 100644\nnew mode 10075x\n") == (
        "MalformedPatch", "f", "line 3: '10075x' in 'new mode 10075x' is not a git file mode")


def test_binary_git_diff_names_the_file_and_how_to_leave_it_out():
    hint = "ljtui reads text hunks only: leave the file out of the diff (e.g. git diff -- . ':!img.bin')"
    assert only(fixture("git_binary.diff")) == (
        "BinaryPatch", "img.bin",
        f"line 3: img.bin has a binary change ('Binary files a/img.bin and b/img.bin differ'); {hint}")
    assert only(fixture("git_binary_literal.diff")) == (
        "BinaryPatch", "img.bin", f"line 3: img.bin has a binary change ('GIT binary patch'); {hint}")


def test_binary_plain_diff_names_the_file_and_how_to_leave_it_out():
    assert only(fixture("unified_binary.diff")) == (
        "BinaryPatch", "img.bin",
        "line 1: img.bin has a binary change ('Binary files a/img.bin and b/img.bin differ'); ljtui reads text"
        " hunks only: leave the file out of the diff (e.g. diff -ur -x 'img.bin')")


def test_copy_symlink_submodule_and_other_modes_are_unsupported_by_name():
    assert only(fixture("git_copy.diff")) == (
        "UnsupportedPatch", "copy.txt",
        "line 4: copy.txt is a copy ('copy from orig.txt'); ljtui does not copy files: make the diff without"
        " copy detection (no -C)")
    assert only(fixture("git_symlink.diff")) == (
        "UnsupportedPatch", "link",
        "line 2: link is a symbolic link (mode 120000, 'new file mode 120000'); ljtui writes regular files only:"
        " leave it out of the diff")
    assert only(fixture("git_submodule.diff")) == (
        "UnsupportedPatch", "sub",
        "line 2: sub is a submodule (mode 160000, 'index 1111111..2222222 160000'); ljtui does not change"
        " submodules: leave it out of the diff")
    assert only("diff --git a/f b/f\nnew file mode 040000\n") == (
        "UnsupportedPatch", "f",
        "line 2: f is not a regular file (mode 040000, 'new file mode 040000'); ljtui writes regular files only:"
        " leave it out of the diff")


def test_symlink_mode_change_on_an_existing_file_is_unsupported():
    text = "diff --git a/l b/l\nold mode 100644\nnew mode 120000\n"
    assert only(text)[:2] == ("UnsupportedPatch", "l")
    assert "symbolic link (mode 120000, 'new mode 120000')" in only(text)[2]


def test_combined_merge_diff_is_unsupported():
    text = "diff --cc f.txt\nindex 1,2..3\n--- a/f.txt\n+++ b/f.txt\n@@@ -1,1 -1,1 +1,1 @@@\n- a\n -b\n++c\n"
    assert only(text) == (
        "UnsupportedPatch", "f.txt",
        "line 1: f.txt has a combined (merge) diff, which ljtui does not read; make the diff against one parent"
        " (git diff HEAD)")


def test_u0_insertions_are_unanchored_and_named():
    message = ("has no old lines to place it by (a diff made with -U0?): it would apply by line number alone;"
               " make the diff with context lines (git diff -U3)")
    assert only(fixture("git_u0.diff")) == (
        "UnanchoredHunk", "f.txt", f"line 5: the hunk '@@ -2,0 +3 @@ b' of f.txt {message}")
    assert only(GIT + "@@ -1,0 +2 @@\n+after line one\n") == (
        "UnanchoredHunk", "f.txt", f"line 5: the hunk '@@ -1,0 +2 @@' of f.txt {message}")


def test_every_problem_of_a_text_is_named():
    text = (GIT + "@@ -1,a +1 @@\n-x\n+y\n" + "diff --git a/g b/g\nBinary files a/g and b/g differ\n"
            + "diff --git a/h b/h\n--- a/h\n+++ b/h\n@@ -3,0 +4 @@\n+x\n@@ -9,0 +10 @@\n+y\n")
    assert [(kind, file, message[:8]) for kind, file, message in problems(text)] == [
        ("MalformedPatch", "f.txt", "line 5: "), ("BinaryPatch", "g", "line 9: "),
        ("UnanchoredHunk", "h", "line 13:"), ("UnanchoredHunk", "h", "line 15:")]
