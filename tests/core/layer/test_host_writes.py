"""The write tools in the layer: they land in the upper folder, never in the tree, commands see them, and the model
is told what the tools in ljtui's process tell it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from ljtui.core.layer.tools import LayerPrepared, LayerTools
from tests.conftest import git
from tests.core.layer.host_helpers import Session, run_ok, running_tools, tree_of

ORIGINAL = "def greet(name):\n    return 'hello ' + name\n"
LANDED = "the user reviews this turn's change before it reaches their files"


@pytest.fixture
def host(git_repo: Path, tmp_path: Path) -> Iterator[LayerTools]:
    yield from running_tools(git_repo, tmp_path)


async def test_writes_land_in_the_upper_folder_and_the_tree_stays_byte_identical(git_repo: Path,
                                                                                   host: LayerTools) -> None:
    os.chmod(git_repo / "app.py", 0o755)
    before = tree_of(git_repo)
    session = Session(git_repo, host)
    written = await session.call("write_file", path="notes/new.txt", content="one\ntwo\n")
    assert written.ok and written.content == f"wrote notes/new.txt in the layer (5 diff lines); {LANDED}"
    assert written.summary == "wrote notes/new.txt in the layer"
    edited = await session.call("edit_file", path="app.py", old="'hello '", new="'hi '")
    assert edited.ok and edited.content.startswith("wrote app.py in the layer (") and LANDED in edited.content
    made = await session.call("create_directory", path="empty/inside/")
    assert made.ok and made.content == "created empty/inside/ in the layer"
    assert session.approver.asked == []  # the review replaces the dialogs
    assert tree_of(git_repo) == before
    upper = host.layer.place.upper
    assert (upper / "notes" / "new.txt").read_bytes() == b"one\ntwo\n"
    assert (upper / "app.py").read_text() == ORIGINAL.replace("'hello '", "'hi '")
    assert (upper / "app.py").stat().st_mode & 0o777 == 0o755 and (upper / "empty" / "inside").is_dir()
    seen = run_ok(host.layer, "cat notes/new.txt app.py; test -x app.py && echo executable")
    assert seen == "one\ntwo\n" + ORIGINAL.replace("'hello '", "'hi '") + "executable\n"
    assert host.reader.read_file("app.py").content.count("'hi '") == 1  # a new host reads the same view


async def test_a_write_over_what_a_command_changed_works_on_the_layer_s_bytes(git_repo: Path,
                                                                               host: LayerTools) -> None:
    run_ok(host.layer, "printf 'from the command\\n' >> app.py")
    edited = host.write_tool("edit_file", {"path": "app.py", "old": "from the command\n", "new": "edited\n"})
    assert edited.ok, edited.content
    assert run_ok(host.layer, "tail -n 1 app.py") == "edited\n"
    again = host.write_tool("write_file", {"path": "app.py", "content": ORIGINAL + "edited\n"})
    assert again == host.write_tool("write_file", {"path": "app.py", "content": ORIGINAL + "edited\n"})
    assert again.ok and again.content == "app.py already holds exactly this content; nothing was written"
    assert (git_repo / "app.py").read_text() == ORIGINAL


@pytest.mark.parametrize(("tool", "args"), [
    ("edit_file", {"path": "app.py", "old": "return 'goodbye ' + name", "new": "x"}),
    ("edit_file", {"path": "twice.py", "old": "x = 1\n", "new": "x = 2\n"}),
    ("edit_file", {"path": "missing.py", "old": "a", "new": "b"}),
    ("edit_file", {"path": ".env", "old": "TOKEN", "new": "x"}),
    ("edit_file", {"path": "app.py", "old": "'hello '", "new": "'hello '"}),
    ("write_file", {"path": "latin1.txt", "content": "x\n"}),
    ("write_file", {"path": ".git/config", "content": "x\n"}),
    ("write_file", {"path": "../outside.txt", "content": "x\n"}),
    ("write_file", {"path": "app.py"}),
    ("edit_file", {"path": 7, "old": "a", "new": "b"}),
    ("create_directory", {"path": "app.py"}),
    ("create_directory", {"path": "."}),
])
async def test_refusals_say_what_the_tools_in_ljtui_s_process_say(git_repo: Path, host: LayerTools, tool: str,
                                                                  args: dict[str, object]) -> None:
    (git_repo / "twice.py").write_text("x = 1\ny = 0\nx = 1\n")
    (git_repo / ".env").write_text("TOKEN=secret\n")
    (git_repo / "latin1.txt").write_bytes(b"caf\xe9\n")
    before = tree_of(git_repo)
    direct = await Session(git_repo).call(tool, **args)
    in_layer = await Session(git_repo, host).call(tool, **args)
    assert not direct.ok or "unchanged" in direct.summary
    assert in_layer == direct
    assert tree_of(git_repo) == before and not os.listdir(host.layer.place.upper)


async def test_a_secret_file_may_be_written_whole_and_the_answer_tells_nothing_of_it(git_repo: Path,
                                                                                      host: LayerTools) -> None:
    (git_repo / ".env").write_text("TOKEN=secret\n")
    for content in ("TOKEN=new\n", "TOKEN=new\n"):  # changed, then unchanged: the same answer
        written = host.write_tool("write_file", {"path": ".env", "content": content})
        assert written.ok and written.content == (".env now holds the given content in the layer (a secret file: "
                                                  f"nothing of what it held is shown to you); {LANDED}")
    assert (host.layer.place.upper / ".env").read_text() == "TOKEN=new\n"
    assert (git_repo / ".env").read_text() == "TOKEN=secret\n"


async def test_asking_before_each_write_shows_the_diff_then_writes(git_repo: Path, host: LayerTools) -> None:
    session = Session(git_repo, host, answers=["once", "deny", "once"], ask_writes=True)
    assert (await session.call("edit_file", path="app.py", old="'hello '", new="'hi '")).ok
    denied = await session.call("write_file", path="new.txt", content="x\n")
    assert not denied.ok and "denied" in denied.content
    assert (await session.call("create_directory", path="docs")).ok
    first, second, third = session.approver.asked
    assert first.title == "Edit app.py?" and "-    return 'hello ' + name" in first.lines
    assert second.title == "Create new.txt?" and third.title == "Create the folder docs/?"
    upper = host.layer.place.upper
    assert sorted(os.listdir(upper)) == ["app.py", "docs"] and (git_repo / "app.py").read_text() == ORIGINAL


async def test_a_prepared_write_is_refused_when_the_file_changed_before_its_commit(git_repo: Path,
                                                                                   host: LayerTools) -> None:
    prepared = host.prepare_write("edit_file", {"path": "app.py", "old": "'hello '", "new": "'hi '"})
    assert isinstance(prepared, LayerPrepared) and prepared.path == "app.py" and prepared.diff_path == "app.py"
    assert "+    return 'hi ' + name" in prepared.lines and len(prepared.before_hash) == 64
    run_ok(host.layer, "printf '# changed\\n' >> app.py")  # a command changes it while the dialog is open
    stale = host.commit_write(prepared)
    assert not stale.ok and stale.content.startswith("error: StalePlan: app.py changed on disk")
    fresh = host.prepare_write("edit_file", {"path": "app.py", "old": "'hello '", "new": "'hi '"})
    assert isinstance(fresh, LayerPrepared) and host.commit_write(fresh).ok
    assert run_ok(host.layer, "cat app.py") == ORIGINAL.replace("'hello '", "'hi '") + "# changed\n"
    unchanged = host.prepare_write("write_file", {"path": "app.py", "content": run_ok(host.layer, "cat app.py")})
    assert not isinstance(unchanged, LayerPrepared) and unchanged.summary == "app.py unchanged"


async def test_git_in_the_layer_sees_the_written_file(git_repo: Path, host: LayerTools) -> None:
    assert host.write_tool("write_file", {"path": "README.md", "content": "# changed\n"}).ok
    assert run_ok(host.layer, "git status --short") == " M README.md\n"
    assert git(git_repo, "status", "--short") == ""
