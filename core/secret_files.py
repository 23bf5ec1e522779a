"""Secret files: which files in a repository no agent reads, and how the user allows one.

The repository is untrusted input, but the files in it may still hold the
user's own secrets (an ``.env`` with keys, a private key, a token in a git
remote URL). A :class:`SecretFiles` policy says which repository-relative
paths are secret. Every read path applies it to each file before the file
is opened: the planner's ``list_dir``,
``read_file`` and ``grep`` (both grep engines, for every file a folder
search reaches), the agent's ``read_file``, ``list_files``, ``grep_files``,
``get_outline`` and ``find_symbol``, and the project context in the
agent's system prompt (top-level listing, outline, notes files).

A file is secret when any of these rules matches it, at any depth:

* its name matches one of :data:`DEFAULT_SECRET_PATTERNS`:

  - environment files: ``.env*``;
  - private keys and key stores: ``*.pem``, ``*.key``, ``*.p12``,
    ``*.pfx``, ``*.ppk``, ``id_rsa*``, ``id_dsa*``, ``id_ecdsa*``,
    ``id_ed25519*``, ``*_sk`` (security-key SSH keys such as
    ``id_ed25519_sk``);
  - login and registry files: ``.npmrc``, ``.pypirc``, ``.netrc``,
    ``.pgpass``, ``.git-credentials``, ``.htpasswd``, ``credentials*``;
  - cloud and cluster credentials: ``kubeconfig``, ``kubeconfig.yaml``,
    ``kubeconfig.yml``, ``*.kubeconfig`` (not ``kubeconfig*``, which would
    hide Go sources such as ``kubeconfig.go``), ``*.tfvars``,
    ``*.tfvars.json``;
  - Google service-account and OAuth client keys, by their usual names:
    ``*service-account*.json``, ``*service_account*.json``,
    ``*serviceaccount*.json``, ``*sa-key*.json``, ``*sa_key*.json``,
    ``client_secret*.json``. Only ``.json`` names match, because the key
    files are JSON while the same words name ordinary code
    (``service_account.py``) and Kubernetes manifests
    (``service-account.yaml``); a key saved under another name (the
    console's default ``<project>-<hex>.json``) cannot be told from
    ordinary JSON by its name;

* it is named in :data:`SECRET_FOLDER_FILES` and sits in that folder:
  ``config`` and ``config.worktree`` anywhere inside a ``.git`` folder (a
  remote URL may carry a token: the repository's own, nested repositories',
  submodules' under ``.git/modules/`` and linked worktrees' under
  ``.git/worktrees/``), ``config`` directly in a ``.kube`` folder, and
  ``config.json`` directly in a ``.docker`` folder.

Matching ignores case. A file the user allows with
``security.allow_secret_files`` (a key only the user's own config file may
set) is not secret, whichever rule matched it. Rules name files, not
folders: a folder called ``credentials`` is listed and searched, a file
called ``credentials.json`` is not; ``kubeconfig.go`` and ``config.json``
elsewhere stay readable.

:meth:`SecretFiles.globs` gives the rule as ripgrep globs, so that a search
can keep ripgrep away from secret files before it opens any. The globs may
match more than the rule, never less; what they match is checked with the
rule itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase, translate
from functools import lru_cache
from typing import Any, Iterable

DEFAULT_SECRET_PATTERNS: tuple[str, ...] = (
    ".env*",
    "*.pem", "*.key", "*.p12", "*.pfx", "*.ppk",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*_sk",
    ".npmrc", ".pypirc", ".netrc", ".pgpass", ".git-credentials", ".htpasswd", "credentials*",
    "kubeconfig", "kubeconfig.yaml", "kubeconfig.yml", "*.kubeconfig", "*.tfvars", "*.tfvars.json",
    "*service-account*.json", "*service_account*.json", "*serviceaccount*.json", "*sa-key*.json", "*sa_key*.json",
    "client_secret*.json",
)
"""File-name globs of files that usually hold secrets, matched at any depth, ignoring case."""


@dataclass(frozen=True)
class FolderFile:
    """A secret file known by its name and the folder it sits in.

    Attributes:
        folder: the folder's name (lower case).
        name: the file's name (lower case).
        nested: the file may sit in any subfolder of ``folder`` too, not
            only directly in it.
    """

    folder: str
    name: str
    nested: bool = False

    @property
    def rule(self) -> str:
        """How the rule is named in messages."""
        return f"{self.folder}/{self.name}"

    def matches(self, parts: list[str]) -> bool:
        """Whether the lower-case path ``parts`` is this file."""
        if parts[-1] != self.name:
            return False
        folders = parts[:-1]
        return self.folder in folders if self.nested else bool(folders) and folders[-1] == self.folder


GIT_DIR_NAME = ".git"
"""A repository's metadata folder; its config files may carry a token in a remote URL."""
GIT_CONFIG_NAME = "config"
"""The git config file's name inside :data:`GIT_DIR_NAME`."""
GIT_CONFIG_RULE = f"{GIT_DIR_NAME}/{GIT_CONFIG_NAME}"
"""How the git config rule is named in messages."""
SECRET_FOLDER_FILES: tuple[FolderFile, ...] = (
    FolderFile(GIT_DIR_NAME, GIT_CONFIG_NAME, nested=True),
    FolderFile(GIT_DIR_NAME, "config.worktree", nested=True),
    FolderFile(".kube", "config"),
    FolderFile(".docker", "config.json"),
)
"""Files that are secret in the folder they sit in: git's config files anywhere inside a ``.git``
folder (``modules/`` and ``worktrees/`` hold more of them), kubectl's and docker's login files."""
_FOLDER_FILE_NAMES = frozenset(f.name for f in SECRET_FOLDER_FILES)

