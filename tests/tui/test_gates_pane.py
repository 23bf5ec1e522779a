"""The Gates pane in the app: a gate view from GateChanged, its keys, the messages it posts, the status bar."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ljtui.core.approval import NO, YES
from ljtui.core.events import Notice
from ljtui.core.gates.requests import breaker_request, confirm_request, refusal_text
from ljtui.core.ports import FixedClock
from ljtui.tui import app as app_module
from ljtui.tui.app import LjtuiApp
from ljtui.tui.messages import EngineEventPosted
from ljtui.tui.screens.dialog import ApprovalDialog
from ljtui.tui.widgets.gates_pane import EMPTY_HINT, EMPTY_TEXT, GatesPane
from ljtui.tui.widgets.gates_render import COMMAND_LINES_SHOWN, OUTPUT_LINES_SHOWN
from ljtui.tui.widgets.prompt_input import PromptInput
from tests.tui.conftest import AppFactory, notices, until
from tests.tui.gate_helpers import ITEMS, RUN, gate_view, many_items, post_gate, proposed_view
from tests.tui.plan_helpers import screen_text

SIZE = (120, 40)


class RecordingApp(LjtuiApp):
    """The app with a handler that records the Gates pane's requests (the engine side is not under test)."""

    CSS_PATH = str(Path(app_module.__file__).parent / LjtuiApp.CSS_PATH)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.requested: list[GatesPane.CheckRequested] = []

    def on_gates_pane_check_requested(self, message: GatesPane.CheckRequested) -> None:
        self.requested.append(message)


def recording_app(repo: Path) -> RecordingApp:
    app = RecordingApp(repo, overrides={"ui.theme": None}, clock=FixedClock(), cursor_blink=False, watch=False)
    app.animation_level = "none"
    return app


def pane(app) -> GatesPane:
    return app.main_screen.query_one(GatesPane)


async def shown(pilot, view) -> None:
    """Post ``view`` and wait until the pane shows it."""
    post_gate(pilot.app, view)
    await until(pilot, lambda: pane(pilot.app).view is view, "the gate to show")
    await pilot.pause()


async def focused(pilot, view) -> None:
    """Show ``view``, move to the Gates pane (F5) and fill the body with it (F8)."""
    await shown(pilot, view)
    await pilot.press("f5", "f8")
    await until(pilot, lambda: pilot.app.focused is pane(pilot.app), "the Gates pane to have the focus")


