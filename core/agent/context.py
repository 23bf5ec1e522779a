"""The session's context for the model (AGENT-4, AGENT-5): the system prompt and the memory view.

The system prompt is built once per session, off the event loop: base
instructions, project facts, the ranked outline, git state, the
repository's notes and the long-term memory. A part that cannot be built is
left out with a notice; the model still has its tools.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ljtui.core.session_state import SessionSettings
from ljtui.core.events import Notice
from ljtui.core.ports import EventSink
from ljtui.core.tools import require

if TYPE_CHECKING:
    from ljtui.core.agent.memory import MemoryStore
    from ljtui.core.outline.repo_outline import RepoOutline


class PromptContext:
    """Builds and holds the session's system prompt, from the repository at ``root``, its ``outline`` and the
    ``memory``; ``after_build`` runs once the prompt is built (the gates restore an open run then)."""

    def __init__(self, root: Path, settings: SessionSettings, sink: EventSink, *, outline: RepoOutline | None,
                 memory: MemoryStore | None, after_build: Callable[[], object],
                 layered: Callable[[], bool] | None = None) -> None:
        self._root = root
        self._layered = layered
        self._settings = settings
        self._sink = sink
        self._outline = outline
        self._memory = memory
        self._after_build = after_build
        self._prompt: str | None = None

    @property
    def system(self) -> str:
        """The session's system prompt (built by :meth:`prepare` before the first model call)."""
        return self._prompt or ""

    async def prepare(self) -> str:
        """Build the system prompt once per session: project, outline, git, notes, memory (AGENT-4)."""
        if self._prompt is None:
            self._prompt = await asyncio.to_thread(self.build)
            await asyncio.to_thread(self._after_build)
        return self._prompt

    def build(self) -> str:
        """The system prompt as the repository reads now (disk work: call from a thread)."""
        from ljtui.core.agent.project import gather, system_prompt
        from ljtui.core.secret_files import SecretFiles

        facts = gather(self._root, SecretFiles.allowing(self._settings.config.security.allow_secret_files),
                       outline=self._outline_text, memory=self._memory_text, layered=self._layered)
        return system_prompt(facts)

    def _outline_text(self) -> str:
        """The ranked outline for the system prompt; a failure leaves it out and says so."""
        try:
            return require(self._outline, "outline").prompt_text()
        except Exception as exc:  # the prompt goes on without it: the model has get_outline and grep
            self._sink.emit(Notice(f"The repository outline could not be built ({type(exc).__name__}: {exc}); "
                                   "the model starts without it.", "warning"))
            return ""

    def _memory_text(self) -> str:
        """The long-term memory for the system prompt; why it is not loaded, as a notice."""
        loaded = require(self._memory, "memory").load()
        if loaded.notice:
            self._sink.emit(Notice(loaded.notice, "warning"))
        return loaded.text

    def memory_view(self) -> list[str]:
        """What ``/memory`` shows: the memory file and whether it is loaded (disk work: call from a thread)."""
        return require(self._memory, "memory").show().lines()
