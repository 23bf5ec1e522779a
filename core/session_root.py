"""Where a session may work, and which folders no command may ever write.

A session's commands may write anywhere below its root, and wherever the
user's ``agent.sandbox.write_paths`` lets them. Some folders must stay out
of reach of every command, whatever the configuration says, because the
next session trusts what they hold:

* ``/`` and the home folder (both ``$HOME`` and the password database's):
  the shell's startup files, ``~/.ssh``, and ljtui's own folders below;
* ljtui's config folder and the folder of its config file
  (``LJTUI_CONFIG``): the settings (``agent.sandbox``, ``provider.api_key``),
  the trust list, skills and playbooks;
* ljtui's state folder: the decisions it keeps outside repositories (gate
  confirmations and owners, session owners, memory hashes).

A folder is refused as a session root, and left out of a sandbox's
writable places, when it is one of them, holds one, lies inside ljtui's
config or state folder (a place inside the home folder, or beside the
config file, is fine), or holds a symbolic link met on the way to one (a
command could swap the link and redirect it). Paths are compared as the
kernel resolves them, link by link.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

from ljtui.core.userdirs import user_config_dir, user_config_path, user_state_dir

MAX_LINKS = 40
"""Symbolic links followed while resolving one path (the kernel's own bound); past it the rest is taken as written."""
HOME_STAKES = "your shell's startup files, ~/.ssh and ljtui's own settings"
"""What a command writing in the home folder could change."""
SETTINGS_STAKES = "ljtui's settings (the sandbox's limits and the API key among them) and the repositories you trust"
"""What a command writing in ljtui's config folder could change."""
STATE_STAKES = "the decisions ljtui keeps outside repositories (gate confirmations, session and memory records)"
"""What a command writing in ljtui's state folder could change."""
FILE_SYSTEM_ROOT = "the root of the file system"
"""How a message names ``/``."""
TRUST_FILE = "trusted-repos.json"
"""The trust list's name in the config folder (:data:`ljtui.core.trust.TRUST_FILE`; not imported, to keep
this check light enough for the first frame)."""


@dataclass(frozen=True)
class Guarded:
    """A folder no command may write, as the kernel reaches it.

    Attributes:
        label: how a message names it, e.g. ``ljtui's config folder``.
        path: its real path (it need not exist: a command could create it).
        links: every symbolic link met on the way to it, by its real location.
        below_ok: a place inside it may be written (the home folder's project folders).
        stakes: what a command writing there could change.
        own: one of ljtui's own folders (not a home folder).
    """

    label: str
    path: str
    links: tuple[str, ...]
    below_ok: bool
    stakes: str
    own: bool


@dataclass(frozen=True)
class Refusal:
    """Why a folder may not be a session root nor a writable place.

    Attributes:
        path: the folder's real path.
        reason: what it is, e.g. ``holds ljtui's config folder (/home/u/.config/ljtui)``.
        stakes: what a command writing there could change.
    """

    path: str
    reason: str
    stakes: str


class UnsafeRoot(Exception):
    """A session was asked to work in a folder whose commands could change what the next session trusts.

    Attributes:
        root: the folder, as the kernel resolves it.
        reason: what it is (``is your home folder``, ``holds ljtui's config folder (…)``).
        stakes: what a command writing there could change.
        message: one sentence a user can act on.
    """

    def __init__(self, refusal: Refusal, start: str | os.PathLike[str] | None = None) -> None:
        """
        Args:
            refusal: why the root is refused.
            start: the folder asked for, named too when the root was found above it (the repository holding it).
        """
        self.root = Path(refusal.path)
        self.reason = refusal.reason
        self.stakes = refusal.stakes
        what, instead = f"{refusal.path} {refusal.reason}", "work in a project folder instead"
        if start is not None and os.path.realpath(start) != refusal.path:
            what = f"{os.fspath(start)} is in the repository at {refusal.path}, which {refusal.reason}"
            instead = f"make {os.fspath(start)} a repository of its own (git init), or work in another folder"
        self.message = (f"{what}: ljtui does not work there, because the commands it runs could change "
                        f"{refusal.stakes}; {instead}")
        super().__init__(self.message)


def resolve(path: str | os.PathLike[str]) -> tuple[str, tuple[str, ...]]:
    """The real path of ``path`` and every symbolic link met on the way, as the kernel walks it.

    Missing components are kept as written (a folder that does not exist yet is still where it would be made).
    """
    text = os.fspath(path)
    if not text.startswith("/"):
        text = os.path.join(os.getcwd(), text)
    pending = list(reversed(text.split("/")))
    current, links, hops = "/", [], 0
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, name)
        try:
            target = os.readlink(candidate)
        except OSError:  # not a link, or missing
            current = candidate
            continue
        hops += 1
        links.append(candidate)
        if hops > MAX_LINKS:
            return os.path.normpath(os.path.join(candidate, *reversed(pending))), tuple(links)
        if target.startswith("/"):
            current = "/"
        pending.extend(reversed(target.split("/")))
    return current, tuple(links)


