"""``!command`` in the prompt: the user's own command, shown in the Conversation as it ends.

The engine runs it (:mod:`ljtui.core.user_shell`, through its user context) in
an engine worker, so Esc and Ctrl+C stop it as they stop a running request;
its output, bounded, is shown as plain text under the command and goes to the
model with the next message.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ljtui.tui.app import LjtuiApp
    from ljtui.tui.widgets.prompt_input import PromptInput

USER_COMMAND = "user-command"
"""The worker's name."""
BUSY = "Still working on the previous request; wait for it to finish (Esc stops it), then run the command."
NEXT = "Its output goes to the model with your next message."


def run_user_command(app: LjtuiApp, prompt: PromptInput, command: str) -> None:
    """Run ``command`` (the text after ``!``) as the user's own; a blank one or a busy app says why not and
    keeps the prompt's text."""
    conv = app.main_screen.conversation
    if not command:
        conv.add_notice(app.engine.user_context.own_usage, "error")
        return
    if app.bridge.busy:
        conv.add_notice(BUSY, "warning")
        return
    prompt.clear()
    conv.add_user(f"!{command}")
    conv.show_thinking(f"running {command} (your own command, not sandboxed; Esc stops it)")
    app.bridge.run(_run(app, command), USER_COMMAND)


async def _run(app: LjtuiApp, command: str) -> None:
    conv = app.main_screen.conversation
    try:
        run = await app.engine.user_context.run_own(command)
    except OSError as exc:
        conv.hide_thinking()
        conv.add_notice(f"!{command} could not start: {exc.strerror or exc}", "error")
        return
    except asyncio.CancelledError:
        conv.hide_thinking()
        conv.add_notice(f"Stopped: {command} (nothing of it goes to the model).", "warning")
        raise
    conv.hide_thinking()
    conv.add_details(f"$ {command}  ({run.ending})", (run.output or "(no output)").splitlines(), collapsed=False)
    conv.add_notice(NEXT)
