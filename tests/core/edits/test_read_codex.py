"""Reading Codex ``apply_patch`` envelopes (``ljtui.core.edits.read_codex``): the blocks and the errors.

Fixtures are in ``tests/core/edits/codex/``. From openai/codex, ``codex-rs/apply-patch/``:

* ``tests/fixtures/scenarios/*/patch.txt``: add_file (001_add_file), multiple_operations (002),
  multiple_chunks (003), move_to_new_directory (004), rejects_empty_patch (005),
  rejects_empty_update_hunk (008), rejects_invalid_hunk_header (013), no_final_newline (014),
  pure_addition (016), padded_hunk_header (017), padded_patch_markers (018), unicode_simple (019),
  delete_file (020_delete_file_success), padded_marker_lines (020_whitespace_padded_patch_marker_lines),
  deletion_only (021), end_of_file_marker (022);
* ``src/parser.rs`` tests: parser_operations (``test_parse_patch``), update_without_at and heredoc
  (``test_parse_patch_lenient``), seven_operations (``test_parse_patch_streaming_large_patch_by_character``);
* ``apply_patch_tool_instructions.md``: docs_example.

The others (context_at, nested_context, append_at_end, context_and_end, crlf, several_files,
heredoc_shell, unicode) are ljtui's own. What the blocks write is in ``test_read_codex_apply.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.edits.plan import CREATE, DELETE, EDIT, MOVE, BlockSource, EditBlock, HunkAnchor, PlanParseError
from ljtui.core.edits.read_codex import parse_codex

CODEX = Path(__file__).parent / "codex"
B, Z = "*** Begin Patch\n", "*** End Patch\n"


def fixture(name: str) -> str:
    """A fixture's text, decoded as ljtui decodes a patch."""
    return (CODEX / f"{name}.patch").read_bytes().decode("utf-8", "surrogateescape")


def blk(n: int, action: str, file: str, line: int, source: BlockSource, old: str = "", new: str = "", *,
        entry: str | None = None, where: str | None = None, anchor: HunkAnchor | None = None,
        moved_from: str | None = None) -> EditBlock:
    return EditBlock(n, file, where, entry or file, old, new, line=line, action=action, moved_from=moved_from,
                     anchor=anchor, source=source)


def add(n: int, file: str, line: int, new: str, entry: str | None = None) -> EditBlock:
    return blk(n, CREATE, file, line, BlockSource("codex", file, 0, 0, f"*** Add File: {file}", line=line), new=new,
               entry=entry)


def delete(n: int, file: str, line: int, entry: str | None = None) -> EditBlock:
    return blk(n, DELETE, file, line, BlockSource("codex", file, 0, 0, f"*** Delete File: {file}", line=line),
               entry=entry)


def move(n: int, old: str, new: str, line: int, hunks: int) -> EditBlock:
    source = BlockSource("codex", f"{old} → {new}", 0, hunks, f"*** Move to: {new}", line=line)
    return blk(n, MOVE, new, line, source, moved_from=old)


def hunk(n: int, file: str, line: int, old: str, new: str, k: int = 1, of: int = 1, header: str = "@@",
         label: str | None = None, **kw: object) -> EditBlock:
    return blk(n, EDIT, file, line, BlockSource("codex", label or file, k, of, header, line=line), old, new, **kw)


def after(text: str) -> HunkAnchor:
    return HunkAnchor(after=text)


def errors(text: str) -> list[tuple[str, str | None, str]]:
    with pytest.raises(PlanParseError) as info:
        parse_codex(text)
    return [(e.kind, e.file, e.message) for e in info.value.errors]


