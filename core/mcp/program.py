"""Which program a stdio server's ``command`` names: found on the user's ``PATH`` before the sandbox is entered.

Users write a server's command as they would type it (``mcp-server-time``,
``npx``, ``uvx``: Claude Code's ``.mcp.json`` does the same), but the
sandbox's launcher replaces itself with the program by its path, without
searching ``PATH``. So the command is resolved here first, as a shell
would resolve it, against the ``PATH`` the server is given:

* a name without ``/`` is looked up in each folder of ``PATH``, in order:
  the first executable file of that name wins. Only absolute folders are
  searched: an empty or relative entry (``.``, ``bin``) would name a folder
  of whatever directory ljtui runs in, which a repository can fill;
* a command with a ``/`` is a path (``~/`` is your home folder; a relative
  one starts in the server's working folder);
* a name found nowhere is a :class:`ProgramNotFound` naming the command and
  the folders searched.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


class ProgramNotFound(Exception):
    """A server's command names no program that can run.

    Attributes:
        command: the command as configured.
        searched: the folders of ``PATH`` that were searched (empty for a command given as a path).
        skipped: entries of ``PATH`` left out because they are not absolute.
        reason: why, in words (``no program …``, ``… is not executable``).
    """

    def __init__(self, command: str, reason: str, searched: tuple[str, ...] = (), skipped: tuple[str, ...] = ()):
        super().__init__(reason)
        self.command = command
        self.reason = reason
        self.searched = searched
        self.skipped = skipped


def resolve_program(command: str, *, env: Mapping[str, str], cwd: Path) -> str:
    """The path of the program ``command`` names for a server started in ``cwd`` with ``env``.

    Raises:
        ProgramNotFound: no executable file by that name or at that path.
    """
    if "/" in command:
        path = Path(os.path.expanduser(command))
        path = path if path.is_absolute() else cwd / path
        if not path.exists():
            raise ProgramNotFound(command, f"no program at {path}")
        if not _executable(path):
            raise ProgramNotFound(command, f"{path} is not an executable file")
        return str(path)
    entries = env.get("PATH", os.defpath).split(os.pathsep)
    searched = tuple(dict.fromkeys(entry for entry in entries if os.path.isabs(entry)))
    skipped = tuple(dict.fromkeys(entry or "(empty)" for entry in entries if not os.path.isabs(entry)))
    for folder in searched:
        candidate = Path(folder) / command
        if _executable(candidate):
            return str(candidate)
    where = f"in PATH ({os.pathsep.join(searched)})" if searched else "anywhere: PATH names no absolute folder"
    left_out = f"; not searched, as not absolute: {', '.join(skipped)}" if skipped else ""
    raise ProgramNotFound(command, f"no program named {command!r} {where}{left_out}; install it there, or give "
                                   "its full path as the server's command", searched, skipped)


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)
