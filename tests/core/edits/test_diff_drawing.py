"""Every diff shows the real change, byte for byte: undecodable bytes, controls, line endings, binary content.

The files are real: written to disk with the bytes under test and read back,
as the patcher reads them. Both diff paths are checked (``apply --dry-run``'s
:func:`unified_diff` and the Diff pane's bounded :func:`diff_lines`), and a
reader that knows only the legend rebuilds the written bytes from each.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ljtui.core.display import is_clean
from ljtui.core.edits.diffs import unified_diff
from ljtui.core.edits.validate import FileChange, read_bytes
from ljtui.core.review.diff_text import diff_lines
from tests.core.edits.diff_reader import rebuild

CRLF_TEXT = b"".join(b"line %d\r\n" % n for n in range(1, 13))


def on_disk(tmp_path: Path, before: bytes | None, after: bytes | None, name: str = "f.txt") -> FileChange:
    """A change between two real files' bytes (written, then read back as the patcher reads them)."""
    sides = []
    for label, data in (("before", before), ("after", after)):
        if data is None:
            sides.append(None)
            continue
        path = tmp_path / label / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        sides.append(read_bytes(path))
    return FileChange(name, tmp_path / name, sides[0], sides[1])


def drawn(change: FileChange) -> list[str]:
    """The diff's lines, the same on both paths, rebuilt exactly into the bytes written."""
    lines = unified_diff(change).splitlines()
    assert diff_lines(change, difflib_max=0) == lines  # the Diff pane's bounded path draws the same lines
    assert all(is_clean(line) for line in lines), [line for line in lines if not is_clean(line)]
    if change.before != change.after and change.after is not None:
        assert rebuild(change.before, lines) == change.after
    return lines


def notes(lines: list[str]) -> list[str]:
    return [line for line in lines[2:] if not line.startswith(("@@", " ", "+", "-", "\\"))]


# --- bytes that are not UTF-8, controls, binary ------------------------------------------------


def test_an_edit_to_a_file_that_is_not_utf8_shows_the_lines_with_the_bytes_escaped(tmp_path: Path) -> None:
    change = on_disk(tmp_path, b"caf\xe9 = 1\nname = 'old'\n", b"caf\xe9 = 1\nname = 'new'\n", "latin1.py")
    lines = drawn(change)
    assert not any("Binary file" in line for line in lines)
    assert lines[3:] == ["@@ -1,2 +1,2 @@", " caf\\xe9 = 1", "-name = 'old'", "+name = 'new'"]
    assert notes(lines)[0].startswith("escaped: \\xNN is the byte NN")


def test_a_written_escape_sequence_is_shown_and_a_typed_one_keeps_its_backslash(tmp_path: Path) -> None:
    change = on_disk(tmp_path, b"RED = '\\x1b[31m'\n", b"RED = '\x1b[2K\x1b[31m'\n", "colours.py")
    lines = drawn(change)
    assert lines[-2:] == ["-RED = '\\\\x1b[31m'", "+RED = '\\x1b[2K\\x1b[31m'"]


def test_a_plain_file_is_drawn_as_it_is_with_no_note(tmp_path: Path) -> None:
    change = on_disk(tmp_path, b"x = '\\x1b'\nkeep\n", b"x = '\\x1b!'\nkeep\n")
    assert drawn(change) == ["--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", "-x = '\\x1b'", "+x = '\\x1b!'",
                             " keep"]


@pytest.mark.parametrize("char, escape", [
    ("\u202e", "\\u202e"), ("\u200b", "\\u200b"), ("\x85", "\\u0085"), ("\u2028", "\\u2028"),
    ("\x0c", "\\x0c"), ("\r", "\\r"), ("\u240d", "\\u240d"), ("\U000e0041", "\\U000e0041"),
], ids=["bidi-override", "zero-width-space", "c1-control", "line-separator", "form-feed", "lone-cr", "cr-mark",
        "tag-character"])
def test_hidden_and_reordering_characters_are_escaped(tmp_path: Path, char: str, escape: str) -> None:
    lines = drawn(on_disk(tmp_path, b"ok = 1\n", f"ok = 1{char}2\n".encode()))
    assert lines[-1] == f"+ok = 1{escape}2"


