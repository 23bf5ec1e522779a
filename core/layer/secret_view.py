"""The repository's secret files, hidden from commands in the layer.

A command in the layer runs without a dialog and its output goes to the
model's provider, so it must not read what ljtui's own file tools refuse
to read (:class:`~ljtui.core.secret_files.SecretFiles`: ``.env`` files,
keys, credentials). Each such file of the tree, and of the layer, gets an
unreadable placeholder bound over it: a read fails with "Permission
denied" (bubblewrap drops every capability, so not even root inside reads
it), never with made-up content.

Finding them is one ripgrep walk of the tree with the secret globs
(ignored files included: ``.env`` usually is), kept for
:data:`TREE_TTL_SECONDS`, plus a walk of the layer's upper folder, which
only holds what the agent changed. ``.git`` is left out: git must read its
own config (a token in a remote's URL stays readable; docs/security.md
says so). When the walk fails or finds more than :data:`MAX_HIDDEN` files,
:meth:`SecretView.paths` answers ``None`` and the command is asked for in a
dialog instead of running unseen.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

from ljtui.core.secret_files import SecretFiles

TREE_TTL_SECONDS = 30.0
"""How long one walk of the tree's secret files is used before the next command walks again."""
WALK_TIMEOUT_SECONDS = 10.0
MAX_HIDDEN = 2000
"""Most secret files hidden one by one; past it commands in the layer ask first."""
PLACEHOLDER = "hidden"
"""The unreadable file, in the layer's folder, bound over each secret file."""


class SecretView:
    """The secret files of ``repo`` (as ``secrets`` reads them) that commands in its layer must not read."""

    def __init__(self, repo: Path, secrets: SecretFiles) -> None:
        self.repo = repo
        self.secrets = secrets
        self._lock = threading.Lock()
        self._tree: tuple[float, tuple[str, ...] | None] | None = None

    def paths(self, upper: Path | None) -> tuple[str, ...] | None:
        """The repository-relative secret files of the tree and of the layer's ``upper`` folder (``None``: they
        could not all be found; the caller asks before it runs anything)."""
        with self._lock:
            now = time.monotonic()
            if self._tree is None or now - self._tree[0] > TREE_TTL_SECONDS:
                self._tree = (now, self._walk(self.repo))
            tree = self._tree[1]
        if tree is None:
            return None
        layer = self._walk(upper) if upper is not None and upper.is_dir() else ()
        if layer is None:
            return None
        shown = {rel for rel in tree if upper is None or _shows_through(upper, rel)}
        found = tuple(sorted(shown | set(layer)))
        return found if len(found) <= MAX_HIDDEN else None

    def _walk(self, root: Path) -> tuple[str, ...] | None:
        from ljtui.core.planner.grep import find_rg

        rg = find_rg()
        if rg is None:
            return None
        args = [rg, "--files", "--hidden", "--no-ignore", "--no-messages", "--no-follow", "--null", "-g", "!.git"]
        for glob in self.secrets.globs():
            args += ["-g", glob]
        try:
            done = subprocess.run(args, cwd=root, capture_output=True, timeout=WALK_TIMEOUT_SECONDS,
                                  stdin=subprocess.DEVNULL, env={"PATH": os.defpath})
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode not in (0, 1):  # 1: nothing matched
            return None
        names = (os.fsdecode(p) for p in done.stdout.split(b"\0") if p)
        return tuple(n for n in names if not n.startswith(".git/") and self.secrets.is_secret(n)
                     and os.path.isfile(root / n) and not os.path.islink(root / n))


def _shows_through(upper: Path, rel: str) -> bool:
    """Whether the tree's file ``rel`` is still there in the layer (no deletion and no opaque or replacing folder
    of the upper folder hides it): only a file that is there can have a placeholder bound over it."""
    from ljtui.core.layer.scan import is_opaque, is_whiteout

    parts = rel.split("/")
    for depth in range(1, len(parts) + 1):
        path = upper.joinpath(*parts[:depth])
        try:
            st = os.lstat(path)
        except OSError:
            return True  # the upper folder has nothing here: the tree shows through below
        if is_whiteout(st):
            return False
        if depth < len(parts) and (not os.path.isdir(path) or os.path.islink(path) or is_opaque(path)):
            return False
    return True


def placeholder(folder: Path) -> Path:
    """The unreadable file bound over secret files (made in ``folder`` once, mode 000)."""
    path = folder / PLACEHOLDER
    if not path.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o000)
        os.close(fd)
    os.chmod(path, 0o000)
    return path


def hiding_args(repo: Path, paths: tuple[str, ...], cover: Path) -> list[str]:
    """The ``bwrap`` options (after the overlay) that bind ``cover`` over each secret file of ``repo``."""
    args: list[str] = []
    for rel in paths:
        args += ["--ro-bind-try", str(cover), str(repo / rel)]
    return args
