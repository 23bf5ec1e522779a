"""Repository trust: which repositories may configure endpoints and commands.

A repository is untrusted input until the user says otherwise, as with
direnv ``allow``, mise ``trust`` and VS Code's Workspace Trust. The user's
decisions live in their own config dir (``trusted-repos.json``), keyed by
the repository's real path, and can be revoked. The file is the user's, but
it is still read defensively: anything malformed counts as "not trusted".
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.userdirs import user_config_dir

TRUST_FILE = "trusted-repos.json"
TRUST_VERSION = 1
PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
MAX_TRUST_FILE_BYTES = 4 * 1024 * 1024
"""A trust file larger than this is treated as damaged."""


@dataclass(frozen=True)
class TrustedRepo:
    """One trusted repository: its real path and when it was trusted (epoch seconds)."""

    path: str
    since: float


class TrustStore:
    """The user's list of trusted repositories."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []

    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> TrustStore:
        """The store in the user's config dir."""
        return cls(user_config_dir(env) / TRUST_FILE)

    @staticmethod
    def key(root: Path) -> str:
        """How a repository is recorded: its real path."""
        return os.path.realpath(root)

    def entries(self) -> list[TrustedRepo]:
        """Every trusted repository, in the order they were trusted."""
        return sorted(self._load().values(), key=lambda r: (r.since, r.path))

    def is_trusted(self, root: Path) -> bool:
        """Whether the user trusts the repository at ``root``."""
        return self.key(root) in self._load()

    def trust(self, root: Path, now: float) -> TrustedRepo:
        """Record the repository at ``root`` as trusted."""
        repos = self._load()
        entry = repos.get(self.key(root)) or TrustedRepo(self.key(root), now)
        repos[entry.path] = entry
        self._save(repos)
        return entry

    def revoke(self, root: Path) -> bool:
        """Forget the repository at ``root``; False when it was not trusted."""
        repos = self._load()
        if repos.pop(self.key(root), None) is None:
            return False
        self._save(repos)
        return True

    def _load(self) -> dict[str, TrustedRepo]:
        self.warnings = []
        try:
            if self.path.stat().st_size > MAX_TRUST_FILE_BYTES:
                return self._damaged("too large")
            data: Any = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            return self._damaged(type(exc).__name__)
        repos = data.get("repositories") if isinstance(data, dict) and data.get("version") == TRUST_VERSION else None
        if not isinstance(repos, dict):
            return self._damaged("not a version 1 trust list")
        out: dict[str, TrustedRepo] = {}
        for path, info in repos.items():
            since = info.get("since") if isinstance(info, dict) else None
            if isinstance(path, str) and os.path.isabs(path) and isinstance(since, (int, float)):
                out[path] = TrustedRepo(path, float(since))
            else:
                self.warnings.append(f"{self.path}: entry {path!r} is malformed; skipped")
        return out

    def _damaged(self, why: str) -> dict[str, TrustedRepo]:
        self.warnings.append(f"{self.path} cannot be read ({why}); no repository is trusted")
        return {}

    def _save(self, repos: dict[str, TrustedRepo]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
        data = {"version": TRUST_VERSION,
                "repositories": {r.path: {"since": r.since} for r in sorted(repos.values(), key=lambda r: r.path)}}
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, self.path)


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
