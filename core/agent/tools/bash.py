"""The ``bash`` tool: run one shell command in the repository, in the sandbox, with permission (AGENT-2/3, SAFE-1).

Every call asks through the session's
:class:`~ljtui.core.agent.permissions.Permissions`: the dialog shows the
command, the folder, the time limit and what the sandbox allows. What a
grant may cover is read from a real parse of the line
(:mod:`~ljtui.core.agent.command_rules`): an allow-list entry covers one
simple command, a session grant only a plain line, and a command that looks
dangerous (:func:`~ljtui.core.agent.danger.danger_of`) is asked every time.
The command runs through :func:`~ljtui.core.agent.shell.run_command` inside
the session's :class:`~ljtui.core.confine.session.CommandSandbox`: its
output streams to the UI as ``tool_output`` events, and the model reads the
exit code, the duration, the head and tail of the output, and a note when
the sandbox refused something (with how the user can grant it).
"""

from __future__ import annotations

import asyncio
import dataclasses
import signal
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from ljtui.core.agent.command_rules import check_line
from ljtui.core.agent.danger import danger_of
from ljtui.core.agent.permissions import CommandFacts, Permissions
from ljtui.core.agent.shell import NOT_STARTED, ShellResult, run_command
from ljtui.core.agent.tools.base import bool_arg, failed, int_arg, text_arg
from ljtui.core.confine.refusal import refusal_note
from ljtui.core.confine.rules import Rules
from ljtui.core.confine.session import CommandSandbox
from ljtui.core.confine.spawn import Confinement
from ljtui.core.layer.service import DIRECT_WORDS, held_for
from ljtui.core.confine.status import SandboxStatus
from ljtui.core.display import shown
from ljtui.core.events import ToolOutput
from ljtui.core.gitguard.guard import GuardReport, described, watched
from ljtui.core.tools import Tool, ToolContext, ToolError, ToolResult, require
from ljtui.core.agent.tools.specs.bash import BASH, MIN_TIMEOUT_SECONDS, TIMEOUT_KEY

MAX_COMMAND_CHARS = 32_000
"""Longest command accepted (Linux refuses a single argument past 128 KiB; a character is up to 4 bytes)."""
MS_PER_SECOND = 1000



