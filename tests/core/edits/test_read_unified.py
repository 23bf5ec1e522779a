"""The unified-diff reader on real ``git diff``, ``diff -u`` and ``git format-patch`` output: every block, exactly."""

from __future__ import annotations

from ljtui.core.edits.plan import EXECUTABLE, REGULAR
from ljtui.core.edits.read_unified import parse_unified
from tests.core.edits.read_unified_expect import create, delete, edit, fixture, mode, move
from tests.core.edits.unified_trees import APP_BEFORE, LATIN1_NAME, SPECIAL


def blocks(name: str, **options: object):
    return parse_unified(fixture(name), **options).blocks  # type: ignore[arg-type]


def test_git_modify_reads_each_hunk_with_its_context_and_anchor():
    app_1_old = "\ndef main():\n    args = sys.argv[1:]\n    total = 0\n    for arg in args:\n" \
                "        total += helper(int(arg))\n    print(total)  \t\n"
    app_2_old = "\ndef tail():\n    one = 1\n    two = 2\n    three = 3\n    return one + two + three\n\n"
    assert blocks("git_modify.diff") == (
        edit(1, "README.md", "# Title\n\nSome text.\nMore text.\nLast line.\n",
             "# New title\n\nSome text.\nMore text.\nThe last line.\n",
             header="@@ -1,5 +1,5 @@", line=5, at=(True, True, 1)),
        edit(2, "src/app.py", app_1_old,
             app_1_old.replace("total = 0\n", "total = 0  # running sum\n    seen = []\n"),
             header="@@ -8,7 +8,8 @@ def helper(value):", line=17, at=(False, False, 8), hunks=2,
             where="def helper(value):"),
        edit(3, "src/app.py", app_2_old, app_2_old.replace("two = 2", "two = 22"),
             header="@@ -22,7 +23,7 @@ def unused():", line=27, at=(False, False, 22), hunk=2, hunks=2,
             where="def unused():"),
    )
    assert app_1_old in APP_BEFORE.decode() and app_2_old in APP_BEFORE.decode()


def test_git_create_delete_with_and_without_content():
    assert blocks("git_create_delete.diff") == (
        create(1, "empty_new.txt", "", header="new file mode 100644", line=2, hunk=0),
        delete(2, "empty_old.txt", "", header="deleted file mode 100644", line=5, hunks=0),
        create(3, "new/dir/file.txt", "hello\nworld\n", header="@@ -0,0 +1,2 @@", line=12),
        delete(4, "old.txt", "one\ntwo\n", header="deleted file mode 100644", line=16),
        create(5, "run.sh", "#!/bin/sh\necho hi\n", header="@@ -0,0 +1,2 @@", line=28, mode=EXECUTABLE),
    )


def test_git_rename_is_a_move_then_mode_and_edits_on_the_new_path():
    old = "    return 3\n\ndef f4():\n    return 4\n\ndef f5():\n    return 5\n"
    assert blocks("git_rename.diff") == (
        move(1, "tool.sh", "bin/tool.sh", header="rename from tool.sh", line=5),
        mode(2, "bin/tool.sh", EXECUTABLE, header="new mode 100755", line=3, label="tool.sh → bin/tool.sh"),
        move(3, "docs/guide.md", "docs/manual.md", header="rename from docs/guide.md", line=9),
        move(4, "lib/util.py", "lib/helpers.py", header="rename from lib/util.py", line=13, hunks=1),
        edit(5, "lib/helpers.py", old, old.replace("return 4", "return 40"), header="@@ -8,7 +8,7 @@ def f3():",
             line=18, at=(False, False, 8), where="def f3():", label="lib/util.py → lib/helpers.py"),
    )


def test_git_mode_changes_with_and_without_content():
    assert blocks("git_mode.diff") == (
        mode(1, "build.sh", REGULAR, header="new mode 100644", line=3, hunks=1),
        edit(2, "build.sh", "#!/bin/sh\nmake\n", "#!/bin/sh\nmake all\n", header="@@ -1,2 +1,2 @@", line=7,
             at=(True, True, 1)),
        mode(3, "script.py", EXECUTABLE, header="new mode 100755", line=13),
    )


