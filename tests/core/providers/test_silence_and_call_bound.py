"""Silent and never-ending servers, through both real SDKs: how long the user waits, and what they read."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable, Iterator

import pytest

import ljtui.core.providers.anthropic  # noqa: F401  (imported here so no timing below pays for it)
import ljtui.core.providers.openai_compat  # noqa: F401
from ljtui.core.config import ProviderConfig
from ljtui.core.events import ModelCallRetried, TurnFailed
from ljtui.core.providers.limits import CallLimits
from tests.core.providers.helpers import Rig, make_rig
from tests.fakes import anthropic_api, openai_api
from tests.fakes.fixtures import FAKE_KEY, fast_provider
from tests.fakes.server import FakeSSEServer, Reply

INTACT = "Your conversation is intact: send the message again to retry."

IDLE = 0.5
"""``provider.timeout`` of these tests."""

SLACK = 5.0
"""Seconds a loaded CI machine (2 CPUs, tests in parallel) may add to a bound."""

TRICKLE_EVERY = 0.05
"""Seconds between the keep-alives of a never-ending stream."""

CALL_BOUND = 1.0
"""``provider.call_timeout`` of the never-ending-stream tests."""

PATIENT_IDLE = CALL_BOUND + 2 * SLACK
"""An idle timeout the never-ending-stream tests cannot reach before their call bound fires."""

MANY_RETRIES = 5
"""A ``provider.max_retries`` well above the one silence retry."""


@dataclass(frozen=True)
class Flavour:
    """One provider as these tests drive it."""

    name: str
    api: ModuleType
    title: str
    path: str
    server_error: Callable[[], Reply]

    def cfg(self, server: FakeSSEServer, **overrides: object) -> ProviderConfig:
        return fast_provider(self.name, server.url + self.path, **overrides)


ANTHROPIC = Flavour("anthropic", anthropic_api, "the Anthropic API", "",
                    lambda: anthropic_api.status_reply(500, "api_error", "boom"))
OPENAI = Flavour("openai-compatible", openai_api, "the OpenAI-compatible server", "/v1",
                 lambda: openai_api.status_reply(500, "boom"))
FLAVOURS = [pytest.param(ANTHROPIC, id="anthropic"), pytest.param(OPENAI, id="openai")]

SILENT_PHASES: dict[str, Callable[[ModuleType], Reply]] = {
    "before-headers": lambda api: api.never_answers(),
    "after-headers": lambda api: api.headers_then_silence(),
    "after-first-event": lambda api: api.stalled(after=1),
}
"""Replies that fall silent before any of the reply's text has arrived."""


@pytest.fixture
def server() -> Iterator[FakeSSEServer]:
    with FakeSSEServer(require_key=FAKE_KEY) as fake:
        yield fake


async def timed_turn(rig: Rig) -> float:
    """Run one failing turn and return how long it took."""
    start = time.monotonic()
    assert await rig.engine.run_turn("hi") is None
    return time.monotonic() - start


@pytest.mark.parametrize("phase", list(SILENT_PHASES))
@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_silence_before_the_reply_is_retried_once_however_many_retries_are_allowed(
    flavour: Flavour, phase: str, server: FakeSSEServer, tmp_path: Path
) -> None:
    silent = SILENT_PHASES[phase]
    server.queue(silent(flavour.api), silent(flavour.api), flavour.api.text_reply("never asked for"))
    cfg = flavour.cfg(server, timeout=IDLE, max_retries=MANY_RETRIES)
    rig = make_rig(cfg, tmp_path)

    elapsed = await timed_turn(rig)

    assert len(server.requests) == 2
    [failed] = rig.of(TurnFailed)
    assert failed.error == "timeout"
    assert failed.message == (
        f"{flavour.title} sent nothing for {IDLE:g}s (provider.timeout); still failing after 1 retry. {INTACT}"
    )
    [retried] = rig.of(ModelCallRetried)
    assert (retried.attempt, retried.max_retries, retried.error) == (1, 1, "timeout")
    assert retried.message == f"{flavour.title} sent nothing for {IDLE:g}s (provider.timeout)"
    limits = CallLimits.from_config(cfg)
    assert limits.silent_attempts * IDLE <= elapsed < limits.silent_failure_bound() + SLACK
    assert FAKE_KEY not in rig.json_lines()
    await rig.engine.aclose()


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_one_silence_then_an_answer(flavour: Flavour, server: FakeSSEServer, tmp_path: Path) -> None:
    server.queue(flavour.api.headers_then_silence(), flavour.api.text_reply("here at last"))
    rig = make_rig(flavour.cfg(server, timeout=IDLE), tmp_path)

    result = await rig.engine.run_turn("hi")

    assert result is not None and result.text == "here at last"
    assert len(server.requests) == 2 and not rig.of(TurnFailed)
    assert [(r.attempt, r.error) for r in rig.of(ModelCallRetried)] == [(1, "timeout")]
    await rig.engine.aclose()


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_silence_without_retries_allowed_fails_after_one_wait(
    flavour: Flavour, server: FakeSSEServer, tmp_path: Path
) -> None:
    server.queue(flavour.api.never_answers(), flavour.api.text_reply("never asked for"))
    rig = make_rig(flavour.cfg(server, timeout=IDLE, max_retries=0), tmp_path)

    elapsed = await timed_turn(rig)

    assert len(server.requests) == 1 and not rig.of(ModelCallRetried)
    assert rig.of(TurnFailed)[0].message == f"{flavour.title} sent nothing for {IDLE:g}s (provider.timeout). {INTACT}"
    assert IDLE <= elapsed < IDLE + SLACK
    await rig.engine.aclose()


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_silence_in_the_middle_of_the_reply_fails_without_a_retry(
    flavour: Flavour, server: FakeSSEServer, tmp_path: Path
) -> None:
    server.queue(flavour.api.stalled("Starts then goes quiet"), flavour.api.text_reply("never asked for"))
    rig = make_rig(flavour.cfg(server, timeout=IDLE, max_retries=MANY_RETRIES), tmp_path)

    elapsed = await timed_turn(rig)

    assert len(server.requests) == 1 and not rig.of(ModelCallRetried)
    [failed] = rig.of(TurnFailed)
    assert failed.error == "timeout"
    assert failed.message == (
        f"{flavour.title} stopped sending for {IDLE:g}s in the middle of the reply (provider.timeout). {INTACT}"
    )
    assert rig.streamed_text().startswith("Star") and rig.engine.history == []
    assert IDLE <= elapsed < IDLE + SLACK
    await rig.engine.aclose()