def test_whitespace_the_eye_cannot_see_is_escaped(tmp_path: Path) -> None:
    tabs = drawn(on_disk(tmp_path / "tabs", b"if x:\n    y()\n", b"if x:\n\ty()\n"))
    assert tabs[-2:] == ["-    y()", "+\\ty()"]
    trailing = drawn(on_disk(tmp_path / "trailing", b"a\nb\n", b"a\nb  \n"))
    assert trailing[-2:] == ["-b", "+b\\x20\\x20"]


def test_binary_content_is_a_hex_view_of_the_bytes(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(32))
    change = on_disk(tmp_path, png, png[:20] + b"\xff" + png[21:], "logo.png")
    lines = drawn(change)
    assert notes(lines) == ["binary (it holds a NUL byte): shown as hex, 16 bytes a line (offset, bytes, "
                            "printable ASCII)"]
    assert lines[4:] == [" 00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|",
                         "-00000010  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|",
                         "+00000010  00 01 02 03 ff 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|",
                         " 00000020  10 11 12 13 14 15 16 17  18 19 1a 1b 1c 1d 1e 1f  |................|"]


def test_created_and_removed_files_show_their_content_even_empty(tmp_path: Path) -> None:
    created = drawn(on_disk(tmp_path / "c", None, b"\xffx\r\ny\n"))
    assert created[:2] == ["--- /dev/null", "+++ b/f.txt"] and created[-2:] == ["+\\xffx␍", "+y"]
    assert drawn(on_disk(tmp_path / "e", None, b"")) == ["--- /dev/null", "+++ b/f.txt",
                                                          "empty file: created with no content"]
    assert drawn(on_disk(tmp_path / "r", b"", None))[2] == "empty file: removed (it had no content)"
    assert drawn(on_disk(tmp_path / "same", b"x\n", b"x\n")) == []


# --- line endings, the final newline, the byte order mark --------------------------------------


def test_crlf_to_lf_is_drawn_and_counted(tmp_path: Path) -> None:
    lines = drawn(on_disk(tmp_path, CRLF_TEXT, CRLF_TEXT.replace(b"\r\n", b"\n")))
    assert notes(lines) == ["line endings: CRLF → LF (12 lines); ␍ marks a carriage return (CR) at the end of a line"]
    assert lines[4:6] == ["-line 1␍", "-line 2␍"] and "+line 1" in lines and len(lines) == 4 + 24


def test_lf_to_crlf_is_drawn_and_counted(tmp_path: Path) -> None:
    lines = drawn(on_disk(tmp_path, b"a\nb\n", b"a\r\nb\r\n"))
    assert notes(lines) == ["line endings: LF → CRLF (2 lines); ␍ marks a carriage return (CR) at the end of a line"]
    assert lines[3:] == ["@@ -1,2 +1,2 @@", "-a", "-b", "+a␍", "+b␍"]


def test_a_crlf_line_added_to_an_lf_file_is_marked(tmp_path: Path) -> None:
    lines = drawn(on_disk(tmp_path, b"a\nb\n", b"a\nnew\r\nb\n"))
    assert notes(lines) == ["line endings: LF → mixed (1 CRLF, 2 LF); ␍ marks a carriage return (CR) at the end "
                            "of a line"]
    assert lines[-3:] == [" a", "+new␍", " b"]


def test_mixed_endings_made_uniform(tmp_path: Path) -> None:
    lines = drawn(on_disk(tmp_path, b"a\r\nb\nc\r\nd\n", b"a\nb\nc\nd\n"))
    assert notes(lines)[0].startswith("line endings: mixed (2 CRLF, 2 LF) → LF (2 lines)")
    assert "-a␍" in lines and "-c␍" in lines and " b" in lines


def test_an_edit_in_a_crlf_file_is_not_marked_on_every_line(tmp_path: Path) -> None:
    lines = drawn(on_disk(tmp_path, CRLF_TEXT, CRLF_TEXT.replace(b"line 6\r\n", b"six\r\n")))
    assert notes(lines) == ["line endings: CRLF on every line shown, not marked"]
    assert "-line 6" in lines and "+six" in lines and not any("␍" in line for line in lines)


