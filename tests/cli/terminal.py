"""A process on a real pseudo-terminal, for tests that watch what ljtui writes to the screen."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Callable

import pyte

ROWS, COLUMNS = 40, 120
WAIT_SECONDS = 60.0
"""Longest wait for one screen state (the app starts in a fresh process on a loaded machine)."""
READ_BYTES = 65536
POLL_SECONDS = 0.05


class Terminal:
    """A process on a pseudo-terminal, and everything it has written so far."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
                                     start_new_session=True)
        os.close(slave)
        self.master = master
        self.output = b""
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self._stream = pyte.ByteStream(self.screen)

    def read(self) -> None:
        ready, _, _ = select.select([self.master], [], [], POLL_SECONDS)
        if ready:
            try:
                data = os.read(self.master, READ_BYTES)
            except OSError:  # the process ended and closed its side
                return
            self.output += data
            self._stream.feed(data)

    def on_screen(self, text: str) -> bool:
        """Whether ``text`` is on the emulated screen now, on one row."""
        return any(text in row for row in self.screen.display)

    def wait_for(self, condition: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WAIT_SECONDS
        while not condition():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                screen = "\n".join(row.rstrip() for row in self.screen.display)
                raise AssertionError(f"no {what}; the screen shows:\n{screen}\nand the output ends with "
                                     f"{self.output[-2000:]!r}")
            self.read()

    def shows(self, text: str) -> Callable[[], bool]:
        """A condition: ``text`` was written after now, or is on the screen now and was not before.

        The screen is read through a terminal emulator, so text drawn in pieces (a style change or a cursor
        move between its cells, as a busy app's partial redraws do) counts as shown.
        """
        start, before = len(self.output), self.on_screen(text)
        return lambda: text.encode() in self.output[start:] or (not before and self.on_screen(text))

    def press(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def finish(self) -> int:
        deadline = time.monotonic() + WAIT_SECONDS
        while self.proc.poll() is None and time.monotonic() < deadline:
            self.read()
        code = self.proc.wait(timeout=WAIT_SECONDS)
        for _ in range(3):
            self.read()
        os.close(self.master)
        return code


def scripted_ljtui(tmp_path: Path, script: Path, user_config: str = "") -> tuple[Terminal, Path]:
    """``ljtui`` with the scripted model on a pseudo-terminal, in a fresh one-commit repository under ``tmp_path``
    and with a home of its own (``user_config``: its config file's text); returns the terminal and the repository."""
    argv, repo, env = scripted_setup(tmp_path, script, user_config)
    return Terminal(argv, repo, env), repo


def scripted_setup(tmp_path: Path, script: Path, user_config: str = "") -> tuple[list[str], Path, dict[str, str]]:
    """The command line, repository and environment of :func:`scripted_ljtui`, for any terminal to run."""
    from tests.conftest import git

    repo, home = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    home.mkdir()
    if user_config:
        (home / ".config" / "ljtui").mkdir(parents=True)
        (home / ".config" / "ljtui" / "config.yaml").write_text(user_config, encoding="utf-8")
    (repo / "README.md").write_text("# sample\n", encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "initial")
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_STATE_HOME": str(home / ".state"), "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    argv = [sys.executable, "-m", "ljtui.cli.main", "--provider", "scripted", "--script", str(script)]
    return argv, repo, env
