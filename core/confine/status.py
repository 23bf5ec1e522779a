"""Which sandbox confines commands on this machine, and why (``ljtui doctor`` prints it).

In order, for ``agent.sandbox.backend: auto`` (the default):

1. **Landlock** with ABI 4 or newer: writes and TCP are confined in the kernel;
2. **bubblewrap** (``bwrap`` on ``PATH``, and able to make a sandbox here):
   where Landlock is missing or too old to forbid the network;
3. **Landlock** older than ABI 4 without bubblewrap: writes are confined, the
   network is not (said everywhere the sandbox is shown);
4. **none**: commands run with the user's full rights; the status bar and
   every command dialog say "unsandboxed", session grants and allow-lists
   for commands are off, and every command asks.

A backend is used only after a real self-test: a command in it tries to
create a file outside its writable places and must be refused. It starts
the way every command does (:meth:`~ljtui.core.confine.spawn.Confinement.popen`,
through the launcher that holds its processes), so a launcher that cannot
run here fails it too. The user
may pick a backend (``landlock``, ``bubblewrap``) or ``none`` in their own
config; a backend that cannot work then means "unsandboxed", never a
silent fallback.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable

from ljtui.core.confine import bwrap as bwrap_backend
from ljtui.core.confine import landlock
from ljtui.core.confine.backend import (  # noqa: F401 - re-exported
    AUTO, BACKEND_CHOICES, BUBBLEWRAP, LANDLOCK, NONE, UNSANDBOXED, SandboxStatus,
)
from ljtui.core.confine.rules import Place, Rules
from ljtui.core.confine.spawn import Confinement

SELFTEST_TIMEOUT_SECONDS = 10.0
SELFTEST_NAME = "outside"


AbiProbe = Callable[[], int]
Which = Callable[[str], "str | None"]
BwrapProbe = Callable[[str], "str | None"]


def detect(setting: str = AUTO, *, abi_probe: AbiProbe = landlock.abi_version, which: Which = shutil.which,
           bwrap_probe: BwrapProbe = bwrap_backend.works) -> SandboxStatus:
    """Find the sandbox for ``setting`` (``agent.sandbox.backend``); runs a self-test of the one chosen.

    Disk and process work (tens of milliseconds): call from a thread.
    """
    if setting == NONE:
        return SandboxStatus(NONE, "agent.sandbox.backend is 'none' in your config: commands run with your "
                                   "full rights")
    abi, no_landlock = _abi(abi_probe)
    if setting in (AUTO, LANDLOCK) and abi >= (landlock.MIN_NETWORK_ABI if setting == AUTO else 1):
        status = SandboxStatus(LANDLOCK, _landlock_why(abi), abi, network_enforced=abi >= landlock.MIN_NETWORK_ABI)
        failed = selftest(status)
        if failed is None:
            return status
        no_landlock = f"Landlock ABI {abi} is present but does not confine: {failed}"
        abi = 0
    if setting == LANDLOCK:
        return SandboxStatus(NONE, f"agent.sandbox.backend is 'landlock', but {no_landlock or 'it failed'}", abi)
    too_old = (f"Landlock ABI {abi} cannot forbid the network (ABI {landlock.MIN_NETWORK_ABI} can)" if abi
               else no_landlock)
    program = which("bwrap")
    problem = bwrap_probe(program) if program else "bubblewrap (bwrap) is not on PATH"
    if program and problem is None:
        status = SandboxStatus(BUBBLEWRAP, f"{too_old}; using bubblewrap ({program})", abi, program)
        problem = selftest(status)
        if problem is None:
            return status
    if setting == BUBBLEWRAP:
        return SandboxStatus(NONE, f"agent.sandbox.backend is 'bubblewrap', but {problem}", abi)
    if abi:
        status = SandboxStatus(LANDLOCK, f"{too_old} and {problem}: writes are confined, the network is not", abi,
                               network_enforced=False)
        if selftest(status) is None:
            return status
    return SandboxStatus(NONE, f"{too_old}, and {problem}: commands run with your full rights", abi)


def _abi(probe: AbiProbe) -> tuple[int, str]:
    try:
        return probe(), ""
    except landlock.LandlockUnavailable as exc:
        return 0, str(exc)


def _landlock_why(abi: int) -> str:
    return f"Landlock ABI {abi} (Linux {platform.release()})"


def selftest(status: SandboxStatus) -> str | None:
    """``None`` when a command in ``status``'s sandbox is refused a write outside its place; else what went wrong."""
    with tempfile.TemporaryDirectory(prefix="ljtui-selftest-") as scratch:
        inside = Path(scratch) / "inside"
        inside.mkdir()
        outside = Path(scratch) / SELFTEST_NAME
        confinement = Confinement(status, Rules((Place(inside, "inside"),)), tmp_dir=inside)
        script = f'echo > "{inside}/ok"; (echo > "{outside}") 2>/dev/null; exit 0'
        try:
            proc = confinement.popen(["/bin/sh", "-c", script], cwd=inside, env={"PATH": os.defpath},
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            output, _ = proc.communicate(timeout=SELFTEST_TIMEOUT_SECONDS)
        except (OSError, subprocess.SubprocessError, landlock.LandlockUnavailable) as exc:
            return f"the self-test could not run ({exc})"
        if proc.returncode != 0 or not (inside / "ok").exists():
            text = output.decode("utf-8", "replace").strip()
            return f"the self-test failed (exit {proc.returncode}{': ' + text[-200:] if text else ''})"
        if outside.exists():
            return "the self-test wrote outside its place"
    return None