ALLOW_KEY = "security.allow_secret_files"
"""The config key that allows secret files by glob."""
USER_CONFIG_EXAMPLE = "~/.config/ljtui/config.yaml"
"""Where the user's own config file usually lives, for messages."""
GLOB_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
"""Letters a glob of :meth:`SecretFiles.globs` spells in both cases, as ``[eE]``."""
GLOB_PLAIN = frozenset("0123456789._-")
"""Other characters a glob of :meth:`SecretFiles.globs` spells as themselves; any other character, and any
``?`` or bracket expression, becomes ``*`` there (ripgrep's ``?`` matches one byte, a name's character
may take several)."""
KELVIN_SIGN = "\u212a"
"""The one character besides ``K`` whose lower case is an ASCII letter (``k``): the rule, which compares
lower case, makes ``\u212aubeconfig`` secret."""
DOTTED_CAPITAL_I = "\u0130"
"""The one character whose lower case is longer than one character (``i`` and a combining dot): a
pattern's ``i`` followed by ``*`` matches it."""
ODD_CASES = ((KELVIN_SIGN, "[kK]"), (DOTTED_CAPITAL_I, "[iI]*"))
"""Each such character, and the spelling in a glob of :meth:`SecretFiles.globs` where it could stand. Rather
than spell every glob again with it, one glob matches any name holding it, and one any path through a
folder whose name holds it: such names are rare, and a file they take in that the rule does not call
secret is still searched."""


@dataclass(frozen=True)
class SecretFiles:
    """Which repository-relative paths are secret.

    Attributes:
        patterns: file-name globs of secret files (matched at any depth);
            the folder rules of :data:`SECRET_FOLDER_FILES` always apply too.
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
        if _any_name(self.patterns).match(parts[-1]):
            rule: str | None = next(p for p in self.patterns if fnmatchcase(parts[-1], p.lower()))
        elif parts[-1] in _FOLDER_FILE_NAMES:
            rule = next((f.rule for f in SECRET_FOLDER_FILES if f.matches(parts)), None)
        else:
            rule = None
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

    def globs(self) -> tuple[str, ...]:
        """The rule as ripgrep globs (``--glob``, gitignore syntax), allow globs aside.

        They ignore case by spelling it out (``[eE]``): ripgrep applies its
        case-insensitive ``--iglob`` globs after all ``--glob`` ones, whatever
        the command line's order, while a search needs its globs in its own
        order. Each starts with ``**/`` and holds no braces, so they can be
        joined into one alternation. Every file :meth:`is_secret` calls secret
        matches one of them; they may match more (a file the user allows, a
        name a widened ``?`` or bracket expression reaches, a name holding
        one of :data:`ODD_CASES`), so a search that leaves out what they
        match checks each such file with :meth:`is_secret`. A glob may also
        match a folder: folders are never secret, so a search keeps them.
        """
        return _rule_globs(self.patterns)

    def skipped_note(self, count: int) -> str:
        """The note a search adds when it skipped ``count`` secret files (none of their lines is shown)."""
        noun, pronoun = ("file was", "it") if count == 1 else ("files were", "them")
        return (f"[{count} secret {noun} skipped, nothing from {pronoun} shown (.env files, keys, credentials, "
                f"{', '.join(f.rule for f in SECRET_FOLDER_FILES)} and the like); "
                f"the user can allow some with {ALLOW_KEY} in their own config file]")


@lru_cache(maxsize=16)
def _any_name(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One regex matching a lower-case file name that any of ``patterns`` matches.

    Every file a search reaches is checked, so the globs are compiled once
    instead of matched one by one.
    """
    if not patterns:
        return re.compile(r"(?!)")
    return re.compile("|".join(f"(?:{translate(p.lower())})" for p in patterns))


@lru_cache(maxsize=16)
def _rule_globs(patterns: tuple[str, ...]) -> tuple[str, ...]:
    """The globs of :meth:`SecretFiles.globs`, built once per set of patterns (every search asks)."""
    names = [f"**/{_glob_of(p)}" for p in patterns if p and "/" not in p]
    folders = [f"**/{_glob_of(f.folder)}/{'**/' if f.nested else ''}{_glob_of(f.name)}"
               for f in SECRET_FOLDER_FILES]
    odd = [char for char, spelling in ODD_CASES if any(spelling in glob for glob in (*names, *folders))]
    holding = [glob for char in odd for glob in (f"**/*{char}*", f"**/*{char}*/**")]
    return tuple(dict.fromkeys((*names, *folders, *holding)))


def _glob_of(pattern: str) -> str:
    """A ripgrep glob without braces that matches, ignoring case in ASCII, every name the fnmatch
    ``pattern`` matches ignoring case, but for names holding one of :data:`ODD_CASES`."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        i += 1
        if char == "[":
            i = _bracket_end(pattern, i)
            char = "*"
        lower = char.lower()
        out.append(f"[{lower}{lower.upper()}]" if lower in GLOB_LETTERS else char if char in GLOB_PLAIN else "*")
    return re.sub(r"\*+", "*", "".join(out))


def _bracket_end(pattern: str, start: int) -> int:
    """Where the fnmatch bracket expression opened just before ``start`` ends (past its ``]``), or
    ``start`` when the ``[`` is a plain character (no closing ``]``), as :func:`fnmatch.translate` reads it."""
    j = start
    if j < len(pattern) and pattern[j] == "!":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    j = pattern.find("]", j)
    return start if j < 0 else j + 1


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
