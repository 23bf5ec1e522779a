"""A commit of exactly the files an apply of the layer wrote, with a message the model proposed and the user edited.

The model proposes the message with ``propose_commit`` (kept in
:class:`ProposedCommit` until it is used); once the user applied the
layer's change, the user is asked whether to commit exactly the files
written, the proposal as the editable text of the question (Esc: the change
stays uncommitted). ``ljtui layer apply --commit MESSAGE`` commits the same
way from a shell. Like every git call of ljtui's (:func:`~ljtui.core.git.run_git`),
the commit runs no program a repository's settings name: no hook, no filter,
no signing program; what the user had staged besides stays staged.
"""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import Sequence

from ljtui.core.approval import NO, YES, ApprovalRequest, Choice
from ljtui.core.git import GitRefused, run_git

KIND = "layer_commit"
"""The request kind (policies and scripted answers key on it)."""
MAX_MESSAGE_CHARS = 2_000
"""Longest commit message taken."""
NO_SIGNING = ("-c", "commit.gpgSign=false")
"""A commit is not signed: the signing program is one a repository's settings may name."""
MAX_LISTED = 20
"""Files named one by one in the question before the rest are counted."""
COMMIT_KEY = "ctrl+s"
"""Commits (the message is several lines: Enter starts a new one)."""


class ProposedCommit:
    """The commit message the model proposed for the layer's change, until an apply uses it or another replaces
    it. Thread-safe."""

    def __init__(self) -> None:
        self._message = ""
        self._lock = threading.Lock()

    def propose(self, message: str) -> None:
        with self._lock:
            self._message = message

    @property
    def message(self) -> str:
        with self._lock:
            return self._message

    def take(self) -> str:
        """The proposal, which is then gone (``""``: none)."""
        with self._lock:
            message, self._message = self._message, ""
            return message


def message_problem(message: str) -> str | None:
    """Why ``message`` cannot be a commit message (``None``: it can)."""
    if not message.strip():
        return "a commit message needs some text"
    if len(message) > MAX_MESSAGE_CHARS:
        return f"a commit message is at most {MAX_MESSAGE_CHARS:,} characters"
    if "\0" in message:
        return "a commit message cannot hold a NUL character"
    return None


def commit_request(paths: Sequence[str], message: str) -> ApprovalRequest:
    """Ask whether to commit exactly ``paths``, the model's ``message`` as the editable text."""
    lines = [f"Commit exactly the {len(paths)} file(s) just written:", ""]
    lines += [f"  {path}" for path in paths[:MAX_LISTED]]
    if len(paths) > MAX_LISTED:
        lines.append(f"  … and {len(paths) - MAX_LISTED} more")
    lines += ["", "The message is the model's proposal: edit it. Nothing else you staged is committed, and no hook "
              "or signing program of the repository runs."]
    return ApprovalRequest(KIND, "Commit the applied change?", tuple(lines),
                           (Choice(YES, "commit", COMMIT_KEY), Choice(NO, "do not commit, leave it applied", "escape")),
                           NO, text=message, multiline=True)


def commit_files(root: Path, paths: Sequence[str], message: str) -> tuple[str, str]:
    """Commit exactly ``paths`` (added, changed or removed) with ``message``: the new commit's short id and
    ``""``, or ``""`` and why git did not commit."""
    problem = message_problem(message)
    if problem is not None:
        return "", problem
    try:
        added = run_git(["add", "-A", "--", *paths], root, options=NO_SIGNING)
        done = (run_git(["commit", "--only", "-q", "-m", message, "--", *paths], root, options=NO_SIGNING)
                if added.returncode == 0 else added)
        if done.returncode != 0:
            said = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
            why = next((line for line in said if line.startswith(("fatal:", "error:"))), said[-1] if said else "")
            run_git(["reset", "-q", "--", *paths], root)  # what the add staged is unstaged again
            return "", why or f"git exited with {done.returncode}"
        head = run_git(["rev-parse", "--short", "HEAD"], root).stdout.decode("ascii", "replace").strip()
    except (OSError, subprocess.SubprocessError, GitRefused) as exc:
        return "", str(exc)
    return head, ""
