"""Playbook events: a demotion and a change of status, for the UI, ``--json`` output and logs.

A field named after a Python keyword carries PEP 8's trailing underscore
(``from_``); :meth:`as_dict` gives the names without it, as the spec writes
them (``id, from, to, ok, fail``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ljtui.core.events import Event


@dataclass(frozen=True)
class PlaybookDemoted(Event):
    """An active playbook's record demoted it (PB-4): ``from_`` → ``to`` at ``ok`` / ``fail``."""

    id: str
    from_: str
    to: str
    ok: int
    fail: int

    def as_dict(self) -> dict[str, Any]:
        """``{kind, id, from, to, ok, fail}``."""
        return {"kind": self.kind, **{k.removesuffix("_"): v for k, v in dataclasses.asdict(self).items()}}


@dataclass(frozen=True)
class PlaybookStatusChanged(Event):
    """The user promoted, deprecated or sent back to draft a playbook."""

    id: str
    from_: str
    to: str

    def as_dict(self) -> dict[str, Any]:
        """``{kind, id, from, to}``."""
        return {"kind": self.kind, **{k.removesuffix("_"): v for k, v in dataclasses.asdict(self).items()}}


@dataclass(frozen=True)
class PlaybookSaved(Event):
    """A draft playbook was saved."""

    id: str
    title: str
    path: str
