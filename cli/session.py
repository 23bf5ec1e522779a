"""An engine for a headless command: the repository's config, a sink, an approver."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping

from ljtui.cli.output import echo
from ljtui.core.approval import Approver
from ljtui.core.config import load_config
from ljtui.core.engine import Engine
from ljtui.core.ports import EventSink


def headless_engine(prog: str, root: Path, sink: EventSink, approver: Approver,
                    overrides: Mapping[str, Any] | None = None) -> Engine:
    """The engine of ``root`` with every config layer read; config warnings go to stderr."""
    loaded = load_config(repo_root=root, overrides=overrides)
    for warning in loaded.warnings:
        echo(f"{prog}: {warning}", sys.stderr)
    return Engine(loaded.config, sink, repo_root=root, approver=approver)
