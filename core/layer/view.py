"""What a command in the layer sees of the machine besides the repository.

A layered command runs without a dialog, and its output goes to the
model's provider: so it must not read what the user would not show the
model. It sees the system's programs and libraries (read-only), its own
temp dir, the repository through the layer, and:

* of the home folder, only the toolchains the user's environment uses:
  each ``PATH`` entry below home or a hidden folder (the folder above a ``bin`` entry, so a
  virtual environment or ``~/.cargo`` comes whole) and the language
  folders :data:`TOOLCHAIN_NAMES` names when they exist, read-only; plus
  what ``agent.sandbox.read_paths`` in the user's config grants;
* no service socket of the machine: ``/run`` (``/var/run``), ``/tmp`` and
  ``/var/tmp`` are empty in-memory folders, so docker's, the SSH agent's,
  D-Bus's and databases' sockets are not there to connect to, unless the
  user grants one (``agent.sandbox.read_paths`` may name a socket).

:func:`home_view` is what ``ljtui doctor`` prints; :func:`view_args` gives
the ``bwrap`` options.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

HIDDEN_FOLDERS = ("/run", "/tmp", "/var/tmp")
"""Folders replaced by empty in-memory ones in the layer (the service sockets of the machine live there)."""
TOOLCHAIN_NAMES = (".cargo", ".rustup", ".pyenv", ".nvm", ".volta", ".bun", ".deno", ".rbenv", ".sdkman",
                   ".gradle", ".m2", "go", ".local/lib", ".local/share/uv", ".cache/pip", ".cache/uv",
                   ".cache/go-build", ".npm", ".node-gyp", ".cache/pypoetry", ".poetry", ".juliaup", ".ghcup",
                   ".opam", ".elan", ".local/bin", ".pub-cache", ".dotnet", ".nuget")
"""Folders below home that hold toolchains and their caches: visible (read-only) to layered commands."""


@dataclass(frozen=True)
class HomeView:
    """What a layered command sees of the home folder.

    Attributes:
        home: the home folder (hidden as a whole).
        visible: folders below it that stay visible, each with why.
        granted: what ``agent.sandbox.read_paths`` adds (anywhere).
    """

    home: Path | None
    visible: tuple[tuple[Path, str], ...]
    granted: tuple[Path, ...]


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def home_view(env: Mapping[str, str] | None = None, read_paths: Iterable[str] = (),
              repo: Path | None = None) -> HomeView:
    """The home folder's view for layered commands, from the environment's ``HOME`` and ``PATH`` (a ``PATH`` entry
    in a hidden folder, a virtual environment in ``/tmp`` say, stays visible too)."""
    env = os.environ if env is None else env
    text = env.get("HOME") or ""
    home = Path(os.path.realpath(text)) if text and os.path.isabs(text) else None
    visible: dict[Path, str] = {}
    hidden = [Path(f) for f in HIDDEN_FOLDERS]
    if home is not None and home != Path("/"):
        hidden.append(home)
    for entry in (env.get("PATH") or "").split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        real = Path(os.path.realpath(entry))
        under = next((h for h in hidden if _inside(real, h) and real != h), None)
        if under is None or not real.is_dir():
            continue
        whole = real.parent if real.name == "bin" and real.parent != under else real
        visible.setdefault(whole, f"on PATH ({entry})")
    if home is not None and home != Path("/"):
        for name in TOOLCHAIN_NAMES:
            path = home / name
            if path.is_dir() and not path.is_symlink():
                visible.setdefault(path, "a toolchain folder")
    kept = {p: why for p, why in visible.items()
            if not any(other != p and _inside(p, other) for other in visible)
            and (repo is None or not _inside(p, repo))}
    granted = tuple(Path(os.path.realpath(os.path.expanduser(t))) for t in read_paths
                    if os.path.isabs(os.path.expanduser(t)) and os.path.lexists(os.path.expanduser(t)))
    return HomeView(home, tuple(sorted(kept.items())), granted)


def view_args(view: HomeView) -> list[str]:
    """The ``bwrap`` options (after ``--ro-bind / /`` and before the overlay) that hide the home folder and the
    machine's sockets, and show back what ``view`` keeps."""
    args: list[str] = []
    for folder in HIDDEN_FOLDERS:
        if os.path.isdir(folder):
            args += ["--tmpfs", folder]
    if view.home is not None and view.home.is_dir():
        args += ["--tmpfs", str(view.home)]
    for path, _why in view.visible:
        args += ["--ro-bind-try", str(path), str(path)]
    for path in view.granted:
        args += ["--ro-bind-try", str(path), str(path)]
    return args
