"""A real process that swaps a folder for a symlink in a tight loop, and a watch on the folder the link leads to."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

SWAPPER = """
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
folder, link, stop = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), sys.argv[3]
linked_s, real_s = float(sys.argv[4]), float(sys.argv[5])

def exchange():
    if libc.renameat2(AT_FDCWD, folder, AT_FDCWD, link, RENAME_EXCHANGE) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")

swaps = 0
while not os.path.exists(stop):
    exchange()
    start = time.perf_counter()
    while time.perf_counter() - start < linked_s:
        pass
    exchange()
    swaps += 2
    time.sleep(real_s)
print(swaps)
"""
"""Exchanges ``folder`` and ``link`` atomically (``renameat2(RENAME_EXCHANGE)``): the link stays at the folder's
name for ``linked_s`` seconds, then the folder for about ``real_s``, until ``stop`` exists; ends with each back at
its own name and prints how many swaps it made."""
LINKED_S = 0.0001
REAL_S = 0.0004
"""Most of the time the folder is in place (so most paths check out), and every half millisecond or so a link
leads outside for a tenth of one: the window a writer that checks, then writes by path, falls into."""

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
CHANGES = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
"""Every inotify event that means something was written, created, moved or removed in a watched folder."""


class FolderSwapper:
    """``folder`` and a symlink beside it (``<folder>.link`` → ``target``) exchanged by a real process, over and over.

    While it runs the folder's path is, every ``real_s`` seconds or so (half a millisecond), a symlink to
    ``target`` (outside the repository) for ``linked_s`` (a tenth of a millisecond); the real folder then sits at
    ``<folder>.link``, still inside the repository.
    """

    def __init__(self, folder: Path, target: Path, linked_s: float = LINKED_S, real_s: float = REAL_S) -> None:
        self.folder, self.link, self.stop = folder, folder.with_name(folder.name + ".link"), folder.parent / ".stop"
        os.symlink(target, self.link)
        self.proc = subprocess.Popen([sys.executable, "-c", SWAPPER, str(folder), str(self.link), str(self.stop),
                                      str(linked_s), str(real_s)],
                                     stdout=subprocess.PIPE, text=True)

    def finish(self) -> int:
        """Stop it (the folder and the link back at their own names) and remove the link; the swaps made."""
        self.stop.touch()
        out, _ = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0, "the swapper failed"
        self.stop.unlink()
        os.unlink(self.link)
        assert self.folder.is_dir() and not self.folder.is_symlink()
        return int(out)


SWAP_ON_WRITE = """
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE, IN_CREATE = -100, 2, 0x100
folder, link = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
fd = libc.inotify_init1(0)
if fd < 0 or libc.inotify_add_watch(fd, folder, IN_CREATE) < 0:
    raise OSError(ctypes.get_errno(), "inotify")
print("ready", flush=True)
while True:
    data, offset, hit = os.read(fd, 65536), 0, False
    while offset < len(data):
        _, _, _, size = struct.unpack_from("iIII", data, offset)
        name = data[offset + 16:offset + 16 + size].rstrip(b"\\0")
        offset += 16 + size
        hit = hit or name.startswith(b".ljtui-")
    if hit:
        break
if libc.renameat2(AT_FDCWD, folder, AT_FDCWD, link, RENAME_EXCHANGE) != 0:
    raise OSError(ctypes.get_errno(), "renameat2")
print("swapped", flush=True)
"""
"""Waits for ljtui's temp file to appear in ``folder``, then exchanges ``folder`` and ``link`` once."""


class SwapOnWrite:
    """A real process that swaps ``folder`` for a symlink to ``target`` the moment a write's temp file appears in
    it: after the writer checked the folder, before it verified what it wrote."""

    def __init__(self, folder: Path, target: Path) -> None:
        self.folder, self.link = folder, folder.with_name(folder.name + ".link")
        os.symlink(target, self.link)
        self.proc = subprocess.Popen([sys.executable, "-c", SWAP_ON_WRITE, str(folder), str(self.link)],
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "ready\n"

    def finish(self) -> None:
        """Wait for the swap, then put the folder back at its name."""
        out, _ = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0 and out == "swapped\n", out
        os.unlink(self.folder)
        os.rename(self.link, self.folder)


class Watch:
    """inotify on folders: whether anything was ever created, written, moved or removed in them."""

    def __init__(self, *folders: Path) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        for folder in folders:
            if self._libc.inotify_add_watch(self.fd, os.fsencode(folder), CHANGES) < 0:
                raise OSError(ctypes.get_errno(), f"inotify_add_watch {folder}")

    def events(self) -> bytes:
        """The raw events seen so far (empty: nothing happened in the folders); closes the watch."""
        try:
            return os.read(self.fd, 65536)
        except BlockingIOError:
            return b""
        finally:
            os.close(self.fd)
