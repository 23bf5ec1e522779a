"""The session's context for the model (AGENT-4, AGENT-5), as part of the engine (``self`` is the Engine).

The system prompt is built once per session, off the event loop: base
instructions, project facts, the ranked outline, git state, the
repository's notes and the long-term memory. A part that cannot be built is
left out with a notice; the model still has its tools.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ljtui.core.events import Notice
from ljtui.core.tools import require

if TYPE_CHECKING:
    from ljtui.core.engine import Engine


class SessionContext:
    """The system prompt and memory of the engine's session."""

    _system_prompt: str | None = None

    @property
    def _system(self: Engine) -> str:
        """The session's system prompt (built by :meth:`prepare_context` before the first model call)."""
        return self._system_prompt or ""

    async def prepare_context(self: Engine) -> str:
        """Build the system prompt once per session: project, outline, git, notes, memory (AGENT-4)."""
        if self._system_prompt is None:
            self._system_prompt = await asyncio.to_thread(self._build_system_prompt)
            await asyncio.to_thread(self.gates.restore)
        return self._system_prompt

    def _build_system_prompt(self: Engine) -> str:
        from ljtui.core.agent.project import gather, system_prompt
        from ljtui.core.secret_files import SecretFiles

        facts = gather(self.repo_root, SecretFiles.allowing(self.config.security.allow_secret_files),
                       outline=self._outline_text, memory=self._memory_text)
        return system_prompt(facts)

    def _outline_text(self: Engine) -> str:
        """The ranked outline for the system prompt; a failure leaves it out and says so."""
        try:
            return require(self.services.outline, "outline").prompt_text()
        except Exception as exc:  # the prompt goes on without it: the model has get_outline and grep
            self.sink.emit(Notice(f"The repository outline could not be built ({type(exc).__name__}: {exc}); "
                                  "the model starts without it.", "warning"))
            return ""

    def _memory_text(self: Engine) -> str:
        """The long-term memory for the system prompt; why it is not loaded, as a notice."""
        loaded = require(self.services.memory, "memory").load()
        if loaded.notice:
            self.sink.emit(Notice(loaded.notice, "warning"))
        return loaded.text

    def memory_view(self: Engine) -> list[str]:
        """What ``/memory`` shows: the memory file and whether it is loaded (disk work: call from a thread)."""
        return require(self.services.memory, "memory").show().lines()

