"""Reading Aider SEARCH/REPLACE blocks: the exact blocks, entries and sources of every fixture, and every error.

Fixtures in ``aider/``: ``prompt_*`` are the example replies of Aider's ``editblock_prompts.py`` (``diff``)
and ``editblock_fenced_prompts.py`` (``diff-fenced``, with its stray ``<<<<<<< HEAD`` line), fences
written as ```` ``` ````; ``test_*`` are the replies of Aider's ``tests/basic/test_editblock.py``; the
others are edge cases of the grammar.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.edits import errors as E
from ljtui.core.edits.plan import CREATE, EDIT, BlockSource, EditBlock, EditPlan, PlanParseError
from ljtui.core.edits.read_aider import parse_aider, strip_filename

FIXTURES = Path(__file__).parent / "aider"
APP = "mathweb/flask/app.py"
FACTORIAL = 'def factorial(n):\n    "compute factorial"\n\n    if n == 0:\n        return 1\n    else:\n' \
            "        return n * factorial(n-1)\n\n"
HELLO = 'def hello():\n    "print a greeting"\n\n    print("hello")\n'


def read(name: str) -> str:
    """A fixture's text, decoded as ljtui decodes a change."""
    return (FIXTURES / f"{name}.md").read_bytes().decode("utf-8", "surrogateescape")


def parse(name: str) -> EditPlan:
    return parse_aider(read(name))


def block(number: int, file: str, old: str, new: str, line: int, hunk: int = 1, hunks: int = 1, *,
          entry: str | None = None, header: str = "<<<<<<< SEARCH") -> EditBlock:
    """The block the reader must produce: CREATE when ``old`` is empty."""
    source = BlockSource("aider", file, hunk, hunks, header, None, line)
    return EditBlock(number, file, None, entry or file, old, new, line=line, action=EDIT if old else CREATE,
                     source=source)


def errors(text: str) -> list[tuple[str, int | None, str, str | None]]:
    with pytest.raises(PlanParseError) as info:
        parse_aider(text)
    return [(e.kind, e.block, e.message, e.file) for e in info.value.errors]


# --- Aider's own examples ------------------------------------------------------

@pytest.mark.parametrize("name", ["prompt_diff_factorial", "prompt_fenced_factorial"])
def test_prompt_factorial_three_blocks_one_entry(name):
    plan = parse(name)
    assert plan.blocks == (
        block(1, APP, "from flask import Flask\n", "import math\nfrom flask import Flask\n", 11, 1, 3),
        block(2, APP, FACTORIAL, "", 21, 2, 3),
        block(3, APP, "    return str(factorial(n))\n", "    return str(math.factorial(n))\n", 36, 3, 3),
    )
    assert plan.entry_ids == (APP,)


@pytest.mark.parametrize("name", ["prompt_diff_hello", "prompt_fenced_hello"])
def test_prompt_hello_creates_a_file_and_edits_another(name):
    assert parse(name).blocks == (
        block(1, "hello.py", "", HELLO, 10),
        block(2, "main.py", HELLO, "from hello import hello\n", 21),
    )


@pytest.mark.parametrize(("name", "expected"), [
    ("test_basic", [("foo.txt", "Two\n", "Tooooo\n", 6)]),
    ("test_quote_below_filename", [("foo.txt", "Two\n", "Tooooo\n", 6)]),
    ("test_deepseek_mangling", [("foo.txt", "one\n", "two\n", 8)]),
    ("test_csharp", [("Program.cs", 'Console.WriteLine("Hello World!");\n',
                      'Console.WriteLine("Hello, C# World!");\n', 6)]),
    ("test_new_file_same_folder", [("path/to/a/file2.txt", "", "three\n", 6),
                                   ("path/to/a/file1.txt", "one\n", "two\n", 16)]),
    ("test_create_new_file", [("newfile.txt", "", "creating a new file\n", 5)]),
    ("test_full_edit", [("file1.txt", "two\n", "new\n", 5)]),
])
def test_aider_test_replies(name, expected):
    assert parse(name).blocks == tuple(block(n, f, old, new, line) for n, (f, old, new, line) in
                                       enumerate(expected, 1))


