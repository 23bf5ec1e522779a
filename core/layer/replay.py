"""Rebuilding a layer from the entries still pending, through a mounted overlay.

After the user applied or rejected part of the layer, the layer must hold
exactly what is still pending. An unprivileged process cannot make the
whiteouts a deletion needs, but the overlay can: the old upper folder is
set aside, a fresh one mounted over the tree, and this module, run inside
that mount as a plain script (``python -I -S``, standard library only),
makes each pending entry again from the old upper folder's files: it
writes what the layer creates or modifies (with its mode, or as the same
symbolic link) and removes what it deletes. The kernel records it all in
the fresh upper folder as it would for any command.

Its input (standard input, JSON): ``{"repo": PATH, "old": OLD_UPPER, "ops": [[OP, REL], …]}`` with ``OP``
``put`` (copy REL from the old upper folder) or ``remove`` (remove the tree's REL).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys


def _put(repo: str, old: str, rel: str) -> None:
    source, target = os.path.join(old, rel), os.path.join(repo, rel)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.lexists(target) and (os.path.isdir(target) and not os.path.islink(target)):
        shutil.rmtree(target)
    elif os.path.lexists(target):
        os.unlink(target)
    st = os.lstat(source)
    if stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(source), target)
        return
    shutil.copyfile(source, target, follow_symlinks=False)
    os.chmod(target, stat.S_IMODE(st.st_mode))


def _remove(repo: str, rel: str) -> None:
    target = os.path.join(repo, rel)
    if os.path.isdir(target) and not os.path.islink(target):
        shutil.rmtree(target)
    elif os.path.lexists(target):
        os.unlink(target)


def main() -> int:
    job = json.loads(sys.stdin.buffer.read())
    repo, old = job["repo"], job["old"]
    for op, rel in job["ops"]:
        if op == "put":
            _put(repo, old, rel)
        elif op == "remove":
            _remove(repo, rel)
        else:
            raise SystemExit(f"unknown operation {op!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
