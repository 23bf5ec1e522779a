"""Repository trust: which repositories may configure endpoints and commands.

A repository is untrusted input until the user says otherwise, as with
direnv ``allow``, mise ``trust`` and VS Code's Workspace Trust. The user's
decisions live in their own config dir (``trusted-repos.json``), keyed by
the repository's real path, and can be revoked. The file is the user's, but
it is still read defensively: anything malformed counts as "not trusted".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.user_records import RecordsBacked, UserRecords
from ljtui.core.userdirs import user_config_dir

TRUST_FILE = "trusted-repos.json"
TRUST_VERSION = 1
MAX_TRUST_FILE_BYTES = 4 * 1024 * 1024
"""A trust file larger than this is treated as damaged."""


@dataclass(frozen=True)
class TrustedRepo:
    """One trusted repository: its real path and when it was trusted (epoch seconds)."""

    path: str
    since: float


class TrustStore(RecordsBacked):
    """The user's list of trusted repositories."""

    def __init__(self, path: Path) -> None:
        self.records = UserRecords(path, version=TRUST_VERSION, what="trust list",
                                   when_damaged="no repository is trusted", clean=_since,
                                   max_bytes=MAX_TRUST_FILE_BYTES)


    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> TrustStore:
        """The store in the user's config dir."""
        return cls(user_config_dir(env) / TRUST_FILE)


    def entries(self) -> list[TrustedRepo]:
        """Every trusted repository, in the order they were trusted."""
        repos = [TrustedRepo(path, info["since"]) for path, info in self.records.load().items()]
        return sorted(repos, key=lambda r: (r.since, r.path))

    def is_trusted(self, root: Path) -> bool:
        """Whether the user trusts the repository at ``root``."""
        return self.key(root) in self.records.load()

    def trust(self, root: Path, now: float) -> TrustedRepo:
        """Record the repository at ``root`` as trusted."""
        with self.records.editing() as repos:
            info = repos.setdefault(self.key(root), {"since": now})
        return TrustedRepo(self.key(root), info["since"])

    def revoke(self, root: Path) -> bool:
        """Forget the repository at ``root``; False when it was not trusted."""
        with self.records.editing() as repos:
            return repos.pop(self.key(root), None) is not None


def _since(_: str, info: Any) -> dict[str, float] | None:
    since = info.get("since") if isinstance(info, dict) else None
    ok = isinstance(since, (int, float)) and not isinstance(since, bool)
    return {"since": float(since)} if ok else None


def trust_would_enable(root: Path, env: Mapping[str, str] | None = None) -> list[str]:
    """What trusting the repository at ``root`` would let its files do, one line each.

    Settings only the user's own config may hold are left out: trust never enables them.
    """
    from ljtui.core.config import load_config

    return enabled_by_trust(load_config(root, env, trusted=False).ignored)


def enabled_by_trust(ignored: list[tuple[str, Any]]) -> list[str]:
    """The ignored repository settings that trust would let through, one line each."""
    from ljtui.core.config import TRUSTED, key_scope

    return [f"set {key} = {_shown(value)}" for key, value in ignored if key_scope(key) == TRUSTED]


def trust_request(root: Path, enables: list[str]) -> ApprovalRequest:
    """The question asked before a repository's own settings are used."""
    lines = [f"{root}", "", "This repository's own files (.agent/) would:", *(f"  - {line}" for line in enables), "",
             "Until you trust it, these settings are ignored. Trust is recorded in your config dir;",
             "`ljtui trust --revoke` takes it back."]
    return ApprovalRequest("trust", "Trust this repository?", tuple(lines),
                           (Choice("yes", "trust it", "t"), Choice("no", "not now", "escape")), "no", str(root))


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 200 else text[:200] + "…"