async def bash(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Ask, run ``command`` in the sandbox in the repository root, and report how it ended."""
    command = text_arg(args, "command", empty_ok=False, max_chars=MAX_COMMAND_CHARS) or ""
    if not command.strip():
        raise ToolError("argument 'command' is blank")
    limit = ctx.config.agent.bash_timeout
    asked = int_arg(args, "timeout", minimum=MIN_TIMEOUT_SECONDS, maximum=max(MIN_TIMEOUT_SECONDS, int(limit)))
    timeout = float(asked) if asked is not None else limit
    permissions: Permissions = require(ctx.services.permissions, "permissions")
    sandbox: CommandSandbox = require(ctx.services.sandbox, "sandbox")
    wants_network = bool_arg(args, "network")
    # finds (and self-tests) the sandbox and the layer on first use
    rules, layered, hidden = await asyncio.to_thread(layer_facts, sandbox, ctx.root)
    danger, facts = await asyncio.to_thread(command_facts, command, ctx.root, permissions.policy.allow_commands,
                                            sandbox.status, rules)
    quiet = layered and hidden is not None and ctx.config.agent.ask_commands == "layered" and not wants_network
    facts = dataclasses.replace(facts, confined=facts.confined or layered, layered=quiet)
    title = "Run this command?" if facts.confined else "Run this command unsandboxed?"
    if wants_network:
        title = "Run this command with the network?"
    answer = await permissions.request(tool="bash", subject=command, title=title,
                                       lines=request_lines(command, ctx.root, timeout, asked is None,
                                                           sandbox_line(sandbox.status, rules, layered)),
                                       turn=ctx.turn, call_id=ctx.call_id, agent=ctx.agent, danger=danger,
                                       command=facts)
    if not answer.allowed:
        return failed(answer.reason)
    if answer.network_for_session:
        sandbox.network_session = True
    confinement = sandbox.confinement(rules.with_network(rules.network or answer.network),
                                      unconfined=answer.unconfined, layered=layered, hidden=hidden or ())

    def stream(text: str) -> None:
        ctx.emit(ToolOutput(ctx.turn, ctx.call_id, text, ctx.agent))

    secrets = [ctx.config.provider.api_key] if ctx.config.provider.api_key else []
    env = sandbox.environment(secrets, dict(ctx.services.command_env))
    try:
        async with watched(ctx.services.git_guard, described(command)) as watch, in_layer(sandbox, confinement):
            result = await run_command(command, ctx.root, confinement=confinement, timeout=timeout,
                                       on_output=stream, cancelled=ctx.cancelled, env=env)
    except OSError as exc:
        raise ToolError(f"cannot start /bin/bash in {ctx.root}: {exc.strerror or exc}") from None
    return report(result, timeout, asked is None, refusal_note(result.output, result.exit_code, confinement),
                  watch.report)


def layer_facts(sandbox: CommandSandbox, root: Path) -> tuple[Rules, bool, tuple[str, ...] | None]:
    """The command's rules, whether it runs in the layer, and the secret files hidden there (``None``: they could
    not be found, so the command is asked for). Finds the sandbox and the layer on first use: call from a thread."""
    layered = sandbox.layered_at(root)
    return sandbox.rules(root, layered=True), layered, sandbox.hidden_secrets() if layered else ()


def in_layer(sandbox: CommandSandbox, confinement: Confinement) -> AbstractAsyncContextManager[None]:
    """Hold the session's layer for a layered command's whole life (nothing else mounts or changes it meanwhile);
    nothing for a command on the tree."""
    return held_for(sandbox.layer, confinement)


def command_facts(command: str, root: Path, allow_commands: tuple[str, ...], status: SandboxStatus,
                  rules: Rules) -> tuple[str | None, CommandFacts]:
    """Why ``command`` looks dangerous (or ``None``), and what its permission depends on (disk work: a thread)."""
    danger = danger_of(command, root)
    line = check_line(command, allow_commands, root)
    facts = CommandFacts(confined=status.confined, plain=line.plain, listed=line.listed,
                         network=rules.network and rules.network_enforced, network_enforced=rules.network_enforced,
                         why_asked=line.why)
    return danger, facts


def sandbox_line(status: SandboxStatus, rules: Rules, layered: bool = False) -> str:
    """The dialog's sandbox line: ``in the layer · writes: …; network: off``, ``sandbox landlock · writes: …;
    network: off · changes are written to your files directly`` or ``unsandboxed …``."""
    if layered:
        return f"in the layer · {rules.describe()}"
    if not status.confined:
        return f"unsandboxed: {status.why} · {DIRECT_WORDS}"
    return f"sandbox {status.backend} · {rules.describe()} · {DIRECT_WORDS}"


def request_lines(command: str, root: Path, timeout: float, from_config: bool, sandbox: str = "") -> list[str]:
    """What the permission dialog shows: the command exactly as it will run (every control, override and
    invisible character visible; split at line feeds only), where it runs, its time limit and its sandbox."""
    first, *rest = shown(command, exact=True).split("\n")
    lines = [f"$ {first}", *(f"  {line}" for line in rest), "", f"in {root}",
             f"time limit {_seconds(timeout)}{f' ({TIMEOUT_KEY})' if from_config else ''}"]
    return [*lines, sandbox] if sandbox else lines


def report(result: ShellResult, timeout: float, from_config: bool, refusal: str | None = None,
           git_settings: GuardReport | None = None) -> ToolResult:
    """What the model reads about a finished command, and the UI's one line (``refusal``: the sandbox's note;
    ``git_settings``: what the guard found in git's settings)."""
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
    if refusal:
        notes.append(refusal)
        summary += " · sandbox refused?"
    if git_settings is not None:
        notes.append(git_settings.for_model())
        summary += " · git settings kept" if git_settings.kept else " · git settings put back"
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
