"""Block diffs in bounded time: the same diff as ``apply --dry-run`` when small, a valid one when large."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ljtui.core.edits.diffs import unified_diff
from ljtui.core.edits.validate import FileChange
from ljtui.core.review.diff_text import diff_lines

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def change(before: str | None, after: str | None, path: str = "f.txt") -> FileChange:
    return FileChange(path, Path("/nowhere") / path, None if before is None else before.encode(),
                      None if after is None else after.encode())


def patched(before: str, lines: list[str]) -> str:
    """``before`` with the hunks of a unified diff applied (checking every context and removed line)."""
    old = re.findall(r"[^\n]*\n|[^\n]+", before)
    out: list[str] = []
    at = 0
    body = iter(lines[2:])
    pending: str | None = None
    for line in body:
        match = HUNK.match(line)
        if match:
            start = int(match.group(1)) - (0 if match.group(2) == "0" else 1)
            out += old[at:start]
            at = start
            continue
        if line == "\\ No newline at end of file":
            if pending in (" ", "+"):  # the new side ends here without a line break
                out[-1] = out[-1].rstrip("\n")
            continue
        mark, text = line[0], line[1:] + "\n"
        if mark in " -":
            assert old[at].rstrip("\n") == text.rstrip("\n")
            at += 1
        if mark in " +":
            out.append(text)
        pending = mark
    out += old[at:]
    return "".join(out)


def test_small_changes_diff_exactly_as_apply_dry_run() -> None:
    before = "".join(f"line {i}\n" for i in range(50))
    after = before.replace("line 20\n", "line twenty\n")
    assert diff_lines(change(before, after)) == unified_diff(change(before, after)).splitlines()


@pytest.mark.parametrize("gap_max", [0, 250_000], ids=["anchors-only", "difflib-in-gaps"])
def test_a_large_scattered_change_matches_difflib_where_difflib_is_quick(gap_max: int) -> None:
    before = "".join(f"line number {i} of a generated file\n" for i in range(3_000))
    after = "".join((f"line {i} changed\n" if i % 10 == 0 else f"line number {i} of a generated file\n")
                    for i in range(3_000))
    assert diff_lines(change(before, after), difflib_max=100, gap_max=gap_max) == unified_diff(change(before, after)).splitlines()


def test_created_and_binary_files() -> None:
    assert diff_lines(change(None, "a\nb\n"), difflib_max=0) == ["--- /dev/null", "+++ b/f.txt", "@@ -0,0 +1,2 @@",
                                                                  "+a", "+b"]
    binary = FileChange("x.bin", Path("/nowhere/x.bin"), b"\xff\xfe", b"\xff\xfd")
    assert diff_lines(binary)[2:] == [
        "binary (2 of its 2 bytes are not UTF-8): shown as hex, 16 bytes a line (offset, bytes, printable ASCII)",
        "@@ -1 +1 @@", "-00000000  ff fe" + " " * 44 + "|..|", "+00000000  ff fd" + " " * 44 + "|..|"]


lines_of = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "def f():\n", "    return 1\n", "\n", "x"]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(before=lines_of, after=lines_of, gap_max=st.sampled_from([0, 4, 250_000]))
def test_the_patience_diff_turns_before_into_after(before: list[str], after: list[str], gap_max: int) -> None:
    old = "".join(line for line in before if line != "x") + ("x" if "x" in before else "")
    new = "".join(line for line in after if line != "x") + ("x" if "x" in after else "")
    lines = diff_lines(change(old, new), difflib_max=0, gap_max=gap_max)
    if old == new:
        assert lines == []
    else:
        assert patched(old, lines) == new