def test_git_no_newline_marks_take_the_line_break_off_their_side():
    assert blocks("git_no_newline.diff") == (
        edit(1, "a.txt", "x\ny\nz", "x\ny\nz\n", header="@@ -1,3 +1,3 @@", line=5, at=(True, True, 1)),
        edit(2, "b.txt", "1\n2\n3\n", "1\n2\n3", header="@@ -1,3 +1,3 @@", line=15, at=(True, True, 1)),
        edit(3, "c.txt", "p\nq", "p\nQ", header="@@ -1,2 +1,2 @@", line=25, at=(True, True, 1)),
        create(4, "d.txt", "solo", header="@@ -0,0 +1 @@", line=36),
    )


def test_git_crlf_content_keeps_its_carriage_returns():
    assert blocks("git_crlf.diff") == (
        edit(1, "mixed.txt", "lf\ncrlf\r\nlf\n", "lf\nCRLF\r\nlf\n", header="@@ -1,3 +1,3 @@", line=5,
             at=(True, False, 1)),
        edit(2, "tail.txt", "one\r\ntwo", "one\r\nTWO", header="@@ -1,2 +1,2 @@", line=14, at=(True, True, 1)),
        edit(3, "win.txt", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", header="@@ -1,3 +1,3 @@", line=24,
             at=(True, False, 1)),
    )


def test_a_diff_saved_with_crlf_reads_its_headers_and_keeps_its_hunk_lines():
    lines = "".join(f"line {n}\r\n" for n in range(15, 21))
    assert blocks("git_crlf_saved.diff") == (
        edit(1, "long.txt", "line 1\r\nline 2\r\nline 3\r\nline 4\r\nline 5\r\n",
             "line 1\r\nline two\r\nline 3\r\nline 4\r\nline 5\r\n", header="@@ -1,5 +1,5 @@", line=5,
             at=(True, False, 1), hunks=2),
        edit(2, "long.txt", lines, lines.replace("line 18\r\n", ""), header="@@ -15,6 +15,5 @@ line 14", line=12,
             at=(False, False, 15), hunk=2, hunks=2, where="line 14"),
        edit(3, "win.txt", "alpha\r\nbeta\r\ngamma\r\n", "alpha\r\nBETA\r\ngamma\r\n", header="@@ -1,3 +1,3 @@",
             line=23, at=(True, False, 1)),
    )


def test_git_quoted_and_spaced_names():
    assert blocks("git_quoted.diff") == (
        create(1, "new empty.txt", "", header="new file mode 100644", line=2, hunk=0),
        move(2, "old name.txt", "new name.txt", header="rename from old name.txt", line=6),
        edit(3, SPECIAL, "one\n", "two\n", header="@@ -1 +1 @@", line=12, at=(True, True, 1)),
        edit(4, "with space.txt", "a\nb\n", "a\nB\n", header="@@ -1,2 +1,2 @@", line=19, at=(True, True, 1)),
    )


def test_bytes_that_are_not_utf8_stay_lone_surrogates_in_names_and_content():
    assert blocks("git_latin1.diff") == (
        edit(1, LATIN1_NAME, "old\n", "new\n", header="@@ -1 +1 @@", line=5, at=(True, True, 1)),
        edit(2, "latin1.txt", "caf\udce9\nna\udcefve\n", "caf\udce9s\nna\udcefve\n", header="@@ -1,2 +1,2 @@",
             line=12, at=(True, False, 1)),
    )


def test_git_show_reads_the_diff_after_the_commit_message_and_diffstat():
    old = "".join(f"{n}\n" for n in range(1, 11))
    new = "".join(f"{n}\n" for n in range(100, 113))
    assert blocks("git_show.diff") == (
        edit(1, "a.txt", old, new, header="@@ -1,10 +1,13 @@", line=18, at=(True, True, 1)),
        edit(2, "k.txt", "keep\n", "keep2\n", header="@@ -1 +1 @@", line=46, at=(True, True, 1)),
    )


