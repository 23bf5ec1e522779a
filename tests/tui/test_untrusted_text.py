"""Text from outside ljtui is never markup, never an action, never terminal control (SAFE-4).

Every string of the hostile corpus (:mod:`tests.fixtures.hostile`) goes through each place the app shows
text from a model, a repository, a command or a server: a reply and its links, tool calls and their
output, permission dialogs (a long command at 80x24 too) and the trust dialog, the status bar, the Plan,
Diff and Gates panes, notices, the spinner, listings under a title, a resumed transcript and the help screen. Each time: no
crash, the text's visible form on screen, no click action (but a reply's own links, which open nothing),
no hyperlink, no control character in what is drawn.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import yaml
from textual.widgets import Static

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.display import shown, shown_line
from ljtui.core.events import ConfigChanged, Notice
from ljtui.core.review.events import ApplyProgressed
from ljtui.core.tasks.events import TaskPlanUpdated
from ljtui.core.tasks.plan import Task
from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.conversation import ToolCallLine
from tests.fixtures.hostile import HOSTILE, one_of_each
from tests.tui.conftest import AppFactory, notices, settle, until
from tests.tui.gate_helpers import ITEMS, gate_view, post_gate
from tests.tui.plan_helpers import ask as ask_plan
from tests.tui.plan_helpers import plan_request, post
from tests.tui.screen_check import assert_safe, drawn

WIDE = (160, 60)
SMALL = (80, 24)
TALL = (160, 160)
WIDER = (200, 60)
"""Wide enough for the status bar with the longest provider and branch of the corpus, and the layer's segment."""
LINK_URL = "https://example.com/docs?q=1"
LONG_COMMAND_CHARS = 3000


def script(tmp_path: Path, turns: list[dict]) -> str:
    """A scripted model's turns, written as YAML (the corpus escaped as YAML escapes)."""
    path = tmp_path / "hostile-script.yaml"
    path.write_text(yaml.safe_dump({"turns": turns}, allow_unicode=False), encoding="utf-8")
    return str(path)


class Actions:
    """Records the app actions a click on hostile text would run, instead of running them."""

    def __init__(self, app, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
        self.ran: list[str] = []
        for name in ("action_quit", "action_screenshot", "open_url", "action_bell"):
            monkeypatch.setattr(app, name, lambda *args, _name=name, **kwargs: self.ran.append(_name))


async def ask(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: pilot.app.started, "the start-up work")
    await pilot.press(*text, "enter")
    await settle(pilot)


async def test_a_reply_shows_hostile_text_as_written_and_a_link_in_it_opens_nothing(
        make_app: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reply = "\n\n".join((*HOSTILE, f"See [the docs]({LINK_URL}) for more."))
    app = make_app(script(tmp_path, [{"text": reply}]))
    actions = Actions(app, monkeypatch)
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "hello")
        screen = assert_safe(app)
        for text in HOSTILE:
            assert shown(text) in screen.text, ascii(text)  # as rendered Markdown
        where = screen.find("the docs")
        assert where is not None
        await pilot.click(offset=where)
        await pilot.pause()
        assert actions.ran == []
        assert any("not opened" in notice and notice.endswith(LINK_URL) for notice in notices(app))
        assert copied == [LINK_URL]
        assert_safe(app)


async def test_tool_calls_with_hostile_arguments_show_them_folded_and_a_click_runs_nothing(
        make_app: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [{"name": "read_file", "input": {"path": text}} for text in HOSTILE]
    app = make_app(script(tmp_path, [{"text": "Reading.", "tool_calls": calls}, {"text": "Done."}]))
    actions = Actions(app, monkeypatch)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "read them")
        lines = list(app.main_screen.query(ToolCallLine))
        assert len(lines) == len(HOSTILE)
        for line, text in zip(lines, HOSTILE):
            assert line.text.startswith(f"▸ read_file {shown_line(text)}"), line.text
            assert line.has_class("-failed")  # no such file: the failure's summary names the path too
        screen = assert_safe(app)
        for text in HOSTILE:
            where = screen.find(shown_line(text))
            assert where is not None, ascii(text)
            await pilot.click(offset=where)  # unfolds the call, and does nothing else
            await pilot.pause()
        assert actions.ran == [] and app.is_running
        assert_safe(app)


async def test_a_command_and_its_output_with_controls_are_shown_as_written(make_app: AppFactory,
                                                                        tmp_path: Path) -> None:
    # The command is plain ASCII; what it prints is an erase, a clipboard write, a title, an 8-bit CSI.
    command = ("printf '\\033]52;c;SGVsbG8=\\007|\\033]0;title\\007|\\033[2K\\033[1Gfake|\\302\\2332J\\n';"
               " echo '[/x]' '[@click=app.quit]click[/]'")
    app = make_app(script(tmp_path, [{"text": "Running.", "tool_calls": [{"name": "bash", "input": {"command":
                                                                                                    command}}]},
                                     {"text": "Done."}]))
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "run it")
        dialog = app.screen
        assert isinstance(dialog, ApprovalDialog)
        assert_safe(app)
        assert f"$ {command}" in str(dialog.query_one(".dialog-lines", Static).render())
        await pilot.press("enter")
        await settle(pilot)
        [line] = app.main_screen.query(ToolCallLine)
        line.collapsed = False
        await pilot.pause()
        screen = assert_safe(app)
        for text in ("\\x1b]52;c;SGVsbG8=\\x07", "\\x1b]0;title\\x07", "\\x1b[2K\\x1b[1Gfake", "\\x9b2J",
                     "[/x] [@click=app.quit]click[/]"):
            assert text in screen.text, ascii(text)


