"""The permission dialog of ``write_file`` and ``edit_file`` shows the bytes "allow once" writes.

A file that is not UTF-8, or whose line endings the write changes, is shown
line by line (never "Binary file … differs", never a CRLF → LF change drawn
as nothing), and the lines the user saw rebuild exactly what was written.
"""

from __future__ import annotations

from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.ports import ListSink
from tests.core.edits.diff_reader import rebuild

LEGACY = b"# caf\xe9 cr\xe8me\nname = 'old'\n"
CRLF = b"one\r\ntwo\r\nthree\r\n"


def make_engine(repo: Path, approver: ScriptedApprover) -> Engine:
    return Engine(Config(), ListSink(), repo_root=repo, clock=FixedClock(), approver=approver)


async def call(engine: Engine, name: str, **args: object):
    return await engine.tools.call(name, args, engine.tool_context(1, f"call-{name}"))


async def test_an_edit_to_a_file_that_is_not_utf8_shows_the_line_it_writes(git_repo: Path) -> None:
    (git_repo / "legacy.py").write_bytes(LEGACY)
    approver = ScriptedApprover({"permission": ["once"]})
    engine = make_engine(git_repo, approver)
    result = await call(engine, "edit_file", path="legacy.py", old="name = 'old'\n", new="name = 'new'\n")
    assert result.ok, result.content
    [asked] = approver.asked
    lines = list(asked.lines)
    assert not any("Binary file" in line for line in lines)
    assert lines[-3:] == [" # caf\\xe9 cr\\xe8me", "-name = 'old'", "+name = 'new'"]
    written = (git_repo / "legacy.py").read_bytes()
    assert written == b"# caf\xe9 cr\xe8me\nname = 'new'\n" and rebuild(LEGACY, lines) == written


async def test_a_write_that_turns_crlf_into_lf_says_so_line_by_line(git_repo: Path) -> None:
    (git_repo / "notes.txt").write_bytes(CRLF)
    approver = ScriptedApprover({"permission": ["once"]})
    engine = make_engine(git_repo, approver)
    assert (await call(engine, "write_file", path="notes.txt", content="one\ntwo\nthree\n")).ok
    [asked] = approver.asked
    lines = list(asked.lines)
    assert "line endings: CRLF → LF (3 lines); ␍ marks a carriage return (CR) at the end of a line" in lines
    assert ["-one␍", "-two␍", "-three␍", "+one", "+two", "+three"] == lines[-6:]
    assert rebuild(CRLF, lines) == (git_repo / "notes.txt").read_bytes() == b"one\ntwo\nthree\n"


async def test_a_write_with_an_escape_sequence_shows_it_and_creating_an_empty_file_is_not_no_change(
        git_repo: Path) -> None:
    approver = ScriptedApprover({"permission": ["once", "once"]})
    engine = make_engine(git_repo, approver)
    assert (await call(engine, "write_file", path="banner.txt", content="ok\x1b[2K\x1b[1Ahidden\n")).ok
    assert (await call(engine, "write_file", path="empty.txt", content="")).ok
    shown, empty = approver.asked
    assert shown.lines[-1] == "+ok\\x1b[2K\\x1b[1Ahidden"
    assert list(empty.lines) == ["--- /dev/null", "+++ b/empty.txt", "empty file: created with no content"]
