"""The actions of ljtui: what each key, slash command and palette entry does.

Each handler only starts work: engine operations run in workers through
the bridge and report back as events; UI-only actions (focus, selection,
layout) act on widgets directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ljtui.tui.actions import APP, DIFF, MAIN, OPTIONAL, REQUIRED, Action, Registry
from ljtui.tui.slash import playbook_action
from ljtui.tui.user_commands import commands_action

if TYPE_CHECKING:
    from ljtui.tui.app import LjtuiApp
    from ljtui.tui.widgets.plan_pane import PlanPane

PLAN = "plan"
"""Scope of the Plan pane's keys (the pane's widget id, as key routing expects)."""
GATES = "gates"
"""Scope of the Gates pane's keys (the pane's widget id)."""


def _help(app: LjtuiApp, _: str) -> None:
    app.action_help()


def _clear(app: LjtuiApp, _: str) -> None:
    app.bridge.run(app.engine.clear_asked(), "clear")


def _quit(app: LjtuiApp, _: str) -> None:
    app.exit(0)


def _focus(pane: str):
    def run(app: LjtuiApp, _: str) -> None:
        app.main_screen.action_focus_pane(pane)
    return run


def _maximize(app: LjtuiApp, _: str) -> None:
    app.main_screen.action_toggle_maximize()


def _side(app: LjtuiApp, _: str) -> None:
    app.main_screen.action_toggle_side()


def _move(step: int):
    def run(app: LjtuiApp, _: str) -> None:
        app.main_screen.diff_pane.action_move(step)
    return run


def _page(step: int):
    def run(app: LjtuiApp, _: str) -> None:
        app.main_screen.diff_pane.action_page(step)
    return run


def _diff(method: str, *args: int):
    def run(app: LjtuiApp, _: str) -> None:
        getattr(app.main_screen.diff_pane, method)(*args)
    return run


def plan_pane(app: LjtuiApp) -> PlanPane:
    """The main screen's Plan pane."""
    from ljtui.tui.widgets.plan_pane import PlanPane

    return app.main_screen.query_one(PlanPane)


def _plan(method: str, *args: int):
    def run(app: LjtuiApp, _: str) -> None:
        getattr(plan_pane(app), method)(*args)
    return run


def _gates(method: str, *args: int):
    def run(app: LjtuiApp, _: str) -> None:
        from ljtui.tui.widgets.gates_pane import GatesPane

        pane: GatesPane = app.main_screen.query_one(GatesPane)
        getattr(pane, method)(*args)
    return run


def _plan_reject(app: LjtuiApp, args: str) -> None:
    """Escape rejects a waiting plan; otherwise it cancels the running request, as everywhere else."""
    if not plan_pane(app).action_reject():
        _cancel(app, args)


def _toggle(app: LjtuiApp, _: str) -> None:
    number = app.main_screen.diff_pane.current_number
    app.bridge.thread(lambda: app.engine.review.toggle(number), "toggle")


def _set_all(accepted: bool):
    def run(app: LjtuiApp, _: str) -> None:
        app.bridge.thread(lambda: app.engine.review.set_all(accepted), "set_all")
    return run


def _apply(app: LjtuiApp, _: str) -> None:
    app.bridge.run(app.engine.review.apply(), "apply")


def _undo(app: LjtuiApp, _: str) -> None:
    app.bridge.run(app.engine.review.undo(), "undo")


def _export(app: LjtuiApp, args: str) -> None:
    app.bridge.run(app.engine.review.export(args or None), "export")


def _open(app: LjtuiApp, args: str) -> None:
    app.bridge.thread(lambda: app.engine.review.open_typed(args), "open_plan")


def _chat(app: LjtuiApp, args: str) -> None:
    app.ask(args, mode="chat")


def _edit(app: LjtuiApp, args: str) -> None:
    app.ask(args, mode="edit")


def _plan_goal(app: LjtuiApp, args: str) -> None:
    app.ask(args, mode="plan")


NOTHING_RUNNING = "Nothing is running. Escape cancels a running request; Ctrl+Q quits."
"""What Escape or Ctrl+C says when there is nothing to cancel (once, however often it is pressed)."""


