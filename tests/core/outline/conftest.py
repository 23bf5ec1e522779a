"""Fixtures for outline tests: copies of the sample sources, small repositories."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Callable

import pytest

from tests.conftest import git

LANGS = Path(__file__).parent / "fixtures" / "langs"
"""One sample source file per language."""


@pytest.fixture
def langs(tmp_path: Path) -> Path:
    """A private copy of the per-language samples (not a git repository)."""
    dest = tmp_path / "langs"
    shutil.copytree(LANGS, dest)
    return dest


WAIT_LIMIT_S = 30.0
"""Longest a test waits for a condition (generous for a loaded CI box)."""
POLL_S = 0.01


def wait_until(condition: Callable[[], bool], limit_s: float = WAIT_LIMIT_S) -> None:
    """Return once ``condition()`` holds; fail after ``limit_s`` seconds."""
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {limit_s} s")
        time.sleep(POLL_S)


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root``; return ``root``."""
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


RANKED = {
    "core/engine.py": (
        "class Engine:\n"
        "    def run(self, request):\n"
        "        return helper(request)\n"
        "\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
        "\n"
        "\n"
        "def helper(value):\n"
        "    return value\n"
        "\n"
        "\n"
        "def unused():\n"
        "    return None\n"
    ),
    "app/main.py": "from core.engine import Engine, helper\n\ndef main():\n    Engine('x').run(helper(1))\n",
    "app/cli.py": "from core.engine import Engine\n\ndef cli():\n    return Engine('cli')\n",
    "app/web.py": "from core.engine import Engine\n\ndef web():\n    return Engine('web').run(None)\n",
}
"""``Engine`` is mentioned by three other files, ``helper`` by one, ``unused`` by none."""


@pytest.fixture
def ranked_repo(tmp_path: Path) -> Path:
    """A git repository with :data:`RANKED` committed."""
    root = write(tmp_path / "ranked", RANKED)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "initial")
    return root