def test_aider_multiple_blocks_of_one_file_reuse_its_name():
    assert parse("test_multiple_same_file").blocks == (
        block(1, "foo.txt", "one\n", "two\n", 6, 1, 2), block(2, "foo.txt", "three\n", "four\n", 14, 2, 2))
    plan = parse("test_incomplete_missing_filename")
    repomap = "tests/test_repomap.py"
    assert [(b.file, b.entry, b.line, b.source.hunk) for b in plan.blocks] == [(repomap, repomap, 6, 1),
                                                                               (repomap, repomap, 16, 2)]
    assert plan.blocks[1].old.endswith('  "kind": "variable"\n}\'\'\')\n')
    assert plan.blocks[1].new.endswith('  "kind": "variable"\n}\'\'\'\n')


def test_aider_reply_without_final_line_break():
    plan = parse("test_no_final_newline")
    assert [(b.line, b.source.hunk, b.source.hunks) for b in plan.blocks] == [(3, 1, 4), (10, 2, 4), (19, 3, 4),
                                                                               (26, 4, 4)]
    assert plan.blocks[3] == block(4, "aider/coder.py", '            self.console.print("[red]Skipped commit.")\n',
                                   '            self.io.tool_error("Skipped commit.")\n', 26, 4, 4)
    assert plan.blocks[2].old.endswith('try again.\\n")\n')


def test_sh_fence_followed_by_a_block_is_a_block():
    (only,) = parse("test_sh_language").blocks
    assert (only.file, only.action, only.old, only.line) == ("test_hello.sh", CREATE, "", 6)
    assert only.new.startswith("#!/bin/bash\n# Check if exactly") and only.new.endswith('echo "$1"\n\nexit 0\n')


# --- the grammar's edge cases --------------------------------------------------

def test_unfenced_blocks_of_two_files():
    plan = parse("unfenced")
    assert plan.blocks == (
        block(1, "src/config.py", "TIMEOUT = 30\n", "TIMEOUT_SECONDS = 30\n", 4),
        block(2, "src/client.py", "from src.config import TIMEOUT\n", "from src.config import TIMEOUT_SECONDS\n",
              11, 1, 2),
        block(3, "src/client.py", "    return fetch(url, timeout=TIMEOUT)\n",
              "    return fetch(url, timeout=TIMEOUT_SECONDS)\n", 18, 2, 2),
    )
    assert plan.entry_ids == ("src/config.py", "src/client.py")


def test_diff_fenced_later_run_of_a_file_is_a_second_entry():
    plan = parse("diff_fenced")
    assert plan.blocks == (
        block(1, "app/models.py", "from dataclasses import dataclass\n", "from dataclasses import dataclass, field\n",
              5, 1, 2),
        block(2, "app/views.py", "def show(user):\n    return user.name\n",
              'def show(user):\n    return f"{user.name} <{user.email}>"\n', 14),
        block(3, "app/models.py", "    name: str\n", '    name: str\n    email: str = field(default="")\n', 25, 2, 2,
              entry="app/models.py@2"),
    )
    assert plan.entry_ids == ("app/models.py", "app/views.py", "app/models.py@2")


def test_markers_of_five_and_nine_characters_and_search_tag():
    assert parse("markers").blocks == (
        block(1, "notes.txt", "alpha\n", "ALPHA\n", 5, 1, 2, header="<<<<< SEARCH"),
        block(2, "notes.txt", "<<<< SEARCH\n==========\nomega\n", "<<<< SEARCH\n==========\nOMEGA\n", 14, 2, 2,
              header="<<<<<<<<< SEARCH"),
        block(3, "page.html", "<h1>Title</h1>\n", "<h1>New title</h1>\n", 27, header="<<<<<<< SEARCH>"),
    )


@pytest.mark.parametrize("marks", [4, 10])
def test_four_or_ten_marker_characters_are_no_block(marks):
    text = f"a.py\n{'<' * marks} SEARCH\nx\n{'=' * marks}\ny\n{'>' * marks} REPLACE\n"
    assert errors(text)[0][0] == "NoBlocks"


def test_filename_forms():
    names = ["one", "two", "three", "four", "five", "six", "seven"]
    lines = [5, 14, 23, 31, 40, 49, 58]
    assert parse("filename_forms").blocks == tuple(
        block(n, f"src/{name}.py", f"{name} = {n}\n", f"{name} = {n}.0\n", line)
        for n, (name, line) in enumerate(zip(names, lines), 1))


