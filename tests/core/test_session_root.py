"""Which folders a session may not work in, nor commands write: ``/``, the home folders, ljtui's own folders,
whatever links lead to them; real folders and links under a temp dir, the environment passed in."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from ljtui.core import trust
from ljtui.core.session_root import (
    TRUST_FILE, UnsafeRoot, check_root, guarded_folders, place_refusal, resolve,
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A home, a config and a state folder of their own, apart from each other under ``tmp_path``."""
    return {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "conf" / "xdg"),
            "XDG_STATE_HOME": str(tmp_path / "var" / "state")}


def reason(path: Path | str, env: dict[str, str]) -> str | None:
    refusal = place_refusal(path, env)
    return None if refusal is None else refusal.reason


def test_the_file_system_root_and_the_home_folders_are_refused_and_a_project_in_home_is_not(
        tmp_path: Path, env: dict[str, str]) -> None:
    home = tmp_path / "home"
    (home / "project").mkdir(parents=True)
    assert reason("/", env) == "is the root of the file system"
    assert reason(home, env) == "is your home folder"
    try:
        assert reason(pwd.getpwuid(os.getuid()).pw_dir, env) == "is your home folder"
    except KeyError:  # a user the password database does not know has only $HOME
        pass
    assert reason(tmp_path, env) == f"holds your home folder ({home})"
    assert reason(home / "project", env) is None
    assert reason(tmp_path / "elsewhere", env) is None


def test_a_folder_that_is_holds_or_lies_inside_ljtuis_config_or_state_folder_is_refused_existing_or_not(
        tmp_path: Path, env: dict[str, str]) -> None:
    config, state = tmp_path / "conf" / "xdg" / "ljtui", tmp_path / "var" / "state" / "ljtui"
    assert not config.exists() and not state.exists()  # a command could make them: refused all the same
    assert reason(config, env) == "is ljtui's config folder"
    assert reason(tmp_path / "conf", env) == f"holds ljtui's config folder ({config})"
    assert reason(config / "skills", env) == f"is inside ljtui's config folder ({config})"
    assert reason(tmp_path / "var", env) == f"holds ljtui's state folder ({state})"
    assert reason(state / "x", env) == f"is inside ljtui's state folder ({state})"
    assert reason(tmp_path / "conf" / "xdg" / "other", env) is None
    assert reason(tmp_path / "conf" / "xdg" / "ljtui-other", env) is None


def test_the_folder_of_ljtui_config_is_refused_and_a_folder_beside_the_file_is_not(tmp_path: Path,
                                                                                    env: dict[str, str]) -> None:
    (tmp_path / "settings").mkdir()
    env["LJTUI_CONFIG"] = str(tmp_path / "settings" / "ljtui.yaml")
    assert reason(tmp_path / "settings", env) == "is the folder of ljtui's config file"
    assert reason(tmp_path, env).startswith("holds ")  # type: ignore[union-attr]
    assert reason(tmp_path / "settings" / "project", env) is None


def test_a_config_file_that_is_a_link_guards_the_folder_it_really_is_in(tmp_path: Path,
                                                                          env: dict[str, str]) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "ljtui.yaml").write_text("agent: {}\n", encoding="utf-8")
    config = tmp_path / "conf" / "xdg" / "ljtui"
    config.mkdir(parents=True)
    (config / "config.yaml").symlink_to(dotfiles / "ljtui.yaml")
    assert reason(dotfiles, env) == "is the folder of ljtui's config file"


def test_a_folder_holding_a_link_on_the_way_to_the_config_folder_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "xdg").mkdir(parents=True)
    (tmp_path / "front").mkdir()
    (tmp_path / "front" / "link").symlink_to(real)
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "front" / "link" / "xdg"),
           "XDG_STATE_HOME": str(tmp_path / "state")}
    assert reason(real, env) == f"holds ljtui's config folder ({real / 'xdg' / 'ljtui'})"
    assert reason(tmp_path / "front", env) == (f"holds {tmp_path / 'front' / 'link'}, a symbolic link on the way to "
                                               f"ljtui's config folder ({real / 'xdg' / 'ljtui'})")
    (tmp_path / "to-home").symlink_to(tmp_path / "home")
    assert reason(tmp_path / "to-home", env) == "is your home folder"


def test_check_root_raises_a_named_error_saying_why_and_what_to_do(tmp_path: Path, env: dict[str, str]) -> None:
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    with pytest.raises(UnsafeRoot) as refused:
        check_root(home, env)
    assert refused.value.root == home and refused.value.reason == "is your home folder"
    assert refused.value.message == (
        f"{home} is your home folder: ljtui does not work there, because the commands it runs could change your "
        "shell's startup files, ~/.ssh and ljtui's own settings; work in a project folder instead")
    named = UnsafeRoot(place_refusal(home, env), home / "notes")  # type: ignore[arg-type]
    assert named.message.startswith(f"{home / 'notes'} is in the repository at {home}, which is your home folder: ")
    assert named.message.endswith(f"; make {home / 'notes'} a repository of its own (git init), or work in another "
                                  "folder")
    check_root(home / "notes", env)


def test_the_guarded_folders_are_listed_once_each_home_first(tmp_path: Path, env: dict[str, str]) -> None:
    folders = guarded_folders(env)
    labels = [f.label for f in folders]
    assert labels[0] == "your home folder" and not folders[0].own
    assert labels.count("ljtui's config folder") == labels.count("ljtui's state folder") == 1
    assert "the folder of ljtui's config file" not in labels  # it is the config folder itself
    assert len({f.path for f in folders}) == len(folders)


def test_the_trust_list_name_is_the_one_the_trust_store_uses() -> None:
    assert TRUST_FILE == trust.TRUST_FILE


def test_resolve_follows_links_as_the_kernel_does_and_names_each_link(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "rel").symlink_to("a/b")
    (tmp_path / "a" / "up").symlink_to("..")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for path in ("rel/c", "a/up/rel/../x", "missing/y", "rel"):
        real, _ = resolve(tmp_path / path)
        assert real == os.path.realpath(tmp_path / path), path
    assert resolve(tmp_path / "a" / "up" / "rel")[1] == (str(tmp_path / "a" / "up"), str(tmp_path / "rel"))
    real, links = resolve(tmp_path / "loop" / "z")
    assert links[0] == str(tmp_path / "loop") and len(links) > 1  # a loop ends; it never hangs
