"""``engine.playbooks``: the session's playbook service, built on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ljtui.core.playbooks.service import PlaybookService

if TYPE_CHECKING:
    from ljtui.core.engine import Engine


class PlaybookAccess:
    """Mixed into the engine: ``engine.playbooks``, built on first use and handed to the tools."""

    _playbook_service: PlaybookService | None = None

    @property
    def playbooks(self: Any) -> PlaybookService:
        """The session's playbook service (its events go to the session's sink, its questions to the Approver)."""
        engine: Engine = self
        if getattr(engine, "_playbook_service", None) is None:
            engine._playbook_service = PlaybookService(
                engine.repo_root, lambda event: engine.sink.emit(event), engine.ask, engine.clock,
                session_id=lambda: getattr(getattr(engine, "session_log", None), "id", None))
        return engine._playbook_service  # type: ignore[return-value]