def _cancel(app: LjtuiApp, _: str) -> None:
    if not app.bridge.cancel():
        app.main_screen.conversation.add_notice_once(NOTHING_RUNNING)


def _escape(app: LjtuiApp, args: str) -> None:
    """Escape cancels the running request; twice with nothing running and an empty input box, it opens rewind."""
    from ljtui.tui.screens.rewind import second_escape

    if not second_escape(app):
        _cancel(app, args)


def _rewind(app: LjtuiApp, _: str) -> None:
    from ljtui.tui.screens.rewind import open_rewind

    open_rewind(app)


def _model(app: LjtuiApp, args: str) -> None:
    app.engine.set_model(args.strip())


def _compact(app: LjtuiApp, _: str) -> None:
    app.bridge.run(app.engine.compact(), "compact")


def _resume(app: LjtuiApp, args: str) -> None:
    if args.strip():
        app.resume(args.strip())
    else:
        app.bridge.thread(lambda: app.list_sessions(), "sessions")


def _memory(app: LjtuiApp, _: str) -> None:
    app.bridge.thread(lambda: app.call_from_thread(app.show_lines, "Long-term memory", app.engine.memory_view()),
                      "memory")


def _mcp(app: LjtuiApp, _: str) -> None:
    app.show_lines("MCP servers", app.engine.mcp.listing())


def _hooks(app: LjtuiApp, _: str) -> None:
    def listing() -> None:  # reads the config's hooks, the repository's files and the last results
        lines = app.engine.hooks.listing()
        app.call_from_thread(app.show_lines, "Hooks", lines)

    app.bridge.thread(listing, "hooks")


def _cost(app: LjtuiApp, _: str) -> None:
    app.show_lines("Tokens, cost and time since ljtui started", app.costs.lines())


def _theme(app: LjtuiApp, args: str) -> None:
    app.choose_theme(args)


def _reject_reason(app: LjtuiApp, _: str) -> None:
    app.bridge.run(app.engine.review.reject_with_reason(app.main_screen.diff_pane.current_number), "reject")


def _pick_place(app: LjtuiApp, args: str) -> None:
    number, index = app.main_screen.diff_pane.current_number, args.strip()
    app.bridge.thread(lambda: app.engine.review.pick_place(number, int(index) if index.isdigit() else 0), "pick")


def _edit_block(app: LjtuiApp, _: str) -> None:
    app.bridge.run(app.engine.review.edit_block(app.main_screen.diff_pane.current_number), "edit")


def _layer_diff(app: LjtuiApp, args: str) -> None:
    if args.strip() == "binary":
        app.bridge.run(app.engine.take_layer_binary(), "layer")
    elif args.strip():
        app.main_screen.conversation.add_notice(f"/diff takes no argument but 'binary' (got {args.strip()!r})",
                                                "warning")
    else:
        app.bridge.run(app.engine.review_layer(), "layer")


def _gates_command(app: LjtuiApp, args: str) -> None:
    app.bridge.run(app.gates_command(args), "gates")


