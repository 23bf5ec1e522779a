"""A process in a real tmux session, for tests that paste and type as a user does in tmux.

Each session runs on a tmux server of its own (its own socket, no config file read), so the user's tmux is
never touched; :meth:`Tmux.close` ends that server and the process in it.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Callable

WAIT_SECONDS = 60.0
"""Longest wait for one screen state (the app starts in a fresh process on a loaded machine)."""
POLL_SECONDS = 0.05


class Tmux:
    """``argv`` running in a detached tmux session of ``columns`` x ``rows``, in ``cwd``, with exactly ``env``."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], columns: int = 100, rows: int = 30) -> None:
        self.socket = f"ljtui-test-{uuid.uuid4().hex[:12]}"
        self.target = "main"
        self.status_file = Path(tempfile.mkdtemp(prefix="ljtui-tmux-")) / "status"
        # the shell writes the status itself: tmux 3.3 can show a pane dead before it has read its status
        run = f'"$@"; echo $? > {shlex.quote(str(self.status_file))}'
        command = shlex.join(["env", "-i", *(f"{k}={v}" for k, v in env.items()), "sh", "-c", run, "sh", *argv])
        self.tmux("new-session", "-d", "-s", self.target, "-x", str(columns), "-y", str(rows), "-c", str(cwd),
                  command)
        self.tmux("set-option", "-t", self.target, "remain-on-exit", "on")

    def tmux(self, *args: str, stdin: bytes | None = None) -> str:
        """Run a tmux command on this session's server; its output."""
        done = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], input=stdin,
                              capture_output=True, check=True, timeout=WAIT_SECONDS)
        return done.stdout.decode("utf-8", "replace")

    def screen(self) -> list[str]:
        """The rows the pane shows now."""
        return self.tmux("capture-pane", "-p", "-t", self.target).splitlines()

    def shows(self, text: str) -> bool:
        return any(text in row for row in self.screen())

    def wait_for(self, condition: Callable[[list[str]], bool], what: str) -> list[str]:
        """Poll the screen until ``condition(rows)`` holds; the rows then. Fails naming ``what`` and showing the
        screen after :data:`WAIT_SECONDS`."""
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            rows = self.screen()
            if condition(rows):
                return rows
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what}; the screen shows:\n" + "\n".join(r.rstrip() for r in rows))
            time.sleep(POLL_SECONDS)

    def paste(self, text: str) -> None:
        """Paste ``text`` as tmux does (``paste-buffer -p``: bracketed when the application asked for it)."""
        self.tmux("load-buffer", "-b", "test", "-", stdin=text.encode())
        self.tmux("paste-buffer", "-p", "-d", "-b", "test", "-t", self.target)

    def type(self, text: str) -> None:
        """Type ``text`` literally."""
        self.tmux("send-keys", "-t", self.target, "-l", text)

    def press(self, *keys: str) -> None:
        """Press tmux key names (``Enter``, ``C-q``)."""
        self.tmux("send-keys", "-t", self.target, *keys)

    def exit_status(self) -> int | None:
        """The process's exit status once it has ended (the pane stays), else ``None``."""
        try:
            status = self.status_file.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return None
        return int(status) if status.isdigit() else None

    def close(self) -> None:
        """End this session's tmux server and the process in it."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=WAIT_SECONDS)
        shutil.rmtree(self.status_file.parent, ignore_errors=True)
