"""Codex patches applied by ljtui (``validate_plan``), against the bytes Codex's own ``apply_patch`` writes.

The fixtures (``codex/``) and where they come from are listed in ``test_read_codex.py``. Codex's bytes,
stated per case, are derived by hand from openai/codex ``codex-rs/apply-patch/src/lib.rs``
(``derive_new_contents_from_chunks``, ``compute_replacements``) and ``src/seek_sequence.rs``, as read:

* the file is split on ``\\n`` (the empty piece after a final newline dropped);
* each chunk's ``@@`` line, then its old lines, are searched from where the previous chunk ended: exactly,
  then ignoring trailing whitespace, then surrounding whitespace, then Unicode punctuation; a chunk with
  ``*** End of File`` is tried at the end first; old lines ending in an empty line are retried without it;
* a chunk with no old lines is appended at the end of the file, whatever its ``@@`` line;
* the lines are joined with ``\\n`` (``\\r\\n`` on Windows for a CRLF file) and a final newline is added;
* ``Add File`` writes its lines each with ``\\n`` (over an existing file too), ``Delete File`` removes the
  file, ``Move to`` writes the new path (over an existing file too) and removes the old one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.edits.plan import PlanParseError
from ljtui.core.edits.read_codex import parse_codex
from ljtui.core.edits.validate import ValidationReport, validate_plan

CODEX = Path(__file__).parent / "codex"
B, Z = "*** Begin Patch\n", "*** End Patch\n"
SHAPES = (b"class Base:\n    def setup(self):\n        self.value = 1\n        return self.value\n\n\n"
          b"class Child(Base):\n    def run(self):\n        self.value = 1\n        return self.value\n")
SHAPES_AFTER = SHAPES[:SHAPES.rindex(b"= 1")] + b"= 2\n        return self.value\n"
CORE = b"import os\n\ndef load():\n\n    return None\n\ndef save():\n    path = target()\n    write(path)\n"
STRINGS = "[English]\n挨拶 = こんにちは\n[日本語]\n挨拶 = こんにちは\n"


def fixture(name: str) -> str:
    return (CODEX / f"{name}.patch").read_bytes().decode("utf-8", "surrogateescape")


def validated(tmp_path: Path, patch: str, files: dict[str, bytes]) -> ValidationReport:
    """``patch`` validated against a repository holding ``files``."""
    (tmp_path / ".git").mkdir(parents=True)
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    return validate_plan(parse_codex(patch), tmp_path)


def written(report: ValidationReport) -> dict[str, bytes | None]:
    assert report.ok, report.errors
    return {path: change.after for path, change in report.changes.items()}


def kinds(report: ValidationReport) -> list[str]:
    return [error.kind for error in report.errors]


# (fixture, files before, every change Codex makes: bytes after, None when removed)
CONFORMING = [
    ("add_file", {}, {"bar.md": b"This is a new file\n"}),
    ("multiple_operations", {"delete.txt": b"obsolete\n", "modify.txt": b"line1\nline2\n"},
     {"nested/new.txt": b"created\n", "delete.txt": None, "modify.txt": b"line1\nchanged\n"}),
    ("multiple_chunks", {"multi.txt": b"line1\nline2\nline3\nline4\n"},
     {"multi.txt": b"line1\nchanged2\nline3\nchanged4\n"}),
    ("move_to_new_directory", {"old/name.txt": b"old content\n", "old/other.txt": b"unrelated file\n"},
     {"renamed/dir/name.txt": b"new content\n", "old/name.txt": None}),
    ("padded_hunk_header", {"foo.txt": b"old\n"}, {"foo.txt": b"new\n"}),
    ("padded_patch_markers", {"file.txt": b"one\n"}, {"file.txt": b"two\n"}),
    ("padded_marker_lines", {"file.txt": b"one\n"}, {"file.txt": b"two\n"}),
    ("unicode_simple", {"foo.txt": "line1\nnaïve café\nline3\n".encode()},
     {"foo.txt": "line1\nnaïve café ✅\nline3\n".encode()}),
    ("delete_file", {"obsolete.txt": b"old\n", "keep.txt": b"keep\n"}, {"obsolete.txt": None}),
    ("deletion_only", {"lines.txt": b"line1\nline2\nline3\n"}, {"lines.txt": b"line1\nline3\n"}),
    ("end_of_file_marker", {"tail.txt": b"first\nsecond\n"}, {"tail.txt": b"first\nsecond updated\n"}),
    ("parser_operations", {"path/delete.py": b"x = 1\n", "path/update.py": b"def f():\n    pass\n"},
     {"path/add.py": b"abc\ndef\n", "path/delete.py": None, "path/update.py": None,
      "path/update2.py": b"def f():\n    return 123\n"}),
    ("update_without_at", {"file2.py": b"import foo\n"}, {"file2.py": b"import foo\nbar\n"}),
    ("heredoc", {"file2.py": b"import foo\n"}, {"file2.py": b"import foo\nbar\n"}),
    ("docs_example", {"src/app.py": b'def greet():\nprint("Hi")\n', "obsolete.txt": b"old\n"},
     {"hello.txt": b"Hello world\n", "src/main.py": b'def greet():\nprint("Hello, world!")\n', "src/app.py": None,
      "obsolete.txt": None}),
    ("context_at", {"funcs.py": b"def a():\n    return 1\n\ndef b():\n    return 1\n"},
     {"funcs.py": b"def a():\n    return 1\n\ndef b():\n    return 2\n"}),
    # Codex as of PR openai/codex#7619 (nested @@ lines); the parser.rs read refuses two @@ lines in a row.
    ("nested_context", {"shapes.py": SHAPES}, {"shapes.py": SHAPES_AFTER}),
    ("append_at_end", {"log.txt": b"first\nsecond\n"}, {"log.txt": b"first\nsecond\nthird\nfourth\n"}),
    ("context_and_end", {"notes.md": b"## Todo\n- old item\n## Done\n- old item\n"},
     {"notes.md": b"## Todo\n- old item\n## Done\n- new item\n"}),
    ("several_files", {"app/core.py": CORE, "app/old_name.py": b"class Thing:\n    pass\n"},
     {"app/core.py": b"import os, sys\n\ndef load():\n\n    return read()\n\ndef save():\n    path = target()\n"
                     b"    write(path, data)\n",
      "app/util.py": b"def read():\n    return 1\n", "app/old_name.py": None,
      "app/new_name.py": b"class Thing:\n    size = 1\n"}),
    ("heredoc_shell", {}, {"greeting.txt": b"hi\n"}),
    ("unicode", {"i18n/strings.txt": STRINGS.encode()},
     {"i18n/strings.txt": "[English]\n挨拶 = こんにちは\n[日本語]\n挨拶 = こんばんは 🌙\n".encode(),
      "i18n/ελληνικά.txt": "καλημέρα\n".encode()}),
]


@pytest.mark.parametrize(("name", "before", "codex"), CONFORMING, ids=[case[0] for case in CONFORMING])
def test_writes_what_codex_writes(tmp_path: Path, name: str, before: dict[str, bytes],
                                  codex: dict[str, bytes | None]) -> None:
    assert written(validated(tmp_path, fixture(name), before)) == codex


def test_crlf_file_keeps_its_line_breaks(tmp_path: Path) -> None:
    """A CRLF patch on a CRLF file: ljtui writes what Codex writes on Windows (its CRLF detection).

    Codex on Unix drops the patch's ``\\r`` and matches ``key=1`` to ``key=1\\r`` by ignoring trailing
    whitespace, so it writes ``[a]\\r\\nkey=1\\r\\nvalue=old\\r\\n[b]\\r\\nkey=1\\nvalue=new\\n`` (mixed) and
    ``new.ini`` as ``[new]\\na=1\\n``; ljtui keeps every byte of the patch.
    """
    win = b"[a]\r\nkey=1\r\nvalue=old\r\n[b]\r\nkey=1\r\nvalue=old\r\n"
    report = validated(tmp_path, fixture("crlf").replace("\n", "\r\n"), {"win.ini": win})
    assert written(report) == {"new.ini": b"[new]\r\na=1\r\n",
                               "win.ini": b"[a]\r\nkey=1\r\nvalue=old\r\n[b]\r\nkey=1\r\nvalue=new\r\n"}


def test_missing_targets_fail_as_in_codex(tmp_path: Path) -> None:
    """Codex scenarios 007 and 009: deleting or updating a file that is not there fails."""
    report = validated(tmp_path, B + "*** Delete File: gone.txt\n*** Update File: none.txt\n@@\n-a\n+b\n" + Z, {})
    assert kinds(report) == ["FileMissing", "FileMissing"]


# --- where ljtui and Codex differ, on purpose ---------------------------------------------------

def test_no_final_newline_is_kept(tmp_path: Path) -> None:
    """Codex scenario 014 writes ``first line\\nsecond line\\n``: it adds the final newline; ljtui keeps the file's
    missing one (and says so)."""
    report = validated(tmp_path, fixture("no_final_newline"), {"no_newline.txt": b"no newline at end"})
    assert written(report) == {"no_newline.txt": b"first line\nsecond line"}
    assert report.notes and "no final line break" in report.notes[0]


def test_additions_need_an_anchor(tmp_path: Path) -> None:
    """Codex scenario 016 appends the lines (``line1\\nline2\\nadded line 1\\nadded line 2\\n``); ljtui asks for
    ``*** End of File``, with which it writes the same."""
    with pytest.raises(PlanParseError) as info:
        parse_codex(fixture("pure_addition"))
    assert [e.kind for e in info.value.errors] == ["UnanchoredHunk"]
    patch = fixture("pure_addition").replace(Z, "*** End of File\n" + Z)
    assert written(validated(tmp_path, patch, {"input.txt": b"line1\nline2\n"})) == {
        "input.txt": b"line1\nline2\nadded line 1\nadded line 2\n"}


def test_no_whitespace_fallback(tmp_path: Path) -> None:
    """The documented example on an indented file: Codex matches ``print("Hi")`` ignoring the indentation and
    writes ``def greet():\\nprint("Hello, world!")\\n`` (the indentation lost); ljtui does not match."""
    report = validated(tmp_path, fixture("docs_example"), {"src/app.py": b'def greet():\n    print("Hi")\n',
                                                            "obsolete.txt": b"old\n"})
    assert kinds(report) == ["AnchorNotFound"]


def test_nested_context_narrows_by_its_last_line(tmp_path: Path) -> None:
    """Two classes with the same method: nested Codex (PR #7619) finds ``class Child`` then its ``run`` and
    changes the second copy; ljtui places the hunk after the first ``def run(self):`` only, so it is ambiguous."""
    twins = SHAPES.replace(b"def setup(self)", b"def run(self)")
    assert kinds(validated(tmp_path, fixture("nested_context"), {"shapes.py": twins})) == ["AnchorAmbiguous"]


def test_hunks_are_placed_by_text_not_by_order(tmp_path: Path) -> None:
    """Codex searches each chunk after the previous one; ljtui needs each hunk's text once in the file."""
    two_x = B + "*** Update File: f\n@@\n-x\n+y\n@@\n-x\n+z\n" + Z
    assert kinds(validated(tmp_path / "a", two_x, {"f": b"x\nx\n"})) == ["AnchorAmbiguous"] * 2  # Codex: y\nz\n
    backwards = B + "*** Update File: f\n@@\n mark\n+after\n@@\n-x\n+y\n" + Z
    assert written(validated(tmp_path / "b", backwards, {"f": b"x\nmark\n"})) == {
        "f": b"y\nmark\nafter\n"}  # Codex: "Failed to find expected lines" for the second chunk


def test_a_trailing_empty_line_is_context(tmp_path: Path) -> None:
    """An empty line ending a hunk is an empty context line; Codex retries without it and writes ``b\\nc\\n``."""
    patch = B + "*** Update File: f\n@@\n-a\n+b\n\n" + Z
    assert kinds(validated(tmp_path, patch, {"f": b"a\nc\n"})) == ["AnchorNotFound"]


def test_no_overwrite(tmp_path: Path) -> None:
    """Codex scenarios 010 and 011 overwrite an existing destination; ljtui refuses."""
    report = validated(tmp_path, B + "*** Add File: dup.txt\n+new\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n"
                                     "-a\n+A\n" + Z, {"dup.txt": b"old\n", "a.txt": b"a\n", "b.txt": b"b\n"})
    assert [(e.kind, e.block) for e in report.errors if e.kind == "FileExists"] == [("FileExists", 1),
                                                                                   ("FileExists", 2)]


def test_append_needs_a_final_line_break(tmp_path: Path) -> None:
    """``*** End of File`` appending to a file without a final newline: Codex writes ``first\\nthird\\nfourth\\n``
    (it adds the line break); ljtui's append must start a line, so it does not apply."""
    assert kinds(validated(tmp_path, fixture("append_at_end"), {"log.txt": b"first"})) == ["AnchorNotFound"]
