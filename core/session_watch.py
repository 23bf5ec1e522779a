"""What a session does when files change on disk: the plan under review is checked again, a gate edited by hand
is shown as it now reads, and skills edited by hand are read again (the engine's :meth:`watch`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from ljtui.core.events import Event, Notice


async def watch_session(root: Path, emit: Callable[[Event], None], *, refresh_review: Callable[[set[str]], object],
                        publish_gates: Callable[[], object], gate_files: tuple[str, ...],
                        stop: asyncio.Event) -> None:
    """Watch ``root`` (and the user's skills) until ``stop`` is set; every callback runs in a thread."""
    from ljtui.core.skill_watch import REPOSITORY_FILES, SkillReload, touches, watch_user_files
    from ljtui.core.watch import WatchStopped, watch_repo

    skills = SkillReload(root, emit)
    await asyncio.to_thread(skills.baseline)
    user = asyncio.ensure_future(watch_user_files(skills, stop))
    try:
        async for keys in watch_repo(root, stop):
            await asyncio.to_thread(refresh_review, keys)
            if any(k.startswith(gate_files) for k in keys):
                await asyncio.to_thread(publish_gates)  # a gate edited by hand shows as it reads
            if touches(keys, REPOSITORY_FILES):
                await asyncio.to_thread(skills.reload, keys)
    except WatchStopped as exc:
        emit(Notice(f"Changes on disk are not noticed ({exc}); a plan under review is "
                    "checked again when it is applied.", "warning"))
    finally:
        user.cancel()
        await asyncio.gather(user, return_exceptions=True)
