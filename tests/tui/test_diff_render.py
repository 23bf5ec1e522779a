"""Diff lines as styled text: every line keeps its text, headers become a label."""

from __future__ import annotations

from ljtui.tui.widgets.diff_render import HIGHLIGHT_MAX_CHARS, render_lines, split_header

COLOURS = {"diff-added": "#00ff00", "diff-removed": "#ff0000"}


def plain(lines: list[str], path: str = "app.py") -> list[str]:
    return [text.plain for text in render_lines(lines, path, COLOURS)]


def test_a_binary_diff_keeps_its_first_letter() -> None:
    label, body = split_header(["--- a/data.bin", "+++ b/data.bin", "Binary file data.bin differs"])
    assert label is None and plain(list(body)) == ["Binary file data.bin differs"]


def test_marks_hunks_and_notes() -> None:
    lines = ["@@ -1,2 +1,2 @@", " keep", "-old", "+new", "\\ No newline at end of file"]
    assert plain(lines) == ["@@ -1,2 +1,2 @@", "  keep", "- old", "+ new", "\\ No newline at end of file"]


def test_a_removed_line_that_looks_like_a_header_is_code() -> None:
    assert plain(["--- a comment removed", "+++ counter"], "q.sql") == ["- -- a comment removed", "+ ++ counter"]


def test_new_and_removed_files_are_labelled() -> None:
    assert split_header(["--- /dev/null", "+++ b/new.py", "@@ -0,0 +1 @@"]) == ("new file", ["@@ -0,0 +1 @@"])
    assert split_header(["--- a/old.py", "+++ /dev/null"])[0] == "removed"


def test_a_huge_page_is_shown_without_syntax_colours() -> None:
    line = "+" + "x = 1; " * (HIGHLIGHT_MAX_CHARS // 7 + 1)
    [text] = render_lines([line], "a.py", COLOURS)
    assert text.plain == "+ " + line[1:].rstrip() and len(text.spans) <= 2
