"""The layer's reading tools see what commands see: files a command made or removed, functions it added, and no
secret file, refused in the words of the tools in ljtui's process."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from ljtui.core.layer.tools import LayerTools
from ljtui.core.outline.repo_outline import RepoOutline
from ljtui.core.planner.tools import ReadOnlyTools
from ljtui.core.secret_files import SecretFiles
from tests.core.layer.host_helpers import Session, run_ok, running_tools

ADDED = "def added_in_the_layer(x):\n    return x * 2\n"


@pytest.fixture
def host(git_repo: Path, tmp_path: Path) -> Iterator[LayerTools]:
    yield from running_tools(git_repo, tmp_path)


async def test_reads_see_a_file_a_command_made_and_not_one_it_removed(git_repo: Path, host: LayerTools) -> None:
    run_ok(host.layer, "printf 'made in the layer\\n' > made.txt && rm README.md")
    listing = host.reader.list_dir(".")
    assert listing.ok and "made.txt  (18 bytes)" in listing.content and "README.md" not in listing.content
    read = host.reader.read_file("made.txt", list_tool="list_files")
    assert read.ok and "made in the layer" in read.content
    gone = host.reader.read_file("README.md")
    assert not gone.ok and gone.content == "error: 'README.md' does not exist"
    found = host.reader.grep("layer|sample", ".")
    assert found.ok and "made.txt:1: made in the layer" in found.content and "README.md" not in found.content
    assert (git_repo / "README.md").exists() and not (git_repo / "made.txt").exists()


async def test_the_agent_s_read_tools_answer_as_in_process_where_the_layer_holds_nothing(git_repo: Path,
                                                                                         host: LayerTools) -> None:
    layered_session, direct = Session(git_repo, host), Session(git_repo)
    for tool, args in [("read_file", {"path": "app.py", "start_line": 2}), ("list_files", {}),
                       ("grep_files", {"pattern": "hello"}), ("read_file", {"path": "."}),
                       ("read_file", {"path": "../outside"}), ("grep_files", {"pattern": "("}),
                       ("read_file", {"path": "app.py", "start_line": 9})]:
        assert await layered_session.call(tool, **args) == await direct.call(tool, **args), (tool, args)


async def test_secret_files_are_refused_as_in_process(git_repo: Path, host: LayerTools) -> None:
    (git_repo / ".env").write_text("TOKEN=x\n")
    run_ok(host.layer, "printf 'TOKEN=y\\n' > id_rsa")
    read, expected = host.reader.read_file(".env"), ReadOnlyTools(git_repo, secrets=SecretFiles()).read_file(".env")
    assert not read.ok and read == expected and "looks like a secret file" in read.content
    made = host.reader.read_file("id_rsa")
    assert not made.ok and "looks like a secret file (it matches 'id_rsa*')" in made.content
    listing = host.reader.list_dir(".")
    assert ".env  (secret file: not readable)" in listing.content and "id_rsa  (secret file" in listing.content
    found = host.reader.grep("TOKEN", ".")
    assert found.ok and "TOKEN=" not in found.content and "[2 secret files were skipped" in found.content


async def test_the_outline_and_find_symbol_see_a_function_a_command_added(git_repo: Path, host: LayerTools) -> None:
    run_ok(host.layer, f"printf '{ADDED}' >> app.py")
    found = host.outline.find("added_in_the_layer")
    assert not found.error and found.matches == ("app.py:3 added_in_the_layer",)
    view = host.outline.outline("app.py")
    assert not view.error and view.symbols == ("app.py:1 greet", "app.py:3 added_in_the_layer")
    assert "added_in_the_layer" in host.outline.prompt_text()
    assert not RepoOutline(git_repo, SecretFiles()).find("added_in_the_layer").matches  # the tree has none
    session = Session(git_repo, host)
    tool = await session.call("find_symbol", name="added_in_the_layer")
    assert tool.ok and tool.content.startswith("app.py:3 function added_in_the_layer") and tool.summary == "1 match(es)"
    outline = await session.call("get_outline", path="app.py")
    assert outline.ok and outline.summary == "2 definition(s)"
    bad = await session.call("get_outline", path="missing.py")
    assert not bad.ok and bad.content.startswith("error: ")


async def test_the_outline_cache_lives_in_the_host_s_folder_not_in_the_layer(git_repo: Path, host: LayerTools,
                                                                             tmp_path: Path) -> None:
    assert host.outline.find("greet").matches
    host.stop()
    assert list((tmp_path / "host-cache" / "outline").glob("*/outline.json"))
    assert not (host.layer.place.upper / ".agent").exists() and not (git_repo / ".agent").exists()
    assert host.outline.find("greet").matches == ("app.py:1 greet",)  # a new host reads it back