async def test_a_write_dialog_shows_a_hostile_path_and_diff_as_written(make_app: AppFactory, tmp_path: Path,
                                                                       git_repo: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = "[@click=app.quit]click[/]"
    written = [text.replace("\x00", "") for text in HOSTILE]  # write_file refuses a NUL
    content = "".join(f"{text}\n" for text in written)
    app = make_app(script(tmp_path, [{"text": "Writing.", "tool_calls": [
        {"name": "write_file", "input": {"path": path, "content": content}}]}, {"text": "Done."}]))
    actions = Actions(app, monkeypatch)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "write it")
        dialog = app.screen
        assert isinstance(dialog, ApprovalDialog) and dialog.request.diff_path is not None, drawn(app).text
        screen = assert_safe(app)
        assert f"Write {path}?" in screen.text or f"Create {path}?" in screen.text
        added = [line[1:] for line in dialog.request.lines if line.startswith("+") and not line.startswith("+++")]
        assert len(added) == len(written)
        for line in added:  # as core wrote them (it escapes a diff's controls too), and nothing raw
            assert f"+ {shown(line)}" in screen.text, ascii(line)
        where = screen.find(path)
        assert where is not None
        await pilot.click(offset=where)
        await pilot.pause()
        assert actions.ran == [] and app.screen is dialog
        await pilot.press("escape")
        await settle(pilot)
        assert not (git_repo / path).exists()