@pytest.mark.parametrize(("line", "name"), [
    ("a.py\n", "a.py"), ("  src/a b.py  \r\n", "src/a b.py"), ("# a.py", "a.py"), ("## `a.py`", "a.py"),
    ("**a.py**", "a.py"), ("`a.py`:", "a.py"), ("**a.py**:", "a.py"), ("```a.py", "a.py"), ("````dir/a", "dir/a"),
    ("<source>a.py", "a.py"), ("```python", None), ("```", None), ("<source>python", None), ("...", None),
    ("", None), ("  \n", None), ("#", None), ("**", None), (">>>>>>> REPLACE\n", None), ("=======", None),
    ("Makefile", "Makefile"),
])
def test_strip_filename(line, name):
    assert strip_filename(line) == name


def test_name_with_a_dot_wins_over_the_fence_line_name():
    text = "notes\n```src/a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    assert parse_aider(text).blocks[0].file == "src/a.py"
    text = "src/a.py\n```dir/b\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    assert parse_aider(text).blocks[0].file == "src/a.py"


def test_prose_right_before_the_block_is_its_name_as_in_aider():
    text = "Fix it:\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
    assert parse_aider(text).blocks[0].file == "Fix it"


def test_reused_name_after_a_closing_marker_and_after_a_blank_line():
    plan = parse("reused_name")
    assert plan.blocks == (
        block(1, "src/util.py", "def a():\n    return 1\n", "def a():\n    return 2\n", 5, 1, 3),
        block(2, "src/util.py", "def b():\n    return 1\n", "def b():\n    return 2\n", 12, 2, 3),
        block(3, "src/util.py", "def c():\n    return 1\n", "def c():\n    return 2\n", 22, 3, 3),
    )
    assert plan.entry_ids == ("src/util.py",)


def test_new_files_empty_and_whitespace_only_search():
    assert parse("new_file").blocks == (
        block(1, "pkg/__init__.py", "", "", 5),
        block(2, "pkg/greet.py", "", 'def greet(name):\n    return f"Hello, {name}!"\n', 12),
    )


def test_empty_replace_deletes_text():
    assert parse("deletion").blocks == (
        block(1, "tools/debug.py", "def dump(x):\n    print(repr(x))\n\n", "", 5, 1, 2),
        block(2, "tools/debug.py", "DEBUG = True\n", "", 15, 2, 2),
    )


def test_unicode_path_and_content():
    old, new = "# Résumé\nHello wörld — 你好 🌍\n", "# Résumé\nBonjour le monde — 你好 🌍\n"
    assert parse("unicode").blocks == (block(1, "docs/café/résumé.md", old, new, 5),)


def test_crlf_reply_keeps_carriage_returns_in_content():
    assert b"\r\n" in (FIXTURES / "crlf.md").read_bytes()
    assert parse("crlf").blocks == (
        block(1, "win/setup.bat", "@echo off\r\nset MODE=debug\r\n", "@echo off\r\nset MODE=release\r\n", 5),)


def test_bytes_kept_as_written():
    text = "a.py\n<<<<<<< SEARCH\n\tx = 1  \nlone\rcr\n\udcff\xa0\n=======\n\ty = 2\t\r\n>>>>>>> REPLACE\n"
    (only,) = parse_aider(text).blocks
    assert (only.old, only.new) == ("\tx = 1  \nlone\rcr\n\udcff\xa0\n", "\ty = 2\t\r\n")


def test_shell_fences_are_skipped_and_end_a_name_search():
    plan = parse("shell_commands")
    assert plan.blocks == (
        block(1, "scripts/run.sh", "", "#!/bin/sh\necho run\n", 5, 1, 2),
        block(2, "scripts/run.sh", "echo run\n", "echo ran\n", 20, 2, 2),
    )


def test_unclosed_shell_fence_swallows_the_rest():
    text = "```bash\nmake\nmake test\n\na.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
    assert errors(text) == [("NoBlocks", None, "the text holds no SEARCH/REPLACE block (`<<<<<<< SEARCH`, "
                                                "`=======`, `>>>>>>> REPLACE`)", None)]


def test_second_divider_ends_a_block_and_prose_dividers_are_ignored():
    assert parse("divider_close").blocks == (block(1, "config.ini", "debug = false\n", "debug = true\n", 4),)
    assert parse("prose_markers").blocks == (block(1, "bug.py", "for i in range(1, n):\n", "for i in range(n):\n", 9),)


