"""The model's read tools never read ljtui's state folder, ``.agent``, whatever path names it.

The repository is real and holds state a session could leak: a memory
file, a session log, a Python file in ``.agent`` (committed, so git lists
it), the same in a nested repository's ``.agent`` and in ``.AGENT`` (the
same folder on a case-insensitive file system), and links that lead into
``.agent``. Every read path is tried: the planner's ``list_dir``,
``read_file`` and ``grep`` (both engines), and the agent's ``read_file``,
``list_files``, ``grep_files``, ``get_outline`` and ``find_symbol``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.clock import FixedClock
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.planner.grep import find_rg
from ljtui.core.planner.tools import ReadOnlyTools
from ljtui.core.ports import ListSink
from tests.conftest import git

STATE_MARK = "STATE_MARK_7f3a"
"""Planted in every file of ljtui's state; it must never reach a model."""
MARK_PATTERN = "STATE_MARK_7f3[a]"
"""Finds :data:`STATE_MARK` without spelling it (a grep result repeats its pattern)."""
STATE_DEF = "steal_state_marker"
"""A definition in a Python file inside ``.agent``: never outlined."""
REFUSED = "ljtui's own state folder"
STATE_PATHS = (".agent/memory.md", "./.agent/memory.md", ".agent//memory.md", ".agent/sessions/s1.jsonl",
               ".agent/plans/tool.py", ".AGENT/notes.md", ".Agent/memory.md", "sub/.agent/memory.md",
               "stash/memory.md", "memory-link.md")
"""Files of ljtui's state, as named and through links."""
STATE_FOLDERS = (".agent", ".agent/", "./.agent", "./.agent/", ".agent/sessions", ".AGENT", "sub/.agent", "stash")
ENGINES = ("re2", "rg") if find_rg() else ("re2",)


@pytest.fixture
def stateful(git_repo: Path) -> Path:
    """``git_repo`` with ljtui state in ``.agent`` (some committed), ``.AGENT``, ``sub/.agent`` and links to it."""
    state = git_repo / ".agent"
    (state / "sessions").mkdir(parents=True)
    (state / "plans").mkdir()
    (state / "memory.md").write_text(f"## note\n\n{STATE_MARK} remember me\n", encoding="utf-8")
    (state / "sessions" / "s1.jsonl").write_text(f'{{"text": "{STATE_MARK}"}}\n', encoding="utf-8")
    (state / "plans" / "tool.py").write_text(f"def {STATE_DEF}():\n    return '{STATE_MARK}'\n", encoding="utf-8")
    (git_repo / ".AGENT").mkdir()
    (git_repo / ".AGENT" / "notes.md").write_text(f"{STATE_MARK}\n", encoding="utf-8")
    (git_repo / ".AGENT" / "other.py").write_text(f"def {STATE_DEF}_upper():\n    pass\n", encoding="utf-8")
    (git_repo / "sub" / ".agent").mkdir(parents=True)
    (git_repo / "sub" / ".agent" / "memory.md").write_text(f"{STATE_MARK}\n", encoding="utf-8")
    (git_repo / "sub" / "code.py").write_text(f"def visible():\n    return 'x'\n", encoding="utf-8")
    os.symlink(".agent", git_repo / "stash")
    os.symlink(".agent/memory.md", git_repo / "memory-link.md")
    git(git_repo, "add", "-f", ".agent/plans/tool.py", ".AGENT/other.py", "sub")
    git(git_repo, "commit", "-q", "-m", "state that came with the repository")
    return git_repo


@pytest.mark.parametrize("path", STATE_PATHS)
def test_planner_read_file_refuses_state(stateful: Path, path: str) -> None:
    out = ReadOnlyTools(stateful).read_file(path)
    assert not out.ok and REFUSED in out.content and STATE_MARK not in out.content


@pytest.mark.parametrize("path", STATE_FOLDERS)
def test_planner_list_dir_refuses_state(stateful: Path, path: str) -> None:
    out = ReadOnlyTools(stateful).list_dir(path)
    assert not out.ok and REFUSED in out.content and "memory.md" not in out.content


@pytest.mark.parametrize("folder", [".", "sub"])
def test_listings_leave_the_state_folder_out(stateful: Path, folder: str) -> None:
    out = ReadOnlyTools(stateful).list_dir(folder)
    assert out.ok
    names = {line.split()[0] for line in out.content.splitlines()[1:]}
    assert not {".agent/", ".AGENT/"} & names
    assert ("stash" in names and "app.py" in names) if folder == "." else "code.py" in names


@pytest.mark.parametrize("engine", ENGINES)
def test_grep_never_searches_state(stateful: Path, engine: str) -> None:
    tools = ReadOnlyTools(stateful, grep_engine=engine)
    for folder in (".", "./", "sub"):
        out = tools.grep(f"{MARK_PATTERN}|visible|greet", folder)
        assert out.ok and STATE_MARK not in out.content, (folder, out.content)
    assert "greet" in tools.grep("greet", ".").content
    for folder in (*STATE_FOLDERS, *STATE_PATHS):
        out = tools.grep(MARK_PATTERN, folder)
        assert not out.ok and REFUSED in out.content, folder


async def call(engine: Engine, tool: str, **args: object):
    return await engine.tools.call(tool, args, engine.tool_context(1, "c1"))


async def test_agent_tools_never_read_state(stateful: Path) -> None:
    engine = Engine(Config(), ListSink(), repo_root=stateful, clock=FixedClock())
    for path in STATE_PATHS:
        out = await call(engine, "read_file", path=path)
        assert not out.ok and REFUSED in out.content, path
    for folder in STATE_FOLDERS:
        out = await call(engine, "list_files", path=folder)
        assert not out.ok and REFUSED in out.content, folder
        out = await call(engine, "get_outline", path=folder)
        assert not out.ok and REFUSED in out.content, folder
    root = await call(engine, "list_files", path=".")
    assert root.ok and ".agent/" not in root.content.splitlines()
    out = await call(engine, "grep_files", pattern=MARK_PATTERN)
    assert out.ok and STATE_MARK not in out.content
    whole = await call(engine, "get_outline")
    assert whole.ok and "greet" in whole.content and "visible" in whole.content and STATE_DEF not in whole.content
    for name in (STATE_DEF, f"{STATE_DEF}_upper"):
        found = await call(engine, "find_symbol", name=name)
        assert found.ok and found.content.startswith("no definition named"), found.content
    prompt = await engine.prepare_context()
    assert STATE_MARK not in prompt and STATE_DEF not in prompt
