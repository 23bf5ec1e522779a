"""No sandbox is made over ljtui's own folders or the home folder, and none grants a write there, whatever
``agent.sandbox.write_paths`` says: the rules leave the entry out and the kernel refuses a real command."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.agent.shell import run_command
from ljtui.core.config import Config
from ljtui.core.engine import Engine
from ljtui.core.ports import ListSink
from ljtui.core.session_root import UnsafeRoot
from tests.core.confine.helpers import BACKENDS, default_sandbox, sandbox_for

ATTACK = "agent:\n  sandbox: {network: true, write_paths: [/]}\n"
"""What a command would write into the user's config, given the chance."""


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A repository, a home, and ``shared``: a folder holding ljtui's config folder, plus a harmless ``cache``."""
    places = {name: tmp_path / name for name in ("repo", "home", "shared", "cache")}
    for folder in places.values():
        folder.mkdir()
    places["config"] = places["shared"] / "xdg" / "ljtui"
    places["config"].mkdir(parents=True)
    monkeypatch.setenv("HOME", str(places["home"]))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(places["shared"] / "xdg"))
    return places


@pytest.mark.parametrize("where", ["home", "shared", "config"])
def test_no_sandbox_is_made_over_the_home_folder_or_ljtuis_config(layout: dict[str, Path], where: str) -> None:
    with pytest.raises(UnsafeRoot) as refused:
        default_sandbox(layout[where])
    assert refused.value.root == layout[where]


def test_a_write_path_holding_ljtuis_config_is_left_out_of_the_rules_and_named(layout: dict[str, Path]) -> None:
    write_paths = [str(layout["shared"]), str(layout["cache"]), str(layout["home"]), "/"]
    box = default_sandbox(layout["repo"], write_paths=write_paths, temp_parent=layout["repo"].parent)
    try:
        rules = box.rules(layout["repo"])
        assert layout["shared"] not in rules.paths and layout["home"] not in rules.paths
        assert Path("/") not in rules.paths and layout["cache"] in rules.paths
        assert not rules.allows_write(layout["config"] / "config.yaml")
        assert box.refused_write_paths() == [
            (str(layout["shared"]), f"holds ljtui's config folder ({layout['config']})"),
            (str(layout["home"]), "is your home folder"), ("/", "is the root of the file system")]
        assert box.missing_write_paths() == []
    finally:
        box.close()


def test_a_command_folder_that_is_the_home_folder_is_not_writable(layout: dict[str, Path]) -> None:
    box = default_sandbox(layout["repo"], temp_parent=layout["repo"].parent)
    try:
        rules = box.rules(layout["home"])  # an MCP server configured to work in ~
        assert layout["home"] not in rules.paths and rules.paths == (box.tmp_dir,)
    finally:
        box.close()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_kernel_refuses_a_command_writing_ljtuis_config_through_a_granted_write_path(
        layout: dict[str, Path], backend: str) -> None:
    box = sandbox_for(backend, layout["repo"], write_paths=[str(layout["shared"]), str(layout["cache"])],
                      temp_parent=layout["repo"].parent)
    config = layout["config"] / "config.yaml"
    command = (f"printf '{ATTACK}' > {config}; echo x > {layout['shared']}/beside.txt; "
               f"echo y > {layout['cache']}/ok.txt")
    try:
        result = await run_command(command, layout["repo"], confinement=box.confinement(box.rules(layout["repo"])),
                                   timeout=60, env=box.environment())
    finally:
        box.close()
    assert not config.exists() and not (layout["shared"] / "beside.txt").exists(), result.output
    assert (layout["cache"] / "ok.txt").read_text() == "y\n", result.output


def test_the_engine_refuses_the_home_folder_before_writing_anything_there(layout: dict[str, Path]) -> None:
    with pytest.raises(UnsafeRoot, match="is your home folder: ljtui does not work there"):
        Engine(Config(), ListSink(), repo_root=layout["home"])
    assert list(layout["home"].iterdir()) == []
