"""The app never opens on the home folder or on a folder holding ljtui's config: the constructor raises the named
error (``ljtui`` itself says why on stderr first: tests/cli/test_session_root_cli.py), and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ljtui.core.session_root import UnsafeRoot
from ljtui.tui.app import LjtuiApp


@pytest.mark.parametrize(("where", "why"), [("home", "is your home folder"),
                                            ("shared", "holds ljtui's config folder")])
def test_the_app_refuses_to_open_on_the_home_folder_or_the_config(tmp_path: Path, where: str, why: str) -> None:
    home, shared = tmp_path / "home", tmp_path / "shared"
    home.mkdir()
    shared.mkdir()
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(shared / "xdg"), "XDG_STATE_HOME": str(tmp_path / "state")}
    with pytest.raises(UnsafeRoot) as refused:
        LjtuiApp(tmp_path / where, env=env, cursor_blink=False, watch=False)
    assert refused.value.reason.startswith(why)
    assert refused.value.message.endswith("; work in a project folder instead")
    assert list(home.iterdir()) == [] and list(shared.iterdir()) == []
