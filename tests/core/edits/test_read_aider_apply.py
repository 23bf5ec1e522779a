"""Aider fixtures applied through ``validate_plan``, compared with the bytes Aider itself writes.

Aider (``EditBlockCoder.apply_edits``) reads a file in text mode, replaces the first occurrence of
the SEARCH lines, and writes with ``--line-endings`` (``platform``: LF on POSIX). Each test states
what Aider writes; where ljtui writes other bytes, the test says why (ljtui applies the block as
written, exactly once, and keeps the file's line breaks).
"""

from __future__ import annotations

from pathlib import Path

from ljtui.core.edits.read_aider import parse_aider
from ljtui.core.edits.validate import ValidationReport, validate_plan

FIXTURES = Path(__file__).parent / "aider"
APP_BEFORE = (b"from flask import Flask\n\napp = Flask(__name__)\n\n@app.route('/div/<int:n>/<int:d>')\n"
              b"def divide(n, d):\n    return str(n / d)\n\ndef factorial(n):\n    \"compute factorial\"\n\n"
              b"    if n == 0:\n        return 1\n    else:\n        return n * factorial(n-1)\n\n"
              b"@app.route('/factorial/<int:n>')\ndef get_factorial(n):\n    return str(factorial(n))\n\n"
              b"if __name__ == '__main__':\n    print(\"Starting...\")\n    app.run()\n")
APP_HEAD = (b"import math\nfrom flask import Flask\n\napp = Flask(__name__)\n\n@app.route('/div/<int:n>/<int:d>')\n"
            b"def divide(n, d):\n    return str(n / d)\n\n")
APP_TAIL = (b"@app.route('/factorial/<int:n>')\ndef get_factorial(n):\n    return str(math.factorial(n))\n\n"
            b"if __name__ == '__main__':\n    print(\"Starting...\")\n    app.run()\n")
HELLO = b'def hello():\n    "print a greeting"\n\n    print("hello")\n'


def apply(root: Path, name: str | None, files: dict[str, bytes], text: str | None = None) -> ValidationReport:
    """Write ``files`` under ``root`` and validate fixture ``name`` (or ``text``) against them."""
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    if name is not None:
        text = (FIXTURES / f"{name}.md").read_bytes().decode("utf-8", "surrogateescape")
    return validate_plan(parse_aider(text or ""), root)


def after(report: ValidationReport) -> dict[str, bytes | None]:
    assert report.ok, report.errors
    return {path: change.after for path, change in report.changes.items()}


def test_aider_full_edit(tmp_path):
    # Aider's test_full_edit asserts this result.
    assert after(apply(tmp_path, "test_full_edit", {"file1.txt": b"one\ntwo\nthree\n"})) == {
        "file1.txt": b"one\nnew\nthree\n"}


def test_aider_create_new_file(tmp_path):
    # Aider's test_create_new_file asserts this result (and leaves the chat's other file alone).
    assert after(apply(tmp_path, "test_create_new_file", {"file.txt": b"one\ntwo\nthree\n"})) == {
        "newfile.txt": b"creating a new file\n"}


def test_empty_search_on_an_existing_file_is_refused_not_appended(tmp_path):
    # Aider appends: newfile.txt becomes b"old\ncreating a new file\n". ljtui refuses rather than guess.
    report = apply(tmp_path, "test_create_new_file", {"newfile.txt": b"old\n"})
    assert [(e.kind, e.block, e.file) for e in report.errors] == [("FileExists", 1, "newfile.txt")]
    assert report.changes == {}


def test_prompt_factorial_both_formats(tmp_path):
    # Aider writes APP_HEAD + b"\n" + APP_TAIL: its strip_quoted_wrapping drops the last empty line of
    # the SEARCH of block 2, so the blank line after factorial() stays. ljtui removes the lines the
    # block names, that blank line included.
    for name in ("prompt_diff_factorial", "prompt_fenced_factorial"):
        root = tmp_path / name
        assert after(apply(root, name, {"mathweb/flask/app.py": APP_BEFORE})) == {
            "mathweb/flask/app.py": APP_HEAD + APP_TAIL}


def test_prompt_hello_creates_and_edits(tmp_path):
    # Aider writes the same two files.
    main = HELLO + b'\n\nif __name__ == "__main__":\n    hello()\n'
    for name in ("prompt_diff_hello", "prompt_fenced_hello"):
        assert after(apply(tmp_path / name, name, {"main.py": main})) == {
            "hello.py": HELLO, "main.py": b'from hello import hello\n\n\nif __name__ == "__main__":\n    hello()\n'}


def test_diff_fenced_entries_chain_on_one_file(tmp_path):
    # Aider writes the same bytes.
    files = {"app/models.py": b"from dataclasses import dataclass\n\n\n@dataclass\nclass User:\n    name: str\n",
             "app/views.py": b"def show(user):\n    return user.name\n"}
    assert after(apply(tmp_path, "diff_fenced", files)) == {
        "app/models.py": b"from dataclasses import dataclass, field\n\n\n@dataclass\nclass User:\n    name: str\n"
                         b'    email: str = field(default="")\n',
        "app/views.py": b'def show(user):\n    return f"{user.name} <{user.email}>"\n'}


def test_unfenced_blocks(tmp_path):
    # Aider writes the same bytes.
    files = {"src/config.py": b"TIMEOUT = 30\n",
             "src/client.py": b"from src.config import TIMEOUT\n\n\ndef get(url):\n"
                              b"    return fetch(url, timeout=TIMEOUT)\n"}
    assert after(apply(tmp_path, "unfenced", files)) == {
        "src/config.py": b"TIMEOUT_SECONDS = 30\n",
        "src/client.py": b"from src.config import TIMEOUT_SECONDS\n\n\ndef get(url):\n"
                         b"    return fetch(url, timeout=TIMEOUT_SECONDS)\n"}


