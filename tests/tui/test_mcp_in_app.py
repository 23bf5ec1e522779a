"""MCP servers in the app: started after the first frame, listed by /mcp, asked about, stopped as the app closes."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from textual.widgets import Collapsible, Static

from ljtui.core.mcp.client import READY
from ljtui.tui.screens.dialog import ApprovalDialog
from tests.core.mcp.test_client import BAD_SERVER, beating, until_beating_stops
from tests.tui.conftest import AppFactory, notices, until
from tests.tui.test_app_pilot import send

SIZE = (120, 40)


def time_server() -> dict[str, object]:
    command = shutil.which("mcp-server-time")
    assert command is not None, "mcp-server-time is in the test extras"
    return {"command": command, "args": ["--local-timezone", "UTC"]}


def ready(app) -> bool:  # type: ignore[no-untyped-def]
    rows = app.engine.mcp.rows() if app.engines.made is not None else []
    return bool(rows) and all(row.state == READY for row in rows)


async def test_slash_mcp_lists_each_server_with_its_tools(make_app: AppFactory) -> None:
    app = make_app(**{"mcp.servers": {"time": time_server()}})
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: ready(app), "the MCP server")
        assert any(n.startswith("MCP: 2 tools from time") for n in notices(app))
        await send(pilot, "/mcp")
        await until(pilot, lambda: bool(app.main_screen.query(Collapsible)), "the server list")
        [view] = app.main_screen.query(Collapsible)
        body = [str(w.render()) for w in view.query(Static)]
        assert view.title == "MCP servers"
        assert body[-1] == "time · stdio · ready · from user config\n  2 tools: get_current_time, convert_time"


async def test_an_mcp_call_in_the_app_opens_the_permission_dialog_with_server_tool_and_arguments(
        make_app: AppFactory, tmp_path: Path) -> None:
    import yaml

    script = tmp_path / "mcp_call.yaml"
    script.write_text(yaml.safe_dump({"turns": [
        {"text": "Checking.", "tool_calls": [{"name": "mcp__time__get_current_time",
                                              "input": {"timezone": "Asia/Tokyo"}}]},
        {"text": "Done."}]}))
    app = make_app(str(script), **{"mcp.servers": {"time": time_server()}})
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: ready(app), "the MCP server")
        app.main_screen.prompt.value = "/chat what time is it in Tokyo?"
        await pilot.press("enter")  # the turn waits for the dialog: nothing waits for the turn here
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the permission dialog")
        shown = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "Call get_current_time on the MCP server time?" in shown
        assert "server: time" in shown and '"timezone": "Asia/Tokyo"' in shown
        await pilot.press("enter")  # allow once, the dialog's first choice
        await until(pilot, lambda: not app.bridge.busy, "the turn")
        assert [m.role for m in app.engine.history].count("assistant") == 2


async def test_closing_the_app_stops_a_server_that_ignores_sigterm_and_its_child(make_app: AppFactory,
                                                                               git_repo: Path) -> None:
    markers = git_repo / "markers"  # where the sandboxed server may write
    markers.mkdir()
    app = make_app(**{"mcp.servers": {"stubborn": {"command": sys.executable,
                                                  "args": [BAD_SERVER, "stubborn", str(markers)]}}})
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: ready(app), "the MCP server")
        assert await beating(markers) == ["beat-child", "beat-server"]
    assert await until_beating_stops(markers) == [], "no orphan is left"
