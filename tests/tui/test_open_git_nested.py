"""``/open --git HEAD`` in the app, in a repository holding a hostile nested repository: the change opens in
the Diff pane and no program of the nested repository runs (the app's own start, which asks git for the
project's status, included)."""

from __future__ import annotations

from pathlib import Path

from tests.nested_git import plain_git_status_runs_them, plant_nested, ran
from tests.tui.conftest import AppFactory, notices, settle, states

SIZE = (120, 40)


async def test_open_git_with_a_nested_repository_runs_nothing_of_it(make_app: AppFactory, git_repo: Path,
                                                                    tmp_path: Path) -> None:
    marker = plant_nested(git_repo, tmp_path / "tools")
    (git_repo / "app.py").write_text("def greet(name):\n    return 'hi ' + name\n", encoding="utf-8")
    app = make_app(script=None)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/open --git HEAD", "enter")
        await settle(pilot)
        assert states(app) == ["accepted"], notices(app)
        assert any(n.startswith("Opened git diff -R HEAD") for n in notices(app)), notices(app)
    assert ran(marker) == ""
    assert "nested" in plain_git_status_runs_them(git_repo, marker)
