"""Fixtures for planner tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.core.planner.grep_trees import names  # noqa: F401 - a fixture the grep tests share
from tests.core.planner.helpers import SAMPLE_REPO


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A private copy of the sample repository."""
    dest = tmp_path / "repo"
    shutil.copytree(SAMPLE_REPO, dest)
    return dest