PARSED = {
    "add_file": (add(1, "bar.md", 2, "This is a new file\n"),),
    "multiple_operations": (add(1, "nested/new.txt", 2, "created\n"), delete(2, "delete.txt", 4),
                            hunk(3, "modify.txt", 6, "line2\n", "changed\n")),
    "multiple_chunks": (hunk(1, "multi.txt", 3, "line2\n", "changed2\n", 1, 2),
                        hunk(2, "multi.txt", 6, "line4\n", "changed4\n", 2, 2)),
    "move_to_new_directory": (move(1, "old/name.txt", "renamed/dir/name.txt", 3, 1),
                              hunk(2, "renamed/dir/name.txt", 4, "old content\n", "new content\n",
                                   label="old/name.txt → renamed/dir/name.txt")),
    "no_final_newline": (hunk(1, "no_newline.txt", 3, "no newline at end\n", "first line\nsecond line\n"),),
    "padded_hunk_header": (hunk(1, "foo.txt", 3, "old\n", "new\n"),),
    "padded_patch_markers": (hunk(1, "file.txt", 3, "one\n", "two\n"),),
    "padded_marker_lines": (hunk(1, "file.txt", 3, "one\n", "two\n"),),
    "unicode_simple": (hunk(1, "foo.txt", 3, "line1\nnaïve café\n", "line1\nnaïve café ✅\n"),),
    "delete_file": (delete(1, "obsolete.txt", 2),),
    "deletion_only": (hunk(1, "lines.txt", 3, "line1\nline2\nline3\n", "line1\nline3\n"),),
    "end_of_file_marker": (hunk(1, "tail.txt", 3, "first\nsecond\n", "first\nsecond updated\n",
                                anchor=HunkAnchor(at_end=True)),),
    "parser_operations": (add(1, "path/add.py", 2, "abc\ndef\n"), delete(2, "path/delete.py", 5),
                          move(3, "path/update.py", "path/update2.py", 7, 1),
                          hunk(4, "path/update2.py", 8, "    pass\n", "    return 123\n", header="@@ def f():",
                               label="path/update.py → path/update2.py", where="def f():", anchor=after("def f():"))),
    "update_without_at": (hunk(1, "file2.py", 3, "import foo\n", "import foo\nbar\n", header=""),),
    "heredoc": (hunk(1, "file2.py", 4, "import foo\n", "import foo\nbar\n", header=""),),
    "docs_example": (add(1, "hello.txt", 2, "Hello world\n"), move(2, "src/app.py", "src/main.py", 5, 1),
                     hunk(3, "src/main.py", 6, 'print("Hi")\n', 'print("Hello, world!")\n', header="@@ def greet():",
                          label="src/app.py → src/main.py", where="def greet():", anchor=after("def greet():")),
                     delete(4, "obsolete.txt", 9)),
    "context_at": (hunk(1, "funcs.py", 3, "    return 1\n", "    return 2\n", header="@@ def b():", where="def b():",
                        anchor=after("def b():")),),
    "nested_context": (hunk(1, "shapes.py", 3, "        self.value = 1\n        return self.value\n",
                            "        self.value = 2\n        return self.value\n",
                            header="@@ class Child(Base): @@     def run(self):",
                            where="class Child(Base): › def run(self):", anchor=after("def run(self):")),),
    "append_at_end": (hunk(1, "log.txt", 3, "", "third\nfourth\n", anchor=HunkAnchor(at_end=True)),),
    "context_and_end": (hunk(1, "notes.md", 3, "- old item\n", "- new item\n", header="@@ ## Done", where="## Done",
                             anchor=HunkAnchor(at_end=True, after="## Done")),),
    "several_files": (
        hunk(1, "app/core.py", 3, "\n    return None\n", "\n    return read()\n", 1, 2, "@@ def load():",
             where="def load():", anchor=after("def load():")),
        hunk(2, "app/core.py", 7, "    path = target()\n    write(path)\n",
             "    path = target()\n    write(path, data)\n", 2, 2, "@@ def save():", where="def save():",
             anchor=after("def save():")),
        add(3, "app/util.py", 11, "def read():\n    return 1\n"),
        hunk(4, "app/core.py", 15, "import os\n", "import os, sys\n", entry="app/core.py@2"),
        move(5, "app/old_name.py", "app/new_name.py", 19, 1),
        hunk(6, "app/new_name.py", 21, "    pass\n", "    size = 1\n", header="@@ class Thing:",
             label="app/old_name.py → app/new_name.py", where="class Thing:", anchor=after("class Thing:"))),
    "heredoc_shell": (add(1, "greeting.txt", 3, "hi\n"),),
    "unicode": (hunk(1, "i18n/strings.txt", 3, "挨拶 = こんにちは\n", "挨拶 = こんばんは 🌙\n", header="@@ [日本語]",
                     where="[日本語]", anchor=after("[日本語]")),
                add(2, "i18n/ελληνικά.txt", 6, "καλημέρα\n")),
}


@pytest.mark.parametrize("name", sorted(PARSED))
def test_fixture_blocks(name: str) -> None:
    assert parse_codex(fixture(name)).blocks == PARSED[name]


