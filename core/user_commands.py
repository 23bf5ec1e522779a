"""The user's own slash commands: Markdown prompt files that ``/NAME`` sends to the model as a message.

Commands come from these folders, in order of precedence (the first wins a
name; the others' files of that name are not used, with a note):

1. ``commands/`` in the user's config dir (links there are followed: the folder is the user's own);
2. ``.agent/commands/`` in the repository, and
3. ``.claude/commands/`` in the repository (so Claude Code's project commands work), both read only when
   the user trusts the repository (``ljtui trust``), every folder and file reached without following a link.

A file's name is the command's (``review.md`` is ``/review``); a folder
below adds its name before a ``:`` (``frontend/component.md`` is
``/frontend:component``). A built-in slash command keeps its name: a file
that would take it is not used, with a note. Every file is untrusted: it is
bounded in size, its name and fields are checked
(:mod:`ljtui.core.user_commands_text`), and one that cannot be used is
skipped with a warning naming it; loading never raises. A command never
runs anything itself: what it expands to is a message for the model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Protocol

from ljtui.core.edits.folders import FolderRefused, RepoFolders
from ljtui.core.statedir import read_regular
from ljtui.core.user_commands_text import (
    PLACEHOLDER_RE, SEPARATOR, SUFFIX, CommandFileError, ParsedCommand, command_name, expand, parse_command,
)
from ljtui.core.userdirs import user_config_dir

USER, REPOSITORY = "user", "repository"
"""Where a command came from."""
COMMANDS_DIR = "commands"
"""The folder of commands in the user's config dir."""
REPOSITORY_FOLDERS = (".agent/commands", ".claude/commands")
"""The repository's folders of commands, in order of precedence."""
MAX_COMMAND_FILE_BYTES = 64 * 1024
"""A command file larger than this is skipped."""
MAX_COMMANDS_PER_FOLDER = 256
"""At most this many command files are read from one folder (the first by path)."""
MAX_DEPTH = 3
"""Folders below a commands folder that are read (``a/b/c/name.md`` is the deepest)."""
MAX_SCANNED_ENTRIES = 1024
"""A folder is listed up to this many entries; the rest are not looked at."""
TRUST_NOTICE = ("{count} repository command(s) in {folder} are ignored because this repository is not trusted; "
                "`ljtui trust` enables them")
"""The one notice for a folder of repository commands while the repository is untrusted."""


@dataclass(frozen=True)
class UserCommand:
    """One usable command.

    Attributes:
        name: What follows ``/`` to run it (``frontend:component``).
        description: One line for help and the palette (the front matter's, else the prompt's first line).
        argument_hint: What to type after the name (the front matter's ``argument-hint``), or empty.
        body: The prompt, placeholders not yet filled.
        source: :data:`USER` or :data:`REPOSITORY`.
        where: Its file as the user finds it: a full path for the user's, repo-relative for the repository's.
    """

    name: str
    description: str
    argument_hint: str
    body: str
    source: str
    where: str

    @property
    def usage(self) -> str:
        """How it is typed: ``/review [PR number]``."""
        return f"/{self.name} {self.argument_hint}".rstrip()

    @property
    def runs_nothing(self) -> bool:
        """Whether its prompt holds Claude Code's ``!`` + backtick (sent as text: a command file runs nothing)."""
        return ParsedCommand(self.description, self.argument_hint, self.body).runs_nothing

    @property
    def takes_text(self) -> bool:
        """Whether it expects text after its name: it has an ``argument-hint`` or a placeholder."""
        return bool(self.argument_hint) or PLACEHOLDER_RE.search(self.body) is not None

    def message(self, args: str) -> str:
        """The message for the model when ``args`` is typed after the name (:func:`expand`)."""
        return expand(self.body, args)


@dataclass
class CommandSet:
    """Every usable command, and what the user should be told about the rest.

    Attributes:
        commands: Name → command, after precedence.
        warnings: One line per problem: a skipped file, a refused folder, ignored repository commands.
        notes: One line per file not used because another command, or a built-in one, has its name.
    """

    commands: dict[str, UserCommand] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def names(self) -> tuple[str, ...]:
        """The commands' names, sorted."""
        return tuple(sorted(self.commands))

    def get(self, name: str) -> UserCommand | None:
        """The command called ``name`` (a leading ``/`` and any case allowed), or None."""
        return self.commands.get(name.removeprefix("/").lower())


