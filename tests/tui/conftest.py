"""Building apps for Pilot and snapshot tests: scripted model, fixed clock,
no cursor blink, no animation, isolated config (see tests/conftest.py)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Callable

import pytest

from ljtui.core.ports import FixedClock
from ljtui.core.review.requests import ReviewRequest
from ljtui.tui.app import LjtuiApp
from tests.fixtures import SCRIPTS

AppFactory = Callable[..., LjtuiApp]


@pytest.fixture
def make_app(git_repo: Path) -> AppFactory:
    """``make_app(script="hello.yaml", theme=None, **overrides)``."""

    def factory(script: str | None = "hello.yaml", theme: str | None = None, *, watch: bool = False,
                review_path: Path | None = None, resume: str | None = None, **overrides: object) -> LjtuiApp:
        settings: dict[str, object] = {"ui.theme": theme, **overrides}
        if script is not None:
            settings["provider.name"] = "scripted"
            settings["provider.script"] = str(SCRIPTS / script)
        app = LjtuiApp(git_repo, overrides=settings, clock=FixedClock(), cursor_blink=False, watch=watch,
                       review=ReviewRequest(path=review_path) if review_path else None, resume=resume)
        app.animation_level = "none"
        return app

    return factory


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool]) -> Callable[..., bool]:
    """pytest-textual-snapshot's ``snap_compare``, with ``run_before`` starting once the main screen is
    composed and the start-up work done: Textual's auto-pilot starts as soon as the app is ready, and
    ljtui's main screen composes right after, then builds the engine and reads the gates."""

    def compare(app: Any, *args: Any, run_before: Callable[..., Any] | None = None, **kwargs: Any) -> bool:
        if not isinstance(app, LjtuiApp):
            return snap_compare(app, *args, run_before=run_before, **kwargs)

        async def ready_first(pilot) -> None:  # type: ignore[no-untyped-def]
            await until(pilot, lambda: app.started, "the start-up work")
            await app.workers.wait_for_complete()
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result

        return snap_compare(app, *args, run_before=ready_first, **kwargs)

    return compare


WAIT_SECONDS = 60.0
"""Longest a test waits for the app to reach a state (CI runs tests in parallel on 2 CPUs)."""
POLL_SECONDS = 0.01


async def until(pilot, condition: Callable[[], bool], what: str) -> None:
    """Let the app run until ``condition()`` holds; fail naming ``what`` after :data:`WAIT_SECONDS`."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    await pilot.pause()
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(POLL_SECONDS)
        await pilot.pause()


def _quiet(app: LjtuiApp) -> bool:
    from ljtui.tui.bridge import WATCH_GROUP
    from ljtui.tui.screens.dialog import Dialog

    if isinstance(app.screen, Dialog):
        return True
    if any(w.is_running and w.group != WATCH_GROUP for w in app.workers) or app._message_queue.qsize():
        return False
    return not _messages_waiting(app) and _followed(app)


def _messages_waiting(app: LjtuiApp) -> bool:
    """A widget of the screen shown has messages it has not handled yet (a diff page posted to its pane)."""
    return any(node._message_queue.qsize() for node in app.screen.walk_children(with_self=True))


def _followed(app: LjtuiApp) -> bool:
    """A Conversation that follows its output has scrolled to its end (its scroll waits for a refresh), and its
    scrollbar shows the view as it is."""
    from textual.css.query import NoMatches

    from ljtui.tui.widgets.conversation import Conversation

    try:
        conv = app.main_screen.query_one(Conversation)
    except (NoMatches, AssertionError, IndexError):  # no main screen (yet, or any more)
        return True
    if conv.following and conv.max_scroll_y > 0 and conv.scroll_y < conv.max_scroll_y:
        return False
    if not conv.show_vertical_scrollbar:
        return True
    bar = conv.vertical_scrollbar  # drawn from what it was last told: the size and place it shows must be current
    return bar.window_virtual_size == conv.virtual_size.height and round(bar.position) == round(conv.scroll_y)


async def settle(pilot) -> None:
    """Let engine work finish, or stop at the dialog it opened (the file watcher runs on); a Conversation
    that follows its output is at its end, and its scrollbar has stopped changing (on a loaded machine a
    layout pass can still move it a fraction of a cell after the scroll reached the end)."""
    await until(pilot, lambda: _quiet(pilot.app), "engine work to finish or a dialog to open")
    await pilot.pause()
    seen = _scrollbar(pilot.app)
    for _ in range(STABLE_PAUSES):
        await pilot.pause()
        now = _scrollbar(pilot.app)
        if now == seen:
            return
        seen = now


STABLE_PAUSES = 20
"""Most extra pauses :func:`settle` waits for the Conversation's scrollbar to stop changing."""


def _scrollbar(app: LjtuiApp) -> tuple[object, ...]:
    """What the Conversation's vertical scrollbar draws from (empty when there is none)."""
    from textual.css.query import NoMatches

    from ljtui.tui.widgets.conversation import Conversation

    try:
        conv = app.main_screen.query_one(Conversation)
    except (NoMatches, AssertionError, IndexError):
        return ()
    if not conv.show_vertical_scrollbar:
        return (conv.scroll_y, conv.virtual_size)
    bar = conv.vertical_scrollbar
    return (conv.scroll_y, conv.virtual_size, bar.window_size, bar.window_virtual_size, bar.position)


def notices(app: LjtuiApp) -> list[str]:
    """Every notice line in the Conversation pane, oldest first."""
    from ljtui.tui.widgets.conversation import NoticeLine

    return [str(n.render()) for n in app.main_screen.query(NoticeLine)]


def toasts(app: LjtuiApp) -> list[str]:
    """The messages of the notifications shown now (the one-line hints), oldest first."""
    return [str(n.message) for n in app._notifications]


def states(app: LjtuiApp) -> list[str]:
    """The Diff pane's block states."""
    return [b.state for b in app.main_screen.diff_pane.blocks]
