"""Watching the repository for changes on disk (UI-7).

:func:`watch_repo` yields, in batches, the repo-relative paths that changed
— created, modified or deleted — leaving out ljtui's own journal so its
writes do not echo back, and the staging trees of delivery gates.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import AsyncIterator

DEBOUNCE_MS = 150
"""How long changes are gathered into one batch."""
WAKE_MS = 300
"""How often the watcher wakes, so stopping it is prompt."""
IGNORED_PREFIXES = (".git/", ".agent/journal/", ".agent/workspace/")
"""ljtui's own journal, and the staging trees of gated runs (their churn is not the user's tree)."""


async def watch_repo(root: Path, stop: asyncio.Event) -> AsyncIterator[set[str]]:
    """Batches of changed repo-relative paths under ``root`` until ``stop`` is set."""
    from watchfiles import awatch

    real = root.resolve()
    async for changes in awatch(real, stop_event=stop, debounce=DEBOUNCE_MS, rust_timeout=WAKE_MS):
        keys = set()
        for _, raw in changes:
            path = Path(raw)
            if path.is_relative_to(real):
                key = path.relative_to(real).as_posix()
                if not key.startswith(IGNORED_PREFIXES):
                    keys.add(key)
        if keys:
            yield keys
