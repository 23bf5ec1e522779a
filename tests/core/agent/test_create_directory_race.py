"""The agent's ``create_directory`` racing a real process that swaps a folder for a symlink leading outside the
repository: no folder is ever created outside, and a refused creation says why."""

from __future__ import annotations

import time
from pathlib import Path

from ljtui.core.approval import ScriptedApprover
from tests.core.agent.test_edit_tools import call, make_engine
from tests.core.edits.race_helpers import FolderSwapper, Watch

RACE_S = 0.5
"""How long create_directory races the swapper."""


async def test_create_directory_racing_a_folder_swapped_for_a_symlink_creates_nothing_outside(
        git_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (git_repo / "pkg").mkdir()
    outside.mkdir()
    engine, _ = make_engine(git_repo, ScriptedApprover({"permission": ["session"]}))
    watch = Watch(outside)
    swapper = FolderSwapper(git_repo / "pkg", outside)
    results = []
    try:
        start = time.monotonic()
        while time.monotonic() - start < RACE_S:
            results.append(await call(engine, "create_directory", path=f"pkg/d{len(results)}/inner"))
    finally:
        swapper.finish()
    assert watch.events() == b"" and list(outside.iterdir()) == []
    assert len(results) >= 10
    for n, result in enumerate(results):
        if result.ok:
            assert (git_repo / "pkg" / f"d{n}" / "inner").is_dir()
        else:
            assert any(said in result.content for said in (
                "outside the repository", "is a symbolic link; nothing is written through it",
                "was swapped while it was opened", "changed while it was resolved")), result.content
