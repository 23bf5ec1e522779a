"""Running one event's hooks side by side, in the session's sandbox and, where there is one, its layer.

An event's hooks run in one sandboxed process (:func:`~ljtui.core.agent.shell.run_command`, as ``bash``
commands do): a short bash program (:data:`GROUP`) starts each hook as ``/bin/bash -c COMMAND`` in a process
group of its own, with its input (the event's JSON) on stdin, and stops one that outlives its own timeout
(SIGTERM, then SIGKILL). One process is what the layer allows (an overlay is mounted by one process at a time),
so hooks of one event run side by side in the layer too. A hook that the user's config gives the network runs in
a group of its own, since the network is a property of the sandbox.

What a hook prints comes back through named pipes in a private folder of the session's temp dir (the one place
every sandbox lets a command write): ljtui reads them as the hooks run, keeps the first
:data:`MAX_OUTPUT_BYTES` of each and counts the rest, so a hook that prints without end costs memory and disk
nothing. Its exit status comes back in a file of that folder. The hook's command text and input are files
there too, never spelled into the program's text.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ljtui.core.agent.shell import ShellLimits, run_command
from ljtui.core.hooks.spec import Hook

MAX_OUTPUT_BYTES = 64 * 1024
"""Bytes kept of each hook's stdout and of its stderr."""
KILL_GRACE_SECONDS = 2.0
"""Time a hook has between SIGTERM and SIGKILL once its timeout is up."""
GROUP_MARGIN_SECONDS = 10.0
"""How much longer than its slowest hook's timeout the group may take before it is stopped whole."""
DRAIN_SECONDS = 2.0
"""Time the output pipes have to close once the group has ended."""
READ_CHUNK = 64 * 1024

GROUP = r"""set -m
d=$1
n=$2
for ((i = 0; i < n; i++)); do
  { /bin/bash -c "$(<"$d/$i.cmd")" hook <"$d/$i.in" >"$d/$i.out" 2>"$d/$i.err"
    echo "$? $EPOCHREALTIME" >"$d/$i.rc"; } &
  pid[i]=$!
  t=$(<"$d/$i.t")
  { sleep "$t"; if kill -0 -- "-${pid[i]}"; then : >"$d/$i.late"; kill -TERM -- "-${pid[i]}"; sleep "$3"
    kill -KILL -- "-${pid[i]}"; fi; } 2>/dev/null &
  watch[i]=$!
done
wait "${pid[@]}"
for ((i = 0; i < n; i++)); do kill -- "-${watch[i]}" 2>/dev/null; done
exit 0
"""
"""The program that runs a group of hooks: ``$1`` the folder, ``$2`` how many, ``$3`` the kill grace. With job
control on (``set -m``) each background job gets a process group of its own, which its watcher stops."""


@dataclass(frozen=True)
class HookRun:
    """How one hook ended and what it printed.

    Attributes:
        exit_code: its exit status (``None``: it did not finish, or never started).
        stdout, stderr: the first :data:`MAX_OUTPUT_BYTES` of each, decoded as UTF-8 (bad bytes become U+FFFD).
        timed_out: its timeout stopped it.
        cut: it printed more than was kept.
        duration: seconds it ran.
        error: why it could not run (``""``: it ran).
    """

    hook: Hook
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    cut: bool = False
    duration: float = 0.0
    error: str = ""


class _Pipe:
    """A named pipe a hook writes to, read as it arrives; ljtui holds a write end until the group has ended, so
    a hook that has not opened it yet is not taken for one that closed it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, path: Path) -> None:
        os.mkfifo(path, 0o600)
        self._loop = loop
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        self._keep: int | None = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        self.data = bytearray()
        self.total = 0
        self.closed: asyncio.Future[None] = loop.create_future()
        loop.add_reader(self.fd, self._read)

    def _read(self) -> None:
        try:
            chunk = os.read(self.fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._loop.remove_reader(self.fd)
            if not self.closed.done():
                self.closed.set_result(None)
            return
        self.total += len(chunk)
        room = MAX_OUTPUT_BYTES - len(self.data)
        if room > 0:
            self.data += chunk[:room]

    def let_go(self) -> None:
        """Close ljtui's write end: the pipe reads its end once every hook process has closed it too."""
        if self._keep is not None:
            os.close(self._keep)
            self._keep = None

    def close(self) -> None:
        self.let_go()
        self._loop.remove_reader(self.fd)
        os.close(self.fd)

    def text(self) -> str:
        return bytes(self.data).decode("utf-8", "replace")