async def test_a_dialog_shows_a_hostile_title_lines_and_a_long_command_whole_at_80x24(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    words = [f"{text}-{n:04d}" for n in range(LONG_COMMAND_CHARS) for text in HOSTILE]
    command = "echo " + " ".join(words)
    command = command[:LONG_COMMAND_CHARS]
    request = ApprovalRequest("permission", f"Run {one_of_each()}?", (*HOSTILE, "", f"$ {command}"),
                              (Choice("once", "allow once", "enter"), Choice("deny", "deny", "escape")), "deny")
    app = make_app()
    actions = Actions(app, monkeypatch)
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        app.push_screen(ApprovalDialog(request))
        await pilot.pause()
        await pilot.pause()
        dialog = app.screen
        body = dialog.query_one(".dialog-body")
        seen: dict[int, str] = {}
        for y in range(0, body.max_scroll_y + body.size.height, max(1, body.size.height - 1)):
            body.scroll_to(y=y, animate=False, immediate=True)
            await pilot.pause()
            screen = assert_safe(app)
            assert "Enter: allow once    Esc: deny" in screen.text  # the keys never scroll away
            region = body.scrollable_content_region
            for row in range(region.height):
                line = screen.lines[region.y + row][region.x:region.right]
                seen[int(body.scroll_y) + row] = line.rstrip()
        body_text = "\n".join(seen[n] for n in sorted(seen))
        title = shown_line(f"Run {one_of_each()}?")
        flat = "".join(body_text.split())
        assert "".join(title.split()) in flat, ascii(body_text)  # too long for the border: shown whole in the body
        assert "".join(shown(command, exact=True).split()) in flat  # every character, in order
        for text in HOSTILE:
            assert shown(text, exact=True) in body_text
        await pilot.click(offset=(10, 1))
        assert actions.ran == []


async def test_the_status_bar_shows_provider_and_branch_as_written(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=WIDER) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        status = app.main_screen.status
        for text in HOSTILE:
            post(app, ConfigChanged(text))
            await pilot.pause()
            status.branch = text
            await pilot.pause()
            screen = assert_safe(app)
            assert f"{shown_line(text)}  │  tokens" in screen.text
            assert f"branch {shown_line(text)}" in screen.text


async def test_the_plan_pane_shows_a_model_s_tasks_as_written(make_app: AppFactory) -> None:
    tasks = tuple(Task(n + 1, text, text if n % 2 else None) for n, text in enumerate(HOSTILE))
    app = make_app(None)
    async with app.run_test(size=WIDE) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        app.main_screen.action_toggle_maximize()
        await ask_plan(pilot, plan_request(tasks))
        app.main_screen.action_toggle_maximize()
        await pilot.pause()
        screen = assert_safe(app)
        for task in tasks:
            assert f"{task.id}. {shown(task.description, one_line=True)}" in screen.text, ascii(task.description)
        await pilot.press("escape")
        await pilot.pause()
        post(app, TaskPlanUpdated("run-1", 1, one_of_each(), added=tasks[:3], removed=(), changed=()))
        await pilot.pause()
        screen = assert_safe(app)
        assert shown(one_of_each(), one_line=True)[:40] in screen.text


async def test_the_diff_pane_shows_a_plan_with_hostile_text_as_written(make_app: AppFactory,
                                                                       git_repo: Path) -> None:
    written = [text.replace("\x00", "") for text in HOSTILE]  # a NUL would make the file binary (shown as hex)
    new = "".join(f"    {text}\n" for text in written)
    plan = git_repo / "PLAN.md"
    plan.write_text(f"### EDIT 1\n\n- file: `app.py`\n- where: `greet {HOSTILE[1]} {HOSTILE[4]}`\n\n```old\n"
                    f"    return 'hello ' + name\n```\n\n```new\n{new}```\n\n"
                    f"### EDIT 2\n\n- file: `{HOSTILE[6]}.py`\n\n```old\nx\n```\n\n```new\ny\n```\n",
                    encoding="utf-8")
    app = make_app(None, review_path=plan)
    async with app.run_test(size=WIDE) as pilot:
        await until(pilot, lambda: app.main_screen.diff_pane.page is not None, "the block's diff")
        app.main_screen.action_toggle_maximize()
        await pilot.pause()
        screen = assert_safe(app)
        assert f"greet {HOSTILE[1]} {shown(HOSTILE[4])}" in screen.text, ascii(screen.text)  # the block's hint
        assert f"EDIT 2  failed    {shown_line(HOSTILE[6])}.py" in screen.text
        for text in written:  # core escapes a diff that holds controls; the markup is shown as it is
            for fragment in re.findall(r"[ -\[\]-~]{3,}", text):
                assert fragment in screen.text, ascii(fragment)
        app.main_screen.diff_pane.action_move(1)
        await until(pilot, lambda: app.main_screen.diff_pane.current_number == 2, "the failed block")
        await pilot.pause()
        screen = assert_safe(app)
        assert f"{shown_line(HOSTILE[6])}.py" in screen.text


async def test_the_gates_pane_shows_a_gate_with_hostile_text_as_written(make_app: AppFactory) -> None:
    items = tuple(dataclasses.replace(ITEMS[n % len(ITEMS)], id=f"item-{n}", description=text,
                                      command=f"echo {text}", output=f"{text}\r\n{text}\n", agent=text,
                                      status="failed")
                  for n, text in enumerate(HOSTILE))
    view = gate_view(title=one_of_each(), items=items, blocked=HOSTILE, error=HOSTILE[4])
    app = make_app(None)
    async with app.run_test(size=TALL) as pilot:  # every item unfolded fits
        await until(pilot, lambda: app.started, "the start-up work")
        post_gate(app, view)
        await pilot.pause()
        app.main_screen.action_focus_pane("gates")
        await pilot.pause()
        app.main_screen.action_toggle_maximize()
        await pilot.pause()
        pane = app.main_screen.query_one("GatesPane")
        pane.expanded = {item.id for item in items}
        pane._redraw()
        await pilot.pause()
        screen = assert_safe(app)
        for text in HOSTILE:
            one_line = shown(text, one_line=True)
            assert f"  {one_line}" in screen.text, ascii(text)  # a reason delivery is refused
            assert f"$ echo {shown_line(text)}" in screen.text, ascii(text)  # the command, every character visible
            assert f"│ {shown(text)}" in screen.text, ascii(text)  # its output


async def test_notices_the_spinner_listings_and_a_resumed_transcript_show_hostile_text_as_written(
        make_app: AppFactory) -> None:
    app = make_app(None)
    async with app.run_test(size=WIDE) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        conv = app.main_screen.conversation
        post(app, *(Notice(text, "warning") for text in HOSTILE), ApplyProgressed(HOSTILE[0]))
        await pilot.pause()
        screen = assert_safe(app)
        for text in HOSTILE:
            assert shown(text) in screen.text, ascii(text)
        assert f"applying: {shown_line(HOSTILE[0])}" in screen.text
        await conv.clear()
        app.show_lines(one_of_each(), list(HOSTILE))  # a playbook, gate or session listing under its title
        await pilot.pause()
        screen = assert_safe(app)
        assert shown_line(one_of_each())[:60] in screen.text
        for text in HOSTILE:
            assert shown(text) in screen.text, ascii(text)
        await conv.show_transcript([("user", text) for text in HOSTILE[:4]] + [("tool", text) for text in HOSTILE[4:8]]
                                   + [("assistant", text) for text in HOSTILE[8:]], one_of_each())
        await pilot.pause()
        screen = assert_safe(app)
        for text in HOSTILE[:8]:
            assert shown_line(text) in screen.text, ascii(text)


async def test_the_help_screen_shows_a_hostile_keymap_as_written(make_app: AppFactory) -> None:
    from ljtui.tui.commands import ACTIONS
    from ljtui.tui.screens.help import HelpScreen

    app = make_app(None)
    async with app.run_test(size=WIDE) as pilot:
        await until(pilot, lambda: app.started, "the start-up work")
        app.push_screen(HelpScreen(ACTIONS, {"app.clear": "[/x]", "app.quit": "[@click=app.quit]click[/]"}))
        await pilot.pause()
        screen = assert_safe(app)
        assert "[/x]" in screen.text and "[@click=app.quit]click[/]" in screen.text


async def test_the_trust_dialog_shows_a_hostile_config_whole(git_repo: Path) -> None:
    from ljtui.core.clock import FixedClock
    from ljtui.tui.app import LjtuiApp

    erase = "\x1b[1A\x1b[2K\x1b[1A\x1b[2K"  # up a line and erase it, twice: over the allow-list line
    config = {"provider": {"name": "scripted", "script": f"fine.yaml {erase}{HOSTILE[6]}"},
              "agent": {"allow_commands": ["*"]}}
    (git_repo / ".agent").mkdir()
    (git_repo / ".agent" / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=False), encoding="utf-8")
    app = LjtuiApp(git_repo, clock=FixedClock(), cursor_blink=False, watch=False)
    app.animation_level = "none"
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ApprovalDialog) and dialog.request.kind == "trust"
        screen = assert_safe(app)
        assert "allow_commands" in screen.text
        assert f"fine.yaml {shown(erase)}{shown(HOSTILE[6])}" in screen.text, ascii([l for l in screen.lines if "fine" in l or "allow" in l])