ACTIONS = Registry((
    Action("app.help", "Show keys and commands", _help, keys="f1,question_mark", label="Help", slash="help",
           usage="/help", priority=True),
    Action("app.clear", "Forget the conversation and clear the Conversation pane (asks first)", _clear,
           keys="ctrl+l",
           slash="clear", usage="/clear"),
    Action("app.quit", "Quit ljtui", _quit, keys="ctrl+q", label="Quit", priority=True),
    Action("focus.conversation", "Focus the Conversation pane", _focus("conversation"), keys="f2",
           scope=MAIN, priority=True),
    Action("focus.plan", "Focus the Plan pane", _focus("plan"), keys="f3", scope=MAIN, priority=True),
    Action("focus.diff", "Focus the Diff pane", _focus("diff"), keys="f4", scope=MAIN, priority=True),
    Action("focus.gates", "Focus the Gates pane", _focus("gates"), keys="f5", scope=MAIN, priority=True),
    Action("focus.prompt", "Focus the input box", _focus("prompt"), keys="f6", scope=MAIN, priority=True),
    Action("pane.maximize", "Maximise the focused pane, or restore the layout", _maximize, keys="f8", label="Max",
           scope=MAIN),
    Action("pane.side", "Hide or show the Plan, Diff and Gates panes", _side, keys="f9", scope=MAIN),
    Action("review.apply", "Apply the accepted blocks (asks first)", _apply, keys="a", label="Apply", scope=DIFF,
           slash="apply", usage="/apply"),
    Action("review.toggle", "Diff pane: accept or reject the selected block", _toggle, keys="space",
           label="Accept/reject", scope=DIFF),
    Action("review.next", "Diff pane: select the next block", _move(1), keys="j,down", label="Next", scope=DIFF,
           palette=False),
    Action("review.prev", "Diff pane: select the previous block", _move(-1), keys="k,up", label="Prev",
           scope=DIFF, palette=False),
    Action("review.reject_reason", "Diff pane: reject the selected block, saying why (the model reads it)",
           _reject_reason, keys="r", scope=DIFF),
    Action("review.edit_block", "Diff pane: edit the selected block's new text before accepting it", _edit_block,
           keys="E", scope=DIFF),
    Action("review.pick", "Diff pane: apply a block whose text occurs at several places at the listed place N",
           _pick_place, keys="1,2,3,4,5,6,7,8,9", scope=DIFF, slash="pick", usage="/pick N", args=REQUIRED),
    Action("review.accept_all", "Diff pane: accept every block", _set_all(True), keys="A", label="All",
           scope=DIFF, minor=True),
    Action("review.reject_all", "Diff pane: reject every block", _set_all(False), keys="R", label="None",
           scope=DIFF, minor=True),
    Action("review.undo", "Undo the last apply (asks first)", _undo, keys="u", label="Undo", scope=DIFF,
           slash="undo", usage="/undo"),
    Action("review.export", "Export the accepted blocks to a plan file", _export, keys="e", label="Export",
           scope=DIFF, slash="export", usage="/export [PATH]", args=OPTIONAL, minor=True),
    Action("review.page_down", "Diff pane: scroll the diff down a page (at its end: the next part of a long diff)",
           _page(1), keys="pagedown", scope=DIFF, palette=False),
    Action("review.page_up", "Diff pane: scroll the diff up a page (at its top: the previous part of a long diff)",
           _page(-1), keys="pageup", scope=DIFF, palette=False),
    Action("review.wrap", "Diff pane: wrap long lines, or stop wrapping them (then the diff scrolls sideways)",
           _diff("action_wrap"), keys="w", label="Wrap", scope=DIFF),
    Action("review.right", "Diff pane, lines not wrapped: scroll the diff right", _diff("action_sideways", 1),
           keys="l,right", scope=DIFF, palette=False),
    Action("review.left", "Diff pane, lines not wrapped: scroll the diff left", _diff("action_sideways", -1),
           keys="h,left", scope=DIFF, palette=False),
    Action("review.line_end", "Diff pane, lines not wrapped: scroll to the end of the longest line in view",
           _diff("action_line_end"), keys="end", scope=DIFF, palette=False),
    Action("review.line_start", "Diff pane, lines not wrapped: scroll back to the start of the lines",
           _diff("action_line_start"), keys="home", scope=DIFF, palette=False),
    Action("plan.approve", "Plan pane: run the plan as shown (the edited tasks, if changed)", _plan("action_approve"),
           keys="enter", label="Run", scope=PLAN),
    Action("plan.approve_writes", "Plan pane: run the plan, letting its tasks write files without asking "
           "(commands still ask)", _plan("action_approve_writes"), keys="w", scope=PLAN),
    Action("plan.reject", "Plan pane: reject the proposed plan (nothing runs)", _plan_reject, keys="escape",
           label="Reject", scope=PLAN),
    Action("plan.next", "Plan pane: select the next task", _plan("action_select", 1), keys="j,down",
           scope=PLAN, palette=False),
    Action("plan.prev", "Plan pane: select the previous task", _plan("action_select", -1), keys="k,up",
           scope=PLAN, palette=False),
    Action("plan.edit", "Plan pane: edit the selected task's description", _plan("action_edit"), keys="e",
           label="Edit", scope=PLAN),
    Action("plan.add", "Plan pane: add a task after the selected one", _plan("action_add"), keys="n",
           label="Add", scope=PLAN),
    Action("plan.delete", "Plan pane: delete the selected task", _plan("action_delete"), keys="d",
           label="Delete", scope=PLAN),
    Action("plan.move_down", "Plan pane: move the selected task down", _plan("action_shift", 1), keys="J",
           scope=PLAN),
    Action("plan.move_up", "Plan pane: move the selected task up", _plan("action_shift", -1), keys="K",
           scope=PLAN),
    Action("plan.history", "Plan pane: show the replans of the run, or the tasks again", _plan("action_toggle_history"),
           keys="h", label="History", scope=PLAN),
    playbook_action(),
    commands_action(),
    Action("gates.command", "Delivery gates: list them, show one, check, deliver, discard or rework", _gates_command,
           slash="gates", usage="/gates [ID | check [ITEM] | deliver [ID] | discard [ID] | rework ID]", args=OPTIONAL),
    Action("gates.next", "Gates pane: select the next check", _gates("action_select", 1), keys="j,down",
           scope=GATES, palette=False),
    Action("gates.prev", "Gates pane: select the previous check", _gates("action_select", -1), keys="k,up",
           scope=GATES, palette=False),
    Action("gates.expand", "Gates pane: show or hide the selected check's full command and output",
           _gates("action_expand"), keys="enter", label="Output", scope=GATES),
    Action("gates.check", "Gates pane: run the selected check", _gates("action_check"), keys="c", label="Check",
           scope=GATES),
    Action("gates.recheck", "Gates pane: run the failed checks again", _gates("action_recheck_failed"), keys="r",
           label="Re-run failed", scope=GATES),
    Action("review.layer", "Show what the layer holds (the agent's writes and commands' effects) in the Diff pane",
           _layer_diff, slash="diff", usage="/diff [binary]", args=OPTIONAL),
    Action("review.open", "Open a change to review: an EDIT plan, a diff, Aider or Codex edits (--git A..B, "
                          "--format F)", _open, slash="open", usage="/open FILE", args=REQUIRED),
    Action("chat", "Send a message to the agent (the same as typing it)", _chat, slash="chat",
           usage="/chat MESSAGE", args=REQUIRED),
    Action("edit", "Ask the read-only planner for an EDIT plan to review in the Diff pane", _edit, slash="edit",
           usage="/edit REQUEST", args=REQUIRED),
    Action("plan", "Split a goal into a task plan to approve, then run its tasks", _plan_goal, slash="plan",
           usage="/plan GOAL", args=REQUIRED),
    Action("theme", "Switch theme, or list the themes", _theme, slash="theme", usage="/theme [NAME]",
           args=OPTIONAL),
    Action("turn.cancel", "Cancel the running request (its command is stopped)", _escape, keys="escape",
           scope=MAIN),
    Action("rewind", "Go back to an earlier message: restore the files, the conversation or both (also Escape "
                     "twice with an empty input box)", _rewind, slash="rewind", usage="/rewind"),
    Action("turn.interrupt", "Cancel the running request, as in a shell (else say how to quit)", _cancel,
           keys="ctrl+c", scope=MAIN, priority=True, palette=False,
           palette_note="the same as Escape's 'Cancel the running request', which the palette lists"),
    Action("model", "Use another model from the next message on", _model, slash="model", usage="/model NAME",
           args=REQUIRED),
    Action("compact", "Summarise the older conversation now to free the context", _compact, slash="compact",
           usage="/compact"),
    Action("cost", "Show the tokens, cost and time of each model call, task and gate run", _cost, slash="cost",
           usage="/cost"),
    Action("memory", "Show the long-term memory (.agent/memory.md) and whether it is loaded", _memory,
           slash="memory", usage="/memory"),
    Action("resume", "Continue a saved session, or list them", _resume, slash="resume", usage="/resume [ID]",
           args=OPTIONAL),
    Action("mcp", "List the MCP servers: their state and tools, or why one is down", _mcp, slash="mcp",
           usage="/mcp"),
    Action("hooks", "List the hooks: yours and a trusted repository's, and how each last ran", _hooks,
           slash="hooks", usage="/hooks"),
))
"""Every action of the app."""

__all__ = ["ACTIONS", "APP", "DIFF", "GATES", "MAIN", "PLAN"]
