"""Pytest fixtures around the fake servers; import them into a ``conftest.py``::

    from tests.fakes.fixtures import fake_anthropic, fake_openai, fast_provider  # noqa: F401
"""

from __future__ import annotations

from typing import Iterator

import pytest

from ljtui.core.config import ProviderConfig
from tests.fakes.server import FakeSSEServer

FAKE_KEY = "sk-ant-test-SECRET-123"
"""A recognisable fake API key: tests assert it never leaks."""

TEST_TIMEOUT = 1.0
"""``provider.timeout`` in tests: short, so a silent server fails fast."""

TEST_RETRY_DELAY = 0.01
"""``provider.retry_delay`` in tests: retries without real waiting."""


@pytest.fixture
def fake_anthropic() -> Iterator[FakeSSEServer]:
    """A running fake Messages API that requires :data:`FAKE_KEY`."""
    with FakeSSEServer(require_key=FAKE_KEY) as server:
        yield server


@pytest.fixture
def fake_openai() -> Iterator[FakeSSEServer]:
    """A running fake chat-completions server that requires :data:`FAKE_KEY`."""
    with FakeSSEServer(require_key=FAKE_KEY) as server:
        yield server


def fast_provider(name: str, base_url: str, **overrides: object) -> ProviderConfig:
    """A provider config pointed at a fake server, with test-speed timeouts and retries."""
    cfg = ProviderConfig(
        name=name, model="claude-test" if name == "anthropic" else "local-test", base_url=base_url,
        api_key=FAKE_KEY, timeout=TEST_TIMEOUT, max_retries=2, retry_delay=TEST_RETRY_DELAY,
        retry_max_delay=TEST_RETRY_DELAY,
    )
    for key, value in overrides.items():
        setattr(cfg, key, value)
    return cfg
