"""Repository trust: which repositories may configure endpoints and commands, bound to what was trusted.

A repository is untrusted input until the user says otherwise, as with
direnv ``allow``, mise ``trust`` and VS Code's Workspace Trust. The user's
decisions live in their own config dir (``trusted-repos.json``), keyed by
the repository's real path, and can be revoked.

A decision covers the settings the user saw (:mod:`ljtui.core.trust_content`):
the record keeps their digest, each file's digest and the text of
``.agent/config.yaml``. Once a ``git pull``, a command or another repository
at the same path changes them, the repository is no longer trusted, and the
question asked again (:func:`trust_request`) shows what changed: the files
added, removed or changed, and a diff of the config. A record of an older
ljtui, which kept the path alone, is asked about again too.

The file is the user's, but it is still read defensively: anything
malformed counts as "not trusted", and a damaged file trusts nothing.
"""

from __future__ import annotations

import difflib
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ljtui.core.approval import ApprovalRequest, Choice
from ljtui.core.display import shown_line
from ljtui.core.trust_content import (
    CONFIG_FILE,
    MAX_FILES,
    MAX_KEPT_CONFIG_BYTES,
    Identity,
    Settings,
    settings_of,
)
from ljtui.core.user_records import RecordsBacked, UserRecords
from ljtui.core.userdirs import user_config_dir

TRUST_FILE = "trusted-repos.json"
TRUST_VERSION = 2
PATH_ONLY_VERSION = 1
"""The format of older ljtui, which recorded a trusted repository's path alone."""
MAX_TRUST_FILE_BYTES = 16 * 1024 * 1024
"""A trust file larger than this is treated as damaged."""
MAX_PATH_CHARS = 4096
"""A recorded settings file path longer than this makes its record malformed."""
MAX_LISTED_FILES = 20
"""Files listed per kind of change (added, removed, changed) before the rest are counted."""
MAX_DIFF_LINES = 60
"""Lines of the config's diff shown before the rest are counted."""
DIFF_CONTEXT = 2
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_TRUST_WHAT = {"what": "trust list", "when_damaged": "no repository is trusted", "max_bytes": MAX_TRUST_FILE_BYTES}


@dataclass(frozen=True)
class TrustedRepo:
    """One trusted repository: its real path, when it was trusted (epoch seconds), and whether its settings were
    recorded (``False``: an older ljtui's record of the path alone, asked about again)."""

    path: str
    since: float
    bound: bool = True


@dataclass(frozen=True)
class SettingsChanges:
    """How a trusted repository's settings differ from what the user trusted.

    Attributes:
        since: when the user trusted it.
        path_only: the record is an older ljtui's, with the path alone.
        replaced: another folder or another ``.git`` is at the path now.
        added, removed, changed: settings files, repo-relative.
        problems: why the settings cannot be bound now (the files were then not compared).
        config_diff: a unified diff of ``.agent/config.yaml``, every line made safe to show.
    """

    since: float
    path_only: bool = False
    replaced: bool = False
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    config_diff: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrustCheck:
    """A repository's settings now, against the user's record.

    Attributes:
        seen: the settings now: what a yes records.
        since: when the user trusted the repository (``None``: never).
        changes: how the settings differ from the record (``None``: never trusted, or they match).
    """

    seen: Settings
    since: float | None = None
    changes: SettingsChanges | None = None

    @property
    def trusted(self) -> bool:
        """Whether the user trusts the repository as it is now."""
        return self.since is not None and self.changes is None


