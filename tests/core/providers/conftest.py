"""Fixtures of the provider tests: the fake servers."""

from tests.fakes.fixtures import fake_anthropic, fake_openai  # noqa: F401
