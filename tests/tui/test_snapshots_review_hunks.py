"""The Diff pane names each hunk of a diff or of another tool's blocks by its file, its hunk and the one line it
applies at; an ambiguous block lists its places with the keys that pick them.

Review ``snapshot_report.html`` before running ``--snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.tui.conftest import AppFactory, settle

SMALL = (80, 24)
LARGE = (120, 40)
CORE = "src/click/core.py"


def _line(n: int) -> str:
    return f"    value_{n} = compute(argument_number_{n}, another_argument, yet_another_argument_{n})  # note {n}\n"


def _moved_diff(repo: Path) -> Path:
    """A two-hunk git diff of ``CORE``, made before 11 lines were added at the file's top (so its ``@@`` numbers
    are 11 lines behind where the hunks apply now)."""
    target = repo / CORE
    target.parent.mkdir(parents=True)
    lines = [_line(n) for n in range(1, 121)]
    target.write_text("".join(lines), encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "core")
    changed = list(lines)
    changed[29] = changed[29].replace("note 30", "note thirty")
    changed[91] = changed[91].replace("note 92", "note ninety-two")
    target.write_text("".join(changed), encoding="utf-8")
    diff = repo / "change.diff"
    diff.write_text(git(repo, "diff"), encoding="utf-8")
    target.write_text("".join([f"# added {n}\n" for n in range(11)] + lines), encoding="utf-8")
    return diff


async def _second_hunk(pilot) -> None:
    await settle(pilot)
    await pilot.press("j")
    await settle(pilot)
    await settle(pilot)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "120x40"])
def test_a_hunk_is_titled_by_its_file_hunk_and_line(snap_compare, make_app: AppFactory, git_repo, size) -> None:
    app = make_app(script=None, review_path=_moved_diff(git_repo))
    assert snap_compare(app, terminal_size=size, run_before=_second_hunk)


def test_an_ambiguous_aider_block_lists_its_places_with_their_keys(snap_compare, make_app: AppFactory,
                                                                   git_repo) -> None:
    (git_repo / "two.py").write_text("def one():\n    return 0\n\n\ndef two():\n    return 0\n", encoding="utf-8")
    reply = git_repo / "aider_reply.md"
    reply.write_text("two.py\n<<<<<<< SEARCH\n    return 0\n=======\n    return 2\n>>>>>>> REPLACE\n",
                     encoding="utf-8")

    async def run_before(pilot) -> None:
        await settle(pilot)
        await settle(pilot)

    assert snap_compare(make_app(script=None, review_path=reply), terminal_size=LARGE, run_before=run_before)
