"""The bubblewrap backend: the same rules as Landlock, by mount namespaces.

Used where Landlock is missing or too old and ``bwrap`` is on ``PATH``.
The command sees the whole filesystem read-only (``--ro-bind / /``), a
fresh minimal ``/dev`` (``null``, ``zero``, ``random`` …, its own
``/dev/shm``), its own ``/proc`` and process ids (so ljtui is not there to
look at), and read-write binds of the writable places. With the network
off it gets a network namespace of its own (``--unshare-net``: no
interface but a loopback that is down), which is stricter than Landlock:
UDP and UNIX sockets to the outside go too.

No process of the command outlives it: bwrap's own init (pid 1 of the
namespace) reaps every orphan, ``setsid`` and double-forked ones included,
and with ``--die-with-parent`` it dies with bwrap, and the kernel then
kills everything left in the namespace. bwrap returns as soon as the
command exits, so that kill follows a moment later (bwrap's init alone
would wait for every process in the namespace to end). The same option
ends the sandbox with ljtui.

bubblewrap needs unprivileged user namespaces; :func:`works` checks that
once by running ``true`` in a sandbox.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ljtui.core.confine.rules import Rules

PROBE_TIMEOUT_SECONDS = 10.0
"""Longest the one-off ``bwrap … true`` probe may take."""


def bwrap_argv(bwrap: str, rules: Rules, cwd: Path, argv: list[str]) -> list[str]:
    """The command line that runs ``argv`` in ``cwd`` inside a bubblewrap sandbox of ``rules``."""
    args = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for path in rules.paths:
        if path.exists():
            args += ["--bind", str(path), str(path)]
    if not rules.network:
        args.append("--unshare-net")
    return [*args, "--chdir", str(cwd), "--", *argv]


def works(bwrap: str) -> str | None:
    """``None`` when ``bwrap`` can start a sandbox here, else why not (one line)."""
    return probe_run(bwrap_argv(bwrap, Rules(()), Path("/"), ["/bin/true"]), f"{bwrap} cannot make a sandbox here")


def probe_run(argv: list[str], refused: str) -> str | None:
    """Run a probe's ``bwrap`` command line (``argv[0]`` the program): ``None`` when it succeeds, else why not in
    one line (``refused``, then the last line bwrap said)."""
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=PROBE_TIMEOUT_SECONDS,
                              env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{argv[0]} could not run: {exc}"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{refused}: {why[-1] if why else f'exit {done.returncode}'}"
    return None
