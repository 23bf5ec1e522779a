"""The agent's file tools are exact: one line numbering, messages naming the real problem, nothing unseen rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.approval import ScriptedApprover
from ljtui.core.edits.recovery import undo_last
from tests.core.agent.test_edit_tools import call, make_engine

BOM = b"\xef\xbb\xbf"
LONG_NAME = "x" * 256
COPY_OLD = "Read the file again and copy `old` exactly."


def allowing(n: int = 20) -> ScriptedApprover:
    return ScriptedApprover({"permission": ["once"] * n})


async def test_edit_file_matches_the_first_line_of_a_bom_file_and_keeps_the_bom(git_repo: Path) -> None:
    (git_repo / "bom.py").write_bytes(BOM + b"import os\nx = 1\n")
    engine, _ = make_engine(git_repo, allowing())
    read = await call(engine, "read_file", path="bom.py")
    assert read.ok and "```\nimport os\nx = 1\n```" in read.content and "byte order mark" in read.content
    done = await call(engine, "edit_file", path="bom.py", old="import os\n", new="import sys\n")
    assert done.ok, done.content
    assert (git_repo / "bom.py").read_bytes() == BOM + b"import sys\nx = 1\n"


@pytest.mark.parametrize("separator", ["\x0c", "\x0b", "\x1c", "\x1e", "\x85", "\u2028", "\u2029", "\r"])
async def test_read_file_numbers_lines_as_edit_file_and_grep_do(git_repo: Path, separator: str) -> None:
    (git_repo / "odd.txt").write_text(f"a{separator}b\nc\nd\n", encoding="utf-8", newline="")
    engine, _ = make_engine(git_repo, allowing())
    whole = await call(engine, "read_file", path="odd.txt")
    assert whole.ok and "lines 1-3 of 3" in whole.content
    second = await call(engine, "read_file", path="odd.txt", start_line=2, end_line=2)
    assert second.ok and "lines 2-2 of 3\n```\nc\n```" in second.content
    grep = await call(engine, "grep_files", pattern="^c$", path="odd.txt")
    assert "odd.txt:2: c" in grep.content
    edited = await call(engine, "edit_file", path="odd.txt", old="d\n", new="D\n")
    assert edited.ok  # the line read_file called 3
    assert (git_repo / "odd.txt").read_bytes() == f"a{separator}b\nc\nD\n".encode()


async def test_the_permission_dialog_numbers_lines_by_line_feeds(git_repo: Path) -> None:
    (git_repo / "ff.txt").write_bytes(b"a\x0cb\nc\nd\ne\nf\n")
    approver = allowing()
    engine, _ = make_engine(git_repo, approver)
    assert (await call(engine, "edit_file", path="ff.txt", old="f\n", new="F\n")).ok
    [asked] = approver.asked
    assert "@@ -2,4 +2,4 @@" in asked.lines and "-f" in asked.lines and "+F" in asked.lines


async def test_an_old_occurring_40000_times_gets_a_short_answer(git_repo: Path) -> None:
    (git_repo / "many.txt").write_bytes(b"z\n" * 40_000)
    engine, _ = make_engine(git_repo, allowing())
    result = await call(engine, "edit_file", path="many.txt", old="z", new="q")
    assert not result.ok and len(result.content) < 1_000
    assert "occurs 40000 times in many.txt, at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 39990 more" in result.content


async def test_read_file_says_a_file_is_not_utf8_and_a_round_trip_of_it_is_refused(git_repo: Path) -> None:
    raw = b"ok\n\xff\xfe here\n"
    (git_repo / "bad.txt").write_bytes(raw)
    approver = allowing()
    engine, _ = make_engine(git_repo, approver)
    read = await call(engine, "read_file", path="bad.txt")
    assert read.ok and "note: this file is not valid UTF-8 (first bad byte at line 2)" in read.content
    assert "shown as U+FFFD" in read.content
    round_trip = await call(engine, "write_file", path="bad.txt", content="ok\n\ufffd\ufffd here\n")
    assert not round_trip.ok and "bad.txt is not valid UTF-8 (first bad byte at line 2)" in round_trip.content
    assert "bash tool" in round_trip.content
    copied = await call(engine, "edit_file", path="bad.txt", old="\ufffd\ufffd here", new="there")
    assert not copied.ok and "`old` holds U+FFFD, which read_file shows in place of bytes of bad.txt" in copied.content
    assert (git_repo / "bad.txt").read_bytes() == raw and approver.asked == []
    edit = await call(engine, "edit_file", path="bad.txt", old="ok\n", new="OK\n")
    assert edit.ok, "an edit around the undecodable bytes leaves them as they are"
    assert (git_repo / "bad.txt").read_bytes() == b"OK\n\xff\xfe here\n"
    created = await call(engine, "write_file", path="fresh.txt", content="new\n")
    assert created.ok and (git_repo / "fresh.txt").read_bytes() == b"new\n"


async def test_an_old_differing_only_in_a_carriage_return_says_so(git_repo: Path) -> None:
    (git_repo / "mix.txt").write_bytes(b"a\r\nb\nc\r\n")
    engine, _ = make_engine(git_repo, allowing())
    result = await call(engine, "edit_file", path="mix.txt", old="b\r\nc\r\n", new="q\n")
    assert not result.ok
    assert "differs only in line endings (CRLF vs LF) at line 2" in result.content


async def test_an_old_with_leading_whitespace_found_mid_line_says_where_it_is(git_repo: Path) -> None:
    (git_repo / "mid.txt").write_bytes(b"foo  bar\n")
    engine, _ = make_engine(git_repo, allowing())
    result = await call(engine, "edit_file", path="mid.txt", old="  bar", new="q")
    assert not result.ok and "does not occur" not in result.content
    assert "occurs in mid.txt only mid-line (first at line 1)" in result.content
    assert "starts with whitespace must start a line" in result.content


async def test_two_matches_on_one_line_are_said_once(git_repo: Path) -> None:
    (git_repo / "dup.py").write_bytes(b"ab ab\n")
    engine, _ = make_engine(git_repo, allowing())
    result = await call(engine, "edit_file", path="dup.py", old="ab", new="c")
    assert not result.ok and "occurs 2 times in dup.py, twice on line 1" in result.content
    assert result.content.count("nearest: dup.py:1") == 1 and result.content.endswith(COPY_OLD)


async def test_only_errors_about_old_advise_copying_old(git_repo: Path) -> None:
    (git_repo / "folder").mkdir()
    engine, _ = make_engine(git_repo, allowing())
    missing = await call(engine, "edit_file", path="nope.py", old="x", new="y")
    folder = await call(engine, "edit_file", path="folder", old="x", new="y")
    not_found = await call(engine, "edit_file", path="app.py", old="nowhere", new="y")
    assert not missing.ok and "does not exist" in missing.content and COPY_OLD not in missing.content
    assert not folder.ok and "not a regular file" in folder.content and COPY_OLD not in folder.content
    assert not not_found.ok and not_found.content.endswith(COPY_OLD)


async def test_read_file_on_a_folder_names_the_agents_listing_tool(git_repo: Path) -> None:
    (git_repo / "folder").mkdir()
    engine, _ = make_engine(git_repo, allowing())
    result = await call(engine, "read_file", path="folder")
    assert not result.ok and "use list_files" in result.content and "list_dir" not in result.content


@pytest.mark.parametrize(("tool", "args"), [
    ("read_file", {}), ("write_file", {"content": "x\n"}), ("edit_file", {"old": "", "new": "x\n"}),
    ("create_directory", {}),
])
async def test_a_name_too_long_for_the_filesystem_is_a_clear_refusal(git_repo: Path, tool: str,
                                                                     args: dict[str, str]) -> None:
    approver = allowing()
    engine, _ = make_engine(git_repo, approver)
    result = await call(engine, tool, path=f"sub/{LONG_NAME}", **args)
    assert not result.ok and "is 256 bytes long" in result.content, result.content
    assert "OSError" not in result.content and approver.asked == []


async def test_a_path_starting_with_a_tilde_is_refused_for_writes_as_for_reads(git_repo: Path) -> None:
    approver = allowing()
    engine, _ = make_engine(git_repo, approver)
    written = await call(engine, "write_file", path="~/x", content="a\n")
    folder = await call(engine, "create_directory", path="~/notes")
    assert not written.ok and "`~` is not expanded" in written.content
    assert not folder.ok and "`~` is not expanded" in folder.content
    assert not (git_repo / "~").exists() and approver.asked == []
    assert not (await call(engine, "read_file", path="~/x")).ok


async def test_undo_removes_the_folders_the_writes_of_a_message_created(git_repo: Path) -> None:
    for _ in range(10):  # the snapshots' ids are random and the clock fixed: both orders are met
        engine, _ = make_engine(git_repo, allowing())
        assert engine.services.writer is not None
        engine.services.writer.new_message()
        assert (await call(engine, "write_file", path="a/x.txt", content="x\n")).ok
        assert (await call(engine, "write_file", path="a/b/c.txt", content="c\n")).ok
        assert undo_last(git_repo).ok
        assert not (git_repo / "a").exists()


async def test_undo_of_a_message_that_edited_one_file_twice_restores_it(git_repo: Path) -> None:
    for _ in range(20):
        engine, _ = make_engine(git_repo, allowing())
        assert engine.services.writer is not None
        engine.services.writer.new_message()
        assert (await call(engine, "edit_file", path="app.py", old="'hello '", new="'hi '")).ok
        assert (await call(engine, "edit_file", path="app.py", old="'hi '", new="'hey '")).ok
        undone = undo_last(git_repo)
        assert undone.ok, undone.error
        assert (git_repo / "app.py").read_text() == "def greet(name):\n    return 'hello ' + name\n"