def test_seven_operations_match_codex_hunks() -> None:
    """The hunks Codex's own test expects, one block each; the rename first, on the new path."""
    plan = parse_codex(fixture("seven_operations"))
    got = [(b.action, b.file, b.entry, b.old, b.new, b.where, b.line) for b in plan.blocks]
    assert got == [
        (CREATE, "docs/release-notes.md", "docs/release-notes.md", "", "# Release notes\n\n## CLI\n- Surface "
         "apply_patch progress while arguments stream.\n- Keep final patch application gated on the completed "
         "tool call.\n- Include file summaries in the progress event payload.\n", None, 2),
        (EDIT, "src/config.rs", "src/config.rs", "    pub apply_patch_progress: bool,\n    pub include_diagnostics: "
         "bool,\n", "    pub stream_apply_patch_progress: bool,\n    pub include_diagnostics: bool,\n",
         "impl Config", 10),
        (EDIT, "src/config.rs", "src/config.rs", "    Duration::from_millis(500)\n", "    Duration::from_millis(250)\n",
         "fn default_progress_interval()", 14),
        (DELETE, "src/legacy_patch_progress.rs", "src/legacy_patch_progress.rs", "", "", None, 17),
        (MOVE, "crates/cli/src/bin/codex.rs", "crates/cli/src/bin/codex.rs", "", "", None, 19),
        (EDIT, "crates/cli/src/bin/codex.rs", "crates/cli/src/bin/codex.rs", "    let args = Args::parse();\n"
         "    dispatch(args)\n", "    let cli = Cli::parse();\n    dispatch(cli)\n", "fn run()", 20),
        (CREATE, "tests/fixtures/apply_patch_progress.json", "tests/fixtures/apply_patch_progress.json", "",
         '{\n  "type": "apply_patch_progress",\n  "hunks": [\n    { "operation": "add", "path": "docs/release-notes.md"'
         ' },\n    { "operation": "update", "path": "src/config.rs" }\n  ]\n}\n', None, 25),
        (EDIT, "README.md", "README.md", "Build the Rust workspace before opening a pull request.\n",
         "Build the Rust workspace before opening a pull request.\nWhen touching streamed tool calls, include parser "
         "coverage for partial input.\nPrefer tests that exercise the exact event payload shape.\n",
         "Development workflow", 34),
        (DELETE, "docs/old-apply-patch-progress.md", "docs/old-apply-patch-progress.md", "", "", None, 38),
    ]
    assert plan.blocks[4].moved_from == "crates/cli/src/main.rs"
    assert [(b.source.hunk, b.source.hunks, b.source.header) for b in plan.blocks[1:3]] == [
        (1, 2, "@@ impl Config"), (2, 2, "@@ fn default_progress_interval()")]


def test_crlf_lines_keep_their_carriage_returns() -> None:
    """Markers read through the ``\\r``; content lines keep it, so a CRLF file matches byte for byte."""
    assert parse_codex(fixture("crlf").replace("\n", "\r\n")).blocks == (
        add(1, "new.ini", 2, "[new]\r\na=1\r\n"),
        hunk(2, "win.ini", 6, "key=1\r\nvalue=old\r\n", "key=1\r\nvalue=new\r\n", header="@@ [b]", where="[b]",
             anchor=after("[b]")))
    text = B + "*** Update File: a.txt\r\n@@ c\r\n x\r\n\r\n-y\r\n*** End of File\r\n" + Z
    assert parse_codex(text).blocks == (hunk(1, "a.txt", 3, "x\r\n\r\ny\r\n", "x\r\n\r\n", header="@@ c", where="c",
                                             anchor=HunkAnchor(at_end=True, after="c")),)


def test_lenient_layout() -> None:
    """Blank lines before a hunk, a whitespace line ending one, ``@@ `` as bare ``@@``, padded markers."""
    text = B + "*** Update File: a.txt\n\n\n@@\n-x\n+y\n\t\n@@ \n-z\n+w\n*** End of File   \n" + Z
    assert parse_codex(text).blocks == (hunk(1, "a.txt", 5, "x\n", "y\n", 1, 2),
                                        hunk(2, "a.txt", 9, "z\n", "w\n", 2, 2, anchor=HunkAnchor(at_end=True)))
    text = B + "*** Update File: a.txt\n  *** Move to: b.txt\n@@\n *** End Patch\n-a\n" + Z
    assert parse_codex(text).blocks == (move(1, "a.txt", "b.txt", 3, 1),
                                        hunk(2, "b.txt", 4, "*** End Patch\na\n", "*** End Patch\n",
                                             label="a.txt → b.txt"))
    assert parse_codex("\n\n  " + B + "*** Delete File: x\n" + Z + "\n\n").blocks == (delete(1, "x", 4),)
    assert parse_codex(B + "*** Add File: e\n" + Z).blocks == (add(1, "e", 2, ""),)