def within(inner: str, outer: str) -> bool:
    """Whether the real path ``inner`` is ``outer`` or lies below it."""
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def homes(env: Mapping[str, str] | None = None) -> list[str]:
    """The home folders: ``$HOME`` and the password database's entry for this user (either may be missing)."""
    env = os.environ if env is None else env
    found = [env["HOME"]] if env.get("HOME") else []
    try:
        import pwd

        found.append(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError, AttributeError):
        pass
    return [h for h in found if h.startswith("/")]


def guarded_folders(env: Mapping[str, str] | None = None) -> list[Guarded]:
    """The folders no command may write, the home folders first; one entry per real folder."""
    env = os.environ if env is None else env
    config_file = user_config_path(env)
    if not config_file.is_absolute():
        config_file = Path(os.getcwd(), config_file)
    # (path, a file whose folder is guarded, label, a place inside may be written, stakes, one of ljtui's own)
    trust_file = user_config_dir(env) / TRUST_FILE
    wanted = [*((Path(h), False, "your home folder", True, HOME_STAKES, False) for h in homes(env)),
              (user_config_dir(env), False, "ljtui's config folder", False, SETTINGS_STAKES, True),
              (config_file, True, "the folder of ljtui's config file", True, SETTINGS_STAKES, True),
              (trust_file, True, "the folder of ljtui's trust list", True, SETTINGS_STAKES, True),
              (user_state_dir(env), False, "ljtui's state folder", False, STATE_STAKES, True)]
    folders: dict[str, Guarded] = {}
    for path, is_file, label, below_ok, stakes, own in wanted:
        real, links = resolve(path)
        if is_file:  # the folder the file really is in
            real = os.path.dirname(real)
        known = folders.get(real)
        if known is None:
            folders[real] = Guarded(label, real, links, below_ok, stakes, own)
        elif set(links) - set(known.links):
            folders[real] = replace(known, links=tuple(dict.fromkeys((*known.links, *links))))
    return list(folders.values())


def place_refusal(path: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Refusal | None:
    """Why ``path`` may neither be a session root nor a place commands write, or ``None``.

    Args:
        path: the folder (resolved here, link by link).
        env: the environment that locates the home and ljtui's folders (default: ``os.environ``).
    """
    real = resolve(path)[0]
    if real == "/":
        return Refusal(real, f"is {FILE_SYSTEM_ROOT}", HOME_STAKES)
    for folder in guarded_folders(env):
        if real == folder.path:
            return Refusal(real, f"is {folder.label}", folder.stakes)
        if within(folder.path, real):
            return Refusal(real, f"holds {folder.label} ({folder.path})", folder.stakes)
        if not folder.below_ok and within(real, folder.path):
            return Refusal(real, f"is inside {folder.label} ({folder.path})", folder.stakes)
        for link in folder.links:
            if within(link, real):
                return Refusal(real, f"holds {link}, a symbolic link on the way to {folder.label} ({folder.path})",
                               folder.stakes)
    return None


def check_root(root: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> None:
    """Refuse a session root that :func:`place_refusal` refuses.

    Raises:
        UnsafeRoot: ``root`` is ``/``, a home folder, or holds or lies inside one of ljtui's own folders.
    """
    refusal = place_refusal(root, env)
    if refusal is not None:
        raise UnsafeRoot(refusal)
