"""Post-apply syntax checks and unified diff rendering."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

from ljtui.core.edits.checks import CheckLimits, check_files
from ljtui.core.edits.diffs import ANSI, ANSI_RESET, DIFF_CONTEXT_LINES, render_diffs, unified_diff
from ljtui.core.edits.validate import FileChange


def write(root: Path, files: dict[str, bytes]) -> list[str]:
    for name, data in files.items():
        (root / name).write_bytes(data)
    return list(files)


def test_each_checker_reports_failures_with_a_message(tmp_path):
    names = write(tmp_path, {"a.py": b"def f(:\n", "b.json": b"{", "c.yaml": b"a: [1\n", "d.toml": b"a = \n",
                             "e.txt": b"anything"})
    results = {r.file: r for r in check_files(tmp_path, names)}
    assert set(results) == {"a.py", "b.json", "c.yaml", "d.toml"}
    assert results["a.py"].checker == "python" and results["a.py"].message == "line 1: invalid syntax"
    assert results["b.json"].message == "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    assert results["c.yaml"].checker == "yaml" and "expected ',' or ']'" in results["c.yaml"].message
    assert results["d.toml"].message == "Invalid value (at line 1, column 5)"
    assert not any(r.ok for r in results.values())


def test_valid_files_pass_and_missing_files_are_skipped(tmp_path):
    names = write(tmp_path, {"a.py": b"x = 1\n", "b.json": b"{}", "c.yml": b"a: 1\n---\nb: 2\n", "d.toml": b"a = 1\n"})
    results = check_files(tmp_path, [*names, "gone.py"])
    assert [(r.file, r.ok) for r in results] == [("a.py", True), ("b.json", True), ("c.yml", True), ("d.toml", True)]


def test_null_byte_in_python_is_reported(tmp_path):
    (result,) = check_files(tmp_path, write(tmp_path, {"a.py": b"x = 1\x00\n"}))
    assert not result.ok and "null bytes" in result.message


def test_javascript_is_checked_with_node_only_when_present(tmp_path):
    names = write(tmp_path, {"a.js": b"function (\n", "b.mjs": b"export const a = 1;\n"})
    results = check_files(tmp_path, names)
    if shutil.which("node") is None:
        assert results == []
    else:
        assert [(r.file, r.checker, r.ok) for r in results] == [("a.js", "node", False), ("b.mjs", "node", True)]


def test_unified_diff_marks_missing_final_newline_and_crlf(tmp_path):
    change = FileChange("a.txt", tmp_path / "a.txt", b"one\r\ntwo", b"one\r\nTWO")
    assert unified_diff(change) == ("--- a/a.txt\n+++ b/a.txt\nline endings: CRLF on every line shown, not marked\n"
                                    "@@ -1,2 +1,2 @@\n one\n-two\n"
                                    "\\ No newline at end of file\n+TWO\n\\ No newline at end of file\n")


def test_created_and_binary_files(tmp_path):
    created = FileChange("n.py", tmp_path / "n.py", None, b"x\n")
    assert unified_diff(created) == "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+x\n"
    binary = FileChange("b.bin", tmp_path / "b.bin", b"\xff\x00", b"\xfe")
    assert unified_diff(binary).splitlines() == [
        "--- a/b.bin", "+++ b/b.bin",
        "binary (it holds a NUL byte): shown as hex, 16 bytes a line (offset, bytes, printable ASCII)",
        "@@ -1 +1 @@", "-00000000  ff 00" + " " * 44 + "|..|", "+00000000  fe" + " " * 47 + "|.|"]


def test_colour_only_when_asked(tmp_path):
    change = FileChange("a", tmp_path / "a", b"x\n", b"y\n")
    plain = render_diffs([change])
    assert "\x1b[" not in plain
    coloured = render_diffs([change], colour=True)
    assert f"{ANSI['-']}-x{ANSI_RESET}\n" in coloured and f"{ANSI['+']}+y{ANSI_RESET}\n" in coloured


def full_difflib(before: bytes, after: bytes, path: str) -> str:
    a, b = before.decode().splitlines(keepends=True), after.decode().splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, f"a/{path}", f"b/{path}", n=DIFF_CONTEXT_LINES))


def test_trimmed_diff_equals_the_full_diff_with_shifted_hunks(tmp_path):
    before = "".join(f"line {i}\n" for i in range(1, 401)).encode()
    for after in (before.replace(b"line 200\n", b"changed\n"),
                  before.replace(b"line 1\n", b"first\n", 1),
                  before + b"appended\n",
                  before.replace(b"line 10\n", b"").replace(b"line 390\n", b"x\ny\n"),
                  b""):
        change = FileChange("f.txt", tmp_path / "f.txt", before, after)
        assert unified_diff(change) == full_difflib(before, after, "f.txt")


def test_toml_that_is_not_utf8_is_reported(tmp_path):
    (result,) = check_files(tmp_path, write(tmp_path, {"a.toml": b"a = '\xff'\n"}))
    assert not result.ok and "can't decode byte 0xff" in result.message


def test_slow_node_check_is_reported_not_waited_for(tmp_path):
    results = check_files(tmp_path, write(tmp_path, {"a.js": b"let a = 1;\n"}), CheckLimits(timeout=0.000_001))
    if shutil.which("node") is None:
        assert results == []
    else:
        assert [(r.ok, r.message) for r in results] == [(False, "node --check took longer than 1e-06s")]
