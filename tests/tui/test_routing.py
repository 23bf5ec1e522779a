"""Routing in the app: a plain message may become a task plan; /chat and /plan never ask the router."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from ljtui.tui.widgets.plan_pane import PlanPane
from tests.tui.conftest import AppFactory, notices, settle, until

SIZE = (120, 40)
PLAN_REPLY = json.dumps({"tasks": [
    {"id": 1, "description": "Read app.py", "tool_hint": "read_file", "depends_on": []},
    {"id": 2, "description": "Make greet friendlier", "tool_hint": "edit_file", "depends_on": [1]},
    {"id": 3, "description": "Run the tests", "tool_hint": "bash", "depends_on": [2]}]})
ROUTED_TO_PLAN = "Routed to a task plan: a change in several steps"


def script(tmp_path: Path, **agents: list[dict[str, Any]]) -> str:
    path = tmp_path / "routing.yaml"
    path.write_text(yaml.safe_dump({"agents": {
        "router": [{"text": json.dumps({"route": "plan", "skill": None, "reason": "a change in several steps"})}],
        "decompose": [{"text": PLAN_REPLY}],
        "chat": [{"text": "Just an answer."}],
        **agents}}), encoding="utf-8")
    return str(path)


def agents_seen(app) -> list[str]:
    return list(app.engine.model.client().agents_seen)


async def test_a_plain_message_the_router_sends_to_a_plan_is_proposed_in_the_plan_pane(
        make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app(script(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"make greet friendlier", "enter")
        pane = app.main_screen.query_one(PlanPane)
        await until(pilot, lambda: pane.approving, "the routed plan in the Plan pane")
        assert ROUTED_TO_PLAN in notices(app)
        assert [t["description"] for t in pane.model.rows] == [
            "Read app.py", "Make greet friendlier", "Run the tests"]
        assert agents_seen(app) == ["router", "decompose"]
        await pilot.press("escape")
        await until(pilot, lambda: not app.bridge.busy, "the rejected run to end")


async def test_chat_skips_the_router(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app(script(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/chat make greet friendlier", "enter")
        await settle(pilot)
        assert agents_seen(app) == ["chat"]
        assert not app.main_screen.query_one(PlanPane).approving
        assert not any(n.startswith("Routed") for n in notices(app))


async def test_plan_skips_the_router(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app(script(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/plan make greet friendlier", "enter")
        pane = app.main_screen.query_one(PlanPane)
        await until(pilot, lambda: pane.approving, "the plan in the Plan pane")
        assert agents_seen(app) == ["decompose"]
        assert ROUTED_TO_PLAN not in notices(app)
        await pilot.press("escape")
        await until(pilot, lambda: not app.bridge.busy, "the rejected run to end")


async def test_a_message_routed_to_chat_shows_no_routing_line(make_app: AppFactory, tmp_path: Path) -> None:
    chat = [{"text": json.dumps({"route": "chat", "skill": None, "reason": "a question"})}]
    app = make_app(script(tmp_path, router=chat))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"what does greet do?", "enter")
        await settle(pilot)
        assert agents_seen(app) == ["router", "chat"]
        assert not any(n.startswith("Routed") for n in notices(app))
        assert "Just an answer." in str(app.main_screen.conversation.query("Markdown").last().source)


async def test_routing_chat_in_the_config_asks_no_router(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app(script(tmp_path), **{"agent.routing": "chat"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"make greet friendlier", "enter")
        await settle(pilot)
        assert agents_seen(app) == ["chat"]
        assert not app.main_screen.query_one(PlanPane).approving
