"""Skills and playbooks edited by hand are read again while the session runs (UI-7).

Skills are read from disk whenever a plan starts from one, and playbooks on
every recall, so what runs is always what the files say. What a front end
keeps is the list of names ``/NAME`` may start: :class:`SkillReload` reads
the skills again when their files change — the repository's
``.agent/skills`` and ``.agent/playbooks`` (active playbooks are skills), and
in the user's config dir ``skills/``, ``playbooks/`` and the trust list (a
repository trusted from another terminal offers its skills) — and emits
:class:`~ljtui.core.events.SkillsChanged`. Every file is untrusted: one that
cannot be used is a warning naming it and its problem, the others stay.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Callable, Iterable, Mapping

from ljtui.core.events import Event, Notice
from ljtui.core.trust import TRUST_FILE

REPOSITORY_FILES = (".agent/skills/", ".agent/playbooks/")
"""Changes below these repository folders can change the skills."""
USER_FILES = ("skills/", "playbooks/", TRUST_FILE)
"""… and below these in the user's config dir (the last one is the trust list)."""


def touches(keys: Iterable[str], prefixes: tuple[str, ...]) -> bool:
    """Whether a batch of changed paths reaches one of ``prefixes`` (a folder itself counts)."""
    return any(k.startswith(prefixes) or f"{k}/" in prefixes for k in keys)


class SkillReload:
    """The skills as last read, read again on demand; what changed is said on ``emit``."""

    def __init__(self, root: Path, emit: Callable[[Event], None], env: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.env = env
        self.emit = emit
        self._lock = threading.Lock()
        self._names: tuple[str, ...] | None = None
        self._warnings: frozenset[str] = frozenset()

    def baseline(self) -> None:
        """Read the skills once without saying anything: what the session already showed (disk work)."""
        from ljtui.core.skills import load_skills

        found = load_skills(self.root, self.env)
        with self._lock:
            self._names, self._warnings = found.names, frozenset(found.warnings)

    def reload(self, changed: Iterable[str] = ()) -> tuple[str, ...]:
        """Read the skills again (disk work): new warnings and those naming a changed file become notices, skills
        that came or went a notice, and ``SkillsChanged`` carries every name."""
        from ljtui.core.events import SkillsChanged
        from ljtui.core.skills import load_skills

        changed = tuple(changed)
        with self._lock:
            found = load_skills(self.root, self.env)
            before, self._names = self._names, found.names
            for warning in found.warnings:
                if warning not in self._warnings or any(key in warning for key in changed):
                    self.emit(Notice(f"Skills read again: {warning}", "warning"))
            self._warnings = frozenset(found.warnings)
            if before is not None and before != found.names:
                self.emit(Notice(_came_and_went(before, found.names)))
            self.emit(SkillsChanged(found.names))
            return found.names


def _came_and_went(before: tuple[str, ...], after: tuple[str, ...]) -> str:
    """``Skills changed on disk: /fix-tests can be started; /old is gone.``"""
    came = [f"/{n}" for n in after if n not in before]
    went = [f"/{n}" for n in before if n not in after]
    parts = [f"{', '.join(came)} can be started" if came else "", f"{', '.join(went)} gone" if went else ""]
    return "Skills changed on disk: " + "; ".join(p for p in parts if p) + "."


async def watch_user_files(reload: SkillReload, stop: asyncio.Event) -> None:
    """Read the skills again whenever the user's own skills, playbooks or trust list change, until ``stop``.

    A config dir that does not exist is not watched (nothing there to edit);
    a watcher that stops is said once.
    """
    from ljtui.core.userdirs import user_config_dir
    from ljtui.core.watch import WatchStopped, watch_repo

    folder = user_config_dir(reload.env)
    if not await asyncio.to_thread(folder.is_dir):
        return
    try:
        async for keys in watch_repo(folder, stop):
            if touches(keys, USER_FILES):
                await asyncio.to_thread(reload.reload, keys)
    except WatchStopped as exc:
        reload.emit(Notice(f"Skills edited in {folder} are not noticed ({exc}); they are read when a plan "
                            "starts from one.", "warning"))