@pytest.mark.parametrize("opener", ["<<EOF", "<<'EOF'", '<<"EOF"'])
def test_heredoc_forms(opener: str) -> None:
    assert parse_codex(f"{opener}\n{B}*** Delete File: x\n{Z}EOF\n").blocks == (delete(1, "x", 3),)


def test_bytes_are_kept() -> None:
    """Lone surrogates (undecodable bytes), form feeds and U+2028 are content, not line breaks."""
    raw = b"*** Begin Patch\n*** Update File: f\n@@\n-caf\xe9\x0cx\xe2\x80\xa8y\n+ok\n*** End Patch\n"
    (block,) = parse_codex(raw.decode("utf-8", "surrogateescape")).blocks
    assert (block.old, block.new) == ("caf\udce9\x0cx\u2028y\n", "ok\n")


def test_a_path_named_again_is_a_new_entry() -> None:
    plan = parse_codex(B + "*** Add File: x\n+1\n*** Update File: x\n@@\n-1\n+2\n*** Delete File: x\n" + Z)
    assert [(b.entry, b.action) for b in plan.blocks] == [("x", CREATE), ("x@2", EDIT), ("x@3", DELETE)]
    assert plan.entry_ids == ("x", "x@2", "x@3")


HEADERS = "(Codex knows '*** Add File: ', '*** Delete File: ', '*** Update File: ', '*** Move to: ', " \
          "'*** End of File' and '*** End Patch')"
BLANK = "a blank line between file operations (Codex reads only '*** Add File: ', '*** Delete File: ' or " \
        "'*** Update File: ' there)"
PREFIX = "starts with none of ' ' (context), '-' (removed), '+' (added)"
ABSOLUTE = "is an absolute path; a Codex patch names files relative to the working directory"
UNANCHORED = "only adds lines, with no context line, removed line or '*** End of File' to place them by (Codex " \
             "would append them at the end of the file)"
M, U, N = "MalformedPatch", "UnanchoredHunk", "NoBlocks"


