"""ljtui applies every diff fixture as ``git apply`` (and GNU ``patch``, and ``git am``) do, byte for byte.

Also where they differ on purpose: each such case is a test that shows
both results, so a change of either side is seen.
"""

from __future__ import annotations


import pytest

from ljtui.core.edits.plan import EditPlan, PlanParseError
from ljtui.core.edits.read_unified import parse_unified
from tests.core.edits import unified_trees as T
from tests.core.edits.patch_conformance import (
    conform,
    git_apply,
    git_apply_result,
    keep_hunks,
    ljtui_apply,
    ljtui_result,
    make_repo,
    tree_snapshot,
)
from tests.core.edits.read_unified_expect import fixture


GIT_FIXTURES = [
    ("git_modify.diff", T.GIT_MODIFY), ("git_create_delete.diff", T.GIT_CREATE_DELETE),
    ("git_rename.diff", T.GIT_RENAME), ("git_mode.diff", T.GIT_MODE), ("git_no_newline.diff", T.GIT_NO_NEWLINE),
    ("git_crlf.diff", T.GIT_CRLF), ("git_crlf_saved.diff", T.GIT_CRLF_SAVED), ("git_quoted.diff", T.GIT_QUOTED),
    ("git_latin1.diff", T.GIT_LATIN1), ("git_show.diff", T.GIT_SHOW),
]


@pytest.mark.parametrize(("name", "trees"), GIT_FIXTURES, ids=[n for n, _ in GIT_FIXTURES])
def test_git_fixture_applies_as_git_apply_does(name, trees):
    before, after = trees
    result = conform(before, fixture(name))
    assert result.ljtui == tree_snapshot(after)


def test_format_patch_series_applies_as_git_am_does():
    before, commits = T.MBOX_SERIES
    result = conform(before, fixture("mbox_series.patch"), mbox=True)
    assert result.ljtui == tree_snapshot(commits[-1][1])


def test_diff_u_of_one_file_applies_as_git_apply_and_patch_p0_do():
    before, after = T.UNIFIED_FILE
    result = conform(before, fixture("unified_file.diff"), strip=0, plain=True)
    assert result.ljtui == tree_snapshot(after)


def test_diff_urn_applies_as_git_apply_and_patch_p1_do():
    before, after = T.UNIFIED_TREE
    result = conform(before, fixture("unified_tree.diff"), plain=True)
    assert result.ljtui == tree_snapshot(after)


def test_diff_ur_with_only_in_lines_applies_its_diffs_only():
    before, _ = T.UNIFIED_ONLY_IN
    text = fixture("unified_only_in.diff")
    result = conform(before, text, plan=parse_unified(text, strip=1), plain=True)
    assert result.ljtui == tree_snapshot({**before, "file.txt": b"keep\nchanged\nkeep\n"})


def subset(plan: EditPlan, keep: set[tuple[str, int]]) -> EditPlan:
    return EditPlan(tuple(b for b in plan.blocks if (b.file, b.source.hunk) in keep))


@pytest.mark.parametrize("keep", [
    {("src/app.py", 2)}, {("src/app.py", 1)}, {("README.md", 1), ("src/app.py", 2)}, {("README.md", 1)}])
def test_accepting_some_hunks_matches_git_apply_of_those_hunks(keep):
    before, _ = T.GIT_MODIFY
    text = fixture("git_modify.diff")
    partial = keep_hunks(text, keep)
    assert partial.count("@@ -") == len(keep)
    result = conform(before, text, plan=subset(parse_unified(text), keep), git_patch=partial)
    assert set(result.ljtui) == set(before)


def test_accepting_the_second_hunk_of_a_crlf_saved_diff_matches_git_apply():
    before, _ = T.GIT_CRLF_SAVED
    text = fixture("git_crlf_saved.diff")
    keep = {("long.txt", 2)}
    result = conform(before, text, plan=subset(parse_unified(text), keep), git_patch=keep_hunks(text, keep))
    assert result.ljtui["long.txt"][0] == T.CRLF_LONG.replace(b"line 18\r\n", b"")


