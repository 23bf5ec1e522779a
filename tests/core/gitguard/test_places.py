"""What the guard watches in a real repository: git directories, includes, hooksPath, nested repositories."""

from __future__ import annotations

from pathlib import Path

from ljtui.core.gitguard.places import Places
from tests.conftest import git


def test_a_plain_repository_watches_its_config_attributes_and_hooks(git_repo: Path) -> None:
    found = Places(git_repo).find()
    assert {".git/config", ".git/config.worktree", ".git/info/attributes"} <= set(found.files)
    assert ".git/hooks" in found.trees


def test_includes_and_hooks_path_inside_the_repository_are_watched_outside_ones_are_not(git_repo: Path,
                                                                                         tmp_path: Path) -> None:
    (git_repo / "conf").mkdir()
    (git_repo / "conf" / "extra.cfg").write_text("[include]\n\tpath = deeper.cfg\n", encoding="utf-8")
    (git_repo / "conf" / "deeper.cfg").write_text("", encoding="utf-8")
    (tmp_path / "outside.cfg").write_text("[x]\n\ty = 1\n", encoding="utf-8")
    git(git_repo, "config", "include.path", "../conf/extra.cfg")
    git(git_repo, "config", "--add", "include.path", str(tmp_path / "outside.cfg"))
    git(git_repo, "config", "includeIf.gitdir:/nowhere/.path", "../conf/only-if.cfg")
    git(git_repo, "config", "core.hooksPath", ".husky")
    found = Places(git_repo).find()
    assert {"conf/extra.cfg", "conf/deeper.cfg", "conf/only-if.cfg"} <= set(found.files)
    assert not any("outside" in f for f in found.files)
    assert ".husky" in found.trees


def test_a_hooks_path_outside_the_repository_is_not_watched(git_repo: Path, tmp_path: Path) -> None:
    git(git_repo, "config", "core.hooksPath", str(tmp_path / "hooks"))
    assert Places(git_repo).find().trees == (".git/hooks",)


def test_gitlinks_and_modules_are_nested_repositories_to_watch(git_repo: Path) -> None:
    sub = git_repo / "vendor" / "lib"
    sub.mkdir(parents=True)
    git(sub, "init", "-q", "-b", "main")
    (sub / "x").write_text("x\n", encoding="utf-8")
    git(sub, "add", "x")
    git(sub, "commit", "-q", "-m", "x")
    git(git_repo, "add", "vendor/lib")
    module = git_repo / ".git" / "modules" / "other"
    (module / "hooks").mkdir(parents=True)
    (module / "config").write_text("[core]\n\tbare = false\n", encoding="utf-8")
    found = Places(git_repo).find()
    assert {"vendor/lib/.git/config", ".git/modules/other/config", ".git/modules/other/info/attributes"} <= set(
        found.files)
    assert {"vendor/lib/.git/hooks", ".git/modules/other/hooks"} <= set(found.trees)


def test_a_git_file_pointing_outside_the_repository_watches_nothing_there(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").write_text(f"gitdir: {tmp_path / 'elsewhere'}\n", encoding="utf-8")
    assert Places(repo).find().files == ()


def test_places_are_found_again_only_when_a_config_file_changed(git_repo: Path, monkeypatch) -> None:
    places = Places(git_repo)
    places.find()
    calls: list[list[str]] = []
    original = places._git

    def counting(args: list[str], cwd: Path) -> bytes | None:
        calls.append(args)
        return original(args, cwd)

    monkeypatch.setattr(places, "_git", counting)
    places.find()
    assert calls == []
    git(git_repo, "config", "core.hooksPath", "hooks-here")
    assert "hooks-here" in places.find().trees
    assert calls and calls[0][0] == "config"