def default_reserved() -> frozenset[str]:
    """The built-in slash commands' names (what :func:`load_commands` keeps for them when not told)."""
    from ljtui.core.skills import SLASH_COMMANDS

    return frozenset(SLASH_COMMANDS)


def load_commands(root: Path | None, env: Mapping[str, str] | None = None, *,
                  reserved: Iterable[str] | None = None) -> CommandSet:
    """Every command from the user's config dir and, when it is trusted, the repository.

    Args:
        root: The repository root, or None outside a repository.
        env: The environment (``XDG_CONFIG_HOME`` chooses the config dir); ``os.environ`` when None.
        reserved: The built-in slash commands' names, which no command takes (default: :func:`default_reserved`).

    Returns:
        The commands and the warnings and notes for the user. Never raises.
    """
    found = CommandSet()
    taken = frozenset(default_reserved() if reserved is None else reserved)
    folder = user_config_dir(env) / COMMANDS_DIR
    if folder.is_dir():
        _add(found, _read_folder(_UserFolder(folder), str(folder), USER, found), taken)
    if root is None:
        return found
    with RepoFolders(root) as folders:
        present = [rel for rel in REPOSITORY_FOLDERS if _is_folder(folders, rel, found)]
        if present and not _trusted(root, env, found):
            for rel in present:
                count = len(_listed(_RepoFolder(folders, rel), rel, CommandSet()))  # counted, not read
                if count:
                    found.warnings.append(TRUST_NOTICE.format(count=count, folder=rel))
            return found
        for rel in present:
            _add(found, _read_folder(_RepoFolder(folders, rel), rel, REPOSITORY, found), taken)
    return found


def expand_typed(text: str, commands: CommandSet) -> tuple[UserCommand, str] | None:
    """``(command, message)`` when ``text`` is ``/NAME ARGS`` naming one of ``commands``, else None."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, args = stripped[1:].partition(" ")
    command = commands.get(name.split()[0] if name.split() else "")
    return (command, command.message(args)) if command is not None else None


def typed_message(root: Path | None, text: str, say: Callable[[str], None],
                  env: Mapping[str, str] | None = None) -> str | None:
    """The message ``text`` stands for when it is ``/NAME ARGS`` naming one of the user's commands (disk work),
    else None; when ``text`` starts with ``/``, each warning and note about the files is given to ``say``."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    found = load_commands(root, env)
    for line in (*found.warnings, *found.notes):
        say(line)
    hit = expand_typed(stripped, found)
    return hit[1] if hit is not None else None


def _add(found: CommandSet, commands: list[UserCommand], reserved: frozenset[str]) -> None:
    for command in commands:
        if command.name in reserved:
            found.notes.append(f"{_label(command)} is not used: /{command.name} is a built-in command")
            continue
        earlier = found.commands.get(command.name)
        if earlier is not None:
            found.notes.append(f"{_label(command)} is not used: /{command.name} from {earlier.where} wins")
            continue
        found.commands[command.name] = command


def _label(command: UserCommand) -> str:
    return f"{command.source} command {command.where}"


def _trusted(root: Path, env: Mapping[str, str] | None, found: CommandSet) -> bool:
    from ljtui.core.trust import TrustStore

    store = TrustStore.for_env(env)
    trusted = store.is_trusted(root)
    found.warnings.extend(store.warnings)
    return trusted


class _Folder(Protocol):
    """A commands folder: its entries and files, by path relative to it."""

    def entries(self, relative: str) -> list[tuple[str, str]]:
        """``(name, kind)`` of each entry of a folder; kind is ``dir``, ``file`` or ``link`` (a link refused)."""
        ...

    def read(self, relative: str) -> bytes:
        """Up to :data:`MAX_COMMAND_FILE_BYTES` + 1 bytes of a regular file."""
        ...