class TrustStore(RecordsBacked):
    """The user's list of trusted repositories."""

    def __init__(self, path: Path) -> None:
        self.records = UserRecords(path, version=TRUST_VERSION, clean=_record, **_TRUST_WHAT)

    @classmethod
    def for_env(cls, env: Mapping[str, str] | None = None) -> TrustStore:
        """The store in the user's config dir."""
        return cls(user_config_dir(env) / TRUST_FILE)

    def entries(self) -> list[TrustedRepo]:
        """Every trusted repository, in the order they were trusted."""
        repos = [TrustedRepo(path, info["since"], "digest" in info) for path, info in self._load().items()]
        return sorted(repos, key=lambda r: (r.since, r.path))

    def is_trusted(self, root: Path) -> bool:
        """Whether the user trusts the repository at ``root`` with its settings as they are now."""
        info = self._load().get(self.key(root))
        if info is None or "digest" not in info:
            return False
        return _matches(info, settings_of(Path(self.key(root))))

    def trusts(self, root: Path, files: tuple[tuple[str, str], ...]) -> bool:
        """Whether the user trusts the repository at ``root`` as it is now, and ``files`` (``(repo-relative path,
        digest)`` of settings files a caller read itself, :func:`~ljtui.core.trust_digests.digest_of`) are what
        was trusted: what the caller read cannot have changed between its read and this check."""
        info = self._load().get(self.key(root))
        if info is None or "digest" not in info or not _matches(info, settings_of(Path(self.key(root)))):
            return False
        return all(info["files"].get(rel) == digest for rel, digest in files)

    def check(self, root: Path) -> TrustCheck:
        """The repository's settings now, and how they differ from what the user trusted."""
        key = self.key(root)
        info = self._load().get(key)
        seen = settings_of(Path(key))
        if info is None:
            return TrustCheck(seen)
        if "digest" in info and _matches(info, seen):
            return TrustCheck(seen, info["since"])
        return TrustCheck(seen, info["since"], changes_since(info, seen))

    def trust(self, root: Path, now: float, seen: Settings | None = None) -> TrustedRepo:
        """Record the repository at ``root`` as trusted with the settings ``seen`` (default: as they are now).

        The record never matches while ``seen`` has problems: the repository stays untrusted.
        """
        key = self.key(root)
        seen = settings_of(Path(key)) if seen is None else seen
        record = {"since": now, "identity": _identity_json(seen.identity), "digest": seen.digest,
                  "files": dict(seen.files), "config": seen.config_text}
        with self._editing() as repos:
            repos[key] = record
        return TrustedRepo(key, now)

    def revoke(self, root: Path) -> bool:
        """Forget the repository at ``root``; False when it was not trusted."""
        with self._editing() as repos:
            return repos.pop(self.key(root), None) is not None

    def _load(self) -> dict[str, Any]:
        """The records; those of an older ljtui's file as path-only records."""
        entries = self.records.load()
        if entries or not self.records.warnings:
            return entries
        older = UserRecords(self.path, version=PATH_ONLY_VERSION, clean=_path_only, **_TRUST_WHAT)
        found = older.load()
        if found or not older.warnings:
            self.records.warnings = older.warnings
            return found
        return entries

    @contextmanager
    def _editing(self) -> Iterator[dict[str, Any]]:
        """The records under the file's lock; an older ljtui's file is rewritten in this format, its records kept."""
        with self.records.editing() as repos:
            if not repos and self.records.warnings:
                older = UserRecords(self.path, version=PATH_ONLY_VERSION, clean=_path_only, **_TRUST_WHAT)
                repos.update(older.load())
            yield repos


def _since(info: Any) -> float | None:
    since = info.get("since") if isinstance(info, dict) else None
    if isinstance(since, bool) or not isinstance(since, (int, float)):
        return None
    return float(since)


def _path_only(_: str, info: Any) -> dict[str, float] | None:
    since = _since(info)
    return {"since": since} if since is not None else None


def _record(_: str, info: Any) -> dict[str, Any] | None:
    """A valid record (a path-only one of an older ljtui too), or ``None``."""
    since = _since(info)
    if since is None:
        return None
    if "digest" not in info:
        return {"since": since}
    identity, files, digest, config = (info.get(k) for k in ("identity", "files", "digest", "config"))
    if _identity(identity) is None or not isinstance(files, dict) or len(files) > MAX_FILES:
        return None
    if not isinstance(digest, str) or not _SHA256_HEX.fullmatch(digest):
        return None
    if not all(isinstance(p, str) and len(p) <= MAX_PATH_CHARS and isinstance(d, str) and _SHA256_HEX.fullmatch(d)
               for p, d in files.items()):
        return None
    if config is not None and not (isinstance(config, str) and len(config) <= MAX_KEPT_CONFIG_BYTES):
        return None
    return {"since": since, "identity": identity, "digest": digest, "files": files, "config": config}


def _identity_json(identity: Identity) -> dict[str, list[int] | None]:
    folder, git = identity
    return {"folder": list(folder) if folder else None, "git": list(git) if git else None}


def _identity(value: Any) -> Identity | None:
    """The identity a record holds, or ``None`` when it is malformed."""
    if not isinstance(value, dict) or set(value) != {"folder", "git"}:
        return None
    pairs = []
    for part in (value["folder"], value["git"]):
        ok = part is None or (isinstance(part, list) and len(part) == 2
                              and all(isinstance(n, int) and not isinstance(n, bool) for n in part))
        if not ok:
            return None
        pairs.append(tuple(part) if part is not None else None)
    return pairs[0], pairs[1]


def _matches(info: dict[str, Any], seen: Settings) -> bool:
    return (not seen.problems and info["digest"] == seen.digest
            and _identity(info["identity"]) == seen.identity)


