"""Fixtures of the command-line tests: the sample repository and the fake model servers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.core.planner.helpers import SAMPLE_REPO
from tests.fakes.fixtures import fake_anthropic, fake_openai  # noqa: F401


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A private copy of the planner's sample repository."""
    dest = tmp_path / "repo"
    shutil.copytree(SAMPLE_REPO, dest)
    return dest