@pytest.mark.parametrize(("text", "expected"), [
    ("", [(N, None, "the text is empty: a Codex patch runs from '*** Begin Patch' to '*** End Patch'")]),
    (" \n\t\n", [(N, None, "the text is empty: a Codex patch runs from '*** Begin Patch' to '*** End Patch'")]),
    (fixture("rejects_empty_patch"),
     [(N, None, "the patch holds no file operation between '*** Begin Patch' and '*** End Patch'")]),
    ("bad", [(M, None, "line 1: a Codex patch starts with '*** Begin Patch', not 'bad'"),
             (M, None, "line 1: a Codex patch ends with '*** End Patch', not 'bad'")]),
    (B + "bad", [(M, None, "line 2: a Codex patch ends with '*** End Patch', not 'bad'")]),
    ("Here is:\n" + B + "*** Delete File: a\n" + Z,
     [(M, None, "line 1: a Codex patch starts with '*** Begin Patch', not 'Here is:'")]),
    (B + "*** Delete File: a\n" + Z + "Done.\n", [(M, None, "line 4: a Codex patch ends with '*** End Patch', not "
                                                            "'Done.'")]),
    ("<<\"EOF'\n" + B + "*** Delete File: a\n" + Z + "EOF\n",
     [(M, None, "line 1: a Codex patch starts with '*** Begin Patch', not '<<\"EOF\\''"),
      (M, None, "line 5: a Codex patch ends with '*** End Patch', not 'EOF'")]),
    ("<<EOF\n" + B + "*** Update File: file2.py\nEOF\n",
     [(M, None, "line 3: a Codex patch ends with '*** End Patch', not '*** Update File: file2.py'")]),
    (fixture("rejects_empty_update_hunk"), [(M, "foo.txt", "line 2: the Update File section of foo.txt has no hunk")]),
    (fixture("rejects_invalid_hunk_header"),
     [(M, None, f"line 2: unknown marker '*** Frobnicate File: foo' {HEADERS}")]),
    (B + "*** Add File: a.txt\n+one\ntwo\n" + Z,
     [(M, "a.txt", "line 4: 'two' in the Add File section of a.txt does not start with '+'")]),
    (B + "*** Add File: a.txt\n+one\n\n+two\n" + Z,
     [(M, None, f"line 4: {BLANK}; an empty line of a new file is written '+'")]),
    (B + "\n*** Delete File: a\n" + Z, [(M, None, f"line 2: {BLANK}")]),
    (B + "*** Update File: a.txt\n@@\n-x\ny\n" + Z, [(M, "a.txt", f"line 5: 'y' in a hunk of a.txt {PREFIX}")]),
    (B + "*** Update File: a.txt\n@@\n\t\n-x\n" + Z, [(M, "a.txt", f"line 4: '\\t' in a hunk of a.txt {PREFIX}")]),
    (B + "*** Update File: a.md\n@@\n-x\n* item\n" + Z, [(M, "a.md", f"line 5: '* item' in a hunk of a.md {PREFIX}")]),
    (B + "*** Update File: /a\n@@\n-x\n+y\n*** Delete File: /b\n" + Z,
     [(M, "/a", f"line 2: '/a' {ABSOLUTE}"), (M, "/b", f"line 6: '/b' {ABSOLUTE}")]),
    (B + "*** Update File: a.txt\n@@x\n-x\n" + Z,
     [(M, "a.txt", "line 3: '@@x' is not a hunk header: Codex writes '@@' or '@@ <a line of the file>'")]),
    (B + "*** Add File: /etc/passwd\n+x\n" + Z, [(M, "/etc/passwd", f"line 2: '/etc/passwd' {ABSOLUTE}")]),
    (B + "*** Delete File: C:\\x.txt\n" + Z, [(M, "C:\\x.txt", f"line 2: 'C:\\\\x.txt' {ABSOLUTE}")]),
    (B + "*** Update File: a\n*** Move to: /b\n@@\n-x\n" + Z, [(M, "/b", f"line 3: '/b' {ABSOLUTE}")]),
    (B + "*** Delete File:   \n" + Z, [(M, None, "line 2: '*** Delete File:' names no file")]),
    (B + "*** Update File: a\n*** Move to: \n@@\n-x\n" + Z, [(M, None, "line 3: '*** Move to:' names no file")]),
    (B + "*** Add File: a\0b\n" + Z, [(M, None, "line 2: the path 'a\\x00b' holds a NUL character")]),
    (B + "*** Add File:a.txt\n" + Z, [(M, None, "line 2: '*** Add File:a.txt': a space must follow '*** Add File:'")]),
    (B + "*** Delete File: a\n-x\n" + Z, [(M, "a", "line 3: '-x' follows '*** Delete File: a', which takes no lines")]),
    (B + "*** Update File: a.txt\n@@\n*** End of File\n" + Z,
     [(M, "a.txt", "line 4: '*** End of File' follows no hunk line in a.txt")]),
    (B + "*** Update File: a.txt\n@@ foo\n" + Z, [(M, "a.txt", "line 3: the hunk '@@ foo' of a.txt has no lines")]),
    (B + "*** Update File: a.txt\n@@\n-x\n*** End of File\n-y\n" + Z,
     [(M, "a.txt", "line 6: '-y' starts a hunk of a.txt without '@@' (only the first hunk may omit it)")]),
    (B + "*** Add File: a\n*** Move to: b\n" + Z,
     [(M, None, "line 3: '*** Move to:' must directly follow an '*** Update File:' line")]),
    (B + "*** Delete File: a\n" + Z + "*** Delete File: b\n" + Z,
     [(M, None, "line 3: '*** End Patch' before the end of the patch (only blank lines may follow it)")]),
    (B + B + "*** Delete File: a\n" + Z, [(M, None, "line 2: a second '*** Begin Patch' inside the patch")]),
    (B + "*** Delete File: a\n*** End of File\n" + Z,
     [(M, None, "line 3: '*** End of File' must end the lines of a hunk of an Update File section")]),
    (B + "--- a/x\n+++ b/x\n" + Z, [(M, None, "line 2: '--- a/x' is not a file operation: expected '*** Add File: "
                                              "<path>', '*** Delete File: <path>' or '*** Update File: <path>'")]),
    (fixture("pure_addition"), [(U, "input.txt", f"line 3: hunk 1 of input.txt {UNANCHORED}")]),
    (B + "*** Update File: f\n*** Move to: g\n@@\n-a\n@@ def f():\n+x\n" + Z,
     [(U, "g", f"line 6: hunk 2 of f {UNANCHORED}")]),
    (B + "*** Update File: bad\n@@\nzz\n*** Add File: /abs\n+x\n*** Update File: ok\n@@\n-a\n+b\n" + Z,
     [(M, "bad", f"line 4: 'zz' in a hunk of bad {PREFIX}"), (M, "/abs", f"line 5: '/abs' {ABSOLUTE}")]),
])
def test_errors(text: str, expected: list[tuple[str, str | None, str]]) -> None:
    assert errors(text) == expected
