"""The outline cache never changes what ``git status`` says: a committed ``.agent/cache/`` is never rewritten.

The repositories are real. One commits its outline cache (as a careless
``git add -f .agent`` would), one commits an ``.agent/.gitignore`` that does
not ignore ``cache/``: ljtui keeps its cache in the user's cache dir for
both and leaves every tracked file as it was. An ordinary repository keeps
it in ``.agent/cache/``, ignored, and a warm outline asks git nothing more.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.outline import build_index, render_outline
from ljtui.core.outline import cache_place as place_module
from ljtui.core.outline.cache import CACHE_FILES, ENTRIES_FILE, RENDER_FILE
from ljtui.core.outline.cache_place import cache_place, user_cache_folder
from tests.conftest import git


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache-home"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def status(repo: Path) -> str:
    return git(repo, "status", "--porcelain", "--untracked-files=all")


def outline_twice(repo: Path) -> None:
    """Build and render the outline, change a source file, build and render again (the cache is rewritten)."""
    render_outline(build_index(repo, workers=1))
    (repo / "app.py").write_text("def greet(name):\n    return 'hi ' + name\n\n\ndef wave():\n    pass\n",
                                 encoding="utf-8")
    index = build_index(repo, workers=1)
    render_outline(index)
    assert "wave" in {s.qualname for s in index.symbols()}


def test_a_committed_cache_is_never_rewritten(git_repo: Path) -> None:
    render_outline(build_index(git_repo, workers=1))
    git(git_repo, "add", "-f", ".agent")
    git(git_repo, "commit", "-q", "-m", "oops, the cache")
    committed = {name: (git_repo / ".agent" / "cache" / name).read_bytes() for name in CACHE_FILES}
    outline_twice(git_repo)
    before = status(git_repo)
    assert before == " M app.py\n"
    outline_twice(git_repo)
    assert status(git_repo) == before
    assert {name: (git_repo / ".agent" / "cache" / name).read_bytes() for name in CACHE_FILES} == committed
    folder = user_cache_folder(git_repo)
    assert (folder / ENTRIES_FILE).is_file() and (folder / RENDER_FILE).is_file()
    assert build_index(git_repo, workers=1).parsed == 0  # warm, from the user's cache dir


def test_a_committed_gitignore_that_does_not_ignore_the_cache_is_left_alone(git_repo: Path) -> None:
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / ".gitignore").write_text("sessions/\n", encoding="utf-8")
    git(git_repo, "add", "-f", ".agent/.gitignore")
    git(git_repo, "commit", "-q", "-m", "our own agent ignores")
    assert status(git_repo) == ""
    outline_twice(git_repo)
    assert status(git_repo) == " M app.py\n"
    assert (git_repo / ".agent" / ".gitignore").read_text(encoding="utf-8") == "sessions/\n"
    assert not (git_repo / ".agent" / "cache").exists()
    assert (user_cache_folder(git_repo) / ENTRIES_FILE).is_file()


def test_an_ordinary_repository_keeps_its_ignored_cache_in_agent(git_repo: Path, cache_home: Path) -> None:
    before = status(git_repo)
    render_outline(build_index(git_repo, workers=1))
    assert (git_repo / ".agent" / "cache" / ENTRIES_FILE).is_file()
    assert status(git_repo) == before
    assert not cache_home.exists()


def test_a_warm_outline_asks_git_nothing_about_the_cache(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    render_outline(build_index(git_repo, workers=1))
    asked: list[list[str]] = []
    real = place_module.run_git
    monkeypatch.setattr(place_module, "run_git", lambda args, *a, **k: asked.append(list(args)) or real(args, *a, **k))
    render_outline(build_index(git_repo, workers=1))
    assert asked == []
    git(git_repo, "add", "-f", ".agent/cache")
    assert cache_place(git_repo, CACHE_FILES, writing=False).folder == user_cache_folder(git_repo)
    assert asked and asked[0][0] == "ls-files"


def test_outside_git_the_cache_stays_in_the_folder(tmp_path: Path, cache_home: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "app.py").write_text("def greet():\n    pass\n", encoding="utf-8")
    build_index(root, workers=1)
    assert (root / ".agent" / "cache" / ENTRIES_FILE).is_file() and not cache_home.exists()


def test_when_git_cannot_tell_no_cache_is_written_anywhere(tmp_path: Path, cache_home: Path) -> None:
    root = tmp_path / "broken"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "app.py").write_text("def greet():\n    pass\n", encoding="utf-8")
    index = build_index(root, workers=1)
    assert "greet" in {s.qualname for s in index.symbols()} and "git cannot say" in index.cache_note
    assert not (root / ".agent").exists() and not cache_home.exists()