class _UserFolder:
    """The config dir's commands: the user's own, links followed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def entries(self, relative: str) -> list[tuple[str, str]]:
        out = []
        with os.scandir(self.folder / relative if relative else self.folder) as listing:
            for count, entry in enumerate(listing):
                if count >= MAX_SCANNED_ENTRIES:
                    break
                out.append((entry.name, "dir" if entry.is_dir() else "file"))
        return out

    def read(self, relative: str) -> bytes:
        fd = os.open(self.folder / relative, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
        return read_regular(fd, MAX_COMMAND_FILE_BYTES + 1)


class _RepoFolder:
    """A repository's commands: every folder and file reached from the root without following a link."""

    def __init__(self, folders: RepoFolders, base: str) -> None:
        self.folders = folders
        self.base = base

    def _path(self, relative: str) -> str:
        return f"{self.base}/{relative}" if relative else self.base

    def entries(self, relative: str) -> list[tuple[str, str]]:
        out = []
        with os.scandir(self.folders.fd(self._path(relative))) as listing:
            for count, entry in enumerate(listing):
                if count >= MAX_SCANNED_ENTRIES:
                    break
                kind = "link" if entry.is_symlink() else "dir" if entry.is_dir(follow_symlinks=False) else "file"
                out.append((entry.name, kind))
        return out

    def read(self, relative: str) -> bytes:
        fd = self.folders.open_file(self._path(relative))
        if fd is None:
            raise FileNotFoundError(relative)
        return read_regular(fd, MAX_COMMAND_FILE_BYTES + 1)


def _is_folder(folders: RepoFolders, rel: str, found: CommandSet) -> bool:
    """Whether the repository has the folder ``rel``; one reached through a link is refused with a warning."""
    try:
        folders.fd(rel)
    except FolderRefused as exc:
        found.warnings.append(f"repository commands in {rel} refused: {exc.folder} {exc.problem}, and ljtui reads "
                              f"repository commands only from real folders")
        return False
    except OSError:  # missing, or not a folder: nothing to read
        return False
    return True


def _listed(folder: _Folder, shown: str, found: CommandSet) -> list[str]:
    """The command files below ``folder`` (paths relative to it, sorted), at most :data:`MAX_DEPTH` folders down;
    hidden entries and files not ending in ``.md`` are left out, links and folders too deep are warned about."""
    files: list[str] = []
    pending = [("", 0)]
    while pending:
        relative, depth = pending.pop()
        try:
            entries = sorted(folder.entries(relative))
        except OSError as exc:
            found.warnings.append(f"commands folder {shown}/{relative} cannot be read ({type(exc).__name__})")
            continue
        for name, kind in entries:
            path = f"{relative}/{name}" if relative else name
            if name.startswith("."):
                continue
            if kind == "link":
                found.warnings.append(f"repository command {shown}/{path} refused: it is a symbolic link, and "
                                      f"ljtui reads repository commands only from real files and folders")
            elif kind == "dir":
                if depth >= MAX_DEPTH:
                    found.warnings.append(f"commands folder {shown}/{path} is more than {MAX_DEPTH} folders down; "
                                          f"not read")
                else:
                    pending.append((path, depth + 1))
            elif name.lower().endswith(SUFFIX):
                files.append(path)
    return sorted(files)


def _read_folder(folder: _Folder, shown: str, source: str, found: CommandSet) -> list[UserCommand]:
    """The usable commands of one folder, each bad file skipped with a warning naming it."""
    files = _listed(folder, shown, found)
    if len(files) > MAX_COMMANDS_PER_FOLDER:
        found.warnings.append(f"commands folder {shown} holds more than {MAX_COMMANDS_PER_FOLDER} commands; only "
                              f"the first {MAX_COMMANDS_PER_FOLDER} by path are read")
        files = files[:MAX_COMMANDS_PER_FOLDER]
    commands: dict[str, UserCommand] = {}
    for relative in files:
        where = f"{shown}/{relative}"
        label = f"{source} command {where}"
        try:
            name = command_name(relative)
            parsed = parse_command(_text(folder, relative))
        except CommandFileError as exc:
            found.warnings.append(f"{label}: {exc}; skipped")
            continue
        if name in commands:
            found.warnings.append(f"{label}: /{name} is already {commands[name].where}; skipped")
            continue
        commands[name] = UserCommand(name, parsed.description, parsed.argument_hint, parsed.body, source, where)
    return list(commands.values())


def _text(folder: _Folder, relative: str) -> str:
    """A command file's text, bounded and UTF-8.

    Raises:
        CommandFileError: it cannot be read, is too large or is not UTF-8 text.
    """
    try:
        raw = folder.read(relative)
    except FolderRefused as exc:
        raise CommandFileError(f"refused: {exc.folder} {exc.problem}") from None
    except OSError as exc:
        raise CommandFileError(f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(raw) > MAX_COMMAND_FILE_BYTES:
        raise CommandFileError(f"larger than {MAX_COMMAND_FILE_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandFileError("not UTF-8 text") from None


__all__ = ["CommandSet", "UserCommand", "load_commands", "expand_typed", "typed_message", "SEPARATOR", "USER",
           "REPOSITORY"]
