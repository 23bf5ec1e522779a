"""The Diff pane (``ljtui review``, a gate's delivery) and the apply preview show the bytes the apply writes.

A plan on a file that is not UTF-8, or whose text holds an escape sequence,
is reviewed line by line with the bytes visible, and the lines shown rebuild
exactly what the apply then writes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.approval import ScriptedApprover
from ljtui.core.config import Config
from ljtui.core.edits.service import ApplyOptions
from ljtui.core.engine import Engine
from ljtui.core.ports import FixedClock, ListSink
from ljtui.core.review.service import ReviewService
from tests.core.edits.diff_reader import rebuild
from tests.core.edits.helpers import block, plan_text

DATA = b"\xff\xfe header\nkeep\n"
BANNER = b"title = 'x'\x1b]0;pwned\x07\nkeep\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "data.bin").write_bytes(DATA)
    (root / "banner.py").write_bytes(BANNER)
    return root


PLAN = plan_text(block(1, "data.bin", "keep\n", "changed\n"), block(2, "banner.py", "keep\n", "kept\n"))


async def test_the_diff_pane_shows_undecodable_bytes_and_controls_and_the_apply_writes_them(repo: Path) -> None:
    svc = ReviewService(repo, ListSink(), ScriptedApprover({"apply": ["yes"]}).decide, FixedClock())
    assert svc.open_text(PLAN, "plan.md")
    data, banner = svc.diff(1), svc.diff(2)
    assert data is not None and banner is not None
    assert not any("Binary file" in line for line in data.lines)
    assert data.lines[-3:] == (" \\xff\\xfe header", "-keep", "+changed")
    assert banner.lines[-3:] == (" title = 'x'\\x1b]0;pwned\\x07", "-keep", "+kept")
    await svc.apply()
    assert rebuild(DATA, list(data.lines)) == (repo / "data.bin").read_bytes() == b"\xff\xfe header\nchanged\n"
    assert rebuild(BANNER, list(banner.lines)) == (repo / "banner.py").read_bytes()


async def test_the_apply_preview_and_the_dry_run_show_the_same_lines(repo: Path) -> None:
    (repo.parent / "plan.md").write_text(PLAN, encoding="utf-8")
    approver = ScriptedApprover({"apply": ["yes"]})
    engine = Engine(Config(), ListSink(), repo_root=repo, clock=FixedClock(), approver=approver)
    dry = await engine.edits.apply_file(repo.parent / "plan.md", ApplyOptions(dry_run=True, checks=False))
    assert " \\xff\\xfe header" in dry.diff and "Binary file" not in dry.diff
    assert (repo / "data.bin").read_bytes() == DATA
    await engine.edits.apply_file(repo.parent / "plan.md", ApplyOptions(checks=False))
    [asked] = approver.asked
    assert list(asked.lines) == dry.diff.splitlines()
    assert (repo / "data.bin").read_bytes() == b"\xff\xfe header\nchanged\n"
