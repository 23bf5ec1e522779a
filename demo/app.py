"""The demo's screen: the full app on the demo's copy, with its recorded model and its guide.

:class:`DemoApp` is :class:`~ljtui.tui.app.LjtuiApp` with four additions:
after the first frame it sends the demo's request as if the user had typed
it; after each engine event has been shown, it shows what the
:class:`~ljtui.demo.tour.Tour` says about it; when the planner's plan
opens, the Diff pane takes the focus, as it does for ``ljtui review``; and
a message typed where the recording has no answer is not sent (the guide
says what to do instead). It presses no key and touches no file:
everything else is the user's doing, through the same engine and dialogs
as always.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

from ljtui.core.review.events import PlanOpened
from ljtui.demo.repo import DemoRepo
from ljtui.demo.steps import DETOURS, INTRO, LABEL, PLANNER_ORIGIN, RECORDING_ONLY, REQUEST, STEPS
from ljtui.demo.tour import Tour
from ljtui.tui import app as tui_app
from ljtui.tui.app import LjtuiApp
from ljtui.tui.commands import ACTIONS
from ljtui.tui.messages import EngineEventPosted
from ljtui.tui.screens.main import StartupInfo

DEMO_CHUNK_DELAY = 0.01
"""Seconds between the recorded model's words: the replay takes about as long as reading it."""
_FUNCTION_KEY = re.compile(r"f\d+")


def demo_settings(demo: DemoRepo, chunk_delay: float = DEMO_CHUNK_DELAY) -> dict[str, Any]:
    """The configuration keys the demo sets over every other layer: its recorded model, and no copy-on-write layer
    (the tour works on its own copy of the sample project, and its recording shows each command's dialog)."""
    return {"provider.name": "scripted", "provider.script": str(demo.script), "provider.chunk_delay": chunk_delay,
            "agent.layer": "off"}


def key_names(keymap: Mapping[str, str]) -> dict[str, str]:
    """The first key of every action as the footer spells it (``a``, ``F4``), the user's keymap applied."""
    names = {}
    for action in ACTIONS.actions:
        first = (keymap.get(action.id) or action.keys).split(",")[0].strip()
        names[action.id] = first.upper() if _FUNCTION_KEY.fullmatch(first) else first
    return names


class DemoApp(LjtuiApp):
    """ljtui on the demo's repository, guided step by step."""

    CSS_PATH = str(Path(tui_app.__file__).parent / LjtuiApp.CSS_PATH)
    """The app's stylesheet (Textual reads a relative path from the subclass's own folder)."""

    def __init__(self, demo: DemoRepo, *, overrides: Mapping[str, Any] | None = None,
                 chunk_delay: float = DEMO_CHUNK_DELAY, **kwargs: Any) -> None:
        """
        Args:
            demo: the copy of the sample project to work in.
            overrides: configuration keys from flags (the model's keys are the demo's own).
            chunk_delay: seconds between the recorded model's words.
            **kwargs: passed on to :class:`~ljtui.tui.app.LjtuiApp`.
        """
        settings = {**(overrides or {}), **demo_settings(demo, chunk_delay)}
        super().__init__(demo.root, overrides=settings, **kwargs)
        self.demo = demo
        facts = {"repo": str(demo.root), "project": demo.project, "keys": key_names(self.config.ui.keymap)}
        self.tour = Tour(STEPS, DETOURS, facts)
        self._intro = INTRO.format_map(facts)

    def startup_info(self) -> StartupInfo:
        """The demo's introduction and first step instead of the usual greeting; warnings as usual."""
        notices = [(self._intro, "info"), *self.tour.start()]
        notices += [(w, "warning") for w in self.startup_warnings]
        problem = self.startup.provider_problem
        if problem:
            notices.append((problem[0].upper() + problem[1:] + ".", "warning"))
        return StartupInfo(LABEL, self.startup.branch, notices)

    def main_screen_ready(self) -> None:
        """After the first frame, send the demo's request, then start the app's own start-up work."""
        self.call_after_refresh(lambda: self.ask(REQUEST, mode="edit"))
        super().main_screen_ready()

    def ask(self, text: str, *, mode: str = tui_app.CHAT, skill: str | None = None) -> None:
        """Send a message when the recording has an answer for it; otherwise say what to do now."""
        step = self.tour.current
        if text == REQUEST or (step.chat and mode in (tui_app.CHAT, tui_app.MESSAGE)) or (
                step.plan and mode == tui_app.PLAN and skill is None):
            super().ask(text, mode=mode)
            return
        for notice, level in self.tour.off_script(RECORDING_ONLY):
            self.main_screen.conversation.add_notice(notice, level)

    async def on_engine_event_posted(self, message: EngineEventPosted) -> None:
        """Show the event as the app does, then the guide's words about it."""
        message.prevent_default()  # the app's handler runs here, in order, instead of after this one
        if not self.screen_stack:
            return  # the app is closing
        event = message.event
        screen = self.main_screen
        if isinstance(event, PlanOpened) and event.origin == PLANNER_ORIGIN:
            screen.focus_diff_when_opened = True
        await super().on_engine_event_posted(message)
        for text, level in self.tour.after(event):
            screen.conversation.add_notice(text, level)