async def run_group(hooks: list[Hook], inputs: list[bytes], *, root: Path, confinement: object, tmp_dir: Path,
                    env: Mapping[str, str], cancelled: asyncio.Event | None = None) -> list[HookRun]:
    """Run ``hooks`` side by side, each with its input, in ``root`` under ``confinement`` (a
    :class:`~ljtui.core.confine.spawn.Confinement`); one :class:`HookRun` per hook, in order.

    The caller holds the layer when ``confinement`` runs in it. If the awaiting task is cancelled, the group is
    stopped first and the cancellation propagates.
    """
    loop = asyncio.get_running_loop()
    folder = Path(tempfile.mkdtemp(prefix="hooks-", dir=tmp_dir))
    pipes: list[tuple[_Pipe, _Pipe]] = []
    started = time.time()
    try:
        for i, (hook, data) in enumerate(zip(hooks, inputs)):
            (folder / f"{i}.cmd").write_text(hook.command, encoding="utf-8")
            (folder / f"{i}.in").write_bytes(data)
            (folder / f"{i}.t").write_text(f"{hook.timeout:.3f}", encoding="ascii")
            out = _Pipe(loop, folder / f"{i}.out")
            try:
                pipes.append((out, _Pipe(loop, folder / f"{i}.err")))
            except BaseException:
                out.close()
                raise
        limit = max(h.timeout for h in hooks) + KILL_GRACE_SECONDS + GROUP_MARGIN_SECONDS
        command = f"set -- {shlex.quote(str(folder))} {len(hooks)} {KILL_GRACE_SECONDS:.1f}\n{GROUP}"
        result = await run_command(command, root, confinement=confinement,  # type: ignore[arg-type]
                                   timeout=limit, cancelled=cancelled, env=dict(env),
                                   limits=ShellLimits(head_chars=2000, tail_chars=2000))
        for out, err in pipes:
            out.let_go()
            err.let_go()
        waiting = [p.closed for pair in pipes for p in pair if not p.closed.done()]
        if waiting:
            await asyncio.wait(waiting, timeout=DRAIN_SECONDS)
        if result.timed_out or result.cancelled:
            why = "stopped: the turn was cancelled" if result.cancelled else "stopped: the hooks took too long"
            return [_ended(folder, i, hook, pair, started, why) for i, (hook, pair) in enumerate(zip(hooks, pipes))]
        return [_ended(folder, i, hook, pair, started, "") for i, (hook, pair) in enumerate(zip(hooks, pipes))]
    finally:
        for out, err in pipes:
            out.close()
            err.close()
        shutil.rmtree(folder, ignore_errors=True)


def _ended(folder: Path, i: int, hook: Hook, pipes: tuple[_Pipe, _Pipe], started: float, stopped: str) -> HookRun:
    out, err = pipes
    cut = out.total > len(out.data) or err.total > len(err.data)
    late = (folder / f"{i}.late").exists()
    try:
        code_text, _, ended = (folder / f"{i}.rc").read_text(encoding="ascii").strip().partition(" ")
        code: int | None = int(code_text)
        duration = max(0.0, float(ended.replace(",", ".")) - started) if ended else time.time() - started
    except (OSError, ValueError):
        code, duration = None, time.time() - started
    if late:
        return HookRun(hook, None, out.text(), err.text(), True, cut, duration)
    if code is None:
        return HookRun(hook, None, out.text(), err.text(), False, cut, duration, stopped or "it did not report how "
                       "it ended")
    return HookRun(hook, code, out.text(), err.text(), False, cut, duration)
