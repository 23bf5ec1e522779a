"""``ljtui acp`` refuses a session whose ``cwd`` is ``/``, the home folder or a folder holding ljtui's config: the
SDK's own client gets a JSON-RPC error naming why, nothing is written there, and the connection goes on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from acp import RequestError

from tests.acp.client import Editor, ljtui_acp
from tests.fixtures import SCRIPTS


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The agent's ``$HOME`` and ``shared``, a folder holding its config folder (set in the environment it gets)."""
    home, shared = tmp_path / "home", tmp_path / "shared"
    home.mkdir()
    shared.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(shared / "xdg"))
    return {"home": home, "shared": shared, "config": shared / "xdg" / "ljtui"}


async def test_new_and_load_refuse_the_home_folder_the_config_and_the_root_naming_why(
        places: dict[str, Path], git_repo: Path) -> None:
    refusals = [(places["home"], f"{places['home']} is your home folder"),
                (places["shared"], f"{places['shared']} holds ljtui's config folder ({places['config']})"),
                (Path("/"), "/ is the root of the file system")]
    async with ljtui_acp(git_repo, SCRIPTS / "hello.yaml", Editor()) as (conn, _):
        for cwd, why in refusals:
            with pytest.raises(RequestError) as refused:
                await conn.new_session(cwd=str(cwd), mcp_servers=[])
            said = refused.value.data["cwd"]
            assert said.startswith(f"{why}: ljtui does not work there, because the commands it runs could change")
            with pytest.raises(RequestError) as refused:
                await conn.load_session(cwd=str(cwd), session_id="any", mcp_servers=[])
            assert refused.value.data["cwd"] == said
        session = await conn.new_session(cwd=str(git_repo), mcp_servers=[])  # the connection goes on
    assert session.session_id
    assert list(places["home"].iterdir()) == [] and not places["config"].exists()


async def test_a_folder_below_a_home_kept_in_git_is_refused_naming_both(places: dict[str, Path],
                                                                        git_repo: Path) -> None:
    (places["home"] / ".git").mkdir()
    notes = places["home"] / "notes"
    notes.mkdir()
    async with ljtui_acp(git_repo, SCRIPTS / "hello.yaml", Editor()) as (conn, _):
        with pytest.raises(RequestError) as refused:
            await conn.new_session(cwd=str(notes), mcp_servers=[])
    assert refused.value.data["cwd"].startswith(
        f"{notes} is in the repository at {places['home']}, which is your home folder: ")
    assert refused.value.data["cwd"].endswith(f"; make {notes} a repository of its own (git init), or work in "
                                              "another folder")


def test_acp_with_repo_naming_the_home_folder_exits_before_speaking(places: dict[str, Path]) -> None:
    done = subprocess.run([sys.executable, "-m", "ljtui.cli.main", "acp", "--repo", str(places["home"])],
                          capture_output=True, text=True, env=dict(os.environ), stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"ljtui acp: {places['home']} is your home folder: ljtui does not work there")