def test_blocks_are_numbered_over_the_whole_text_and_hunks_counted_per_file():
    text = "".join(f"{f}\n<<<<<<< SEARCH\n{n}\n=======\n{n}!\n>>>>>>> REPLACE\n\n"
                   for n, f in enumerate(["a.py", "a.py", "b.py", "a.py", "b.py"], 1))
    plan = parse_aider(text)
    assert [(b.number, b.file, b.entry, b.source.hunk, b.source.hunks) for b in plan.blocks] == [
        (1, "a.py", "a.py", 1, 3), (2, "a.py", "a.py", 2, 3), (3, "b.py", "b.py", 1, 2), (4, "a.py", "a.py@2", 3, 3),
        (5, "b.py", "b.py@2", 2, 2)]
    assert plan.entry_ids == ("a.py", "b.py", "a.py@2", "b.py@2")


# --- errors --------------------------------------------------------------------

def test_unclosed_block_like_aider():
    assert errors(read("test_unclosed")) == [
        ("MalformedPatch", 1, "line 8: the `=======` of the block on line 6 has no `>>>>>>> REPLACE` before the end "
                              "of the text", "foo.txt")]


def test_first_block_without_file_name_like_aider():
    assert errors(read("test_missing_filename")) == [
        ("MalformedPatch", 1, "line 5: `<<<<<<< SEARCH` has no file name: the path must be alone on the line before "
                              "it or before its opening fence", None)]


def test_search_without_divider_at_the_end_of_the_text():
    assert errors(read("err_search_eof")) == [
        ("MalformedPatch", 1, "line 2: the SEARCH section has no `=======` before the end of the text", "a.py")]


def test_search_ended_by_replace_marker():
    assert errors(read("err_search_no_divider")) == [
        ("MalformedPatch", 1, "line 3: the SEARCH section has no `=======`: `>>>>>>> REPLACE` on line 5 ends it first",
         "a.py")]


def test_blocks_cut_short_by_the_next_block():
    assert errors(read("err_cut_by_next_block")) == [
        ("MalformedPatch", 1, "line 2: the SEARCH section has no `=======` before the next `<<<<<<< SEARCH` on line 6",
         "a.py"),
        ("MalformedPatch", 2, "line 8: the `=======` of the block on line 6 has no `>>>>>>> REPLACE` before the next "
                              "`<<<<<<< SEARCH` on line 12", "b.py"),
    ]


def test_stray_closing_markers():
    assert errors(read("err_stray_markers")) == [
        ("MalformedPatch", None, "line 6: `>>>>>>> REPLACE` ends a block that has no `<<<<<<< SEARCH` (its `=======` "
                                 "is on line 4)", None),
        ("MalformedPatch", None, "line 10: `>>>>>>> REPLACE` outside any block: no `<<<<<<< SEARCH` and `=======` "
                                 "come before it", None),
        ("MalformedPatch", None, "line 19: `>>>>>>> REPLACE` ends no block: the block on line 13 was already ended by "
                                 "the second `=======` on line 17 (a REPLACE section cannot hold a `=======` line)",
         None),
    ]


def test_every_block_without_a_name_is_reported():
    text = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n"
    assert [(kind, number, message[:8]) for kind, number, message, _ in errors(text)] == [
        ("MalformedPatch", 1, "line 1: "), ("MalformedPatch", 2, "line 7: ")]


def test_nul_in_file_name():
    text = "a\0b.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
    assert errors(text) == [("MalformedPatch", 1, "line 1: the file name 'a\\x00b.py' holds a NUL character", None)]


@pytest.mark.parametrize("text", ["", "\n", "Just prose.\n", "Title\n=======\n\ntext\n"])
def test_no_blocks(text):
    assert errors(text) == [("NoBlocks", None, "the text holds no SEARCH/REPLACE block (`<<<<<<< SEARCH`, "
                                               "`=======`, `>>>>>>> REPLACE`)", None)]


def test_no_blocks_fixture_with_markers_inside_a_shell_fence():
    assert [kind for kind, *_ in errors(read("no_blocks"))] == ["NoBlocks"]


def test_errors_are_edit_errors():
    with pytest.raises(PlanParseError) as info:
        parse_aider(read("err_cut_by_next_block"))
    assert all(isinstance(e, E.MalformedPatch) for e in info.value.errors)