NEVER_ENDING = [
    pytest.param(ANTHROPIC, lambda: anthropic_api.trickle_forever(TRICKLE_EVERY, ping=True), id="anthropic-ping"),
    pytest.param(ANTHROPIC, lambda: anthropic_api.trickle_forever(TRICKLE_EVERY, ping=False), id="anthropic-byte"),
    pytest.param(OPENAI, lambda: openai_api.trickle_forever(TRICKLE_EVERY), id="openai-byte"),
]


@pytest.mark.parametrize(("flavour", "reply"), NEVER_ENDING)
async def test_a_stream_that_never_ends_is_stopped_by_the_call_bound(
    flavour: Flavour, reply: Callable[[], Reply], server: FakeSSEServer, tmp_path: Path
) -> None:
    server.queue(reply(), flavour.api.text_reply("never asked for"))
    cfg = flavour.cfg(server, timeout=PATIENT_IDLE, call_timeout=CALL_BOUND, max_retries=MANY_RETRIES)
    rig = make_rig(cfg, tmp_path)

    elapsed = await timed_turn(rig)

    assert len(server.requests) == 1 and not rig.of(ModelCallRetried)
    [failed] = rig.of(TurnFailed)
    assert failed.error == "timeout"
    assert failed.message == (
        f"{flavour.title} did not finish the reply within {CALL_BOUND:g}s (provider.call_timeout). {INTACT}"
    )
    assert rig.streamed_text().startswith("Thin")
    assert CALL_BOUND <= elapsed < CALL_BOUND + SLACK < PATIENT_IDLE
    await rig.engine.aclose()


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_the_call_bound_covers_the_sdk_retry_waits_too(
    flavour: Flavour, server: FakeSSEServer, tmp_path: Path
) -> None:
    waits_long = Reply(status=429, body={"error": {"type": "rate_limit_error", "message": "slow down"}},
                       headers={"retry-after": "30"})
    server.queue(waits_long, flavour.api.text_reply("never asked for"))
    rig = make_rig(flavour.cfg(server, call_timeout=CALL_BOUND), tmp_path)

    elapsed = await timed_turn(rig)

    assert len(server.requests) == 1
    assert [r.delay for r in rig.of(ModelCallRetried)] == [30.0]
    assert rig.of(TurnFailed)[0].message == (
        f"{flavour.title} did not finish the reply within {CALL_BOUND:g}s (provider.call_timeout). {INTACT}"
    )
    assert CALL_BOUND <= elapsed < CALL_BOUND + SLACK
    await asyncio.sleep(0)
    assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
    await rig.engine.aclose()


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_server_errors_keep_the_whole_retry_budget(
    flavour: Flavour, server: FakeSSEServer, tmp_path: Path
) -> None:
    server.queue(*[flavour.server_error() for _ in range(MANY_RETRIES)], flavour.api.text_reply("fifth time"))
    rig = make_rig(flavour.cfg(server, max_retries=MANY_RETRIES), tmp_path)

    result = await rig.engine.run_turn("hi")

    assert result is not None and result.text == "fifth time"
    assert len(server.requests) == MANY_RETRIES + 1
    assert [r.attempt for r in rig.of(ModelCallRetried)] == list(range(1, MANY_RETRIES + 1))
    await rig.engine.aclose()


MOST_SECONDS_TO_LEARN_A_SERVER_IS_SILENT = 150.0
"""What the user may wait, with the default config, before a silent server is reported."""


def test_with_the_defaults_a_silent_server_is_reported_within_150_seconds() -> None:
    defaults = ProviderConfig()
    limits = CallLimits.from_config(defaults)

    assert limits.silent_attempts == 2
    assert limits.silent_failure_bound() == 2 * defaults.timeout + defaults.retry_delay
    assert limits.silent_failure_bound() < MOST_SECONDS_TO_LEARN_A_SERVER_IS_SILENT
    eager = CallLimits.from_config(ProviderConfig(max_retries=100))
    assert eager.silent_failure_bound() == limits.silent_failure_bound()


def test_the_silent_bound_follows_the_config() -> None:
    assert CallLimits.from_config(ProviderConfig(max_retries=0, timeout=7)).silent_failure_bound() == 7
    assert CallLimits.from_config(ProviderConfig(timeout=60, call_timeout=90)).silent_failure_bound() == 90


@pytest.mark.parametrize("bad", [0.0, -5.0, float("nan"), float("inf")])
def test_timeouts_that_are_not_positive_and_finite_fall_back_to_the_defaults(bad: float) -> None:
    limits = CallLimits.from_config(ProviderConfig(timeout=bad, call_timeout=bad))
    assert (limits.idle, limits.call) == (ProviderConfig.timeout, ProviderConfig.call_timeout)