def test_keep_hunks_moves_the_new_start_of_later_hunks():
    partial = keep_hunks(fixture("git_modify.diff"), {("src/app.py", 2)})
    assert "@@ -22,7 +22,7 @@ def unused():\n" in partial and "README.md" not in partial


# --- where ljtui and git apply differ, on purpose --------------------------------

REPEATED = b"".join(b"same %d\n" % n for n in range(1, 9))
TWICE = {"r.txt": REPEATED + b"middle\n" + REPEATED}



def test_hunk_whose_text_occurs_twice_git_picks_by_line_number_ljtui_refuses():
    """git apply uses the line number to choose between equal places; ljtui never places by number."""
    text = ("diff --git a/r.txt b/r.txt\n--- a/r.txt\n+++ b/r.txt\n@@ -12,3 +12,3 @@\n same 3\n-same 4\n+FOUR\n"
            " same 5\n")
    git = git_apply_result(TWICE, text)
    assert git is not None and git["r.txt"][0] == REPEATED + b"middle\n" + REPEATED.replace(b"same 4", b"FOUR")
    errors = ljtui_result(TWICE, parse_unified(text))
    assert isinstance(errors, list) and "AnchorAmbiguous" in errors[0]


def test_u0_insertion_git_apply_puts_at_the_end_ljtui_refuses():
    tree = {"f.txt": b"a\nb\nc\nd\n"}
    text = fixture("git_u0.diff")
    text = text[:text.index("@@ -4 +5 @@")]
    git = git_apply_result(tree, text)
    assert git is not None and git["f.txt"][0] == b"a\nb\nc\nd\ninserted\n"
    with pytest.raises(PlanParseError, match="UnanchoredHunk"):
        parse_unified(text)


def test_added_line_beyond_the_count_git_apply_drops_it_ljtui_refuses():
    tree = {"f.txt": b"a\n"}
    text = "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n+c\n"
    git = git_apply_result(tree, text)
    assert git is not None and git["f.txt"][0] == b"b\n"
    with pytest.raises(PlanParseError, match="hunk header says 1 new line but 2 follow"):
        parse_unified(text)


def test_text_cut_before_its_last_line_break_git_refuses_ljtui_reads():
    tree = {"f.txt": b"a\nb\n"}
    text = "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B"
    assert git_apply_result(tree, text) is None
    assert ljtui_result(tree, parse_unified(text)) == {"f.txt": (b"a\nB\n", False)}


def test_empty_crlf_context_line_git_refuses_ljtui_reads():
    tree = {"f.txt": b"a\r\n\r\nb\r\n"}
    text = "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\r\n\r\n-b\r\n+B\r\n"
    assert git_apply_result(tree, text) is None
    assert ljtui_result(tree, parse_unified(text)) == {"f.txt": (b"a\r\n\r\nB\r\n", False)}


def test_empty_context_line_without_its_space_both_read():
    tree = {"f.txt": b"a\n\nb\n"}
    text = "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n"
    expected = {"f.txt": (b"a\n\nB\n", False)}
    assert git_apply_result(tree, text) == expected
    assert ljtui_result(tree, parse_unified(text)) == expected


def test_deleting_a_folders_last_file_git_removes_the_folder_ljtui_keeps_it(tmp_path):
    """Files match; folders differ: ljtui's transaction leaves the emptied folder in place."""
    text = "diff --git a/d/only.txt b/d/only.txt\ndeleted file mode 100644\n--- a/d/only.txt\n+++ /dev/null\n" \
           "@@ -1 +0,0 @@\n-x\n"
    patch = tmp_path / "change.patch"
    patch.write_text(text)
    git_root = make_repo(tmp_path, "git", {"d/only.txt": b"x\n"})
    ours = make_repo(tmp_path, "ljtui", {"d/only.txt": b"x\n"})
    git_apply(git_root, patch, 1)
    ljtui_apply(ours, parse_unified(text))
    assert not (git_root / "d").exists()
    assert (ours / "d").is_dir() and not any((ours / "d").iterdir())