@pytest.mark.parametrize("before, after, note", [
    (b"a\nb\n", b"a\nb", "final newline: removed"),
    (b"a\nb", b"a\nb\n", "final newline: added"),
    (b"a\r\nb\r\n", b"a\r\nb", "final newline: removed"),
])
def test_the_final_newline_added_or_removed(tmp_path: Path, before: bytes, after: bytes, note: str) -> None:
    lines = drawn(on_disk(tmp_path, before, after))
    assert note in notes(lines) and "\\ No newline at end of file" in lines


@pytest.mark.parametrize("before, after, note", [
    (b"\xef\xbb\xbfname = 1\n", b"name = 1\n", "byte order mark: removed"),
    (b"name = 1\n", b"\xef\xbb\xbfname = 1\n", "byte order mark: added"),
])
def test_a_byte_order_mark_added_or_removed(tmp_path: Path, before: bytes, after: bytes, note: str) -> None:
    lines = drawn(on_disk(tmp_path, before, after))
    assert notes(lines) == [note]
    assert {"-\\ufeffname = 1", "+name = 1"} <= set(lines) or {"-name = 1", "+\\ufeffname = 1"} <= set(lines)


def test_a_kept_byte_order_mark_does_not_escape_the_file(tmp_path: Path) -> None:
    lines = drawn(on_disk(tmp_path, b"\xef\xbb\xbfpath = 'C:\\\\x'\nb\n", b"\xef\xbb\xbfpath = 'C:\\\\x'\nB\n"))
    assert notes(lines) == [] and lines[3] == " \\ufeffpath = 'C:\\\\x'"


def test_a_typed_bom_escape_is_not_taken_for_a_byte_order_mark(tmp_path: Path) -> None:
    lines = drawn(on_disk(tmp_path, b"\\ufeff = 1\n", b"\xef\xbb\xbf\\ufeff = 1\n"))
    assert lines[-2:] == ["-\\\\ufeff = 1", "+\\ufeff\\\\ufeff = 1"]


# --- exactness, whatever the bytes ---------------------------------------------------------------

PIECES = [b"a", b"x = 1", b" ", b"  ", b"\t", b"\r", b"\n", b"\n", b"\n", b"\r\n", b"\r\n", b"\xff", b"\xc3\xa9",
          b"\x1b[2K", b"\\x1b", b"\\", b"\\\\", b"\\r", b"\xe2\x90\x8d", b"\xef\xbb\xbf", b"\\ufeff", b"\xc2\x85",
          b"\x85", b"\xe2\x80\xae", b"\x0c", b"\xe2\x80\x8b", b"\\u00e9", "\U000e0041".encode()]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map(b"".join)
binaries = st.binary(max_size=80).map(lambda data: data + b"\0")


@st.composite
def edits(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A file and an edit of it: pieces replaced, inserted or removed, or a wholly new file."""
    before = draw(st.one_of(texts, binaries) if draw(st.integers(0, 9)) == 0 else texts)
    if draw(st.integers(0, 4)) == 0:
        return before, draw(texts)
    pieces = [before[n:n + 1] for n in range(len(before))]
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(pieces)))
        if draw(st.booleans()) or not pieces:
            pieces.insert(at, draw(st.sampled_from(PIECES)))
        else:
            del pieces[min(at, len(pieces) - 1)]
    return before, b"".join(pieces)


@settings(max_examples=400, deadline=None)
@given(edits())
def test_the_drawn_diff_rebuilds_the_written_bytes_exactly(pair: tuple[bytes, bytes]) -> None:
    before, after = pair
    change = FileChange("f.txt", Path("/nowhere/f.txt"), before, after)
    for lines in (unified_diff(change).splitlines(), diff_lines(change, difflib_max=0)):
        assert all(is_clean(line) for line in lines)
        if before == after:
            assert lines == []
        else:
            assert rebuild(before, lines) == after
