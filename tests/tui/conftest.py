"""Building apps for Pilot and snapshot tests: scripted model, fixed clock,
no cursor blink, no animation, isolated config (see tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from ljtui.core.ports import FixedClock
from ljtui.tui.app import LjtuiApp
from tests.fixtures import SCRIPTS

AppFactory = Callable[..., LjtuiApp]


@pytest.fixture
def make_app(git_repo: Path) -> AppFactory:
    """``make_app(script="hello.yaml", theme=None, **overrides)``."""

    def factory(script: str | None = "hello.yaml", theme: str | None = None, *, watch: bool = False,
                review_path: Path | None = None, **overrides: object) -> LjtuiApp:
        settings: dict[str, object] = {"ui.theme": theme, **overrides}
        if script is not None:
            settings["provider.name"] = "scripted"
            settings["provider.script"] = str(SCRIPTS / script)
        app = LjtuiApp(git_repo, overrides=settings, clock=FixedClock(), cursor_blink=False, watch=watch,
                       review_path=review_path)
        app.animation_level = "none"
        return app

    return factory