async def test_a_gate_shows_its_risk_state_items_evidence_alerts_and_history(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await focused(pilot, gate_view(breaker_open=True, bounces=2))
        text = screen_text(app)
        for part in ("add-top-option · L2 · R 0.60", "Add a --top option to wordstats",
                     "D 0.70 · P 0.50 · surface 0.6 · chain 0.4 · density 0.7 · verifiable · irreversible",
                     f"confirmed ✓ · started · run {RUN} · 3 files staged",
                     "⚠ breaker open: delivery refused 2× — the decision is yours",
                     "blocked: delivery is refused", "  tests: failed", "Checks · 2/5 passed",
                     "▸✗ failed      required tests: The test suite passes",
                     " ⟳ stale       required lint: No lint errors",
                     " ◆ independent required cli: The CLI prints the top 3 words",
                     " ✓ passed      optional types: Type check the package",
                     " ○ pending     required docs: README documents --top",
                     "exit 1 · 1.8s", "exit 0 · 655ms · verifier verifier-7c1e",
                     "History · 3 runs", "↺ rework 5 h ago · run 20270114-1710-5e2a",
                     "✗ fail   1 d ago", "✓ pass   3 d ago"):
            assert part in text, part
        assert pane(app).border_title == "Gates · F5 · L2"
        assert pane(app).border_subtitle == "2/5 passed"
        assert "gate L2 · breaker open" in str(app.main_screen.status.render())


async def test_the_guard_error_shows_in_the_pane_and_the_status_bar(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await focused(pilot, gate_view(error="staged content hash unreadable: EIO"))
        assert "✗ guard error: staged content hash unreadable: EIO — delivery only with your confirmation" in \
            screen_text(app)
        assert "gate L2 · guard error" in str(app.main_screen.status.render())


async def test_the_status_bar_shows_the_level_only_while_a_gate_is_active(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        status = app.main_screen.status
        assert status.gate is None and "gate" not in str(status.render())
        await shown(pilot, gate_view())
        assert "gate L2 · blocked" in str(status.render())
        passed = tuple(dataclasses.replace(i, status="passed") for i in ITEMS)
        await shown(pilot, gate_view(items=passed, blocked=()))
        assert str(status.render()).count("gate L2") == 1 and "blocked" not in str(status.render())
        await shown(pilot, proposed_view())
        assert "gate L2 · unconfirmed" in str(status.render())
        post_gate(app, None)
        await until(pilot, lambda: pane(app).view is None, "the gate to go")
        assert status.gate is None and "gate" not in str(status.render())
        assert pane(app).has_class("-empty") and pane(app).border_subtitle == ""


async def test_the_empty_pane_hints_at_gates_when_focused(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert EMPTY_TEXT in screen_text(app) and EMPTY_HINT not in screen_text(app)
        await pilot.press("f5")
        await until(pilot, lambda: EMPTY_HINT in screen_text(app), "the hint")


async def test_keys_move_and_enter_shows_the_full_command_and_output(make_app: AppFactory) -> None:
    app = make_app()
    long_command = "python -m pytest -q " + " ".join(f"tests/test_module_{n}.py" for n in range(12))
    items = (dataclasses.replace(ITEMS[0], command=long_command), *ITEMS[1:])
    async with app.run_test(size=SIZE) as pilot:
        await focused(pilot, gate_view(items=items))
        assert pane(app).selected_item.id == "tests"
        assert "test_module_11" not in screen_text(app)  # the row is cut; the command is not shown
        await pilot.press("enter")
        await until(pilot, lambda: "AssertionError: assert [('b', 2)]" in screen_text(app), "the output")
        drawn = "".join(line.plain.strip().removeprefix("$ ") for line in pane(app)._text.lines)
        assert "".join(long_command.split()) in "".join(drawn.split())  # every character of the command
        assert "tests/test_module_11.py" in screen_text(app)
        assert "checked by chat" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: "AssertionError: assert" not in screen_text(app), "the output to fold")
        await pilot.press("j", "down", "j", "k")
        assert pane(app).selected_item.id == "cli"
        await pilot.press("j", "j", "j")
        assert pane(app).selected_item.id == "docs"  # stops at the last item
        await pilot.press("enter")
        await until(pilot, lambda: "no evidence yet · c runs this check" in screen_text(app), "the pending item")
        await pilot.press("up")
        assert pane(app).selected_item.id == "types"


async def test_c_and_r_post_check_requests_for_the_app(git_repo: Path) -> None:
    app = recording_app(git_repo)
    async with app.run_test(size=SIZE) as pilot:
        await focused(pilot, gate_view())
        await pilot.press("j", "j", "c")
        await until(pilot, lambda: len(app.requested) == 1, "the check request")
        request = app.requested[0]
        assert (request.gate_id, request.item_id, request.failed_only) == ("add-top-option", "cli", False)
        await pilot.press("r")
        await until(pilot, lambda: len(app.requested) == 2, "the re-run request")
        request = app.requested[1]
        assert (request.gate_id, request.item_id, request.failed_only) == ("add-top-option", None, True)
        assert isinstance(app.focused, GatesPane)
        assert not app.main_screen.query_one(PromptInput).value


async def test_pane_keys_are_text_unless_the_user_moved_to_the_pane(git_repo: Path) -> None:
    app = recording_app(git_repo)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, gate_view())
        await pilot.press("c", "r")
        assert app.main_screen.query_one(PromptInput).value == "cr"
        assert app.requested == []


async def test_the_footer_names_the_pane_s_keys_only_while_it_has_the_focus(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, gate_view())

        def bound() -> set[str]:
            return {b.binding.id for b in app.screen.active_bindings.values() if b.binding.show}

        assert not {"gates.check", "gates.recheck", "gates.expand"} & bound()
        await pilot.press("f5")
        await until(pilot, lambda: app.focused is pane(app), "the focus")
        assert {"gates.check", "gates.recheck", "gates.expand"} <= bound()
        await pilot.press("f6")
        await until(pilot, lambda: "gates.check" not in bound(), "the keys to leave the footer")


async def test_a_gate_without_items_asks_for_nothing(git_repo: Path) -> None:
    app = recording_app(git_repo)
    async with app.run_test(size=(80, 24)) as pilot:
        await focused(pilot, gate_view(items=(), blocked=()))
        await pilot.press("j", "enter", "c")
        await pilot.pause()
        assert "No check items: the gate can only pass as exempt." in screen_text(app)
        assert "Checks · 0/0 passed" in screen_text(app)
        assert app.requested == []


async def test_the_selection_and_expansion_follow_the_item_across_updates(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await focused(pilot, gate_view())
        await pilot.press("j", "j", "enter")
        assert pane(app).selected_item.id == "cli" and pane(app).expanded == {"cli"}
        rechecked = dataclasses.replace(ITEMS[2], status="stale")
        await shown(pilot, gate_view(items=(ITEMS[4], rechecked, ITEMS[0])))
        assert pane(app).selected_item.id == "cli" and pane(app).expanded == {"cli"}
        assert "▸⟳ stale       required cli:" in screen_text(app)
        await shown(pilot, gate_view(items=ITEMS[:1]))
        assert pane(app).selected_item.id == "tests" and pane(app).expanded == set()


async def test_sixty_items_with_huge_commands_and_outputs_stay_bounded(make_app: AppFactory) -> None:
    app = make_app()
    items = many_items(60, command_chars=200_000, output_chars=2_000_000)
    async with app.run_test(size=(80, 24)) as pilot:
        await focused(pilot, gate_view(items=items, blocked=()))
        for _ in range(59):
            await pilot.press("j")
        assert pane(app).selected_item.id == "part-59"
        await pilot.press("enter")
        await until(pilot, lambda: "more lines" in screen_text(app) or "▸" in screen_text(app), "the expansion")
        text = pane(app)._text
        assert text is not None
        bound = 60 * 2 + COMMAND_LINES_SHOWN + OUTPUT_LINES_SHOWN + 30
        assert len(text.lines) < bound
        assert all(line.cell_len <= pane(app).size.width for line in text.lines)
        assert "▸" in screen_text(app), "the selected row scrolled into view"
        await pilot.press("k")
        assert pane(app).selected_item.id == "part-58"


async def test_the_confirm_dialog_answers_through_the_app_s_approver(make_app: AppFactory, git_repo: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for key, expected in (("enter", YES), ("escape", NO)):
            asked = Asked(app, confirm_request(proposed_view(), git_repo))
            await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the dialog")
            assert "python -m wordstats --top 3 README.md" in screen_text(app)
            await pilot.press(key)
            await until(pilot, lambda: asked.decision is not None, "the decision")
            assert asked.decision.choice == expected


async def test_the_breaker_delivers_only_on_d(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        asked = Asked(app, breaker_request(gate_view(bounces=2, breaker_open=True)))
        await until(pilot, lambda: isinstance(app.screen, ApprovalDialog), "the dialog")
        await pilot.press("enter")
        await pilot.pause()
        assert asked.decision is None, "Enter does not deliver"
        await pilot.press("d")
        await until(pilot, lambda: asked.decision is not None, "the decision")
        assert asked.decision.choice == YES


async def test_the_refusal_notice_lists_the_blocking_items_in_the_conversation(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(EngineEventPosted(Notice(refusal_text(gate_view()), "error")))
        await until(pilot, lambda: any("Delivery refused" in n for n in notices(app)), "the notice")
        shown_text = notices(app)[-1]
        assert "gate add-top-option (L2)" in shown_text
        assert "missing  docs" in shown_text and "failed   tests" in shown_text and "stale    lint" in shown_text


class Asked:
    """A request awaited through the app's approver in a worker, as the engine awaits it."""

    def __init__(self, app, request) -> None:
        self.decision = None

        async def decide() -> None:
            self.decision = await app.approver.decide(request)

        app.run_worker(decide(), name="ask", group="engine", exit_on_error=False)


async def test_updates_of_the_same_gate_keep_the_pane_s_keys_armed(git_repo: Path) -> None:
    app = recording_app(git_repo)
    async with app.run_test(size=SIZE) as pilot:
        await focused(pilot, gate_view())
        armed_since = app.main_screen.shown_at("gates")
        await shown(pilot, gate_view(items=ITEMS[:2]))  # a check finished: same gate, new evidence
        assert app.main_screen.shown_at("gates") == armed_since
        await pilot.press("c")
        await until(pilot, lambda: len(app.requested) == 1, "the check request")
        await shown(pilot, gate_view(id="another-gate"))
        assert app.main_screen.shown_at("gates") > armed_since
