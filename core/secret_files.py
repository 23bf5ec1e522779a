"""Secret files: which files in a repository no agent reads, and how the user allows one.

The repository is untrusted input, but the files in it may still hold the
user's own secrets (an ``.env`` with keys, a private key, a token in a git
remote URL). A :class:`SecretFiles` policy says which repository-relative
paths are secret; every tool that reads the repository asks it first (the
planner's ``list_dir``, ``read_file`` and ``grep``, and later the agent's
``read_file``, ``grep_files`` and ``list_files``).

A file is secret when its name matches one of :data:`DEFAULT_SECRET_PATTERNS`
at any depth, or when it is a git repository's ``config`` (a file named
``config`` inside a ``.git`` folder: the repository's own and those of nested
repositories and submodules). Matching ignores case. A file the user allows
with ``security.allow_secret_files`` (a key only the user's own config file
may set) is not secret. Patterns name files, not folders: a folder called
``credentials`` is listed and searched, a file called ``credentials.json`` is
not.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Iterable

DEFAULT_SECRET_PATTERNS: tuple[str, ...] = (
    ".env*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", ".npmrc", ".pypirc", ".netrc", "credentials*",
)
"""File-name globs of files that usually hold secrets, matched at any depth, ignoring case."""

GIT_DIR_NAME = ".git"
"""A repository's metadata folder; the ``config`` file inside it may carry a token in a remote URL."""
GIT_CONFIG_NAME = "config"
"""The git config file's name inside :data:`GIT_DIR_NAME`."""
GIT_CONFIG_RULE = f"{GIT_DIR_NAME}/{GIT_CONFIG_NAME}"
"""How the git config rule is named in messages."""

ALLOW_KEY = "security.allow_secret_files"
"""The config key that allows secret files by glob."""
USER_CONFIG_EXAMPLE = "~/.config/ljtui/config.yaml"
"""Where the user's own config file usually lives, for messages."""


@dataclass(frozen=True)
class SecretFiles:
    """Which repository-relative paths are secret.

    Attributes:
        patterns: file-name globs of secret files (matched at any depth).
        allowed: the user's allow globs (``security.allow_secret_files``). A
            glob without ``/`` matches a file name at any depth; a glob with
            ``/`` matches the whole path from the repository root, where
            ``*`` stays inside one folder and ``**`` spans folders.
    """

    patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    allowed: tuple[str, ...] = ()

    @classmethod
    def allowing(cls, allowed: Iterable[Any] | None) -> SecretFiles:
        """The default policy plus the user's allow globs; blank or non-text entries are ignored."""
        kept = tuple(_clean_glob(g) for g in allowed or () if isinstance(g, str) and _clean_glob(g))
        return cls(DEFAULT_SECRET_PATTERNS, kept)

    def rule_for(self, rel_path: str) -> str | None:
        """The rule that makes ``rel_path`` secret, or None when it may be read.

        Args:
            rel_path: a file's path relative to the repository root, ``/``-separated.
        """
        parts = [p for p in rel_path.lower().split("/") if p not in ("", ".")]
        if not parts:
            return None
        name = parts[-1]
        rule = next((p for p in self.patterns if fnmatchcase(name, p.lower())), None)
        if rule is None and name == GIT_CONFIG_NAME and GIT_DIR_NAME in parts[:-1]:
            rule = GIT_CONFIG_RULE
        if rule is None or any(_allow_matches(g, parts) for g in self.allowed):
            return None
        return rule

    def is_secret(self, rel_path: str) -> bool:
        """Whether no agent may read the file at ``rel_path`` (repository-relative)."""
        return self.rule_for(rel_path) is not None

    def refusal(self, shown: str, rule: str) -> str:
        """The message for a refused read of ``shown``, saying how the user allows it."""
        return (
            f"{shown!r} looks like a secret file (it matches {rule!r}), so its contents are not shown. "
            f"Do not try to read it another way. If the user wants it read, they can allow it by adding a "
            f"glob for it to {ALLOW_KEY} in their own config file (e.g. {USER_CONFIG_EXAMPLE}); "
            f"a repository's own .agent/config.yaml cannot allow it."
        )

    def skipped_note(self, count: int) -> str:
        """The note a search adds when it left ``count`` secret files out."""
        noun = "file was" if count == 1 else "files were"
        return (f"[{count} secret {noun} not searched ({', '.join(self.patterns)}, {GIT_CONFIG_RULE}); "
                f"the user can allow some with {ALLOW_KEY} in their own config file]")


def _clean_glob(glob: str) -> str:
    return glob.strip().lstrip("/").rstrip("/").lower()


def _allow_matches(glob: str, parts: list[str]) -> bool:
    """Whether an allow glob (already lower-case) matches the lower-case path ``parts``."""
    if "/" not in glob:
        return fnmatchcase(parts[-1], glob)
    return _match_parts(glob.split("/"), parts)


def _match_parts(globs: list[str], parts: list[str]) -> bool:
    if not globs:
        return not parts
    if globs[0] == "**":
        return any(_match_parts(globs[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], globs[0]) and _match_parts(globs[1:], parts[1:])
