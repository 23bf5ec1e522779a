"""The user's own editor (``$VISUAL``, else ``$EDITOR``) on a passage of text, for a dialog that edits one.

The text is written to a file in a private temp folder (named after the
file it belongs to, so the editor highlights it), the editor runs on it
with the terminal handed over, and what it saved is read back. The editor
is the user's program, named by the user's environment; nothing from the
repository chooses it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path, PurePosixPath
from typing import Mapping

MAX_READ_BYTES = 4 * 1024 * 1024
"""Largest saved text read back."""


def editor_command(env: Mapping[str, str] | None = None) -> list[str] | None:
    """The user's editor as a command line (``None``: neither ``VISUAL`` nor ``EDITOR`` is set)."""
    env = os.environ if env is None else env
    value = (env.get("VISUAL") or env.get("EDITOR") or "").strip()
    try:
        words = shlex.split(value)
    except ValueError:
        return None
    return words or None


def edit_text(text: str, name: str = "", env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """Run the user's editor on ``text`` (``name``: the file it belongs to, for its suffix) and return what it
    saved, or ``None`` and why not (no editor set, it failed to start or exited with an error, the file is gone,
    too large or not UTF-8)."""
    command = editor_command(env)
    if command is None:
        return None, "no editor is set: set VISUAL or EDITOR, or edit the text in the dialog"
    suffix = PurePosixPath(name).suffix if name else ""
    with tempfile.TemporaryDirectory(prefix="ljtui-edit-") as folder:
        path = Path(folder) / f"block{suffix if suffix.isascii() and len(suffix) <= 16 else ''}"
        path.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([*command, str(path)], check=False)
        except OSError as exc:
            return None, f"the editor {command[0]!r} could not start: {exc.strerror or exc}"
        if done.returncode != 0:
            return None, f"the editor {command[0]!r} exited with status {done.returncode}; the text is as it was"
        try:
            with path.open("rb") as stream:
                data = stream.read(MAX_READ_BYTES + 1)
        except OSError as exc:
            return None, f"the edited text could not be read back: {exc.strerror or exc}"
        if len(data) > MAX_READ_BYTES:
            return None, f"the edited text is larger than {MAX_READ_BYTES:,} bytes; the text is as it was"
        try:
            return data.decode("utf-8"), ""
        except UnicodeDecodeError:
            return None, "the edited text is not UTF-8; the text is as it was"
