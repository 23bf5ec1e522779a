"""Running a check item's command and recording what happened as evidence (GATE-5, GATE-11).

The command runs through the same runner as the agent's ``bash`` tool
(:func:`ljtui.core.agent.shell.run_command`): ``/bin/bash -c`` in the
session's sandbox (writes only where the check works — the staging tree
while a gate stages the work, so a check can never write the user's tree —
and the private temp dir; network off unless the user turned it on), in a
process group of its own, standard input empty, output merged and kept as
head and tail, the whole group stopped at the time limit or on cancel. Its
environment is :func:`~ljtui.core.gates.workspace.command_env`: no API
keys or credentials, and git cannot climb out of a staging tree into the
user's repository. What the model says about a check is never evidence;
only what this function saw is.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable, Mapping

from ljtui.core.agent.shell import NOT_STARTED, ShellResult, run_command
from ljtui.core.clock import Clock
from ljtui.core.confine.refusal import refusal_note
from ljtui.core.confine.spawn import Confinement
from ljtui.core.gates.model import CheckItem, Evidence

MS_PER_SECOND = 1000


async def run_check(item: CheckItem, cwd: Path, *, confinement: Confinement, env: Mapping[str, str],
                    timeout: float, content_hash: str, agent: str, verifier: str = "", clock: Clock,
                    cancelled: asyncio.Event | None = None, on_output: Callable[[str], None] | None = None) -> Evidence:
    """Run ``item.command`` in ``cwd`` and return the evidence; never raises for a failing command.

    Args:
        item: the check item; its command runs exactly as written.
        cwd: where it runs (the staging tree, or the repository when no gate is started).
        confinement: the sandbox and rules it runs under.
        env: its environment (:func:`~ljtui.core.gates.workspace.command_env`).
        timeout: seconds before the command and its whole process group are stopped.
        content_hash: the staged content's hash the evidence is bound to.
        agent: who asked for the check.
        verifier: the independent verifier's agent id when it ran the check, else ``""``.
        clock: time source for the duration and the ``at`` stamp.
        cancelled: when set, the command is stopped (evidence with no exit code).
        on_output: receives output as it arrives (batched), for a live view.

    Returns:
        :class:`Evidence` with the exit code (``None`` when it was killed at its
        time limit, cancelled, or could not start), duration, head-and-tail
        output with a line saying why it ended when it did not exit, and the hash.
        The awaiting task being cancelled still stops the group and propagates.
    """
    started = clock.monotonic()
    try:
        result = await run_command(item.command, cwd, confinement=confinement, timeout=timeout, on_output=on_output,
                                   cancelled=cancelled, env=env)
    except OSError as exc:
        exit_code, output = None, f"[the command could not start: {exc.strerror or exc}]"
    else:
        exit_code, output = _exit_code(result), result.output + _ending(result, timeout)
        note = refusal_note(result.output, result.exit_code, confinement)
        if note:
            output += ("\n" if output and not output.endswith("\n") else "") + f"[{note}]\n"
    ended = clock.monotonic()
    return Evidence(item=item.id, command=item.command, exit_code=exit_code,
                    duration_ms=max(0, round((ended - started) * MS_PER_SECOND)), output=output,
                    content_hash=content_hash, agent=agent, verifier=verifier, at=clock.now())


def _exit_code(result: ShellResult) -> int | None:
    """The exit status, or ``None`` when the command did not end by itself."""
    if result.timed_out or result.cancelled:
        return None
    return result.exit_code


def _ending(result: ShellResult, timeout: float) -> str:
    """A closing line when the command did not simply exit, so the output says why there is no exit code."""
    notes = []
    if result.timed_out:
        notes.append(f"[stopped: no exit after {timeout:g} s; its process group was killed]")
    elif result.cancelled and result.pid == NOT_STARTED:
        notes.append("[not run: the check was cancelled before it started]")
    elif result.cancelled:
        notes.append("[stopped: the check was cancelled; its process group was killed]")
    elif result.exit_code is not None and result.exit_code < 0:
        notes.append(f"[ended by signal {-result.exit_code}]")
    if result.left_running:
        notes.append(f"[{result.left_running} process(es) of its group still ran after SIGKILL]")
    if result.pipe_held:
        notes.append("[a process outside its group kept the output open; the output may be incomplete]")
    if not notes:
        return ""
    separator = "" if not result.output or result.output.endswith("\n") else "\n"
    return separator + "\n".join(notes) + "\n"
