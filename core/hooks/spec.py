"""What a hook is, and reading hooks in Claude Code's format from the user's config and a repository's files.

The shape is Claude Code's::

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
                               "hooks": [{"type": "command", "command": "…", "timeout": 60}]}]}}

The user's config holds the inner mapping under its ``hooks`` section (YAML or JSON); a repository may commit
``.agent/hooks.json`` (the whole document) and ``.claude/settings.json`` (its ``hooks`` key, so existing setups
work). A repository's files are untrusted input: read without following a link, at most
:data:`MAX_HOOK_FILE_BYTES`, each entry checked; they act only while the user trusts the repository (trust is
bound to their bytes: :mod:`ljtui.core.trust_content`). Only the user's config may give a hook the network
(``"network": true``).

A matcher is a regular expression (RE2: it cannot hang) that must match the whole of the event's subject: for
tool events, ljtui's tool name or its Claude Code name (:data:`CLAUDE_TOOL_NAMES`); ``*`` or empty matches all.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ljtui.core.statedir import read_regular
from ljtui.core.trust_digests import CLAUDE_SETTINGS, HOOKS_FILE, digest_of

CLAUDE_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop",
                 "PreCompact", "SessionEnd")
"""Claude Code's events ljtui fires."""
LJTUI_EVENTS = ("TaskFinished", "Replanned", "GateChecked", "BeforeApply", "AfterApply")
"""ljtui's own events."""
EVENTS = CLAUDE_EVENTS + LJTUI_EVENTS
BLOCKING_EVENTS = frozenset({"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "BeforeApply"})
"""Events a hook's exit 2 (or ``"decision": "block"``) acts on; for the rest it is an error shown to the user."""
CLAUDE_TOOL_NAMES = {"bash": "Bash", "edit_file": "Edit", "apply_patch": "MultiEdit", "write_file": "Write",
                     "read_file": "Read", "grep_files": "Grep", "list_files": "Glob", "web_fetch": "WebFetch",
                     "web_search": "WebSearch"}
"""ljtui's tools by their Claude Code names, so a matcher written for Claude Code matches here (``apply_patch``,
several edits of several files in one call, as ``MultiEdit``)."""
REPO_FILES = (HOOKS_FILE, CLAUDE_SETTINGS)
"""A repository's hook files (trust binds them: :mod:`ljtui.core.trust_digests`)."""
USER_SOURCE = "your config"
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0
MIN_TIMEOUT = 0.1
MAX_HOOK_FILE_BYTES = 256 * 1024
"""A repository hook file larger than this is not read."""
MAX_HOOKS = 64
"""Hooks read from one source at most (each is a process on its event)."""
MAX_COMMAND_CHARS = 16_000
MAX_MATCHER_CHARS = 500
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


@dataclass(frozen=True)
class Hook:
    """One hook command on one event.

    Attributes:
        event: the event it runs on (:data:`EVENTS`).
        matcher: the regular expression its event's subject must match (``""``: every subject).
        command: the shell text, run by ``/bin/bash -c``.
        timeout: seconds before it is stopped.
        source: where it was read: :data:`USER_SOURCE` or a repository file.
        network: the sandbox lets it reach the network (only the user's config may say so).
    """

    event: str
    matcher: str
    command: str
    timeout: float = DEFAULT_TIMEOUT
    source: str = USER_SOURCE
    network: bool = False

    @property
    def name(self) -> str:
        """How the user knows it: its command's first line, at most 60 characters."""
        first = self.command.strip().splitlines()[0] if self.command.strip() else ""
        return first if len(first) <= 60 else first[:59] + "…"

    @property
    def key(self) -> str:
        """What tells it apart from every other hook of the session."""
        return f"{self.source}\0{self.event}\0{self.matcher}\0{self.command}"


@dataclass(frozen=True)
class HookSet:
    """Hooks as read, and one line per problem (an unusable entry is left out, the rest kept); ``files``: the
    repository files they were read from, each with the digest trust binds it to."""

    hooks: tuple[Hook, ...] = ()
    problems: tuple[str, ...] = ()
    files: tuple[tuple[str, str], ...] = ()


def parse_hooks(document: Any, source: str, *, user: bool) -> HookSet:
    """The hooks of a ``{EVENT: [{"matcher", "hooks": [...]}]}`` mapping read from ``source``.

    ``user``: it is the user's own config (only then may a hook have the network).
    """
    if document is None:
        return HookSet()
    if not isinstance(document, dict):
        return HookSet((), (f"{source}: \"hooks\" must be an object of events",))
    hooks: list[Hook] = []
    problems: list[str] = []
    for event, groups in document.items():
        if event not in EVENTS:
            problems.append(f"{source}: unknown hook event {str(event)[:60]!r} (known: {', '.join(EVENTS)}); "
                            "left out")
            continue
        if not isinstance(groups, list):
            problems.append(f"{source}: {event} must be a list of matcher groups; left out")
            continue
        for number, group in enumerate(groups, 1):
            found, problem = _group(event, group, source, user)
            if problem is not None:
                problems.append(f"{source}: {event} group {number}: {problem}; left out")
            hooks.extend(found)
    if len(hooks) > MAX_HOOKS:
        problems.append(f"{source}: {len(hooks)} hooks, at most {MAX_HOOKS}; the rest are left out")
        hooks = hooks[:MAX_HOOKS]
    return HookSet(tuple(hooks), tuple(problems))


def _group(event: str, group: Any, source: str, user: bool) -> tuple[list[Hook], str | None]:
    if not isinstance(group, dict):
        return [], "must be an object with \"hooks\""
    matcher = group.get("matcher", "")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str) or len(matcher) > MAX_MATCHER_CHARS or not _encodable(matcher):
        return [], f"\"matcher\" must be text of at most {MAX_MATCHER_CHARS} characters"
    matcher = "" if matcher.strip() in ("", "*") else matcher
    problem = matcher_problem(matcher)
    if problem is not None:
        return [], f"matcher {matcher[:60]!r}: {problem}"
    entries = group.get("hooks")
    if not isinstance(entries, list) or not entries:
        return [], "\"hooks\" must be a non-empty list"
    found: list[Hook] = []
    for entry in entries:
        hook, problem = _entry(event, matcher, entry, source, user)
        if problem is not None:
            return found, problem
        found.append(hook)
    return found, None


def _entry(event: str, matcher: str, entry: Any, source: str, user: bool) -> tuple[Any, str | None]:
    if not isinstance(entry, dict):
        return None, "a hook must be an object"
    kind = entry.get("type", "command")
    if kind != "command":
        return None, f"hook type {str(kind)[:40]!r}: ljtui runs \"command\" hooks only"
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        return None, "a hook needs a non-empty \"command\""
    if len(command) > MAX_COMMAND_CHARS or "\0" in command or not _encodable(command):
        return None, f"a hook's command must be at most {MAX_COMMAND_CHARS:,} characters of UTF-8, without NUL"
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not (
            MIN_TIMEOUT <= timeout <= MAX_TIMEOUT):
        return None, f"\"timeout\" must be a number of seconds from {MIN_TIMEOUT} to {MAX_TIMEOUT:.0f}"
    network = entry.get("network", False)
    if not isinstance(network, bool):
        return None, "\"network\" must be true or false"
    if network and not user:
        return None, "sets \"network\": only your own config may give a hook the network"
    return Hook(event, matcher, command, float(timeout), source, network), None


def _encodable(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (JSON may spell a lone surrogate, which cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def matcher_problem(matcher: str) -> str | None:
    """Why ``matcher`` cannot be used, or ``None``."""
    if not matcher:
        return None
    from ljtui.core.regex_guard import PatternRefused, compile_pattern

    try:
        compile_pattern(matcher, multiline=False)
    except PatternRefused as exc:
        return str(exc)
    return None


def matches(hook: Hook, subject: str) -> bool:
    """Whether ``hook`` runs for an event about ``subject`` (a tool matches by ljtui's or Claude Code's name)."""
    if not hook.matcher:
        return True
    pattern = _compiled(hook.matcher)
    names = [subject, CLAUDE_TOOL_NAMES[subject]] if subject in CLAUDE_TOOL_NAMES else [subject]
    return any(pattern.fullmatch(name.encode("utf-8", "surrogatepass")) is not None for name in names)


@functools.lru_cache(maxsize=256)
def _compiled(matcher: str) -> Any:
    from ljtui.core.regex_guard import compile_pattern

    return compile_pattern(matcher, multiline=False)


def read_repo_hooks(root: Path) -> HookSet:
    """The hooks of a repository's ``.agent/hooks.json`` and ``.claude/settings.json`` (missing files: none)."""
    hooks: list[Hook] = []
    problems: list[str] = []
    files: list[tuple[str, str]] = []
    for rel in REPO_FILES:
        data, problem = _read(root, rel)
        if problem is not None:
            problems.append(problem)
        if data is None:
            continue
        files.append((rel, digest_of(rel, data)))
        try:
            document = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            problems.append(f"{rel} is not valid JSON: {str(exc)[:120]}")
            continue
        found = parse_hooks(document.get("hooks") if isinstance(document, dict) else None, rel, user=False)
        hooks.extend(found.hooks)
        problems.extend(found.problems)
    return HookSet(tuple(hooks), tuple(problems), tuple(files))


def _read(root: Path, rel: str) -> tuple[bytes | None, str | None]:
    """A repository file's bytes, never through a link (the folder neither); ``(None, why)`` when unreadable."""
    folder, name = rel.split("/")
    try:
        st = os.lstat(root / folder)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{folder} cannot be read: {exc.strerror or type(exc).__name__}"
    if stat.S_ISLNK(st.st_mode):
        return None, f"{rel} is not read: {folder} is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return None, None
    try:
        dir_fd = os.open(root / folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        return None, f"{folder} cannot be read: {exc.strerror or type(exc).__name__}"
    try:
        data = read_regular(os.open(name, _OPEN_FLAGS, dir_fd=dir_fd), MAX_HOOK_FILE_BYTES + 1)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        reason = "it is a symbolic link" if exc.errno == errno.ELOOP else (exc.strerror or type(exc).__name__)
        return None, f"{rel} cannot be read: {reason}"
    finally:
        os.close(dir_fd)
    if len(data) > MAX_HOOK_FILE_BYTES:
        return None, f"{rel} is over {MAX_HOOK_FILE_BYTES:,} bytes; not read"
    return data, None


def trust_lines(root: Path) -> list[str]:
    """What trusting the repository would run from its hook files, one line per hook (shown safely)."""
    from ljtui.core.display import shown_line

    lines = []
    for hook in read_repo_hooks(root).hooks:
        on = f"{hook.event} ({hook.matcher})" if hook.matcher else hook.event
        lines.append(f"run the hook `{shown_line(hook.command[:200])}` on {on} ({hook.source})")
    return lines

