"""``ljtui apply`` refreshes the outline where the plan declared changes (PLN-13), as the Diff pane's apply does."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.outline import build_index
from ljtui.core.outline.cache import load_entries
from tests.cli.test_apply_undo_recover import ljtui
from tests.core.edits.helpers import block, plan_text

DECLARED = '```json\n{"will_modify": ["greet"], "will_add": ["farewell"], "will_remove": []}\n```\n'


def write_plan(repo: Path, *blocks: str, declaration: str) -> str:
    path = repo.parent / "plan.md"
    path.write_text(plan_text(*blocks, declaration=declaration), encoding="utf-8")
    return str(path)


def cached_digest(repo: Path, path: str) -> str:
    """What the outline cache holds for ``path`` (read as it is, not refreshed)."""
    return repr(load_entries(repo).entries[path])


def test_apply_refreshes_the_declared_files_outline_and_names_a_broken_promise(git_repo: Path) -> None:
    build_index(git_repo)  # the outline as it was before the apply
    before = cached_digest(git_repo, "app.py")
    plan = write_plan(git_repo, block(1, "app.py", "    return 'hello ' + name\n", "    return f'hello {name}!'\n"),
                      declaration=DECLARED)
    done = ljtui(git_repo, "apply", plan, "--yes")
    assert done.returncode == 0, done.stderr
    assert "farewell" in done.stderr  # declared as added, and the apply did not add it
    assert cached_digest(git_repo, "app.py") != before  # re-indexed by the apply itself


def test_a_plan_without_declarations_leaves_the_outline_alone(git_repo: Path) -> None:
    plan = write_plan(git_repo, block(1, "app.py", "    return 'hello ' + name\n", "    return 'hi ' + name\n"),
                      declaration="")
    done = ljtui(git_repo, "apply", plan, "--yes")
    assert done.returncode == 0, done.stderr
    assert not (git_repo / ".agent" / "cache").exists()
