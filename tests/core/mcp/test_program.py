"""A stdio server's command resolved as a shell would: on the PATH it is given, or at its path; real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ljtui.core.mcp.program import ProgramNotFound, resolve_program


def program(path: Path, *, executable: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755 if executable else 0o644)
    return path


def test_a_bare_name_is_the_first_executable_file_of_that_name_in_the_folders_of_path(tmp_path: Path) -> None:
    first, second, third = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    (first / "srv").mkdir(parents=True)  # a folder of that name is no program
    program(second / "srv", executable=False)
    found = program(third / "srv")
    program(tmp_path / "d" / "srv")
    env = {"PATH": os.pathsep.join(str(folder) for folder in (first, second, third, tmp_path / "d"))}
    assert resolve_program("srv", env=env, cwd=tmp_path) == str(found)


def test_a_relative_or_empty_entry_of_path_is_never_searched_even_when_it_holds_the_program(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program(tmp_path / "srv")
    program(tmp_path / "bin" / "srv")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ProgramNotFound) as caught:
        resolve_program("srv", env={"PATH": os.pathsep.join(["", ".", "bin"])}, cwd=tmp_path)
    assert caught.value.searched == () and caught.value.skipped == ("(empty)", ".", "bin")
    assert str(caught.value) == ("no program named 'srv' anywhere: PATH names no absolute folder; not searched, as "
                                 "not absolute: (empty), ., bin; install it there, or give its full path as the "
                                 "server's command")


def test_without_path_the_systems_default_folders_are_searched(tmp_path: Path) -> None:
    assert resolve_program("sh", env={}, cwd=tmp_path) in ("/bin/sh", "/usr/bin/sh")


def test_a_command_with_a_slash_is_a_path_from_the_servers_folder_or_from_home(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    local = program(tmp_path / "work" / "tools" / "srv")
    mine = program(tmp_path / "home" / "bin" / "srv")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert resolve_program("tools/srv", env={"PATH": ""}, cwd=tmp_path / "work") == str(local)
    assert resolve_program("./tools/srv", env={}, cwd=tmp_path / "work") == str(local)
    assert resolve_program("~/bin/srv", env={}, cwd=tmp_path) == str(mine)
    assert resolve_program(str(local), env={}, cwd=tmp_path / "home") == str(local)


def test_a_path_that_is_missing_or_not_executable_says_which(tmp_path: Path) -> None:
    plain = program(tmp_path / "plain", executable=False)
    with pytest.raises(ProgramNotFound, match=f"^no program at {tmp_path / 'gone'}$"):
        resolve_program(str(tmp_path / "gone"), env={}, cwd=tmp_path)
    with pytest.raises(ProgramNotFound, match=f"^{plain} is not an executable file$"):
        resolve_program("./plain", env={}, cwd=tmp_path)
    with pytest.raises(ProgramNotFound, match="is not an executable file$"):
        resolve_program(str(tmp_path), env={}, cwd=tmp_path)
