"""What Enter in the prompt does: a slash command runs, ``!command`` runs as the user's own, any other text is
asked (unless it names an image the model cannot take: then it stays in the prompt)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ljtui.tui.actions import NONE, REQUIRED
from ljtui.tui.commands import ACTIONS
from ljtui.tui.slash import UnknownSlashCommand, parse_slash, unescape_message
from ljtui.tui.user_commands import sends_user_command

if TYPE_CHECKING:
    from ljtui.tui.app import LjtuiApp
    from ljtui.tui.widgets.prompt_input import PromptInput

CHAT, EDIT, PLAN, MESSAGE = "chat", "edit", "plan", "message"
"""How text is asked: ``/chat`` (the agent), ``/edit`` (the EDIT planner), ``/plan`` (a task plan), or a plain
message, which the engine routes to one of the agent, a task plan or a skill's plan."""


def send_prompt(app: LjtuiApp, prompt: PromptInput, text: str) -> None:
    """Act on ``text`` sent from ``prompt``: blank text does nothing; an unknown command stays selected."""
    if not text.strip():
        return
    if not app.started:  # the engine is still being built: sent once it is, never waited for here
        app.prompt_held = True
        return
    if sends_user_command(app, prompt, text):  # one of the user's own commands (ljtui.tui.user_commands)
        return
    conv = app.main_screen.conversation
    own = app.engine.user_context.own_command(text)
    if own is not None:  # only typed here: nothing else the session reads starts the user's own command
        from ljtui.tui.bang_command import run_user_command

        run_user_command(app, prompt, own)
        return
    try:
        command = parse_slash(text, app.slash_names())
    except UnknownSlashCommand as exc:
        conv.add_notice(str(exc), "error")
        prompt.select_all()  # kept to fix, replaced by whatever is typed next
        return
    refused = app.engine.user_context.image_refusal(text) if command is None or command.name == CHAT else None
    if refused is not None:
        conv.add_notice(refused, "error")
        return
    prompt.clear()
    if command is None:
        app.ask(unescape_message(text), mode=MESSAGE)
        return
    action = ACTIONS.slash(command.name)
    if action is None:  # a skill: its steps become the task plan, approved as any other
        app.ask(command.args or f"Carry out the {command.name} skill.", mode=PLAN, skill=command.name)
        return
    if action.args == REQUIRED and not command.args:
        conv.add_notice(f"Usage: {action.usage}", "error")
    elif action.args == NONE and command.args:
        conv.add_notice(f"/{command.name} takes no argument. Usage: {action.usage}", "error")
    else:
        action.run(app, command.args)