def changes_since(info: dict[str, Any], seen: Settings) -> SettingsChanges:
    """How ``seen`` differs from the record ``info`` (a record whose settings do not match)."""
    since = info["since"]
    if "digest" not in info:
        now = _config_diff("", seen.config_text, "not recorded by the older ljtui") if _has_config(seen) else ()
        return SettingsChanges(since, path_only=True, problems=seen.problems, config_diff=now)
    replaced = _identity(info["identity"]) != seen.identity
    if seen.problems:
        return SettingsChanges(since, replaced=replaced, problems=seen.problems)
    old, new = info["files"], dict(seen.files)
    added = tuple(sorted(set(new) - set(old)))
    removed = tuple(sorted(set(old) - set(new)))
    changed = tuple(sorted(p for p in set(old) & set(new) if old[p] != new[p]))
    diff: tuple[str, ...] = ()
    if CONFIG_FILE in (*added, *removed, *changed):
        before = info["config"] if CONFIG_FILE in old else ""
        diff = _config_diff(before, seen.config_text if CONFIG_FILE in new else "", "as you trusted it")
    return SettingsChanges(since, False, replaced, added, removed, changed, (), diff)


def _has_config(seen: Settings) -> bool:
    return any(path == CONFIG_FILE for path, _ in seen.files)


def _config_diff(before: str | None, after: str | None, then: str) -> tuple[str, ...]:
    """The config's unified diff, each line shown safely (a control character cannot hide a line)."""
    if before is None or after is None:
        return (f"({CONFIG_FILE} is over {MAX_KEPT_CONFIG_BYTES:,} bytes, so no difference can be shown)",)
    lines = list(difflib.unified_diff(before.split("\n"), after.split("\n"), f"{CONFIG_FILE} ({then})",
                                      f"{CONFIG_FILE} (now)", lineterm="", n=DIFF_CONTEXT))
    shown = [shown_line(line) for line in lines[:MAX_DIFF_LINES]]
    if len(lines) > MAX_DIFF_LINES:
        shown.append(f"… {len(lines) - MAX_DIFF_LINES} more lines of the difference")
    return tuple(shown)


def change_lines(changes: SettingsChanges) -> list[str]:
    """What changed since the user trusted the repository, one line each (the diff last)."""
    lines = [f"Its settings changed since you trusted it ({_when(changes.since)}):"]
    if changes.path_only:
        lines.append("  - it was trusted by an older ljtui, which recorded its path but not its settings")
    if changes.replaced:
        lines.append("  - another repository is at this path now (another folder or another .git)")
    lines.extend(f"  - cannot be checked: {shown_line(problem)}" for problem in changes.problems)
    for label, paths in (("changed", changes.changed), ("added", changes.added), ("removed", changes.removed)):
        lines.extend(f"  - {label}: {shown_line(path)}" for path in paths[:MAX_LISTED_FILES])
        if len(paths) > MAX_LISTED_FILES:
            lines.append(f"  - … {len(paths) - MAX_LISTED_FILES} more {label}")
    if changes.config_diff:
        lines.extend(["", *changes.config_diff])
    return lines


def unbound_lines(problems: tuple[str, ...]) -> list[str]:
    """Why trust cannot be given now: the settings cannot be recorded (fail closed)."""
    return ["ljtui cannot record what it would trust, so this repository stays untrusted until that is fixed:",
            *(f"  - {shown_line(problem)}" for problem in problems)]


def unbound_notice(problems: tuple[str, ...]) -> str:
    """One line for the app: the repository's settings stay ignored, and why."""
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    return (f"This repository's own settings stay ignored: ljtui cannot record what it would trust "
            f"({shown_line(problems[0])}{more}); fix that, then `ljtui trust`.")


def _when(since: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(since))


def trust_request(root: Path, enables: list[str], changes: SettingsChanges | None = None) -> ApprovalRequest:
    """The question asked before a repository's own settings are used; ``changes`` when they changed since."""
    lines = [shown_line(str(root)), ""]
    if changes is not None:
        lines.extend([*change_lines(changes), ""])
    lines.extend(["This repository's own files (.agent/, .mcp.json, .claude/settings.json) would:",
                  *(f"  - {line}" for line in enables or ["(nothing today: they set nothing that needs trust)"]),
                  "", "Until you trust it, these settings are ignored. Trust is recorded in your config dir;",
                  "`ljtui trust --revoke` takes it back."])
    title = "Trust this repository again?" if changes is not None else "Trust this repository?"
    return ApprovalRequest("trust", title, tuple(lines),
                           (Choice("yes", "trust it", "t"), Choice("no", "not now", "escape")), "no", str(root))