def test_crlf_file_keeps_its_line_breaks(tmp_path):
    # Aider with --line-endings crlf writes the same bytes; with its default (platform) on POSIX it
    # writes b"@echo off\nset MODE=release\necho %MODE%\n": every line break of the file becomes LF.
    report = apply(tmp_path, "crlf", {"win/setup.bat": b"@echo off\r\nset MODE=debug\r\necho %MODE%\r\n"})
    assert after(report) == {"win/setup.bat": b"@echo off\r\nset MODE=release\r\necho %MODE%\r\n"}
    assert report.notes == []


def test_deletion(tmp_path):
    # Aider writes b"import sys\n\n\ndef main():\n    pass\n": it keeps the blank line that ends block 1's
    # SEARCH (strip_quoted_wrapping drops a SEARCH's last empty line).
    before = b"import sys\nDEBUG = True\n\ndef dump(x):\n    print(repr(x))\n\ndef main():\n    pass\n"
    assert after(apply(tmp_path, "deletion", {"tools/debug.py": before})) == {
        "tools/debug.py": b"import sys\n\ndef main():\n    pass\n"}


def test_unicode(tmp_path):
    # Aider writes the same bytes.
    path = "docs/café/résumé.md"
    report = apply(tmp_path, "unicode", {path: "# Résumé\nHello wörld — 你好 🌍\n\nFin.\n".encode()})
    assert after(report) == {path: "# Résumé\nBonjour le monde — 你好 🌍\n\nFin.\n".encode()}


def test_markers_of_other_lengths(tmp_path):
    # Aider writes the same bytes.
    files = {"notes.txt": b"alpha\n<<<< SEARCH\n==========\nomega\n", "page.html": b"<html>\n<h1>Title</h1>\n</html>\n"}
    assert after(apply(tmp_path, "markers", files)) == {
        "notes.txt": b"ALPHA\n<<<< SEARCH\n==========\nOMEGA\n", "page.html": b"<html>\n<h1>New title</h1>\n</html>\n"}


def test_filename_forms(tmp_path):
    # Aider writes the same bytes when its fence is <source> (else it takes `<source>python` for block 5's file).
    names = ["one", "two", "three", "four", "five", "six", "seven"]
    files = {f"src/{name}.py": f"{name} = {n}\n".encode() for n, name in enumerate(names, 1)}
    assert after(apply(tmp_path, "filename_forms", files)) == {
        f"src/{name}.py": f"{name} = {n}.0\n".encode() for n, name in enumerate(names, 1)}


def test_reused_name(tmp_path):
    # Aider's parser names blocks 2 and 3 `>>>>>>> REPLACE` (the line before their SEARCH); it offers to create
    # that file and reaches src/util.py only by trying every file in the chat. ljtui reuses src/util.py.
    before = b"def a():\n    return 1\n\n\ndef b():\n    return 1\n\n\ndef c():\n    return 1\n"
    assert after(apply(tmp_path, "reused_name", {"src/util.py": before})) == {
        "src/util.py": b"def a():\n    return 2\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 2\n"}


def test_shell_fence_then_a_block_without_name(tmp_path):
    # Aider writes b"#!/bin/sh\necho run\n": it names block 2 `scripts/run.sh --verbose`, the shell fence's last line.
    assert after(apply(tmp_path, "shell_commands", {})) == {"scripts/run.sh": b"#!/bin/sh\necho ran\n"}


def test_new_files(tmp_path):
    # Aider writes the same bytes (it creates pkg/__init__.py empty, though it reports that block as failed).
    assert after(apply(tmp_path, "new_file", {})) == {
        "pkg/__init__.py": b"", "pkg/greet.py": b'def greet(name):\n    return f"Hello, {name}!"\n'}


def test_divider_closed_block(tmp_path):
    # Aider writes the same bytes.
    assert after(apply(tmp_path, "divider_close", {"config.ini": b"[main]\ndebug = false\n"})) == {
        "config.ini": b"[main]\ndebug = true\n"}


def test_file_without_final_line_break(tmp_path):
    # Aider writes b"one\nnew\n" (it adds a final line break); ljtui keeps the file without one and says so.
    report = apply(tmp_path, "test_full_edit", {"file1.txt": b"one\ntwo"})
    assert after(report) == {"file1.txt": b"one\nnew"}
    assert len(report.notes) == 1 and "no final line break" in report.notes[0]


def test_search_occurring_twice_is_refused(tmp_path):
    # Aider's test_replace_multiple_matches: Aider replaces the first occurrence (b"new_line\nline2\nline1\nline3\n").
    text = "f.txt\n<<<<<<< SEARCH\nline1\n=======\nnew_line\n>>>>>>> REPLACE\n"
    report = apply(tmp_path, None, {"f.txt": b"line1\nline2\nline1\nline3\n"}, text)
    found = [(e.kind, e.file, getattr(e, "lines", None)) for e in report.errors]
    assert found == [("AnchorAmbiguous", "f.txt", (1, 3))]


def test_search_with_other_indentation_is_not_found(tmp_path):
    # Aider's test_replace_part_with_missing_leading_whitespace: Aider re-indents and writes
    # b"    new_line1\n    new_line2\n    line3\n"; ljtui matches the lines as written.
    text = "f.txt\n<<<<<<< SEARCH\nline1\nline2\n=======\nnew_line1\nnew_line2\n>>>>>>> REPLACE\n"
    report = apply(tmp_path, None, {"f.txt": b"    line1\n    line2\n    line3\n"}, text)
    assert [(e.kind, e.file) for e in report.errors] == [("AnchorNotFound", "f.txt")]
