"""The ``bash`` tool: run one shell command in the repository, with permission (AGENT-2/3).

Every call asks through the session's
:class:`~ljtui.core.agent.permissions.Permissions`: the dialog shows the
command, the folder and the time limit. A command that matches a dangerous
pattern (:func:`~ljtui.core.agent.danger.danger_of`) is asked every time,
whatever the allow-lists say. The command runs through
:func:`~ljtui.core.agent.shell.run_command`: its output streams to the UI
as ``tool_output`` events, and the model reads the exit code, the duration
and the head and tail of the output.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

from ljtui.core.agent.danger import danger_of
from ljtui.core.agent.permissions import Permissions
from ljtui.core.agent.shell import HEAD_CHARS, NOT_STARTED, TAIL_CHARS, ShellResult, run_command
from ljtui.core.agent.tools.base import failed, int_arg, text_arg
from ljtui.core.childenv import child_env
from ljtui.core.config import AgentConfig
from ljtui.core.events import ToolOutput
from ljtui.core.providers.base import ToolSpec
from ljtui.core.tools import Tool, ToolContext, ToolError, ToolResult

PERMISSIONS = "permissions"
COMMAND_ENV = "command_env"
"""Service: variables added to a command's environment where the tools work (a staging tree's git ceiling)."""
TIMEOUT_KEY = "agent.bash_timeout"
MAX_COMMAND_CHARS = 32_000
"""Longest command accepted (Linux refuses a single argument past 128 KiB; a character is up to 4 bytes)."""
MIN_TIMEOUT_SECONDS = 1
MS_PER_SECOND = 1000

BASH = ToolSpec(
    "bash",
    "Run a shell command with /bin/bash -c in the repository root and return its exit code, duration and "
    f"output (stdout and stderr merged; long output keeps the first {HEAD_CHARS:,} and last {TAIL_CHARS:,} "
    "characters). Stdin is empty, nothing can prompt, and the command is killed, with everything it started, "
    f"when its time is up (`timeout`, at most {TIMEOUT_KEY}, {AgentConfig().bash_timeout:.0f} s by default); "
    "background processes are stopped when it ends. "
    "Asks the user first; dangerous commands (recursive deletes, force pushes, writes outside the repository, "
    "sudo, curl | sh) are asked every time. Files a command changes are NOT undone by /undo: only write_file "
    "and edit_file go through the undoable transaction, so prefer them for editing files.",
    {"type": "object", "properties": {
        "command": {"type": "string", "description": "the shell command, e.g. \"pytest -q tests/test_x.py\""},
        "timeout": {"type": "integer", "minimum": MIN_TIMEOUT_SECONDS,
                    "description": f"seconds before the command is killed; at most {TIMEOUT_KEY}"}},
     "required": ["command"], "additionalProperties": False},
)


async def bash(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Ask, run ``command`` in the repository root, and report how it ended."""
    command = text_arg(args, "command", empty_ok=False, max_chars=MAX_COMMAND_CHARS) or ""
    if not command.strip():
        raise ToolError("argument 'command' is blank")
    limit = ctx.config.agent.bash_timeout
    asked = int_arg(args, "timeout", minimum=MIN_TIMEOUT_SECONDS, maximum=max(MIN_TIMEOUT_SECONDS, int(limit)))
    timeout = float(asked) if asked is not None else limit
    permissions: Permissions = ctx.service(PERMISSIONS)
    danger = await asyncio.to_thread(danger_of, command, ctx.root)
    answer = await permissions.request(tool="bash", subject=command, title="Run this command?",
                                       lines=request_lines(command, ctx.root, timeout, asked is None),
                                       turn=ctx.turn, call_id=ctx.call_id, agent=ctx.agent, danger=danger)
    if not answer.allowed:
        return failed(answer.reason)

    def stream(text: str) -> None:
        ctx.emit(ToolOutput(ctx.turn, ctx.call_id, text, ctx.agent))

    secrets = [ctx.config.provider.api_key] if ctx.config.provider.api_key else []
    try:
        result = await run_command(command, ctx.root, timeout=timeout, on_output=stream, cancelled=ctx.cancelled,
                                   env=child_env(secrets=secrets) | ctx.services.get(COMMAND_ENV, {}))
    except OSError as exc:
        raise ToolError(f"cannot start /bin/bash in {ctx.root}: {exc.strerror or exc}") from None
    return report(result, timeout, asked is None)


def request_lines(command: str, root: Path, timeout: float, from_config: bool) -> list[str]:
    """What the permission dialog shows: the command, where it runs, and its time limit."""
    first, *rest = command.splitlines() or [command]
    return [f"$ {first}", *(f"  {line}" for line in rest), "", f"in {root}",
            f"time limit {_seconds(timeout)}{f' ({TIMEOUT_KEY})' if from_config else ''}"]


def report(result: ShellResult, timeout: float, from_config: bool) -> ToolResult:
    """What the model reads about a finished command, and the UI's one line."""
    took = _seconds(result.duration)
    if result.timed_out:
        why = f"({TIMEOUT_KEY})" if from_config else f"(the timeout you asked for; {TIMEOUT_KEY} is the maximum)"
        head = f"killed after {_seconds(timeout)} {why}: it did not finish in time"
        summary = f"killed after {_seconds(timeout)}"
    elif result.cancelled and result.pid == NOT_STARTED:
        head = "cancelled by the user before it started; nothing ran"
        summary = "cancelled"
    elif result.cancelled:
        head = f"cancelled by the user after {took}; the command and everything it started were stopped"
        summary = "cancelled"
    elif result.exit_code is not None and result.exit_code < 0:
        head = f"killed by signal {_signal_name(-result.exit_code)} after {took}"
        summary = head
    else:
        head = f"exit code {result.exit_code} after {took}"
        summary = f"exit {result.exit_code} · {took}"
    notes = []
    if result.left_running:
        notes.append(f"warning: {result.left_running} process(es) of the command could not be stopped")
    if result.pipe_held:
        notes.append("note: a process that left the command's process group still holds its output; "
                     "the output may be incomplete")
    body = result.output if result.total_chars else "(no output)"
    label = "output so far" if result.timed_out or result.cancelled else "output"
    content = "\n".join([head, *notes, f"{label} ({result.total_chars} characters):", body])
    ok = result.exit_code == 0 and not (result.timed_out or result.cancelled)
    return ToolResult(ok, content, summary)


def _seconds(value: float) -> str:
    if value < 1:
        return f"{value * MS_PER_SECOND:.0f} ms"
    return f"{value:.0f} s" if value >= 10 or value == int(value) else f"{value:.1f} s"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


TOOLS = (Tool(BASH, bash),)
