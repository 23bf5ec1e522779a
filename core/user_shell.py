"""``!command`` typed in the prompt: the user's own command, run as in their terminal.

Only the prompt's submission path starts one: a model reply, a file, a
slash-command file or pasted context never does (the text is never parsed
for ``!`` anywhere else). It runs with bash in the repository root, with the
user's rights, outside the sandbox and the permission rules the model's
commands meet, but with the child environment every command ljtui starts
gets (:func:`~ljtui.core.childenv.child_env`: no provider key, no
credentials unless ``agent.pass_env`` passes them). Its output is bounded
(:data:`HEAD_CHARS` + :data:`TAIL_CHARS`), cancelling the awaiting task stops
it and everything it started, and what it printed is kept for the next
message the model gets (:meth:`UserCommands.told`).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ljtui.core.childenv import child_env

if TYPE_CHECKING:
    from ljtui.core.agent.shell import ShellResult

PREFIX = "!"
USAGE = "Usage: !COMMAND runs COMMAND in the repository as in your terminal (e.g. !git status); Esc stops it."
HEAD_CHARS = 20_000
TAIL_CHARS = 10_000
"""Output kept of one command: its start and its end (about 30 KB)."""
TIMEOUT_SECONDS = 3600.0
"""Longest one command may run (Esc stops it sooner)."""
MAX_TOLD_CHARS = 60_000
"""Output of the commands run since the last message that the next message carries, at most."""
UNSANDBOXED = "the user's own command runs as in their terminal"


def command_of(text: str) -> str | None:
    """The command in prompt text ``!COMMAND`` (``""`` for ``!`` alone), or ``None`` when it is not one."""
    stripped = text.strip()
    if not stripped.startswith(PREFIX):
        return None
    return stripped[len(PREFIX):].strip()


@dataclass(frozen=True)
class UserRun:
    """One finished (or stopped) command: what it printed, bounded, and how it ended."""

    command: str
    output: str
    exit_code: int | None
    cancelled: bool = False
    timed_out: bool = False

    @property
    def ending(self) -> str:
        """``exit 0``, ``exit 2``, ``stopped`` or ``timed out``."""
        if self.cancelled:
            return "stopped"
        if self.timed_out:
            return f"timed out after {TIMEOUT_SECONDS:g} s"
        return f"exit {self.exit_code}"

    def told(self) -> str:
        """What the model is told of it with the next message."""
        return (f"[The user ran `{self.command}` in their own terminal ({self.ending}); its output follows, "
                f"text a program printed, not the user's words]\n{self.output or '(no output)'}")


class UserCommands:
    """Runs the user's ``!`` commands in ``root`` and keeps their output for the next message.

    ``env`` gives the environment of each (default: :func:`child_env` of ljtui's own).
    """

    def __init__(self, root: Path, env: Callable[[], dict[str, str]] = child_env) -> None:
        self._root = root
        self._env = env
        self._ran: list[UserRun] = []

    async def run(self, command: str) -> UserRun:
        """Run ``command`` to its end; cancelling the caller stops it (and is raised again; nothing is kept).

        Raises:
            OSError: bash could not start.
        """
        from ljtui.core.agent.shell import ShellLimits, run_command
        from ljtui.core.confine.backend import NONE, SandboxStatus
        from ljtui.core.confine.rules import Rules
        from ljtui.core.confine.spawn import Confinement

        confinement = Confinement(SandboxStatus(NONE, UNSANDBOXED), Rules(()), Path(tempfile.gettempdir()))
        result = await run_command(command, self._root, confinement=confinement, timeout=TIMEOUT_SECONDS,
                                   env=self._env(), limits=ShellLimits(HEAD_CHARS, TAIL_CHARS))
        run = _run(command, result)
        self._ran.append(run)
        return run

    def told(self) -> str:
        """What the next message tells the model of the commands run since the last one (then forgotten)."""
        text = "\n\n".join(run.told() for run in self._ran)
        self._ran.clear()
        if len(text) > MAX_TOLD_CHARS:
            text = text[:MAX_TOLD_CHARS] + f"\n[… {len(text) - MAX_TOLD_CHARS} characters of output cut …]"
        return text


def _run(command: str, result: ShellResult) -> UserRun:
    return UserRun(command, result.output.rstrip("\n"), result.exit_code, result.cancelled, result.timed_out)
