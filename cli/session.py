"""What a headless command works with: the repository's config, a sink, an approver, and either the whole
engine or only the edits path (``apply``, ``undo``, ``recover`` load no agent, gates or playbooks)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ljtui.cli.output import echo
from ljtui.core.approval import Approver
from ljtui.core.config import Config, load_config
from ljtui.core.ports import EventSink

if TYPE_CHECKING:
    from ljtui.core.asking import Ask
    from ljtui.core.edits.service import EditService
    from ljtui.core.review.service import ReviewService
    from ljtui.core.engine import Engine


def headless_engine(prog: str, root: Path, sink: EventSink, approver: Approver,
                    overrides: Mapping[str, Any] | None = None) -> Engine:
    """The engine of ``root`` with every config layer read; config warnings go to stderr."""
    from ljtui.core.engine import Engine

    return Engine(_config(prog, root, overrides), sink, repo_root=root, approver=approver)


def headless_edits(prog: str, root: Path, sink: EventSink, approver: Approver) -> EditService:
    """Plan files and the journal of ``root``, asking ``approver``; events are redacted of the configured
    secrets as the engine's are."""
    from ljtui.core.clock import SystemClock
    from ljtui.core.edits.service import EditService
    from ljtui.core.secret_files import SecretFiles

    config, redacting, ask = _asking(prog, root, sink, approver)
    secrets = SecretFiles.allowing(config.security.allow_secret_files)
    return EditService(root, redacting, ask, SystemClock(), secrets)


def headless_review(prog: str, root: Path, sink: EventSink, approver: Approver) -> ReviewService:
    """The review of ``root`` (undo asks through it), asking ``approver``; events redacted as the engine's."""
    from ljtui.core.clock import SystemClock
    from ljtui.core.review.service import ReviewService
    from ljtui.core.secret_files import SecretFiles

    config, redacting, ask = _asking(prog, root, sink, approver)
    return ReviewService(root, redacting, ask, SystemClock(), SecretFiles.allowing(config.security.allow_secret_files))


def headless_asker(prog: str, root: Path, sink: EventSink, approver: Approver) -> tuple[EventSink, Ask]:
    """``sink`` redacting the configured secrets, and ``ask`` asking ``approver`` and reporting there."""
    _, redacting, ask = _asking(prog, root, sink, approver)
    return redacting, ask


def _asking(prog: str, root: Path, sink: EventSink, approver: Approver) -> tuple[Config, EventSink, Ask]:
    """The configuration, ``sink`` redacting its secrets, and ``ask`` reporting there."""
    from ljtui.core.asking import asker
    from ljtui.core.session_state import SessionSettings, SessionSink

    config = _config(prog, root, None)
    redacting = SessionSink(sink, SessionSettings(config))
    return config, redacting, asker(approver, redacting)


def _config(prog: str, root: Path, overrides: Mapping[str, Any] | None) -> Config:
    loaded = load_config(repo_root=root, overrides=overrides)
    for warning in loaded.warnings:
        echo(f"{prog}: {warning}", sys.stderr)
    return loaded.config
