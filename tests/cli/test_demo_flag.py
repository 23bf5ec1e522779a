"""The ``--demo`` flag: what it refuses, and what it says when the demo cannot start."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from ljtui.cli.main import main


@pytest.mark.parametrize("argv, message", [
    (["--demo", "--provider", "anthropic", "--script", "x.yaml"],
     "ljtui --demo: the demo brings its own recorded model and sample repository; drop --provider, --script"),
    (["--demo", "--repo", "."], "ljtui --demo: the demo brings its own recorded model and sample repository; "
                                "drop --repo"),
    (["--demo", "undo"], "ljtui --demo: the demo runs on its own; run `ljtui undo` without --demo"),
])
def test_flags_the_demo_cannot_take_are_refused(argv: list[str], message: str, tmp_path: Path, capsys,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == message
    assert list(tmp_path.iterdir()) == []


def test_the_help_lists_the_demo(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "--demo" in capsys.readouterr().out


def test_a_demo_that_cannot_make_its_repository_exits_1_with_the_reason(tmp_path: Path, capsys,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["--demo"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "ljtui --demo: the demo needs git to make its sample project a repository, and git was not found"
    assert list(tmp_path.iterdir()) == []
