"""Where a repository's layer lives, its lock, and its record.

A repository has at most one layer, in ljtui's state folder (never in the
repository, which the overlay covers, and out of every command's writable
places): ``layers/<key>/`` with

* ``upper/`` — the overlay's upper folder: what the agent changed;
* ``work/`` — the overlay's work folder (same file system, as overlayfs requires);
* ``layer.json`` — the record: the repository's path, and for each path the
  layer holds, the ``lstat`` stamp the tree's file had when the layer first
  held it (a different stamp now means the user changed the file since);
* ``lock`` — ``flock``-ed by whoever mounts or changes the layer: one upper
  folder is never mounted by two overlays at once, nor changed under one;
* ``trash/`` — folders being removed in the background.

The record is read back like any outside input: bounded, and refused
whole when its shape is wrong (the layer then has no stamps: every held
path counts as changed by the user, so nothing is overwritten).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import shutil
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping

from ljtui.core.edits.durable import write_durable
from ljtui.core.statedir import read_at_most
from ljtui.core.userdirs import user_state_dir

LAYERS_DIR = "layers"
UPPER, WORK, RECORD, LOCK, TRASH = "upper", "work", "layer.json", "lock", "trash"
RECORD_VERSION = 1
MAX_RECORD_BYTES = 32 * 1024 * 1024
"""Largest record read back."""
FOLDER_MODE = 0o700
Stamp = tuple[int, int, int, int]
"""``(inode, size, mtime_ns, ctime_ns)`` of a file in the tree."""
UNKNOWN: Stamp = (-1, -1, -1, -1)
"""The stamp recorded where the tree's stamp is not known (the record was lost): it matches no file, nor the
absence of one, so the path counts as changed by the user."""


class LayerRecordError(ValueError):
    """The layer's record cannot be read back (what is wrong is the message)."""


def layer_key(repo: Path) -> str:
    """The folder name of ``repo``'s layer: a hash of its real path."""
    return hashlib.sha256(os.fsencode(os.path.realpath(repo))).hexdigest()[:24]


def stamp_of(path: Path) -> Stamp | None:
    """``path``'s stamp (``None``: nothing there)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass(frozen=True)
class LayerPlace:
    """The folders and files of one repository's layer."""

    folder: Path
    repo: Path

    @classmethod
    def of(cls, repo: Path, env: Mapping[str, str] | None = None) -> LayerPlace:
        """The layer place of ``repo`` (nothing is created)."""
        real = Path(os.path.realpath(repo))
        return cls(user_state_dir(env) / LAYERS_DIR / layer_key(real), real)

    @property
    def upper(self) -> Path:
        return self.folder / UPPER

    @property
    def work(self) -> Path:
        return self.folder / WORK

    @property
    def record_path(self) -> Path:
        return self.folder / RECORD

    def exists(self) -> bool:
        """Whether the layer has been made (its upper folder exists)."""
        return self.upper.is_dir()

    def ensure(self) -> None:
        """Make the layer's folders (private to the user)."""
        for path in (self.folder, self.upper, self.work):
            path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the layer's lock (blocks while another thread or process holds it: call from a thread)."""
        self.folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        fd = os.open(self.folder / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the only descriptor of this open file releases the lock

    def read_stamps(self) -> dict[str, Stamp | None]:
        """The recorded stamps (empty when there is no record).

        Raises:
            LayerRecordError: the record is too large, not JSON, or not the shape ljtui writes.
        """
        try:
            fd = os.open(self.record_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise LayerRecordError(f"{self.record_path} cannot be read: {exc.strerror or exc}") from None
        try:
            data = read_at_most(fd, MAX_RECORD_BYTES + 1)
        finally:
            os.close(fd)
        if len(data) > MAX_RECORD_BYTES:
            raise LayerRecordError(f"{self.record_path} is larger than {MAX_RECORD_BYTES} bytes")
        try:
            record = json.loads(data)
        except ValueError as exc:
            raise LayerRecordError(f"{self.record_path} is not JSON: {exc}") from None
        return _stamps_of(record, str(self.repo), self.record_path)

    def write_stamps(self, stamps: Mapping[str, Stamp | None]) -> None:
        """Replace the record with ``stamps``."""
        record = {"version": RECORD_VERSION, "repo": str(self.repo),
                  "stamps": {path: list(stamp) if stamp is not None else None for path, stamp in sorted(stamps.items())}}
        fresh = self.folder / f"{RECORD}.new"
        try:
            fresh.unlink()
        except FileNotFoundError:
            pass
        write_durable(fresh, json.dumps(record, indent=0).encode("utf-8"))
        os.replace(fresh, self.record_path)

    def remove(self) -> None:
        """Remove the layer's folders and record (the lock file stays: a waiter may hold it)."""
        for path in (self.upper, self.work):
            self.discard(path)
        try:
            self.record_path.unlink()
        except FileNotFoundError:
            pass

    def discard(self, path: Path) -> None:
        """Move ``path`` (a folder of the layer) into the trash at once and remove it in the background: removing
        thousands of whiteouts, which share one inode, takes a millisecond each."""
        if not os.path.lexists(path):
            return
        trash = self.folder / TRASH
        trash.mkdir(mode=FOLDER_MODE, exist_ok=True)
        target = trash / f"{path.name}-{secrets.token_hex(8)}"
        os.replace(path, target)
        threading.Thread(target=_remove_tree, args=(target, True), name="ljtui-layer-trash", daemon=True).start()

    def empty_trash(self) -> None:
        """Remove in the background what an earlier process left in the trash."""
        trash = self.folder / TRASH
        left = list(trash.iterdir()) if trash.is_dir() else []
        if left:
            threading.Thread(target=lambda: [_remove_tree(entry, True) for entry in left], name="ljtui-layer-trash",
                             daemon=True).start()


def _stamps_of(record: object, repo: str, where: Path) -> dict[str, Stamp | None]:
    if not isinstance(record, dict) or record.get("version") != RECORD_VERSION:
        raise LayerRecordError(f"{where} is not a layer record of version {RECORD_VERSION}")
    if record.get("repo") != repo:
        raise LayerRecordError(f"{where} belongs to {record.get('repo')!r}, not {repo!r}")
    stamps = record.get("stamps")
    if not isinstance(stamps, dict):
        raise LayerRecordError(f"{where}: 'stamps' is not an object")
    out: dict[str, Stamp | None] = {}
    for path, stamp in stamps.items():
        if stamp is None:
            out[path] = None
        elif (isinstance(stamp, list) and len(stamp) == 4
              and all(isinstance(n, int) and not isinstance(n, bool) for n in stamp)):
            out[path] = (stamp[0], stamp[1], stamp[2], stamp[3])
        else:
            raise LayerRecordError(f"{where}: the stamp of {path!r} is not four integers")
    return out


def _remove_tree(path: Path, quiet: bool = False) -> None:
    """Remove ``path``; overlayfs leaves its work folder without permissions, so folders are opened first
    (``quiet``: errors are ignored, for a removal in the background that another may race)."""
    if not os.path.lexists(path):
        return
    for folder, subfolders, _files in os.walk(path):
        for name in subfolders:
            child = os.path.join(folder, name)
            if not os.path.islink(child):
                try:
                    os.chmod(child, FOLDER_MODE)
                except OSError:
                    pass
    shutil.rmtree(path, ignore_errors=quiet)