def test_format_patch_series_one_entry_per_commit_and_file():
    first, second, third = ("Add the greeting module",
                            "Document greet() and end its greeting with an exclamation mark, which makes this"
                            " subject long enough to fold",
                            "Gr\u00fc\u00dfe: rename greet to hello")
    greet_1 = 'def greet(name):\n    return "Hello, " + name\n\n\ndef shout(name):\n'
    greet_2 = 'def greet(name):\n    """Greet someone."""\n    return "Hello, " + name + "!"\n\n\ndef shout(name):\n'
    hello_old = greet_2 + "    return greet(name).upper()\n"
    mbox = {"fmt": "mbox"}
    assert blocks("mbox_series.patch") == (
        edit(1, "README.md", "# Series\n\nA project.\n", "# Series\n\nA project.\n\nSee greet.py.\n",
             header="@@ -1,3 +1,5 @@", line=18, at=(True, True, 1), commit=first, **mbox),
        create(2, "greet.py", greet_1 + "    return greet(name).upper()\n", header="@@ -0,0 +1,6 @@", line=29,
               commit=first, **mbox),
        edit(3, "greet.py", greet_1, greet_2, header="@@ -1,5 +1,6 @@", line=56, at=(True, False, 1),
             entry="greet.py@2", commit=second, **mbox),
        edit(4, "README.md", "\nA project.\n\nSee greet.py.\n", "\nA project.\n\nSee hello.py.\n",
             header="@@ -2,4 +2,4 @@", line=89, at=(False, True, 2), entry="README.md@2", commit=third, **mbox),
        move(5, "greet.py", "hello.py", header="rename from greet.py", line=97, hunks=1, commit=third, **mbox),
        edit(6, "hello.py", hello_old, hello_old.replace("greet(", "hello("), header="@@ -1,7 +1,7 @@", line=102,
             at=(True, True, 1), label="greet.py → hello.py", commit=third, **mbox),
    )
    plan = parse_unified(fixture("mbox_series.patch"))
    assert plan.entry_ids == ("README.md", "greet.py", "greet.py@2", "README.md@2", "hello.py")


def test_diff_u_of_one_file_names_the_plus_path_unstripped():
    assert blocks("unified_file.diff") == (
        edit(1, "greeting.txt", "Hello\nWorld\n", "Hello\nthere\nWorld\n", header="@@ -1,2 +1,3 @@", line=3,
             at=(True, False, 1), fmt="unified"),
    )


def test_diff_urn_epoch_sides_create_and_delete():
    main_1 = "\nint f2(void)\n{\n\treturn 2;\n}\n\nint f3(void)\n"
    main_2 = "\nint f6(void)\n{\n\treturn 6;\n}\n\n"
    plain = {"fmt": "unified"}
    assert blocks("unified_tree.diff") == (
        edit(1, "notes.txt", "first\nlast", "first\nlast\n", header="@@ -1,2 +1,2 @@", line=4, at=(True, True, 1),
             **plain),
        delete(2, "old.txt", "obsolete\nfile\n", header="+++ b/old.txt\t1969-12-31 19:00:00.000000000 -0500",
               line=11, **plain),
        edit(3, "src/main.c", main_1, main_1.replace("2;", "20;"), header="@@ -5,7 +5,7 @@ int f1(void)", line=18,
             at=(False, False, 5), hunks=2, where="int f1(void)", **plain),
        edit(4, "src/main.c", main_2, main_2.replace("6;", "60;"), header="@@ -25,6 +25,6 @@ int f5(void)",
             line=27, at=(False, False, 25), hunk=2, hunks=2, where="int f5(void)", **plain),
        create(5, "src/new.h", "#pragma once\nint f1(void);\n", header="@@ -0,0 +1,2 @@", line=38, **plain),
    )


def test_diff_ur_only_in_lines_are_ignored_and_other_prefixes_kept():
    expected = edit(1, "new/file.txt", "keep\nchange me\nkeep\n", "keep\nchanged\nkeep\n", header="@@ -1,3 +1,3 @@",
                    line=5, at=(True, False, 1), fmt="unified")
    assert blocks("unified_only_in.diff") == (expected,)
    stripped = blocks("unified_only_in.diff", strip=1)
    assert [(b.file, b.entry, b.source.file) for b in stripped] == [("file.txt", "file.txt", "file.txt")]


def test_explicit_strip_on_git_names():
    text = fixture("git_modify.diff").replace("README.md", "doc/README.md")
    assert [b.file for b in parse_unified(text, strip=2).blocks] == ["README.md", "app.py", "app.py"]
    assert [b.file for b in parse_unified(text, strip=0).blocks] == ["b/doc/README.md", "b/src/app.py",
                                                                     "b/src/app.py"]


def test_explicit_strip_on_rename_lines_removes_one_less():
    text = fixture("git_rename.diff")
    lib = text[text.index("diff --git a/lib/"):].replace("lib/", "pkg/lib/")
    assert [(b.action, b.moved_from, b.file) for b in parse_unified(lib, strip=2).blocks] == [
        ("move", "lib/util.py", "lib/helpers.py"), ("edit", None, "lib/helpers.py")]
