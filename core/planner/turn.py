"""The read-only planner as one turn of a session: numbered, reported, its tokens on the session's ledger."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ljtui.core.events import AGENT_PLANNER, TurnFailed, TurnStarted
from ljtui.core.providers.base import ProviderError
from ljtui.core.providers.retry import RetryPolicy

if TYPE_CHECKING:
    from ljtui.core.agent.model_calls import ModelCalls
    from ljtui.core.planner.loop import PlannerResult
    from ljtui.core.ports import EventSink
    from ljtui.core.session_state import SessionSettings, TurnCounter


async def planner_turn(request: str, root: Path, *, settings: SessionSettings, sink: EventSink, turns: TurnCounter,
                       model: ModelCalls, monotonic: Callable[[], float], handbook_dir: Path | None = None,
                       max_turns: int | None = None) -> PlannerResult | None:
    """Run the planner on ``request`` in the repository at ``root`` with the session's model.

    Progress arrives as planner events on ``sink``. Returns the result (callers
    must treat any ``aborted`` or ``errors`` as failure), or ``None`` when the
    model could not be reached (a ``TurnFailed`` event says why).
    """
    from ljtui.core.agent.model_calls import TurnTally
    from ljtui.core.planner.loop import DEFAULT_MAX_TURNS, run_planner

    turn = turns.next()
    sink.emit(TurnStarted(turn, request))
    config = settings.config
    started = monotonic()
    try:
        client = model.client()
        result = await run_planner(
            client, root, request, handbook_dir=handbook_dir, sink=sink,
            max_turns=max_turns or DEFAULT_MAX_TURNS, max_tokens=config.provider.max_tokens,
            retry=RetryPolicy.from_config(config.provider), sleep=model.sleep,
            allow_secret_files=config.security.allow_secret_files,
            prompt_budget_tokens=config.planner.prompt_budget_tokens,
            soft_deadline=config.planner.soft_deadline, hard_deadline=config.planner.hard_deadline,
            monotonic=monotonic,
        )
    except ValueError as exc:
        sink.emit(TurnFailed(turn, "config", str(exc), None))
        return None
    except ProviderError as exc:
        model.failed(turn, exc)
        return None
    model.record_usage(turn, client, result.usage, TurnTally(), agent=AGENT_PLANNER,
                       seconds=monotonic() - started)
    return result
